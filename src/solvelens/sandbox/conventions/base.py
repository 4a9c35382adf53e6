"""What every convention mode implements (:class:`Convention`) and the list routes' specs (:class:`ListSpec`);
the request window (:class:`~solvelens.sandbox.paging.Window`) and its paging parameters are
:mod:`solvelens.sandbox.paging`, shared by every mode. The routes call only this interface; see the package
docstring."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from fastapi import Request
from fastapi.responses import Response

from solvelens.sandbox.answers import JSON, responses
from solvelens.sandbox.paging import Size, Window

__all__ = ["LIST_SPECS", "Convention", "ListSpec", "Window"]

Record = dict[str, Any]
Pair = tuple[int, str, Any]


@dataclass(frozen=True)
class ListSpec:
    """One list route: ``resource`` (collection name: problems, solutions, leaderboard, categories), the
    ``singular`` of its records (problem, solution, bot, category), ``kind`` (the records' collection name in
    envelopes: leaderboard entries are ``bots``), ``key`` (the platform envelope's list key), page sizes
    (``default_limit``, ``max_limit``; ``server_page``: the OData mode's own page size), the canonical id
    field and whether the platform mode shows a ``pagination`` block (``platform_total``) or pages at all.

    ``feed``: a limit-only feed (the newest ``limit`` records, no further pages: ``/activity``); every mode
    reads only its page-size parameter. ``platform_shape``: how the platform mode envelopes the list:
    ``switch`` (the ``--pagination`` style of the interface's lists), ``offset`` (the real offset-paged
    ``{<key>: [...], "pagination": {limit, offset, total}}`` whatever the switch: ``/llm-leaderboard``) or
    ``named`` (``{<key>: [...]}``, no paging)."""

    resource: str
    singular: str
    kind: str
    key: str
    default_limit: int
    max_limit: int
    server_page: int
    id_field: str = "id"
    platform_total: bool = True
    paged: bool = True
    feed: bool = False
    platform_shape: str = "switch"

    def size(self, name: str, **options: Any) -> Size:
        """This list's page-size parameter under the wire ``name`` (the spec's default and maximum;
        ``options`` as :class:`~solvelens.sandbox.paging.Size`)."""
        return Size(name, self.default_limit, self.max_limit, **options)


LIST_SPECS: Final = {
    "problems": ListSpec("problems", "problem", "problems", "problems", 20, 50, 7),
    "solutions": ListSpec(
        "solutions", "solution", "solutions", "solutions", 50, 100, 9, platform_total=False
    ),
    "leaderboard": ListSpec("leaderboard", "bot", "bots", "bots", 20, 100, 13),
    "categories": ListSpec(
        "categories", "category", "categories", "categories", 50, 50, 50, id_field="slug", paged=False
    ),
    "activity": ListSpec(
        "activity", "activity", "activities", "activities", 20, 50, 50, paged=False, feed=True,
        platform_shape="named",
    ),
    "llm_leaderboard": ListSpec(
        "llm_leaderboard", "model", "models", "models", 20, 100, 11, platform_shape="offset"
    ),
    "families": ListSpec(
        "families", "family", "families", "families", 0, 0, 0, id_field="family", paged=False,
        platform_shape="named",
    ),
    "comparisons": ListSpec(
        "comparisons", "comparison", "comparisons", "comparisons", 50, 50, 50, paged=False,
        platform_shape="named",
    ),
}  # fmt: skip


class Convention(ABC):
    """One wire convention: how lists, single resources, errors and tasks look, and which paging parameters
    a list route reads. All modes serve the same records (the platform's camelCase dicts from
    :mod:`solvelens.sandbox.queries`); a mode only re-presents them."""

    name: ClassVar[str]
    #: Status of a query parameter that fails validation (the platform answers 422; most APIs answer 400).
    validation_status: ClassVar[int] = 400
    #: Media type of successful bodies.
    media: ClassVar[str] = "application/json"
    #: Media type of error bodies.
    error_media: ClassVar[str] = "application/json"
    #: JSON schema of this mode's error body (OpenAPI).
    error_schema: ClassVar[dict[str, Any]] = {}
    #: JSON pointer of the task id in a ``/tasks/next`` answer (the OpenAPI link to submit).
    task_id_pointer: ClassVar[str] = "/taskId"
    #: One line per mode for the OpenAPI description (the package docstring has the details).
    summary: ClassVar[str] = ""

    @abstractmethod
    def window_dependency(self, spec: ListSpec) -> Callable[..., Window]:
        """A FastAPI dependency declaring (and documenting) the route's paging query parameters."""

    @abstractmethod
    def render_list(
        self, spec: ListSpec, records: list[Record], w: Window, total: int, request: Request
    ) -> Response:
        """A page of ``records`` (platform camelCase dicts); ``total``: records of the whole list."""

    @abstractmethod
    def render_one(self, singular: str, record: Record, request: Request) -> Response:
        """A single resource (a problem, a bot, ``/bot/me``, ``/stats`` with singular ``stats``)."""

    @abstractmethod
    def render_error(
        self, status: int, message: str, details: list[dict[str, Any]] | None = None, code: str | None = None
    ) -> Response:
        """An error answer; ``details``: ``[{"field", "message"}]``; ``code``: a machine code when known."""

    @abstractmethod
    def render_task(self, task: Record | None) -> Response:
        """``GET /tasks/next``: ``task`` is ``{taskType, taskId, payload}`` (or a content task, ``{id, kind,
        prompt, choices?, constraints}``); ``None``: nothing to do."""

    @abstractmethod
    def render_search(self, result: dict[str, list[Record]], request: Request) -> Response:
        """``GET /search``: ``{"problems": [...], "bots": [...]}`` (keys present when searched)."""

    def render_submitted(self, task_id: str, body: Record, request: Request) -> Response:
        """A submit's 200 answer (``{"success", "result"|"message", ...}``) as a ``submission`` resource."""
        return self.render_one("submission", {"id": task_id, **body}, request)

    def render_submit_result(self, task_id: str, status: int, body: Record, request: Request) -> Response:
        """A submit's answer from the dispatcher's ``(status, body)``: 200 via :meth:`render_submitted`,
        errors via :meth:`render_error`."""
        if status == 200:
            return self.render_submitted(task_id, body, request)
        message = str(body.get("message") or body.get("error", ""))  # a 500's message says what failed
        return self.render_error(status, message, body.get("details"), body.get("code"))

    def submit_body(self, body: Any) -> Any:
        """A submit body as the dispatcher reads it (snake_case typed fields); identity by default."""
        return body

    # ------------------------------------------------------------------------------------ OpenAPI helpers
    def list_doc(self, spec: ListSpec, item: type[Any], platform_model: Any) -> Any:
        """The documented 200 model (or JSON schema dict) of a list route."""
        return self.list_schema(spec)

    def list_schema(self, spec: ListSpec) -> dict[str, Any]:
        """JSON schema of this mode's list envelope (records as objects)."""
        return {"type": "object"}

    def one_doc(self, model: Any) -> Any:
        """The documented 200 model (or schema) of a single resource."""
        return {"type": "object", "description": "The record in this mode's record style."}

    def task_pairs(self, task_model: Any) -> list[Pair]:
        """OpenAPI ``(status, description, model)`` pairs of ``GET /tasks/next``'s task / no-task answers."""
        return [(200, "A task, or no task, in this mode's envelope", {"type": "object"})]

    def document(self, *pairs: Pair) -> dict[int | str, dict[str, Any]]:
        """OpenAPI ``responses``: 4xx/5xx models become this mode's error body; dict models are schemas."""
        out: dict[int | str, dict[str, Any]] = {}
        for status, description, model in pairs:
            if status >= 400 and status != 413:  # the body cap answers {"error"} in every mode
                schema = self.error_schema
                out[status] = {"description": description, "content": {self.error_media: {"schema": schema}}}
            elif isinstance(model, dict):
                out[status] = {"description": description, "content": {self.media: {"schema": model}}}
            else:
                out.update(responses((status, description, model)))
        return out


def json_response(
    body: Any, status: int = 200, media_type: str | None = None, headers: dict[str, str] | None = None
) -> Response:
    """An orjson response with ``media_type`` (default ``application/json``) and extra ``headers``."""
    response = JSON(body, status_code=status, headers=headers)
    if media_type is not None:
        response.headers["content-type"] = media_type
    return response


PHRASES: Final = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Content Too Large",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
}


def phrase(status: int) -> str:
    """The HTTP reason phrase of ``status`` (``Error`` when unknown)."""
    return PHRASES.get(status, "Error")
