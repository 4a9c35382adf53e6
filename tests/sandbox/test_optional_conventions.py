"""The optional endpoints (activity, model leaderboard, a solution and its comparisons) in every non-platform
convention mode, over real HTTP: each answer, turned back into the platform's camelCase records, equals what
the platform mode serves from the same database; envelopes, paging, caps and errors are the mode's own."""

from __future__ import annotations

import datetime as dt
import sqlite3
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest

from solvelens.sandbox import activity, llm_leaderboard, queries
from solvelens.sandbox.conventions.case import to_camel
from solvelens.sandbox.db import get_meta
from solvelens.sandbox.ids import IdCodec

MODES = ("jsonapi", "hal", "odata", "relay")
#: JSON:API relationship name -> the platform's foreign key field.
RELATED = {
    "bot": "botId",
    "problem": "problemId",
    "voter_bot": "voterBotId",
    "solution_a": "solutionAId",
    "solution_b": "solutionBId",
}
KIND = {"activity": "activities", "model": "models", "family": "families", "comparison": "comparisons"}
TYPE = {"activity": "activities", "model": "models", "family": "families", "comparison": "comparisons"}
#: Each mode's page-size parameter.
SIZE = {"jsonapi": "page[size]", "hal": "limit", "odata": "$top", "relay": "first"}


def platform_record(mode: str, singular: str, record: dict[str, Any], id_field: str = "id") -> dict[str, Any]:
    """A record of ``mode`` as the platform mode serves it (camelCase, ``id``, foreign keys flat)."""
    if mode == "jsonapi":
        out = {id_field: record["id"], **{to_camel(k): v for k, v in record["attributes"].items()}}
        for name, rel in record.get("relationships", {}).items():
            out[RELATED[name]] = None if rel["data"] is None else rel["data"]["id"]
        if singular == "activity":
            out["id"] = int(out["id"])
        return out
    if mode == "hal":
        own = f"{singular}_id"
        return {("id" if k == own else to_camel(k)): v for k, v in record.items() if k != "_links"}
    if mode == "odata":
        return {to_camel(k): v for k, v in record.items() if not k.startswith("@")}
    own = f"{singular}Id"
    return {("id" if k == own else k): v for k, v in record.items()}


def page_records(mode: str, singular: str, body: Any, id_field: str = "id") -> list[dict[str, Any]]:
    """The records of a list answer in ``mode``, as platform records."""
    if mode == "jsonapi":
        assert all(r["type"] == TYPE[singular] for r in body["data"])
        raw = body["data"]
    elif mode == "hal":
        raw = body["_embedded"][KIND[singular]]
    elif mode == "odata":
        raw = body["value"]
    else:
        raw = [edge["node"] for edge in body["edges"]]
    return [platform_record(mode, singular, r, id_field) for r in raw]


def has_next(mode: str, body: Any) -> bool:
    if mode == "jsonapi":
        return "next" in body["links"]
    if mode == "hal":
        return "next" in body["_links"]
    if mode == "odata":
        return "@odata.nextLink" in body
    return bool(body["pageInfo"]["hasNextPage"])


