"""Context packets: recalled facts rendered for an agent's prompt, never over a token budget (format v1).

The format is documented in ``docs/packet.md``. One header line, then one line per item, best
first, each with its validity and evidence; a last line says what was left out::

    memory v1 (best first; times UTC)
    - 用户 · 偏好主题 · 浅色 [current, valid 2026-03-01/..; id cl_2; evidence ev_2]
    - 用户 · 偏好主题 · 深色 [superseded, valid 2025-06-01/2026-03-01; id cl_1; evidence ev_1]
    [truncated: 1 cut, 3 omitted]

The packet is a prefix of the ranking: items are taken in the order given until one does not
fit; that one is cut at a safe boundary when at least :data:`MIN_CUT_CHARS` of its text fit, and
it and everything after it are otherwise omitted. No I/O, no clock: ``now`` is an argument.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from functools import partial
from typing import Protocol

from attrs import evolve, field, frozen

from hlmem.application.token_estimate import LineCounter, estimate_tokens
from hlmem.domain.errors import ValidationError
from hlmem.domain.time import require_aware

#: The packet format's version, written in the header; bump it on any change a parser would notice.
FORMAT_VERSION = 1
HEADER = f"memory v{FORMAT_VERSION} (best first; times UTC)"
#: The header of a packet whose events show no id (``build_packet(event_ids=False)``).
HEADER_NO_EVENT_IDS = f"memory v{FORMAT_VERSION} (best first; times UTC; events without ids)"
#: A cut item keeps at least this many characters of its text, else it is omitted instead.
MIN_CUT_CHARS = 12
#: At most this many evidence ids are listed per item; the rest are counted (``+3``).
MAX_EVIDENCE_IDS = 2
CUT_MARK = "…"

TokenCounter = Callable[[str], int]
#: The label of a derived item's line; its evidence are the ids of the claims it was built from.
DERIVED_LABELS = {"mental_model": "profile", "observation_summary": "summary"}


class Recalled(Protocol):
    """What :meth:`PacketItem.from_recall` reads: the fields of ``hlmem.application.recall.RecallItem``."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def evidence(self) -> tuple[str, ...]: ...
    @property
    def status(self) -> str | None: ...
    @property
    def valid_from(self) -> datetime | None: ...
    @property
    def valid_to(self) -> datetime | None: ...
    @property
    def occurred_at(self) -> datetime | None: ...
    @property
    def history(self) -> bool: ...


@frozen(kw_only=True)
class PacketItem:
    """One fact or event to put in a packet. ``evidence`` are the ids of the observations behind it."""

    id: str
    text: str
    kind: str = "claim"  # claim | event | policy | procedure | episode | mental_model | observation_summary
    status: str | None = None  # active | superseded | retracted | …, as stored
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    occurred_at: datetime | None = None
    evidence: tuple[str, ...] = field(default=(), converter=tuple)
    score: float | None = None
    #: An event whose every extracted value no longer holds (recall's ``RecallItem.history``, ADR 0060).
    history: bool = False

    @classmethod
    def from_recall(cls, item: Recalled) -> PacketItem:
        """The packet item of a recalled claim or event."""
        return cls(id=item.id, text=item.text, kind=item.kind, status=item.status, valid_from=item.valid_from,
                   valid_to=item.valid_to, occurred_at=item.occurred_at, evidence=item.evidence, score=item.score,
                   history=getattr(item, "history", False))


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

    @property
    def truncated(self) -> bool:
        """Whether anything was cut or left out."""
        return bool(self.cut or self.omitted)


# --- rendering -------------------------------------------------------------------------------------

_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def _one_line(text: str) -> str:
    """``text`` on one line: a newline inside an item must not start a line that looks like another item."""
    return " ".join(_LINE_BREAKS.sub(" ", text).split())


def _when(value: datetime) -> str:
    v = value.astimezone(timezone.utc)
    if (v.hour, v.minute, v.second, v.microsecond) == (0, 0, 0, 0):
        return f"{v:%Y-%m-%d}"
    return f"{v:%Y-%m-%dT%H:%MZ}"


def _label(item: PacketItem, now: datetime) -> str:
    if item.kind == "event":
        return "event"
    if item.kind in DERIVED_LABELS:  # a profile or summary, served only while current (ADR 0084)
        return DERIVED_LABELS[item.kind]
    if item.kind in ("policy", "procedure", "episode"):  # the experience channel (docs/experience.md)
        return item.kind if (item.status or "active") == "active" else f"{item.kind}, {_one_line(item.status)}"
    status = _one_line(item.status or "active") or "active"
    if status != "active":
        return status
    if item.valid_to is not None and item.valid_to <= now:
        return "ended"
    if item.valid_from is not None and item.valid_from > now:
        return "future"
    return "current"


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


# --- cutting ---------------------------------------------------------------------------------------

