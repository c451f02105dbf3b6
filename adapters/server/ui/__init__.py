"""The web inspector at ``/ui``: static HTML, CSS and vanilla JS over the REST API (docs/ui.md, ADR 0039).

The files under ``static/`` are package data and hold no data of the store: the page fetches
everything from the ``/v1`` routes with the user's bearer token, so they are served without one
(:data:`~hlmem.adapters.server.auth.OPEN_PREFIXES`). Every answer carries a Content-Security-Policy
that allows only this origin's own script and style (no inline script, no CDN, no remote font),
so a value that slipped past the page's escaping still could not run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.responses import RedirectResponse
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

#: Where the inspector is served.
PREFIX = "/ui"
#: The page's files (package data: pyproject's ``[tool.setuptools.package-data]``).
STATIC = Path(__file__).with_name("static")
#: Headers on every file of the page.
HEADERS = {
    "content-security-policy": ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
}


class _UiFiles(StaticFiles):
    """``StaticFiles`` (index.html for the folder) with :data:`HEADERS` added to each answer."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + [
                    (k.encode(), v.encode()) for k, v in HEADERS.items()]
            await send(message)

        await super().__call__(scope, receive, with_headers)


def mount_ui(app: Any) -> None:
    """Serve :data:`STATIC` at ``/ui/`` (``/ui`` redirects there); neither is in the OpenAPI schema."""
    if not (STATIC / "index.html").is_file():
        raise RuntimeError(f"the inspector's files are missing from {STATIC}: reinstall hlmem")

    @app.get(PREFIX, include_in_schema=False)
    def ui_root() -> RedirectResponse:
        return RedirectResponse(f"{PREFIX}/", status_code=307)

    app.mount(f"{PREFIX}/", _UiFiles(directory=STATIC, html=True), name="ui")
