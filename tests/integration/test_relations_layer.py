"""Relations end to end (docs/relations.md, ADR 0081): off by default; proposed after each write when
enabled; reviewed; retired with their evidence in the same transaction whatever the setting;
forgotten byte by byte; and never brought back by a new turn, replay, restore or re-import."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem import Memory
from hlmem.adapters.settings import Settings
from hlmem.domain.errors import DomainRuleViolation, NotFound, ValidationError
from hlmem.domain.forgetting import ForgottenContent

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
ON = Settings.from_mapping({"relations": {"enabled": True}})
NAME = "Zephyrine"  # a name nothing else in the store says


def _mem(path, settings: Settings = ON, now=T0) -> Memory:
    return Memory(path, embedder="none", now=now, settings=settings)


def _files_holding(db: Path, needle: str) -> list[str]:
    out = []
    for f in sorted(db.parent.glob(db.name + "*")):
        data = f.read_bytes()
        if needle.encode() in data or json.dumps(needle)[1:-1].encode() in data:
            out.append(f.name)
    return out


def _edges(mem: Memory, status: str | None = None) -> dict[str, str]:
    return {f"{r.source_name}>{r.relation}>{r.target_name}": r.status for r in mem.relations.list(status=status)}


def test_off_by_default_nothing_is_proposed_until_a_scan_or_enabling(tmp_path) -> None:
    with _mem(tmp_path / "m.db", Settings()) as mem:
        mem.add("My sister Anna works at Acme.")
        assert not mem.relations.enabled and mem.relations.list() == [] and mem.relations.counts() == {}
        report = mem.relations.scan()  # claims written while off: proposed on request
        assert report.claims >= 2 and len(report.proposed) == 2 and not report.corroborated
        assert _edges(mem) == {"user>sibling>Anna": "proposed", "Anna>works_at>Acme": "proposed"}
        assert mem.relations.scan().proposed == ()  # idempotent


def test_a_turn_proposes_edges_that_are_reviewed_and_retired_with_their_claim(tmp_path) -> None:
    with _mem(tmp_path / "m.db") as mem:
        mem.add("我表哥张伟在阿里巴巴工作。")
        mem.add("Our cat Miso loves tuna.")
        assert _edges(mem) == {"user>cousin>张伟": "proposed", "张伟>works_at>阿里巴巴": "proposed",
                               "user>owns>Miso": "proposed"}
        cousin = next(r for r in mem.relations.list() if r.relation == "cousin")
        assert cousin.rules == ("text.apposition", "claim.cousin") and cousin.evidence[0].startswith("ev_")
        job = next(r for r in mem.relations.list() if r.relation == "works_at")
        view = mem.relations.accept(job.relation_id, reason="he told me")
        assert view.live and view.relation.status == "accepted" and view.relation.review_reason == "he told me"
        assert [e.status for e in view.evidence] == ["active", "recorded"]
        mem.relations.reject(next(r.relation_id for r in mem.relations.list() if r.relation == "owns"))
        assert mem.relations.list(entity="张伟") and mem.relations.list(entity="Nobody") == []
        assert [r.relation for r in mem.relations.list(status="proposed")] == ["cousin"]
    with _mem(tmp_path / "m.db", Settings(), now=T0 + timedelta(days=3)) as mem:  # relations now off
        mem.add("张伟现在在腾讯工作。")
        after = mem.relations.get(job.relation_id)
        assert after.relation.status == "retired" and after.relation.retired_reason == "superseded"
        assert after.relation.valid_to is not None and not after.live
        assert "张伟>works_at>腾讯" not in _edges(mem)  # off: nothing new is proposed
        with pytest.raises(DomainRuleViolation, match="retired"):
            mem.relations.accept(job.relation_id)
        with pytest.raises(NotFound):
            mem.relations.get("rl_0000")
        with pytest.raises(ValidationError):
            mem.relations.get("cl_0000")
        with pytest.raises(ValidationError):
            mem.relations.list(status="maybe")


def test_forget_takes_an_edges_names_off_the_disk_and_nothing_brings_it_back(tmp_path) -> None:
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        said = mem.add(f"My coworker {NAME} lives in Oslo.").id
        edge = next(r for r in mem.relations.list() if r.relation == "colleague")
        mem.relations.accept(edge.relation_id)
        backup = mem.backup(tmp_path / "before.db")
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert _files_holding(db, NAME)  # the name is on disk, in the edge's rows and events too
        report = mem.forget(said, reason="asked")
        assert not report.erasure_pending
        gone = mem.relations.get(edge.relation_id).relation
        assert (gone.status, gone.source_name, gone.target_name, gone.evidence) == ("forgotten", "", "", ())
        assert not [r for r in mem.relations.list(status=None) if NAME in (r.source_name, r.target_name)]
        # A new turn naming the same edge finds its stream forgotten: it is not proposed again.
        mem.add(f"{NAME} is my colleague, by the way.")
        assert mem.relations.get(edge.relation_id).relation.status == "forgotten"
        with pytest.raises(ForgottenContent):
            mem.add(f"My coworker {NAME} lives in Oslo.")
        assert mem.replay().equal
    # The later turn said the name again; forget that too, then check the bytes.
    with _mem(db) as mem:
        mem.forget(subject=NAME, reason="asked")
        assert mem.relations.counts().get("forgotten", 0) >= 1
    assert _files_holding(db, NAME) == []
    with _mem(db) as mem:  # restoring the earlier backup enforces the ledger on it: the edge stays forgotten
        mem.restore(backup.path, reason="test")
        assert mem.relations.get(edge.relation_id).relation.status == "forgotten"
        assert not [r for r in mem.relations.list(status=None) if NAME in (r.source_name, r.target_name)]
    assert _files_holding(db, NAME) == []


def test_an_import_of_the_forgotten_turn_is_blocked_and_proposes_nothing(tmp_path) -> None:
    with _mem(tmp_path / "m.db") as mem:
        said = mem.add(f"My coworker {NAME} came by.").id
        assert _edges(mem) == {f"user>colleague>{NAME}": "proposed"}
        mem.forget(said)
        lines = tmp_path / "again.jsonl"
        lines.write_text(json.dumps({"type": "observation", "text": f"My coworker {NAME} came by."}) + "\n",
                         encoding="utf-8")
        report = mem.import_file(str(lines))
        assert len(report.blocked) == 1 and report.written == 0
        assert _edges(mem) == {}
