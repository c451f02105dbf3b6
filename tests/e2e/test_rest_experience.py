"""The experience routes through httpx against a real uvicorn on 127.0.0.1 (docs/rest.md, docs/experience.md):
episodes started, stepped, ended, shown, listed and forgotten; policies and procedures learnt from
them; bad input refused with a clear 4xx that writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")
import httpx  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from support.cli import HLMEM, cli_env  # noqa: E402
from support.rest_server import free_port, serve_process, serving  # noqa: E402

#: Low thresholds, so four successes make an active policy and its procedure.
EAGER = {"rule": "wilson", "min_support": 3, "min_reliability": 0.3, "probation": 1, "procedure_min_successes": 3,
         "procedure_min_reliability": 0.3}


@pytest.fixture
def store(tmp_path) -> Iterator[Memory]:
    with Memory(tmp_path / "m.db", embedder="hash", settings=Settings()) as mem:
        yield mem


@pytest.fixture
def client(store: Memory) -> Iterator[httpx.Client]:
    with serving(store) as url, httpx.Client(base_url=url, timeout=30) as http:
        yield http


def _ok(response: httpx.Response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    assert error["message"]
    return error["message"]


def _episode(client: httpx.Client, goal: str, status: str = "succeeded", **start: str) -> str:
    started = _ok(client.post("/v1/episodes", json={"goal": goal, **start}), 201)
    _ok(client.post(f"/v1/episodes/{started['id']}/steps", json={"action": "certbot renew", "tool": "certbot"}), 201)
    _ok(client.post(f"/v1/episodes/{started['id']}/end", json={"status": status, "reward": 1.0}))
    return started["id"]


def test_an_episode_is_started_stepped_ended_shown_and_listed(client: httpx.Client, store: Memory) -> None:
    event = _ok(client.post("/v1/events", json={"text": "the db container is up", "extract": False}), 201)
    started = _ok(client.post("/v1/episodes", json={"goal": "Set up the dev database", "approach": "compose",
                                                    "started_at": "2026-05-01T09:00:00+08:00"}), 201)
    ep = started["id"]
    assert ep.startswith("ep_") and started["status"] == "running" and started["steps"] == []
    assert started["signature"] == "set up the dev database" and started["started_at"].startswith("2026-05-01T01:00")

    first = _ok(client.post(f"/v1/episodes/{ep}/steps", json={
        "action": "docker compose up -d db", "tool": "docker", "cost": 0.2, "value": 0.5,
        "evidence": [event["id"]]}), 201)
    assert first["step_count"] == 1 and first["step"]["index"] == 1 and first["step"]["evidence"] == [event["id"]]
    second = _ok(client.post(f"/v1/episodes/{ep}/steps", json={"action": "run migrations", "tool": "make",
                                                               "observation": "12 applied"}), 201)
    assert second["step"]["index"] == 2 and second["cost"] == pytest.approx(0.2)

    ended = _ok(client.post(f"/v1/episodes/{ep}/end", json={"status": "succeeded", "reward": 0.9,
                                                            "outcome": "db up in 40 s"}))
    assert ended["status"] == "succeeded" and ended["reward"] == 0.9 and ended["changes"] == []
    assert ended["approach"] == "compose"

    shown = _ok(client.get(f"/v1/episodes/{ep}"))
    assert [s["action"] for s in shown["steps"]] == ["docker compose up -d db", "run migrations"]
    assert shown["outcome"] == "db up in 40 s" and shown == {**shown, "id": ep, "step_count": 2}
    assert store.episode(ep).status == "succeeded"  # the same store, through the facade

    other = _ok(client.post("/v1/episodes", json={"goal": "rotate the TLS certificate", "namespace": "ops"}), 201)
    assert [e["id"] for e in _ok(client.get("/v1/episodes"))["items"]] == [ep]
    assert [e["id"] for e in _ok(client.get("/v1/episodes", params={"namespace": "ops"}))["items"]] == [other["id"]]
    assert _ok(client.get("/v1/episodes", params={"status": "running"}))["items"] == []
    listed = _ok(client.get("/v1/episodes", params={"status": "succeeded"}))
    assert [e["id"] for e in listed["items"]] == [ep] and "steps" not in listed["items"][0]
    assert listed["next_cursor"] is None


def test_listing_pages_with_a_cursor_visits_every_episode_once(client: httpx.Client) -> None:
    made = [_ok(client.post("/v1/episodes", json={"goal": f"task number {i} of the batch"}), 201)["id"]
            for i in range(5)]
    seen, cursor, pages = [], None, 0
    while True:
        page = _ok(client.get("/v1/episodes", params={"limit": 2, **({"cursor": cursor} if cursor else {})}))
        seen += [e["id"] for e in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == sorted(made) and pages == 3  # 2 + 2 + 1: the last page says it is the last


def test_policies_and_procedures_are_learnt_and_an_episode_forgotten(client: httpx.Client, store: Memory) -> None:
    store.set_experience_thresholds(EAGER)
    episodes = [_episode(client, "rotate the TLS certificate", approach="certbot") for _ in range(4)]
    policies = _ok(client.get("/v1/policies"))["items"]
    assert [(p["approach"], p["status"], p["support"], p["successes"]) for p in policies] == [
        ("certbot", "active", 4, 4)]
    assert 0 < policies[0]["reliability"] <= 1 and sorted(policies[0]["episodes"]) == sorted(episodes)
    assert _ok(client.get("/v1/policies", params={"status": "retired"}))["items"] == []
    asked = {"query": "how do I rotate the TLS certificate?", "status": "active"}
    assert [p["id"] for p in _ok(client.get("/v1/policies", params=asked))["items"]] == [policies[0]["id"]]
    assert _ok(client.get("/v1/policies", params={"query": "how do I revoke the TLS certificate?"}))["items"] == []
    _error(client.get("/v1/policies", params={"query": "rotate it", "status": "retired"}), 400, "validation_error")
    procedures = _ok(client.get("/v1/procedures", params={"status": "active"}))["items"]
    assert [(p["policy_id"], p["version"], p["steps"]) for p in procedures] == [
        (policies[0]["id"], 1, ["certbot: certbot renew"])]

    plan = _ok(client.post(f"/v1/episodes/{episodes[0]}/forget", json={"dry_run": True}))
    assert plan["dry_run"] and plan["target"] == episodes[0]
    assert _ok(client.get(f"/v1/episodes/{episodes[0]}"))["status"] == "succeeded"  # a dry run removes nothing
    gone = _ok(client.post(f"/v1/episodes/{episodes[0]}/forget", json={"reason": "test"}))
    assert not gone["dry_run"] and gone["forget_id"] and gone["counts"]
    shown = _ok(client.get(f"/v1/episodes/{episodes[0]}"))
    assert shown["status"] == "forgotten" and shown["goal"] == ""
    assert all(s["action"] == s["tool"] == "" for s in shown["steps"])  # ids only: the content is gone
    left = _ok(client.get("/v1/policies"))["items"]
    assert left[0]["support"] == 3 and episodes[0] not in left[0]["episodes"]
    again = _ok(client.post(f"/v1/episodes/{episodes[0]}/forget", json={}))
    assert again["already_forgotten"]
    audit = _ok(client.get("/v1/audit"))["items"]
    assert any(a.get("actor") == "rest" for a in audit), audit


def test_bad_input_is_a_clear_4xx_and_writes_nothing(client: httpx.Client, store: Memory) -> None:
    ep = _ok(client.post("/v1/episodes", json={"goal": "deploy the docs site"}), 201)["id"]
    _ok(client.post(f"/v1/episodes/{ep}/steps", json={"action": "make html"}), 201)
    log_before = store.stats()

    # An empty, blank or word-less goal, an unknown key, a bad time: nothing is started.
    assert "goal" in _error(client.post("/v1/episodes", json={"goal": ""}), 422, "invalid_body")
    assert "goal" in _error(client.post("/v1/episodes", json={"goal": "   "}), 400, "validation_error")
    assert "no words" in _error(client.post("/v1/episodes", json={"goal": "?!…"}), 400, "validation_error")
    _error(client.post("/v1/episodes", json={"goal": "x", "surprise": 1}), 422, "invalid_body")
    _error(client.post("/v1/episodes", json={"goal": "deploy", "started_at": "yesterday"}), 400, "invalid_timestamp")
    _error(client.post("/v1/episodes", json={"goal": "deploy", "namespace": ""}), 422, "invalid_body")

    # Unknown and malformed ids.
    missing = "ep_00000000000000000000000000"
    assert missing in _error(client.get(f"/v1/episodes/{missing}"), 404, "not_found")
    _error(client.post(f"/v1/episodes/{missing}/steps", json={"action": "x"}), 404, "not_found")
    _error(client.post(f"/v1/episodes/{missing}/end", json={"status": "failed"}), 404, "not_found")
    _error(client.post(f"/v1/episodes/{missing}/forget", json={}), 404, "not_found")
    assert "episode id" in _error(client.get("/v1/episodes/cl_123"), 400, "validation_error")

    # Bad steps and ends on a running episode leave it as it was.
    _error(client.post(f"/v1/episodes/{ep}/steps", json={"action": ""}), 422, "invalid_body")
    _error(client.post(f"/v1/episodes/{ep}/steps", json={"action": "x", "value": 2}), 422, "invalid_body")
    _error(client.post(f"/v1/episodes/{ep}/steps", json={"action": "x", "cost": -1}), 422, "invalid_body")
    _error(client.post(f"/v1/episodes/{ep}/steps", json={"action": "x", "evidence": ["cl_1"]}), 400,
           "validation_error")
    assert "ev_nothere" in _error(client.post(f"/v1/episodes/{ep}/steps", json={
        "action": "x", "evidence": ["ev_nothere"]}), 409, "rule_violation")
    assert "reward" in _error(client.post(f"/v1/episodes/{ep}/end", json={"status": "succeeded", "reward": 1.5}),
                              422, "invalid_body")
    _error(client.post(f"/v1/episodes/{ep}/end", json={"status": "succeeded", "reward": -0.1}), 422, "invalid_body")
    _error(client.post(f"/v1/episodes/{ep}/end", json={"status": "running"}), 422, "invalid_body")
    _error(client.get("/v1/episodes", params={"limit": 0}), 422, "invalid_body")
    _error(client.get("/v1/policies", params={"status": "maybe"}), 422, "invalid_body")
    assert store.stats() == log_before
    shown = _ok(client.get(f"/v1/episodes/{ep}"))
    assert shown["status"] == "running" and shown["step_count"] == 1
    assert [e["id"] for e in _ok(client.get("/v1/episodes"))["items"]] == [ep]

    # Ending twice, or a step after the end: 409, and the first end stands.
    _ok(client.post(f"/v1/episodes/{ep}/end", json={"status": "failed", "reward": 0.2, "outcome": "broken links"}))
    assert "already ended" in _error(client.post(f"/v1/episodes/{ep}/end", json={"status": "succeeded",
                                                                                 "reward": 1.0}),
                                     409, "rule_violation")
    _error(client.post(f"/v1/episodes/{ep}/steps", json={"action": "retry"}), 409, "rule_violation")
    shown = _ok(client.get(f"/v1/episodes/{ep}"))
    assert (shown["status"], shown["reward"], shown["outcome"], shown["step_count"]) == (
        "failed", 0.2, "broken links", 1)


@pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")
def test_hlmem_serve_induces_with_the_config_files_experience_thresholds(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "hlmem.toml"
    config.write_text(f'embedder = "hash"\n[server]\nport = {port}\n[experience]\n'
                      + "".join(f"{k} = {v!r}\n" for k, v in EAGER.items()), encoding="utf-8")
    env = cli_env(tmp_path / "m.db", HLMEM_CONFIG=str(config))
    with serve_process(HLMEM, port, env, tmp_path) as base, httpx.Client(base_url=base, timeout=30) as http:
        for _ in range(4):
            _episode(http, "rotate the TLS certificate", approach="certbot")
        policies = _ok(http.get("/v1/policies"))["items"]
        assert [(p["status"], p["support"]) for p in policies] == [("active", 4)]
        assert [p["version"] for p in _ok(http.get("/v1/procedures"))["items"]] == [1]
