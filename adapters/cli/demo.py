"""``hlmem demo``: the acceptance scenarios on a temporary store, checked as they are shown."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.memory_api import Memory
from hlmem.domain.errors import HlmemError
from hlmem.domain.time import parse_timestamp

if TYPE_CHECKING:
    from hlmem.adapters.settings import Settings

NOW = "2026-11-30T12:00:00Z"


class DemoFailed(HlmemError):
    """A demo expectation did not hold: the installation is broken."""


def _at(clock: FixedClock, when: str) -> None:
    clock.set(parse_timestamp(when))


def _value_at(mem: Memory, subject: str, predicate: str, valid_at: str, known_at: str) -> list[str]:
    """What recall answers for the slot, asked through both clocks."""
    result = mem.recall(f"{subject} {predicate.replace('_', ' ')}", k=10, kinds=["claim"],
                        valid_at=valid_at, known_at=known_at)
    return [i.value for i in result.items if i.predicate == predicate and i.subject.casefold() == subject.casefold()]


def run_demo(*, keep: str | None, embedder: str | None, echo: Callable[[str], None], settings: Settings | None = None) -> None:
    """Run every scenario; raise :class:`DemoFailed` on the first expectation that does not hold.

    :param settings: the command's loaded settings (None: ``Memory``'s own loading).
    """
    with tempfile.TemporaryDirectory(prefix="hlmem-demo-") as tmp:
        path = Path(keep) if keep else Path(tmp) / "demo.db"
        if path.exists():
            raise DemoFailed(f"{path} exists; the demo needs a fresh store")
        with Memory(path, embedder=embedder, now=NOW, settings=settings) as mem:
            clock = mem.clock
            assert isinstance(clock, FixedClock)
            echo(f"hlmem demo — store {path}, embedder {mem.embedder_name}")
            checks = _theme(mem, clock, echo) + _city(mem, clock, echo) + _english(mem, clock, echo)
            _at(clock, NOW)
            report = mem.replay()
            checks.append(("replay of the log equals the live projections", report.equal, report.equal))
        failed = [c for c in checks if not c[2]]
        echo("")
        echo(f"{len(checks) - len(failed)} of {len(checks)} checks passed")
        if failed:
            raise DemoFailed("; ".join(f"{what}: got {got!r}" for what, got, _ in failed))


def _check(echo, what: str, got, expected) -> tuple[str, object, bool]:
    ok = got == expected
    echo(f"  {'✓' if ok else '✗'} {what}: {got}")
    return what, got, ok


def _theme(mem: Memory, clock: FixedClock, echo) -> list:
    echo("\n1. 界面主题（中文，显式声明）")
    _at(clock, "2026-03-01T09:00:00+08:00")
    e1 = mem.add("我现在主要用深色模式。", session="s1", extract=False)
    mem.remember("用户", "preferred_ui_theme", "深色模式", evidence=[e1.id])
    echo("  2026-03-01 用户: 我现在主要用深色模式。")
    _at(clock, "2026-06-10T21:00:00+08:00")
    e2 = mem.add("最近眼睛不舒服，暂时换成浅色模式。", session="s2", extract=False)
    r = mem.remember("用户", "preferred_ui_theme", "浅色模式", qualifiers={"temporary": "暂时", "reason": "最近眼睛不舒服"},
                     evidence=[e2.id])
    echo(f"  2026-06-10 用户: 最近眼睛不舒服，暂时换成浅色模式。 → {r.outcome} {r.id}")
    _at(clock, NOW)
    current = [(c.value, dict(c.qualifiers).get("temporary")) for c in mem.history("用户", "preferred_ui_theme")
               if c.status.value == "active"]
    top = mem.recall("用户现在用什么界面主题？", k=3, kinds=["claim"]).items
    return [
        _check(echo, "current", current, [("浅色模式", "暂时")]),
        _check(echo, "recall 用户现在用什么界面主题？ top-1", top[0].value if top else None, "浅色模式"),
        _check(echo, "history", [c.value for c in mem.history("用户", "preferred_ui_theme")], ["深色模式", "浅色模式"]),
        _check(echo, "as known on 2026-06-01 (before the change)",
               _value_at(mem, "用户", "preferred_ui_theme", "2026-06-01T00:00:00Z", "2026-06-01T00:00:00Z"), ["深色模式"]),
    ]


def _city(mem: Memory, clock: FixedClock, echo) -> list:
    echo("\n2. 工作城市（两个时钟：迟到的事实）")
    _at(clock, "2026-03-15T10:00:00+08:00")
    e1 = mem.add("我在杭州工作。", session="s3", extract=False)
    mem.remember("用户", "works_in", "杭州", valid_from="2026-01-01T00:00:00+08:00", evidence=[e1.id])
    echo("  recorded 2026-03: 在杭州工作 (valid from 2026-01)")
    _at(clock, "2026-08-20T10:00:00+08:00")
    e2 = mem.add("其实5月就搬去北京了。", session="s4", extract=False)
    mem.remember("用户", "works_in", "北京", valid_from="2026-05-01T00:00:00+08:00", evidence=[e2.id])
    echo("  recorded 2026-08: 其实5月就搬去北京了 (valid from 2026-05)")
    _at(clock, NOW)
    return [
        _check(echo, "valid June, known July", _value_at(mem, "用户", "works_in", "2026-06-15T00:00:00Z",
                                                         "2026-07-15T00:00:00Z"), ["杭州"]),
        _check(echo, "valid June, known now", _value_at(mem, "用户", "works_in", "2026-06-15T00:00:00Z", NOW), ["北京"]),
        _check(echo, "valid April, known now", _value_at(mem, "用户", "works_in", "2026-04-15T00:00:00Z", NOW), ["杭州"]),
    ]


def _english(mem: Memory, clock: FixedClock, echo) -> list:
    echo("\n3. The same in English (subject: Alice)")
    _at(clock, "2026-03-01T09:00:00-05:00")
    e1 = mem.add("Alice: I mostly use dark mode.", session="e1", extract=False)
    mem.remember("Alice", "preferred_ui_theme", "dark mode", evidence=[e1.id])
    mem.remember("Alice", "works_in", "Boston", valid_from="2026-01-01T00:00:00-05:00", evidence=[e1.id])
    _at(clock, "2026-06-10T21:00:00-04:00")
    e2 = mem.add("Alice: my eyes hurt lately, switching to light mode for now.", session="e2", extract=False)
    mem.remember("Alice", "preferred_ui_theme", "light mode", qualifiers={"temporary": "for now"}, evidence=[e2.id])
    _at(clock, "2026-08-20T10:00:00-04:00")
    e3 = mem.add("Alice: actually I moved to Seattle back in May.", session="e3", extract=False)
    mem.remember("Alice", "works_in", "Seattle", valid_from="2026-05-01T00:00:00-04:00", evidence=[e3.id])
    _at(clock, NOW)
    top = mem.recall("Which theme does Alice use now?", k=3, kinds=["claim"]).items
    return [
        _check(echo, "theme now", top[0].value if top else None, "light mode"),
        _check(echo, "theme history", [c.value for c in mem.history("alice", "preferred_ui_theme")],
               ["dark mode", "light mode"]),
        _check(echo, "city valid June, known July", _value_at(mem, "Alice", "works_in", "2026-06-15T00:00:00Z",
                                                              "2026-07-15T00:00:00Z"), ["Boston"]),
        _check(echo, "city valid June, known now", _value_at(mem, "Alice", "works_in", "2026-06-15T00:00:00Z", NOW),
               ["Seattle"]),
        _check(echo, "city valid April, known now", _value_at(mem, "Alice", "works_in", "2026-04-15T00:00:00Z", NOW),
               ["Boston"]),
    ]
