"""Bad input (issue section 6), through ``Memory`` and the CLI: a clear error or correct results, never a
traceback, and the store intact afterwards (counts unchanged, ``replay --verify`` passes).

The long tables run the CLI in-process (click's runner, the same command objects the console script
calls); a representative batch also runs through the installed ``hlmem`` script.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from hlmem import Memory
from hlmem.adapters.cli.main import cli
from hlmem.domain.commands import MAX_TEXT_CHARS, MAX_VALUE_CHARS
from hlmem.domain.errors import HlmemError

NOW = "2026-03-01T00:00:00Z"
SQL = "'; DROP TABLE events; --"
SEED_TEXT = "I switched to dark mode 深色模式 today"


def open_memory(path: Path) -> Memory:
    return Memory(path, embedder="hash", now=NOW)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bad") / "memory.db"
    with open_memory(path) as mem:
        event = mem.add(SEED_TEXT).id
        mem.remember("用户", "preferred_ui_theme", "深色", evidence=[event])
        mem.remember("用户", "works_in", "杭州", valid_from="2026-01-01")
    return path


def counts(path: Path) -> dict[str, Any]:
    with open_memory(path) as mem:
        return mem.stats()


def assert_intact(path: Path, before: dict[str, Any]) -> None:
    assert counts(path) == before
    with open_memory(path) as mem:
        report = mem.replay()
    assert report.equal, report.differences


# --- Memory -------------------------------------------------------------------------------------

Call = Callable[[Memory], object]
MEMORY_BAD: list[Any] = [
    ("empty-text", lambda m: m.add(""), "text"),
    ("blank-text", lambda m: m.add(" \n\t "), "text"),
    ("long-text", lambda m: m.add("x" * (MAX_TEXT_CHARS + 1)), "limit"),
    ("nul-text", lambda m: m.add("a\x00b"), "NUL"),
    ("blank-session", lambda m: m.add("x", session=" "), "session"),
    ("bad-origin", lambda m: m.add("x", origin="martian"), "origin"),
    ("bad-namespace", lambda m: m.add("x", namespace="bad ns"), "namespace"),
    ("naive-string-time", lambda m: m.add("x", occurred_at="2026-03-01T09:00"), "timezone"),
    ("naive-datetime", lambda m: m.add("x", occurred_at=datetime(2026, 3, 1, 9)), "timezone"),
    ("garbage-time", lambda m: m.add("x", occurred_at="yesterday"), "cannot parse"),
    ("empty-subject", lambda m: m.remember("", "works_in", "x"), "subject"),
    ("empty-value", lambda m: m.remember("u", "works_in", " "), "value"),
    ("long-value", lambda m: m.remember("u", "works_in", "v" * (MAX_VALUE_CHARS + 1)), "limit"),
    ("valid-to-before-from", lambda m: m.remember("u", "works_in", "x", valid_from="2026-06-01T00:00Z",
                                                  valid_to="2026-01-01T00:00Z"), "not after"),
    ("valid-to-equals-from", lambda m: m.remember("u", "works_in", "x", valid_from="2026-06-01",
                                                  valid_to="2026-06-01"), "not after"),
    ("unknown-qualifier", lambda m: m.remember("u", "works_in", "x", qualifiers={"colour": "red"}), "qualifier"),
    ("importance-nan", lambda m: m.remember("u", "works_in", "x", importance=math.nan), "importance"),
    ("importance-high", lambda m: m.remember("u", "works_in", "x", importance=2), "importance"),
    ("bad-evidence", lambda m: m.remember("u", "works_in", "x", evidence=["local-1"]), "evidence"),
    ("bad-scope", lambda m: m.remember("u", "works_in", "x", scope="forever"), "scope"),
    ("bad-cardinality", lambda m: m.remember("u", "works_in", "x", cardinality="many"), "cardinality"),
    ("several-at-once", lambda m: m.remember(" ", "works_in", "", importance=-1), "subject"),
    ("empty-query", lambda m: m.recall("  "), "query"),
    ("long-query", lambda m: m.recall("q" * 2001), "query"),
    ("k-zero", lambda m: m.recall("dark", k=0), "k must"),
    ("bad-kind", lambda m: m.recall("dark", kinds=["note"]), "kinds"),
    ("naive-valid-at", lambda m: m.recall("dark", valid_at="2026-01-01T00:00"), "timezone"),
    ("history-blank", lambda m: m.history(" ", "works_in"), "subject"),
    ("explain-garbage", lambda m: m.explain(SQL), "neither"),
    ("explain-missing", lambda m: m.explain("cl_NOPE"), "no claim"),
    ("retract-missing", lambda m: m.retract("cl_NOPE"), "no claim"),
    pytest.param("year-1", lambda m: m.add("x", occurred_at="0001-01-01T00:00:00+08:00"), "range",
                 id="year-1"),
    pytest.param("year-9999", lambda m: m.remember("u", "works_in", "x", valid_from="9999-12-31T23:59:59-08:00"),
                 "range", id="year-9999"),
    pytest.param("surrogate", lambda m: m.add("bad \ud800 text"), "text", id="surrogate"),
]


def _ids(rows: Sequence[Any]) -> list[str]:
    return [r.id if hasattr(r, "id") else r[0] for r in rows]


def _params(rows: Sequence[Any]) -> list[Any]:
    return [r if hasattr(r, "id") else pytest.param(*r, id=r[0]) for r in rows]


def messages(exc: BaseException) -> list[str]:
    if isinstance(exc, BaseExceptionGroup):
        return [m for e in exc.exceptions for m in messages(e)]
    assert isinstance(exc, HlmemError), repr(exc)
    return [str(exc)]


@pytest.mark.parametrize(("name", "call", "hint"), _params(MEMORY_BAD), ids=_ids(MEMORY_BAD))
def test_memory_refuses_bad_input_clearly(db: Path, name: str, call: Call, hint: str) -> None:
    before = counts(db)
    with open_memory(db) as mem:
        with pytest.raises((HlmemError, ExceptionGroup)) as info:
            call(mem)
    texts = messages(info.value)
    assert texts and all(t.strip() and "\n" not in t for t in texts), texts
    assert any(hint in t for t in texts), texts
    assert counts(db) == before


def test_an_internal_failure_leaves_the_store_intact(db: Path) -> None:
    # Whatever the error type, a failed write is all-or-nothing.
    before = counts(db)
    with open_memory(db) as mem:
        with pytest.raises(Exception):  # noqa: B017,PT011
            mem.add("bad \ud800 text")
    assert_intact(db, before)


def test_memory_import_of_a_bad_file_writes_nothing(db: Path) -> None:
    before = counts(db)
    with open_memory(db) as mem:
        report = mem.import_jsonl(['{"type": "observation", "text": "fine"}', "{oops", SQL])
    assert report.written == 0 and [e.split(":")[0] for e in report.errors] == ["line 2", "line 3"]
    assert counts(db) == before


# --- queries full of syntax ---------------------------------------------------------------------

QUERIES = [
    '"', "*", "NEAR(", "NEAR(dark mode, 2)", "OR", "AND", "NOT", "dark OR", "AND dark", "(dark", "dark)", "()",
    '"dark mode', 'dark"', "-dark", "dark -mode", "-", "--", SQL, "col:dark", "^dark", "dark*", "{dark}", "+dark",
    "😀", "深色😀", "Ωμέγα dark", "深色 OR 浅色", '"深色" AND "模式"', "\\", "%_%", "dark\x00mode", "​",
]
#: "col:dark" is one atom (like host:port), searched as the phrase "col dark": no hit is right.
ATOMS = {"col:dark"}


def should_find_seed(query: str) -> bool:
    return ("dark" in query or "深色" in query) and query not in ATOMS


@pytest.mark.parametrize("query", QUERIES)
def test_query_syntax_never_breaks_recall(db: Path, query: str) -> None:
    before = counts(db)
    with open_memory(db) as mem:
        result = mem.recall(query, k=5)
        candidates = mem.storage.text_candidates("default", query, 10)
        events = [mem.storage.get_observations([c.item_id]) for c in candidates if c.kind == "event"]
    assert isinstance(result.items, tuple)
    found = any(SEED_TEXT == o.text for batch in events for o in batch.values())
    assert found is should_find_seed(query), candidates
    assert counts(db) == before


@pytest.mark.parametrize(
    "text",
    [SQL, "😀🎉 emoji only", "混合 scripts: Ωμέγα, עברית, 한국어, 深色", "Robert'); DROP TABLE claims;--", '"NEAR(x y)" OR *'],
    ids=["sql", "emoji", "mixed-scripts", "bobby-tables", "fts-syntax"],
)
def test_odd_but_valid_text_is_kept_verbatim(tmp_path: Path, text: str) -> None:
    with open_memory(tmp_path / "odd.db") as mem:
        event = mem.add(text).id
        assert mem.explain(event).observation.text == text  # type: ignore[union-attr]
        recalled = mem.recall(text, kinds=["event"]).items
        assert [i.text for i in recalled] == [text]
        assert mem.stats()["observations"] == 1 and mem.replay().equal


# --- the CLI, in-process ------------------------------------------------------------------------

REMEMBER = ("remember", "--subject", "u", "--predicate", "works_in", "--value", "x")
CLI_BAD: list[Any] = [
    ("empty-text", ("add", ""), 1, "text is empty"),
    ("blank-text", ("add", "  \t "), 1, "text is empty"),
    ("long-text", ("add", "x" * (MAX_TEXT_CHARS + 1)), 1, "limit"),
    ("nul-text", ("add", "a\x00b"), 1, "NUL"),
    ("blank-session", ("add", "hi", "--session", " "), 1, "session"),
    ("naive-occurred-at", ("add", "hi", "--occurred-at", "2026-03-01T09:00"), 2, "timezone"),
    ("garbage-occurred-at", ("add", "hi", "--occurred-at", "yesterday"), 2, "cannot parse"),
    ("naive-now", ("--now", "2026-03-01T09:00", "stats"), 2, "timezone"),
    ("garbage-now", ("--now", SQL, "stats"), 2, "cannot parse"),
    ("bad-origin", ("add", "hi", "--origin", "martian"), 2, "origin"),
    ("empty-subject", ("remember", "--subject", " ", "--predicate", "works_in", "--value", "x"), 1, "subject"),
    ("empty-value", ("remember", "--subject", "u", "--predicate", "works_in", "--value", ""), 1, "value"),
    ("long-value", ("remember", "--subject", "u", "--predicate", "works_in", "--value", "v" * 4001), 1, "limit"),
    ("valid-to-before-from", (*REMEMBER, "--valid-from", "2026-06-01T00:00Z", "--valid-to", "2026-01-01T00:00Z"), 1,
     "not after"),
    ("valid-to-equals-from", (*REMEMBER, "--valid-from", "2026-06-01", "--valid-to", "2026-06-01"), 1, "not after"),
    ("naive-valid-from", (*REMEMBER, "--valid-from", "2026-03-01 09:00"), 2, "timezone"),
    ("unknown-qualifier", (*REMEMBER, "--qualifier", "colour=red"), 1, "unknown qualifier"),
    ("bad-qualifier-key", (*REMEMBER, "--qualifier", "Bad Key=x"), 1, "qualifier"),
    ("qualifier-without-value", (*REMEMBER, "--qualifier", "temporary"), 2, "KEY=VALUE"),
    ("importance-nan", (*REMEMBER, "--importance", "nan"), 1, "importance"),
    ("importance-inf", (*REMEMBER, "--importance", "inf"), 1, "importance"),
    ("importance-high", (*REMEMBER, "--importance", "1.5"), 1, "importance"),
    ("importance-word", (*REMEMBER, "--importance", "high"), 2, "importance"),
    ("bad-scope", (*REMEMBER, "--scope", "forever"), 2, "scope"),
    ("bad-evidence", (*REMEMBER, "--evidence", SQL), 1, "evidence"),
    ("several-at-once", ("remember", "--subject", "", "--predicate", "works_in", "--value", "", "--importance", "9"),
     1, "subject"),
    ("empty-query", ("recall", " "), 1, "query is empty"),
    ("long-query", ("recall", "q" * 2001), 1, "limit"),
    ("k-zero", ("recall", "dark", "--k", "0"), 2, "--k"),
    ("k-huge", ("recall", "dark", "--k", "201"), 2, "--k"),
    ("bad-kind", ("recall", "dark", "--kind", "note"), 2, "--kind"),
    ("naive-valid-at", ("recall", "dark", "--valid-at", "2026-01-01T00:00"), 2, "timezone"),
    ("history-blank", ("history", "--subject", " ", "--predicate", "works_in"), 1, "subject"),
    ("explain-sql", ("explain", SQL), 1, "neither"),
    ("explain-empty", ("explain", ""), 1, "neither"),
    ("explain-missing-claim", ("explain", "cl_NOPE"), 1, "no claim"),
    ("explain-missing-event", ("explain", "ev_NOPE"), 1, "no event"),
    ("retract-missing", ("retract", "cl_NOPE"), 1, "no claim"),
    ("import-missing-file", ("import", "/nonexistent/in.jsonl"), 1, "No such file"),
    ("dash-query-without-separator", ("recall", "-dark"), 2, "No such option"),
    ("missing-argument", ("add",), 2, "Missing argument"),
    ("unknown-command", ("forget-everything",), 2, "No such command"),
    pytest.param("year-1", ("add", "x", "--occurred-at", "0001-01-01T00:00:00+08:00"), 2, "range",
                 id="year-1"),
    pytest.param("surrogate", ("add", "bad \udcff byte"), 1, "text", id="surrogate"),
]


def run_cli(db: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "hash", *args])


def assert_clear_error(result: Result, code: int, hint: str) -> None:
    """Exit 1 with one ``error:`` line, or exit 2 with click's usage error; never a traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    everything = result.stdout + result.stderr
    assert "Traceback" not in everything and "internal error" not in everything
    assert result.exit_code == code, (result.exit_code, result.stderr)
    if code == 1:
        assert result.stderr.startswith("error: "), result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    else:
        assert result.stderr.startswith("Usage: ") and "Error: " in result.stderr, result.stderr
    assert hint in result.stderr, result.stderr


