"""Import as one application call: parse, validate, screen forgotten content, write in batches, report.

The file is read twice, line by line, and never held whole (issue 33 item 5): the first pass
parses, validates and screens every line (nothing is written); unless every line is good or
invalid lines are skipped, that is the end of it. The second pass reads the file again and
writes the lines the first pass kept, in transactions of :data:`IMPORT_BATCH`. Between the
passes only what later lines may need is kept — file-local ids, which observation lines were
kept or blocked, the numbers of the lines not to write and the report's messages — in
``ScratchMap``s that keep on disk what would not fit in memory. The first pass uses placeholder
event ids that no input can name; the second makes the real ones, in file order, as before.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence

from attrs import frozen

from hlmem.application.import_reader import RawLine
from hlmem.application.importing import ImportLine, Screening, parse_record
from hlmem.application.ingest import IngestService
from hlmem.application.ports import ClaimReader, IdGenerator, ScratchMap
from hlmem.application.reingest import ReingestGuard
from hlmem.domain.commands import AssertClaim, RecordObservation, validate_claim, validate_observation
from hlmem.domain.errors import ValidationError
from hlmem.domain.slots import SlotRegistry

#: Lines written per transaction by import (and screened per store query).
IMPORT_BATCH = 500


@frozen
class ImportReport:
    """What an import did: lines read, written, and every refused line with its reason."""

    lines: int
    written: int
    errors: tuple[str, ...]
    #: Valid lines not written because their content was forgotten (re-ingest blocking).
    blocked: tuple[str, ...] = ()


class _DictScratch(dict):
    def close(self) -> None:
        self.clear()


class ImportService:
    """Imports observations and claims with their original times (docs/import-format.md).

    Every line is parsed and validated first; unless ``skip_invalid``, one bad line refuses the
    whole file and nothing is written. Forgotten content is skipped and reported; a claim citing
    a forgotten or unknown event of the store is a bad line (docs/forgetting.md).

    :param scratch: makes an empty ``ScratchMap`` (default: a ``dict``, all in memory).
    """

    def __init__(self, ingest: IngestService, reader: ClaimReader, guard: ReingestGuard, ids: IdGenerator,
                 registry: SlotRegistry, *, batch: int = IMPORT_BATCH,
                 scratch: Callable[[], ScratchMap] = _DictScratch) -> None:
        self._ingest = ingest
        self._reader = reader
        self._guard = guard
        self._ids = ids
        self._registry = registry
        self._batch = batch
        self._scratch = scratch

    def import_lines(self, lines: Iterable[str], *, progress: Callable[[int], None] | None = None,
                     skip_invalid: bool = False, extract: bool = True, invalid: Sequence[str] = ()) -> ImportReport:
        """Import JSONL lines already decoded; with ``extract``, observations get extraction jobs.

        :param lines: read twice, so a one-shot iterator is first made a list (large inputs go
            through :meth:`import_stream`, which reads a file twice instead).
        :param invalid: lines already found bad before parsing (``"line N…"``, e.g. undecodable
            bytes, whose lines are blank in ``lines``): counted and reported with the others, in
            line order.
        """
        kept = lines if isinstance(lines, Sequence) else list(lines)
        bad = {_line_number(e): e for e in invalid}

        def read() -> Iterator[RawLine]:
            for number, text in enumerate(kept, start=1):
                error = bad.get(number)
                yield RawLine(number, None if error else text, error)
            for number in sorted(n for n in bad if n > len(kept)):
                yield RawLine(number, None, bad[number])

        return self.import_stream(read, progress=progress, skip_invalid=skip_invalid, extract=extract)

    def import_stream(self, read: Callable[[], Iterable[RawLine]], *, progress: Callable[[int], None] | None = None,
                      planned: Callable[[int], None] | None = None, skip_invalid: bool = False,
                      extract: bool = True) -> ImportReport:
        """Import the lines ``read()`` yields (called twice: it reads the file from its start each
        time, e.g. :func:`~hlmem.application.import_reader.read_jsonl` over a file).

        :param planned: called once, between the passes, with how many lines will be written.
        :param progress: called after each written batch with how many lines are written so far.
        :raises ValidationError: the second pass read something the first did not (the file
            changed while it was imported); the batches written before stay.
        """
        maps = [self._scratch() for _ in range(4)]
        try:
            checked = _Check(self._reader, self._guard, self._registry, self._batch, *maps[:3]).run(read())
            if checked.errors and not skip_invalid:
                return ImportReport(checked.lines, 0, checked.errors)
            if planned:
                planned(checked.to_write)
            written = self._write(read(), checked.skip, maps[3], progress=progress, extract=extract)
            if written != checked.to_write:
                raise ValidationError(f"the file changed while it was imported: {written} lines written, "
                                      f"{checked.to_write} expected", field="file")
            return ImportReport(checked.lines, written, checked.errors, checked.blocked)
        finally:
            for m in maps:
                m.close()

    def _write(self, lines: Iterable[RawLine], skip: frozenset[int], local_ids: ScratchMap, *,
               progress: Callable[[int], None] | None, extract: bool) -> int:
        """The second pass: parse again (with real event ids, in file order) and write in batches."""
        written = 0
        chunk: list[tuple[RecordObservation | AssertClaim, object]] = []
        for raw in lines:
            if raw.text is None or raw.number in skip or not raw.text.strip():
                continue
            try:
                cmd, recorded_at = parse_record(json.loads(raw.text), self._ids.new, local_ids)
            except (RecursionError, ValueError) as exc:
                raise ValidationError(f"the file changed while it was imported: line {raw.number} no longer "
                                      f"parses ({exc}); {written} lines were written", field="file") from None
            chunk.append((cmd, recorded_at))
            if len(chunk) >= self._batch:
                written += self._flush(chunk, extract)
                if progress:
                    progress(written)
        if chunk:
            written += self._flush(chunk, extract)
            if progress:
                progress(written)
        return written

    def _flush(self, chunk: list, extract: bool) -> int:
        self._ingest.record(chunk, extract=extract)
        n = len(chunk)
        chunk.clear()
        return n


@frozen
class _Checked:
    lines: int
    to_write: int
    errors: tuple[str, ...]
    blocked: tuple[str, ...]
    skip: frozenset[int]


class _Check:
    """The first pass: parse, validate and screen every line; write nothing."""

    def __init__(self, reader: ClaimReader, guard: ReingestGuard, registry: SlotRegistry, batch: int,
                 local_ids: ScratchMap, recorded: ScratchMap, dropped: ScratchMap) -> None:
        self._guard = guard
        self._registry = registry
        self._batch = batch
        self._local_ids = local_ids
        self._screening = Screening(reader, recorded, dropped)
        # Placeholder event ids of the form ev_… that no input can name (96 random bits) and no
        # store holds (its ids are 26 upper-case characters).
        self._mark = f"ev_{secrets.token_hex(12)}L"
        self.errors: list[tuple[int, str]] = []
        self.held: list[tuple[int, str]] = []
        self.skip: set[int] = set()
        self.read = self.to_write = 0

    def run(self, lines: Iterable[RawLine]) -> _Checked:
        pending: list[ImportLine] = []
        for raw in lines:
            if raw.text is None:
                self._bad(raw.number, raw.error or f"line {raw.number}: unreadable")
                continue
            if not raw.text.strip():
                continue
            self.read += 1
            item = self._parse(raw)
            if item is not None:
                pending.append(item)
                if len(pending) >= self._batch:
                    self._screen(pending)
        self._screen(pending)
        return _Checked(self.read, self.to_write, tuple(e for _, e in sorted(self.errors, key=lambda x: x[0])),
                        tuple(f"line {n}: blocked: {why}" for n, why in sorted(self.held)), frozenset(self.skip))

    def _bad(self, number: int, message: str) -> None:
        """A line that could not be read (a byte that does not decode): counted and reported."""
        self.read += 1
        self._refuse(number, message)

    def _parse(self, raw: RawLine) -> ImportLine | None:
        number = raw.number
        try:
            cmd, recorded_at = parse_record(json.loads(raw.text), lambda _prefix: f"{self._mark}{number}",
                                            self._local_ids)
        except json.JSONDecodeError as exc:
            return self._refuse(number, f"line {number}: not JSON ({exc.msg})")
        except ValidationError as exc:
            return self._refuse(number, f"line {number}: {exc}")
        except (RecursionError, ValueError) as exc:
            return self._refuse(number, f"line {number}: not usable JSON ({type(exc).__name__})")
        problem = _problem(cmd, self._registry)
        if problem:
            return self._refuse(number, f"line {number}: {problem}")
        return ImportLine(number, cmd, recorded_at)

    def _refuse(self, number: int, message: str) -> None:
        self.errors.append((number, message))
        self.skip.add(number)
        return None

    def _named(self, message: str) -> str:
        """A message with each placeholder event id named as the line it stands for."""
        return re.sub(re.escape(self._mark) + r"(\d+)", r"line \1", message)

    def _screen(self, pending: list[ImportLine]) -> None:
        if not pending:
            return
        blocked = self._guard.blocked([i.command for i in pending])
        keep, errors, held = self._screening.screen(pending, blocked)
        self.to_write += len(keep)
        self.errors += [(_line_number(e), self._named(e)) for e in errors]
        self.held += [(n, self._named(why)) for n, why in held]
        self.skip.update([_line_number(e) for e in errors] + [n for n, _ in held])
        pending.clear()


def _line_number(error: str) -> int:
    found = re.match(r"line (\d+)", error)
    return int(found[1]) if found else 0


def _problem(command: RecordObservation | AssertClaim, registry: SlotRegistry) -> str | None:
    """Every validation problem of one command, as one line (None when it is valid)."""
    try:
        if isinstance(command, RecordObservation):
            validate_observation(command)
        else:
            validate_claim(command, registry)
    except ValidationError as exc:
        return str(exc)
    except ExceptionGroup as group:
        return "; ".join(str(e) for e in group.exceptions)
    return None
