"""Store test helpers: records in the real platform's shapes (``real-platform-notes.md``) and staged runs.

``platform`` is a tiny in-memory platform state (problems, ranked solutions, bots, categories, stats, and the
optional resources: an activity feed, pairwise votes, a model leaderboard) whose records have exactly the
camelCase shapes the real platform sends; ``stage_run(platform, ...)`` stages it the way the fetch steps do,
so the writer can be tested without a server.
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import json
import random
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solvelens.store import StagingArea
from solvelens.store.reports import StepReport

BASE_URL = "http://127.0.0.1:1/api/v1"
_CATEGORIES = [
    ("technology", "Technology"),
    ("science_nature", "Science & Nature"),
    ("health", "Health"),
    ("business_finance", "Business & Finance"),
    ("education_career", "Education & Career"),
    ("society_culture", "Society & Culture"),
    ("philosophy_ideas", "Philosophy & Ideas"),
    ("lifestyle", "Lifestyle"),
]
_WORDS = [
    "solar",
    "grid",
    "storage",
    "battery",
    "policy",
    "rural",
    "clinic",
    "water",
    "filter",
    "soil",
    "carbon",
    "tutor",
    "exam",
    "budget",
    "loan",
    "fraud",
    "ethics",
    "sleep",
    "habit",
    "diet",
    "city",
    "transit",
    "noise",
    "privacy",
    "cache",
    "latency",
    "protocol",
    "vaccine",
    "trial",
]


@dataclass
class FakePlatform:
    """Platform state in the real platform's record shapes; mutate it between snapshots."""

    rng: random.Random
    problems: list[dict[str, Any]] = field(default_factory=list)
    solutions: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    bots: list[dict[str, Any]] = field(default_factory=list)
    categories: list[dict[str, Any]] = field(default_factory=list)
    #: The activity feed's events, oldest first (serial integer ids, one minute apart).
    events: list[dict[str, Any]] = field(default_factory=list)
    #: Pairwise votes, oldest first, in the shape of ``/solutions/{id}/comparisons``.
    votes: list[dict[str, Any]] = field(default_factory=list)

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def text(self, words: int) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(words)).capitalize() + "."

    def add_problem(self, n_solutions: int) -> dict[str, Any]:
        pid = self.uid()
        problem = {
            "id": pid,
            "title": self.text(6),
            "description": self.text(40),
            "status": "active",
            "category": self.rng.choice(_CATEGORIES)[0],
            "authorType": self.rng.choice(["human", "bot"]),
            "solutionCount": 0,
            "comparisonCount": 0,
            "greenFlags": 3,
            "redFlags": 0,
            "createdAt": "2026-01-15T10:30:00.000Z",
            "topSolution": None,
        }
        self.problems.append(problem)
        self.solutions[pid] = []
        for _ in range(n_solutions):
            self.add_solution(problem)
        return problem

    def add_solution(self, problem: dict[str, Any]) -> dict[str, Any]:
        bot = self.rng.choice(self.bots)
        solution = {
            "id": self.uid(),
            "text": self.text(60),
            "btScore": 1500.0,
            "comparisonCount": 0,
            "winCount": 0,
            "lossCount": 0,
            "confidenceInterval": 500.0,
            "llmModel": self.rng.choice(["gpt-4o", "claude-sonnet-4", None]),
            "createdAt": "2026-01-16T08:00:00.000Z",
            "botId": bot["id"],
            "botName": bot["name"],
            "ownerBotName": None,
        }
        self.solutions[problem["id"]].append(solution)
        problem["solutionCount"] += 1
        self.event("solution_submitted", bot, problem, {"solutionId": solution["id"]})
        return solution

    def event(self, action: str, bot: dict[str, Any], problem: dict[str, Any], meta: dict[str, Any]) -> None:
        """Append one activity event (``metadata`` as a JSON string, as the real platform sends it)."""
        n = len(self.events) + 1
        at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(minutes=n)
        self.events.append(
            {
                "id": n,
                "action": action,
                "botId": bot["id"],
                "botName": bot["name"],
                "ownerBotName": None,
                "problemId": problem["id"],
                "problemTitle": problem["title"],
                "metadata": json.dumps(meta),
                "createdAt": at.isoformat().replace("+00:00", "Z"),
            }
        )

    def activity(self, limit: int = 50) -> list[dict[str, Any]]:
        """The feed as ``GET /activity?limit=`` answers: the newest ``limit`` events, newest first."""
        return list(reversed(self.events[-limit:]))

    def comparisons_of(self, solution_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """``GET /solutions/{id}/comparisons``: the newest ``limit`` votes on the solution, newest first."""
        mine = [v for v in self.votes if solution_id in (v["solutionAId"], v["solutionBId"])]
        return list(reversed(mine[-limit:]))

    def families(self) -> list[dict[str, Any]]:
        """``GET /llm-leaderboard/families``: each model family and its number of models."""
        counts: dict[str, int] = {}
        for model in self.models():
            counts[model["modelFamily"]] = counts.get(model["modelFamily"], 0) + 1
        return [{"family": f, "count": n} for f, n in sorted(counts.items())]

    def models(self) -> list[dict[str, Any]]:
        """``GET /llm-leaderboard``'s models, best average score first."""
        by_model: dict[str, list[dict[str, Any]]] = {}
        for sols in self.solutions.values():
            for s in sols:
                by_model.setdefault(s["llmModel"] or "unknown", []).append(s)
        rows = [
            {
                "id": f"model-{name}",
                "modelName": name,
                "modelVersion": None,
                "modelFamily": name.split("-")[0],
                "totalSolutions": len(sols),
                "avgBtScore": sum(s["btScore"] for s in sols) / len(sols),
                "bestBtScore": max(s["btScore"] for s in sols),
                "totalWins": sum(s["winCount"] for s in sols),
                "totalComparisons": sum(s["comparisonCount"] for s in sols),
                "winRate": 0.5,
                "top3Count": 0,
                "firstPlaceCount": 0,
                "uniqueBots": len({s["botId"] for s in sols}),
            }
            for name, sols in sorted(by_model.items())
        ]
        return sorted(rows, key=lambda r: -r["avgBtScore"])

    def vote(self, problem: dict[str, Any]) -> None:
        """One comparison: the first two solutions change score; the list is re-ranked by btScore."""
        sols = self.solutions[problem["id"]]
        a, b = sols[-1], sols[0]
        a["btScore"] += 16.0
        b["btScore"] -= 16.0
        for s, won in ((a, True), (b, False)):
            s["comparisonCount"] += 1
            s["winCount" if won else "lossCount"] += 1
        sols.sort(key=lambda s: -s["btScore"])
        problem["comparisonCount"] += 1
        voter = self.bots[len(self.votes) % len(self.bots)]
        self.votes.append(
            {
                "id": self.uid(),
                "solutionAId": a["id"],
                "solutionBId": b["id"],
                "winner": "a",
                "voterBotId": voter["id"],
                "voterBotName": voter["name"],
                "createdAt": f"2026-01-20T00:00:{len(self.votes) % 60:02d}.000Z",
            }
        )
        self.event("vote_cast", voter, problem, {"winner": "a"})

    def ranked_bots(self) -> list[dict[str, Any]]:
        return sorted(self.bots, key=lambda b: -b["totalPoints"])

    def leaderboard(self) -> list[dict[str, Any]]:
        keys = ("id", "name", "status", "totalPoints", "totalSolutions", "totalVotes", "voteAccuracy")
        rows = []
        for b in self.ranked_bots():
            row = {k: b[k] for k in keys}
            row.update(globalElo=b.get("globalElo", 1523), lastActiveAt=b["lastActiveAt"], ownerBotName=None)
            rows.append(row)
        return rows

    def stats(self) -> dict[str, Any]:
        return {
            "totalProblems": len(self.problems),
            "humanProblems": sum(p["authorType"] == "human" for p in self.problems),
            "botProblems": sum(p["authorType"] == "bot" for p in self.problems),
            "totalSolutions": sum(len(s) for s in self.solutions.values()),
            "totalComparisons": sum(p["comparisonCount"] for p in self.problems),
            "totalBots": len(self.bots),
            "activeBots": len(self.bots),
            "activeProblems": len(self.problems),
            "matureProblems": 0,
        }


def make_platform(
    *, seed: int = 0, problems: int = 20, solutions_per_problem: int = 5, bots: int = 10
) -> FakePlatform:
    """A platform with the given sizes (8 categories, active bots, ranked solutions)."""
    plat = FakePlatform(random.Random(seed))
    for i in range(bots):
        plat.bots.append(
            {
                "id": plat.uid(),
                "name": f"bot-{i:03d}",
                "description": "A problem-solving bot",
                "status": "active",
                "totalPoints": 1000 - 7 * i,
                "totalSolutions": 12,
                "totalVotes": 45,
                "totalFlags": 8,
                "totalProblemsCreated": 3,
                "voteAccuracy": 0.82,
                "globalElo": 1523,
                "lastActiveAt": "2026-01-15T10:30:00.000Z",
                "totalTasksCompleted": 68,
                "createdAt": "2025-12-01T00:00:00.000Z",
                "ownerBotName": None,
                "badges": [
                    {
                        "id": i,
                        "botId": "x",
                        "badgeType": "first_solve",
                        "tier": "bronze",
                        "earnedAt": "2025-12-01T01:00:00.000Z",
                    }
                ],
                "topSolutions": [],
                "recentActivity": [],
            }
        )
    for slug, name in _CATEGORIES:
        plat.categories.append(
            {
                "slug": slug,
                "displayName": name,
                "icon": "*",
                "description": f"{name} topics",
                "activeProblems": 0,
            }
        )
    for _ in range(problems):
        plat.add_problem(solutions_per_problem)
    return plat


_counter = itertools.count()


def stage_run(
    root: Path,
    plat: FakePlatform,
    *,
    taken_at: str = "2026-02-01T00:00:00Z",
    carry: dict[str, tuple[int, int, int]] | None = None,
    me: dict[str, Any] | None = None,
    warnings: list[str] | None = None,
    skip: tuple[str, ...] = (),
    competition: bool = False,
) -> StagingArea:
    """Stage ``plat`` as the fetch steps would: problems whose counts match ``carry`` (the output of
    ``latest_solution_state``) carry their manifest over; ``skip`` leaves staged tables out (also the
    optional ``activity``, ``comparisons``, ``llm_leaderboard``). The optional resources are staged as
    their steps would on a full run: the feed's newest 50 events, the comparisons of every solution with
    votes, the model leaderboard. Solutions are ranked by their list position, or with ``competition`` as
    :mod:`solvelens.flows.ranks` ranks them: 1 + the solutions of the list with a higher ``btScore`` (ties
    share a rank)."""
    area = StagingArea(root / f"staging-{next(_counter)}").create(
        base_url=BASE_URL, taken_at=taken_at, started_at=taken_at
    )
    records = copy.deepcopy
    if "problems" not in skip:
        area.write_records("problems", records(plat.problems))
    carried = {}
    with area.writer("solutions") as sols, area.writer("solution_problems") as fetched:
        for p in plat.problems:
            before = (carry or {}).get(p["id"])
            if before and before[:2] == (p["solutionCount"], p["comparisonCount"]):
                carried[p["id"]] = before[2]
                continue
            ranked = records(plat.solutions[p["id"]])
            ranks = list(range(1, len(ranked) + 1))
            if competition:
                ranks = [1 + sum(o["btScore"] > s["btScore"] for o in ranked) for s in ranked]
            sols.append(problem_id=[p["id"]] * len(ranked), rank=ranks, raw=ranked)
            fetched.append(problem_id=[p["id"]])
    with area.writer("solution_carryover") as w:
        w.append(problem_id=list(carried), manifest_id=list(carried.values()))
    if "categories" not in skip:
        area.write_records("categories", records(plat.categories))
    board = plat.leaderboard()
    area.write_records("leaderboard", board, rank=list(range(1, len(board) + 1)))
    area.write_records("bots", records(plat.ranked_bots()))
    area.write_records("platform_stats", [plat.stats()])
    if me is not None:
        area.write_records("bot_me", [me])
    resources = {
        name: "not requested" for name in ("activity", "comparisons", "llm_families", "llm_leaderboard")
    }
    if "activity" not in skip:
        area.write_records("activity", plat.activity())
        resources["activity"] = "stored"
    if "llm_leaderboard" not in skip:
        models = plat.models()
        area.write_records("llm_leaderboard", models, rank=list(range(1, len(models) + 1)))
        resources["llm_leaderboard"] = "stored"
    if "llm_families" not in skip:
        area.write_records("llm_families", plat.families())
        resources["llm_families"] = "stored"
    if "comparisons" not in skip:
        _stage_comparisons(area, plat)
        resources["comparisons"] = "stored"
    area.write_report(StepReport.of("test", {}, warnings or [], resources=resources))
    return area


def _stage_comparisons(area: StagingArea, plat: FakePlatform) -> None:
    with area.writer("comparisons") as rows, area.writer("comparison_fetches") as fetches:
        for pid, sols in plat.solutions.items():
            for s in sols:
                if not s["comparisonCount"]:
                    continue
                got = plat.comparisons_of(s["id"])
                rows.append(problem_id=[pid] * len(got), solution_id=[s["id"]] * len(got), raw=got)
                fetches.append(
                    solution_id=[s["id"]],
                    problem_id=[pid],
                    comparison_count=[s["comparisonCount"]],
                    returned=[len(got)],
                )
