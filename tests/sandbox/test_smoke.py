"""The sandbox fixture starts a real server and the bot key it creates authenticates."""

import httpx


def test_health_and_bot_me(sandbox):
    health = httpx.get(f"{sandbox.root_url}/health").json()
    assert health["status"] == "healthy" and health["clock"] == "2026-01-01T00:00:00.000Z"
    assert sandbox.base_url.endswith("/api/v1")
    key = sandbox.create_bot("SmokeTestBot")
    me = httpx.get(f"{sandbox.base_url}/bot/me", headers={"Authorization": f"Bearer {key}"})
    assert me.status_code == 200
    assert me.json()["name"] == "SmokeTestBot"
