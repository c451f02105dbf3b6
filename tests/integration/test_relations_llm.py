"""Relations from the configured LLM's extraction call (ADR 0093), against a real OpenAI-compatible
HTTP server on 127.0.0.1, scripted per test.

With relations enabled, the one call a window makes anyway also asks for relations; what the text
bears out waits in the review queue with the event as its evidence, what it does not is refused
with reason codes in the window's extraction record. Off: the call and the store are as before.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from support.llm_server import ScriptedLLMServer, completion  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.domain.events import ExtractionRecorded  # noqa: E402

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
MODEL = "scripted-model"
TEXT = "Anna, my older sister, just moved to Berlin with her cat Miso."


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as srv:
        yield srv


def open_memory(path: Path, server: ScriptedLLMServer, *, relations: bool) -> Memory:
    llm = {"provider": "local", "base_url": server.base_url, "model": MODEL, "max_retries": 0, "timeout_s": 5.0}
    return Memory(path, embedder="none", now=T0, llm=llm,
                  settings=Settings.from_mapping({"relations": {"enabled": relations}}))


def relation(source: str, rel: str, target: str, kind: str, quote: str, event: int = 1) -> dict[str, Any]:
    return {"event": event, "source": source, "relation": rel, "target": target, "target_kind": kind,
            "evidence_quote": quote}


CLAIM = {"event": 1, "subject": "user's sister", "predicate": "lives_in", "value": "Berlin", "qualifiers": [],
         "polarity": True, "importance": 0.6, "scope": "permanent", "valid_from": None, "valid_to": None,
         "evidence_quote": "just moved to Berlin"}
ANSWER = {"claims": [CLAIM], "relations": [
    relation("user", "sibling", "Anna", "person", "Anna, my older sister"),
    relation("Anna", "owns", "Miso", "pet", "her cat Miso"),
    relation("user", "friend", "Bob", "person", "my friend Bob"),          # not in the text
    relation("Anna", "works_at", "Berlin", "place", "moved to Berlin"),   # works_at needs an organisation
    relation("Anna", "lives_in", "Berlin", "organisation", "moved to Berlin"),  # lives_in needs a place
]}


def records(mem: Memory) -> list[ExtractionRecorded]:
    return [s.event for s in mem.storage.read() if isinstance(s.event, ExtractionRecorded)]


def test_the_one_extraction_call_also_names_relations_and_the_text_decides(tmp_path: Path,
                                                                           server: ScriptedLLMServer) -> None:
    with open_memory(tmp_path / "m.db", server, relations=True) as mem:
        server.script(completion(ANSWER))
        added = mem.add(TEXT, session="s1")
        assert len(server.requests) == 1, "no second call for relations"
        body = server.requests[0].json()
        assert 'under "relations"' in body["messages"][0]["content"] and "target_kind" in body["messages"][0]["content"]
        edges = {(r.source_name, r.relation, r.target_name): r for r in mem.relations.list()}
        assert set(edges) >= {("user", "sibling", "Anna"), ("Anna", "owns", "Miso")}
        from_llm = {k for k, r in edges.items() if any(rule.startswith("llm:") for rule in r.rules)}
        assert from_llm == {("user", "sibling", "Anna"), ("Anna", "owns", "Miso")}, edges
        anna = edges[("user", "sibling", "Anna")]
        assert anna.status == "proposed" and anna.evidence == (added.id,)
        assert f"llm:local:{MODEL}" in anna.rules
        [record] = records(mem)
        refused = dict(record.rejected)
        assert refused["relation · user —friend→ Bob"] == ("relation.quote_not_found", "relation.name_not_in_text")
        assert refused["relation · Anna —lives_in→ Berlin"] == ("relation.kind_mismatch",)
        assert refused["relation · Anna —works_at→ Berlin"] == ("relation.kind_mismatch",)
        # Reviewed like any edge; forgetting its event forgets it.
        assert mem.relations.accept(anna.relation_id).relation.status == "accepted"
        mem.forget(added.id)
        assert mem.relations.get(anna.relation_id).relation.status == "forgotten"


def test_off_the_call_asks_for_no_relations_and_nothing_is_proposed(tmp_path: Path,
                                                                    server: ScriptedLLMServer) -> None:
    with open_memory(tmp_path / "m.db", server, relations=False) as mem:
        server.script(completion(ANSWER))  # a model that volunteers relations anyway
        mem.add(TEXT, session="s1")
        body = server.requests[0].json()
        assert 'under "relations"' not in body["messages"][0]["content"]
        assert "target_kind" not in str(body)
        assert mem.relations.list() == [] and len(mem.storage.claims_citing(records(mem)[0].source_events[0])) == 1


def test_a_relation_off_the_schema_refuses_the_answer_and_keeps_the_event(tmp_path: Path,
                                                                          server: ScriptedLLMServer) -> None:
    with open_memory(tmp_path / "m.db", server, relations=True) as mem:
        server.script(completion({"claims": [CLAIM], "relations": [relation("user", "bestie", "Anna", "person", "x")]}))
        added = mem.add(TEXT, session="s1")
        [job] = [j for j in mem.jobs.jobs(limit=100) if j.payload["event_id"] == added.id]
        assert (job.state, job.last_error_class) == ("failed", "MalformedResponse")
        assert "relation must be one of the listed types" in job.last_error
        assert mem.relations.list() == [] and mem.storage.claims_citing(added.id) == []
        assert added.id in mem.storage.get_observations([added.id])


def test_an_answer_without_a_relations_list_keeps_its_claims(tmp_path: Path, server: ScriptedLLMServer) -> None:
    with open_memory(tmp_path / "m.db", server, relations=True) as mem:
        server.script(completion({"claims": [CLAIM]}))
        added = mem.add(TEXT, session="s1")
        assert len(mem.storage.claims_citing(added.id)) == 1
