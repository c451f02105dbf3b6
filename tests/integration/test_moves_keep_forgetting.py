"""Nothing forgotten comes back after a store moves (issue 33 item 3, ADR 0059).

A store is moved by replay (``replay --into``: any pair of SQLite, in-memory and PostgreSQL
stores), by a backup restored onto a new path or onto an empty store, and by an older backup
restored over the store itself. Hypothesis draws the adds, remembers and forgets (by event, claim,
session and subject) on the source, the source and target kinds and the path; after the move the
target must hold the source's salt and every ledger row, and every way back in must be refused:
``add`` of a forgotten text (in another case and spacing), ``remember`` of a forgotten claim,
``import`` of either, and — after every text and claim of the pool has been tried again — no event
or claim with forgotten content is live in the target that was not live in the source.

PostgreSQL pairs run in their own test with few examples (a database per store); the others run
with the profile's examples, capped so the suite stays fast.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hlmem.adapters.memory_api import Memory, restore_store
from hlmem.domain.errors import NotFound
from hlmem.domain.forgetting import ForgottenContent
from hlmem.domain.redaction import normalize_content
from hlmem.domain.state import ClaimStatus

from support.postgres import drop_database, new_database

TEXTS = ["我住在杭州。", "我喜欢喝咖啡。", "My favorite color is blue.", "I work at Acme.",
         "my locker code is 4711", "张伟是我的同事。", "我养了一只猫，叫咪咪。", "Alice和我周末去西湖。"]
CLAIMS = [("Alice", "works_in", "Boston"), ("Alice", "likes", "tea"), ("张伟", "likes", "咖啡"),
          ("user", "pet_name", "Rex")]
SESSIONS = ["s1", "s2"]

writes = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(TEXTS), st.sampled_from(SESSIONS)),
    st.tuples(st.just("remember"), st.sampled_from(CLAIMS)),
)
forgets = st.one_of(
    st.tuples(st.just("forget_event"), st.integers(0, 30)),
    st.tuples(st.just("forget_claim"), st.integers(0, 30)),
    st.tuples(st.just("forget_session"), st.sampled_from(SESSIONS)),
    st.tuples(st.just("forget_subject"), st.sampled_from(["Alice", "张伟"])),
)


@st.composite
def histories(draw) -> list[tuple]:
    """Writes and forgets in any order, with at least one write and a forget of an item after it."""
    ops = draw(st.lists(st.one_of(writes, forgets), max_size=10))
    first = draw(writes)
    last = ("forget_any", draw(st.integers(0, 30)))
    at = draw(st.integers(0, len(ops)))
    return [first, *ops[:at], last, *ops[at:]]


class Source:
    """The source store and what each of its events and claims said (read before any forget)."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem
        self.texts: dict[str, str] = {}
        self.contents: dict[str, tuple[str, str, str]] = {}

    def note(self) -> None:
        streams = self.mem.storage.stream_versions()
        new_obs = [s for s in streams if s.startswith("ev_") and s not in self.texts]
        new_claims = [s for s in streams if s.startswith("cl_") and s not in self.contents]
        for sid, state in self.mem.storage.get_observations(new_obs).items():
            self.texts[sid] = state.text
        for sid, state in self.mem.storage.get_claims(new_claims).items():
            self.contents[sid] = (state.subject, state.predicate, state.value)

    def run(self, op: tuple) -> None:
        kind = op[0]
        with suppress(ForgottenContent, NotFound):  # forgotten content refused; nothing left to forget
            if kind == "add":
                self.mem.add(op[1], session=op[2])
            elif kind == "remember":
                self.mem.remember(*op[1])
            elif kind in ("forget_event", "forget_claim", "forget_any"):
                pool = sorted({"forget_event": self.texts, "forget_claim": self.contents}.get(
                    kind, {**self.texts, **self.contents}))
                if pool:
                    self.mem.forget(pool[op[1] % len(pool)])
            elif kind == "forget_session":
                self.mem.forget(session=op[1])
            else:
                self.mem.forget(subject=op[1], reason="asked to")
        self.note()


