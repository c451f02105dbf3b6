"""Imported 2023 history recalled in "2026": each event keeps its own time as its occurred time, and
recall reads the question against the reference time it is given (``now=``, ``recall --now``)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from hlmem import Memory
from hlmem.adapters.cli.main import cli
from hlmem.domain.errors import ValidationError
from hlmem.domain.query_understanding import TimeMode

#: The wall clock of the import: December 2026.
CLOCK = datetime(2026, 12, 3, 6, 0, tzinfo=timezone.utc)
#: The question's own date: the conversation's last session.
REF = datetime(2023, 5, 20, 12, 0, tzinfo=timezone.utc)
HISTORY = [
    ("a1", "2022-08-14T10:00:00+00:00", "Andrew: we went hiking in the Rockies with my dog Toby"),
    ("a2", "2023-03-11T10:00:00+00:00", "Andrew: I adopted a second dog, a beagle called Buddy"),
    ("a3", "2023-05-16T18:00:00+00:00", "Andrew: I baked sourdough bread for my friends"),
    ("a4", "2023-05-19T09:00:00+00:00", "Andrew: I adopted a cat called Pixel, so three pets now"),
]


def _jsonl() -> list[str]:
    return [json.dumps({"type": "observation", "text": text, "occurred_at": at, "session": f"s{i}", "role": "Andrew",
                        "id": key}) for i, (key, at, text) in enumerate(HISTORY)]


@pytest.fixture(params=["memory", "sqlite"])
def mem(request: pytest.FixtureRequest, tmp_path: Path) -> Memory:
    m = Memory(":memory:" if request.param == "memory" else tmp_path / "m.db", embedder="hash", now=CLOCK)
    report = m.import_jsonl(_jsonl(), extract=False)
    assert report.written == len(HISTORY) and not report.errors
    yield m
    m.close()


def _texts(result) -> list[str]:
    return [i.text for i in result.items]


def test_import_keeps_each_events_own_time_as_its_occurred_time(mem: Memory) -> None:
    items = mem.recall("Andrew", k=10, now=REF).items
    assert sorted(i.occurred_at.isoformat() for i in items) == sorted(
        datetime.fromisoformat(at).isoformat() for _, at, _ in HISTORY)
    assert {i.recorded_from for i in items} == {CLOCK}  # learnt at the import, in 2026


def test_as_of_a_date_is_a_valid_time_and_finds_imported_history(mem: Memory) -> None:
    result = mem.recall("Which pets had Andrew adopted as of April 2023?", now=REF)
    assert result.intent.as_of and result.intent.known_at is None
    assert result.known_at == CLOCK  # everything memory has learnt, though it learnt it in 2026
    assert result.valid_at == datetime(2023, 5, 1, tzinfo=timezone.utc) - timedelta(microseconds=1)
    texts = _texts(result)
    assert texts and any("Buddy" in t for t in texts)
    assert not any("Pixel" in t for t in texts)  # adopted after April: not yet true then


def test_a_month_without_a_year_is_the_latest_one_before_the_reference(mem: Memory) -> None:
    result = mem.recall("Where did Andrew go hiking in August?", now=REF)
    assert result.intent.time_mode is TimeMode.AT
    assert result.intent.valid_range.start == datetime(2022, 8, 1, tzinfo=timezone.utc)
    assert result.items and "Rockies" in result.items[0].text
    # The same question against the wall clock reads August 2026, a month with nothing in it.
    assert mem.recall("Where did Andrew go hiking in August?").intent.valid_range.start.year == 2026


def test_a_weekday_is_the_latest_one_before_the_reference(mem: Memory) -> None:
    result = mem.recall("What bread did Andrew make on Tuesday?", now=REF)
    assert result.intent.valid_range.start == datetime(2023, 5, 16, tzinfo=timezone.utc)
    assert result.items and "sourdough" in result.items[0].text


def test_the_reference_time_is_the_default_valid_time(mem: Memory) -> None:
    before = mem.recall("Andrew adopted a cat Pixel", now=datetime(2023, 5, 1, tzinfo=timezone.utc))
    assert before.valid_at == datetime(2023, 5, 1, tzinfo=timezone.utc) and before.known_at == CLOCK
    assert not any("Pixel" in t for t in _texts(before))  # it happened after the reference time
    assert any("Pixel" in t for t in _texts(mem.recall("Andrew adopted a cat Pixel", now=REF)))


def test_explicit_instants_still_win_over_the_reference_time(mem: Memory) -> None:
    at = datetime(2022, 9, 1, tzinfo=timezone.utc)
    result = mem.recall("Which pets had Andrew adopted as of April 2023?", now=REF, valid_at=at)
    assert result.valid_at == at and not result.intent.as_of
    assert not any("Buddy" in t for t in _texts(result))


def test_a_naive_reference_time_is_refused(mem: Memory) -> None:
    with pytest.raises(ValidationError):
        mem.recall("Andrew", now=datetime(2023, 5, 20))


def test_cli_recall_now_is_the_reference_time_and_the_global_now_the_clock(tmp_path: Path) -> None:
    db, data = tmp_path / "m.db", tmp_path / "history.jsonl"
    data.write_text("\n".join(_jsonl()) + "\n", encoding="utf-8")
    runner = CliRunner()
    base = ["--db", str(db), "--embedder", "hash", "--now", CLOCK.isoformat()]
    assert runner.invoke(cli, [*base, "import", str(data)]).exit_code == 0
    done = runner.invoke(cli, [*base, "recall", "Where did Andrew go hiking in August?", "--now",
                               REF.isoformat(), "--json"])
    assert done.exit_code == 0, done.output
    out = json.loads(done.stdout)
    assert out["valid_at"].startswith("2023-05-20") and out["known_at"].startswith("2026-12-03")
    assert out["intent"]["valid_range"][0].startswith("2022-08-01")
    assert out["items"] and "Rockies" in out["items"][0]["text"]
    # Without recall --now the question is read against the clock, here the global --now.
    plain = json.loads(runner.invoke(cli, [*base, "recall", "Where did Andrew go hiking in August?", "--json"]).stdout)
    assert plain["valid_at"].startswith("2026-12-03") and plain["intent"]["valid_range"][0].startswith("2026-08-01")
    bad = runner.invoke(cli, [*base, "recall", "Andrew", "--now", "yesterday"])
    assert bad.exit_code == 2 and "--now" in bad.output
