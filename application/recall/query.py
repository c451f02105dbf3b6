"""The recall request, read once: a frozen :class:`RecallQuery` every recall stage takes (ADR 0031).

:func:`read_query` validates the caller's arguments, reads the query's time intent and settles
the instants to filter at and the text to search; the stages of :mod:`hlmem.application.recall`
then read only this object.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from attrs import frozen

from hlmem.application.entity_constraint import ENTITY_CONSTRAINT_MODES
from hlmem.application.ports import Clock
from hlmem.application.ranking import RankingConfig
from hlmem.domain import temporal
from hlmem.domain.commands import check_namespace
from hlmem.domain.errors import ValidationError
from hlmem.domain.list_intent import asks_for_many
from hlmem.domain.query_understanding import QueryIntent, TimeMode, merge, understand
from hlmem.domain.time import require_aware

#: Longest query, in characters.
MAX_QUERY_CHARS = 2_000
#: Most items one recall returns.
MAX_K = 200
#: ``k`` when the caller gives none and asks for no packet.
DEFAULT_K = 10
#: With a packet ``budget`` and no ``k``, recall asks for one item per this many tokens of budget
#: (at least :data:`DEFAULT_K`, at most :data:`MAX_K`), per packet format, so the packet, a prefix
#: of the items, is filled by its budget rather than cut short by ``k``. A line costs about what it
#: says here or more: v1 60–115 estimated tokens on LoCoMo and MemDaily (a turn and its brackets,
#: ADR 0082), v2 about 50 on MemDaily and 70 on LoCoMo (no ids, the day written once; ADR 0097).
#: Asking for many more items than fit costs time and lets the final signals reorder a wider set
#: (docs/benchmarks/cost-effect.md, "How many items a packet asks for").
TOKENS_PER_ITEM_BY_VERSION = {1: 80, 2: 40}
#: The default packet format's (v2's) :data:`TOKENS_PER_ITEM_BY_VERSION`.
TOKENS_PER_ITEM = TOKENS_PER_ITEM_BY_VERSION[2]


@frozen(kw_only=True)
class RecallQuery:
    """One recall request, validated and read: what every stage of a recall takes.

    :param text: the query as written (embedded, reranked, searched by archived claims).
    :param search_text: what full text searches (the query without 现在/之前/used to words).
    :param pool: candidates asked of each source.
    :param current: the query asks about now or an instant: the newest visible memory ranks first.
    :param history: the query asks about the past (and no explicit ``valid_at``).
    :param window: the period the query names (``[start, end)``), ranked first, nothing hidden.
    :param clock_now: the clock's now (the default ``known_at``; when accesses are recorded).
    :param many: the query asks for a count or a list (:mod:`hlmem.domain.list_intent`): the best
        items are spread across sessions.
    """

    text: str
    search_text: str
    k: int
    namespace: str
    kinds: tuple[str, ...]
    include_archived: bool
    entity_constraint: str
    budget: int | None
    now: datetime
    clock_now: datetime
    valid_at: datetime
    known_at: datetime
    intent: QueryIntent | None
    config: RankingConfig
    pool: int
    current: bool
    history: bool
    window: tuple[datetime | None, datetime | None] | None
    many: bool = False
    notes: tuple[str, ...] = ()

    @property
    def events(self) -> bool:
        """Whether events are asked for (the conversation stages run only then)."""
        return "event" in self.kinds

    @property
    def shown(self) -> int:
        """How many visible items the final signals see: a few more than ``k``, so that they and
        folding can reorder among them."""
        return self.k + max(5, self.k // 2)

    @property
    def also_visible(self) -> tuple[datetime | None, datetime | None] | None:
        """Besides what is visible at ``valid_at``: claims that held in this period (history: any
        time before ``valid_at``; a named period: in it)."""
        return (None, self.valid_at) if self.history else self.window


def default_k(budget: int | None, packet_version: int = 2) -> int:
    """The ``k`` of a recall that names none: :data:`DEFAULT_K`, or with a packet ``budget`` one item
    per :data:`TOKENS_PER_ITEM_BY_VERSION` tokens of it for the packet's format, between
    :data:`DEFAULT_K` and :data:`MAX_K`."""
    if budget is None:
        return DEFAULT_K
    per_item = TOKENS_PER_ITEM_BY_VERSION.get(packet_version, TOKENS_PER_ITEM)
    return min(MAX_K, max(DEFAULT_K, -(-budget // per_item)))


def read_query(query: str, *, k: int | None, namespace: str, valid_at: datetime | None, known_at: datetime | None,
               kinds: Sequence[str], include_archived: bool, understand_query: bool, entity_constraint: str,
               budget: int | None, now: datetime | None, clock: Clock, config: RankingConfig,
               packet_version: int = 2) -> RecallQuery:
    """Validate a recall's arguments and read its query (see ``RecallService.recall`` for each one).

    :raises ValidationError: for an empty or over-long query, a bad ``k`` or namespace, naive times
        (an ``ExceptionGroup`` of them when several are wrong).
    """
    problems = []
    if not isinstance(query, str) or not query.strip():
        problems.append(ValidationError("query is empty", field="query"))
    elif len(query) > MAX_QUERY_CHARS:
        problems.append(ValidationError(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}",
                                        field="query"))
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K):
        problems.append(ValidationError(f"k must be between 1 and {MAX_K}", field="k"))
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 0):
        problems.append(ValidationError("budget must be a whole number of tokens, 0 or more", field="budget"))
    if isinstance(packet_version, bool) or packet_version not in TOKENS_PER_ITEM_BY_VERSION:
        versions = ", ".join(map(str, TOKENS_PER_ITEM_BY_VERSION))
        problems.append(ValidationError(f"packet_version must be one of {versions}, not {packet_version!r}",
                                        field="packet_version"))
    problems += check_namespace(namespace)
    bad_kinds = set(kinds) - {"claim", "event"}
    if bad_kinds or not kinds:
        problems.append(ValidationError(f"kinds must be claim and/or event, not {sorted(bad_kinds)}", field="kinds"))
    if entity_constraint not in ENTITY_CONSTRAINT_MODES:
        problems.append(ValidationError(f"entity_constraint must be one of {ENTITY_CONSTRAINT_MODES}",
                                        field="entity_constraint"))
    if problems:
        raise problems[0] if len(problems) == 1 else ExceptionGroup("invalid recall", problems)
    count = default_k(budget, packet_version) if k is None else k
    clock_now = clock.now()
    # Days and months are read in the zone the caller's ``now`` is given in (the user's, when known);
    # every instant kept is UTC.
    local_now = now
    now = require_aware(now, field="now") if now is not None else clock_now
    local_now = local_now if local_now is not None else now
    explicit_valid = require_aware(valid_at, field="valid_at") if valid_at else None
    explicit_known = require_aware(known_at, field="known_at") if known_at else None
    notes: list[str] = []
    intent = None
    if understand_query:
        intent = merge(understand(query, now=local_now, times=temporal), valid_at=explicit_valid,
                       known_at=explicit_known)
    valid, known, search_text = _instants(intent, query, now, clock_now, explicit_valid, explicit_known, notes)
    # "now" and "at T" both ask for the latest state up to an instant: the newest visible memory
    # is the best witness of it (everything visible happened by then). A named period ("in
    # June") instead favours what happened or held within it.
    current = intent is not None and intent.time_mode in (TimeMode.CURRENT, TimeMode.AT)
    vrange = intent.valid_range if intent is not None and explicit_valid is None else None
    cue = asks_for_many(query) if understand_query else None
    if cue is not None and config.spread_weight > 0:
        notes.append(f"list question ({cue!r}): the best items are spread across sessions")
    return RecallQuery(
        text=query, search_text=search_text, k=count, namespace=namespace, kinds=tuple(kinds),
        include_archived=include_archived, entity_constraint=entity_constraint, budget=budget, now=now,
        clock_now=clock_now, valid_at=valid, known_at=known, intent=intent, config=config, pool=max(50, count * 5),
        current=current, history=intent is not None and intent.time_mode is TimeMode.HISTORY and explicit_valid is None,
        window=(vrange.start, vrange.end) if vrange is not None else None, many=cue is not None, notes=tuple(notes))


def _instants(intent: QueryIntent | None, query: str, now: datetime, clock_now: datetime,
              explicit_valid: datetime | None, explicit_known: datetime | None,
              notes: list[str]) -> tuple[datetime, datetime, str]:
    """The (valid_at, known_at) to filter at and the text to search: explicit ones win, then inferred,
    then the reference time ``now`` (valid) and the clock (known: what memory has learnt so far)."""
    if intent is None:
        return explicit_valid or now, explicit_known or clock_now, query
    valid_at, known_at = explicit_valid or now, explicit_known or clock_now
    if explicit_valid is None and intent.as_of and intent.valid_at is not None:
        # "as of <date>" asks for the state then, in valid time: what held or happened after it is hidden.
        valid_at = intent.valid_at
        notes.append(f"inferred valid_at={valid_at.isoformat()} from the query (as of)")
    if explicit_valid is None and intent.time_mode is TimeMode.AT and intent.valid_range is not None:
        # A soft filter: "5月15日" may be a value asked about, not a time; what held in the
        # period is visible too and ranks first, nothing is hidden.
        vr = intent.valid_range
        notes.append(f"inferred period [{vr.start and vr.start.isoformat()}, {vr.end and vr.end.isoformat()}) "
                     "from the query: what held in it ranks first")
    if explicit_known is None and intent.known_at is not None:
        known_at = min(intent.known_at, clock_now)
        notes.append(f"inferred known_at={known_at.isoformat()} from the query")
    if intent.time_mode is TimeMode.HISTORY and explicit_valid is None:
        notes.append("inferred history: values that held before now rank first")
    elif intent.time_mode is TimeMode.CURRENT:
        notes.append("inferred current: the newest of equally relevant memories ranks first")
    # 现在/之前/used to say which value, never what about: the full text searches the rest. A
    # date may be what is asked about ("谁生日5月15日？"): then the query is searched as written.
    if intent.time_mode in (TimeMode.CURRENT, TimeMode.HISTORY) and intent.cleaned_query.strip():
        return valid_at, known_at, intent.cleaned_query
    return valid_at, known_at, query
