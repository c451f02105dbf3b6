"""Request bodies of the REST API as pydantic models: the OpenAPI schema and the 422 checks.

Each model only shapes input (types, bounds, no unknown keys); meaning is checked once, by the
``Memory`` facade and the domain below it (a bad timestamp is their 400, not a second rule here).
Timestamps are ISO 8601 strings with a timezone, as the CLI takes them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from hlmem.domain.experience_decisions import (
    MAX_ACTION_CHARS,
    MAX_GOAL_CHARS,
    MAX_OBSERVATION_CHARS,
    MAX_SHORT_CHARS,
    MAX_STEP_EVIDENCE,
)

Text = Field(min_length=1, max_length=100_000)
Name = Field(min_length=1, max_length=1000)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EventIn(_Body):
    """One raw observation (``Memory.add``)."""

    text: str = Text
    session: str = Field("default", min_length=1, max_length=1000)
    role: str = Field("user", min_length=1, max_length=100)
    origin: Literal["direct_user", "agent", "external", "external_derived", "system", "unknown"] = "direct_user"
    session_kind: Literal["interactive", "cron", "heartbeat", "subagent", "unknown"] = "interactive"
    occurred_at: str | None = Field(None, max_length=64)
    namespace: str | None = Field(None, min_length=1, max_length=200)
    extract: bool = True
    process: bool = True


class EventBatchIn(_Body):
    """Up to 500 observations, validated together before the first is written."""

    events: list[EventIn] = Field(min_length=1, max_length=500)


class MemoryIn(_Body):
    """An explicit claim (``Memory.remember``)."""

    subject: str = Name
    predicate: str = Name
    value: str = Text
    qualifiers: dict[str, str] = Field(default_factory=dict, max_length=50)
    coordinates: dict[str, str] = Field(default_factory=dict, max_length=50)
    valid_from: str | None = Field(None, max_length=64)
    valid_to: str | None = Field(None, max_length=64)
    importance: float = Field(0.5, ge=0.0, le=1.0)
    scope: Literal["permanent", "temporal"] = "permanent"
    polarity: bool = True
    cardinality: Literal["single", "multi"] | None = None
    evidence: list[str] = Field(default_factory=list, max_length=100)
    namespace: str | None = Field(None, min_length=1, max_length=200)


class CorrectIn(_Body):
    """A new value for an active claim (``Memory.correct``)."""

    value: str = Text
    valid_from: str | None = Field(None, max_length=64)
    evidence: list[str] = Field(default_factory=list, max_length=100)
    reason: str = Field("", max_length=2000)


class RetractIn(_Body):
    """Why a claim is no longer believed."""

    reason: str = Field("", max_length=2000)


class ForgetIn(_Body):
    """Forget exactly one of an id, a session or a subject (``Memory.forget``)."""

    id: str | None = Field(None, min_length=1, max_length=200)
    session: str | None = Field(None, min_length=1, max_length=1000)
    subject: str | None = Field(None, min_length=1, max_length=1000)
    namespace: str | None = Field(None, min_length=1, max_length=200)
    dry_run: bool = False
    reason: str = Field("", max_length=2000)


class RecallIn(_Body):
    """A recall (``Memory.recall``); ``budget`` adds the context packet (docs/packet.md);
    ``format="packet"`` answers with the packet's text alone (``text/plain``; needs ``budget``)."""

    query: str = Field(min_length=1, max_length=10_000)
    #: How many items at most; none: 10, or with ``budget`` one per 40 tokens of it (80 for a v1 packet; up to 200).
    k: int | None = Field(None, ge=1, le=200)
    valid_at: str | None = Field(None, max_length=64)
    known_at: str | None = Field(None, max_length=64)
    now: str | None = Field(None, max_length=64)
    namespace: str | None = Field(None, min_length=1, max_length=200)
    #: Only this session's events (claims are not per session).
    session: str | None = Field(None, min_length=1, max_length=200)
    kinds: list[Literal["claim", "event"]] = Field(default_factory=lambda: ["claim", "event"], min_length=1,
                                                   max_length=2)
    include_archived: bool = False
    understand_query: bool = True
    entity_constraint: Literal["enforce", "observe", "off"] = "enforce"
    budget: int | None = Field(None, ge=0, le=1_000_000)
    #: The packet's format (docs/packet.md): 2 (default; handles such as ``fxqwtzk.3``, which this
    #: server resolves wherever an id is taken, ADR 0092) or 1 (ids on every line).
    packet_version: Literal[1, 2] | None = None
    format: Literal["json", "packet"] = "json"
    #: ``auto``: a how-to question also returns active procedures and policies; ``procedure``:
    #: look for them whatever the wording; ``facts``: never (docs/experience.md).
    intent: Literal["auto", "procedure", "facts"] = "auto"


