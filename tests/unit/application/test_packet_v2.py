"""Context packets in format v2, the default (ADR 0092): never over budget (properties over random items,
budgets and counters), the groups, the handles and their tag, the examples docs/packet.md shows."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from support.token_counters import COUNTERS, count_words  # noqa: F401 - tests/support

from hlmem.application.packet import FORMAT_VERSION, Packet, PacketItem, build_packet, estimate_tokens, footer
from hlmem.application.packet_v2 import ITEM_LINE, TAG_LENGTH, header, item_line, packet_tag, parse_handle
from hlmem.domain.errors import ValidationError


UTC = timezone.utc
NOW = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
T = lambda *a: datetime(*a, tzinfo=UTC)  # noqa: E731
DOCS = Path(__file__).resolve().parents[3] / "docs" / "packet.md"
_TEXT = st.one_of(
    st.text(max_size=80),
    st.text(alphabet=st.sampled_from(list("我喜欢深色主题北京杭州三百五十，。！？、 ")), max_size=120),
    st.lists(st.sampled_from(["😀", "👍🏽", "🇨🇳", "e\u0301", "\n", "\t", " ", "v1.2.3", "8080", "[2] ", "12:30 ",
                              "a", "Z", "-", "ev_01HX", "2026-03-01 Sun:"]), max_size=60).map("".join),
    st.text(alphabet="abcdefghij klmnop.", min_size=200, max_size=3000),  # long strings
    st.just(""),
)
_TIMES = st.none() | st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1),
                                   timezones=st.sampled_from([UTC, timezone(timedelta(hours=8))]))


_DAY = re.compile(r"(\d{4}-\d\d-\d\d) (Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?: (\d\d:\d\d))?(?: \((today|yesterday|\d days ago)\))?:")


@st.composite
def items(draw: st.DrawFn) -> PacketItem:
    kind = draw(st.sampled_from(["claim", "event", "event", "procedure", "mental_model"]))
    return PacketItem(
        id=draw(st.sampled_from(["cl_", "ev_", "pd_"])) + draw(st.text(min_size=0, max_size=30)),
        text=draw(_TEXT), kind=kind,
        status=draw(st.sampled_from([None, "active", "superseded", "retracted", "odd\nstatus"])),
        valid_from=draw(_TIMES), valid_to=draw(_TIMES),
        occurred_at=draw(_TIMES | st.sampled_from([T(2026, 2, 27, 8, 30), T(2026, 2, 27, 8, 30), T(2026, 2, 28)])),
        evidence=draw(st.lists(st.text(max_size=30), max_size=4)),
    )


def _parse(packet: Packet) -> tuple[list[int], list[tuple[str | None, list[int]]]]:
    """The handles of the fact lines, and each day group with its events' handles, in text order."""
    lines = packet.text.split("\n")
    assert lines[0] == header(packet.tag)
    body = lines[1:-1] if packet.truncated else lines[1:]
    facts: list[int] = []
    groups: list[tuple[str | None, list[int]]] = []
    for line in body:
        if line == "undated:" or _DAY.fullmatch(line):
            groups.append((None if line == "undated:" else line[:10], []))
            continue
        m = ITEM_LINE.fullmatch(line)
        assert m is not None, line
        (groups[-1][1] if groups else facts).append(int(m.group(1)))
    return facts, groups


