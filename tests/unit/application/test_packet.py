"""Context packets in format v1 (``build_packet(version=1)``): never over budget (properties over random items
and budgets), the v1 format, cutting. Format v2, the default, is tested in test_packet_v2.py."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from support.token_counters import COUNTERS, count_words  # noqa: F401 - tests/support

from hlmem.application.packet import (
    CUT_MARK,
    FORMAT_VERSION,
    HEADER,
    MIN_CUT_CHARS,
    Packet,
    PacketItem,
    estimate_tokens,
    footer,
    render_item,
    safe_cuts,
)
from hlmem.application.packet import build_packet as _build_packet
from hlmem.application.recall import RecallItem
from hlmem.domain.errors import InvalidTimestamp, ValidationError

UTC = timezone.utc
NOW = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
DOCS = Path(__file__).resolve().parents[3] / "docs" / "packet.md"


def build_packet(items, **kwargs) -> Packet:
    """Format v1, which these tests describe (v2 is the default)."""
    return _build_packet(items, **{"version": 1, **kwargs})



# --- strategies -----------------------------------------------------------------------------------

_TEXT = st.one_of(
    st.text(max_size=80),
    st.text(alphabet=st.sampled_from(list("我喜欢深色主题北京杭州三百五十，。！？、 ")), max_size=120),
    st.lists(st.sampled_from(["😀", "👍🏽", "👨\u200d👩\u200d👧", "🇨🇳", "é", "e\u0301", "\n", "\t", " ", "v1.2.3", "8080",
                              "a", "Z", "-", "ev_01HX"]), max_size=60).map("".join),
    st.text(alphabet="abcdefghij klmnop.", min_size=200, max_size=3000),  # long strings
    st.just(""),
)
_TIMES = st.none() | st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1),
                                   timezones=st.just(UTC))


@st.composite
def packet_items(draw: st.DrawFn) -> PacketItem:
    kind = draw(st.sampled_from(["claim", "event"]))
    return PacketItem(
        id=draw(st.sampled_from(["cl_", "ev_"])) + draw(st.text(min_size=0, max_size=30)),
        text=draw(_TEXT), kind=kind,
        status=draw(st.sampled_from([None, "active", "superseded", "retracted", "forgotten", "odd\nstatus"])),
        valid_from=draw(_TIMES), valid_to=draw(_TIMES), occurred_at=draw(_TIMES),
        evidence=draw(st.lists(st.text(max_size=30), max_size=6)), score=draw(st.none() | st.floats(0, 1)),
    )


def _check(items: list[PacketItem], budget: int, packet: Packet, count) -> None:
    ids = [item.id for item in items]
    # never over budget, and the reported count is the count of the text
    assert count(packet.text) <= budget
    assert packet.tokens == count(packet.text) and packet.budget == budget
    # order kept: the packet is a prefix of the ranking, and the rest is listed as omitted
    assert list(packet.included) + list(packet.omitted) == ids
    assert set(packet.cut) <= set(packet.included)
    # truncated iff something was cut or dropped
    assert packet.truncated == bool(packet.cut or packet.omitted)
    assert packet.truncated == (len(packet.included) < len(items) or bool(packet.cut))
    if not packet.included:
        assert packet.text == ""
        return
    lines = packet.text.split("\n")
    assert lines[0] == HEADER
    shown = lines[1:-1] if packet.truncated else lines[1:]
    assert len(shown) == len(packet.included)
    for line, item in zip(shown, items):
        if item.id in packet.cut:
            assert CUT_MARK + " [" in line and line.endswith("; cut]")
        else:
            assert line == render_item(item, NOW)
    if packet.truncated:
        assert lines[-1] == footer(len(packet.cut), len(packet.omitted))


# --- the budget is never exceeded -----------------------------------------------------------------

@given(items=st.lists(packet_items(), max_size=12, unique_by=lambda i: i.id), budget=st.integers(0, 4000),
       counter=st.sampled_from(sorted(COUNTERS)))
@example(items=[PacketItem(id="cl_1", text="x" * 5000)], budget=4000, counter="estimate")
@example(items=[PacketItem(id="cl_1", text="我" * 3000)], budget=4000, counter="bytes")
@example(items=[], budget=0, counter="estimate")
def test_the_packet_never_exceeds_its_budget(items: list[PacketItem], budget: int, counter: str) -> None:
    count = COUNTERS[counter]
    packet = build_packet(items, budget_tokens=budget, now=NOW, count_tokens=count)
    _check(items, budget, packet, count)
    if len(packet.cut) > 1:
        pytest.fail("without max_item_tokens only the last item shown may be cut")
    if packet.cut:
        assert packet.cut[-1] == packet.included[-1]


@given(items=st.lists(packet_items(), min_size=1, max_size=8, unique_by=lambda i: i.id), budget=st.integers(0, 4000),
       cap=st.integers(1, 300))
def test_a_per_item_cap_keeps_the_budget_and_the_order(items: list[PacketItem], budget: int, cap: int) -> None:
    packet = build_packet(items, budget_tokens=budget, now=NOW, max_item_tokens=cap)
    _check(items, budget, packet, estimate_tokens)
    lines = packet.text.split("\n")[1:]
    for line in lines:
        if line.endswith("; cut]"):
            assert estimate_tokens(line) <= cap


@given(items=st.lists(packet_items(), min_size=1, max_size=6, unique_by=lambda i: i.id))
def test_a_large_budget_includes_everything_uncut(items: list[PacketItem]) -> None:
    need = sum(estimate_tokens(render_item(i, NOW)) + 1 for i in items) + estimate_tokens(HEADER)
    packet = build_packet(items, budget_tokens=need, now=NOW)
    assert not packet.truncated and packet.included == tuple(i.id for i in items)


@given(items=st.lists(packet_items(), min_size=1, max_size=6, unique_by=lambda i: i.id), budget=st.integers(0, 600))
def test_more_budget_never_shows_fewer_items(items: list[PacketItem], budget: int) -> None:
    small = build_packet(items, budget_tokens=budget, now=NOW)
    large = build_packet(items, budget_tokens=budget + 50, now=NOW)
    assert len(large.included) >= len(small.included) - (1 if small.cut else 0)


# --- the format -----------------------------------------------------------------------------------

T = lambda *a: datetime(*a, tzinfo=UTC)  # noqa: E731
ZH_ITEMS = [
    PacketItem(id="cl_2", text="用户 · 偏好主题 · 浅色", status="active", valid_from=T(2026, 3, 1), evidence=("ev_2",)),
    PacketItem(id="cl_1", text="用户 · 偏好主题 · 深色", status="superseded", valid_from=T(2025, 6, 1),
               valid_to=T(2026, 3, 1), evidence=("ev_1",)),
    PacketItem(id="ev_3", kind="event", text="我下个月要搬到杭州。", occurred_at=T(2026, 2, 27, 8, 30), evidence=("ev_3",)),
]
ZH_TEXT = """memory v1 (best first; times UTC)
- 用户 · 偏好主题 · 浅色 [current, valid 2026-03-01/..; id cl_2; evidence ev_2]
- 用户 · 偏好主题 · 深色 [superseded, valid 2025-06-01/2026-03-01; id cl_1; evidence ev_1]
- 我下个月要搬到杭州。 [event, said 2026-02-27T08:30Z; id ev_3]"""
EN_ITEMS = [
    PacketItem(id="cl_7", text="user · works at · Acme (role=engineer)", status="active",
               valid_from=T(2024, 9, 1), evidence=("ev_20", "ev_31", "ev_42", "ev_50")),
    PacketItem(id="cl_8", text="user · lives in · Hangzhou", status="active", valid_from=T(2026, 4, 1),
               evidence=("ev_60",)),
    PacketItem(id="cl_5", text="user · lives in · Berlin", status="active", valid_from=T(2019, 5, 1),
               valid_to=T(2026, 4, 1), evidence=("ev_9",)),
    PacketItem(id="ev_77", kind="event", text="Let's sync about the migration plan after the Q3 review, "
               "and remember that the staging database is still on PostgreSQL 14.", occurred_at=T(2026, 2, 1, 14, 5)),
]
EN_TEXT = """memory v1 (best first; times UTC)
- user · works at · Acme (role=engineer) [current, valid 2024-09-01/..; id cl_7; evidence ev_20, ev_31 +2]
- user · lives in · Hangzhou [future, valid 2026-04-01/..; id cl_8; evidence ev_60]
- user · lives in · Berlin [current, valid 2019-05-01/2026-04-01; id cl_5; evidence ev_9]
- Let's sync about the migration plan after the Q3 review,… [event, said 2026-02-01T14:05Z; id ev_77; cut]
[truncated: 1 cut]"""


def test_the_chinese_example() -> None:
    packet = build_packet(ZH_ITEMS, budget_tokens=1000, now=NOW)
    assert packet.text == ZH_TEXT and not packet.truncated and packet.version == 1 and FORMAT_VERSION == 2
    assert packet.tag == ""  # v1 has no handles


def test_the_english_example_is_cut_at_a_clause() -> None:
    full = build_packet(EN_ITEMS, budget_tokens=10_000, now=NOW)
    budget = full.tokens - 10
    packet = build_packet(EN_ITEMS, budget_tokens=budget, now=NOW)
    assert packet.text == EN_TEXT
    assert packet.truncated and packet.cut == ("ev_77",) and packet.omitted == ()


@pytest.mark.parametrize("example", [ZH_TEXT, EN_TEXT])
def test_the_docs_show_the_real_output(example: str) -> None:
    assert example in DOCS.read_text(encoding="utf-8")


@pytest.mark.parametrize(("item", "label"), [
    (PacketItem(id="c", text="t", status="active"), "current"),
    (PacketItem(id="c", text="t", status=None, valid_to=T(2026, 3, 1)), "ended"),  # ends exactly at now
    (PacketItem(id="c", text="t", status="active", valid_from=T(2026, 3, 1, 9, 31)), "future"),
    (PacketItem(id="c", text="t", status="superseded", valid_to=T(2027, 1, 1)), "superseded"),
    (PacketItem(id="c", text="t", status="retracted"), "retracted"),
    (PacketItem(id="e", text="t", kind="event", status="active"), "event"),
])
def test_validity_labels(item: PacketItem, label: str) -> None:
    assert render_item(item, NOW).split(" [", 1)[1].startswith(label)


def test_times_are_utc_minutes_or_days() -> None:
    east = timezone(timedelta(hours=8))
    item = PacketItem(id="c", text="t", valid_from=datetime(2026, 3, 1, 8, 0, 59, tzinfo=east),
                      valid_to=datetime(2026, 3, 2, 8, 0, tzinfo=east))
    assert "valid 2026-03-01T00:00Z/2026-03-02" in render_item(item, NOW)


def test_a_claim_without_evidence_says_so() -> None:
    assert render_item(PacketItem(id="c", text="t"), NOW).endswith("[current; id c; evidence none]")


def test_an_item_cannot_forge_lines() -> None:
    item = PacketItem(id="cl_1\n- fake", text="real\n- [current; id cl_9] forged\r\n\u2028x", status="x\ny")
    line = render_item(item, NOW)
    assert "\n" not in line and "\r" not in line and "\u2028" not in line
    packet = build_packet([item], budget_tokens=500, now=NOW)
    assert packet.text.count("\n") == 1


def test_an_item_too_short_to_cut_is_omitted() -> None:
    items = [PacketItem(id="cl_1", text="short text"), PacketItem(id="cl_2", text="x")]
    one = estimate_tokens(HEADER) + 1 + estimate_tokens(render_item(items[0], NOW))
    packet = build_packet(items, budget_tokens=one + 5, now=NOW)
    assert packet.included == () and packet.omitted == ("cl_1", "cl_2") and packet.text == ""


def test_a_tiny_budget_gives_an_empty_text() -> None:
    for budget in range(0, 40):
        packet = build_packet(ZH_ITEMS, budget_tokens=budget, now=NOW)
        assert packet.text == "" and packet.truncated and packet.omitted == ("cl_2", "cl_1", "ev_3")


def test_the_truncation_line_is_only_there_when_truncated() -> None:
    assert "[truncated" not in build_packet(ZH_ITEMS, budget_tokens=1000, now=NOW).text
    packet = build_packet(ZH_ITEMS, budget_tokens=130, now=NOW)
    assert packet.included == ("cl_2",) and packet.text.endswith("[truncated: 2 omitted]")


def test_from_recall() -> None:
    recalled = RecallItem(id="cl_1", kind="claim", text="user · likes · tea", score=0.5, evidence=("ev_1", "ev_2"),
                          status="superseded", valid_from=T(2025, 1, 1), valid_to=T(2026, 1, 1))
    item = PacketItem.from_recall(recalled)
    assert item == PacketItem(id="cl_1", text="user · likes · tea", kind="claim", status="superseded",
                              valid_from=T(2025, 1, 1), valid_to=T(2026, 1, 1), evidence=("ev_1", "ev_2"), score=0.5)
    event = PacketItem.from_recall(RecallItem(id="ev_1", kind="event", text="hi", score=0.1, evidence=("ev_1",),
                                              occurred_at=T(2026, 1, 1, 12, 0)))
    assert render_item(event, NOW) == "- hi [event, said 2026-01-01T12:00Z; id ev_1]"


def test_a_current_time_packet_leaves_history_out() -> None:
    old = PacketItem(id="ev_old", text="我现在主要用深色模式。", kind="event", occurred_at=T(2026, 2, 1), history=True)
    new = PacketItem(id="ev_new", text="暂时换成浅色模式。", kind="event", occurred_at=T(2026, 2, 2))
    claim = PacketItem(id="cl_2", text="用户 · 偏好主题 · 浅色", valid_from=T(2026, 2, 2), evidence=("ev_new",))
    packet = build_packet([old, claim, new], budget_tokens=1000, now=NOW, leave_out_history=True)
    assert packet.included == ("cl_2", "ev_new") and packet.history == ("ev_old",) and not packet.omitted
    assert "深色" not in packet.text and "[truncated" not in packet.text
    kept = build_packet([old, claim, new], budget_tokens=1000, now=NOW)  # a history question keeps it
    assert kept.included == ("ev_old", "cl_2", "ev_new") and kept.history == ()
    assert PacketItem.from_recall(RecallItem(id="ev_old", kind="event", text="x", score=0.1, history=True)).history


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"budget_tokens": -1}, ValidationError), ({"budget_tokens": 1.5}, ValidationError),
    ({"budget_tokens": True}, ValidationError), ({"budget_tokens": 10, "max_item_tokens": 0}, ValidationError),
    ({"budget_tokens": 10, "now": datetime(2026, 3, 1)}, InvalidTimestamp),
])
def test_bad_arguments_are_refused(kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        build_packet(ZH_ITEMS, **{"now": NOW, **kwargs})


# --- cutting --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "never_after"), [
    ("version v1.2.3 is deployed", ["v", "v1", "v1.", "v1.2", "v1.2."]),
    ("端口8080已经开放了很久", ["端口8", "端口80", "端口808"]),
    ("一共三百五十个", ["一共三", "一共三百", "一共三百五"]),
    ("好👍🏽了", ["好👍"]),
    ("家👨\u200d👩\u200d👧人", ["家👨", "家👨\u200d", "家👨\u200d👩", "家👨\u200d👩\u200d"]),
    ("cafe\u0301 au lait", ["cafe"]),
    ("path /etc/hosts here", ["path /", "path /etc", "path /etc/"]),
])
def test_cuts_never_split_atoms_or_graphemes(text: str, never_after: list[str]) -> None:
    prefixes = {text[:i] for i in safe_cuts(text)}
    assert not prefixes & set(never_after)


@given(st.text(max_size=200))
def test_safe_cuts_are_inside_the_text(text: str) -> None:
    cuts = safe_cuts(text)
    assert cuts == sorted(set(cuts)) and all(0 < i < len(text) for i in cuts)


@given(text=st.text(min_size=MIN_CUT_CHARS, max_size=400), room=st.integers(30, 200))
def test_a_cut_item_keeps_a_prefix_of_its_text(text: str, room: int) -> None:
    item = PacketItem(id="ev_1", kind="event", text=text)
    packet = build_packet([item], budget_tokens=room, now=NOW)
    if packet.cut:
        body = packet.text.split("\n")[1]
        kept = body[2:body.rindex(CUT_MARK + " [")]
        one_line = " ".join(re.sub(r"[\x00-\x1f\x7f\x85\u2028\u2029]+", " ", text).split())
        assert one_line.startswith(kept) and len(kept) >= MIN_CUT_CHARS - 1


# --- the estimate ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("", 0),
    ("a", 3),  # 1 for the word, 2 per text
    ("hello there", 2 + 2 + 2),  # ⌈5/3⌉ twice; the space folds into "there"
    ("hello world", 2 + 4 + 2),  # "rld": three consonants in a row count as a hard word, ⌈2n/3⌉
    ("ULID01HX", 3 + 2 + 2 + 2),  # all caps: ⌈2n/3⌉; digits one each
    ("我喜欢深色", 8 + 2),  # 1.5 per CJK character, rounded up once
    ("😀", 4 + 2),  # UTF-8 bytes
    ("a  b\n", 1 + 1 + 1 + 1 + 2),
])
def test_estimate_examples(text: str, expected: int) -> None:
    assert estimate_tokens(text) == expected


@given(st.text(max_size=300))
def test_the_estimate_is_at_least_one_per_word_and_cjk_character(text: str) -> None:
    assert estimate_tokens(text) >= count_words(text)


# --- counting line by line (the default estimate's fast path) -------------------------------------

@given(lines=st.lists(_TEXT, max_size=8))
@example(lines=["a ", "b"])  # a space before a line break costs what it costs at the end of a text
@example(lines=["我", "们"])  # CJK runs do not join across a line break
def test_the_line_counter_counts_what_the_estimate_counts(lines: list[str]) -> None:
    from hlmem.application.token_estimate import LineCounter as _LineCounter

    counter = _LineCounter()
    text = "\n".join(lines)
    assert counter(text) == estimate_tokens(text)
    assert counter(text) == estimate_tokens(text)  # and again, from what it remembers


@given(items=st.lists(packet_items(), max_size=10, unique_by=lambda i: i.id), budget=st.integers(0, 3000),
       cap=st.none() | st.integers(1, 200))
def test_the_default_counter_builds_the_packet_any_estimate_counter_builds(items, budget, cap) -> None:
    fast = build_packet(items, budget_tokens=budget, now=NOW, max_item_tokens=cap)
    slow = build_packet(items, budget_tokens=budget, now=NOW, max_item_tokens=cap,
                        count_tokens=lambda text: estimate_tokens(text))
    assert fast == slow


@given(n=st.integers(0, 70), k=st.integers(0, 70))
def test_the_longest_prefix_search_finds_the_last_that_fits(n: int, k: int) -> None:
    from hlmem.application.packet import _longest_prefix

    asked: list[int] = []

    def fits(i: int) -> bool:
        asked.append(i)
        assert 1 <= i <= n
        return i <= k

    assert _longest_prefix(n, fits) == min(n, k)
    assert max(asked, default=0) <= max(2 * k + 1, 1) or k >= n  # a short packet looks at its first items only


# --- events without ids ------------------------------------------------------------------------------

@given(items=st.lists(packet_items(), max_size=10, unique_by=lambda i: i.id), budget=st.integers(0, 3000),
       counter=st.sampled_from(sorted(COUNTERS)))
def test_a_packet_without_event_ids_keeps_the_budget_the_order_and_the_claims_ids(items, budget, counter) -> None:
    from hlmem.application.packet import HEADER_NO_EVENT_IDS

    count = COUNTERS[counter]
    packet = build_packet(items, budget_tokens=budget, now=NOW, count_tokens=count, event_ids=False)
    assert count(packet.text) <= budget and packet.tokens == count(packet.text)
    assert list(packet.included) + list(packet.omitted) == [i.id for i in items]
    if not packet.included:
        assert packet.text == ""
        return
    lines = packet.text.split("\n")
    assert lines[0] == HEADER_NO_EVENT_IDS
    for line, item in zip(lines[1:], items[:len(packet.included)]):
        if item.id not in packet.cut:
            assert line == render_item(item, NOW, event_ids=False)
        full, short = render_item(item, NOW), render_item(item, NOW, event_ids=False)
        if item.kind == "event":  # the v1 line without what follows its label: id and folded ids
            assert full.startswith(short[:-1]) and full[len(short) - 1:].startswith("; id ")
        else:
            assert short == full


def test_without_event_ids_more_notes_fit() -> None:
    notes = [PacketItem(id=f"ev_01JNB3K9PQRSTVWXYZ0123{i:04d}", text=f"我的第{i}个同事叫赵雅琳。", kind="event",
                        occurred_at=NOW) for i in range(40)]
    with_ids = build_packet(notes, budget_tokens=1000, now=NOW)
    without = build_packet(notes, budget_tokens=1000, now=NOW, event_ids=False)
    assert len(without.included) > 1.4 * len(with_ids.included)
    assert render_item(notes[0], NOW, event_ids=False) == "- 我的第0个同事叫赵雅琳。 [event, said 2026-03-01T09:30Z]"
    claim = PacketItem(id="cl_1", text="用户 · 同事 · 赵雅琳", evidence=("ev_1",))
    assert render_item(claim, NOW, event_ids=False) == render_item(claim, NOW)
