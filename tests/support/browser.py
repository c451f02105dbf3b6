"""Headless Debian Chromium driven by Playwright, for the inspector's tests and screenshots (ADR 0039).

Playwright's own browser download is never used (``playwright install`` needs the network):
:func:`chromium` launches ``/usr/bin/chromium``. :func:`missing` names what is absent, for a skip.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright not installed (pip install playwright; the driver ships with it, no `playwright install`)"
    if not CHROMIUM.is_file():
        return f"no Chromium at {CHROMIUM} (apt install chromium)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium browser; closed (and its process ended) on leaving, even after a failure."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, timeout=30_000)
        try:
            yield browser
        finally:
            browser.close()