def _check(pool: list[PacketItem], budget: int, packet: Packet, count) -> None:
    assert count(packet.text) <= budget
    assert packet.tokens == count(packet.text) and packet.budget == budget and packet.version == 2
    # the items shown are a prefix of the ranking, the rest omitted in order
    assert list(packet.included) + list(packet.omitted) == [i.id for i in pool]
    assert packet.truncated == (len(packet.included) < len(pool) or bool(packet.cut))
    if not packet.included:
        assert packet.text == "" and packet.tag == ""
        return
    assert packet.cut in ((), (packet.included[-1],))  # without a per-item cap only the last may be cut
    assert packet.tag == packet_tag(packet.included)
    if packet.truncated:
        assert packet.text.split("\n")[-1] == footer(len(packet.cut), len(packet.omitted))
    facts, groups = _parse(packet)
    k = len(packet.included)
    # every item shown once, under its handle: its rank
    assert sorted(facts + [h for _, hs in groups for h in hs]) == list(range(1, k + 1))
    assert facts == sorted(facts) and all(pool[h - 1].kind != "event" for h in facts)
    days = [d for d, _ in groups]
    assert len(days) == len(set(days)) and [d for d in days if d] == sorted(d for d in days if d)
    assert None not in days[:-1]  # undated events last
    for day, hs in groups:
        for h in hs:
            item = pool[h - 1]
            assert item.kind == "event"
            assert (item.occurred_at is None) if day is None else f"{item.occurred_at.astimezone(UTC):%Y-%m-%d}" == day
        times = [pool[h - 1].occurred_at for h in hs]
        assert times == sorted(times, key=lambda t: t or NOW)  # time order within a day
    for n, item_id in enumerate(packet.included, start=1):
        assert packet.resolve(f"{packet.tag}.{n}") == item_id
    assert packet.resolve(f"{packet.tag}.{k + 1}") is None


@given(pool=st.lists(items(), max_size=14, unique_by=lambda i: i.id), budget=st.integers(0, 4000),
       counter=st.sampled_from(sorted(COUNTERS)), history=st.booleans())
@example(pool=[PacketItem(id="ev_1", kind="event", text="x" * 5000, occurred_at=NOW)], budget=4000, counter="estimate",
         history=False)
@example(pool=[], budget=0, counter="estimate", history=False)
def test_a_v2_packet_never_exceeds_its_budget_and_shows_each_item_once_under_its_rank(pool, budget, counter,
                                                                                      history) -> None:
    count = COUNTERS[counter]
    packet = build_packet(pool, budget_tokens=budget, now=NOW, count_tokens=count, leave_out_history=history)
    _check(pool, budget, packet, count)


@given(pool=st.lists(items(), min_size=1, max_size=8, unique_by=lambda i: i.id), budget=st.integers(0, 4000),
       cap=st.integers(1, 300))
def test_a_per_item_cap_keeps_the_budget_and_caps_each_line(pool, budget, cap) -> None:
    packet = build_packet(pool, budget_tokens=budget, now=NOW, max_item_tokens=cap)
    assert estimate_tokens(packet.text) <= budget
    assert list(packet.included) + list(packet.omitted) == [i.id for i in pool]
    shown = [line for line in packet.text.split("\n")[1:] if ITEM_LINE.fullmatch(line) and not _DAY.fullmatch(line)]
    assert len(shown) == len(packet.included)
    for line in shown:  # every item's line within the cap (a day's time, when shared, is not on it)
        assert estimate_tokens(line) <= cap


@given(pool=st.lists(items(), max_size=10, unique_by=lambda i: i.id), budget=st.integers(0, 3000),
       cap=st.none() | st.integers(1, 200))
def test_the_default_counter_builds_the_v2_packet_any_estimate_counter_builds(pool, budget, cap) -> None:
    fast = build_packet(pool, budget_tokens=budget, now=NOW, max_item_tokens=cap)
    slow = build_packet(pool, budget_tokens=budget, now=NOW, max_item_tokens=cap,
                        count_tokens=lambda text: estimate_tokens(text))
    assert fast == slow


@given(pool=st.lists(items(), min_size=1, max_size=6, unique_by=lambda i: i.id), budget=st.integers(0, 600))
def test_more_budget_never_shows_fewer_v2_items(pool, budget) -> None:
    small = build_packet(pool, budget_tokens=budget, now=NOW)
    large = build_packet(pool, budget_tokens=budget + 60, now=NOW)
    assert len(large.included) >= len(small.included) - (1 if small.cut else 0)


# --- the format -----------------------------------------------------------------------------------

