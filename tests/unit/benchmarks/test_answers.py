"""The cost-effect benchmark's answer normaliser (benchmarks/_answers.py): dates, numbers, Chinese numerals, parts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

from _answers import answer_parts, chinese_number, contains_answer, holds, normalise  # noqa: E402


@pytest.mark.parametrize("text", [
    "2023-05-08", "2023/5/8", "2023.05.08", "2023-05-08T13:56Z", "8 May 2023", "8 May, 2023", "8th May 2023",
    "May 8, 2023", "May 8th, 2023", "may 8 2023", "8 MAY 2023", "2023年5月8日",
    "2023年05月08号", "二〇二三年五月八日", "1:56 pm on 8 May, 2023",
])
def test_one_date_many_forms(text):
    assert "@2023-05-08" in normalise(text)


@pytest.mark.parametrize(("text", "token"), [
    ("Sept. 8, 2023", "@2023-09-08"), ("September 2023", "@2023-09"), ("Sept 2023", "@2023-09"), ("2023年9月", "@2023-09"),
    ("8 May", "@*-05-08"), ("May 8", "@*-05-08"), ("5月8日", "@*-05-08"), ("the 3rd of", None),
])
def test_partial_dates(text, token):
    tokens = normalise(text)
    if token is None:
        assert not any(t.startswith("@") for t in tokens)
    else:
        assert token in tokens


@pytest.mark.parametrize(("run", "value"), [
    ("三", 3), ("十", 10), ("十五", 15), ("二十", 20), ("三百五十", 350), ("一百零五", 105), ("两万三千", 23000),
    ("二〇二三", 2023), ("一万", 10000), ("十万", 100000), ("一亿二千万", 120_000_000),
])
def test_chinese_numbers(run, value):
    assert chinese_number(run) == value


def test_chinese_numerals_become_digits_only_where_they_count():
    assert normalise("三个人") == ("3", "个", "人")
    assert normalise("两人") == ("2", "人")
    assert normalise("第一") == ("第", "1")
    assert normalise("三百五十元") == ("350", "元")
    assert normalise("我们一起去") == ("我", "们", "一", "起", "去")  # 一起 (together) is not a number


def test_numbers_and_words():
    assert normalise("It cost $1,000.") == ("it", "cost", "1000")
    assert normalise("Twenty-one dogs and three cats") == ("21", "dogs", "and", "3", "cats")
    assert normalise("someone") == ("someone",)
    assert normalise("3.5 km") == ("3.5", "km")


def test_case_punctuation_articles_and_width():
    assert normalise("The Pottery Class!") == normalise("pottery   class")
    assert normalise("ＡＢＣ，１２３") == ("abc", "123")
    assert normalise("Caroline's") == ("caroline", "s")


def test_answer_parts_split_lists_but_not_dates():
    assert answer_parts("Pottery, camping and painting") == [("pottery",), ("camping",), ("painting",)]
    assert answer_parts("May 8, 2023") == [("@2023-05-08",)]
    assert answer_parts("亚瑟士Gel-Kayano 26; 展示精选") == [("亚", "瑟", "士", "gel", "kayano", "26"), ("展", "示", "精", "选")]
    assert answer_parts("赵雅琳、孙志宏") == [("赵", "雅", "琳"), ("孙", "志", "宏")]
    assert answer_parts("?!") == []


def test_contains_answer():
    text = normalise("- Melanie: We went camping last week! [event, said 2023-07-08T10:00Z; id ev_1]\n"
                     "- Melanie: I took a pottery class [event, said 2023-07-01T10:00Z; id ev_2]")
    assert contains_answer(text, "camping, pottery")
    assert not contains_answer(text, "camping, painting")
    assert contains_answer(text, "8 July 2023")
    assert contains_answer(text, "July 2023")  # a month matches a day in it
    assert contains_answer(text, "2023")  # a year matches a date in it
    assert not contains_answer(text, "2022")
    assert not contains_answer(text, "9 July 2023")
    assert contains_answer(text, "...") is None


def test_year_less_answer_matches_any_year_but_not_the_reverse():
    assert holds(normalise("said 2023-05-08"), normalise("May 8"))
    assert not holds(normalise("on May 8"), normalise("8 May 2023"))


def test_chinese_answer_in_chinese_text():
    text = normalise("我表哥有三个孩子，他在2024年4月1日搬到了杭州。")
    assert contains_answer(text, "3个")
    assert contains_answer(text, "杭州")
    assert contains_answer(text, "2024年04月01日")
    assert contains_answer(text, "4月1日")
    assert not contains_answer(text, "上海")


def test_a_number_is_a_whole_token():
    text = normalise("She has 12 cats since 2019")
    assert not contains_answer(text, "2")
    assert contains_answer(text, "12")


def test_spacing_of_ascii_words_and_units() -> None:
    assert contains_answer(normalise("我手头这部手机是OPPOReno7。"), "OPPO Reno7")
    assert contains_answer(normalise("我表弟身高169厘米。"), "169cm")
    assert contains_answer(normalise("I walked 5 km today"), "5km")
    assert not contains_answer(normalise("I walked 5 km today"), "5 miles")
    assert not contains_answer(normalise("concatenate"), "cat")
