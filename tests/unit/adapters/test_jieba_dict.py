"""jieba reading its dictionary word by word from hlmem's SQLite copy cuts exactly as jieba does
with the dictionary loaded whole (adapters/text/jieba_dict.py, ADR 0079); so do posseg's tags.
The benchmark corpora are compared in full by benchmarks/jieba_dict_check.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hlmem.adapters.text import jieba_dict
from hlmem.adapters.text.marks import mark_ranges, scan_mark_ranges
from hlmem.adapters.text.pos import _pos_tokenizer_class
from hlmem.adapters.text.segment import _whole_dictionary, cache_file

SENTENCES = [
    "我现在主要用深色模式。", "最近眼睛不舒服，暂时换成浅色模式。", "张伟在北京的一家互联网公司做产品经理",
    "用户现在用什么主题？", "他说下周三去上海出差，顺便见见大学同学", "中华人民共和国成立于一九四九年",
    "结婚的和尚未结婚的", "研究生命起源", "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
    "我的猫叫团子，它三岁了，喜欢吃三文鱼罐头", "李娜喜欢打羽毛球和游泳", "杭州西湖边的龙井茶很有名",
]
#: Common characters, and some that jieba's dictionary never saw (the HMM then guesses words).
HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质你们斐龘𠀋"


@pytest.fixture(scope="module")
def tokenizers():
    lazy = jieba_dict.lazy_tokenizer(cache_file(), _whole_dictionary)
    assert isinstance(lazy.FREQ, jieba_dict.LazyFreq)
    return lazy, _whole_dictionary()


def _cuts(tokenizer, text: str) -> tuple[list[str], ...]:
    return (list(tokenizer.cut_for_search(text)), list(tokenizer.cut(text)), list(tokenizer.cut(text, HMM=False)),
            list(tokenizer.cut(text, cut_all=True)))


@pytest.fixture(autouse=True)
def _never_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jieba_dict, "FULL_AFTER", 10**12)  # every answer here comes from the file


@pytest.mark.parametrize("text", SENTENCES)
def test_the_file_cuts_as_the_whole_dictionary(tokenizers, text: str) -> None:
    lazy, whole = tokenizers
    assert _cuts(lazy, text) == _cuts(whole, text)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(HAN + "ab1 ，。"), min_size=1, max_size=30))
@example("斐龘𠀋")
def test_any_text_cuts_the_same(tokenizers, text: str) -> None:
    lazy, whole = tokenizers
    assert _cuts(lazy, text) == _cuts(whole, text)


def test_part_of_speech_tags_are_the_same(tokenizers) -> None:
    import jieba.posseg

    lazy, whole = tokenizers
    tag_lazy, tag_whole = _pos_tokenizer_class()(lazy), jieba.posseg.POSTokenizer(whole)
    for text in SENTENCES:
        assert [tuple(p) for p in tag_lazy.cut(text)] == [tuple(p) for p in tag_whole.cut(text)]


def test_a_busy_tokenizer_switches_to_the_whole_dictionary(tokenizers, monkeypatch: pytest.MonkeyPatch) -> None:
    _, whole = tokenizers
    busy = jieba_dict.lazy_tokenizer(cache_file(), lambda: whole)
    assert busy.hlmem_load_whole() is False  # not busy yet
    monkeypatch.setattr(jieba_dict, "FULL_AFTER", 50)
    before = [_cuts(busy, text) for text in SENTENCES]
    assert isinstance(busy.FREQ, jieba_dict.LazyFreq)  # never in the middle of a cut
    assert busy.hlmem_load_whole() is True
    assert busy.FREQ is whole.FREQ and busy.total == whole.total
    assert [_cuts(busy, text) for text in SENTENCES] == before == [_cuts(whole, text) for text in SENTENCES]
    assert busy.hlmem_load_whole() is False  # once


def test_a_damaged_file_is_built_again_and_an_unusable_place_loads_the_whole(tmp_path: Path, tokenizers) -> None:
    lazy, whole = tokenizers
    cache = tmp_path / "jieba-x.cache"
    jieba_dict.dictionary_file(cache).write_bytes(b"not a database")
    rebuilt = jieba_dict.lazy_tokenizer(cache, _whole_dictionary)
    assert rebuilt is not None and _cuts(rebuilt, SENTENCES[2]) == _cuts(whole, SENTENCES[2])
    assert jieba_dict.dictionary_file(cache).stat().st_mode & 0o077 == 0
    assert [p.name for p in tmp_path.iterdir()] == [jieba_dict.dictionary_file(cache).name]  # no temporary left
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert jieba_dict.lazy_tokenizer(blocked / "jieba-x.cache", _whole_dictionary) is None


def test_the_written_mark_ranges_are_what_unicodedata_says() -> None:
    assert mark_ranges() == list(scan_mark_ranges())


def test_threads_share_one_tokenizer(tokenizers) -> None:
    """A server's recall threads cut at once: one connection, each lookup in turn."""
    from concurrent.futures import ThreadPoolExecutor

    _, whole = tokenizers
    shared = jieba_dict.lazy_tokenizer(cache_file(), _whole_dictionary)
    texts = [s + str(i) for i in range(8) for s in SENTENCES]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: _cuts(shared, t), texts))
    assert got == [_cuts(whole, t) for t in texts]
