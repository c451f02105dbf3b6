"""Hermes' ``MemoryProvider`` ABC as recorded data, and the signature check the contract tests use.

Regenerate the record from an installed hermes-agent (docs/hermes.md):
``python -P tests/support/hermes_abc.py > tests/support/hermes_abc.json``. Nothing here is
invented: the JSON is what :func:`record` read from the package.
"""

from __future__ import annotations

import inspect
import json
from importlib import metadata
from pathlib import Path

RECORD = Path(__file__).with_name("hermes_abc.json")
_EMPTY = "<empty>"


def _param(p: inspect.Parameter) -> dict:
    return {"name": p.name, "kind": p.kind.name,
            "default": _EMPTY if p.default is inspect.Parameter.empty else repr(p.default)}


def describe(cls: type) -> dict:
    """Every public method and property of ``cls`` with its parameters (kind, default) and abstractness."""
    members = {}
    for name, value in inspect.getmembers(cls):
        if name.startswith("_"):
            continue
        if isinstance(inspect.getattr_static(cls, name), property):
            members[name] = {"property": True, "abstract": bool(getattr(value, "__isabstractmethod__", False))}
        elif inspect.isfunction(value):
            params = list(inspect.signature(value).parameters.values())
            members[name] = {"property": False, "abstract": bool(getattr(value, "__isabstractmethod__", False)),
                             "params": [_param(p) for p in params]}
    return members


def record() -> dict:
    """The installed hermes-agent's ABC, with the version it came from."""
    from agent.memory_provider import MemoryProvider

    return {"package": "hermes-agent", "version": metadata.version("hermes-agent"),
            "module": "agent.memory_provider", "class": "MemoryProvider", "members": describe(MemoryProvider)}


def load() -> dict:
    """The committed record."""
    return json.loads(RECORD.read_text(encoding="utf-8"))


def incompatibilities(expected: dict, ours: dict) -> list[str]:
    """What in ``ours`` (``describe(OurClass)``) cannot be called the way the ABC ``expected`` says.

    Every member must exist with the same kind (property or method); every ABC parameter must be
    accepted with its kind (positional ones in the same place, keyword-only ones by name or through
    ``**kwargs``) and with a default wherever the ABC has one; a parameter we add must have a
    default (or be ``*args``/``**kwargs``).
    """
    problems = []
    for name, spec in expected.items():
        mine = ours.get(name)
        if mine is None:
            problems.append(f"{name}: missing")
            continue
        if mine["property"] != spec["property"]:
            problems.append(f"{name}: property expected {spec['property']}, got {mine['property']}")
            continue
        if spec["property"]:
            continue
        problems += [f"{name}: {p}" for p in _params(spec["params"], mine["params"])]
    return problems


def _params(theirs: list[dict], mine: list[dict]) -> list[str]:
    out = []
    var_kw = any(p["kind"] == "VAR_KEYWORD" for p in mine)
    positional = [p for p in mine if p["kind"] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    by_name = {p["name"]: p for p in mine}
    for i, p in enumerate(t for t in theirs if t["kind"] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")):
        if i >= len(positional) or positional[i]["name"] != p["name"]:
            out.append(f"positional parameter {i} should be {p['name']!r}")
        elif p["default"] != _EMPTY and positional[i]["default"] == _EMPTY:
            out.append(f"{p['name']!r} needs a default")
    for p in theirs:
        if p["kind"] == "KEYWORD_ONLY":
            m = by_name.get(p["name"])
            if m is None and not var_kw:
                out.append(f"keyword {p['name']!r} not accepted")
            elif m is not None and p["default"] != _EMPTY and m["default"] == _EMPTY:
                out.append(f"{p['name']!r} needs a default")
        elif p["kind"] in ("VAR_POSITIONAL", "VAR_KEYWORD") and not any(m["kind"] == p["kind"] for m in mine):
            out.append(f"{p['kind']} ({p['name']}) not accepted")
    theirs_names = {p["name"] for p in theirs}
    for m in mine:
        if m["name"] not in theirs_names and m["kind"] not in ("VAR_POSITIONAL", "VAR_KEYWORD") \
                and m["default"] == _EMPTY:
            out.append(f"extra parameter {m['name']!r} must have a default")
    return out


if __name__ == "__main__":
    print(json.dumps(record(), indent=2, sort_keys=True))
