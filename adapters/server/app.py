"""``create_app``: the REST API over one ``Memory`` (docs/rest.md, ADR 0036).

The app owns nothing but wiring: routes call the facade (under the memory lock:
:mod:`~hlmem.adapters.server.shared`), errors become JSON through
:data:`~hlmem.adapters.server.errors.ERROR_TABLE`, and ASGI middleware wraps it, outermost
first: the Host allowlist (:class:`~hlmem.adapters.asgi_guards.HostGuard`: a request addressed
to another host name, or sent by a page on another site, is refused before anything else, ADR
0059), the bearer token, the body
limit (the token's check runs before it, so an anonymous caller cannot make the server read a
large body); and, when the server owns the store, closing it at shutdown
(:class:`~hlmem.adapters.asgi_guards.CloseOnShutdown`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from hlmem.adapters.asgi_guards import CloseOnShutdown, HostGuard
from hlmem.adapters.listen_guard import allowed_hosts
from hlmem.adapters.server import routes_experience, routes_ops, routes_read, routes_relations, routes_write
from hlmem.adapters.server.api_docs import mount_api_docs
from hlmem.adapters.server.auth import BearerAuth
from hlmem.adapters.server.backups import backup_directory
from hlmem.adapters.server.errors import HTTP_CODES, body, message_of, status_and_code
from hlmem.adapters.server.limits import BodyLimit
from hlmem.adapters.server.shared import ServerState
from hlmem.adapters.server.ui import mount_ui
from hlmem.adapters.settings_sections import ServerSettings
from hlmem.domain.errors import HlmemError

log = logging.getLogger("hlmem.server")

DESCRIPTION = ("hlmem's REST API: the `Memory` facade over HTTP. Errors are "
               '`{"error": {"code": …, "message": …}}` (docs/rest.md). Every route but `/health` needs '
               "`Authorization: Bearer <token>` when the server has a token.")


def create_app(memory: Any | Callable[[], Any], settings: ServerSettings | None = None, *,
               token: str | None = None, on_shutdown: Callable[[], None] | None = None) -> Any:
    """The ASGI app serving ``memory`` (a ``Memory``, or a factory called once now).

    :param settings: the ``[server]`` settings: the body limit, the backup directory, and the
        host names requests may be addressed to (``host`` and ``public_names``); the runner binds.
    :param token: when given, every route but ``/health`` needs it as a bearer token.
    :param on_shutdown: called once when the server shuts down (``hlmem serve`` closes its store,
        so no ``-wal`` file is left behind).
    :returns: the app wrapped in its middleware (``.state_app`` is the FastAPI app).
    """
    from importlib.metadata import PackageNotFoundError, version

    settings = settings or ServerSettings()
    served = memory() if callable(memory) and not hasattr(memory, "recall") else memory
    try:
        ours = version("hlmem")
    except PackageNotFoundError:  # a source tree without metadata
        ours = "0"
    app = FastAPI(title="hlmem", version=ours, description=DESCRIPTION, redoc_url=None,
                  docs_url=None)
    app.state.hlmem = ServerState(served, settings.max_body_bytes, backup_directory(settings.backup_dir))
    for module in (routes_read, routes_write, routes_experience, routes_ops, routes_relations):
        app.include_router(module.router)
    mount_ui(app)  # the web inspector at /ui (docs/ui.md)
    mount_api_docs(app)  # Swagger UI from local files (no CDN)
    app.add_exception_handler(HlmemError, _hlmem_error)
    app.add_exception_handler(ExceptionGroup, _hlmem_error)
    app.add_exception_handler(RequestValidationError, _invalid_body)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(OSError, _os_error)
    app.add_exception_handler(Exception, _internal)
    outer: Any = BodyLimit(app, settings.max_body_bytes)
    if token is not None:
        outer = BearerAuth(outer, token)
    outer = HostGuard(outer, allowed_hosts(settings.host, settings.public_names), body)
    if on_shutdown is not None:
        outer = CloseOnShutdown(outer, on_shutdown)
    outer.state_app = app
    return outer


def _hlmem_error(request: Request, exc: Exception) -> JSONResponse:
    status, code = status_and_code(exc)
    if status >= 500:
        log.error("%s %s failed: %s", request.method, request.url.path, message_of(exc), exc_info=exc)
    field = getattr(exc.exceptions[0] if isinstance(exc, ExceptionGroup) else exc, "field", None)
    extra = {"field": field} if field else {}
    return JSONResponse(body(code, message_of(exc), **extra), status_code=status)


def _invalid_body(request: Request, exc: RequestValidationError) -> JSONResponse:  # noqa: ARG001
    problems = [{"loc": list(p.get("loc", ())), "msg": p.get("msg", "")} for p in exc.errors()]
    text = "; ".join(f"{'.'.join(map(str, p['loc']))}: {p['msg']}" for p in problems) or "bad request"
    return JSONResponse(body("invalid_body", text, problems=problems), status_code=422)


def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:  # noqa: ARG001
    if isinstance(exc.__cause__, UnicodeDecodeError):  # FastAPI's "error parsing the body"
        bad = exc.__cause__
        return JSONResponse(body("invalid_encoding", f"the body is not UTF-8 text (byte {bad.start} cannot be "
                                                     "decoded); send JSON encoded as UTF-8"), status_code=400)
    code = HTTP_CODES.get(exc.status_code) or ("bad_request" if exc.status_code < 500 else "internal_error")
    return JSONResponse(body(code, str(exc.detail)), status_code=exc.status_code, headers=exc.headers)


def _os_error(request: Request, exc: OSError) -> JSONResponse:  # noqa: ARG001
    where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
    return JSONResponse(body("os_error", f"{exc.strerror or exc}{where}"), status_code=400)


def _internal(request: Request, exc: Exception) -> JSONResponse:
    log.error("%s %s: internal error", request.method, request.url.path, exc_info=exc)
    return JSONResponse(body("internal_error", f"internal error ({type(exc).__name__}); the server log has the "
                                               "traceback: please report it"), status_code=500)
