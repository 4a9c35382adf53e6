"""The sandbox's wire convention modes over real HTTP, without the client: list shapes and each mode's own
paging walked to the end and compared with the SQLite database, strictness (foreign paging parameters
ignored, page sizes capped, the mode's error shape for 400/401/404/409), task envelopes, submits, single
resources, search and the OpenAPI document."""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest

from solvelens.sandbox import queries
from solvelens.sandbox.db import get_meta
from solvelens.sandbox.ids import IdCodec

MODES = ("jsonapi", "hal", "odata", "relay")
#: Every other mode's paging parameters (a mode must ignore all but its own).
FOREIGN = {
    "page": "2",
    "limit": "5",
    "offset": "5",
    "cursor": "o5",
    "page[number]": "2",
    "page[size]": "5",
    "page_token": "aGFsOjU",
    "$top": "5",
    "$skip": "5",
    "first": "5",
    "after": "YXJyYXljb25uZWN0aW9uOjQ",
}
OWN = {
    "jsonapi": ("page[number]", "page[size]"),
    "hal": ("page_token", "limit"),
    "odata": ("$top", "$skip"),
    "relay": ("first", "after"),
}
ERROR_MEDIA = {
    "jsonapi": "application/vnd.api+json",
    "hal": "application/problem+json",
    "odata": "application/json",
    "relay": "application/json",
}
SINGULAR = {"problems": "problem", "solutions": "solution", "leaderboard": "bot", "categories": "category"}
KIND = {"problems": "problems", "solutions": "solutions", "leaderboard": "bots", "categories": "categories"}
CREATE = {
    "problem_title": "How can a tenants' group share tools fairly",
    "problem_description": "Twelve flats share one shed of tools and nobody knows who has what.",
    "category": "lifestyle",
}


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def records_of(mode: str, resource: str, body: Any) -> list[dict[str, Any]]:
    """The records of one list page in ``mode`` (nodes / attributes flattened with their id)."""
    if mode == "jsonapi":
        return [{"id": r["id"], **r["attributes"]} for r in body["data"]]
    if mode == "hal":
        return body["_embedded"][KIND[resource]]
    if mode == "odata":
        return body["value"]
    return [edge["node"] for edge in body["edges"]]


def id_of(mode: str, resource: str, record: dict[str, Any]) -> str:
    """The canonical id of a record in ``mode``."""
    singular = SINGULAR[resource]
    if resource == "categories":
        return record["id"] if mode == "jsonapi" else record["Slug" if mode == "odata" else "slug"]
    key = {"jsonapi": "id", "hal": f"{singular}_id", "odata": "Id", "relay": f"{singular}Id"}[mode]
    return record[key]


def walk(mode: str, client: httpx.Client, path: str, resource: str) -> tuple[list[str], list[int]]:
    """Every id of a list route following the mode's own paging to the end, and the page sizes seen."""
    ids: list[str] = []
    sizes: list[int] = []
    url: str | None = str(client.base_url).rstrip("/") + path
    params: dict[str, str] = {}
    for _ in range(500):
        assert url is not None
        response = client.get(url, params=params or None)
        assert response.status_code == 200, response.text
        body = response.json()
        page = records_of(mode, resource, body)
        ids += [id_of(mode, resource, r) for r in page]
        sizes.append(len(page))
        url, params = next_request(mode, body, url, response)
        if url is None:
            return ids, sizes
    raise AssertionError("paging did not end within 500 pages")


def next_request(
    mode: str, body: Any, url: str, response: httpx.Response
) -> tuple[str | None, dict[str, str]]:
    if mode == "jsonapi":
        return body["links"].get("next"), {}
    if mode == "hal":
        nxt = body["_links"].get("next")
        return (urljoin(url, nxt["href"]), {}) if nxt else (None, {})
    if mode == "odata":
        return body.get("@odata.nextLink"), {}
    info = body["pageInfo"]
    return (
        (str(response.url.copy_with(query=None)), {"after": info["endCursor"]})
        if info["hasNextPage"]
        else (None, {})
    )


