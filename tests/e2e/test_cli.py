"""The ``hlmem`` command, run as a user runs it (HLMEM_DB in a temp dir), through the console script's
entry function in this process (tests/support/cli.py; ``HLMEM_TEST_CLI=subprocess`` runs the
installed script); ``--help`` always runs the installed script.

Writes run in order once per module; the reads that check them then run together (in parallel
when each is a process paying the interpreter and jieba start-up).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, Run, run_cli  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

T_ADD = "2026-03-01T09:00:00+08:00"  # the clock for the first writes
T_ADD_UTC = "2026-03-01T01:00:00.000000Z"
T_MOVE = "2026-07-01T00:00:00Z"  # when we learnt of the move
T_READ = "2026-08-01T00:00:00Z"


def hlmem(db: Path, *args: str, embedder: str = "hash", stdin: str | None = None, process: bool = False) -> Run:
    """Run the command; ``embedder`` goes first as a global option; ``process``: the installed script."""
    argv = [*(["--embedder", embedder] if embedder else []), *args]
    return run_cli(db, argv, stdin=stdin, shown=args, process=process)


def parallel(db: Path, commands: Sequence[Sequence[str]], *, process: bool = False) -> list[Run]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda args: hlmem(db, *args, process=process), commands))


def assert_clean(run: Run) -> None:
    assert "Traceback" not in run.out + run.err, run


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Writes through the CLI, in order; returns their outputs and the db path."""
    db = tmp_path_factory.mktemp("cli") / "memory.db"
    added = hlmem(db, "--now", T_ADD, "add", "我在杭州工作，界面用深色模式", "--session", "s1", "--no-extract", "--json").json()
    first = hlmem(db, "--now", T_ADD, "remember", "--subject", "用户", "--predicate", "works_in", "--value", "杭州",
                  "--valid-from", "2026-01-01", "--qualifier", "reason=项目", "--evidence", added["id"],
                  "--json").json()
    moved = hlmem(db, "--now", T_MOVE, "remember", "--subject", "用户", "--predicate", "works_in",
                  "--value", "北京", "--valid-from", "2026-06-01T00:00:00+08:00", "--json").json()
    lines = [
        {"type": "observation", "text": "I prefer tea in the morning", "id": "o1",
         "occurred_at": "2026-02-01T08:00:00+08:00", "recorded_at": "2026-02-01T00:00:00Z"},
        {"type": "claim", "subject": "user", "predicate": "likes", "value": "tea", "evidence": ["o1"],
         "valid_from": "2026-02-01", "recorded_at": "2026-02-01T00:00:00Z"},
    ]
    jsonl = db.parent / "in.jsonl"
    jsonl.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    imported = hlmem(db, "import", str(jsonl), "--json").json()
    return {"db": db, "added": added, "first": first, "moved": moved, "imported": imported}


@pytest.fixture(scope="module")
def reads(store: dict[str, Any]) -> dict[str, Run]:
    """Every read the tests check, run in parallel against the finished store."""
    names = {
        "recall_now": ("--now", T_READ, "recall", "工作", "--kind", "claim", "--json"),
        "recall_past": ("--now", T_READ, "recall", "工作", "--kind", "claim", "--valid-at", "2026-03-01", "--json"),
        "recall_known_before": ("--now", T_READ, "recall", "工作", "--kind", "claim", "--valid-at", "2026-06-15",
                                "--known-at", "2026-06-20T00:00:00Z", "--json"),
        "recall_events": ("recall", "深色模式", "--kind", "event", "--k", "1", "--json"),
        "recall_table": ("--now", T_READ, "recall", "杭州"),
        "history": ("history", "--subject", "用户", "--predicate", "works_in", "--json"),
        "explain_claim": ("explain", store["first"]["id"], "--json"),
        "explain_event": ("explain", store["added"]["id"], "--json"),
        "replay": ("replay", "--verify", "--json"),
        "stats": ("stats", "--json"),
    }
    runs = parallel(store["db"], list(names.values()))
    return dict(zip(names, runs))


# --- writes -------------------------------------------------------------------------------------


