"""The platform API client: sync and async clients, paginators, typed errors and results, the bot runner.

```python
from solvelens.client import PlatformClient

with PlatformClient("http://127.0.0.1:8765/api/v1") as client:
    for problem in client.list_problems(status="active"):
        ...
```
"""

from typing import TYPE_CHECKING, Any

from solvelens.lean_imports import lean_imports

with lean_imports():  # httpx and stamina without their optional command line and Tornado parts
    import httpx  # noqa: F401
    import stamina  # noqa: F401

from solvelens.client.base import BaseClient
from solvelens.client.client import AsyncPlatformClient, PlatformClient
from solvelens.client.endpoints import ENDPOINTS, Endpoint
from solvelens.client.errors import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    IncompleteListError,
    InvalidSubmissionError,
    NotFoundError,
    NotJSONError,
    PaginationError,
    PermissionDeniedError,
    PlatformConnectionError,
    PlatformError,
    PlatformTimeoutError,
    QueryValidationError,
    RateLimitError,
    ResponseDecodeError,
    ServerError,
    ServiceUnavailableError,
    UnprocessableEntityError,
    UnrecognizedResponseError,
)
from solvelens.client.models import (
    Bot,
    Category,
    Health,
    Problem,
    Record,
    SearchResult,
    Stats,
    SubmitResult,
    Task,
)
from solvelens.client.pagination import (
    PAGINATORS,
    CursorPaginator,
    NextLinkPaginator,
    OffsetPaginator,
    Page,
    PageNumberPaginator,
    PageRequest,
    Paginator,
    SinglePagePaginator,
)
from solvelens.client.retry import RetryPolicy
from solvelens.client.submission import SubmitBody, submission_body

if TYPE_CHECKING:
    from solvelens.client.runner import BotRunner, RunSummary, Solver, SolverLoadError, load_solver

#: The bot runner's names, imported on first use (a snapshot or a probe never needs them).
_RUNNER_NAMES = frozenset({"BotRunner", "RunSummary", "Solver", "SolverLoadError", "load_solver"})


def __getattr__(name: str) -> Any:
    if name in _RUNNER_NAMES:
        from solvelens.client import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ENDPOINTS",
    "PAGINATORS",
    "APIStatusError",
    "AsyncPlatformClient",
    "AuthenticationError",
    "BadRequestError",
    "BaseClient",
    "Bot",
    "BotRunner",
    "Category",
    "ConfigurationError",
    "ConflictError",
    "CursorPaginator",
    "Endpoint",
    "Health",
    "IncompleteListError",
    "InvalidSubmissionError",
    "NextLinkPaginator",
    "NotFoundError",
    "NotJSONError",
    "OffsetPaginator",
    "Page",
    "PageNumberPaginator",
    "PageRequest",
    "PaginationError",
    "Paginator",
    "PermissionDeniedError",
    "PlatformClient",
    "PlatformConnectionError",
    "PlatformError",
    "PlatformTimeoutError",
    "Problem",
    "QueryValidationError",
    "RateLimitError",
    "Record",
    "ResponseDecodeError",
    "RetryPolicy",
    "RunSummary",
    "SearchResult",
    "ServerError",
    "ServiceUnavailableError",
    "SinglePagePaginator",
    "Solver",
    "SolverLoadError",
    "Stats",
    "SubmitBody",
    "SubmitResult",
    "Task",
    "UnprocessableEntityError",
    "UnrecognizedResponseError",
    "load_solver",
    "submission_body",
]
