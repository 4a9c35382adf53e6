"""The public endpoints over real HTTP: the real platform's shapes, limits, errors and stable bodies."""

from __future__ import annotations

import re

import httpx
import pytest

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
SLUGS = [
    "technology",
    "science_nature",
    "health",
    "business_finance",
    "education_career",
    "society_culture",
    "philosophy_ideas",
    "lifestyle",
]


@pytest.fixture(scope="module")
def client(sandbox):
    with httpx.Client(base_url=sandbox.base_url, timeout=10) as c:
        yield c


def test_health_at_root_only(sandbox) -> None:
    body = httpx.get(f"{sandbox.root_url}/health").json()
    assert set(body) == {"status", "timestamp", "uptime", "database", "clock"}
    assert body["status"] == "healthy" and body["database"] == "ok"
    assert ISO.match(body["timestamp"]) and ISO.match(body["clock"])
    missing = httpx.get(f"{sandbox.base_url}/health")
    assert missing.status_code == 404 and "error" in missing.json()


def test_problems_envelope_items_and_filters(client) -> None:
    body = client.get("/problems", params={"limit": 7}).json()
    assert set(body) == {"problems", "pagination"}
    pag = body["pagination"]
    assert pag["page"] == 1 and pag["limit"] == 7 and pag["totalPages"] == -(-pag["total"] // 7)
    item = body["problems"][0]
    assert set(item) == {
        "id", "title", "description", "status", "category", "authorType", "solutionCount", "comparisonCount",
        "greenFlags", "redFlags", "createdAt", "topSolution",
    }  # fmt: skip
    assert UUID.match(item["id"]) and ISO.match(item["createdAt"])
    created = [p["createdAt"] for p in body["problems"]]
    assert created == sorted(created, reverse=True)  # newest first
    everything = client.get("/problems", params={"limit": 50, "status": "all"}).json()
    assert all(p["status"] != "rejected" for p in everything["problems"])
    rejected = client.get("/problems", params={"status": "rejected"}).json()
    assert rejected["pagination"]["total"] > 0
    bots = client.get("/problems", params={"author_type": "bot", "category": "health", "limit": 50}).json()
    assert all(p["authorType"] == "bot" and p["category"] == "health" for p in bots["problems"])
    by_solutions = client.get("/problems", params={"sort": "most_solutions"}).json()["problems"]
    counts = [p["solutionCount"] for p in by_solutions]
    assert counts == sorted(counts, reverse=True)
    with_top = next(p for p in by_solutions if p["topSolution"])
    assert set(with_top["topSolution"]) == {"text", "btScore", "botName"}


def test_problem_pages_cover_everything_once(client) -> None:
    first = client.get("/problems", params={"limit": 50}).json()
    ids: list[str] = []
    for page in range(1, first["pagination"]["totalPages"] + 1):
        ids += [
            p["id"] for p in client.get("/problems", params={"limit": 50, "page": page}).json()["problems"]
        ]
    assert len(ids) == len(set(ids)) == first["pagination"]["total"]


def test_problem_detail_and_solutions(client) -> None:
    pid = client.get("/problems", params={"sort": "most_solutions", "limit": 1}).json()["problems"][0]["id"]
    detail = client.get(f"/problems/{pid}").json()
    for key in ("id", "authorType", "humanAuthorId", "botAuthorId", "title", "description", "status",
                "category",
                "categoryAssignedBy", "categoryConfidence", "greenFlags", "redFlags", "solutionCount",
                "comparisonCount", "attentionScore", "lastBotActivityAt", "createdAt", "updatedAt", "author",
                "topSolutions"):  # fmt: skip
        assert key in detail
    assert len(detail["topSolutions"]) == 3
    sols = client.get(f"/problems/{pid}/solutions", params={"limit": 100}).json()
    assert set(sols) == {"solutions"}  # no total, as on the real platform
    items = sols["solutions"]
    assert len(items) == detail["solutionCount"]
    assert set(items[0]) == {
        "id", "text", "btScore", "comparisonCount", "winCount", "lossCount", "confidenceInterval", "llmModel",
        "createdAt", "botId", "botName", "ownerBotName",
    }  # fmt: skip
    scores = [s["btScore"] for s in items]
    assert scores == sorted(scores, reverse=True)
    assert [s["id"] for s in detail["topSolutions"]] == [s["id"] for s in items[:3]]
    assert all(s["comparisonCount"] >= s["winCount"] + s["lossCount"] for s in items)
    page2 = client.get(f"/problems/{pid}/solutions", params={"limit": 2, "page": 2}).json()["solutions"]
    assert [s["id"] for s in page2] == [s["id"] for s in items[2:4]]


def test_categories_bare_array(client) -> None:
    body = client.get("/categories").json()
    assert isinstance(body, list) and [c["slug"] for c in body] == SLUGS
    assert body[1]["displayName"] == "Science & Nature"
    assert set(body[0]) == {"slug", "displayName", "icon", "description", "activeProblems"}
    assert all(isinstance(c["activeProblems"], int) for c in body)


def test_leaderboard_active_only_no_rank(client) -> None:
    body = client.get("/leaderboard", params={"limit": 100}).json()
    bots = body["bots"]
    assert body["pagination"]["total"] == len(bots)
    assert all(b["status"] == "active" and "rank" not in b for b in bots)
    points = [b["totalPoints"] for b in bots]
    assert points == sorted(points, reverse=True)
    elo = [
        b["globalElo"]
        for b in client.get("/leaderboard", params={"sort": "elo", "limit": 100}).json()["bots"]
    ]
    assert elo == sorted(elo, reverse=True)


def test_bot_profile(client) -> None:
    bid = client.get("/leaderboard", params={"limit": 1}).json()["bots"][0]["id"]
    bot = client.get(f"/bots/{bid}").json()
    for key in ("id", "name", "description", "status", "totalPoints", "totalSolutions", "totalVotes",
                "totalFlags",
                "totalProblemsCreated", "voteAccuracy", "globalElo", "lastActiveAt", "totalTasksCompleted",
                "createdAt", "ownerBotName", "badges", "topSolutions", "recentActivity"):  # fmt: skip
        assert key in bot
    assert 0 < len(bot["topSolutions"]) <= 5 and 0 < len(bot["recentActivity"]) <= 20
    assert set(bot["badges"][0]) == {"id", "botId", "badgeType", "tier", "earnedAt"}
    act = bot["recentActivity"][0]
    assert isinstance(act["id"], int) and act["action"] in {
        "flag_submitted", "solution_submitted", "vote_cast", "problem_created", "solution_first_place",
        "solution_top_3",
    }  # fmt: skip
    times = [a["createdAt"] for a in bot["recentActivity"]]
    assert times == sorted(times, reverse=True)


def test_stats_are_ints_and_consistent(client) -> None:
    stats = client.get("/stats").json()
    assert set(stats) == {
        "totalProblems", "humanProblems", "botProblems", "totalSolutions", "totalComparisons", "totalBots",
        "activeBots", "activeProblems", "matureProblems",
    }  # fmt: skip
    assert all(isinstance(v, int) for v in stats.values())
    assert stats["humanProblems"] + stats["botProblems"] == stats["totalProblems"]
    assert stats["totalProblems"] == client.get("/problems").json()["pagination"]["total"]


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/problems", {"limit": 51}),
        ("/problems", {"page": 0}),
        ("/problems", {"category": "bogus"}),
        ("/problems", {"sort": "best"}),
        ("/leaderboard", {"limit": 101}),
        ("/leaderboard", {"sort": "bogus"}),
        ("/search", {}),
        ("/search", {"q": "x", "limit": 51}),
    ],
)
def test_validation_errors_are_422_with_error_and_details(client, path, params) -> None:
    response = client.get(path, params=params)
    assert response.status_code == 422
    body = response.json()
    assert isinstance(body["error"], str) and body["details"] and "detail" not in body