def database_ids(db_path: Any) -> dict[str, list[str]]:
    """Problem, leaderboard and category ids in served order, read from the sandbox's SQLite file."""
    conn = sqlite3.connect(db_path)
    try:
        codec = IdCodec(int(get_meta(conn, "seed") or 0))
        problems, _ = queries.list_problems(
            conn, codec, category=None, status=None, author_type=None, sort="newest", offset=0, limit=10**6
        )
        bots, _ = queries.list_leaderboard(conn, codec, sort="points", offset=0, limit=10**6)
        problem_row = codec.decode("problem", problems[0]["id"])
        assert problem_row is not None
        solutions = queries.list_solutions(conn, codec, problem_row, offset=0, limit=10**6)
        categories = queries.list_categories(conn)
    finally:
        conn.close()
    return {
        "problems": [p["id"] for p in problems],
        "leaderboard": [b["id"] for b in bots],
        "solutions": [s["id"] for s in solutions],
        "categories": [c["slug"] for c in categories],
    }


@pytest.mark.parametrize("mode", MODES)
def test_lists_walked_by_their_own_paging_equal_the_database(mode, module_convention_sandbox) -> None:
    server = module_convention_sandbox(mode, tie_order="stable")  # compared in the database's order
    expected = database_ids(server.db_path)
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        first = client.get("/problems", params={"sort": "most_solutions"}).json()
        top = records_of(mode, "problems", first)[0]
        by_solutions = {"problems": f"/problems/{id_of(mode, 'problems', top)}/solutions"}
        for resource in ("problems", "leaderboard", "categories"):
            ids, sizes = walk(mode, client, f"/{resource}", resource)
            assert ids == expected[resource], (mode, resource)
            assert len(ids) == len(set(ids))
            if resource != "categories":
                assert len(sizes) > 1, "the small platform spans several pages in every mode"
        # the problem with the most solutions: its ranked solutions, every page
        conn = sqlite3.connect(server.db_path)
        codec = IdCodec(0)
        row = codec.decode("problem", id_of(mode, "problems", top))
        assert row is not None
        want = [s["id"] for s in queries.list_solutions(conn, codec, row, offset=0, limit=10**6)]
        conn.close()
        ids, _ = walk(mode, client, by_solutions["problems"], "solutions")
        assert ids == want and len(want) > 1


@pytest.mark.parametrize("mode", MODES)
def test_foreign_paging_parameters_are_ignored_and_pages_capped(mode, module_convention_sandbox) -> None:
    server = module_convention_sandbox(mode)
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        plain = client.get("/problems").json()
        foreign = {k: v for k, v in FOREIGN.items() if k not in OWN[mode]}
        again = client.get("/problems", params=foreign).json()
        ids = [id_of(mode, "problems", r) for r in records_of(mode, "problems", plain)]
        assert [id_of(mode, "problems", r) for r in records_of(mode, "problems", again)] == ids
        big = {"jsonapi": {"page[size]": "500"}, "hal": {"limit": "500"}, "odata": {"$top": "500"}}
        big["relay"] = {"first": "500"}
        problems = client.get("/problems", params=big[mode])
        leaderboard = client.get("/leaderboard", params=big[mode])
        got_p = len(records_of(mode, "problems", problems.json()))
        got_l = len(records_of(mode, "leaderboard", leaderboard.json()))
    if mode == "odata":  # the server's own page size, whatever $top asks; a short page is not the end
        assert (got_p, got_l) == (7, 13)
        assert "@odata.nextLink" in problems.json() and problems.headers["X-Total-Count"] == str(
            problems.json()["@odata.count"]
        )
    else:  # silently capped at the route's maximum (problems 50; the leaderboard's 100 > its bots)
        assert (got_p, got_l) == (50, len(database_ids(server.db_path)["leaderboard"]))


@pytest.mark.parametrize("mode", MODES)
def test_totals_where_each_convention_puts_them(mode, module_convention_sandbox) -> None:
    server = module_convention_sandbox(mode)
    total = len(database_ids(server.db_path)["problems"])
    response = httpx.get(f"{server.base_url}/problems")
    body = response.json()
    if mode == "jsonapi":
        assert body["meta"]["total"] == total and body["links"]["next"].startswith("http://127.0.0.1")
        assert "prev" not in body["links"]
    elif mode == "hal":
        assert response.headers["X-Total-Count"] == str(total) and "total" not in str(list(body))
        assert body["_links"]["next"]["href"].startswith("/api/v1/problems?")
    elif mode == "odata":
        assert body["@odata.count"] == total and body["@odata.nextLink"].startswith("http://127.0.0.1")
    else:
        assert body["totalCount"] == total and body["pageInfo"]["hasNextPage"] is True


