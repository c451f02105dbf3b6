"""What each MCP tool returns: the wire format's JSON shapes (adapters/wire/), typed for ``outputSchema``.

The dicts themselves come from :mod:`hlmem.adapters.wire` (the shapes every front end answers
with, ADR 0076); this module adds only the top-level ``TypedDict``s the SDK turns into each
tool's output JSON schema. Nested items stay ``dict[str, Any]``: their fields are the wire
format's and are documented once, in docs/cli.md and docs/mcp.md.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import NotRequired, TypedDict


class RecallOut(TypedDict):
    """``memory_recall``: the CLI's ``recall --json``."""

    items: list[dict[str, Any]]
    valid_at: str | None
    known_at: str | None
    notes: list[str]
    intent: NotRequired[dict[str, Any]]
    packet: NotRequired[dict[str, Any]]


class WriteOut(TypedDict):
    """A claim write (``remember``, ``feedback``): the CLI's ``remember --json``."""

    id: str
    outcome: str
    position: int


class SaveOut(WriteOut):
    """``memory_save``: the CLI's ``add --json`` (the claims extracted inline)."""

    claims: list[dict[str, Any]]


class CorrectOut(WriteOut):
    """``memory_correct``: the new claim's write, the claim it corrected, whether that was retracted."""

    corrected: str
    retracted: bool


class ItemOut(TypedDict):
    """``memory_get``: ``{"kind": "claim", "claim": …}`` or ``{"kind": "event", "event": …}``."""

    kind: str
    claim: NotRequired[dict[str, Any]]
    event: NotRequired[dict[str, Any]]


class HistoryOut(TypedDict):
    """``memory_history``: the CLI's ``history --json``, oldest first."""

    items: list[dict[str, Any]]


class ExplainOut(TypedDict):
    """``memory_explain``: the CLI's ``explain --json`` (its keys depend on ``kind``)."""

    kind: str
    id: NotRequired[str]
    forgotten_at: NotRequired[str | None]
    claim: NotRequired[dict[str, Any]]
    evidence: NotRequired[list[dict[str, Any]]]
    missing_evidence: NotRequired[list[str]]
    chain: NotRequired[list[dict[str, Any]]]
    event: NotRequired[dict[str, Any]]
    cited_by: NotRequired[list[dict[str, Any]]]


class ForgetOut(TypedDict):
    """``memory_forget``: the CLI's ``forget --json``."""

    target_kind: str
    target: str
    namespace: str
    forget_id: str | None
    dry_run: bool
    already_forgotten: bool
    forgotten_at: str | None
    counts: dict[str, int]
    items: list[str]
    notes: list[str]
    erasure_pending: bool


class EpisodeOut(TypedDict):
    """An episode: the CLI's ``episode show --json`` (``steps`` in order; left out where a write answers)."""

    id: str
    namespace: str
    goal: str
    signature: str
    context: str
    approach: str
    status: str
    started_at: str | None
    ended_at: str | None
    reward: float | None
    outcome: str
    cost: float
    step_count: int
    steps: NotRequired[list[dict[str, Any]]]


class StepOut(EpisodeOut):
    """``memory_episode_step``: the CLI's ``episode step --json``, the episode and the ``step`` just added."""

    step: dict[str, Any]


class EndOut(EpisodeOut):
    """``memory_episode_end``: the CLI's ``episode end --json``, the episode and the policy/procedure ``changes``."""

    changes: list[dict[str, Any]]


class EpisodePageOut(TypedDict):
    """``memory_episode_list``: episodes without their traces, and the next page's cursor (null on the last)."""

    items: list[dict[str, Any]]
    next_cursor: str | None


class PoliciesOut(TypedDict):
    """``memory_policies``: the CLI's ``episode policies --json``, each with support and reliability."""

    items: list[dict[str, Any]]


class ProceduresOut(TypedDict):
    """``memory_procedures``: the CLI's ``episode procedures --json``, every version."""

    items: list[dict[str, Any]]


class RelationPageOut(TypedDict):
    """``memory_relation_list``: the CLI's ``relations list --json``: edges and the next page's cursor."""

    items: list[dict[str, Any]]
    next_cursor: str | None


class RelationOut(TypedDict):
    """One relation: the CLI's ``relations show --json`` (``evidence_items`` as they stand now)."""

    id: str
    namespace: str
    relation: str
    status: str
    source: dict[str, Any]
    target: dict[str, Any]
    evidence: list[str]
    rules: list[str]
    valid_from: str | None
    valid_to: str | None
    proposed_at: str | None
    reviewed_at: str | None
    reviewed_by: str | None
    review_reason: str | None
    retired_reason: str | None
    version: int
    live: bool
    evidence_items: list[dict[str, Any]]