def test_solutions_limit_max_100(client) -> None:
    pid = client.get("/problems", params={"limit": 1}).json()["problems"][0]["id"]
    assert client.get(f"/problems/{pid}/solutions", params={"limit": 100}).status_code == 200
    assert client.get(f"/problems/{pid}/solutions", params={"limit": 101}).status_code == 422


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/problems/00000000-0000-4000-8000-000000000000", "Problem not found"),
        ("/problems/not-a-uuid", "Problem not found"),
        ("/problems/not-a-uuid/solutions", "Problem not found"),
        ("/bots/00000000-0000-4000-8000-000000000000", "Bot not found"),
        ("/bots/'; DROP TABLE bots; --", "Bot not found"),
    ],
)
def test_not_found(client, path, message) -> None:
    response = client.get(path)
    assert response.status_code == 404 and response.json() == {"error": message}


def test_unknown_route_and_method(client) -> None:
    response = client.get("/nothing/here")
    assert (
        response.status_code == 404 and response.json()["error"] == "Route GET:/api/v1/nothing/here not found"
    )
    response = client.delete("/problems")
    assert response.status_code == 405 and isinstance(response.json()["error"], str)


@pytest.mark.parametrize("q", ['"', "'", "' OR 1=1 --", 'a"b', "NEAR(", "*", "%_", "Owl", "how can", "é"])
def test_search_never_5xx(client, q) -> None:
    response = client.get("/search", params={"q": q})
    assert response.status_code == 200
    assert set(response.json()) == {"problems", "bots"}


def test_search_substring_and_type(client) -> None:
    bot = client.get("/leaderboard", params={"limit": 1}).json()["bots"][0]
    found = client.get("/search", params={"q": bot["name"][2:7].lower(), "type": "bots"}).json()
    assert set(found) == {"bots"} and bot["id"] in [b["id"] for b in found["bots"]]
    problems = client.get("/search", params={"q": "budget", "type": "problems", "limit": 50}).json()[
        "problems"
    ]
    assert problems and all("budget" in (p["title"] + p["description"]).lower() for p in problems)
    assert set(problems[0]) == {
        "id", "title", "description", "status", "category", "authorType", "solutionCount", "createdAt",
    }  # fmt: skip


def test_identical_gets_return_identical_bodies(make_sandbox) -> None:
    server = make_sandbox(seed=2, tie_order="stable")  # the default shuffles ties on every call
    with httpx.Client(base_url=server.base_url) as c:
        pid = c.get("/problems").json()["problems"][0]["id"]
        bid = c.get("/leaderboard").json()["bots"][0]["id"]
        for path in ("/problems", f"/problems/{pid}", f"/problems/{pid}/solutions", "/categories",
                     "/leaderboard",
                     f"/bots/{bid}", "/stats", "/search?q=plan"):  # fmt: skip
            assert c.get(path).content == c.get(path).content, path
