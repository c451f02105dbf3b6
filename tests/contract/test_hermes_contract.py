"""HlmemMemoryProvider against Hermes' MemoryProvider ABC as recorded from hermes-agent (tests/support/hermes_abc.json)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hlmem.adapters.hermes import HlmemMemoryProvider

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support import hermes_abc  # noqa: E402

RECORDED = hermes_abc.load()


def test_the_record_names_its_source():
    assert RECORDED["package"] == "hermes-agent" and RECORDED["version"].startswith("0.19.")
    assert RECORDED["module"] == "agent.memory_provider" and RECORDED["class"] == "MemoryProvider"
    abstract = {n for n, m in RECORDED["members"].items() if m["abstract"]}
    assert abstract == {"name", "is_available", "initialize", "get_tool_schemas"}


def test_every_abc_member_is_implemented_with_a_compatible_signature():
    ours = hermes_abc.describe(HlmemMemoryProvider)
    assert hermes_abc.incompatibilities(RECORDED["members"], ours) == []


@pytest.mark.parametrize("name", sorted(RECORDED["members"]))
def test_each_member_is_defined_by_hlmem_itself(name):
    assert name in vars(HlmemMemoryProvider), f"{name} must be implemented, not inherited"


class _Narrow:
    @property
    def name(self):
        return "x"

    def initialize(self, session_id):  # no **kwargs: hermes_home would be refused
        ...

    def prefetch(self, query, session_id):  # no default where the ABC has one
        ...

    def sync_turn(self, user_content, assistant_content, *, session_id=""):  # no messages=
        ...


def test_the_check_reports_what_is_wrong():
    problems = hermes_abc.incompatibilities(RECORDED["members"], hermes_abc.describe(_Narrow))
    assert "initialize: VAR_KEYWORD (kwargs) not accepted" in problems
    assert "prefetch: 'session_id' needs a default" in problems
    assert "sync_turn: keyword 'messages' not accepted" in problems
    assert "is_available: missing" in problems and "shutdown: missing" in problems
