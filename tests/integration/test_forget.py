"""Forget end to end through ``Memory``, on both adapters: the cascade, its counts, surviving
evidence, a supersede chain with a forgotten middle, conflicts, idempotency, replay equal to the
live state, re-ingest blocking, explain of a forgotten id, and enforcing another ledger's tombstones.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.replay import ReplayService
from hlmem.domain.errors import NotFound, ValidationError
from hlmem.domain.events import EvidenceForgotten, ForgetRequested, ItemForgotten
from hlmem.domain.forgetting import ForgottenContent
from hlmem.domain.redaction import is_redacted
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.state import ClaimStatus

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
DAY = timedelta(days=1)
KINDS = ["memory", "sqlite"]


def open_memory(kind: str, tmp_path: Path, name: str = "m.db", **kw) -> Memory:
    path = ":memory:" if kind == "memory" else tmp_path / name
    return Memory(path, embedder="hash", now=T0, **kw)


@pytest.fixture(params=KINDS)
def kind(request) -> str:
    return request.param


@pytest.fixture
def mem(kind: str, tmp_path: Path) -> Iterator[Memory]:
    with open_memory(kind, tmp_path) as m:
        yield m


def ids_in_recall(mem: Memory, query: str) -> set[str]:
    return {i.id for i in mem.recall(query, k=50).items}


def fresh_like(mem: Memory, tmp_path: Path):
    if isinstance(mem.storage, InMemoryStorage):
        return InMemoryStorage()
    return SQLiteStorage(tmp_path / "rebuilt.db", synchronous="OFF")


def assert_replay_equals_live(mem: Memory, tmp_path: Path) -> None:
    """Rebuild the log into a fresh store of the same adapter; every state and count must agree."""
    service = ReplayService(DEFAULT_REGISTRY, mem._container.passage_embedder())
    target = fresh_like(mem, tmp_path)
    try:
        service.rebuild(mem.storage, target, forgotten=[t.stream_id for t in mem.storage.tombstones.tombstones()])
        report = service.compare(mem.storage, target)
        assert report.equal, report.differences
        streams = sorted(mem.storage.stream_versions())
        assert mem.storage.projection_fingerprints(streams) == target.projection_fingerprints(streams)
    finally:
        target.close()


# --- the cascade --------------------------------------------------------------------------------


def test_forgetting_an_event_takes_its_sole_claims_and_unlinks_shared_evidence(mem: Memory, tmp_path: Path) -> None:
    a = mem.add("violet-secret-bunker-42 is where I keep things", extract=False)
    b = mem.add("the other note about tea", extract=False)
    only = mem.remember("user", "favorite_place", "violet-secret-bunker-42", evidence=[a.id])
    shared = mem.remember("user", "likes", "tea", evidence=[a.id, b.id])
    untouched = mem.remember("user", "city", "Berlin", evidence=[b.id])
    vectors = mem.stats()["vectors"]
    assert {a.id, only.id} <= ids_in_recall(mem, "violet-secret-bunker-42")

    report = mem.forget(a.id, reason="asked to")

    assert dict(report.counts) == {"events": 1, "claims": 1, "evidence_links": 1, "conflicts": 0,
                                   "extraction_records": 0, "payloads": 2, "fts_rows": 2, "vectors": 2,
                                   "cache_entries": 2, "jobs": 0}
    assert report.items == (a.id, only.id) and report.forget_id.startswith("fg_") and not report.already_forgotten
    assert mem.stats()["vectors"] == vectors - 2
    assert not ids_in_recall(mem, "violet-secret-bunker-42") & {a.id, only.id}
    claims = mem.storage.get_claims([only.id, shared.id, untouched.id])
    assert claims[only.id].status is ClaimStatus.FORGOTTEN and claims[only.id].value == ""
    assert claims[shared.id].status is ClaimStatus.ACTIVE and claims[shared.id].evidence == (b.id,)
    assert claims[untouched.id].evidence == (b.id,)
    assert mem.storage.get_observations([a.id])[a.id].forgotten
    assert [e.event_id for e in mem.explain(shared.id).evidence] == [b.id]
    # The log: envelopes stay, content-bearing payloads are redacted, the audit says what happened.
    log = [s.event for s in mem.storage.read()]
    assert all(is_redacted(e) for e in log if e.stream_id in (a.id, only.id))
    (audit,) = [e for e in log if isinstance(e, ForgetRequested)]
    assert (audit.target_kind, audit.target, audit.reason, audit.items) == ("event", a.id, "asked to",
                                                                             (a.id, only.id))
    assert dict(audit.counts) == dict(report.counts)
    assert {e.stream_id for e in log if isinstance(e, ItemForgotten)} == {a.id, only.id}
    assert [e.stream_id for e in log if isinstance(e, EvidenceForgotten)] == [shared.id]
    assert_replay_equals_live(mem, tmp_path)


def test_a_claim_target_forgets_the_claim_only_and_says_its_evidence_keeps_its_text(mem: Memory) -> None:
    ev = mem.add("I like green tea", extract=False)
    cl = mem.remember("user", "likes", "green tea", evidence=[ev.id])
    report = mem.forget(cl.id)
    assert report.items == (cl.id,)
    assert mem.storage.get_observations([ev.id])[ev.id].text == "I like green tea"
    assert any(ev.id in note for note in report.notes)


def test_a_session_forget_takes_every_event_of_the_session(mem: Memory) -> None:
    kept = mem.add("我住在杭州", session="keep")
    mem.clock.advance(DAY)
    gone = [mem.add("我住在紫罗兰色的秘密基地", session="s-x"), mem.add("My favorite place is the lighthouse",
                                                                      session="s-x")]
    extracted = {c for g in gone for c in mem.storage.claims_citing(g.id)}
    assert extracted, "the rule extractor should have made claims from the session"
    report = mem.forget(session="s-x")
    assert set(report.items) == {g.id for g in gone} | extracted
    assert report.counts["events"] == 2 and report.counts["extraction_records"] == 2
    assert not mem.storage.get_observations([kept.id])[kept.id].forgotten
    assert not ids_in_recall(mem, "紫罗兰色的秘密基地 lighthouse") & set(report.items)
    # The superseded Hangzhou claim keeps its (bare) link to the forgotten successor.
    hangzhou = mem.history("user", "lives_in")
    assert [c.value for c in hangzhou] == ["杭州"]


def test_forget_subject_matches_every_name_of_the_user(mem: Memory) -> None:
    a = mem.remember("我", "likes", "tea")
    b = mem.remember("user", "city", "Berlin")
    other = mem.remember("张伟", "likes", "coffee")
    report = mem.forget(subject="用户")
    assert set(report.items) == {a.id, b.id}
    assert mem.storage.get_claims([other.id])[other.id].status is ClaimStatus.ACTIVE


def test_forget_subject_takes_claims_about_mentioning_and_events_mentioning_the_name(mem: Memory) -> None:
    about = mem.remember("张伟", "job", "doctor")
    friend = mem.remember("user", "friend", "张伟")
    turn = mem.add("昨天和张伟吃饭了", extract=False)
    unrelated = mem.add("昨天和李娜吃饭了", extract=False)
    preview = mem.forget(subject="张伟", dry_run=True)
    report = mem.forget(subject="张伟", reason="privacy request")
    assert set(report.items) == {about.id, friend.id, turn.id}
    assert dict(preview.counts) == dict(report.counts) and preview.dry_run and preview.forget_id is None
    assert not mem.storage.get_observations([unrelated.id])[unrelated.id].forgotten
    # The audit names the subject by salted fingerprint, never by name.
    (audit,) = [s.event for s in mem.storage.read() if isinstance(s.event, ForgetRequested)]
    assert audit.target_kind == "subject" and "张伟" not in audit.target and len(audit.target) == 32


def test_a_dry_run_changes_nothing(mem: Memory) -> None:
    ev = mem.add("secret plan", extract=False)
    mem.remember("user", "plan", "secret plan", evidence=[ev.id])
    before = (list(mem.storage.read()), mem.storage.counts(), mem.storage.tombstones.tombstones())
    report = mem.forget(ev.id, dry_run=True)
    assert report.dry_run and report.counts["events"] == 1 and report.counts["claims"] == 1
    assert (list(mem.storage.read()), mem.storage.counts(), mem.storage.tombstones.tombstones()) == before
    assert ev.id in ids_in_recall(mem, "secret plan")


# --- supersede chains ----------------------------------------------------------------------------


def test_a_forgotten_middle_claim_keeps_the_chain_and_leaves_history(mem: Memory, tmp_path: Path) -> None:
    a = mem.remember("user", "lives_in", "Hangzhou", valid_from=T0)
    mem.clock.advance(DAY)
    b = mem.remember("user", "lives_in", "Berlin", valid_from=T0 + DAY)
    mem.clock.advance(DAY)
    c = mem.remember("user", "lives_in", "Paris", valid_from=T0 + 2 * DAY)
    mem.clock.advance(DAY)
    mem.forget(b.id)
    history = mem.history("user", "lives_in")
    assert [h.claim_id for h in history] == [a.id, c.id]
    states = mem.storage.get_claims([a.id, b.id, c.id])
    assert states[a.id].superseded_by == b.id and b.id in states[c.id].supersedes  # bare structure kept
    assert states[b.id].superseded_by == c.id and states[b.id].value == ""
    exp = mem.explain(c.id)
    assert [x.claim_id for x in exp.chain] == [a.id, c.id]
    # What held during Berlin's time is not told any more; Paris is current.
    then = mem.recall("lives in Berlin", valid_at=T0 + DAY + timedelta(hours=1), kinds=["claim"])
    assert b.id not in {i.id for i in then.items}
    assert [i.value for i in mem.recall("lives in Paris", kinds=["claim"]).items] == ["Paris"]
    assert_replay_equals_live(mem, tmp_path)


# --- conflicts -------------------------------------------------------------------------------------


def _conflict_setup(mem: Memory):
    first = mem.add("我住在杭州", session="w", process=False)
    second = mem.add("我住在北京", session="w", process=False)
    mem.run_worker()
    (conflict,) = mem.conflicts()
    return first, second, conflict


def _conflicts_work(kind: str):
    return kind


@pytest.mark.parametrize("kind", [_conflicts_work(k) for k in KINDS])
def test_a_conflict_drawn_from_a_forgotten_event_is_forgotten(kind: str, tmp_path: Path) -> None:
    with open_memory(kind, tmp_path) as mem:
        first, second, conflict = _conflict_setup(mem)
        report = mem.forget(second.id)
        assert conflict.conflict_id in report.items and report.counts["conflicts"] == 1
        assert mem.conflicts() == []
        (state,) = mem.conflicts(status="forgotten")
        assert state.candidate == {} and state.slot_key == ""
        assert not mem.storage.get_observations([first.id])[first.id].forgotten
        assert_replay_equals_live(mem, tmp_path)


@pytest.mark.parametrize("kind", [_conflicts_work(k) for k in KINDS])
def test_a_conflict_whose_existing_claims_are_all_forgotten_goes_too(kind: str, tmp_path: Path) -> None:
    with open_memory(kind, tmp_path) as mem:
        _first, _second, conflict = _conflict_setup(mem)
        report = mem.forget(conflict.existing[0])
        assert conflict.conflict_id in report.items


def test_sqlite_stores_and_reads_a_forgotten_conflict(tmp_path: Path) -> None:
    from hlmem.domain.events import ConflictOpened

    store = SQLiteStorage(tmp_path / "c.db")
    try:
        store.append([ConflictOpened(event_id="lg_1", stream_id="cf_1", version=1, recorded_at=T0,
                                     namespace="default", slot_key="k", existing=("cl_1",), subject="a",
                                     predicate="b", value="c", valid_from=T0)])
        store.append([ItemForgotten(event_id="lg_2", stream_id="cf_1", version=2, recorded_at=T0,
                                    namespace="default")])
        assert store.get_conflicts(["cf_1"])["cf_1"].status == "forgotten"
    finally:
        store.close()


# --- idempotency and errors ------------------------------------------------------------------------


def test_forgetting_twice_says_already_forgotten_and_writes_nothing(mem: Memory) -> None:
    ev = mem.add("once", extract=False)
    first = mem.forget(ev.id)
    position = mem.storage.last_position()
    mem.clock.advance(DAY)
    again = mem.forget(ev.id)
    assert again.already_forgotten and again.removed == 0 and set(again.counts.values()) == {0}
    assert again.forgotten_at == T0 and again.forget_id is None
    assert mem.storage.last_position() == position
    assert first.forget_id and not first.already_forgotten
    assert first.forgotten_at == T0  # a real forget says when (issue 33); a dry run forgets nothing
    assert mem.forget(mem.add("not yet", session="elsewhere", extract=False).id, dry_run=True).forgotten_at is None
    mem.add("mentions 张伟", extract=False)
    mem.forget(subject="张伟")
    assert mem.forget(subject="张伟").already_forgotten
    assert mem.forget(session="default").already_forgotten


@pytest.mark.parametrize(("call", "error"), [
    (lambda m: m.forget("cl_nope"), NotFound),
    (lambda m: m.forget("ev_nope"), NotFound),
    (lambda m: m.forget(session="never"), NotFound),
    (lambda m: m.forget(subject="Nobody Known"), NotFound),
    (lambda m: m.forget("fg_1"), ValidationError),
    (lambda m: m.forget(), ValidationError),
    (lambda m: m.forget("ev_1", session="s"), ValidationError),
    (lambda m: m.forget(subject="  "), ValidationError),
])
def test_bad_targets_fail_clearly_and_change_nothing(mem: Memory, call, error) -> None:
    mem.add("something", extract=False)
    before = mem.storage.last_position()
    with pytest.raises(error):
        call(mem)
    assert mem.storage.last_position() == before


# --- explain, history, recall ----------------------------------------------------------------------


def test_explain_of_a_forgotten_id_says_only_when(mem: Memory) -> None:
    ev = mem.add("a private thing", extract=False)
    cl = mem.remember("user", "likes", "a private thing", evidence=[ev.id])
    mem.clock.advance(DAY)
    mem.forget(ev.id)
    for item in (ev.id, cl.id):
        exp = mem.explain(item)
        assert (exp.kind, exp.item_id, exp.forgotten_at) == ("forgotten", item, T0 + DAY)
        assert exp.claim is None and exp.observation is None and exp.evidence == () and exp.chain == ()
    assert mem.history("user", "likes") == []
    assert not ids_in_recall(mem, "private thing") & {ev.id, cl.id}


# --- replay --------------------------------------------------------------------------------------


def test_replay_after_forget_equals_the_live_state(mem: Memory, tmp_path: Path) -> None:
    for i in range(5):
        mem.add(f"我住在城市{i}号", session=f"s{i % 2}")
        mem.clock.advance(timedelta(hours=1))
    mem.remember("张伟", "likes", "coffee")
    mem.forget(session="s1")
    mem.forget(subject="张伟")
    assert_replay_equals_live(mem, tmp_path)
    if mem.path != ":memory:":
        report = mem.replay()
        assert report.equal, report.differences


def test_replay_never_projects_content_of_a_tombstoned_stream_even_from_an_unerased_log(
        mem: Memory, tmp_path: Path) -> None:
    ev = mem.add("violet-secret-bunker-42", extract=False)
    mem.remember("user", "likes", "tea")
    old_log = list(mem.storage.read())  # before the forget: payloads still hold the text
    mem.forget(ev.id)
    forget_events = [s.event for s in mem.storage.read()][len(old_log):]

    class OldLog:
        """A source whose erasure was lost: the pre-forget log plus the forget's events (and its ledger)."""

        tombstones = mem.storage.tombstones

        def vector_model(self):
            return None

        def read_stored(self, after=0, limit=None):
            for n, event in enumerate([s.event for s in old_log] + forget_events, start=1):
                yield type(old_log[0])(n, event), None

    target = fresh_like(mem, tmp_path)
    try:
        ReplayService(DEFAULT_REGISTRY, None).rebuild(OldLog(), target)  # the ledger names ev
        assert all(is_redacted(s.event) for s in target.read() if s.event.stream_id == ev.id)
        assert target.get_observations([ev.id]) == mem.storage.get_observations([ev.id])
        assert target.text_candidates("default", "violet-secret-bunker-42", 10) == []
    finally:
        target.close()


