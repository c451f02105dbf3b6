"""Derived items in recall: a profile question's mental model and summary (ADR 0084, docs/recall.md).

Observation summaries and mental models are indexed like claims (full text and vectors; docs/derived.md)
but apart from them: their rows are of kind ``derived`` in the index namespace
:func:`~hlmem.domain.derived.index_namespace` (``default#derived``), so the searches of claims and
events never see them — a derived item never displaces, reorders or even re-weighs the claim that
answers "what is X now".

For a profile question (read by :func:`~hlmem.application.recall.profile_question.read_profile`:
"what do you know about Bob?", "小明这人咋样", "用户的饮食习惯"; ADR 0090) about the present, :func:`profile_items` searches that namespace (full text,
and vectors when the store's model is the embedder's) and reads the subject's items, then puts at
most :data:`TOP` of them first: the summary of the topic asked about (when it names one), then the
mental model, then (no topic) the summaries the searches found. Each carries its sources (claim
ids) as ``evidence``. An item is served only while *current*, when every source claim is visible at
the instant asked about and it was built by the knowledge time asked about. A stale item is never
served: its index row went with its ``DerivedBecameStale`` and the worker rebuilds it; until then
it is left out with a note in ``result.notes``. Any other question costs nothing here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from hlmem.application.recall.items import RecallItem
from hlmem.domain.derived import CURRENT, MENTAL_MODEL, STALE, DerivedState, index_namespace
from hlmem.domain.reducers import DERIVED
from hlmem.domain.profile_intent import ProfileAsk
from hlmem.domain.state import SELF_KEY, subject_key

if TYPE_CHECKING:
    from hlmem.application.ports import Candidate, RecallStore, SearchIndex
    from hlmem.application.recall.query import RecallQuery

#: The rankings a derived item may carry (its ``ranks``), beside its place among the derived (``derived``).
DERIVED_TEXT, DERIVED_VECTOR = "derived_text", "derived_vector"
#: At most this many derived items lead a profile answer.
TOP = 2


def _tokens(key: str) -> frozenset[str]:
    return frozenset(t for t in key.replace("'s", " ").replace("’s", " ").split() if t)


def _is_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in text)


def about(item_subject: str, asked: str) -> int:
    """How well an item's subject matches the subject asked about: 2 the same subject (every name
    of the user is one), 1 one names the other within it ("Bob" in "Bob Smith", 张伟 in 表哥张伟),
    0 another subject (the user is never matched by containment: "user" is not "user's sister")."""
    a, b = subject_key(asked), subject_key(item_subject)
    if a == b:
        return 2
    if SELF_KEY in (a, b) or not a or not b:
        return 0
    if _is_cjk(a) or _is_cjk(b):
        return 1 if (a in b or b in a) else 0
    ta, tb = _tokens(a), _tokens(b)
    return 1 if ta and tb and (ta <= tb or tb <= ta) else 0


def _search_ranks(storage: RecallStore, q: RecallQuery,
                  query_vector: Callable[[], bytes | None] | None) -> dict[str, dict[str, int]]:
    """Each derived item the searches found in the namespace's derived index, with its ranks."""
    namespace = index_namespace(q.namespace)
    rankings: dict[str, Sequence[Candidate]] = {DERIVED_TEXT: storage.text_candidates(namespace, q.search_text, q.pool)}
    search = storage.vector_search(namespace, q.pool) if query_vector is not None else None
    vector = query_vector() if search is not None and query_vector is not None else None
    if search is not None and vector is not None:
        rankings[DERIVED_VECTOR] = search(vector)
    out: dict[str, dict[str, int]] = {}
    for name, found in rankings.items():
        for c in found:
            if c.kind == DERIVED:
                out.setdefault(c.item_id, {})[name] = c.rank
    return out


def served(q: RecallQuery) -> bool:
    """Whether a recall of ``q`` may serve derived items at all: claims asked for, about the present
    (a period still to come is the present's: "下周要跟 Bob 吃饭，帮我回忆下他的情况" plans with what holds now)."""
    ahead = q.window is not None and q.window[0] is not None and q.window[0] >= q.clock_now
    return "claim" in q.kinds and not q.history and (q.window is None or ahead)


