"""Someone else's fact said with a pronoun never supersedes the user's own (ADR 0094).

Through ``Memory.add`` (the write pipeline on SQLite): the rule extractor makes no claim from
"她现在在腾讯上班了", and a scripted LLM that gives it to the user anyway is refused by admission
with ``admission.pronoun_user_subject``, recorded in the window's extraction record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hlmem import Memory
from hlmem.application.extraction.prompt import system_prompt
from hlmem.domain.events import ExtractionRecorded
from hlmem.domain.queries import current

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def employer_now(mem: Memory, subject: str = "用户") -> list[str]:
    return sorted(c.value for c in current(mem.history(subject, "employer"), mem.clock.now()))


def test_a_pronoun_never_supersedes_the_users_employer(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="none", now=T0) as mem:
        mem.add("我在字节跳动上班", session="s1")
        assert employer_now(mem) == ["字节跳动"]
        mem.clock.advance(timedelta(days=1))
        said = mem.add("她现在在腾讯上班了", session="s1")
        assert employer_now(mem) == ["字节跳动"]
        assert mem.storage.claims_citing(said.id) == []
        assert said.id in mem.storage.get_observations([said.id])  # the event itself is kept, verbatim


def test_a_pronoun_after_a_named_person_in_the_same_event_is_theirs(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="none", now=T0) as mem:
        mem.add("I work at Stripe.", session="s1")
        mem.clock.advance(timedelta(days=1))
        mem.add("My brother Tom moved to Tokyo. He works at Sony.", session="s1")
        assert employer_now(mem, "user") == ["Stripe"]
        assert employer_now(mem, "Tom") == ["Sony"]


class ScriptedLLM:
    """An LLM that gives every event's text to the user as their employer (a pronoun's fact)."""

    model_id = "scripted:pronoun"

    def __init__(self) -> None:
        self.systems: list[str] = []

    def complete_json(self, system: str, user: str, schema: Mapping[str, Any], *, operation: str,
                      job_id: str | None = None) -> dict[str, Any]:
        self.systems.append(system)
        events = json.loads(user.split("\n", 1)[1])["events"]
        claims = []
        for e in events:
            value = "腾讯" if "腾讯" in e["text"] else "字节跳动"
            claims.append({"event": e["event"], "subject": "用户", "predicate": "employer", "value": value,
                           "qualifiers": [], "polarity": True, "importance": 0.8, "scope": "permanent",
                           "valid_from": None, "valid_to": None, "evidence_quote": e["text"]})
        return {"claims": claims}


def test_an_llm_giving_a_pronouns_fact_to_the_user_is_refused_with_a_reason(tmp_path: Path) -> None:
    llm = ScriptedLLM()
    with Memory(tmp_path / "m.db", embedder="none", now=T0, llm=llm) as mem:
        mem.add("我在字节跳动上班", session="s1")
        mem.clock.advance(timedelta(days=1))
        said = mem.add("她现在在腾讯上班了", session="s1")
        assert employer_now(mem) == ["字节跳动"]
        (record,) = [s.event for s in mem.storage.read()
                     if isinstance(s.event, ExtractionRecorded) and said.id in s.event.source_events]
        assert [reasons for _, reasons in record.rejected] == [("admission.pronoun_user_subject",)]
    assert "never" in llm.systems[-1] and "他" in llm.systems[-1]  # the prompt says it too


def test_the_prompt_says_a_pronoun_is_never_the_user() -> None:
    text = system_prompt(speaker="用户")
    assert "third-person pronoun" in text and "is never" in text and "leave the claim out" in text