@contextmanager
def opened(kind: str, where: Path, admin_url: str | None, name: str) -> Iterator[str]:
    """A place for a store of ``kind``: a SQLite path, ``:memory:`` or a fresh PostgreSQL database."""
    if kind == "sqlite":
        yield str(where / f"{name}.db")
    elif kind == "memory":
        yield ":memory:"
    else:
        url, database = new_database(admin_url)
        try:
            yield url
        finally:
            drop_database(admin_url, database)


def _live(mem: Memory) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    """Texts of the live events and contents of the live claims (normalised), by id."""
    streams = mem.storage.stream_versions()
    obs = {sid: normalize_content(s.text) for sid, s in
           mem.storage.get_observations([s for s in streams if s.startswith("ev_")]).items() if s.text}
    claims = {sid: (normalize_content(c.subject), c.predicate, normalize_content(c.value)) for sid, c in
              mem.storage.get_claims([s for s in streams if s.startswith("cl_")]).items()
              if c.status is not ClaimStatus.FORGOTTEN and c.value}
    return obs, claims


def _line(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False)


def _shout(text: str) -> str:
    """The same content in another case and spacing (fingerprints are of normalised text)."""
    return "  " + text.upper().replace(" ", "   ") + " "


def check_nothing_comes_back(target: Memory, source: Source, ledger: set, salt: bytes,
                             live_before: tuple[dict, dict]) -> None:
    tomb = target.storage.tombstones
    assert tomb.salt() == salt, "the salt did not travel: fingerprints no longer match"
    assert ledger <= {(t.fingerprint, t.kind, t.stream_id) for t in tomb.tombstones()}
    forgotten_ids = {row[2] for row in ledger}
    gone_texts = {source.texts[s] for s in forgotten_ids if s in source.texts}
    gone_claims = {source.contents[s] for s in forgotten_ids if s in source.contents}
    # Every forgotten id reads as forgotten in the target, or is not there at all (an older
    # backup restored: what was made after it, and forgotten since, is absent from its log).
    for sid in forgotten_ids & set(source.contents):
        state = target.storage.get_claims([sid]).get(sid)
        assert state is None or state.status is ClaimStatus.FORGOTTEN, sid
    for sid in forgotten_ids & set(source.texts):
        state = target.storage.get_observations([sid]).get(sid)
        assert state is None or state.text == "", sid
    position = target.storage.last_position()
    for text in gone_texts:
        with pytest.raises(ForgottenContent):
            target.add(_shout(text))
    for subject, predicate, value in gone_claims:
        with pytest.raises(ForgottenContent):
            target.remember(subject, predicate, value)
    lines = [_line({"type": "observation", "text": t, "occurred_at": "2026-03-01T09:00:00Z"}) for t in gone_texts]
    lines += [_line({"type": "claim", "subject": s, "predicate": p, "value": v}) for s, p, v in gone_claims]
    if lines:
        report = target.import_jsonl(lines, extract=True)
        assert (report.written, report.errors, len(report.blocked)) == (0, (), len(lines)), report
    assert target.storage.last_position() == position, "a refused write wrote something"
    # Every text and claim of the pool again: what is admitted brings no forgotten content back.
    for text in TEXTS:
        with suppress(ForgottenContent):
            target.add(text, session="after")
    for claim in CLAIMS:
        with suppress(ForgottenContent):
            target.remember(*claim)
    obs, claims = _live(target)
    old_obs, old_claims = live_before
    norm_texts = {normalize_content(t) for t in gone_texts}
    norm_claims = {(normalize_content(s), p, normalize_content(v)) for s, p, v in gone_claims}
    back = [sid for sid, t in obs.items() if t in norm_texts and sid not in old_obs]
    back += [sid for sid, c in claims.items() if c in norm_claims and sid not in old_claims]
    assert not back, f"forgotten content came back in the target as {back}"