@pytest.mark.parametrize(("name", "args", "code", "hint"), _params(CLI_BAD), ids=_ids(CLI_BAD))
def test_cli_refuses_bad_input_clearly(db: Path, name: str, args: tuple[str, ...], code: int, hint: str) -> None:
    before = counts(db)
    result = run_cli(db, *args)
    assert_clear_error(result, code, hint)
    assert result.stdout == ""  # nothing half-done was reported
    assert counts(db) == before


@pytest.mark.parametrize("query", [q for q in QUERIES if q.strip() and "\x00" not in q])
def test_cli_recall_survives_query_syntax(db: Path, query: str) -> None:
    result = run_cli(db, "recall", "--json", "--k", "3", "--", query)  # "--": a query may start with "-"
    assert result.exit_code == 0 and result.exception is None, (result.stderr, result.exception)
    assert isinstance(json.loads(result.stdout)["items"], list)


def test_cli_import_of_a_bad_file_writes_nothing(db: Path, tmp_path: Path) -> None:
    before = counts(db)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "observation", "text": "fine"}\n{oops\n' + json.dumps({"type": "claim"}) + "\n",
                   encoding="utf-8")
    result = run_cli(db, "import", str(bad))
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "line 2:" in result.stderr and "line 3:" in result.stderr and "nothing was imported" in result.stderr
    assert "Traceback" not in result.stderr
    assert counts(db) == before


