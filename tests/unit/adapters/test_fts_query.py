"""Tests that build_match quotes everything, run against a real APSW FTS5 table."""

from __future__ import annotations

from typing import TYPE_CHECKING

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlmem.adapters.text.fts_query import build_match
from hlmem.adapters.text.segment import query_terms, segment_for_index
from hlmem.domain.errors import ValidationError

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

ROWS = {
    1: "我现在主要用深色模式",
    2: "the hotel near the station",
    3: "tea or coffee and cake",
    4: "部署 v1.2",
    5: "set col:val in the config",
    6: "drop the table please",
    7: "a well-known author",
}


@pytest.fixture(params=["unicode61 remove_diacritics 2", "porter unicode61 remove_diacritics 2"])
def fts(request: pytest.FixtureRequest) -> Iterator[apsw.Connection]:
    con = apsw.Connection(":memory:")
    con.execute(f"CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='{request.param}')")
    with con:
        for rowid, text in ROWS.items():
            con.execute("INSERT INTO docs(rowid, body) VALUES (?, ?)", (rowid, segment_for_index(text)))
    yield con
    con.close()


def run(con: apsw.Connection, expression: str | None) -> set[int]:
    if expression is None:
        return set()
    return {row[0] for row in con.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (expression,))}


@pytest.mark.parametrize(
    ("terms", "mode", "expected"),
    [
        (["深色", "模式"], "or", '"深色" OR "模式"'),
        (["深色", "模式"], "and", '"深色" AND "模式"'),
        (['say "hi"'], "or", '"say ""hi"""'),
        (["NEAR(", "OR"], "or", '"NEAR(" OR "OR"'),
        (["a", "b", "a"], "or", '"a" OR "b"'),
        ([" x\x00y "], "or", '"xy"'),
        (["", "  ", "\x00", "*", "()", "😀"], "or", None),
        ([], "or", None),
    ],
)
def test_build_match_quotes_every_term(terms: Sequence[str], mode: str, expected: str | None) -> None:
    assert build_match(terms, mode=mode) == expected  # type: ignore[arg-type]


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        build_match(["a"], mode="near")  # type: ignore[arg-type]
    assert isinstance(caught.value, ValueError)
    assert caught.value.field == "mode"


# Raw user queries, turned into terms by query_terms, and the rows they must find.
HOSTILE_QUERIES = [
    ('"', set()),
    ("*", set()),
    ("NEAR(", {2}),
    # The bare 2 is a real term: unicode61 stores v1.2 as the tokens v1 and 2.
    ("near(station hotel, 2)", {2, 4}),
    ("OR", {3}),
    ("AND", {3}),
    ("NOT", set()),
    ("(", set()),
    (")", set()),
    ('"unbalanced 深色', {1}),
    ('模式"', {1}),
    ("-", set()),
    ("-v1.2", {4}),
    ("well-known", {7}),
    ("col:val", {5}),
    ("body:hotel", set()),
    ("'; DROP TABLE docs; --", {6}),
    ("tea^2 OR coffee*", {3, 4}),
    ("😀🍣", set()),
    ("深色mode😀café", {1}),
    ("\x00", set()),
]


@pytest.mark.parametrize(("query", "expected"), HOSTILE_QUERIES)
def test_hostile_queries_match_correctly_or_not_at_all(
    fts: apsw.Connection, query: str, expected: set[int]
) -> None:
    assert run(fts, build_match(query_terms(query))) == expected
    assert run(fts, build_match(query_terms(query), mode="and")) <= expected
    assert fts.execute("SELECT count(*) FROM docs").fetchall() == [(len(ROWS),)]


RAW_TERMS = ['"', "*", "NEAR(", "OR", "AND", "NOT", "(", ")", '"a" "b', "-x", "col:val", "^a", "a:b:c"]


@pytest.mark.parametrize("raw", RAW_TERMS)
def test_raw_terms_never_raise(fts: apsw.Connection, raw: str) -> None:
    for mode in ("or", "and"):
        run(fts, build_match([raw, "深色"], mode=mode))  # type: ignore[arg-type]


@settings(max_examples=300, database=None)
@given(st.text())
def test_any_query_text_executes(text: str) -> None:
    con = apsw.Connection(":memory:")
    con.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61 remove_diacritics 2')")
    con.execute("INSERT INTO docs(body) VALUES ('深色 模式 hello')")
    expression = build_match(query_terms(text))
    assert expression is None or isinstance(run(con, expression), set)


@settings(max_examples=300, database=None)
@given(st.lists(st.text(), max_size=5), st.sampled_from(["or", "and"]))
def test_any_raw_terms_execute(terms: list[str], mode: str) -> None:
    con = apsw.Connection(":memory:")
    con.execute("CREATE VIRTUAL TABLE docs USING fts5(body)")
    expression = build_match(terms, mode=mode)  # type: ignore[arg-type]
    assert expression is None or isinstance(run(con, expression), set)
