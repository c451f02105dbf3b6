"""ASGI middleware both HTTP servers hlmem runs share (``hlmem serve``, ``hlmem mcp --transport http``).

- :class:`HostGuard` refuses a request whose ``Host`` header is not one of the server's own names
  (:func:`hlmem.adapters.listen_guard.host_allowed`, ADR 0059): the defence against DNS
  rebinding, where a web page's own host name is made to resolve to 127.0.0.1 so the victim's
  browser reads the memory for it; and one whose ``Origin`` is a page on another site
  (:func:`~hlmem.adapters.listen_guard.origin_allowed`): a form there could otherwise make the
  browser post to the server (a backup, a forget). Each server answers in its own error shape.
- :class:`CloseOnShutdown` runs a function (closing the served store) when the server shuts down,
  inside its lifespan: uvicorn re-raises SIGTERM and SIGINT once it has stopped, so code after
  ``uvicorn.run`` never runs and a store left open keeps its ``-wal`` file on disk.

Plain ASGI, no framework: the MCP SDK's app is Starlette, the REST app FastAPI.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import anyio.to_thread

from hlmem.adapters.listen_guard import host_allowed, origin_allowed

LOG = logging.getLogger("hlmem.server")

#: The status of a refused Host (RFC 9110, 15.5.20 Misdirected Request).
MISDIRECTED = 421
#: The status of a refused Origin.
FORBIDDEN = 403


def host_refusal(what: str) -> str:
    """What a refused request is told: what it was addressed to (never the allowlist itself)."""
    return (f"this server does not answer to {what}: only to localhost, 127.0.0.1, [::1], its bound address and "
            "the names in [server] public_names (a guard against DNS rebinding); reach it by one of those, or add "
            "the name to public_names (--public-name)")


def origin_refusal(what: str) -> str:
    """What a request from a page on another site is told."""
    return (f"this server does not take requests from web pages on other sites ({what}): only from pages it "
            "serves itself and from clients that send no Origin header (a guard against cross-site requests)")


class HostGuard:
    """Answer :data:`MISDIRECTED` (code ``host_not_allowed``) to an HTTP request whose ``Host`` is
    not in ``allowed``, and :data:`FORBIDDEN` (``origin_not_allowed``) to one whose ``Origin`` is
    another site.

    :param body: the refusal's JSON body for a code and a message (each server's own error shape).
    """

    def __init__(self, app: Any, allowed: frozenset[str], body: Callable[[str, str], dict[str, Any]]) -> None:
        self.app = app
        self.allowed = allowed
        self._body = body

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers") or ()
        status, code, message = MISDIRECTED, "host_not_allowed", ""
        ok, what = host_allowed(headers, self.allowed)
        if not ok:
            message = host_refusal(what)
        else:
            ok, what = origin_allowed(headers, self.allowed)
            status, code, message = FORBIDDEN, "origin_not_allowed", origin_refusal(what)
        if ok:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        payload = json.dumps(self._body(code, message)).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})


class CloseOnShutdown:
    """Call ``close`` (in a worker thread) once the wrapped app has finished its lifespan shutdown,
    before the server hears it is complete (the app must support the lifespan protocol, as
    FastAPI's and the MCP SDK's Starlette apps do)."""

    def __init__(self, app: Any, close: Callable[[], None]) -> None:
        self.app = app
        self._close = close
        self._closed = False

    async def _run_close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await anyio.to_thread.run_sync(self._close)
        except Exception:  # noqa: BLE001 - shutting down: say so, do not hide the shutdown
            LOG.exception("closing the store at shutdown failed")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                await self._run_close()
            await send(message)

        await self.app(scope, receive, sending)
