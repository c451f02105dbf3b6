"""``InMemoryHeartbeats``: the WorkerHeartbeats port in process memory (tests, ``:memory:`` stores)."""

from __future__ import annotations

import threading

from hlmem.application.ports import WorkerBeat, check_worker_state


class InMemoryHeartbeats:
    """One beat per owner in a dict; a lock makes ``beat`` safe from any thread."""

    def __init__(self) -> None:
        self._rows: dict[str, WorkerBeat] = {}
        self._lock = threading.Lock()

    def beat(self, beat: WorkerBeat) -> None:
        check_worker_state(beat.state)
        with self._lock:
            self._rows[beat.owner] = beat

    def beats(self) -> list[WorkerBeat]:
        with self._lock:
            rows = list(self._rows.values())
        return sorted(rows, key=lambda b: (-b.last_beat.timestamp(), b.owner))