def test_writes_report_ids_and_outcomes(store: dict[str, Any]) -> None:
    assert store["added"]["id"].startswith("ev_") and store["added"]["outcome"] == "recorded"
    assert store["first"]["id"].startswith("cl_") and store["first"]["outcome"] == "created"
    assert store["moved"]["outcome"] == "superseded"
    assert store["moved"]["position"] > store["first"]["position"] > store["added"]["position"] >= 1
    assert store["imported"] == {"lines": 2, "written": 2, "errors": []}


# --- recall -------------------------------------------------------------------------------------

CLAIM_KEYS = {"id", "kind", "text", "score", "subject", "predicate", "value", "valid_from", "valid_to",
              "recorded_from", "recorded_to"}


def test_recall_json_shape(reads: dict[str, Run]) -> None:
    data = reads["recall_now"].json()
    assert isinstance(data["items"], list) and data["items"]
    for item in data["items"]:
        assert CLAIM_KEYS <= set(item), item
        assert item["kind"] == "claim" and isinstance(item["score"], float)
    events = reads["recall_events"].json()["items"]
    assert len(events) == 1 and {"id", "kind", "text", "score"} <= set(events[0])
    assert events[0]["kind"] == "event" and events[0]["text"] == "我在杭州工作，界面用深色模式"


def works_in(run: Run) -> list[tuple[str, str]]:
    return [(i["value"], i["status"]) for i in run.json()["items"] if i["predicate"] == "works_in"]


def test_recall_now_sees_only_the_new_city(reads: dict[str, Run], store: dict[str, Any]) -> None:
    assert works_in(reads["recall_now"]) == [("北京", "active")]
    assert reads["recall_now"].json()["valid_at"] == "2026-08-01T00:00:00.000000Z"  # --now fixes the clock


def test_recall_in_the_past_sees_the_superseded_city(reads: dict[str, Run]) -> None:
    assert works_in(reads["recall_past"]) == [("杭州", "superseded")]


def test_recall_as_known_before_the_news(reads: dict[str, Run]) -> None:
    (item,) = [i for i in reads["recall_known_before"].json()["items"] if i["predicate"] == "works_in"]
    assert item["value"] == "杭州" and item["valid_to"] is None and item["recorded_to"] is not None


def test_human_recall_is_a_table(reads: dict[str, Run]) -> None:
    run = reads["recall_table"]
    assert run.code == 0 and "recall (valid at 2026-08-01" in run.out
    assert "┃" in run.out and "│" in run.out  # rich box drawing
    assert "杭州" in run.out
    with pytest.raises(json.JSONDecodeError):
        json.loads(run.out)


# --- history, explain ---------------------------------------------------------------------------


def test_history_oldest_first_with_statuses(reads: dict[str, Run], store: dict[str, Any]) -> None:
    items = reads["history"].json()["items"]
    assert [(i["id"], i["value"], i["status"]) for i in items] == [
        (store["first"]["id"], "杭州", "superseded"), (store["moved"]["id"], "北京", "active")]
    old, new = items
    assert old["qualifiers"] == {"reason": "项目"}
    assert old["valid_from"] == "2026-01-01T00:00:00.000000Z" and old["valid_to"] == "2026-05-31T16:00:00.000000Z"
    assert old["recorded_from"] == "2026-07-01T00:00:00.000000Z"  # the current row opened when we learnt
    assert old["versions"][0] == {"valid_from": "2026-01-01T00:00:00.000000Z", "valid_to": None,
                                  "recorded_from": T_ADD_UTC, "recorded_to": "2026-07-01T00:00:00.000000Z"}
    assert new["recorded_from"] == "2026-07-01T00:00:00.000000Z"  # --now is the recorded time


def test_explain_claim_gives_evidence_verbatim_and_chain(reads: dict[str, Run], store: dict[str, Any]) -> None:
    data = reads["explain_claim"].json()
    assert data["kind"] == "claim" and data["claim"]["id"] == store["first"]["id"]
    assert [e["text"] for e in data["evidence"]] == ["我在杭州工作，界面用深色模式"]
    assert data["evidence"][0]["recorded_at"] == T_ADD_UTC and data["evidence"][0]["session"] == "s1"
    assert [c["id"] for c in data["chain"]] == [store["first"]["id"], store["moved"]["id"]]
    assert data["missing_evidence"] == []


