"""Screenshots of the web inspector into docs/img/ (docs/ui.md): ``python scripts/ui_screenshots.py``.

Seeds a throwaway store with a few realistic memories in Chinese and English (:func:`seed_showcase`:
a move, a display preference that changed, a job change, a pet, a sister and a cousin with
relations scanned, two accepted; not the browser test's fixture,
whose values are built to probe escaping), serves it on 127.0.0.1 with a real uvicorn and drives
Debian's headless Chromium with Playwright (tests/support/browser.py), as the browser test does.
Chinese glyphs need a CJK font installed (e.g. ``apt install fonts-wqy-microhei``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from attrs import frozen

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from support.browser import chromium, missing  # noqa: E402
from support.rest_server import serving  # noqa: E402

OUT = ROOT / "docs" / "img"


@frozen
class Showcase:
    """The ids the screenshots open."""

    shanghai: str
    doomed: str
    sister: str  # an accepted edge: user —sibling→ Anna


def seed_showcase(mem: Memory) -> Showcase:
    """What one user told an assistant over a few years, each claim resting on the turn that said it."""
    def said(text: str, when: str, session: str) -> str:
        return mem.add(text, session=session, occurred_at=when, extract=False).id

    moved = said("我以前住在北京，2023 年夏天搬到了上海。", "2023-07-01T09:00:00Z", "s-2023-07")
    beijing = mem.remember("user", "lives_in", "北京", valid_from="2019-03-01T00:00:00Z", evidence=[moved],
                           qualifiers={"location": "海淀区"})
    shanghai = mem.correct(beijing.id, "上海", valid_from="2023-06-15T00:00:00Z", evidence=[moved],
                           reason="moved").write
    dark = said("我现在主要用深色模式，晚上看屏幕舒服一些。", "2021-11-20T21:30:00Z", "s-2021-11")
    theme = mem.remember("user", "ui_theme", "深色模式", valid_from="2021-11-20T00:00:00Z", evidence=[dark])
    light = said("最近换成浅色模式了，白天在窗边看得更清楚。", "2025-04-08T10:15:00Z", "s-2025-04")
    mem.correct(theme.id, "浅色模式", valid_from="2025-04-08T00:00:00Z", evidence=[light],
                reason="changed preference")
    hired = said("I joined Acme Robotics as a firmware engineer this week.", "2020-09-18T17:00:00Z", "s-2020-09")
    acme = mem.remember("user", "employer", "Acme Robotics", valid_from="2020-09-14T00:00:00Z", evidence=[hired])
    left = said("Last day at Acme on Friday; I start at Northwind Analytics on the 3rd.",
                "2024-05-29T12:40:00Z", "s-2024-05")
    mem.correct(acme.id, "Northwind Analytics", valid_from="2024-06-03T00:00:00Z", evidence=[left],
                reason="changed jobs")
    cat = said("We adopted a cat from the shelter, a grey tabby called Mochi.", "2022-03-12T15:00:00Z", "s-2022-03")
    mem.remember("user", "pet", "Mochi (grey tabby cat)", valid_from="2022-03-12T00:00:00Z", evidence=[cat])
    food = said("周末又去吃了小笼包，还是最喜欢这个。", "2020-01-05T12:00:00Z", "s-2020-01")
    mem.remember("user", "favourite_food", "小笼包", valid_from="2020-01-05T00:00:00Z", evidence=[food])
    doomed = mem.remember("project", "codename", "Bluebird launch plan", valid_from="2024-01-01T00:00:00Z")
    sister = said("My sister Anna moved to Hangzhou last spring; she teaches at Zhejiang University now.",
                  "2024-09-02T19:20:00Z", "s-2024-09")
    mem.remember("user", "sibling", "Anna", valid_from="2024-09-02T00:00:00Z", evidence=[sister])
    mem.remember("Anna", "lives_in", "Hangzhou", valid_from="2024-04-01T00:00:00Z", evidence=[sister])
    mem.remember("Anna", "employer", "Zhejiang University", valid_from="2024-04-01T00:00:00Z", evidence=[sister])
    cousin = said("我表哥张伟在阿里巴巴工作，周末常约我打球。", "2025-02-15T11:00:00Z", "s-2025-02")
    mem.remember("user", "cousin", "张伟", valid_from="2025-02-15T00:00:00Z", evidence=[cousin])
    mem.remember("张伟", "employer", "阿里巴巴", valid_from="2025-02-15T00:00:00Z", evidence=[cousin])
    mem.relations.scan()
    edges = {(r.source_name, r.relation, r.target_name): r.relation_id for r in mem.relations.list()}
    mem.relations.accept(edges["user", "sibling", "Anna"], reason="she is my sister")
    mem.relations.accept(edges["user", "works_at", "Northwind Analytics"], reason="current job")
    return Showcase(shanghai.id, doomed.id, edges["user", "sibling", "Anna"])


def main() -> int:
    if (why := missing()) is not None:
        print(f"cannot take screenshots: {why}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp, \
            Memory(Path(tmp) / "m.db", embedder="hash", settings=Settings()) as mem:
        ids = seed_showcase(mem)
        with serving(mem) as base, chromium() as browser:
            page = browser.new_page(viewport={"width": 1100, "height": 700})
            page.set_default_timeout(10_000)
            shots = [("ui-search.png", "#/search?q=住在哪里 北京 上海", "#results table"),
                     ("ui-timeline.png", "#/timeline/user", "svg.timeline"),
                     ("ui-claim.png", f"#/claim/{ids.shanghai}", "#chain"),
                     ("ui-relations.png", "#/relations", "#relations table"),
                     ("ui-neighbourhood.png", f"#/entity/user?edge={ids.sister}", "#edge-detail .evidence")]
            for name, where, ready in shots:
                page.goto(f"{base}/ui/{where}")
                page.wait_for_selector(ready)
                page.screenshot(path=str(OUT / name), full_page=True)
                print(OUT / name)
            page.goto(f"{base}/ui/#/forget?id={ids.doomed}")
            page.click("#forget-form button")
            page.wait_for_selector("#forget-confirm")
            page.screenshot(path=str(OUT / "ui-forget.png"), full_page=True)
            print(OUT / "ui-forget.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
