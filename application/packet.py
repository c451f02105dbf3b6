"""Context packets: recalled facts rendered for an agent's prompt, never over a token budget.

The formats are documented in ``docs/packet.md``. Version 2 (the default, :mod:`.packet_v2`; ADR
0092) spends its tokens on content: facts first, then events grouped by day with the day and time
written once, each line opening with a short handle ``[n]`` instead of ids::

    memory v2 (times UTC; [n] = n-th best, named fxqwtzk.n)
    [1] 用户 · 偏好主题 · 浅色 [current 2026-03-01/..]
    2026-02-27 Fri 08:30 (2 days ago):
    [2] 我下个月要搬到杭州。

Version 1 (``version=1``) writes one line per item, best first, each with its validity, id and
evidence ids::

    memory v1 (best first; times UTC)
    - 用户 · 偏好主题 · 浅色 [current, valid 2026-03-01/..; id cl_2; evidence ev_2]
    [truncated: 1 cut, 3 omitted]

Either way the items shown are a prefix of the ranking: items are taken in the order given until
one does not fit; that one is cut at a safe boundary when at least :data:`MIN_CUT_CHARS` of its
text fit, and it and everything after it are otherwise omitted. No I/O, no clock: ``now`` is an
argument.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from attrs import evolve, frozen

from hlmem.application import packet_v2
from hlmem.application.packet_cut import MIN_CUT_CHARS, cut_text, longest_prefix, safe_cuts
from hlmem.application.packet_item import DERIVED_LABELS, PacketItem, Recalled, label, one_line, when
from hlmem.application.token_estimate import LineCounter, estimate_tokens
from hlmem.domain.errors import ValidationError
from hlmem.domain.time import require_aware

__all__ = ["CUT_MARK", "DERIVED_LABELS", "FORMAT_VERSION", "FORMAT_VERSIONS", "HEADER", "HEADER_NO_EVENT_IDS",
           "MIN_CUT_CHARS", "Packet", "PacketItem", "Recalled", "build_packet", "estimate_tokens", "footer",
           "render_item", "safe_cuts"]

#: The default packet format's version, written in its header (v2: ``packet_v2``). A change a parser
#: would notice makes a new version; every version stays buildable (``build_packet(version=…)``).
FORMAT_VERSION = packet_v2.VERSION
FORMAT_VERSIONS = (1, 2)
#: The header of a version 1 packet.
HEADER = "memory v1 (best first; times UTC)"
#: The header of a version 1 packet whose events show no id (``build_packet(version=1, event_ids=False)``).
HEADER_NO_EVENT_IDS = "memory v1 (best first; times UTC; events without ids)"
#: At most this many evidence ids are listed per item (v1); the rest are counted (``+3``).
MAX_EVIDENCE_IDS = 2
CUT_MARK = "…"
_longest_prefix = longest_prefix  # the name the tests knew

TokenCounter = Callable[[str], int]


@frozen(kw_only=True)
class Packet:
    """A rendered packet: ``text`` is what goes into the prompt, ``tokens`` its count (≤ ``budget``)."""

    text: str
    tokens: int
    budget: int
    included: tuple[str, ...]  # ids of the items in the text, in order
    cut: tuple[str, ...]  # ids of included items whose text was shortened (at most the last one)
    omitted: tuple[str, ...]  # ids of the items left out, in order
    version: int = FORMAT_VERSION
    #: ids of history items left out of a current-time packet (``leave_out_history``), in order.
    history: tuple[str, ...] = ()
    #: v2: the tag of the handles in the text (``[3]`` is named ``<tag>.3``); "" for v1 or an empty text.
    tag: str = ""

    @property
    def truncated(self) -> bool:
        """Whether anything was cut or left out."""
        return bool(self.cut or self.omitted)

    def resolve(self, handle: str) -> str | None:
        """The id a v2 handle of this packet names (``<tag>.3``: ``included[2]``), None when it names none."""
        parsed = packet_v2.parse_handle(handle)
        if not self.tag or parsed is None or parsed[0] != self.tag or parsed[1] > len(self.included):
            return None
        return self.included[parsed[1] - 1]


# --- rendering (format v1) ---------------------------------------------------------------------------

_one_line, _when, _label = one_line, when, label


def _meta(item: PacketItem, now: datetime, cut: bool, event_ids: bool = True) -> str:
    parts = [_label(item, now)]
    if item.kind == "event":
        if item.occurred_at is not None:
            parts[0] += f", said {_when(item.occurred_at)}"
    elif item.valid_from is not None or item.valid_to is not None:
        start = _when(item.valid_from) if item.valid_from else ".."
        end = _when(item.valid_to) if item.valid_to else ".."
        parts[0] += f", valid {start}/{end}"
    if item.kind == "event" and not event_ids:  # an event is its own evidence: nothing else to show
        return "[" + "; ".join([*parts, "cut"] if cut else parts) + "]"
    parts.append(f"id {_one_line(item.id)}")
    evidence = [_one_line(e) for e in item.evidence if e != item.id]
    if item.kind != "event" or evidence:
        listed = ", ".join(evidence[:MAX_EVIDENCE_IDS]) or "none"
        more = len(evidence) - MAX_EVIDENCE_IDS
        parts.append(f"evidence {listed}" + (f" +{more}" if more > 0 else ""))
    if cut:
        parts.append("cut")
    return "[" + "; ".join(parts) + "]"


def render_item(item: PacketItem, now: datetime, *, text: str | None = None, event_ids: bool = True) -> str:
    """One packet line; ``text`` replaces the item's text (a cut prefix, which gets the cut mark);
    without ``event_ids`` an event's line shows no id (nor the ids of duplicates folded into it)."""
    body = _one_line(item.text) or "(empty)"
    if text is not None:
        return f"- {text}{CUT_MARK} {_meta(item, now, True, event_ids)}"
    return f"- {body} {_meta(item, now, False, event_ids)}"


