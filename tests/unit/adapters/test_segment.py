"""Tests for jieba-backed segmentation: tokens, query terms, lazy loading and FTS5 recall."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import apsw
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hlmem.adapters.text.fts_query import build_match
from hlmem.adapters.text.segment import (STOP_WORDS, add_stems, english_stem, index_text, query_terms, search_terms,
                                        segment_for_index)

if TYPE_CHECKING:
    from collections.abc import Iterator

TOKENIZERS = ["unicode61 remove_diacritics 2", "porter unicode61 remove_diacritics 2"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我现在主要用深色模式", {"深色", "模式"}),
        ("在杭州工作", {"杭州", "工作"}),
        ("其实5月就搬去北京了", {"北京", "5"}),
        ("中华人民共和国", {"中华", "人民", "共和国", "中华人民共和国"}),
        ("I moved to Berlin in May", {"i", "moved", "berlin", "may"}),
        ("部署 v1.2 完成", {"部署", "v1.2", "完成"}),
        ("Python 3.11.7 on port 8080", {"python", "3.11.7", "port", "8080"}),
        ("ssh root@10.0.0.1:2222", {"root@10.0.0.1:2222"}),
        ("edit /etc/nginx/nginx.conf now", {"etc/nginx/nginx.conf", "now"}),
        ("ＡＢＣ１２３，ｖ１．２", {"abc123", "v1.2"}),
        ("Café NAÏVE", {"café", "naïve"}),
        ("I love 🍣 sushi 😀", {"i", "love", "sushi"}),
        ("用VSCode写Rust代码", {"vscode", "rust", "代码"}),
        ("नमस्ते दुनिया", {"नमस्ते", "दुनिया"}),
    ],
)
def test_segment_for_index_keeps_expected_tokens(text: str, expected: set[str]) -> None:
    assert expected <= set(segment_for_index(text).split())


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("你好，世界！", {"，", "！"}),
        ("I love 🍣 sushi 😀", {"🍣", "😀"}),
        ("C'est la vie... (really)!", {"...", "(", ")", "!"}),
    ],
)
def test_segment_for_index_drops_punctuation_and_emoji(text: str, forbidden: set[str]) -> None:
    assert not forbidden & set(segment_for_index(text).split())


@pytest.mark.parametrize("text", ["", " ", "\t\n　", "😀🍣", "，。！？", "***"])
def test_text_without_words_gives_nothing(text: str) -> None:
    assert segment_for_index(text) == ""
    assert query_terms(text) == []


def test_versions_give_different_tokens() -> None:
    assert segment_for_index("部署 v1.2") != segment_for_index("部署 v1.3")
    assert query_terms("v1.3") == ["v1.3"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("我现在用什么模式？", ["现在", "用", "模式"]),
        ("What does Caroline do?", ["caroline"]),
        ("Where is the office", ["office"]),
        ("北京 北京 Beijing beijing", ["北京", "beijing"]),
        ("什么是", ["什么", "是"]),
        ("what is the", ["what", "is", "the"]),
        ("What did she do in May?", ["may"]),
    ],
)
def test_query_terms(query: str, expected: list[str]) -> None:
    assert query_terms(query) == expected


def test_stop_words_cover_both_languages() -> None:
    assert {"的", "了", "是", "吗", "呢", "什么", "the", "a", "is", "what", "who"} <= STOP_WORDS


def test_import_is_lazy_and_loading_is_silent() -> None:
    code = (
        "import sys\n"
        "import hlmem.adapters.text.segment as s\n"
        "assert 'jieba' not in sys.modules\n"
        "assert s.segment_for_index('我在杭州工作') == '我 在 杭州 工作'\n"
        "assert 'jieba' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


ROWS = {
    1: "我现在主要用深色模式",
    2: "在杭州工作",
    3: "其实5月就搬去北京了",
    4: "部署 v1.2",
    5: "部署 v1.3",
    6: "the server listens on 192.168.1.10:8080",
    7: "Python 3.11.7 was installed yesterday",
    8: "I love sushi 🍣",
    9: "Caroline went to the LGBTQ support group",
}


@pytest.fixture(params=TOKENIZERS)
def fts(request: pytest.FixtureRequest) -> Iterator[apsw.Connection]:
    con = apsw.Connection(":memory:")
    con.execute(f"CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='{request.param}')")
    with con:
        for rowid, text in ROWS.items():
            con.execute("INSERT INTO docs(rowid, body) VALUES (?, ?)", (rowid, segment_for_index(text)))
    yield con
    con.close()


def search(con: apsw.Connection, query: str, mode: str = "or") -> set[int]:
    expression = build_match(query_terms(query), mode=mode)  # type: ignore[arg-type]
    if expression is None:
        return set()
    return {row[0] for row in con.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (expression,))}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("深色模式", {1}),
        ("我现在用什么模式？", {1}),
        ("你在哪里工作", {2}),
        ("他搬去北京了吗", {3}),
        ("v1.3", {5}),
        ("v1.2", {4}),
        ("8080", {6}),
        ("192.168.1.10", {6}),
        ("3.11", {7}),
        ("python ３．１１．７", {7}),
        ("Sushi 😀", {8}),
        ("When did Caroline go to the support group?", {9}),
        ("v2.0", set()),
    ],
)
def test_recall_through_real_fts5(fts: apsw.Connection, query: str, expected: set[int]) -> None:
    assert search(fts, query) == expected


def test_and_mode_narrows_versions_and_or_mode_ranks_them(fts: apsw.Connection) -> None:
    assert search(fts, "部署 v1.3", mode="and") == {5}
    assert search(fts, "部署 v1.3") == {4, 5}
    expression = build_match(query_terms("部署 v1.3"))
    ranked = fts.execute("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank", (expression,)).fetchall()
    assert ranked == [(5,), (4,)]


@settings(max_examples=200, database=None)
@given(st.text())
@example("\u1cf2")  # a letter to Python's Unicode tables, a mark SQLite's unicode61 strips (seed 2724910049)
def test_any_text_segments_indexes_and_queries(text: str) -> None:
    con = apsw.Connection(":memory:")
    con.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
    con.execute("INSERT INTO docs(body) VALUES (?)", (segment_for_index(text),))
    expression = build_match(query_terms(text))
    if expression is not None:
        # Every query built from a text finds that text's own row.
        assert con.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (expression,)).fetchall() == [(1,)]


# --- English stems (ADR 0058) -------------------------------------------------------------------


@pytest.mark.parametrize(("token", "stem"), [
    ("camped", "camp"), ("camping", "camp"), ("participated", "particip"), ("ships", "ship"),
    ("camp", None),  # the word is its own stem
    ("was", None), ("v1.2", None), ("iphone13", None), ("居住地", None), ("Camped", None),  # tokens are lower case
])
def test_english_stem(token: str, stem: str | None) -> None:
    assert english_stem(token) == stem


def test_stems_follow_the_words_so_phrases_stay_whole() -> None:
    assert index_text("We went camping, e-mails v3.11.7 我的居住地") == (
        segment_for_index("We went camping, e-mails v3.11.7 我的居住地") + " camp mail")
    assert add_stems("dark mode") == "dark mode"
    assert search_terms("Where has Melanie camped? 北京") == ["melanie", "melani", "camped", "camp", "北京"]


@settings(max_examples=200, database=None)
@given(st.text(alphabet=st.sampled_from("abcdeilnrstuy -'.我的居住地"), max_size=40))
def test_stems_of_a_body_follow_from_its_tokens_alone(text: str) -> None:
    body = segment_for_index(text)
    stemmed = index_text(text)
    assert stemmed.split()[:len(body.split())] == body.split()
    assert add_stems(body) == stemmed  # what migration 0017 does to an old body
    # Every stem a query of the text searches for is among the text's indexed tokens.
    stems = [t for t in search_terms(text) if t not in query_terms(text)]
    assert set(stems) <= set(stemmed.split())


@settings(max_examples=400, database=None)
@given(st.text(alphabet=st.one_of(st.sampled_from("abcdeilmnrstuyABCDEÉéèüßıİKÅ -'._/:1234ﬁ我的居住地가"),
                                  st.characters()), max_size=24))
def test_a_tokens_stems_shortcut_gives_what_the_full_split_gives(token: str) -> None:
    """The shortcuts of ``_token_stems`` (a plain word; ASCII and Han without four letters in a row)
    never change what the unicode61 split and the stemmer give (the lead's replay profile: 857k
    character-by-character splits of tokens that hold no English word)."""
    from hlmem.adapters.text.segment import _token_stems, _token_stems_slow

    assert _token_stems(token) == _token_stems_slow(token)
    assert _token_stems(token.lower()) == _token_stems_slow(token.lower())
