"""Shared pytest fixtures. Each fixture family lives in a module of ``tests/fixtures`` registered here:

- ``tests/fixtures/sandbox.py``: the sandbox server on 127.0.0.1 (real uvicorn subprocess, real SQLite file).
- ``tests/fixtures/prefect.py``: a session-scoped Prefect test harness with a temporary ``PREFECT_HOME``.
- ``tests/fixtures/store.py``: small DuckDB stores in the public schema for analysis, chart and report tests.
"""

pytest_plugins = [
    "tests.fixtures.sandbox",
    "tests.fixtures.prefect",
    "tests.fixtures.store",
]
