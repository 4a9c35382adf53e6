"""A fake list server for tests: serves a list of canonical records in any envelope x paging x record style.

Used by the property-based walk test (httpx.MockTransport). Each style is a common public convention (see
CONVENTIONS.md and ``solvelens.client.detect``); the server caps pages at its own size when ``cap`` is set.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import httpx

BASE = "http://conventions.test/api/v1"

#: Envelopes: where the list sits.
ENVELOPES = ("bare", "data", "items", "results", "named", "value", "hal", "relay", "jsonapi")
#: Paging styles (request parameters -> answer metadata).
PAGINGS = (
    "page_plain",
    "page_total",
    "page_per_page_link",
    "page_zero",
    "page_zero_header",
    "jsonapi_pages",
    "offset_limit",
    "skip_take",
    "skip_take_header",
    "odata",
    "odata_header",
    "start_rows",
    "start_rows_header",
    "from_size",
    "from_size_header",
    "cursor",
    "page_token",
    "next_token",
    "continuation",
    "relay",
    "starting_after",
    "next_relative",
    "hal_links",
)
#: Offset vocabularies (offset parameter, size parameter) of the styles that read only their own names.
_VOCABULARIES = {
    "skip_take_header": ("skip", "take"),
    "odata_header": ("$skip", "$top"),
    "start_rows": ("start", "rows"),
    "start_rows_header": ("start", "rows"),
    "from_size": ("from", "size"),
    "from_size_header": ("from", "size"),
}
#: Record styles.
RECORD_STYLES = ("camel", "camel_resid", "snake", "pascal", "resource_object")


def canonical_records(n: int) -> list[dict[str, Any]]:
    """``n`` canonical problem records (camelCase, ``id``, a nested object)."""
    return [
        {
            "id": f"p{i:03d}",
            "title": f"Problem {i}",
            "solutionCount": i % 7,
            "authorType": "bot" if i % 2 else "human",
            "topSolution": {"btScore": 1500.0 + i, "botName": f"b{i}"} if i % 3 else None,
        }
        for i in range(n)
    ]


def _snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()


def _pascal(key: str) -> str:
    return key[0].upper() + key[1:]


def _keys(value: Any, fn: Any) -> Any:
    if isinstance(value, dict):
        return {fn(k): _keys(v, fn) for k, v in value.items()}
    return value


def wire_record(rec: dict[str, Any], style: str) -> dict[str, Any]:
    """A canonical record as the server sends it in ``style``."""
    if style == "camel":
        return rec
    if style == "camel_resid":
        return {"problemId": rec["id"], **{k: v for k, v in rec.items() if k != "id"}}
    if style == "snake":
        out = _keys(rec, _snake)
        return {"problem_id": out.pop("id"), **out}
    if style == "pascal":
        return _keys(rec, _pascal)
    attributes = _keys({k: v for k, v in rec.items() if k != "id"}, _snake)
    return {"type": "problems", "id": rec["id"], "attributes": attributes, "links": {"self": "/x"}}


def compatible(envelope: str, paging: str, record: str) -> bool:
    """Whether the combination is one a server could send (metadata needs a place to go)."""
    header_only = paging in ("page_plain", "page_per_page_link", "page_zero_header") or paging.endswith(
        "_header"
    )
    if envelope == "bare" and not header_only:
        return False
    if (envelope == "relay") != (paging == "relay"):
        return False
    if record == "resource_object" and envelope not in ("jsonapi", "data"):
        return False
    if paging == "hal_links" and envelope != "hal":
        return False
    return not (paging == "jsonapi_pages" and envelope != "jsonapi")


@dataclass
class ConventionServer:
    """Serves ``records`` (canonical) in one combination; ``cap``: the server's own largest page (it answers
    at most that many whatever the request asks; ``None``: as asked). ``requests`` records what was sent."""

    records: list[dict[str, Any]]
    envelope: str
    paging: str
    record: str
    cap: int | None = None
    default_size: int = 5

    def __post_init__(self) -> None:
        self.requests: list[httpx.Request] = []

    # -- request -> window --------------------------------------------------------------------------------

    def _size(self, asked: str | None) -> int:
        size = int(asked) if asked else self.default_size
        return min(size, self.cap) if self.cap else size

    def _window(self, q: httpx.QueryParams) -> tuple[int, int]:
        p = self.paging
        if p in ("page_plain", "page_total"):
            size = self._size(q.get("limit"))
            return (int(q.get("page", 1)) - 1) * size, size
        if p == "page_per_page_link":
            size = self._size(q.get("per_page"))
            return (int(q.get("page", 1)) - 1) * size, size
        if p == "page_zero":
            size = self._size(q.get("size") or q.get("limit"))
            return int(q.get("page", 0)) * size, size
        if p == "page_zero_header":  # pages from 0, nothing in the body, the total in a header
            size = self._size(q.get("limit"))
            return int(q.get("page", 0)) * size, size
        if p == "jsonapi_pages":
            size = self._size(q.get("page[size]") or q.get("limit"))
            return (int(q.get("page[number]", 1)) - 1) * size, size
        if p == "offset_limit":
            return int(q.get("offset", 0)), self._size(q.get("limit"))
        if p == "skip_take":
            return int(q.get("skip", 0)), self._size(q.get("take") or q.get("limit"))
        if p == "odata":
            return int(q.get("$skip", 0)), self._size(q.get("$top") or q.get("limit"))
        if p in _VOCABULARIES:  # each reads its own names only (``limit`` is not one of them)
            offset, size = _VOCABULARIES[p]
            return int(q.get(offset, 0)), self._size(q.get(size))
        if p == "relay":
            after = q.get("after")
            return (int(after[1:]) if after else 0), self._size(q.get("first") or q.get("limit"))
        if p == "starting_after":
            after = q.get("starting_after")
            start = next(i + 1 for i, r in enumerate(self.records) if r["id"] == after) if after else 0
            return start, self._size(q.get("limit"))
        token = {
            "cursor": "cursor",
            "page_token": "pageToken",
            "next_token": "next_token",
            "continuation": "continuation",
            "next_relative": "after",
            "hal_links": "page_token",
        }[p]
        value = q.get(token)
        return (int(value[1:]) if value else 0), self._size(q.get("limit"))

    # -- window -> answer ---------------------------------------------------------------------------------

    def _paging_meta(
        self, q: httpx.QueryParams, start: int, size: int, end: int, url: httpx.URL
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """``(body metadata, headers)`` of one answer."""
        total = len(self.records)
        more = end < total
        token = f"o{end}" if more else None
        p = self.paging
        if p == "page_plain":
            return {}, {}
        if p == "page_zero_header":
            return {}, {"X-Total-Count": str(total)}
        if p == "page_total":
            page = int(q.get("page", 1))
            meta = {"page": page, "limit": size, "total": total, "totalPages": math.ceil(total / size)}
            return {"pagination": meta}, {}
        if p == "page_per_page_link":
            headers = {"X-Total-Count": str(total)}
            if more:
                nxt = url.copy_merge_params({"page": int(q.get("page", 1)) + 1})
                headers["Link"] = f'<{nxt}>; rel="next", <{url}>; rel="self"'
            return {}, headers
        if p == "page_zero":
            return {"page": int(q.get("page", 0)), "size": size, "totalPages": math.ceil(total / size)}, {}
        if p == "jsonapi_pages":
            links: dict[str, Any] = {"self": str(url)}
            if more:
                links["next"] = str(
                    url.copy_merge_params({"page[number]": int(q.get("page[number]", 1)) + 1})
                )
            return {"links": links, "meta": {"total": total}}, {}
        if p == "offset_limit":
            return {"offset": start, "limit": size, "total": total}, {}
        if p == "skip_take":
            return {"skip": start, "take": size}, {"X-Total-Count": str(total)}
        if p.endswith("_header"):  # a bare list: the total only in X-Total-Count
            return {}, {"X-Total-Count": str(total)}
        if p == "start_rows":  # Solr's vocabulary
            return {"start": start, "rows": size, "numFound": total}, {}
        if p == "from_size":  # Elasticsearch's vocabulary
            return {"from": start, "size": size, "total": total}, {}
        if p == "odata":
            meta: dict[str, Any] = {"@odata.count": total}
            if more:
                meta["@odata.nextLink"] = str(url.copy_merge_params({"$skip": end, "$top": size}))
            return meta, {}
        if p == "relay":
            return {"pageInfo": {"hasNextPage": more, "endCursor": f"o{end}"}, "totalCount": total}, {}
        if p == "starting_after":
            return {"object": "list", "has_more": more}, {}
        if p == "cursor":
            return {"next_cursor": token, "has_more": more}, {}
        if p == "page_token":
            return ({"nextPageToken": token} if token else {}), {}
        if p == "next_token":
            return {"next_token": token}, {}
        if p == "continuation":
            return ({"continuation": token} if token else {}), {}
        if p == "next_relative":
            return {
                "next": f"/api/v1/problems?after={token}&limit={size}" if token else None,
                "count": total,
            }, {}
        nxt = {"href": f"/api/v1/problems?page_token={token}&limit={size}"} if token else None
        links = {"self": {"href": str(url)}, **({"next": nxt} if nxt else {})}
        return {"_links": links}, {"X-Total-Count": str(total)}

    def _envelope(self, items: list[dict[str, Any]], meta: dict[str, Any]) -> Any:
        e = self.envelope
        if e == "bare":
            return items
        if e == "named":
            return {"problems": items, **meta}
        if e in ("data", "items", "results", "value"):
            return {e: items, **meta}
        if e == "jsonapi":
            return {"data": items, "jsonapi": {"version": "1.1"}, **meta}
        if e == "hal":
            return {"_embedded": {"problems": items}, **meta}
        edges = [{"node": item, "cursor": f"c{i}"} for i, item in enumerate(items)]
        return {"edges": edges, **meta}

    def handle(self, request: httpx.Request) -> httpx.Response:
        """The answer to one request (records as the style sends them)."""
        self.requests.append(request)
        q = request.url.params
        start, size = self._window(q)
        end = min(start + size, len(self.records))
        page = [wire_record(r, self.record) for r in self.records[start:end]]
        meta, headers = self._paging_meta(q, start, size, end, request.url)
        return httpx.Response(200, json=self._envelope(page, meta), headers=headers)
