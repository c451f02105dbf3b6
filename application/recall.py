"""Recall: full-text and vector candidates fused with RRF, filtered by the two clocks and namespace."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from attrs import field, frozen

from hlmem.application.ports import Candidate, Clock, Embedder, Storage
from hlmem.domain.commands import check_namespace
from hlmem.domain.errors import ValidationError
from hlmem.domain.queries import row_at
from hlmem.domain.time import require_aware

#: The RRF constant: 60, as in Cormack et al. (2009); large k flattens rank differences.
RRF_K = 60
#: Longest query, in characters.
MAX_QUERY_CHARS = 2_000
#: Most items one recall returns.
MAX_K = 200


@frozen(kw_only=True)
class RecallItem:
    """One recalled claim or event, with why it ranked (its per-source ranks) and its clocks."""

    id: str
    kind: str
    text: str
    score: float
    ranks: dict[str, int] = field(factory=dict)
    evidence: tuple[str, ...] = ()
    subject: str | None = None
    predicate: str | None = None
    value: str | None = None
    qualifiers: tuple[tuple[str, str], ...] = ()
    polarity: bool | None = None
    status: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_from: datetime | None = None
    recorded_to: datetime | None = None
    occurred_at: datetime | None = None
    session_id: str | None = None
    role: str | None = None


@frozen
class RecallResult:
    """Items best first, with the instants they were filtered at, and notes on degraded paths."""

    items: tuple[RecallItem, ...]
    valid_at: datetime
    known_at: datetime
    notes: tuple[str, ...] = ()


def rrf(rankings: dict[str, Sequence[Candidate]], k: int = RRF_K) -> list[tuple[str, float, dict[str, int]]]:
    """Reciprocal-rank fusion: ``sum(1 / (k + rank))`` over the rankings an item appears in."""
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for source, candidates in rankings.items():
        for cand in candidates:
            scores[cand.item_id] = scores.get(cand.item_id, 0.0) + 1.0 / (k + cand.rank)
            ranks.setdefault(cand.item_id, {})[source] = cand.rank
    fused = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(item_id, score, ranks[item_id]) for item_id, score in fused]


class RecallService:
    """Answers "what do we remember about …" as of any (valid, known) instant."""

    def __init__(self, storage: Storage, clock: Clock, embedder: Embedder | None = None) -> None:
        self._storage = storage
        self._clock = clock
        self._embedder = embedder

    def recall(self, query: str, *, k: int = 10, namespace: str = "default", valid_at: datetime | None = None,
               known_at: datetime | None = None, kinds: Sequence[str] = ("claim", "event")) -> RecallResult:
        """Return up to ``k`` items relevant to ``query`` that held at ``valid_at`` as known at ``known_at``.

        :param valid_at: the world time asked about (default now).
        :param known_at: the knowledge time asked about (default now).
        :raises ValidationError: for an empty or over-long query, a bad ``k`` or namespace, naive times.
        """
        problems = []
        if not isinstance(query, str) or not query.strip():
            problems.append(ValidationError("query is empty", field="query"))
        elif len(query) > MAX_QUERY_CHARS:
            problems.append(ValidationError(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}",
                                            field="query"))
        if not isinstance(k, int) or not 1 <= k <= MAX_K:
            problems.append(ValidationError(f"k must be between 1 and {MAX_K}", field="k"))
        problems += check_namespace(namespace)
        bad_kinds = set(kinds) - {"claim", "event"}
        if bad_kinds or not kinds:
            problems.append(ValidationError(f"kinds must be claim and/or event, not {sorted(bad_kinds)}", field="kinds"))
        if problems:
            raise problems[0] if len(problems) == 1 else ExceptionGroup("invalid recall", problems)
        now = self._clock.now()
        valid_at = require_aware(valid_at, field="valid_at") if valid_at else now
        known_at = require_aware(known_at, field="known_at") if known_at else now

        pool = max(50, k * 5)
        rankings: dict[str, list[Candidate]] = {"text": self._storage.text_candidates(namespace, query, pool)}
        notes: list[str] = []
        model = self._storage.vector_model()
        if self._embedder is not None and model is not None:
            if model != (self._embedder.model_id, self._embedder.dim):
                # Never compare vectors of two models: fall back to full text and say so.
                notes.append(f"vector search skipped: the store's vectors are {model[0]}, the embedder is "
                             f"{self._embedder.model_id} (run `hlmem reembed` to switch)")
            else:
                vector = self._embedder.embed_queries([query])[0].astype("<f4").tobytes()
                rankings["vector"] = self._storage.vector_candidates(namespace, vector, pool)
        kinds_of = {c.item_id: c.kind for cands in rankings.values() for c in cands}
        fused = [f for f in rrf(rankings) if kinds_of[f[0]] in kinds]
        chosen = self._first_visible(fused, k, valid_at, known_at)
        return RecallResult(tuple(self._items(chosen, kinds_of, valid_at, known_at)), valid_at, known_at,
                            tuple(notes))

    def _first_visible(self, fused: list[tuple[str, float, dict[str, int]]], k: int, valid_at: datetime,
                       known_at: datetime) -> list[tuple[str, float, dict[str, int]]]:
        """The first ``k`` fused items visible at (valid_at, known_at), in fused order.

        Visibility is asked of the best items first, in growing slices, since most of the
        fused pool is never shown; the result is the same as filtering the whole pool.
        """
        chosen: list[tuple[str, float, dict[str, int]]] = []
        start, step = 0, 2 * k
        while len(chosen) < k and start < len(fused):
            part = fused[start:start + step]
            keep = self._storage.visible([f[0] for f in part], valid_at, known_at)
            chosen += [f for f in part if f[0] in keep]
            start += step
            step *= 2
        return chosen[:k]

    def _items(self, chosen, kinds_of, valid_at, known_at) -> list[RecallItem]:
        claim_ids = [i for i, _, _ in chosen if kinds_of[i] == "claim"]
        event_ids = [i for i, _, _ in chosen if kinds_of[i] == "event"]
        claims = self._storage.get_claims(claim_ids)
        events = self._storage.get_observations(event_ids)
        items = []
        for item_id, score, ranks in chosen:
            if item_id in claims:
                c = claims[item_id]
                row = row_at(c, valid_at, known_at) or c.versions[-1]
                items.append(RecallItem(
                    id=item_id, kind="claim", text=render_claim(c.subject, c.predicate, c.value, c.qualifiers, c.polarity),
                    score=score, ranks=ranks, evidence=c.evidence, subject=c.subject, predicate=c.predicate,
                    value=c.value, qualifiers=c.qualifiers, polarity=c.polarity, status=c.status.value,
                    valid_from=row.valid_from, valid_to=row.valid_to, recorded_from=row.recorded_from,
                    recorded_to=row.recorded_to,
                ))
            elif item_id in events:
                e = events[item_id]
                items.append(RecallItem(
                    id=item_id, kind="event", text=e.text, score=score, ranks=ranks, evidence=(item_id,),
                    occurred_at=e.occurred_at, recorded_from=e.recorded_at, session_id=e.session_id, role=e.role,
                ))
        return items


def render_claim(subject: str, predicate: str, value: str, qualifiers: tuple[tuple[str, str], ...],
                 polarity: bool = True) -> str:
    """One-line human rendering of a claim: ``subject · predicate · value (qualifiers)``."""
    text = f"{subject} · {predicate} · {'NOT ' if not polarity else ''}{value}"
    if qualifiers:
        text += " (" + ", ".join(f"{k}={v}" for k, v in qualifiers) + ")"
    return text
