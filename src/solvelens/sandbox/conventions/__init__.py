"""Wire conventions of the sandbox: one presentation layer the routes call (``render_list``, ``render_one``,
``render_error``, ``render_task``, ``render_search``, ``window_dependency``), one small class per mode.
``solvelens sandbox serve --conventions NAME`` / ``create_app(conventions=NAME)`` picks one. Every mode serves
the same database and routes under ``/api/v1``; only the wire shapes, paging parameters and error bodies
differ, and each mode is as strict as a real server of its convention (it reads ONLY its own paging
parameters, ignoring others as real servers do, and caps page sizes silently):

- ``platform`` (default; :mod:`.platform`): the real platform: ``{"problems": [...], "pagination": {page,
  limit, total, totalPages}}`` (page/limit; its ``--pagination`` and ``--solutions-paging`` switches still
  apply), bare ``/categories``, camelCase records, ``{"error": str}`` errors (422 for a bad parameter),
  ``/tasks/next`` 204 or ``{taskType, taskId, payload}``.
- ``jsonapi`` (:mod:`.jsonapi`): JSON:API documents, ``page[number]``/``page[size]``, absolute
  ``links.next``, ``meta.total``, resource objects with snake_case attributes and relationships, ``errors``
  arrays; ``{"data": null}`` when there is no task.
- ``hal`` (:mod:`.hal`): HAL ``_embedded``/``_links``, opaque ``page_token`` + ``limit`` with a RELATIVE next
  link, the total only in ``X-Total-Count``, snake_case records with ``<resource>_id``, RFC 9457 problem
  details; 404 problem details "No task available".
- ``odata`` (:mod:`.odata`): ``value`` + ``@odata.count`` + absolute ``@odata.nextLink``, ``$top``/``$skip``
  with the server's own page size (7 problems, 9 solutions, 13 leaderboard rows), PascalCase records,
  ``{"error": {"code", "message"}}``; ``{"value": []}`` when there is no task.
- ``relay`` (:mod:`.relay`): connections ``edges[].node``/``pageInfo``/``totalCount``, ``first``/``after``,
  camelCase records with ``<resource>Id``, ``{"error": {"code", "message"}}``; ``{}`` when there is no task.

Not converted in any mode (test tools, not conventions): injected faults and the 413 body cap answer
``{"error": str}``; ``GET /health`` is the same everywhere.
"""

from __future__ import annotations

from typing import Final

from solvelens.sandbox.conventions.base import LIST_SPECS, Convention, ListSpec, Window
from solvelens.sandbox.conventions.hal import HalConvention
from solvelens.sandbox.conventions.jsonapi import JsonApiConvention
from solvelens.sandbox.conventions.odata import OdataConvention
from solvelens.sandbox.conventions.platform import PlatformConvention
from solvelens.sandbox.conventions.relay import RelayConvention

__all__ = ["CONVENTIONS", "LIST_SPECS", "Convention", "ListSpec", "Window", "make_convention"]

#: Mode name -> class (``platform`` first: the default).
CONVENTIONS: Final[dict[str, type[Convention]]] = {
    "platform": PlatformConvention,
    "jsonapi": JsonApiConvention,
    "hal": HalConvention,
    "odata": OdataConvention,
    "relay": RelayConvention,
}


def make_convention(
    name: str,
    *,
    pagination: str = "page",
    solutions_paging: str = "default",
    paging: str = "default",
    refs: str = "flat",
) -> Convention:
    """The convention ``name`` (one of :data:`CONVENTIONS`). ``pagination``/``solutions_paging``/``paging``
    (``default`` | ``zero``)/``refs`` (``flat`` | ``nested``) are the platform mode's switches; any other mode
    refuses them, and ``paging="zero"`` needs the page style. Raises :class:`ValueError` naming the
    choices."""
    if name not in CONVENTIONS:
        raise ValueError(
            f"unknown conventions {name!r}: --conventions must be one of {', '.join(CONVENTIONS)}"
        )
    if paging not in ("default", "zero"):
        raise ValueError(f"--paging must be default or zero, got {paging!r}")
    if refs not in ("flat", "nested"):
        raise ValueError(f"--refs must be flat or nested, got {refs!r}")
    if name == "platform":
        if paging == "zero" and (pagination != "page" or solutions_paging != "default"):
            raise ValueError(
                "--paging zero pages by page number: leave --pagination and --solutions-paging out"
            )
        return PlatformConvention(
            pagination,  # type: ignore[arg-type]
            solutions_paging == "offset",
            zero=paging == "zero",
            nested=refs == "nested",
        )
    if (pagination, solutions_paging, paging, refs) != ("page", "default", "default", "flat"):
        raise ValueError(
            "--pagination/--solutions-paging/--paging/--refs apply to --conventions platform only "
            f"({name} pages its own way)"
        )
    return CONVENTIONS[name]()
