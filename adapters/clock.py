"""Clock adapters: the system clock and a fixed clock (``--now``, tests, imports)."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from hlmem.domain.time import UTC, require_aware, require_supported


class SystemClock:
    """UTC wall-clock time that never goes backwards within the process."""

    def __init__(self) -> None:
        self._last = datetime.min.replace(tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            current = datetime.now(UTC)
            # A wall clock can step back (NTP); recorded time must not, or "known at" breaks.
            if current <= self._last:
                current = self._last + timedelta(microseconds=1)
            self._last = current
            return current


class FixedClock:
    """A clock that says what it is told; ``advance`` moves it (tests move time, never sleep)."""

    def __init__(self, at: datetime) -> None:
        self._at = require_aware(at, field="now")

    def now(self) -> datetime:
        return self._at

    def set(self, at: datetime) -> None:
        """Jump to ``at``."""
        self._at = require_aware(at, field="now")

    def advance(self, delta: timedelta) -> None:
        """Move forward by ``delta`` (refused, and the clock left where it was, past the supported range)."""
        try:
            moved = self._at + delta
        except OverflowError:
            moved = None
        self._at = require_supported(moved, field="now", shown=f"{self._at.isoformat()} + {delta}")