def test_explain_event_lists_the_claims_citing_it(reads: dict[str, Run], store: dict[str, Any]) -> None:
    data = reads["explain_event"].json()
    assert data["event"]["text"] == "我在杭州工作，界面用深色模式"
    assert [c["id"] for c in data["cited_by"]] == [store["first"]["id"]]


# --- replay, stats ------------------------------------------------------------------------------


def test_replay_verify_equal(reads: dict[str, Run]) -> None:
    data = reads["replay"].json()
    assert data["equal"] is True and data["differences"] == []
    assert data["events"] == reads["stats"].json()["events"]


def test_stats(reads: dict[str, Run], store: dict[str, Any]) -> None:
    data = reads["stats"].json()
    assert data["events"] == 6  # add, assert, assert + supersede, import observation + claim
    assert (data["observations"], data["claims"]) == (2, 3)
    assert (data["claims_active"], data["claims_superseded"]) == (2, 1)
    assert data["embedder"] == "hash" and data["db"] == str(store["db"])
    assert data["vectors"] == 5  # every observation and claim, embedded once


def test_no_command_printed_a_traceback(reads: dict[str, Run]) -> None:
    for run in reads.values():
        assert_clean(run)
        assert run.code == 0, run


# --- the clock, help, demo ----------------------------------------------------------------------


def test_now_fixes_the_recorded_time(reads: dict[str, Run], store: dict[str, Any]) -> None:
    event = reads["explain_event"].json()["event"]
    assert event["recorded_at"] == T_ADD_UTC and event["occurred_at"] == T_ADD_UTC  # --now, to the microsecond
    claim = reads["explain_claim"].json()["claim"]
    assert claim["versions"][0]["recorded_from"] == T_ADD_UTC


def test_help_and_demo_help(tmp_path: Path) -> None:
    runs = parallel(tmp_path / "unused.db", [("--help",), ("demo", "--help")], process=True)  # the real script
    for run in runs:
        assert run.code == 0 and run.out.startswith("Usage: hlmem"), run
    assert "remember" in runs[0].out and "--keep" in runs[1].out


def test_demo_passes_with_the_hash_embedder(tmp_path: Path) -> None:
    run = hlmem(tmp_path / "unused.db", "demo")
    assert_clean(run)
    assert run.code == 0, run.err
    assert "checks passed" in run.out and "✗" not in run.out
    assert not (tmp_path / "unused.db").exists()  # the demo uses its own temporary store



# --- the runner itself --------------------------------------------------------------------------

#: Commands whose exit code, output and errors must be the same in this process and in the script:
#: successes, an error line (exit 1), usage errors (exit 2, Click's wrapping), a refusal without a terminal.
SAME_BOTH_WAYS = [
    ("stats", "--json"),
    ("explain", "cl_NOPE"),
    ("recall", "茶", "--k", "0"),
    ("remember", "--subject", "u", "--predicate", "works_in", "--value", "x", "--qualifier", "temporary"),
    ("forget", "--subject", "用户"),
    ("--now", T_READ, "recall", "茶"),
]


def test_the_in_process_runner_matches_the_installed_script(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ours = [hlmem(tmp_path / "a" / "memory.db", *args) for args in SAME_BOTH_WAYS]
    first = hlmem(tmp_path / "b" / "memory.db", *SAME_BOTH_WAYS[0], process=True)  # creates the store
    script = [first, *parallel(tmp_path / "b" / "memory.db", SAME_BOTH_WAYS[1:], process=True)]
    for mine, theirs in zip(ours, script, strict=True):
        assert (mine.code, mine.err) == (theirs.code, theirs.err), (mine, theirs)
        assert mine.out.replace(str(tmp_path / "a"), "") == theirs.out.replace(str(tmp_path / "b"), ""), (mine, theirs)
    assert [r.code for r in ours] == [0, 1, 2, 2, 2, 0]
