"""Relations in the LLM extraction call: the instructions, the schema's ``relations`` list, its parser.

When relations are enabled and an LLM is configured, the one extraction call a window makes
anyway also asks for the relations its events state (ADR 0093): never a second call. The answer
is read as strictly as its claims (:mod:`hlmem.application.extraction.prompt`): a relation off the
schema (a missing key, a wrong type, an unknown edge type or kind, an event number out of range)
refuses the whole answer; what the text does not bear out is refused one mention at a time by
:func:`hlmem.domain.relation_mentions.check_mention`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hlmem.application.extraction.prompt import answer_item
from hlmem.domain.candidates import SourceEvent
from hlmem.domain.errors import MalformedResponse
from hlmem.domain.relation_mentions import TARGET_KINDS, RelationMention
from hlmem.domain.relations import KINSHIP, RELATION_TYPES, SOCIAL

_RELATION_PROPERTIES: dict[str, Any] = {
    "event": {"type": "integer", "description": "number of the event that states the relation"},
    "source": {"type": "string"},
    "relation": {"type": "string", "enum": sorted(RELATION_TYPES)},
    "target": {"type": "string"},
    "target_kind": {"type": "string", "enum": list(TARGET_KINDS)},
    "evidence_quote": {"type": "string"},
}
REQUIRED_RELATION_KEYS = tuple(_RELATION_PROPERTIES)

def relation_instructions(speaker: str = "user") -> str:
    """The paragraph the extraction instructions gain when relations are asked for."""
    example = '{"source": "%s", "relation": "sibling", "target": "Anna"}' % speaker
    return f"""
Also list the relations between people and things that the events state, under "relations"
(an empty list when none), each:
- event: the number of the event that states it.
- source: a person: "{speaker}" for the speaking user, else the name used ("Tom", "张伟"), or
  for a relative without a name the subject you would use for a claim about them.
- relation: one of {", ".join(KINSHIP)} (kin) or {", ".join(SOCIAL)} (social), read
  "target is source's <relation>" ({example} for "my sister Anna"); or works_at, member_of,
  studies_at (an organisation), lives_in, hometown (a place), owns (a thing or a pet), read
  "source <relation> target".
- target: the other end, by the name used; target_kind: one of {", ".join(TARGET_KINDS)}.
- evidence_quote: an exact, contiguous copy of the words in that event that state it.
Only relations the text states, never guesses; a fact that is also a claim stays a claim too.
"""


def with_relations(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The extraction schema with a required ``relations`` list beside ``claims`` (strict-mode
    compatible: every property required, no extra ones)."""
    out = dict(schema)
    out["required"] = [*schema["required"], "relations"]
    out["properties"] = {**schema["properties"], "relations": {
        "type": "array",
        "items": {"type": "object", "additionalProperties": False, "required": list(REQUIRED_RELATION_KEYS),
                  "properties": _RELATION_PROPERTIES},
    }}
    return out


def parse_relations(obj: Mapping[str, Any], events: Sequence[SourceEvent], *, extractor: str,
                    text: str) -> list[RelationMention]:
    """The ``relations`` of an answer already decoded (``obj``), schema-checked.

    A missing ``relations`` list reads as none (a model that forgot it lost nothing of its claims);
    anything else off the schema refuses the answer.

    :param text: the answer as the model wrote it, kept in the refusal.
    :raises MalformedResponse: a relation off the schema.
    """
    items = obj.get("relations", [])
    if not isinstance(items, list):
        raise MalformedResponse('"relations" must be a list', raw=text)
    return [_mention(item, f"relations[{i}]", events, extractor, text) for i, item in enumerate(items)]


def _mention(item: Any, where: str, events: Sequence[SourceEvent], extractor: str, text: str) -> RelationMention:
    event, bad = answer_item(item, where, REQUIRED_RELATION_KEYS, events, text)
    for key in ("source", "relation", "target", "target_kind", "evidence_quote"):
        if not isinstance(item[key], str):
            raise bad(f"{key} must be a string")
    if item["relation"] not in RELATION_TYPES:
        raise bad(f"relation must be one of the listed types, not {item['relation']!r}")
    if item["target_kind"] not in TARGET_KINDS:
        raise bad(f"target_kind must be one of {', '.join(TARGET_KINDS)}, not {item['target_kind']!r}")
    return RelationMention(event_id=event.event_id, source=item["source"], relation=item["relation"],
                           target=item["target"], target_kind=item["target_kind"], quote=item["evidence_quote"],
                           extractor=extractor)
