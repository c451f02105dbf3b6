"""Streamable HTTP for ``hlmem mcp --transport http``: loopback by default, a bearer token otherwise.

The rule (docs/mcp.md, ADR 0037): the server binds ``127.0.0.1`` unless told otherwise; any
address that is not loopback is refused unless a strong token is set in ``HLMEM_MCP_TOKEN``; when
a token is set, every HTTP request must carry ``Authorization: Bearer <token>`` (compared in
constant time) or gets ``401``. The token is read from the environment only (ADR 0033).

Every request must be addressed to one of the server's own names (``Host``: loopback, the bound
address, ``--public-name``; ADR 0059) or gets ``421``, and a browser's ``Origin`` must be one of
them too (``403``), before the token is even looked at; the SDK's own Host and Origin check is
given the same names. When the server stops (SIGTERM,
Ctrl-C) it closes the store inside its lifespan, so the store's ``-wal`` is folded in.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hlmem.adapters import listen_guard
from hlmem.adapters.asgi_guards import CloseOnShutdown, HostGuard

#: The environment variable holding the bearer token.
TOKEN_ENV = "HLMEM_MCP_TOKEN"
#: Where the MCP endpoint is served.
PATH = "/mcp"


def read_token(environ: Mapping[str, str]) -> str | None:
    """The bearer token from ``environ[HLMEM_MCP_TOKEN]`` (None when unset or blank; a placeholder
    is refused: :func:`hlmem.adapters.listen_guard.read_token`)."""
    return listen_guard.read_token(TOKEN_ENV, environ)


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve on a non-loopback address without a token (:mod:`hlmem.adapters.listen_guard`)."""
    listen_guard.check_bind(host, token, TOKEN_ENV, "serve MCP")


is_loopback = listen_guard.is_loopback


class BearerToken:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>``; lifespan passes."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps({"error": "unauthorized", "message": "send 'Authorization: Bearer <token>' "
                                   f"with the token in the server's {TOKEN_ENV}"}).encode()
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def _refused(code: str, message: str) -> dict[str, Any]:
    return {"error": code, "message": message}


def http_app(server: Any, *, host: str, token: str | None, public_names: Iterable[str] = (),
             on_shutdown: Callable[[], None] | None = None) -> Any:
    """The ASGI app serving ``server`` (an ``MCPServer``) at :data:`PATH`: the Host allowlist
    outermost, then the token, then the SDK's app; ``on_shutdown`` runs when the server stops."""
    from mcp.server.transport_security import TransportSecuritySettings

    allowed = listen_guard.allowed_hosts(host, public_names)
    shown = [f"[{name}]" if ":" in name else name for name in sorted(allowed)]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=[*shown, *(f"{n}:*" for n in shown)],
        allowed_origins=[f"{scheme}://{n}{port}" for n in shown for scheme in ("http", "https") for port in ("", ":*")])
    app: Any = server.streamable_http_app(streamable_http_path=PATH, host=host, transport_security=security)
    if token is not None:
        app = BearerToken(app, token)
    app = HostGuard(app, allowed, _refused)
    return CloseOnShutdown(app, on_shutdown) if on_shutdown is not None else app


def serve_http(server: Any, *, host: str, port: int, token: str | None, public_names: Iterable[str] = (),
               on_shutdown: Callable[[], None] | None = None) -> None:
    """Serve ``server`` (an ``MCPServer``) over streamable HTTP at ``http://host:port/mcp`` until stopped.

    :param on_shutdown: called once when the server stops (``hlmem mcp`` closes its store).
    :raises ConfigurationError: a non-loopback ``host`` without a strong token (nothing is bound).
    """
    check_bind(host, token)
    import uvicorn

    app = http_app(server, host=host, token=token, public_names=public_names, on_shutdown=on_shutdown)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