_JOINERS = frozenset("._:/\\@'’+#&%-")
_CN_NUMERALS = frozenset("零〇一二两三四五六七八九十百千万亿")
_CLAUSE_ENDS = frozenset("。！？；.!?;，,、")


def _glued(a: str, b: str) -> bool:
    """Whether a cut between ``a`` and ``b`` would split a word, number, version, path or grapheme."""
    if unicodedata.category(b).startswith("M") or b in "\u200d\ufe0f\ufe0e" or a == "\u200d":
        return True
    if "\U0001f3fb" <= b <= "\U0001f3ff" or ("\U0001f1e6" <= a <= "\U0001f1ff" and "\U0001f1e6" <= b <= "\U0001f1ff"):
        return True
    word = lambda c: (c.isalnum() and not _is_cjk(c)) or c in _JOINERS  # noqa: E731
    return (word(a) and word(b)) or (a in _CN_NUMERALS and b in _CN_NUMERALS)


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return 0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x3FFFF


def safe_cuts(text: str) -> list[int]:
    """Positions where ``text`` may be cut without splitting a word, number, version or grapheme."""
    return [i for i in range(1, len(text)) if not _glued(text[i - 1], text[i])]


def _longest(candidates: Sequence[int], fits: Callable[[int], bool]) -> int | None:
    """The largest candidate that ``fits`` (bisection; only a checked candidate is ever returned)."""
    lo, hi, best = 0, len(candidates) - 1, None
    while lo <= hi:  # token counts grow with the text, so the longest that fits is found by bisection
        mid = (lo + hi) // 2
        if fits(candidates[mid]):
            best, lo = candidates[mid], mid + 1
        else:
            hi = mid - 1
    return best


def _longest_prefix(n: int, fits: Callable[[int], bool]) -> int:
    """The largest ``k`` in 1..n for which ``fits(k)`` holds (0: none), galloping from the start (1, 2,
    4, …) and then bisecting: a small budget looks at its first few items only, a large one at
    O(log n) prefixes, as plain bisection does."""
    good, step = 0, 1
    while step <= n and fits(step):
        good, step = step, step * 2
    lo, hi = good + 1, min(step, n + 1) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(mid):
            good, lo = mid, mid + 1
        else:
            hi = mid - 1
    return good


def _cut_text(body: str, fits: Callable[[str], bool]) -> str | None:
    """The longest safe prefix of ``body`` (at least :data:`MIN_CUT_CHARS` long) for which ``fits`` holds."""
    cuts = [i for i in safe_cuts(body) if i >= MIN_CUT_CHARS]
    best = _longest(cuts, lambda i: fits(body[:i].rstrip()))
    if best is None:
        return None
    # Prefer ending on a sentence or clause when one ends in the last 30% of what fits.
    for i in range(best, max(MIN_CUT_CHARS, int(best * 0.7)) - 1, -1):
        if body[i - 1] in _CLAUSE_ENDS and (i == len(body) or not _glued(body[i - 1], body[i])):
            if fits(body[:i].rstrip()):
                return body[:i].rstrip()
            break
    return body[:best].rstrip()


# --- building --------------------------------------------------------------------------------------

#: Item texts are shortened to this many characters per budget token before anything is counted, so
#: a huge event costs no more time than the budget allows (no tokenizer packs 16 characters of
#: one-line text into each token of a whole line).
CHARS_PER_TOKEN_CAP = 16


def build_packet(items: Iterable[PacketItem], *, budget_tokens: int, now: datetime,
                 count_tokens: TokenCounter = estimate_tokens, max_item_tokens: int | None = None,
                 event_ids: bool = True, leave_out_history: bool = False) -> Packet:
    """Render ``items`` (best first) as a packet of at most ``budget_tokens`` tokens by ``count_tokens``.

    The items shown are a prefix of ``items``; the first that does not fit whole is cut at a safe
    boundary if at least :data:`MIN_CUT_CHARS` of its text fit, and is otherwise left out with
    everything after it. The whole text is what is counted, so any counter works, additive or not.

    :param items: packet items in rank order (see :meth:`PacketItem.from_recall`); the order is kept.
    :param budget_tokens: the most tokens the text may cost; a budget too small for the header and
        one item gives an empty text (with every item omitted).
    :param now: the instant "current" and "ended" are judged at; must be timezone-aware.
    :param count_tokens: the tokenizer's count (of a text alone: ``count_tokens("")`` must be 0), or
        the default :func:`estimate_tokens` upper estimate.
    :param max_item_tokens: when set, an item whose line costs more is cut to that many tokens first
        (items after it may still follow); an item that cannot be cut that short ends the packet.
    :param event_ids: False leaves the ids out of events' lines (claims keep theirs), under the header
        :data:`HEADER_NO_EVENT_IDS`: about a third more MemDaily notes fit a budget, but what the agent
        reads can no longer name an event to ``feedback`` or ``forget`` (``Packet.included`` still does).
    :param leave_out_history: a packet for a question about now: items marked ``history`` (events
        recording only values that no longer hold) are left out before anything is taken, and
        listed in ``Packet.history``; the packet is a prefix of the rest.
    :raises ValidationError: for a negative budget or ``max_item_tokens``, or a naive ``now``.
    """
    if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 0:
        raise ValidationError("budget_tokens must be a non-negative integer", field="budget_tokens")
    if max_item_tokens is not None and (isinstance(max_item_tokens, bool) or not isinstance(max_item_tokens, int)
                                        or max_item_tokens < 1):
        raise ValidationError("max_item_tokens must be a positive integer", field="max_item_tokens")
    now = require_aware(now, field="now")
    if count_tokens is estimate_tokens:
        count_tokens = LineCounter()  # the same counts, each line read once
    pool = list(items)
    history = tuple(i.id for i in pool if i.history) if leave_out_history else ()
    if history:
        pool = [i for i in pool if not i.history]
        return evolve(_build(pool, budget_tokens, now, count_tokens, max_item_tokens, bool(event_ids)),
                      history=history)
    return _build(pool, budget_tokens, now, count_tokens, max_item_tokens, bool(event_ids))


