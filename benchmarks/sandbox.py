"""Benchmark: throughput and latency of the sandbox server over real HTTP on 127.0.0.1.

Builds a platform (``--scale medium`` by default; or reuses ``--db``), serves it from a uvicorn subprocess and
prints one table (no asserts):

- ``GET /problems`` pages (limit 50) per second: one client, then 8 concurrent clients;
- ``GET /problems/{id}/solutions`` pages (limit 100) per second: one client, then 8 concurrent clients;
- ``GET /tasks/next`` + ``POST /tasks/{id}/submit`` cycles per second with 1, 10 and 50 concurrent bots (each
  bot answers every task type properly; a 204 counts as an idle poll, not a cycle);
- latency p50/p95 in milliseconds (per request for pages; per next+submit cycle for bots).

Client and server share the machine's cores, so on a 2-core box concurrency mostly measures contention.

Run: ``.venv/bin/python benchmarks/sandbox.py [--scale small|medium|large] [--db PATH] [--seconds 5]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from solvelens.sandbox.generate import build_platform
from solvelens.sandbox.process import SandboxServer, start_sandbox

SOLUTION = "Measure the problem for a week, change one thing at a time, and keep only the changes that help."


@dataclass
class Result:
    """One scenario's figures: completed operations, idle polls, wall seconds and latencies (seconds)."""

    name: str
    unit: str
    done: int = 0
    idle: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)

    def row(self) -> list[str]:
        q = statistics.quantiles(self.latencies, n=100) if len(self.latencies) >= 2 else [0.0] * 99
        rate = self.done / self.seconds if self.seconds else 0.0
        return [
            self.name,
            f"{self.done:,}",
            f"{self.idle:,}",
            f"{self.seconds:.1f}",
            f"{rate:,.1f} {self.unit}/s",
            f"{q[49] * 1000:.1f}",
            f"{q[94] * 1000:.1f}",
        ]


async def _workers(
    n: int, seconds: float, step: Callable[[int], Awaitable[bool | None]], result: Result
) -> Result:
    """Run ``n`` coroutines calling ``step(worker)`` for ``seconds``; ``step`` returns False when idle."""
    deadline = time.perf_counter() + seconds

    async def worker(i: int) -> None:
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            ok = await step(i)
            if ok is False:
                result.idle += 1
                await asyncio.sleep(0.01)
                continue
            result.latencies.append(time.perf_counter() - began)
            result.done += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(n)))
    result.seconds = time.perf_counter() - started
    return result


async def _pages(server: SandboxServer, clients: int, seconds: float) -> Result:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as c:
        total = (await c.get("/problems", params={"limit": 50})).json()["pagination"]["totalPages"]
        counter = iter(range(10**12))

        async def step(_: int) -> None:
            page = next(counter) % total + 1
            r = await c.get("/problems", params={"limit": 50, "page": page})
            r.raise_for_status()

        return await _workers(clients, seconds, step, Result(f"/problems x{clients}", "pages"))


async def _solution_pages(server: SandboxServer, clients: int, seconds: float) -> Result:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as c:
        listing = await c.get("/problems", params={"limit": 50, "sort": "most_solutions"})
        ids = [p["id"] for p in listing.json()["problems"]]
        counter = iter(range(10**12))

        async def step(_: int) -> None:
            r = await c.get(f"/problems/{ids[next(counter) % len(ids)]}/solutions", params={"limit": 100})
            r.raise_for_status()

        return await _workers(
            clients, seconds, step, Result(f"/problems/{{id}}/solutions x{clients}", "pages")
        )


def _answer(task: dict) -> dict:
    kind, payload = task["taskType"], task["payload"]
    if kind == "solve":
        return {"solution_text": SOLUTION, "llm_model": "bench-model", "llm_model_version": "1"}
    if kind == "vote":
        return {"winner": "a"}
    if kind == "flag":
        return {"verdict": "green", "category": "none", "suggested_category": "health"}
    return {
        "problem_title": f"Benchmark problem {task['taskId'][-12:]}",
        "problem_description": "A problem created by the sandbox benchmark to exercise create tasks.",
        "category": payload["categories"][0]["slug"] if payload.get("categories") else "health",
    }


async def _bots(server: SandboxServer, bots: int, seconds: float, run: int) -> Result:
    keys = [server.create_bot(f"Bench{run}x{i:03d}") for i in range(bots)]
    # one client (one keep-alive connection) per bot, as separate bot processes would have; a single shared
    # httpx pool with 50 busy connections costs more client CPU than the server spends
    clients = [
        httpx.AsyncClient(base_url=server.base_url, timeout=60, headers={"Authorization": f"Bearer {k}"})
        for k in keys
    ]
    try:

        async def step(i: int) -> bool:
            c = clients[i]
            r = await c.get("/tasks/next")
            if r.status_code == 204:
                return False
            r.raise_for_status()
            task = r.json()
            s = await c.post(f"/tasks/{task['taskId']}/submit", json=_answer(task))
            s.raise_for_status()
            return True

        return await _workers(bots, seconds, step, Result(f"next+submit, {bots} bots", "cycles"))
    finally:
        for c in clients:
            await c.aclose()


async def _bench(server: SandboxServer, seconds: float) -> list[Result]:
    results = [
        await _pages(server, 1, seconds),
        await _pages(server, 8, seconds),
        await _solution_pages(server, 1, seconds),
        await _solution_pages(server, 8, seconds),
    ]
    for run, bots in enumerate((1, 10, 50)):
        results.append(await _bots(server, bots, seconds, run))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="medium", choices=["small", "medium", "large"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", type=Path, default=None, help="reuse this platform file (bots are added)")
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each scenario")
    args = parser.parse_args()
    console = Console(width=max(Console().width, 110))
    with tempfile.TemporaryDirectory(prefix="solvelens-sandbox-bench-") as tmp:
        db = args.db or Path(tmp) / "bench.sqlite"
        if not db.exists():
            summary = build_platform(db, seed=args.seed, scale=args.scale)
            console.print(
                f"built a {args.scale} platform: {summary['problems']:,} problems, "
                f"{summary['solutions']:,} solutions, {summary['bots']:,} bots in {summary['seconds']:.1f} s"
            )
        server = start_sandbox(db)
        try:
            results = asyncio.run(_bench(server, args.seconds))
        finally:
            server.stop()
    table = Table(title=f"sandbox server throughput ({db.name}, {args.seconds:.0f} s per scenario)")
    for column in ("scenario", "done", "idle polls", "s", "throughput", "p50 ms", "p95 ms"):
        table.add_column(column, justify="left" if column == "scenario" else "right")
    for result in results:
        table.add_row(*result.row())
    console.print(table)


if __name__ == "__main__":
    main()
