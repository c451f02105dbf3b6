"""Extractor adapters for the pipeline: the rule extractor (default) and the LLM extractor."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo

from hlmem.application.extraction.guard import Tagger
from hlmem.application.ports import LLM
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.relation_mentions import RelationMention
from hlmem.domain.slots import SlotRegistry


class RuleExtractor:
    """Deterministic patterns for common Chinese and English statements; no model, no cost."""

    name = "rules"

    def __init__(self, registry: SlotRegistry, *, tagger: Tagger | None = None) -> None:
        """:param tagger: a Chinese part-of-speech tagger for the precision guard (the composition
        root passes jieba's, adapters/text/pos.py); None keeps the lexical checks only."""
        self._registry = registry
        self._tagger = tagger

    def extract(self, events: Sequence[SourceEvent], *, job_id: str | None = None) -> list[CandidateClaim]:
        from hlmem.application.extraction.rules import extract

        return extract(events, self._registry, tagger=self._tagger)


class LLMExtractor:
    """One structured LLM call per window; strict parsing of its JSON."""

    def __init__(self, llm: LLM, registry: SlotRegistry, *, tz: tzinfo | None = None) -> None:
        self._llm = llm
        self._registry = registry
        self._tz = tz  # the user's zone: "昨天" is a day in their calendar, not in UTC

    @property
    def name(self) -> str:
        return f"llm:{self._llm.model_id}"

    def extract(self, events: Sequence[SourceEvent], *, job_id: str | None = None) -> list[CandidateClaim]:
        from hlmem.application.extraction.prompt import build_messages, parse_extraction

        system, user, schema = build_messages(events, self._registry, tz=self._tz)
        raw = self._llm.complete_json(system, user, schema, operation="extract", job_id=job_id)
        return parse_extraction(raw, events, extractor=self.name, tz=self._tz)

    def extract_relations(self, events: Sequence[SourceEvent], *,
                          job_id: str | None = None) -> tuple[list[CandidateClaim], list[RelationMention]]:
        """The same one call as :meth:`extract`, also asked for the relations the events state
        (ADR 0093): the claims, and the relations as the model wrote them (checked against the text
        by the pipeline)."""
        import json

        from hlmem.application.extraction.prompt import build_messages, decode_json_object, parse_extraction
        from hlmem.application.extraction.relation_prompt import parse_relations, relation_instructions, with_relations

        system, user, schema = build_messages(events, self._registry, tz=self._tz)
        raw = self._llm.complete_json(system + relation_instructions(), user, with_relations(schema),
                                      operation="extract", job_id=job_id)
        obj = decode_json_object(raw) if isinstance(raw, str) else raw
        text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str)
        claims = parse_extraction(obj, events, extractor=self.name, tz=self._tz)
        return claims, parse_relations(obj, events, extractor=self.name, text=text)


_AUDIT_SCHEMA = {
    "type": "object",
    "properties": {"same": {"type": "boolean"}},
    "required": ["same"],
    "additionalProperties": False,
}
_AUDIT_SYSTEM = (
    "You compare two values of the same memory slot. Answer JSON {\"same\": true} only if they state "
    "exactly the same fact in different words; any difference in numbers, versions, dates, names, "
    "places, negation or meaning means {\"same\": false}."
)


class LLMDedupAuditor:
    """The optional LLM audit of dedup's gray zone (off by default; one small call per pair)."""

    def __init__(self, llm: LLM) -> None:
        self._llm = llm

    def same_claim(self, new: str, existing: str, *, job_id: str | None = None) -> bool:
        answer = self._llm.complete_json(_AUDIT_SYSTEM, f"A: {existing}\nB: {new}", _AUDIT_SCHEMA,
                                         operation="dedup_audit", job_id=job_id)
        return answer.get("same") is True