def move_and_check(tmp_path: Path, admin_url: str | None, source_kind: str, target_kind: str, path: str,
                   history: list[tuple], backup_after: int) -> None:
    with opened(source_kind, tmp_path, admin_url, "source") as where:
        with Memory(where, embedder="hash") as mem:
            source = Source(mem)
            backup = tmp_path / "older.db"
            for n, op in enumerate(history):
                if path == "restore_older" and n == backup_after:
                    mem.backup(backup, overwrite=True)
                source.run(op)
            salt = mem.storage.tombstones.salt()
            ledger = {(t.fingerprint, t.kind, t.stream_id) for t in mem.storage.tombstones.tombstones()}
            assert ledger, "every history forgets something"
            live_before = _live(mem)
            if path == "restore_older":
                if not backup.exists():
                    mem.backup(backup, overwrite=True)
                mem.restore(backup, reason="an older backup")
                check_nothing_comes_back(mem, source, ledger, salt, live_before)
                return
            if path == "replay":
                with opened(target_kind, tmp_path, admin_url, "target") as into:
                    if target_kind == "memory":
                        with Memory(":memory:", embedder="hash") as target:
                            report = mem._container.replay().replay(mem.storage, target.storage)
                            assert report.equal, report.differences
                            check_nothing_comes_back(target, source, ledger, salt, live_before)
                        return
                    report = mem.replay(into=into, verify=True)
                    assert report.equal and report.tombstones == len(ledger), report.differences
                    with Memory(into, embedder="hash") as target:
                        check_nothing_comes_back(target, source, ledger, salt, live_before)
                return
            made = mem.backup(tmp_path / "moved.bak")
    # A backup restored onto a new path, or onto an empty store that has a salt of its own.
    into = tmp_path / "moved.db"
    if path == "restore_empty":
        Memory(str(into), embedder="hash").close()
    restore_store(into, made.path, reason="moving")
    with Memory(str(into), embedder="hash") as target:
        check_nothing_comes_back(target, source, ledger, salt, live_before)


LOCAL = [("sqlite", "sqlite", "replay"), ("sqlite", "memory", "replay"), ("memory", "sqlite", "replay"),
         ("memory", "memory", "replay"), ("sqlite", "sqlite", "restore_new"), ("sqlite", "sqlite", "restore_empty"),
         ("sqlite", "sqlite", "restore_older")]
POSTGRES = [("sqlite", "postgres", "replay"), ("postgres", "sqlite", "replay"), ("postgres", "postgres", "replay"),
            ("memory", "postgres", "replay"), ("postgres", "memory", "replay")]


@settings(max_examples=min(settings().max_examples, int(os.environ.get("HLMEM_MOVE_EXAMPLES", 14))))
# Found by Hypothesis: an event added and forgotten after the backup is absent from the restored store.
@example(pair=("sqlite", "sqlite", "restore_older"), history=[("add", TEXTS[0], "s1"), ("forget_any", 0)],
         backup_after=0)
@example(pair=("sqlite", "sqlite", "restore_older"), history=[("remember", CLAIMS[1]), ("forget_any", 0)],
         backup_after=0)
@given(pair=st.sampled_from(LOCAL), history=histories(), backup_after=st.integers(0, 12))
def test_no_forgotten_text_or_claim_comes_back_after_a_move(tmp_path_factory: pytest.TempPathFactory, pair: tuple,
                                                          history: list[tuple], backup_after: int) -> None:
    move_and_check(tmp_path_factory.mktemp("move"), None, *pair, history, backup_after)


@settings(max_examples=int(os.environ.get("HLMEM_PG_MOVE_EXAMPLES", 5)))
@given(pair=st.sampled_from(POSTGRES), history=histories())
def test_no_forgotten_text_or_claim_comes_back_after_a_move_through_postgresql(
        tmp_path_factory: pytest.TempPathFactory, postgres_admin_url: str, pair: tuple, history: list[tuple]) -> None:
    move_and_check(tmp_path_factory.mktemp("move"), postgres_admin_url, *pair, history, 0)
