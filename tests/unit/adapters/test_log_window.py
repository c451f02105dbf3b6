"""Keyset paging over log positions (adapters/log_window.py), against a plain filter of the rows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hlmem.adapters.log_window import window_rows


@given(positions=st.sets(st.integers(1, 60), max_size=40), after=st.integers(0, 61),
       before=st.none() | st.integers(0, 62), limit=st.none() | st.integers(0, 45), newest_first=st.booleans(),
       chunk=st.integers(1, 7))
def test_the_pages_are_the_window_in_order_up_to_the_limit(positions, after, before, limit, newest_first,
                                                           chunk) -> None:
    rows = sorted(((p, f"e{p}") for p in positions), reverse=newest_first)
    asked = []

    def fetch(low: int, high: int, size: int) -> list:
        asked.append(size)
        return [r for r in rows if low < r[0] < high][:size]

    got = list(window_rows(fetch, after=after, before=before, limit=limit, newest_first=newest_first, chunk=chunk))
    expected = [r for r in rows if after < r[0] and (before is None or r[0] < before)]
    assert got == expected[:limit] if limit is not None else got == expected
    assert all(size <= chunk for size in asked)
    assert len(asked) <= len(got) // chunk + 1  # no page asked after a short one or past the limit