def profile_items(storage: RecallStore, q: RecallQuery, query_vector: Callable[[], bytes | None] | None,
                  ask: ProfileAsk | None, *, score: float, notes: list[str]) -> list[RecallItem]:
    """The derived items the profile question ``ask`` gets first (module docstring), or none.

    :param query_vector: the query's vector of the store's model (None: full text only).
    :param ask: whom and which side the question asks about (None: not a profile question)."""
    if ask is None or not served(q):
        return []
    ranks = _search_ranks(storage, q, query_vector)
    found = dict(storage.get_derived(sorted(ranks))) if ranks else {}
    for item in storage.derived_items(q.namespace, subject=ask.subject):
        found.setdefault(item.derived_id, item)
    matched = {i: (m, d) for i, d in found.items() if d.namespace == q.namespace and d.subject
               and (m := about(d.subject, ask.subject))}
    if any(m == 2 for m, _ in matched.values()):  # the subject itself, not the ones naming it
        matched = {i: md for i, md in matched.items() if md[0] == 2}
    stale = sorted(i for i, (_, d) in matched.items() if d.status == STALE)
    if stale:
        notes.append(f"derived: {len(stale)} stale item(s) about {ask.subject!r} left out ({', '.join(stale)}): "
                     "a source claim changed since it was built; the worker rebuilds it")
    live = [d for _, d in matched.values() if d.status == CURRENT and d.built_at <= q.known_at]
    live = _visible(storage, q, live, notes)
    chosen = _order(live, ask, ranks)[:TOP]
    if chosen:
        notes.append(f"derived: a profile question about {ask.subject!r}"
                     + (f" ({ask.family})" if ask.family else "")
                     + f"; {', '.join(d.derived_id for d in chosen)} first, with their sources")
    return [_item(d, score, {**ranks.get(d.derived_id, {}), DERIVED: n})
            for n, d in enumerate(chosen, start=1)]


def _visible(storage: SearchIndex, q: RecallQuery, items: list[DerivedState], notes: list[str]) -> list[DerivedState]:
    """The items every source of which held at the instant asked about (as known then)."""
    sources = sorted({cid for d in items for cid in d.source_ids})
    if not sources:
        return items
    held = storage.visible(sources, q.valid_at, q.known_at)
    kept = [d for d in items if set(d.source_ids) <= held]
    if len(kept) < len(items):
        notes.append(f"derived: {len(items) - len(kept)} item(s) left out: built from claims that did not all "
                     f"hold at {q.valid_at.isoformat()}")
    return kept


def _order(items: list[DerivedState], ask: ProfileAsk, ranks: Mapping[str, Mapping[str, int]]) -> list[DerivedState]:
    """The topic's summary, then the mental model (a question naming a topic gets no other summary);
    else the model, then the summaries the searches found, by their best rank."""
    def key(d: DerivedState) -> tuple:
        topic = ask.family is not None and d.kind != MENTAL_MODEL and d.family == ask.family
        best = min(ranks.get(d.derived_id, {}).values(), default=10**9)
        return (not topic, d.kind != MENTAL_MODEL, best, d.derived_id)
    ordered = sorted(items, key=key)
    if ask.family is not None:  # one topic: its summary and the whole model, no other topic's summary
        return [d for d in ordered if d.kind == MENTAL_MODEL or d.family == ask.family]
    # The whole profile: the model, and a summary only as the searches rank it.
    return [d for d in ordered if d.kind == MENTAL_MODEL or d.derived_id in ranks]


def _item(d: DerivedState, score: float, ranks: dict[str, int]) -> RecallItem:
    return RecallItem(id=d.derived_id, kind=d.kind, text=d.text, score=score, ranks=ranks,
                      evidence=d.source_ids, subject=d.subject, predicate=d.family or None, value=d.label,
                      status=d.status, recorded_from=d.built_at)


def lead_with(derived: Sequence[RecallItem], items: Sequence[RecallItem]) -> list[RecallItem]:
    """The derived items first, then the others (never twice)."""
    if not derived:
        return list(items)
    ids = {d.id for d in derived}
    return [*derived, *(i for i in items if i.id not in ids)]