def error_message(mode: str, response: httpx.Response) -> str:
    """The message of an error answer in ``mode``'s shape (asserting the shape)."""
    assert response.headers["content-type"].startswith(ERROR_MEDIA[mode]), response.headers
    body = response.json()
    if mode == "jsonapi":
        (first, *_) = body["errors"]
        assert first["status"] == str(response.status_code) and first["title"]
        return str(first["detail"])
    if mode == "hal":
        assert body["status"] == response.status_code and body["type"] and body["title"]
        return str(body["detail"])
    assert set(body) == {"error"} and body["error"]["code"]
    return str(body["error"]["message"])


@pytest.mark.parametrize("mode", MODES)
def test_errors_in_the_mode_shape(mode, module_convention_sandbox) -> None:
    server = module_convention_sandbox(mode)
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        missing = client.get("/problems/not-a-problem")
        assert missing.status_code == 404 and error_message(mode, missing) == "Problem not found"
        bad_param = {"jsonapi": "page[number]", "hal": "page_token", "odata": "$top", "relay": "after"}[mode]
        bad = client.get("/problems", params={bad_param: "-x-"})
        assert bad.status_code == 400 and error_message(mode, bad)
        assert bad_param in bad.text
        unauthenticated = client.get("/bot/me")
        assert unauthenticated.status_code == 401 and "API key" in error_message(mode, unauthenticated)
        route = client.get("/nowhere")
        assert route.status_code == 404 and "not found" in error_message(mode, route)
        search = client.get("/search", params={"q": ""})
        assert search.status_code == 400 and error_message(mode, search)


def task_of(mode: str, response: httpx.Response) -> dict[str, Any] | None:
    """``(type, id, payload)`` of a ``/tasks/next`` answer in ``mode``; ``None`` for the mode's no-task."""
    if mode == "hal" and response.status_code == 404:
        assert response.json()["title"] == "No task available"
        return None
    assert response.status_code == 200, response.text
    body = response.json()
    if mode == "jsonapi":
        data = body["data"]
        if data is None:
            return None
        assert data["type"] == "tasks"
        return {
            "type": data["attributes"]["task_type"],
            "id": data["id"],
            "payload": data["attributes"]["payload"],
        }
    if mode == "hal":
        task = body["task"]
        assert body["_links"]["submit"]["href"] == f"/api/v1/tasks/{task['task_id']}/submit"
        return {"type": task["task_type"], "id": task["task_id"], "payload": task["payload"]}
    if mode == "odata":
        if body["value"] == []:
            return None
        (task,) = body["value"]
        return {"type": task["TaskType"], "id": task["TaskId"], "payload": task["Payload"]}
    if body == {}:
        return None
    node = body["node"]
    return {"type": node["taskType"], "id": node["taskId"], "payload": node["payload"]}


@pytest.mark.parametrize("mode", MODES)
def test_tasks_and_submits_in_the_mode_envelope(mode, convention_sandbox) -> None:
    server = convention_sandbox(mode, task_types=("create",))
    key = server.create_bot("EnvelopeBot")
    with httpx.Client(base_url=server.base_url, timeout=10, headers=auth(key)) as client:
        task = task_of(mode, client.get("/tasks/next"))
        assert task is not None and task["type"] == "create"
        slug_key = {"jsonapi": "slug", "hal": "slug", "odata": "Slug", "relay": "slug"}[mode]
        categories_key = "Categories" if mode == "odata" else "categories"
        assert task["payload"][categories_key][0][slug_key] == "technology"
        invalid = client.post(f"/tasks/{task['id']}/submit", json={"problem_title": "x"})
        assert invalid.status_code == 400 and error_message(mode, invalid).startswith("Validation error")
        assert "VALIDATION_ERROR" in invalid.text and "problem_description" in invalid.text
        again = client.post(f"/tasks/{task['id']}/submit", json=CREATE)
        assert again.status_code == 409 and error_message(mode, again) == "Task already completed"
        task = task_of(mode, client.get("/tasks/next"))
        assert task is not None and task["type"] == "create"
        cased: dict[str, Any] = {  # the typed body in the mode's own field case is accepted too
            "odata": {"".join(w.title() for w in k.split("_")): v for k, v in CREATE.items()},
            "relay": {"problemTitle": CREATE["problem_title"], "category": CREATE["category"]},
            "jsonapi": {"data": {"type": "submissions", "attributes": CREATE}},
            "hal": CREATE,
        }
        cased["relay"]["problemDescription"] = CREATE["problem_description"]
        accepted = client.post(f"/tasks/{task['id']}/submit", json=cased[mode])
        assert accepted.status_code == 200, accepted.text
        assert task_of(mode, client.get("/tasks/next")) is None
        gone = client.post("/tasks/no-such-task/submit", json=CREATE)
        assert gone.status_code == 404 and error_message(mode, gone)
    conn = sqlite3.connect(server.db_path)
    created = conn.execute(
        "SELECT count(*) FROM problems WHERE title = ?", (CREATE["problem_title"],)
    ).fetchone()
    statuses = conn.execute("SELECT status FROM tasks ORDER BY id").fetchall()
    conn.close()
    assert created == (1,) and [s[0] for s in statuses] == ["failed", "completed"]


