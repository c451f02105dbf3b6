"""Properties of the rule extractor on arbitrary text: it never raises, quotes exactly, names its rule."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import example, given
from hypothesis import strategies as st

from hlmem.application.extraction.guard import MAX_VALUE_CHARS
from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import SourceEvent
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

AT = datetime(2026, 6, 3, 10, 0, tzinfo=timezone.utc)
#: Pieces of real statements, so random text reaches the rules, not only the gates.
_PIECES = st.sampled_from([
    "我", "我表哥", "我的", "住在", "成都", "对", "过敏", "每周二", "去游泳", "养了一只", "猫", "叫", "咪咪", "不", "了", "，",
    "。", "从", "换成了", "Cursor", "预算", "大概", "两万", "医生说", "其", "的", "是", "硕士", "I", " ", "my sister",
    "live in", "Porto", "with", "am allergic to", "every Tuesday", "switched from", "to", "don't", "anymore", "haha",
    "My doctor says", "I have", "a cat called", "Miso", "is", "$1,800", "a month", ".", ",", "?", "\n", "Model 3", "v1.2",
])
_TEXT = st.one_of(st.text(max_size=200), st.lists(_PIECES, max_size=24).map("".join))


@given(_TEXT, st.sampled_from(["user", "assistant"]))
@example("我对青霉素过敏，医生说我血压偏高", "user")
@example("My coworker Tom is vegan, and my sister lives in Toronto.", "user")
@example("每周五我都去打羽毛球。我从VS Code换成了Cursor", "user")
def test_never_raises_and_quotes_exactly(text: str, role: str) -> None:
    event = SourceEvent(event_id="ev_1", text=text, role=role, session_id="s", origin_class="direct_user",
                        session_kind="interactive", occurred_at=AT)
    for c in extract([event], DEFAULT_REGISTRY):
        assert c.evidence_quote and c.evidence_quote in text
        assert c.rule and c.rule.split(".")[0] in ("zh", "en")
        assert c.value.strip() == c.value and c.value
        assert c.valid_from is not None and (c.valid_to is None or c.valid_to > c.valid_from)
        if not c.rule.startswith(("zh.pattern", "en.pattern", "zh.plan", "en.plan", "zh.dated_plan")):
            assert len(c.value) <= max(MAX_VALUE_CHARS.values()) + 8 or " " not in c.value


_AMOUNT = st.builds(lambda cur, whole, cents: f"{cur}{whole:,}{cents}", st.sampled_from(["$", "€", "", "£"]),
                    st.integers(1_000, 9_999_999), st.sampled_from(["", ".50", ".5"]))
_AMOUNT_FRAMES = st.sampled_from([
    "my rent is {} for a one bedroom", "My rent is {} a month.", "my budget is {}, give or take", "I make {} a year",
    "our mortgage is {} now", "房租是{}一个月", "预算大概{}",
])


@given(_AMOUNT_FRAMES, _AMOUNT)
@example("my rent is {} for a one bedroom", "$1,800")  # was rent · $1: the value stopped at the comma
def test_a_number_is_never_cut_inside_its_digit_groups(frame: str, amount: str) -> None:
    text = frame.format(amount)
    event = SourceEvent(event_id="ev_1", text=text, role="user", session_id="s", origin_class="direct_user",
                        session_kind="interactive", occurred_at=AT)
    digits = amount.lstrip("$€£")  # the frames hold no other digit
    for c in extract([event], DEFAULT_REGISTRY):
        if any(ch.isdigit() for ch in c.value):
            assert digits in c.value, (text, c.value)