ZH_ITEMS = [
    PacketItem(id="ev_3", kind="event", text="我下个月要搬到杭州。", occurred_at=T(2026, 2, 27, 8, 30)),
    PacketItem(id="cl_2", text="用户 · 偏好主题 · 浅色", status="active", valid_from=T(2026, 3, 1), evidence=("ev_2",)),
    PacketItem(id="ev_4", kind="event", text="周末去杭州看房子。", occurred_at=T(2026, 2, 27, 9, 5)),
    PacketItem(id="cl_1", text="用户 · 偏好主题 · 深色", status="superseded", valid_from=T(2025, 6, 1),
               valid_to=T(2026, 3, 1), evidence=("ev_1",)),
    PacketItem(id="ev_5", kind="event", text="今天把主题换成浅色了。", occurred_at=T(2026, 3, 1, 8, 0)),
]
ZH_TEXT = """memory v2 (times UTC; [n] = n-th best, named jfhxhgl.n)
[2] 用户 · 偏好主题 · 浅色 [current 2026-03-01/..]
[4] 用户 · 偏好主题 · 深色 [superseded 2025-06-01/2026-03-01]
2026-02-27 Fri (2 days ago):
[1] 08:30 我下个月要搬到杭州。
[3] 09:05 周末去杭州看房子。
2026-03-01 Sun 08:00 (today):
[5] 今天把主题换成浅色了。"""
EN_ITEMS = [
    PacketItem(id="ev_70", kind="event", text="Caroline: I went to the LGBTQ support group yesterday.",
               occurred_at=T(2023, 5, 8, 13, 56)),
    PacketItem(id="ev_71", kind="event", text="Melanie: That's great! How did it go?", occurred_at=T(2023, 5, 8, 13, 56)),
    PacketItem(id="cl_7", text="Caroline · works at · Acme (role=counsellor)", status="active",
               valid_from=T(2022, 9, 1), evidence=("ev_20", "ev_31", "ev_42")),
    PacketItem(id="ev_12", kind="event", text="Caroline: Let's sync about the adoption plan after the review, and "
               "remember that the agency still needs the references.", occurred_at=T(2023, 5, 1, 9, 0)),
]
EN_TEXT = """memory v2 (times UTC; [n] = n-th best, named dfrspnz.n)
[3] Caroline · works at · Acme (role=counsellor) [current 2022-09-01/..]
2023-05-01 Mon 09:00:
[4] Caroline: Let's sync about the adoption… [cut]
2023-05-08 Mon 13:56 (today):
[1] Caroline: I went to the LGBTQ support group yesterday.
[2] Melanie: That's great! How did it go?
[truncated: 1 cut]"""
EN_NOW = T(2023, 5, 8, 20, 0)


def test_the_chinese_example() -> None:
    packet = build_packet(ZH_ITEMS, budget_tokens=1000, now=NOW)
    assert packet.text == ZH_TEXT and not packet.truncated and packet.version == FORMAT_VERSION == 2
    assert packet.resolve("jfhxhgl.3") == "ev_4" and packet.included == ("ev_3", "cl_2", "ev_4", "cl_1", "ev_5")


def test_the_english_example_is_cut_between_words() -> None:
    full = build_packet(EN_ITEMS, budget_tokens=10_000, now=EN_NOW)
    packet = build_packet(EN_ITEMS, budget_tokens=full.tokens - 10, now=EN_NOW)
    assert packet.text == EN_TEXT and packet.cut == ("ev_12",) and packet.omitted == ()


@pytest.mark.parametrize("text", [ZH_TEXT, EN_TEXT])
def test_the_docs_show_the_real_output(text: str) -> None:
    assert text in DOCS.read_text(encoding="utf-8")


@pytest.mark.parametrize(("at", "day"), [
    (T(2026, 3, 1, 0, 5), "2026-03-01 Sun 00:05 (today):"), (T(2026, 2, 28), "2026-02-28 Sat (yesterday):"),
    (T(2026, 2, 23, 12, 0), "2026-02-23 Mon 12:00 (6 days ago):"), (T(2026, 2, 22, 12, 0), "2026-02-22 Sun 12:00:"),
    (T(2026, 3, 2, 12, 0), "2026-03-02 Mon 12:00:"),  # after now: no relative word
    (datetime(2026, 3, 1, 7, 0, tzinfo=timezone(timedelta(hours=8))), "2026-02-28 Sat 23:00 (yesterday):"),
])
def test_a_day_is_written_once_in_utc_with_its_weekday_and_how_long_ago(at: datetime, day: str) -> None:
    packet = build_packet([PacketItem(id="ev_1", kind="event", text="hi", occurred_at=at)], budget_tokens=200, now=NOW)
    assert packet.text.split("\n")[1:] == [day, "[1] hi"]


