"""Identifier generation: ``prefix_`` + a ULID (time-ordered, 26 Crockford base-32 characters)."""

from __future__ import annotations

import itertools
import os
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        value, rem = divmod(value, 32)
        chars.append(_ALPHABET[rem])
    return "".join(reversed(chars))


_PAIRS = [a + b for a in _ALPHABET for b in _ALPHABET]  # 10 bits -> two characters


def _encode80(value: int) -> str:
    """16 Crockford characters of an 80-bit integer, ten bits at a time (base64's is pure Python)."""
    return "".join(_PAIRS[(value >> shift) & 0x3FF] for shift in (70, 60, 50, 40, 30, 20, 10, 0))


class UlidGenerator:
    """Monotonic ULIDs: within one millisecond the random part counts up, so ids sort by creation."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = -1
        self._last_rand = 0
        self._last_prefix = ""

    def new(self, prefix: str) -> str:
        with self._lock:
            ms = time.time_ns() // 1_000_000
            if ms <= self._last_ms:
                ms = self._last_ms
                rand = self._last_rand + 1
            else:
                rand = int.from_bytes(os.urandom(10), "big") >> 1  # headroom for increments
            if ms != self._last_ms or not self._last_prefix:
                self._last_prefix = _encode(ms, 10)
            self._last_ms, self._last_rand = ms, rand
            stamp = self._last_prefix
        return f"{prefix}_{stamp}{_encode80(rand)}"


class SequentialIds:
    """Deterministic ids for tests and reproducible demos: ``prefix_`` + a zero-padded counter."""

    def __init__(self, start: int = 1) -> None:
        self._counter = itertools.count(start)
        self._lock = threading.Lock()

    def new(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_{next(self._counter):026d}"