def test_cli_import_error_comes_first(db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n", encoding="utf-8")
    result = run_cli(db, "import", str(bad))
    assert result.stderr.startswith("error: ")


def test_cli_replay_into_an_existing_file_is_refused(db: Path, tmp_path: Path) -> None:
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"")
    assert_clear_error(run_cli(db, "replay", "--into", str(taken)), 1, "exists")


def test_cli_embedder_none_works(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.db"), "--embedder", "none", "add", "hello"])
    assert result.exit_code == 0, result.stderr


# --- the real console script --------------------------------------------------------------------

HLMEM = shutil.which("hlmem")


def script(db: Path, *args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLMEM_")}
    env.update(HLMEM_DB=str(db), NO_COLOR="1")
    return subprocess.run([HLMEM, "--embedder", "hash", *args], env=env, capture_output=True, timeout=180,  # type: ignore[list-item]
                          cwd=db.parent)


SCRIPT_BAD: list[tuple[tuple[str, ...], int]] = [
    (("add", ""), 1),
    (("add", "hi", "--occurred-at", "2026-03-01T09:00"), 2),
    ((*REMEMBER, "--qualifier", "colour=red"), 1),
    ((*REMEMBER, "--valid-from", "2026-06-01T00:00Z", "--valid-to", "2026-01-01T00:00Z"), 1),
    (("explain", SQL), 1),
    (("recall", '"NEAR( OR * -dark (', "--json"), 0),
    (("recall", SQL, "--json"), 0),
    (("recall", "深色😀 Ωμέγα", "--json"), 0),
]


@pytest.fixture(scope="module")
def script_runs(db: Path) -> Iterator[tuple[dict[str, Any], list[subprocess.CompletedProcess[bytes]]]]:
    if HLMEM is None:
        pytest.skip("the hlmem console script is not installed")
    before = counts(db)
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(lambda case: script(db, *case[0]), SCRIPT_BAD))
    yield before, runs


@pytest.mark.parametrize("index", range(len(SCRIPT_BAD)), ids=[" ".join(c[0][:2]) for c in SCRIPT_BAD])
def test_console_script_bad_input(script_runs: Any, index: int) -> None:
    _, runs = script_runs
    done, (_, code) = runs[index], SCRIPT_BAD[index]
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    assert "Traceback" not in out + err and "internal error" not in err
    assert done.returncode == code, err
    if code == 1:
        assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    elif code == 2:
        assert err.startswith("Usage: ") and "Error: " in err, err
    else:
        assert isinstance(json.loads(out)["items"], list)


def test_console_script_store_intact_after_bad_input(db: Path, script_runs: Any) -> None:
    before, _ = script_runs
    verify = script(db, "replay", "--verify", "--json")
    assert verify.returncode == 0 and json.loads(verify.stdout)["equal"] is True, verify.stderr
    assert_intact(db, before)


def test_console_script_invalid_utf8_argument(tmp_path: Path) -> None:
    if HLMEM is None:
        pytest.skip("the hlmem console script is not installed")
    done = script(tmp_path / "utf8.db", "add", b"bad \xff byte")  # type: ignore[arg-type]
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1 and err.startswith("error: ") and "internal error" not in err