def test_the_time_of_day_is_written_per_line_when_the_group_does_not_share_it() -> None:
    pool = [PacketItem(id=f"ev_{i}", kind="event", text=t, occurred_at=at) for i, (t, at) in
            enumerate([("b", T(2026, 1, 5, 9, 0)), ("a", T(2026, 1, 5, 8, 0)), ("c", T(2026, 1, 5)), ("d", None)])]
    lines = build_packet(pool, budget_tokens=300, now=NOW).text.split("\n")[1:]
    assert lines == ["2026-01-05 Mon:", "[3] c", "[2] 08:00 a", "[1] 09:00 b", "undated:", "[4] d"]


def test_labels_and_kinds() -> None:
    pool = [PacketItem(id="pd_1", kind="procedure", text="run make"),
            PacketItem(id="mm_1", kind="mental_model", text="likes tea", valid_from=T(2020, 1, 1)),
            PacketItem(id="cl_1", text="t", valid_to=T(2026, 3, 1)), PacketItem(id="cl_2", text="", status="retracted")]
    assert build_packet(pool, budget_tokens=500, now=NOW).text.split("\n")[1:] == [
        "[1] run make [procedure]", "[2] likes tea [profile]", "[3] t [ended ../2026-03-01]", "[4] (empty) [retracted]"]


def test_an_item_cannot_forge_lines_or_handles() -> None:
    item = PacketItem(id="ev_1\n[2] fake", kind="event", text="real\n[2] forged\r\n\u2028x", occurred_at=NOW)
    packet = build_packet([item], budget_tokens=500, now=NOW)
    assert packet.text.split("\n")[1:] == ["2026-03-01 Sun 09:30 (today):", "[1] real [2] forged x"]
    assert "ev_1" not in packet.text


def test_no_ids_are_written_and_more_notes_fit_than_in_v1() -> None:
    notes = [PacketItem(id=f"ev_01JNB3K9PQRSTVWXYZ0123{i:04d}", text=f"我的第{i}个同事叫赵雅琳。", kind="event",
                        occurred_at=NOW - timedelta(minutes=i)) for i in range(60)]
    v1 = build_packet(notes, budget_tokens=1000, now=NOW, version=1)
    v2 = build_packet(notes, budget_tokens=1000, now=NOW)
    assert len(v2.included) > 2 * len(v1.included) and "ev_" not in v2.text
    assert item_line(notes[0], 0, NOW) == "[1] 09:30 我的第0个同事叫赵雅琳。"


def test_the_tag_names_the_items_shown() -> None:
    assert packet_tag(["a", "b"]) == packet_tag(["a", "b"]) != packet_tag(["b", "a"])
    assert len(packet_tag([])) == TAG_LENGTH and estimate_tokens(packet_tag(["x"])) == estimate_tokens(packet_tag(["y"]))
    tags = {packet_tag([f"ev_{i}"]) for i in range(2000)}
    assert len(tags) == 2000


@pytest.mark.parametrize(("text", "parsed"), [
    ("jfhxhgl.3", ("jfhxhgl", 3)), (" jfhxhgl.12 ", ("jfhxhgl", 12)), ("jfhxhgl.0", None), ("jfhxhgl.", None),
    ("hzwrjxa.3", None), ("hzwrjx.3", None), ("HZWRJXQ.3", None), ("ev_01JNB3", None), ("jfhxhgl.3.1", None),
])
def test_handles_parse(text: str, parsed) -> None:
    assert parse_handle(text) == parsed


def test_a_packet_resolves_only_its_own_handles() -> None:
    packet = build_packet(ZH_ITEMS, budget_tokens=1000, now=NOW)
    assert packet.resolve("jfhxhgl.1") == "ev_3" and packet.resolve("jfhxhgl.6") is None
    assert packet.resolve("bcdfghj.1") is None and packet.resolve("ev_3") is None
    assert build_packet(ZH_ITEMS, budget_tokens=1000, now=NOW, version=1).resolve("jfhxhgl.1") is None


@pytest.mark.parametrize("version", [0, 3, "2", True, None])
def test_an_unknown_version_is_refused(version) -> None:
    with pytest.raises(ValidationError, match="version"):
        build_packet(ZH_ITEMS, budget_tokens=100, now=NOW, version=version)