def footer(cut: int, omitted: int) -> str:
    """The last line of a truncated packet: how many items were cut short and how many left out."""
    said = ([f"{cut} cut"] if cut else []) + ([f"{omitted} omitted"] if omitted else [])
    return f"[truncated: {', '.join(said)}]"


# --- building --------------------------------------------------------------------------------------

#: Item texts are shortened to this many characters per budget token before anything is counted, so
#: a huge event costs no more time than the budget allows (no tokenizer packs 16 characters of
#: one-line text into each token of a whole line).
CHARS_PER_TOKEN_CAP = 16
Entry = packet_v2.Entry  # (position in the items, the cut text shown or None for the whole text)


def build_packet(items: Iterable[PacketItem], *, budget_tokens: int, now: datetime,
                 count_tokens: TokenCounter = estimate_tokens, max_item_tokens: int | None = None,
                 event_ids: bool = True, leave_out_history: bool = False, version: int = FORMAT_VERSION) -> Packet:
    """Render ``items`` (best first) as a packet of at most ``budget_tokens`` tokens by ``count_tokens``.

    The items shown are a prefix of ``items``; the first that does not fit whole is cut at a safe
    boundary if at least :data:`MIN_CUT_CHARS` of its text fit, and is otherwise left out with
    everything after it. The whole text is what is counted, so any counter works, additive or not.

    :param items: packet items in rank order (see :meth:`PacketItem.from_recall`); the order is kept
        in ``Packet.included`` (and, in v1, in the text; v2 groups events by day, each line led by
        its rank).
    :param budget_tokens: the most tokens the text may cost; a budget too small for the header and
        one item gives an empty text (with every item omitted).
    :param now: the instant "current" and "ended" are judged at; must be timezone-aware.
    :param count_tokens: the tokenizer's count (of a text alone: ``count_tokens("")`` must be 0), or
        the default :func:`estimate_tokens` upper estimate.
    :param max_item_tokens: when set, an item whose line costs more is cut to that many tokens first
        (items after it may still follow); an item that cannot be cut that short ends the packet.
    :param event_ids: v1 only: False leaves the ids out of events' lines (claims keep theirs), under
        the header :data:`HEADER_NO_EVENT_IDS`. A v2 packet shows no ids at all, only handles.
    :param leave_out_history: a packet for a question about now: items marked ``history`` (events
        recording only values that no longer hold) are left out before anything is taken, and
        listed in ``Packet.history``; the packet is a prefix of the rest.
    :param version: the format, 2 (the default, ADR 0092) or 1 (docs/packet.md).
    :raises ValidationError: for a negative budget or ``max_item_tokens``, an unknown version, or a
        naive ``now``.
    """
    if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 0:
        raise ValidationError("budget_tokens must be a non-negative integer", field="budget_tokens")
    if max_item_tokens is not None and (isinstance(max_item_tokens, bool) or not isinstance(max_item_tokens, int)
                                        or max_item_tokens < 1):
        raise ValidationError("max_item_tokens must be a positive integer", field="max_item_tokens")
    if isinstance(version, bool) or version not in FORMAT_VERSIONS:
        raise ValidationError(f"packet version must be one of {', '.join(map(str, FORMAT_VERSIONS))}, "
                              f"not {version!r}", field="version")
    now = require_aware(now, field="now")
    if count_tokens is estimate_tokens:
        count_tokens = LineCounter()  # the same counts, each line read once
    pool = list(items)
    history = tuple(i.id for i in pool if i.history) if leave_out_history else ()
    if history:
        pool = [i for i in pool if not i.history]
    layout = _V1(now, bool(event_ids)) if version == 1 else _V2(now)
    packet = _build(pool, budget_tokens, count_tokens, max_item_tokens, layout)
    return evolve(packet, history=history) if history else packet


