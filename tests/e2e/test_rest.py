"""Every REST route through httpx against a real uvicorn on 127.0.0.1 (docs/rest.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")
import httpx  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.adapters.settings_sections import ServerSettings  # noqa: E402
from support.rest_server import serving  # noqa: E402


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory(tmp_path_factory.mktemp("rest") / "m.db", embedder="hash", settings=Settings()) as mem:
        yield mem


@pytest.fixture(scope="module")
def backups(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rest-backups") / "backups"


@pytest.fixture(scope="module")
def client(store: Memory, backups: Path) -> Iterator[httpx.Client]:
    with serving(store, settings=ServerSettings(max_body_bytes=64 * 1024, backup_dir=str(backups))) as url, \
            httpx.Client(base_url=url, timeout=30) as http:
        yield http


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == code, error
    assert error["message"]
    return error["message"]


def test_health_and_the_schema(client: httpx.Client) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    schema = client.get("/openapi.json").json()
    assert schema["info"]["title"] == "hlmem"
    assert "/v1/recall" in schema["paths"] and "/v1/events:batch" in schema["paths"]
    docs = client.get("/docs")
    assert docs.status_code == 200 and "/openapi.json" in docs.text


def test_swagger_ui_is_served_from_this_machine(client: httpx.Client) -> None:
    """/docs names no other host: its script and style come from /docs/static (offline use)."""
    import re

    page = client.get("/docs").text
    assert not re.search(r"(src|href)=['\"]https?://", page), page
    for url in re.findall(r"(?:src|href)=['\"](/docs/static/[^'\"]+)", page):
        assert client.get(url).status_code == 200, url
    script = client.get("/docs/static/swagger-ui-bundle.js")
    assert script.status_code == 200 and "SwaggerUIBundle" in script.text
    assert client.get("/docs/static/swagger-ui-bundle.js.map").status_code == 404
    assert client.get("/docs/static/index.html").status_code == 404


def test_events_one_and_a_batch_are_recorded_and_recallable(client: httpx.Client, store: Memory) -> None:
    before = store.stats()["observations"]
    one = client.post("/v1/events", json={"text": "I live in Hangzhou", "session": "chat"})
    assert one.status_code == 201, one.text
    assert one.json()["id"].startswith("ev_") and one.json()["claims"][0]["value"] == "Hangzhou"
    batch = client.post("/v1/events:batch", json={"events": [
        {"text": "我喜欢喝乌龙茶", "session": "chat"}, {"text": "the deploy is on Friday", "session": "work",
                                                    "extract": False}]})
    assert batch.status_code == 201, batch.text
    assert len(batch.json()["items"]) == 2
    assert store.stats()["observations"] == before + 3
    found = client.post("/v1/recall", json={"query": "乌龙茶", "kinds": ["event"]}).json()
    assert any("乌龙茶" in item["text"] for item in found["items"])
    elsewhere = client.post("/v1/recall", json={"query": "乌龙茶", "kinds": ["event"], "session": "work"}).json()
    assert not any("乌龙茶" in item["text"] for item in elsewhere["items"])  # another session's events only


def test_a_batch_with_one_bad_event_writes_nothing(client: httpx.Client, store: Memory) -> None:
    before = store.stats()["observations"]
    bad = client.post("/v1/events:batch", json={"events": [{"text": "fine"}, {"text": ""}]})
    _error(bad, 422, "invalid_body")
    assert store.stats()["observations"] == before


def test_a_batch_is_one_transaction_even_past_the_schema(client: httpx.Client, store: Memory) -> None:
    """A batch the schema accepts but the store refuses (one text was forgotten) writes nothing."""
    gone = client.post("/v1/events", json={"text": "my badge pin is 8812", "extract": False}).json()["id"]
    assert client.post("/v1/forget", json={"id": gone}).status_code == 200
    before = store.stats()["observations"]
    refused = client.post("/v1/events:batch", json={"events": [
        {"text": "an innocent turn"}, {"text": "my badge pin is 8812"}, {"text": "another one"}]})
    assert refused.status_code == 409, refused.text
    assert "forgotten" in refused.json()["error"]["message"]
    assert store.stats()["observations"] == before


def test_remember_get_list_correct_retract_and_history(client: httpx.Client) -> None:
    made = client.post("/v1/memories", json={"subject": "alice", "predicate": "preferred_editor", "value": "vim"})
    assert made.status_code == 201, made.text
    claim_id = made.json()["id"]
    got = client.get(f"/v1/memories/{claim_id}").json()
    assert (got["subject"], got["value"], got["status"]) == ("alice", "vim", "active")
    listed = client.get("/v1/memories", params={"subject": "alice"}).json()
    assert [c["id"] for c in listed["items"]] == [claim_id] and listed["next_cursor"] is None
    fixed = client.post(f"/v1/memories/{claim_id}/correct", json={"value": "helix"})
    assert fixed.status_code == 200, fixed.text
    new_id = fixed.json()["id"]
    assert client.get(f"/v1/memories/{claim_id}").json()["status"] == "superseded"
    assert client.get(f"/v1/memories/{new_id}").json()["value"] == "helix"
    active = client.get("/v1/memories", params={"subject": "alice", "status": "active"}).json()["items"]
    assert [c["value"] for c in active] == ["helix"]
    history = client.get("/v1/history", params={"subject": "alice", "predicate": "preferred_editor"}).json()
    assert [c["value"] for c in history["items"]] == ["vim", "helix"]
    gone = client.post(f"/v1/memories/{new_id}/retract", json={"reason": "wrong"})
    assert gone.status_code == 200, gone.text
    assert client.get(f"/v1/memories/{new_id}").json()["status"] == "retracted"
    _error(client.post(f"/v1/memories/{new_id}/correct", json={"value": "x"}), 409, "rule_violation")  # not active


def test_listing_pages_with_a_cursor_visits_every_claim_once(client: httpx.Client) -> None:
    ids = {client.post("/v1/memories", json={"subject": "pager", "predicate": f"p{n}", "value": str(n)}).json()["id"]
           for n in range(7)}
    seen: list[str] = []
    cursor = None
    while True:
        params = {"subject": "pager", "limit": 3, **({"cursor": cursor} if cursor else {})}
        page = client.get("/v1/memories", params=params).json()
        seen += [c["id"] for c in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(ids) and len(seen) == len(ids)


def test_recall_with_both_clocks_a_budget_and_the_packet_format(client: httpx.Client) -> None:
    client.post("/v1/memories", json={"subject": "bob", "predicate": "lives_in", "value": "Lyon",
                                      "valid_from": "2020-01-01T00:00:00Z"})
    found = client.post("/v1/recall", json={"query": "bob lives in", "k": 5, "budget": 200}).json()
    assert found["items"][0]["value"] == "Lyon"
    assert found["packet"]["tokens"] <= 200 and "Lyon" in found["packet"]["text"] and found["packet"]["version"] == 2
    # the server resolves its packets' handles wherever it takes an id (ADR 0092)
    handle = f"{found['packet']['tag']}.1"
    explained = client.get(f"/v1/explain/{handle}").json()
    assert explained["claim"]["id"] == found["packet"]["included"][0] == found["items"][0]["id"]
    _error(client.get("/v1/explain/bcdfghj.1"), 404, "not_found")
    v1 = client.post("/v1/recall", json={"query": "bob lives in", "k": 5, "budget": 200, "packet_version": 1}).json()
    assert v1["packet"]["version"] == 1 and found["items"][0]["id"] in v1["packet"]["text"]
    _error(client.post("/v1/recall", json={"query": "bob", "budget": 100, "packet_version": 3}), 422, "invalid_body")
    before = client.post("/v1/recall", json={"query": "bob lives in", "valid_at": "2019-01-01T00:00:00Z",
                                             "kinds": ["claim"]}).json()
    assert all(i.get("value") != "Lyon" for i in before["items"])
    assert before["valid_at"].startswith("2019-01-01")
    packet = client.post("/v1/recall", json={"query": "bob", "budget": 100, "format": "packet"})
    assert packet.headers["content-type"].startswith("text/plain") and "Lyon" in packet.text
    _error(client.post("/v1/recall", json={"query": "bob", "format": "packet"}), 400, "validation_error")
    _error(client.post("/v1/recall", json={"query": "bob", "known_at": "yesterday-ish"}), 400, "invalid_timestamp")


def test_recall_returns_procedures_and_policies_for_a_howto_question(client: httpx.Client, store: Memory) -> None:
    store.set_experience_thresholds({"min_support": 3, "min_reliability": 0.3, "probation": 1,
                                     "procedure_min_successes": 3, "procedure_min_reliability": 0.3})
    for _ in range(4):
        ep = store.start_episode("rotate the TLS certificate", approach="certbot", namespace="exp")
        store.record_step(ep.episode_id, "certbot renew", tool="certbot")
        store.end_episode(ep.episode_id, "succeeded", reward=1.0)
    asked = client.post("/v1/recall", json={"query": "How do I rotate the TLS certificate?", "namespace": "exp"})
    assert asked.status_code == 200, asked.text
    kinds = [(i["kind"], i.get("approach"), i.get("support")) for i in asked.json()["items"][:2]]
    assert kinds == [("procedure", "certbot", 4), ("policy", "certbot", 4)]
    explicit = client.post("/v1/recall", json={"query": "TLS certificate", "namespace": "exp",
                                               "intent": "procedure"}).json()["items"]
    assert explicit[0]["kind"] == "procedure" and explicit[0]["steps"] == ["certbot: certbot renew"]
    facts = client.post("/v1/recall", json={"query": "How do I rotate the TLS certificate?", "namespace": "exp",
                                            "intent": "facts"}).json()["items"]
    assert all(i["kind"] in ("claim", "event") for i in facts)
    _error(client.post("/v1/recall", json={"query": "x", "intent": "maybe"}), 422, "invalid_body")


def test_explain_an_event_and_a_claim(client: httpx.Client) -> None:
    event = client.post("/v1/events", json={"text": "I work at Acme", "session": "chat"}).json()
    explained = client.get(f"/v1/explain/{event['id']}").json()
    assert explained["kind"] == "event" and explained["event"]["text"] == "I work at Acme"
    if event["claims"]:
        claim = client.get(f"/v1/explain/{event['claims'][0]['id']}").json()
        assert claim["evidence"][0]["text"] == "I work at Acme"
    _error(client.get("/v1/explain/cl_nothing"), 404, "not_found")


def test_forget_by_id_session_and_subject_with_a_dry_run(client: httpx.Client, store: Memory) -> None:
    made = client.post("/v1/memories", json={"subject": "carol", "predicate": "likes", "value": "jazz"}).json()
    plan = client.post("/v1/forget", json={"subject": "carol", "dry_run": True}).json()
    assert plan["dry_run"] is True and made["id"] in plan["items"]
    assert client.get(f"/v1/memories/{made['id']}").status_code == 200  # a dry run removes nothing
    done = client.post("/v1/forget", json={"subject": "carol", "reason": "asked"}).json()
    assert done["dry_run"] is False and done["counts"]["claims"] >= 1
    _error(client.get(f"/v1/memories/{made['id']}"), 404, "not_found")
    event = client.post("/v1/events", json={"text": "temporary note", "session": "scratch", "extract": False}).json()
    by_session = client.post("/v1/forget", json={"session": "scratch"}).json()
    assert event["id"] in by_session["items"]
    other = client.post("/v1/events", json={"text": "another note", "session": "keep", "extract": False}).json()
    assert client.post("/v1/forget", json={"id": other["id"]}).json()["counts"]["events"] == 1
    assert client.get(f"/v1/explain/{other['id']}").json()["kind"] == "forgotten"
    _error(client.post("/v1/forget", json={"id": other["id"], "session": "keep"}), 400, "validation_error")
    _error(client.post("/v1/forget", json={"session": "never-was"}), 404, "not_found")


def test_conflicts_list_get_and_resolve_with_a_stale_version_refused(client: httpx.Client) -> None:
    client.post("/v1/events", json={"text": "I live in Shenzhen", "session": "u"})
    client.post("/v1/events", json={"text": "I live in Beijing", "session": "notes", "origin": "agent"})
    items = client.get("/v1/conflicts").json()["items"]
    conflict = next(c for c in items if c["candidate"].get("value") == "Beijing")
    got = client.get(f"/v1/conflicts/{conflict['id']}").json()
    assert got["version"] == conflict["version"] and got["status"] == "open"
    stale = client.post(f"/v1/conflicts/{conflict['id']}/resolve",
                        json={"decision": "keep-new", "expected_version": conflict["version"] + 1})
    _error(stale, 409, "stale_version")
    ok = client.post(f"/v1/conflicts/{conflict['id']}/resolve",
                     json={"decision": "keep-old", "expected_version": conflict["version"]})
    assert ok.status_code == 200 and ok.json()["decision"] == "keep-old"
    _error(client.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"decision": "keep-new"}), 409,
           "stale_version")
    assert client.get("/v1/conflicts", params={"status": "all"}).json()["items"]
    _error(client.get("/v1/conflicts/cf_nothing"), 404, "not_found")


def test_jobs_feedback_stats_audit(client: httpx.Client, store: Memory) -> None:
    client.post("/v1/events", json={"text": "I prefer tea", "session": "later", "process": False})
    jobs = client.get("/v1/jobs", params={"state": "pending"}).json()
    assert jobs["jobs"] and jobs["counts"]
    _error(client.post(f"/v1/jobs/{jobs['jobs'][0]['id']}/retry"), 400, "validation_error")  # pending, not dead
    _error(client.post("/v1/jobs/jb_nothing/retry"), 404, "not_found")
    made = client.post("/v1/memories", json={"subject": "dave", "predicate": "drinks", "value": "coffee"}).json()
    fed = client.post("/v1/feedback", json={"item_id": made["id"], "verdict": "helpful"})
    assert fed.status_code == 200, fed.text
    assert store.claim(made["id"]).helpful == 1
    stats = client.get("/v1/stats").json()
    assert stats["observations"] == store.stats()["observations"] and stats["embedder"] == "hash"
    audit = client.get("/v1/audit", params={"limit": 100}).json()["items"]
    assert any(e["kind"] == "forget" for e in audit) and any(e["kind"] == "retract" for e in audit)


def test_backup_into_the_backup_directory_and_refuse_to_overwrite(client: httpx.Client, backups: Path) -> None:
    made = client.post("/v1/backup", json={"name": "copy.db"})
    assert made.status_code == 201, made.text
    target = backups / "copy.db"
    assert made.json()["path"] == str(target.resolve())
    assert target.exists() and made.json()["size_bytes"] == target.stat().st_size
    assert backups.stat().st_mode & 0o777 == 0o700  # made private by the server
    _error(client.post("/v1/backup", json={"name": "copy.db"}), 409, "backup_exists")
    named = client.post("/v1/backup")  # no body: the server names the file
    assert named.status_code == 201, named.text
    assert Path(named.json()["path"]).parent == backups.resolve() and Path(named.json()["path"]).is_file()


def test_bad_bodies_unknown_routes_and_a_body_over_the_limit(client: httpx.Client, store: Memory) -> None:
    _error(client.post("/v1/memories", json={"subject": "x"}), 422, "invalid_body")
    _error(client.post("/v1/memories", content=b"{not json", headers={"content-type": "application/json"}), 422,
           "invalid_body")
    _error(client.post("/v1/recall", json={"query": "x", "surprise": 1}), 422, "invalid_body")
    _error(client.get("/v1/nothing"), 404, "no_route")
    _error(client.delete("/v1/recall"), 405, "method_not_allowed")
    before = store.stats()["observations"]
    _error(client.post("/v1/events", json={"text": "x" * 70_000}), 413, "too_large")

    def chunks():
        for _ in range(70):
            yield b"x" * 1024

    _error(client.post("/v1/events", content=chunks(), headers={"content-type": "application/json"}), 413,
           "too_large")
    assert store.stats()["observations"] == before


def test_docs_rest_md_lists_every_route_and_error_code() -> None:
    """docs/rest.md's tables are the app's: its OpenAPI operations and the error table."""
    import re

    from hlmem.adapters.server.reference import error_table, openapi_schema, route_table

    page = (Path(__file__).resolve().parents[2] / "docs" / "rest.md").read_text(encoding="utf-8")
    routes = re.search(r"<!-- routes:begin -->\n(.*?)\n<!-- routes:end -->", page, re.S).group(1)
    errors = re.search(r"<!-- errors:begin -->\n(.*?)\n<!-- errors:end -->", page, re.S).group(1)
    assert routes == route_table(openapi_schema()), "regenerate: python -m hlmem.adapters.server.reference"
    assert errors == error_table()
