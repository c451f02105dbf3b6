"""Compound questions and corrections (domain/query_parts.py)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain.query_parts import MAX_PARTS, focus, question_parts, split_compound
from hlmem.domain.query_referent import note_head, referent


@pytest.mark.parametrize(("query", "parts"), [
    ("我上司的邮箱地址是多少来着？另外，我手里拿的这部手机是什么型号来着？",
     ("我上司的邮箱地址是多少来着?", "我手里拿的这部手机是什么型号来着?")),
    ("孙志宏和赵雅琳谁的年龄更小？此外：深圳银行柜员招聘会的规模是多少？",
     ("孙志宏和赵雅琳谁的年龄更小?", "深圳银行柜员招聘会的规模是多少?")),
    ("我舅舅叫什么。还有，他住在哪里？", ("我舅舅叫什么。", "他住在哪里?")),
    ("我舅舅叫什么？顺便问一下，他的电话是多少？", ("我舅舅叫什么?", "他的电话是多少?")),
    ("Where does Caroline work? Also, when is her birthday?", ("Where does Caroline work?", "when is her birthday?")),
    ("Where does Caroline work? By the way, what car does Jon drive?",
     ("Where does Caroline work?", "what car does Jon drive?")),
    ("Where does Caroline work? And also what does she study?",
     ("Where does Caroline work?", "what does she study?")),
])
def test_compound_questions_split_at_their_markers(query: str, parts: tuple[str, ...]) -> None:
    assert split_compound(query) == parts
    assert question_parts(query) == parts


@pytest.mark.parametrize("query", [
    "我另外一个朋友叫什么？",  # 另外 inside a sentence
    "我的上司还有别的爱好吗？",
    "Is it also known as the Pearl of the Orient?",  # "also" inside a sentence
    "What else did Melanie paint? also",  # nothing after the marker: one question
    "我舅舅叫什么？另外，",
    "",
    "  我的手机是什么型号？  ",
])
def test_one_question_stays_whole(query: str) -> None:
    assert split_compound(query) == (query.strip(),)
    assert question_parts(query) == (query.strip(),)


@pytest.mark.parametrize(("question", "focused"), [
    ("今天天气真好，适合散步。不好意思，我真正想问的是：那个生日是07月15日的人，年龄是什么？",
     "那个生日是07月15日的人,年龄是什么?"),
    ("也不知道今年还有没有类似的。搞错了，我实际想问的问题是：那个持续时间是四个周的活动，规模是什么？",
     "那个持续时间是四个周的活动,规模是什么?"),
    ("最近好忙。我本来想说的是，那个职业是教师的人，兴趣爱好是什么？", "那个职业是教师的人,兴趣爱好是什么?"),
    ("天气多变。哦豁，我其实是想搞清楚，那个持续时间是六天的活动，地点是什么？", "那个持续时间是六天的活动,地点是什么?"),
    ("我得想想。哎，我真正想弄清楚的是，那个规模是八千人的活动，我要参加的活动是什么？",
     "那个规模是八千人的活动,我要参加的活动是什么?"),
    ("晚上要不要去超市买点水果呢？对了，我想问，那个职位是警员队长的人，工作地是什么？",
     "那个职位是警员队长的人,工作地是什么?"),
    ("不知道我家孩子会怎么看。等等，诶，等等，那个活动的规模是什么？", "那个活动的规模是什么?"),
    ("Work has been crazy lately. Anyway, what I really want to know is where Melanie lives.",
     "where Melanie lives."),
    ("I love the beach. My actual question is: when did Caroline move?", "when did Caroline move?"),
    ("Sorry, I meant to ask when Jon opened his studio", "when Jon opened his studio"),
])
def test_a_correction_keeps_what_follows_it(question: str, focused: str) -> None:
    assert focus(question) == focused
    assert question_parts(question) == (focused,)


@pytest.mark.parametrize("question", [
    "我上周去了杭州，我想问的是那边的酒店叫什么？",  # a plain 我想问 keeps its context
    "苹果、香蕉等等，我喜欢哪个？",  # 等等 as "etc." is no correction
    "我的问题是什么来着？",
    "我真正想问的是：？",  # nothing follows the cue
    "What is my real question?",
    "Where does Melanie live?",
])
def test_no_correction(question: str) -> None:
    assert focus(question) is None


def test_a_compound_question_is_split_before_each_part_is_focused() -> None:
    query = ("最近忙昏头了。我本来想说的是，那个职业是教师的人，兴趣爱好是什么？另外，听说深圳有个活动。"
             "不对，我真正想要了解的是：那个地点是广东深圳的活动，持续时间是什么？")
    assert question_parts(query) == ("那个职业是教师的人,兴趣爱好是什么?", "那个地点是广东深圳的活动,持续时间是什么?")


def test_parts_beyond_the_limit_join_the_last() -> None:
    query = "？另外，".join(f"问题{i}是什么" for i in range(MAX_PARTS + 2)) + "？"
    parts = split_compound(query)
    assert len(parts) == MAX_PARTS
    assert parts[-1].startswith(f"问题{MAX_PARTS - 1}是什么") and parts[-1].endswith(f"问题{MAX_PARTS + 1}是什么?")


_PIECES = st.sampled_from(["我舅舅叫什么", "？", "。", "另外", "，", "Also", " ", "also", "? ", "我真正想问的是",
                           "：", "等等", "What is it", "a", "1", "\n", "不对", "说错了", "还有", "btw", "never mind",
                           "、", "他", '"', "第一", "where does he work", " and ", "不知道", "呢", "吗", "scratch that",
                           "当我没问", "…", "两个问题"])


def _words(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text) if ch.isalnum())


def _subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(ch in it for ch in small)


@given(st.lists(_PIECES, max_size=14).map("".join))
def test_parts_are_questions_and_keep_their_words_in_order(query: str) -> None:
    parts = question_parts(query)
    assert 1 <= len(parts) <= MAX_PARTS
    if len(parts) > 1:
        assert all(sum(ch.isalnum() for ch in part) >= 2 for part in parts)
    # Splitting and focusing only drop markers and what a correction disowns, never add or reorder.
    assert _subsequence(_words("".join(parts)), _words(query))
    split = split_compound(query)
    assert len(split) == 1 or _subsequence(_words("".join(split)), _words(query))


@pytest.mark.parametrize(("question", "read"), [
    ("那个联系电话是13225162475的人，其姓名的有几个字？", ("联系电话是13225162475", "其姓名的有几个字?")),
    ("那个地点是广东广州的活动，其时间是什么？", ("地点是广东广州", "其时间是什么?")),
    ("那个当厨师长的人，他是哪里的人呢？", ("当厨师长", "他是哪里的人呢?")),
    ("那个来自山西太原的，他的邮箱地址能告诉我是什么吗？", ("来自山西太原", "他的邮箱地址能告诉我是什么吗?")),
    ("What is the email of the person whose phone is 555-0101?", ("phone is 555-0101", "What is the email of")),
])
def test_a_question_about_the_one_whose(question: str, read: tuple[str, str]) -> None:
    assert referent(question) == read


@pytest.mark.parametrize("question", [
    "我住的那个小区是哪个来着？",  # 那个 with no clause after it
    "那个人是谁？",
    "What did Caroline paint?",
    "Who is the one?",
    "",
    # Yes/no questions about "the friend who …" as a whole: nothing is asked *of* the friend
    # (issue 37: "Is the friend who wrote … no longer alive?" was read as asking "Is").
    "Is the friend who wrote the letter no longer alive?",
    "Did the guy who fixed my bike move away?",
    "Was the event that Melanie hosted a success?",
])
def test_not_a_question_about_the_one_whose(question: str) -> None:
    assert referent(question) is None


@pytest.mark.parametrize(("text", "head"), [
    ("我表弟的电话号码是13225162475。", "表弟"),
    ("我上司的电话号是13298983632。", "上司"),
    ("文学创想阅享会的地点是广东广州。", "文学创想阅享会"),
    ("我婶婶是厨师长。", "婶婶"),
    ("我的下属他们家是山西太原的。", "下属"),
    ("My cousin's phone is 555-0101", "cousin"),
    ("Caroline works at a bakery", "Caroline"),
])
def test_a_note_head_is_what_the_note_is_about(text: str, head: str) -> None:
    assert note_head(text) == head


@pytest.mark.parametrize("text", ["我将要参加游戏探索购物节。", "是的。", "", "42"])
def test_a_note_without_a_head(text: str) -> None:
    assert note_head(text) is None


# --- as people type them (ADR 0083): no question mark needed, corrections anywhere --------------------

@pytest.mark.parametrize(("query", "parts"), [
    ("Anna的快递单号多少 还有她公司地址在哪", ("Anna的快递单号多少", "她公司地址在哪")),
    ("王老师办公室在几楼，学校电话多少", ("王老师办公室在几楼", "学校电话多少")),
    ("牙医约的几点、挂的哪个科室", ("牙医约的几点", "挂的哪个科室")),
    ("第一，钢琴课几点开始，第二，学费多少", ("钢琴课几点开始", "学费多少")),
    ("where did I park and what time does the garage close", ("where did I park", "what time does the garage close")),
    ("what's Omar's email, btw which team is he on", ("what's Omar's email", "which team is he on")),
    ("Two things: when does the lease end, and how much was the deposit?",
     ("when does the lease end", "how much was the deposit?")),
])
def test_questions_joined_without_a_question_mark_are_parts(query: str, parts: tuple[str, ...]) -> None:
    assert question_parts(query) == parts


@pytest.mark.parametrize("query", [
    "where do Tom and Anna live?",  # "and" between names
    "What does Nate do that he loves and can make money from?",  # a relative clause goes on
    "when I was in college, what was my roommate's name?",  # a clause, then the question
    "remind me, what's the wifi password",
    "我搬家之后，住在哪个小区",  # a clause before the question
    "03月04日是哪个人的生日来着，他叫什么名字？",  # the second step refers back to the first
    "哪个人的家乡是四川成都？他叫什么名字？",
    "I changed jobs last year. where do I work now?",  # context, then one question
    "最近好忙，也不知道周末有没有空。我表哥住在哪？",  # musing is context when something is asked
    "晚上吃什么好呢？我表哥住在哪？",
])
def test_one_question_with_its_context_stays_whole(query: str) -> None:
    assert question_parts(query) == (query.strip(),)


@pytest.mark.parametrize(("query", "parts"), [
    ("李姐电话多少，不对不对，我要她微信号", ("我要她微信号",)),
    ("周二的会几点？说错了，周三的会几点？", ("周三的会几点?",)),
    ("猫粮在哪买的 当我没问 狗粮在哪买的", ("狗粮在哪买的",)),
    ("小林住哪，她老公叫什么，哦不是，她儿子叫什么", ("小林住哪", "她儿子叫什么")),
    ("what's Sam's number, oops I meant his email", ("his email",)),
    ("when is the dentist? actually never mind, when's the vet appointment?", ("when's the vet appointment?",)),
    ("who's my landlord scratch that, who's the building manager", ("who's the building manager",)),
    ("where does Ines work and what's her husband's name, no wait, her son's name",
     ("where does Ines work", "her son's name")),
])
def test_a_correction_disowns_what_came_just_before_it(query: str, parts: tuple[str, ...]) -> None:
    assert question_parts(query) == parts


def test_a_focus_cue_disowns_everything_since_the_last_new_question() -> None:
    query = ("我表姐住哪？另外，天气真冷，也不知道明天会不会下雪呢？晚上吃什么好呢？"
             "不对，我真正想问的是：我表哥的生日是哪天？")
    assert question_parts(query) == ("我表姐住哪?", "我表哥的生日是哪天?")


@pytest.mark.parametrize("text", ['那个内容是"学做菜。练刀工。"的活动，地点是什么？另外，我表哥住哪？'])
def test_sentence_ends_inside_quotes_do_not_cut(text: str) -> None:
    assert question_parts(text) == ('那个内容是"学做菜。练刀工。"的活动,地点是什么?', "我表哥住哪?")