def walk(mode: str, client: httpx.Client, path: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every model of ``path`` following the mode's own next links / cursors."""
    records: list[dict[str, Any]] = []
    url: str | None = f"{str(client.base_url).rstrip('/')}{path}"
    for _ in range(50):
        assert url is not None
        response = client.get(url, params=params or None)  # an empty dict would drop the query
        assert response.status_code == 200, response.text
        body = response.json()
        records += page_records(mode, "model", body)
        if not has_next(mode, body):
            return records
        if mode == "jsonapi":
            url, params = body["links"]["next"], {}
        elif mode == "hal":
            url, params = urljoin(url, body["_links"]["next"]["href"]), {}
        elif mode == "odata":
            url, params = body["@odata.nextLink"], {}
        else:
            params = {**params, "after": body["pageInfo"]["endCursor"]}
    raise AssertionError("paging did not end within 50 pages")


def error_of(mode: str, response: httpx.Response) -> str:
    body = response.json()
    if mode == "jsonapi":
        return str(body["errors"][0]["detail"])
    if mode == "hal":
        assert response.headers["content-type"].startswith("application/problem+json")
        return str(body["detail"])
    return str(body["error"]["message"])


def truth(db_path: Any) -> dict[str, Any]:
    """What the platform mode serves, read from the database with the same queries (the model board lazy,
    as the sandbox serves it by default)."""
    conn = sqlite3.connect(db_path)
    try:
        codec = IdCodec(int(get_meta(conn, "seed") or 0))
        busiest = conn.execute("SELECT id FROM solutions ORDER BY comparison_count DESC LIMIT 1").fetchone()[
            0
        ]
        # the sandbox's default lazy board: each model's figures and updatedAt as of its last recalculation
        models, total = llm_leaderboard.leaderboard(conn, sort="win_rate", limit=100, lazy=True)
        return {
            "feed": activity.recent(conn, codec, 50),
            "models": models,
            "total": total,
            "families": llm_leaderboard.families(conn),
            "solution": queries.get_solution(conn, codec, busiest),
            "comparisons": queries.solution_comparisons(conn, codec, busiest),
        }
    finally:
        conn.close()


def recalculated_at(db_path: Any, models: list[dict[str, Any]]) -> list[str]:
    """Each model's ``updatedAt`` on the lazy board, by SQL on the database: the time of its last
    recalculation (``llm_board``), or its first solution's for a model never recalculated (ISO, ms, UTC).
    The note of stop 28 saw these differ in every non-platform mode: the test's truth was the live board
    (``updatedAt`` the simulated clock) while the sandbox served the lazy one."""
    conn = sqlite3.connect(db_path)
    try:
        at = dict(conn.execute("SELECT model, updated_at FROM llm_board").fetchall())
        first = dict(
            conn.execute(
                "SELECT llm_model, min(created_at) FROM solutions WHERE llm_model IS NOT NULL "
                "GROUP BY llm_model"
            ).fetchall()
        )
    finally:
        conn.close()
    assert at, "no model recalculated yet: the check could not tell the lazy board from the live one"
    ms = [at.get(m["modelName"], first[m["modelName"]]) for m in models]
    return [
        dt.datetime.fromtimestamp(t / 1000, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        for t in ms
    ]


@pytest.mark.parametrize("mode", MODES)
def test_optional_endpoints_serve_the_platforms_records_in_the_mode(mode, module_convention_sandbox) -> None:
    server = module_convention_sandbox(mode, tie_order="stable")  # models listed in the database's order
    expected = truth(server.db_path)
    sid = expected["solution"]["id"]
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        feed = c.get("/activity", params={SIZE[mode]: 7})
        capped = c.get("/activity", params={SIZE[mode]: 99}).json()
        default = c.get("/activity").json()
        models = walk(mode, c, "/llm-leaderboard", {"sort": "win_rate", SIZE[mode]: 4})
        families = c.get("/llm-leaderboard/families").json()
        one = c.get(f"/solutions/{sid}")
        votes = c.get(f"/solutions/{sid}/comparisons").json()
        missing = c.get("/solutions/nope/comparisons")
        model = c.get(f"/llm-leaderboard/{expected['models'][0]['modelName']}").json()
    feed_body = feed.json()
    assert page_records(mode, "activity", feed_body) == expected["feed"][:7]
    assert not has_next(mode, feed_body)  # a feed: the newest records, no further pages
    assert page_records(mode, "activity", capped) == expected["feed"]  # capped at 50, as the mode caps
    assert len(page_records(mode, "activity", default)) == 20
    assert models == expected["models"] and len(models) == expected["total"]
    assert [m["updatedAt"] for m in models] == recalculated_at(server.db_path, models)
    assert page_records(mode, "family", families, "family") == expected["families"]
    got = one.json()
    record = (
        platform_record(mode, "solution", got["data"])
        if mode == "jsonapi"
        else platform_record(mode, "solution", got)
    )
    assert record == expected["solution"]
    assert page_records(mode, "comparison", votes) == expected["comparisons"]
    if mode == "jsonapi":
        assert model["data"]["type"] == "models"
        model = model["data"]
    assert platform_record(mode, "model", model) == expected["models"][0]
    assert len(expected["comparisons"]) == 50
    assert missing.status_code == 404 and error_of(mode, missing) == "Solution not found"


@pytest.mark.parametrize("mode", MODES)
def test_envelopes_and_totals_of_the_optional_lists(mode, module_convention_sandbox) -> None:
    server = module_convention_sandbox(mode, tie_order="stable")  # compares the first page of two calls
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        feed = c.get("/activity", params={SIZE[mode]: 5})
        board = c.get("/llm-leaderboard", params={SIZE[mode]: 2})
        foreign = c.get("/llm-leaderboard", params={"offset": 3, "page": 2, "cursor": "o3"})
    total = truth(server.db_path)["total"]
    body = board.json()
    if mode == "jsonapi":
        assert feed.headers["content-type"] == "application/vnd.api+json"
        assert feed.json()["meta"]["total"] == 5 and body["meta"]["total"] == total
        assert (
            body["links"]["next"].startswith("http://127.0.0.1")
            and "page%5Bnumber%5D=2" in body["links"]["next"]
        )
        event = feed.json()["data"][0]
        assert set(event["relationships"]) <= {"bot", "problem"} and "bot_name" in event["attributes"]
    elif mode == "hal":
        assert feed.headers["X-Total-Count"] == "5" and board.headers["X-Total-Count"] == str(total)
        assert body["_links"]["next"]["href"].startswith("/api/v1/llm-leaderboard?")
        assert "activity_id" in feed.json()["_embedded"]["activities"][0]
    elif mode == "odata":
        assert feed.json()["@odata.count"] == 5 and body["@odata.count"] == total
        assert feed.json()["@odata.context"].endswith("$metadata#Activities")
        assert "@odata.nextLink" in body and "Action" in feed.json()["value"][0]
    else:
        assert feed.json()["totalCount"] == 5 and feed.json()["pageInfo"]["hasNextPage"] is False
        assert body["totalCount"] == total and body["pageInfo"]["hasNextPage"] is True
        assert "activityId" in feed.json()["edges"][0]["node"]
    # the platform's own paging parameters are not this mode's: ignored, the first page again
    first = page_records(mode, "model", c_get(server, "/llm-leaderboard"))
    assert page_records(mode, "model", foreign.json()) == first


def c_get(server: Any, path: str) -> Any:
    return httpx.get(f"{server.base_url}{path}", timeout=10).json()


@pytest.mark.parametrize("mode", MODES)
def test_without_answers_the_modes_unknown_route(mode, module_convention_sandbox) -> None:
    server = module_convention_sandbox(
        mode, without=("activity", "comparisons", "solution", "llm-leaderboard")
    )
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        gone = [
            c.get(p)
            for p in ("/activity", "/llm-leaderboard/families", "/solutions/x", "/solutions/x/comparisons")
        ]
        nowhere = c.get("/nowhere")
    for response in gone:
        assert response.status_code == 404
        assert error_of(mode, response) == f"Route GET:{response.url.path} not found"
        assert response.headers["content-type"] == nowhere.headers["content-type"]