def _build(pool: list[PacketItem], budget_tokens: int, now: datetime, count_tokens: TokenCounter,
           max_item_tokens: int | None, event_ids: bool) -> Packet:
    render = partial(render_item, event_ids=event_ids)
    limit = CHARS_PER_TOKEN_CAP * min(budget_tokens, max_item_tokens or budget_tokens) + 64
    bodies, lines, cut = [], [], set()
    for position, item in enumerate(pool):
        body = _shorten(_one_line(item.text), limit)
        line: str | None = render(item, now, text=body) if body != _one_line(item.text) else render(item, now)
        if max_item_tokens is not None and count_tokens(line) > max_item_tokens:
            prefix = _cut_text(body, lambda t, i=item: count_tokens(render(i, now, text=t)) <= max_item_tokens)
            line = None if prefix is None else render(item, now, text=prefix)
        if line is None:
            break  # it cannot be shown under the per-item cap: the packet stays a prefix of the ranking
        if line != render(item, now):
            cut.add(position)
        bodies.append(body)
        lines.append(line)
    header = HEADER if event_ids else HEADER_NO_EVENT_IDS
    return _assemble(pool, bodies, lines, cut, budget_tokens, now, count_tokens, max_item_tokens, render, header)


def _shorten(body: str, limit: int) -> str:
    """``body`` cut at the last safe boundary within ``limit`` characters (unchanged when shorter)."""
    if len(body) <= limit:
        return body
    ends = [i for i in safe_cuts(body[:limit + 1]) if i <= limit]
    return body[:ends[-1] if ends else limit].rstrip()


def _assemble(pool: Sequence[PacketItem], bodies: list[str], lines: list[str], cut: set[int], budget: int,
              now: datetime, count: TokenCounter, cap: int | None, render: Callable[..., str] = render_item,
              header: str = HEADER) -> Packet:
    """The longest prefix of ``lines`` that fits with its truncation line, plus the next item cut to fit."""
    total = len(pool)

    def text(shown: list[str], cuts: int) -> str:
        omitted = total - len(shown)
        return "\n".join([header, *shown] + ([footer(cuts, omitted)] if cuts or omitted else []))

    def cuts_in(k: int) -> int:
        return sum(1 for p in cut if p < k)

    def fits(k: int) -> bool:
        return count(text(lines[:k], cuts_in(k))) <= budget

    k = _longest_prefix(len(lines), fits)
    shown = lines[:k]
    if k < len(lines):
        item, body = pool[k], bodies[k]
        def fits_cut(t: str) -> bool:
            line = render(item, now, text=t)
            return (cap is None or count(line) <= cap) and count(text([*shown, line], cuts_in(k) + 1)) <= budget

        prefix = _cut_text(body, fits_cut)
        if prefix is not None:
            shown = [*shown, render(item, now, text=prefix)]
            cut = cut | {k}
    k = len(shown)
    if k == 0:
        return Packet(text="", tokens=0, budget=budget, included=(), cut=(), omitted=tuple(i.id for i in pool))
    final = text(shown, sum(1 for p in cut if p < k))
    tokens = count(final)
    if tokens > budget:  # only a counter that is not monotone can get here: give up the last item
        return _assemble(pool, bodies[:k - 1], lines[:k - 1], {p for p in cut if p < k - 1}, budget, now, count, cap,
                         render, header)
    return Packet(text=final, tokens=tokens, budget=budget, included=tuple(i.id for i in pool[:k]),
                  cut=tuple(pool[p].id for p in sorted(cut) if p < k), omitted=tuple(i.id for i in pool[k:]))
