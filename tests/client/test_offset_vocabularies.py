"""Lists paged by any common offset vocabulary are read whole, over real HTTP: ``skip``/``take``,
``$skip``/``$top``, ``start``/``rows``, ``from``/``size``, with the total in the body or only in
``X-Total-Count`` (issue 29: a bare array paged with skip/take and its total only in the header was refused
with "page 2 repeats page 1 with page_number, offset pagination").

The list server of :mod:`tests.client.conventions_server` is served by uvicorn on 127.0.0.1; each style
reads only its own parameter names (``limit`` is not one of them)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import closing

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from solvelens.client import PlatformClient, RetryPolicy
from tests.client.conventions_server import ConventionServer, canonical_records

FAST = RetryPolicy(attempts=1)
#: (paging style, envelope): every offset vocabulary, total in the body and total only in the header.
STYLES = [
    ("skip_take_header", "bare"),
    ("skip_take", "items"),
    ("odata_header", "bare"),
    ("odata", "value"),
    ("start_rows_header", "bare"),
    ("start_rows", "data"),
    ("from_size_header", "bare"),
    ("from_size", "results"),
]


class Served:
    """A :class:`ConventionServer` behind a real HTTP server; ``use`` swaps the list it serves."""

    def __init__(self) -> None:
        self.server: ConventionServer | None = None
        self.base_url = ""

    async def handle(self, request: Request) -> Response:
        assert self.server is not None
        url = httpx.URL(str(request.url))
        answer = self.server.handle(httpx.Request(request.method, url))
        return Response(answer.content, answer.status_code, dict(answer.headers))


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    state = Served()
    app = Starlette(routes=[Route("/api/v1/problems", state.handle)])
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    state.base_url = f"http://127.0.0.1:{port}/api/v1"
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    yield state
    server.should_exit = True
    thread.join(10)


@pytest.mark.parametrize(("paging", "envelope"), STYLES)
def test_every_offset_vocabulary_is_walked_whole(served: Served, paging: str, envelope: str) -> None:
    records = canonical_records(23)
    served.server = ConventionServer(records, envelope, paging, "camel", default_size=5)
    with PlatformClient(served.base_url, read_env=False, retry=FAST) as client:
        pages = list(client.problem_pages(page_size=10))
    assert [r["id"] for page in pages for r in page.items] == [r["id"] for r in records], paging
    assert pages[-1].total == 23