# --- re-ingest ---------------------------------------------------------------------------------------


def test_forgotten_content_is_refused_on_add_remember_and_import(mem: Memory) -> None:
    ev = mem.add("My favorite place is the lighthouse")
    cl = mem.remember("张伟", "likes", "coffee")
    mem.forget(ev.id)
    mem.forget(cl.id)
    position = mem.storage.last_position()
    with pytest.raises(ForgottenContent):
        mem.add("my favorite place is  the LIGHTHOUSE")  # same content, normalised
    with pytest.raises(ForgottenContent):
        mem.remember("张伟", "likes", "coffee")
    assert mem.storage.last_position() == position
    lines = ['{"type": "observation", "text": "My favorite place is the lighthouse", "occurred_at": '
             '"2026-03-01T09:00:00Z"}',
             '{"type": "observation", "text": "a new and harmless note", "occurred_at": "2026-03-01T09:00:00Z"}']
    report = mem.import_jsonl(lines, extract=False)
    assert (report.written, report.errors) == (1, ()) and report.blocked == ("line 1: blocked: forgotten content",)


def test_a_forgotten_claim_is_not_extracted_again_from_a_new_turn(mem: Memory) -> None:
    first = mem.add("My favorite place is the lighthouse")
    (claim_id,) = mem.storage.claims_citing(first.id)
    mem.forget(claim_id)
    mem.clock.advance(DAY)
    again = mem.add("Honestly, my favorite place is the lighthouse")
    assert mem.storage.claims_citing(again.id) == []
    assert mem._container.forget().is_blocked(claim=("user", "favorite_place", "the lighthouse"))


