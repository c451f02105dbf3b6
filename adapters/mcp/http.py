"""Streamable HTTP for ``hlmem mcp --transport http``: loopback by default, a bearer token otherwise.

The rule (docs/mcp.md, ADR 0037): the server binds ``127.0.0.1`` unless told otherwise; any
address that is not loopback is refused unless a token is set in ``HLMEM_MCP_TOKEN``; when a
token is set, every HTTP request must carry ``Authorization: Bearer <token>`` (compared in
constant time) or gets ``401``. The token is read from the environment only (ADR 0033).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Mapping
from typing import Any

from hlmem.adapters import listen_guard

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


def serve_http(server: Any, *, host: str, port: int, token: str | None) -> None:
    """Serve ``server`` (an ``MCPServer``) over streamable HTTP at ``http://host:port/mcp`` until stopped.

    :raises ConfigurationError: a non-loopback ``host`` without a token (nothing is bound).
    """
    check_bind(host, token)
    import uvicorn

    app: Any = server.streamable_http_app(streamable_http_path=PATH, host=host)
    if token is not None:
        app = BearerToken(app, token)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
