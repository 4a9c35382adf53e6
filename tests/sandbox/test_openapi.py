"""``/openapi.json`` documents every route, parameter limit and status; schemathesis checks the live server
against it over real HTTP (no 5xx, every status and body as documented, auth enforced)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import jsonschema
import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is a test-only dependency")

BOT_ROUTES = {
    "/api/v1/bot/me",
    "/api/v1/tasks/next",
    "/api/v1/tasks/{task_id}/submit",
    "/api/v1/user/bot-profile",
}
ERROR_SCHEMAS = {
    "#/components/schemas/ErrorBody",
    "#/components/schemas/ValidationErrorBody",
    "#/components/schemas/SubmitErrorBody",
}

# The submit body schema lists the body of every task type; which one fits depends on the task handed out,
# so a schema-valid body of another type is answered 400 VALIDATION_ERROR (and fails the task), as on the
# real platform.
CONFIG = """
[[operations]]
include-path = "/api/v1/tasks/{task_id}/submit"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409"]
"""


def test_openapi_is_valid_and_documents_every_status(sandbox) -> None:
    spec = httpx.get(f"{sandbox.root_url}/openapi.json").json()
    schemathesis.openapi.from_dict(spec).validate()  # the OpenAPI 3.1 meta-schema
    components = spec["components"]["schemas"]
    for schema in components.values():
        jsonschema.Draft202012Validator.check_schema(schema)  # raises SchemaError naming the keyword
    assert "HTTPValidationError" not in components  # FastAPI's own 422 shape is never served
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    paths = spec["paths"]
    assert set(paths) == {
        "/health", "/api/v1/problems", "/api/v1/problems/{problem_id}",
        "/api/v1/problems/{problem_id}/solutions", "/api/v1/categories", "/api/v1/leaderboard",
        "/api/v1/bots/{bot_id}", "/api/v1/stats", "/api/v1/search", "/api/v1/activity",
        "/api/v1/llm-leaderboard", "/api/v1/llm-leaderboard/families", "/api/v1/llm-leaderboard/{model_name}",
        "/api/v1/solutions/{solution_id}",
        "/api/v1/solutions/{solution_id}/comparisons", *BOT_ROUTES,
    }  # fmt: skip
    for path, operations in paths.items():
        for method, op in operations.items():
            responses = op["responses"]
            assert "200" in responses, (method, path)
            assert "$ref" in responses["200"]["content"]["application/json"]["schema"] or path.endswith(
                "/categories"
            )
            for status, answer in responses.items():
                if status.startswith("4"):
                    assert answer["content"]["application/json"]["schema"]["$ref"] in ERROR_SCHEMAS, (
                        path,
                        status,
                    )
            assert (path in BOT_ROUTES) == ("security" in op), path
            if path in BOT_ROUTES:
                assert {"401", "403"} <= set(responses)
    assert paths["/api/v1/tasks/next"]["get"]["responses"]["204"] == {
        "description": "Nothing to do (empty body)"
    }
    submit = paths["/api/v1/tasks/{task_id}/submit"]["post"]
    assert {"400", "404", "409", "413"} <= set(submit["responses"]) and "422" not in submit["responses"]
    assert submit["responses"]["400"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/SubmitErrorBody"
    )
    assert submit["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/SubmitBody")
    # the real shape takes typed bodies only; {"content"} is documented with --task-shape interface
    assert {r["$ref"].rsplit("/", 1)[1] for r in components["SubmitBody"]["anyOf"]} == {
        "SolveBody", "VoteBody", "FlagBody", "CreateBody",
    }  # fmt: skip

    def limit(path: str) -> dict:
        params = paths[path]["get"]["parameters"]
        return next(p["schema"] for p in params if p["name"] == "limit")

    assert (limit("/api/v1/problems")["minimum"], limit("/api/v1/problems")["maximum"]) == (1, 50)
    assert limit("/api/v1/problems/{problem_id}/solutions")["maximum"] == 100
    assert limit("/api/v1/leaderboard")["maximum"] == 100
    assert limit("/api/v1/search")["maximum"] == 50
    assert (limit("/api/v1/activity")["minimum"], limit("/api/v1/activity")["maximum"]) == (1, 50)
    assert limit("/api/v1/llm-leaderboard")["maximum"] == 100
    names = {p["name"] for p in paths["/api/v1/llm-leaderboard"]["get"]["parameters"]}
    assert names == {"sort", "family", "offset", "limit"}  # offset paging, whatever --pagination says
    names = {p["name"] for p in paths["/api/v1/problems"]["get"]["parameters"]}
    assert names == {"category", "status", "author_type", "sort", "page", "limit"}  # page style only
    q = next(p for p in paths["/api/v1/search"]["get"]["parameters"] if p["name"] == "q")
    assert q["required"] and (q["schema"]["minLength"], q["schema"]["maxLength"]) == (1, 200)
    assert components["ProblemSummary"]["additionalProperties"] is True  # unknown fields allowed


def test_openapi_follows_the_server_switches(make_sandbox) -> None:
    server = make_sandbox(pagination="cursor", task_shape="interface", fault_schedule="ok", rate_limit=1000)
    spec = httpx.get(f"{server.root_url}/openapi.json").json()
    problems = spec["paths"]["/api/v1/problems"]["get"]
    names = {p["name"] for p in problems["parameters"]}
    assert "cursor" in names and not names & {"page", "offset"}
    page = problems["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert page.endswith("CursorPage_ProblemSummary_")
    task = spec["paths"]["/api/v1/tasks/next"]["get"]["responses"]["200"]["content"]["application/json"]
    assert task["schema"]["$ref"].endswith("/InterfaceTask")
    bodies = {r["$ref"].rsplit("/", 1)[1] for r in spec["components"]["schemas"]["SubmitBody"]["anyOf"]}
    assert "ContentBody" in bodies
    assert "Retry-After" in problems["responses"]["429"]["headers"]  # the rate limit is documented when on


def check_schemathesis_passes(
    server, tmp_path: Path, key: str, *, examples: int, seed: int, phases: str
) -> None:
    """Run schemathesis (CLI) against the server's /openapi.json; assert it exits 0 with no failure."""
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    cmd = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run",
        f"{server.root_url}/openapi.json", "--header", f"Authorization: Bearer {key}", "--checks", "all",
        "--max-examples", str(examples), "--seed", str(seed), "--generation-database", "none", "--no-color",
        "--request-timeout", "10", "--phases", phases, "--report", "junit", "--report-dir", str(tmp_path),
    ]  # fmt: skip
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    output = run.stdout.replace(key, "<key>")
    assert run.returncode == 0, output[output.find("FAILURES") :][-8000:] or output[-4000:]
    assert "failure" not in output.splitlines()[-1], output[-3000:]


ALL_PHASES = "examples,coverage,fuzzing,stateful"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "examples", "phases"),
    [
        ({}, 30, ALL_PHASES),  # the real platform's shapes: every phase, stateful task -> submit included
        ({"pagination": "offset"}, 10, "coverage,fuzzing"),
        ({"pagination": "cursor", "task_shape": "interface"}, 10, "coverage,fuzzing,stateful"),
    ],
    ids=["page-real", "offset", "cursor-interface"],
)
def test_schemathesis_finds_nothing(
    make_sandbox, tmp_path: Path, options: dict, examples: int, phases: str
) -> None:
    server = make_sandbox(seed=6, **options)
    key = server.create_bot("SchemaFuzzer")
    check_schemathesis_passes(server, tmp_path, key, examples=examples, seed=6, phases=phases)
