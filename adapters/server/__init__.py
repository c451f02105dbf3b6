"""``hlmem serve``: the REST front end, an ASGI app (FastAPI on uvicorn) over one ``Memory`` (docs/rest.md, ADR 0036).

The modules: :mod:`~hlmem.adapters.server.app` builds the app (``create_app``), ``routes_*``
hold the routes by area, :mod:`~hlmem.adapters.server.models` the request bodies,
:mod:`~hlmem.adapters.server.errors` the one table from hlmem errors to HTTP statuses and codes,
:mod:`~hlmem.adapters.server.auth` the bearer token and the loopback rule. FastAPI and uvicorn
come with the extra ``hlmem[server]``; only this package imports them, so the core runs without.
"""

from __future__ import annotations

from hlmem.domain.errors import ConfigurationError

EXTRA_HINT = "pip install 'hlmem[server]'"


def require_server_packages() -> None:
    """Import FastAPI and uvicorn, or say which extra brings them.

    :raises ConfigurationError: one of them is not installed.
    """
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise ConfigurationError(f"hlmem serve needs {exc.name or 'fastapi and uvicorn'}: {EXTRA_HINT}") from None