@pytest.mark.parametrize("mode", MODES)
def test_single_resources_search_and_bot_me(mode, convention_sandbox) -> None:
    server = convention_sandbox(mode)
    key = server.create_bot("ProfileBot")
    ids = database_ids(server.db_path)
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        problem = client.get(f"/problems/{ids['problems'][0]}").json()
        bot = client.get(f"/bots/{ids['leaderboard'][0]}").json()
        stats = client.get("/stats").json()
        me = client.get("/bot/me", headers=auth(key)).json()
        search = client.get("/search", params={"q": "the", "limit": 3}).json()
    if mode == "jsonapi":
        assert problem["data"]["type"] == "problems" and problem["data"]["id"] == ids["problems"][0]
        assert "title" in problem["data"]["attributes"] and "top_solutions" in problem["data"]["attributes"]
        assert bot["data"]["id"] == ids["leaderboard"][0] and me["data"]["attributes"]["name"] == "ProfileBot"
        assert stats["data"]["attributes"]["total_problems"] > 0
        assert {r["type"] for r in search["data"]} == {"problems", "bots"}
    elif mode == "hal":
        assert problem["problem_id"] == ids["problems"][0] and "top_solutions" in problem
        assert problem["_links"]["self"]["href"] == f"/api/v1/problems/{ids['problems'][0]}"
        assert bot["bot_id"] == ids["leaderboard"][0] and me["name"] == "ProfileBot" and "bot_id" in me
        assert stats["total_problems"] > 0
        assert set(search["_embedded"]) == {"problems", "bots"}
    elif mode == "odata":
        assert problem["Id"] == ids["problems"][0] and "TopSolutions" in problem
        assert bot["Id"] == ids["leaderboard"][0] and me["Name"] == "ProfileBot"
        assert stats["TotalProblems"] > 0 and {"Problems", "Bots"} <= set(search)
    else:
        assert problem["problemId"] == ids["problems"][0] and "topSolutions" in problem
        assert bot["botId"] == ids["leaderboard"][0] and me["name"] == "ProfileBot" and "botId" in me
        assert stats["totalProblems"] > 0
        assert search["problems"]["edges"][0]["node"]["problemId"]


@pytest.mark.parametrize("mode", MODES)
def test_openapi_documents_the_mode(mode, module_convention_sandbox) -> None:
    server = module_convention_sandbox(mode)
    spec = httpx.get(f"{server.root_url}/openapi.json").json()
    schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is a test-only dependency")
    schemathesis.openapi.from_dict(spec).validate()  # the OpenAPI 3.1 meta-schema
    assert f"`{mode}`" in spec["info"]["description"]
    params = {p["name"] for p in spec["paths"]["/api/v1/problems"]["get"]["parameters"]}
    assert set(OWN[mode]) <= params and not ({"page", "offset", "cursor"} & params)
    missing = spec["paths"]["/api/v1/problems/{problem_id}"]["get"]["responses"]["404"]
    assert ERROR_MEDIA[mode].split(";")[0] in missing["content"]


@pytest.mark.parametrize("mode", MODES)
def test_platform_only_switches_are_refused_with_other_modes(mode, tmp_path, pristine_platform) -> None:
    from solvelens.sandbox.app import create_app

    with pytest.raises(ValueError, match="--conventions platform only"):
        create_app(pristine_platform, conventions=mode, pagination="cursor")
    with pytest.raises(ValueError, match="--conventions platform only"):
        create_app(pristine_platform, conventions=mode, task_shape="interface")
    with pytest.raises(ValueError, match="unknown conventions 'soap'"):
        create_app(pristine_platform, conventions="soap")