class _V1:
    """Format v1: a header, one line per item in rank order (:func:`render_item`), the truncation line."""

    version = 1

    def __init__(self, now: datetime, event_ids: bool) -> None:
        self.now, self.event_ids = now, event_ids
        self.header = HEADER if event_ids else HEADER_NO_EVENT_IDS

    def line(self, item: PacketItem, position: int, text: str | None = None) -> str:
        return render_item(item, self.now, text=text, event_ids=self.event_ids)

    def text(self, pool: Sequence[PacketItem], entries: Sequence[Entry], end: str | None) -> str:
        lines = [self.header, *(self.line(pool[p], p, t) for p, t in entries)]
        return "\n".join([*lines, end] if end else lines)

    def tag(self, ids: Sequence[str]) -> str:
        return ""


class _V2:
    """Format v2 (:mod:`.packet_v2`): facts, then events grouped by day, each line led by its handle."""

    version = 2

    def __init__(self, now: datetime) -> None:
        self.now = now

    def line(self, item: PacketItem, position: int, text: str | None = None) -> str:
        return packet_v2.item_line(item, position, self.now, text)

    def text(self, pool: Sequence[PacketItem], entries: Sequence[Entry], end: str | None) -> str:
        return packet_v2.render(pool, entries, self.now, end)

    def tag(self, ids: Sequence[str]) -> str:
        return packet_v2.packet_tag(ids)


def _build(pool: list[PacketItem], budget_tokens: int, count_tokens: TokenCounter, max_item_tokens: int | None,
           layout: _V1 | _V2) -> Packet:
    """Each item's text as it may be shown (shortened to what the budget could ever hold, or cut to
    ``max_item_tokens``), then the longest prefix that fits (:func:`_assemble`)."""
    limit = CHARS_PER_TOKEN_CAP * min(budget_tokens, max_item_tokens or budget_tokens) + 64
    bodies: list[str] = []
    shown: list[Entry] = []
    for position, item in enumerate(pool):
        whole = one_line(item.text)
        body = _shorten(whole, limit)
        text: str | None = None if body == whole else body
        if max_item_tokens is not None and count_tokens(layout.line(item, position, text)) > max_item_tokens:
            text = cut_text(body, lambda t, i=item, p=position: count_tokens(layout.line(i, p, t)) <= max_item_tokens)
            if text is None:
                break  # it cannot be shown under the per-item cap: the packet stays a prefix of the ranking
        bodies.append(body)
        shown.append((position, text))
    return _assemble(pool, bodies, shown, budget_tokens, count_tokens, max_item_tokens, layout)


def _shorten(body: str, limit: int) -> str:
    """``body`` cut at the last safe boundary within ``limit`` characters (unchanged when shorter)."""
    if len(body) <= limit:
        return body
    ends = [i for i in safe_cuts(body[:limit + 1]) if i <= limit]
    return body[:ends[-1] if ends else limit].rstrip()


def _assemble(pool: Sequence[PacketItem], bodies: list[str], entries: list[Entry], budget: int,
              count: TokenCounter, cap: int | None, layout: _V1 | _V2) -> Packet:
    """The longest prefix of ``entries`` that fits with its truncation line, plus the next item cut to fit."""
    total = len(pool)

    def text(shown: Sequence[Entry]) -> str:
        cuts, omitted = sum(1 for _, t in shown if t is not None), total - len(shown)
        return layout.text(pool, shown, footer(cuts, omitted) if cuts or omitted else None)

    k = longest_prefix(len(entries), lambda n: count(text(entries[:n])) <= budget)
    shown = entries[:k]
    if k < len(entries):
        item, body = pool[k], bodies[k]

        def fits_cut(t: str) -> bool:
            return ((cap is None or count(layout.line(item, k, t)) <= cap)
                    and count(text([*shown, (k, t)])) <= budget)

        prefix = cut_text(body, fits_cut)
        if prefix is not None:
            shown = [*shown, (k, prefix)]
    k = len(shown)
    if k == 0:
        return Packet(text="", tokens=0, budget=budget, included=(), cut=(), omitted=tuple(i.id for i in pool),
                      version=layout.version)
    final = text(shown)
    tokens = count(final)
    if tokens > budget:  # only a counter that is not monotone can get here: give up the last item
        return _assemble(pool, bodies[:k - 1], entries[:k - 1], budget, count, cap, layout)
    included = tuple(i.id for i in pool[:k])
    return Packet(text=final, tokens=tokens, budget=budget, included=included,
                  cut=tuple(pool[p].id for p, t in shown if t is not None), omitted=tuple(i.id for i in pool[k:]),
                  version=layout.version, tag=layout.tag(included))
