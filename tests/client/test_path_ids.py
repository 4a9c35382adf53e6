"""A path is never built from a missing id: ``/problems/None/solutions`` raises before anything is sent."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from solvelens.client import ConfigurationError, PlatformClient, RetryPolicy


@pytest.mark.parametrize("ident", [None, "", "  ", {"id": 1}])
def test_missing_ids_raise_before_sending(ident: Any) -> None:
    sent: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200, json={}))
    with PlatformClient(
        "http://ids.test/api/v1", transport=transport, read_env=False, retry=RetryPolicy(1)
    ) as c:
        for call in (
            lambda: list(c.list_solutions(ident)),
            lambda: c.get_problem(ident),
            lambda: c.get_bot(ident),
        ):
            with pytest.raises(ConfigurationError, match="no id to put in the path"):
                call()
    assert sent == []
