"""``SpillingMap`` (the ``ScratchMap`` port): a dict while small, a temporary SQLite file once large."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from hlmem.adapters.scratch import SpillingMap
from hlmem.application.ports import ScratchMap

keys = st.text(max_size=4)


@given(st.lists(st.tuples(keys, keys), max_size=40), st.lists(keys, max_size=10), st.integers(1, 6))
def test_it_answers_as_a_dict_across_spills(puts: list[tuple[str, str]], probes: list[str], limit: int) -> None:
    scratch, model = SpillingMap(limit=limit), {}
    try:
        assert isinstance(scratch, ScratchMap)
        for key, value in puts:
            scratch[key] = value
            model[key] = value
        for key in [*probes, *model]:
            assert (key in scratch) == (key in model)
            assert scratch.get(key) == model.get(key)
            assert scratch.get(key, "none") == model.get(key, "none")
        assert sorted(scratch) == sorted(model) and len(scratch) == len(model)
    finally:
        scratch.close()


def test_its_file_goes_with_close() -> None:
    scratch = SpillingMap(limit=2)
    for n in range(5):
        scratch[f"k{n}"] = f"v{n}"
    folder = scratch._folder
    assert folder is not None and (Path(folder) / "scratch.db").exists() and scratch["k0"] == "v0"
    scratch.close()
    assert not Path(folder).exists()
