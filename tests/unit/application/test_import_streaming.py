"""Import in bounded memory (issue 33 item 5): two passes over the file, nothing held whole.

- A file imported through ``Memory.import_file`` (bytes read in small chunks, file-local ids
  spilled to disk after two, batches of two) gives the report and the store that importing its
  decoded lines as a list gives (batches of 500, a dict), whatever Hypothesis puts in the file:
  good and bad lines, ids cited before and after they are defined, ids defined twice, forgotten
  content, blank lines, bytes that do not decode.
- The peak memory of an import does not grow with the file (a fake store that keeps nothing).
- A file that changes between the passes is refused with nothing written; standard input (which
  cannot be read twice) is copied to a temporary file first.
"""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.import_files import file_reader, stream_reader
from hlmem.adapters.inmemory.tombstones import InMemoryTombstoneLedger
from hlmem.adapters.memory_api import Memory
from hlmem.adapters.scratch import SpillingMap
from hlmem.application.import_reader import read_jsonl
from hlmem.application.import_service import ImportService
from hlmem.application.reingest import ReingestGuard
from hlmem.domain.errors import ValidationError
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

NOW = "2026-11-30T12:00:00Z"
FORGOTTEN = "我的储物柜密码是4711"


def obs(text: str, local: str | None = None, **more: Any) -> str:
    record = {"type": "observation", "text": text, "occurred_at": "2026-03-01T09:00:00Z", **more}
    if local is not None:
        record["id"] = local
    return json.dumps(record, ensure_ascii=False)


def claim(value: str, evidence: list[str], **more: Any) -> str:
    return json.dumps({"type": "claim", "subject": "用户", "predicate": "works_in", "value": value,
                       "evidence": evidence, **more}, ensure_ascii=False)


LOCALS = ["a", "b", "c"]
line_kinds = st.one_of(
    st.builds(obs, st.sampled_from(["我在杭州工作", "周末去西湖", FORGOTTEN, "I moved to Seattle"]),
              st.none() | st.sampled_from(LOCALS)),
    st.builds(claim, st.sampled_from(["杭州", "北京"]),
              st.lists(st.sampled_from([*LOCALS, "ev_NOSUCHEVENT", "KNOWN"]), max_size=2)),
    st.sampled_from(["", "   ", "{oops", '{"type": "observation", "text": ""}', claim("x", [], importance=7),
                     obs("late", recorded_at="9999-01-01T00:00:00Z"), "[1, 2]", '{"type": "nope"}']),
)


def _fresh() -> tuple[Memory, str]:
    mem = Memory(":memory:", embedder="none", now=NOW)
    known = mem.add("a note already in the store", extract=False).id
    mem.forget(mem.add(FORGOTTEN, extract=False).id)
    return mem, known


def _store(mem: Memory) -> list[tuple]:
    """What the store holds, without its generated ids: each event's type and content, in order."""
    out = []
    for stored in mem.storage.read():
        e = stored.event
        out.append((type(e).__name__, getattr(e, "text", None), getattr(e, "value", None),
                    len(getattr(e, "evidence", ())), getattr(e, "recorded_at", None)))
    return out


@settings(max_examples=60)
@given(st.lists(line_kinds, max_size=14), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans(),
       st.integers(1, 40))
def test_a_file_read_in_chunks_with_ids_on_disk_imports_as_its_lines_in_memory_do(
        lines: list[str], end: str, skip_invalid: bool, bad_byte: bool, chunk: int) -> None:
    first, known = _fresh()
    second, known2 = _fresh()
    try:
        text = [line.replace("KNOWN", known) for line in lines]
        data = end.join(text).encode()
        if bad_byte:
            data += end.encode() + b'{"type": "observation", "text": "\xff"}'
        decoded, invalid = _decoded(data)
        expected = first.import_jsonl(decoded, invalid=invalid, skip_invalid=skip_invalid, extract=False)
        c = second._container
        service = ImportService(c.ingest(), second.storage, c.forget().guard, c.ids(), DEFAULT_REGISTRY, batch=2,
                                scratch=lambda: SpillingMap(limit=2))

        def read():
            return read_jsonl(io.BytesIO(data.replace(known.encode(), known2.encode())), chunk=chunk)

        got = service.import_stream(read, skip_invalid=skip_invalid, extract=False)
        assert _same_ids(got, known2, known) == expected
        assert _store(second) == _store(first)
    finally:
        first.close()
        second.close()