def test_reingest_is_allowed_when_blocking_is_off(kind: str, tmp_path: Path) -> None:
    with open_memory(kind, tmp_path, block_reingest=False) as mem:
        ev = mem.add("My favorite place is the lighthouse")
        mem.forget(ev.id)
        again = mem.add("My favorite place is the lighthouse")
        assert again.id != ev.id and mem.storage.claims_citing(again.id)
        assert not mem._container.forget().is_blocked(text="My favorite place is the lighthouse")


def test_the_environment_turns_blocking_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLMEM_BLOCK_REINGEST", "0")
    with Memory(":memory:", embedder="none", now=T0) as mem:
        ev = mem.add("note", extract=False)
        mem.forget(ev.id)
        mem.add("note", extract=False)


# --- enforcing tombstones (restore's contract) ------------------------------------------------------


def test_enforce_tombstones_forgets_by_id_and_by_fingerprint_on_a_copy(tmp_path: Path) -> None:
    live_path, copy_path = tmp_path / "live.db", tmp_path / "copy.db"
    with Memory(live_path, embedder="hash", now=T0) as live:
        ev = live.add("violet-secret-bunker-42 lives here", extract=False)
        cl = live.remember("user", "favorite_place", "violet-secret-bunker-42", evidence=[ev.id])
        keep = live.remember("user", "likes", "tea")
    shutil.copy(live_path, copy_path)  # an older backup: same salt, forgotten content inside
    with Memory(live_path, embedder="hash", now=T0 + DAY) as live:
        live.forget(ev.id)
        ledger = live.storage.tombstones.tombstones()
    with Memory(copy_path, embedder="hash", now=T0 + 2 * DAY) as copy:
        twin = copy.add("VIOLET-secret-bunker-42   lives here", extract=False)  # same content, another id
        service = copy._container.forget()
        assert service.enforce_tombstones(ledger, actor="restore", reason="restore") == 3
        states = copy.storage.get_claims([cl.id, keep.id])
        assert states[cl.id].status is ClaimStatus.FORGOTTEN and states[keep.id].status is ClaimStatus.ACTIVE
        obs = copy.storage.get_observations([ev.id, twin.id])
        assert obs[ev.id].forgotten and obs[twin.id].forgotten
        assert service.enforce_tombstones(ledger, actor="restore", reason="again") == 0
        assert not ids_in_recall(copy, "violet-secret-bunker-42") & {ev.id, twin.id, cl.id}


def test_a_feedback_reason_is_erased_with_its_item(mem: Memory) -> None:
    ev = mem.add("violet-secret-bunker-42 is the spot", extract=False)
    mem.feedback(ev.id, "helpful", reason="the violet-secret-bunker-42 note helped")
    mem.forget(ev.id)
    assert not any("violet-secret-bunker-42" in repr(s.event) for s in mem.storage.read())
