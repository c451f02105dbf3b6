"""The process's recall threads (adapters/parallel.py, ADR 0022) and the switch that turns them off."""

from __future__ import annotations

import os

import pytest

from hlmem.adapters import parallel
from hlmem.adapters.memory_api import Memory


def test_one_pool_serves_every_store_of_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    first = parallel.recall_executor()
    assert first is not None
    assert parallel.recall_executor(True) is first
    assert first.submit(lambda: 6 * 7).result() == 42


@pytest.mark.parametrize(("enabled", "cores"), [(False, 8), (None, 1), (True, 1), (None, None)])
def test_no_pool_when_turned_off_or_on_a_single_core(monkeypatch: pytest.MonkeyPatch, enabled, cores) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert parallel.recall_executor(enabled) is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_makes_its_own_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    parent = parallel.recall_executor()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's threads do not exist here; a new pool must answer
        try:
            pool = parallel.recall_executor()
            ok = pool is not parent and pool.submit(lambda: 1).result(timeout=10) == 1
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.waitpid(pid, 0)
    assert answer == b"1"


@pytest.mark.parametrize(("value", "parallel_on"), [(None, True), ("1", True), ("0", False), ("off", False)])
def test_hlmem_recall_parallel_turns_the_threads_off(monkeypatch: pytest.MonkeyPatch, value, parallel_on) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    if value is None:
        monkeypatch.delenv("HLMEM_RECALL_PARALLEL", raising=False)
    else:
        monkeypatch.setenv("HLMEM_RECALL_PARALLEL", value)
    with Memory(":memory:", embedder="hash") as mem:
        mem.remember("user", "preferred_ui_theme", "dark")
        assert (mem._container.recall()._executor is not None) is parallel_on
        assert mem.recall("theme").items[0].value == "dark"