class ResolveIn(_Body):
    """A decision on a conflict, on the version the caller saw (a stale one is 409)."""

    decision: Literal["keep-new", "keep-old", "coexist"]
    expected_version: int | None = Field(None, ge=0)


class RelationReviewIn(_Body):
    """A review decision on a relation (docs/relations.md): why, and who decided."""

    reason: str = Field("", max_length=2000)
    actor: str = Field("api", min_length=1, max_length=200)


class RelationScanIn(_Body):
    """Which namespace to scan for relations (the server's default when left out)."""

    namespace: str | None = Field(None, min_length=1, max_length=200)


class FeedbackIn(_Body):
    """Whether a recalled claim or event helped."""

    item_id: str = Field(min_length=1, max_length=200)
    verdict: Literal["helpful", "unhelpful"]
    actor: str = Field("user", min_length=1, max_length=200)
    reason: str = Field("", max_length=2000)


class BackupIn(_Body):
    """A backup into the server's backup directory (``[server] backup_dir``): ``name`` is a plain
    file name (``.db`` is added when missing); without one the server names the file after the
    store and the time. The caller never chooses the folder (ADR 0059)."""

    name: str | None = Field(None, max_length=1000, description=(
        "A plain file name such as 'nightly.db' (letters, digits, '.', '-', '_'); none: the server names it."))

    @model_validator(mode="before")
    @classmethod
    def _no_path(cls, data: object) -> object:
        if isinstance(data, dict) and "path" in data:
            raise PydanticCustomError("path_refused", "'path' is not accepted: the server writes backups only into "
                                      "its backup directory ([server] backup_dir); give at most a plain file name "
                                      "as 'name'")
        return data


class EpisodeIn(_Body):
    """Begin an episode towards ``goal`` (``mem.episodes.start``); ``context`` refines the situation."""

    goal: str = Field(min_length=1, max_length=MAX_GOAL_CHARS)
    context: str = Field("", max_length=MAX_SHORT_CHARS)
    approach: str = Field("", max_length=MAX_SHORT_CHARS)
    namespace: str | None = Field(None, min_length=1, max_length=200)
    started_at: str | None = Field(None, max_length=64)


class StepIn(_Body):
    """One step of a running episode's trace (``mem.episodes.step``); ``evidence`` cites events (``ev_…``)."""

    action: str = Field(min_length=1, max_length=MAX_ACTION_CHARS)
    tool: str = Field("", max_length=MAX_SHORT_CHARS)
    observation: str = Field("", max_length=MAX_OBSERVATION_CHARS)
    error: str = Field("", max_length=MAX_SHORT_CHARS)
    cost: float = Field(0.0, ge=0.0)
    value: float | None = Field(None, ge=-1.0, le=1.0)
    evidence: list[str] = Field(default_factory=list, max_length=MAX_STEP_EVIDENCE)
    occurred_at: str | None = Field(None, max_length=64)


class EpisodeEndIn(_Body):
    """How a running episode ended (``mem.episodes.end``): once, with a reward in 0..1."""

    status: Literal["succeeded", "failed", "cancelled"]
    reward: float | None = Field(None, ge=0.0, le=1.0)
    outcome: str = Field("", max_length=MAX_OBSERVATION_CHARS)
    approach: str = Field("", max_length=MAX_SHORT_CHARS)


class EpisodeForgetIn(_Body):
    """Forget an episode with its cascade (``mem.episodes.forget``); ``dry_run`` only reports."""

    dry_run: bool = False
    reason: str = Field("", max_length=2000)
