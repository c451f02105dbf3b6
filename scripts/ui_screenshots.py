"""Screenshots of the web inspector into docs/img/ (docs/ui.md): ``python scripts/ui_screenshots.py``.

Seeds a throwaway store (tests/support/ui_seed.py), serves it on 127.0.0.1 with a real uvicorn and
drives Debian's headless Chromium with Playwright (tests/support/browser.py), as the browser test does.
Chinese glyphs need a CJK font installed (e.g. ``apt install fonts-wqy-microhei``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from support.browser import chromium, missing  # noqa: E402
from support.rest_server import serving  # noqa: E402
from support.ui_seed import seed  # noqa: E402

OUT = ROOT / "docs" / "img"


def main() -> int:
    if (why := missing()) is not None:
        print(f"cannot take screenshots: {why}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp, \
            Memory(Path(tmp) / "m.db", embedder="hash", settings=Settings()) as mem:
        ids = seed(mem)
        with serving(mem) as base, chromium() as browser:
            page = browser.new_page(viewport={"width": 1100, "height": 700})
            page.set_default_timeout(10_000)
            shots = [("ui-search.png", "#/search?q=住在哪里 北京 上海", "#results table"),
                     ("ui-timeline.png", "#/timeline/user", "svg.timeline"),
                     ("ui-claim.png", f"#/claim/{ids.shanghai}", "#chain")]
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
