"""Who may call the server: loopback by default, a bearer token when one is configured (ADR 0036).

- :func:`~hlmem.adapters.listen_guard.check_bind` refuses a non-loopback address without a
  token (the server does not start); :func:`~hlmem.adapters.listen_guard.read_token` takes the
  token from the environment variable the settings name (the config file names the variable,
  never the token) — both shared with ``hlmem mcp``;
- :class:`BearerAuth` (ASGI middleware) asks for ``Authorization: Bearer <token>`` on every
  path but ``/health`` and the inspector's static files under ``/ui`` (they hold no data; the
  page sends the token on its API calls), compared in constant time (:func:`hmac.compare_digest`).
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from hlmem.adapters.server.errors import body

#: Paths open without a token.
OPEN_PATHS = frozenset({"/health", "/ui"})
#: Path prefixes open without a token: the inspector's static files (docs/ui.md, ADR 0039).
OPEN_PREFIXES = ("/ui/",)


def is_open(path: str) -> bool:
    """Whether ``path`` is served without a token."""
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


class BearerAuth:
    """ASGI middleware: 401 with a JSON error unless the request carries the token (health and /ui are open)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or is_open(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        given = b""
        for key, value in scope.get("headers", ()):
            if key == b"authorization":
                given = value
                break
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        message = "no bearer token given" if not given else "the bearer token is not the configured one"
        payload = json.dumps(body("unauthorized", message + "; send 'Authorization: Bearer <token>'")).encode()
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})