def _decoded(data: bytes) -> tuple[list[str], list[str]]:
    raws = list(read_jsonl(io.BytesIO(data)))
    return [r.text or "" for r in raws], [r.error for r in raws if r.error]


def _same_ids(report: Any, mine: str, theirs: str) -> Any:
    from attrs import evolve

    return evolve(report, errors=tuple(e.replace(mine, theirs) for e in report.errors),
                  blocked=tuple(b.replace(mine, theirs) for b in report.blocked))


class _Discard:
    """An ingest that keeps nothing: what the import itself holds is all that is measured."""

    def __init__(self) -> None:
        self.written = 0

    def record(self, cmds, *, extract: bool = True) -> list:
        self.written += len(cmds)
        return []


class _NoStore:
    def get_observations(self, ids):
        return {}


def _peak(lines: int, tmp_path: Path) -> int:
    path = tmp_path / f"{lines}.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for n in range(lines):  # one content (the domain's bounded caches stay as they are), ids of their own
            f.write(obs("一条记录：" + "内容" * 40, f"o{n}") + "\n")
            f.write(claim("杭州", [f"o{n}"]) + "\n")
    ingest = _Discard()
    guard = ReingestGuard(InMemoryTombstoneLedger(), DEFAULT_REGISTRY)
    service = ImportService(ingest, _NoStore(), guard, SequentialIds(1), DEFAULT_REGISTRY, batch=50,
                            scratch=lambda: SpillingMap(limit=100))
    tracemalloc.start()
    try:
        with file_reader(path, chunk=32 * 1024) as read:  # both files are many chunks long
            report = service.import_stream(read, extract=False)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        assert report.written == ingest.written == 2 * lines and report.errors == ()


def test_the_peak_memory_of_an_import_does_not_grow_with_the_file(tmp_path: Path) -> None:
    small, large = _peak(300, tmp_path), _peak(2_400, tmp_path)
    # Eight times the lines: the peak stays (a whole-file import grew about 4 bytes per byte of file).
    assert large < small * 1.25, (small, large)


def test_a_file_changed_between_the_passes_is_refused_with_nothing_written(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(obs("one") + "\n" + obs("two") + "\n", encoding="utf-8")
    with Memory(":memory:", embedder="none", now=NOW) as mem, file_reader(path) as read:
        passes = []

        def reading():
            passes.append(1)
            if len(passes) == 2:
                path.write_text(obs("one") + "\n" + obs("two, changed") + "\n" + obs("three") + "\n", encoding="utf-8")
            return read()

        with pytest.raises(ValidationError, match="changed while it was being checked"):
            mem._container.imports().import_stream(reading, extract=False)
        assert mem.storage.last_position() == 0


def test_standard_input_is_read_twice_through_a_temporary_copy() -> None:
    class Pipe(io.BytesIO):
        def seekable(self) -> bool:
            return False

    data = (obs("我在杭州工作", "a") + "\n" + claim("杭州", ["a"]) + "\n").encode()
    with stream_reader(Pipe(data)) as read:
        assert [r.text for r in read()] == [r.text for r in read()] == data.decode().splitlines()
    with Memory(":memory:", embedder="none", now=NOW) as mem:
        planned: list[int] = []
        report = mem.import_file(Pipe(data), planned=planned.append, extract=False)
        assert (report.lines, report.written, report.errors, planned) == (2, 2, (), [2])
        (made,) = mem.history("用户", "works_in")
        assert [o.text for o in mem.explain(made.claim_id).evidence] == ["我在杭州工作"]


def test_a_one_shot_iterator_of_lines_is_imported_like_a_list() -> None:
    lines = [obs("我在杭州工作", "a"), claim("杭州", ["a"]), "{oops"]
    with Memory(":memory:", embedder="none", now=NOW) as a, Memory(":memory:", embedder="none", now=NOW) as b:
        listed = a.import_jsonl(lines, skip_invalid=True, extract=False)
        streamed = b.import_jsonl(iter(lines), skip_invalid=True, extract=False)
        assert listed == streamed and listed.written == 2 and listed.errors[0].startswith("line 3: not JSON")
        assert _store(a) == _store(b)
