"""Swagger UI at ``/docs`` from files on this machine, never a CDN (docs/rest.md).

FastAPI's own ``/docs`` page loads Swagger UI's script and style from a CDN, so offline (the
product's default situation) it shows an empty page. The ``swagger-ui-bundle-v2`` package (in
the ``server`` extra; Swagger UI 5, which reads the OpenAPI 3.1 schema FastAPI writes) ships the
files: they are served at ``/docs/static/`` and the page points there. Without that package
``/docs`` says how to get it and where the schema is, rather than failing in the browser.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

#: Where the page is served.
PREFIX = "/docs"
#: The files a page needs (the bundle also ships source maps and ES-module builds we do not serve).
FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")


def bundled_swagger_ui() -> Path | None:
    """The folder of Swagger UI's files from ``swagger-ui-bundle-v2``, or None when it is not installed."""
    try:
        from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-not-found]
    except ImportError:
        return None
    folder = Path(str(swagger_ui_path))
    return folder if all((folder / name).is_file() for name in FILES) else None


class _Only(StaticFiles):
    """``StaticFiles`` that serves :data:`FILES` and nothing else of the folder."""

    def lookup_path(self, path: str) -> tuple[str, Any]:
        if path not in FILES:
            return "", None
        return super().lookup_path(path)


def mount_api_docs(app: Any, openapi_url: str = "/openapi.json", folder: Path | None = None) -> None:
    """Serve Swagger UI at :data:`PREFIX` (``app`` was made with ``docs_url=None``).

    :param folder: Swagger UI's files; by default :func:`bundled_swagger_ui`.
    """
    folder = folder if folder is not None else bundled_swagger_ui()
    if folder is None:
        @app.get(PREFIX, include_in_schema=False)
        def docs_missing() -> HTMLResponse:
            return HTMLResponse(
                "<!doctype html><meta charset=utf-8><title>hlmem API</title>"
                f"<p>Swagger UI is not installed here. <code>pip install 'hlmem[server]'</code> brings it "
                f"(the package <code>swagger-ui-bundle-v2</code>). The schema is at "
                f"<a href='{openapi_url}'>{openapi_url}</a>; docs/rest.md describes every route.</p>")
        return

    app.mount(f"{PREFIX}/static", _Only(directory=folder), name="swagger-ui")

    @app.get(PREFIX, include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=openapi_url, title="hlmem API",
                                   swagger_js_url=f"{PREFIX}/static/swagger-ui-bundle.js",
                                   swagger_css_url=f"{PREFIX}/static/swagger-ui.css",
                                   swagger_favicon_url=f"{PREFIX}/static/favicon-32x32.png")
