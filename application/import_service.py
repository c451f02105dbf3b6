"""Import as one application call: parse, validate, screen forgotten content, write in batches, report."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from attrs import frozen

from hlmem.application.importing import ImportLine, parse_jsonl, screen
from hlmem.application.ingest import IngestService
from hlmem.application.ports import ClaimReader, IdGenerator
from hlmem.application.reingest import ReingestGuard
from hlmem.domain.commands import AssertClaim, RecordObservation, validate_claim, validate_observation
from hlmem.domain.errors import ValidationError
from hlmem.domain.slots import SlotRegistry

#: Lines written per transaction by import.
IMPORT_BATCH = 500


@frozen
class ImportReport:
    """What an import did: lines read, written, and every refused line with its reason."""

    lines: int
    written: int
    errors: tuple[str, ...]
    #: Valid lines not written because their content was forgotten (re-ingest blocking).
    blocked: tuple[str, ...] = ()


class ImportService:
    """Imports observations and claims with their original times (docs/import-format.md).

    Every line is parsed and validated first; unless ``skip_invalid``, one bad line refuses the
    whole file and nothing is written. Forgotten content is skipped and reported; a claim citing
    a forgotten or unknown event of the store is a bad line (docs/forgetting.md).
    """

    def __init__(self, ingest: IngestService, reader: ClaimReader, guard: ReingestGuard, ids: IdGenerator,
                 registry: SlotRegistry, *, batch: int = IMPORT_BATCH) -> None:
        self._ingest = ingest
        self._reader = reader
        self._guard = guard
        self._ids = ids
        self._registry = registry
        self._batch = batch

    def import_lines(self, lines: Iterable[str], *, progress: Callable[[int], None] | None = None,
                     skip_invalid: bool = False, extract: bool = True, invalid: Sequence[str] = ()) -> ImportReport:
        """Import JSONL lines; with ``extract``, observations get extraction jobs for the worker.

        :param invalid: lines already found bad before parsing (``"line N…"``, e.g. undecodable
            bytes, whose lines are blank in ``lines``): counted and reported with the others, in
            line order.
        """
        parsed, errors = parse_jsonl(lines, self._ids.new)
        errors = sorted([*invalid, *errors], key=_line_number)
        read = len(parsed) + len(errors)
        good: list[ImportLine] = []
        for item in parsed:
            problem = _problem(item.command, self._registry)
            if problem:
                errors.append(f"line {item.line}: {problem}")
            else:
                good.append(item)
        blocked_flags = self._guard.blocked([i.command for i in good])
        good, refused, blocked = screen(good, blocked_flags, self._reader)
        errors += refused
        if errors and not skip_invalid:
            return ImportReport(read, 0, tuple(errors))
        written = 0
        for start in range(0, len(good), self._batch):
            chunk = good[start:start + self._batch]
            self._ingest.record([(i.command, i.recorded_at) for i in chunk], extract=extract)
            written += len(chunk)
            if progress:
                progress(written)
        return ImportReport(read, written, tuple(errors), tuple(blocked))


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
