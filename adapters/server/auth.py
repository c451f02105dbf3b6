"""Who may call the server: loopback by default, a bearer token when one is configured (ADR 0036).

- :func:`check_bind` refuses a non-loopback address without a token (the server does not start);
- :func:`read_token` takes the token from the environment variable the settings name (the
  config file names the variable, never the token);
- :class:`BearerAuth` (ASGI middleware) asks for ``Authorization: Bearer <token>`` on every
  path but ``/health``, compared in constant time (:func:`hmac.compare_digest`).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from collections.abc import Mapping
from typing import Any

from hlmem.adapters.server.errors import body
from hlmem.domain.errors import ConfigurationError

#: Paths open without a token.
OPEN_PATHS = frozenset({"/health"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` only reaches this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve anywhere


def read_token(variable: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The token in ``variable`` (None when unset or blank)."""
    value = (os.environ if environ is None else environ).get(variable, "").strip()
    return value or None


def check_bind(host: str, token: str | None, token_env: str) -> None:
    """Refuse to serve beyond this machine without a token.

    :raises ConfigurationError: ``host`` is not loopback and no token is set.
    """
    if token is None and not is_loopback(host):
        raise ConfigurationError(
            f"refusing to listen on {host}: it is reachable from other machines and no token is set; "
            f"set {token_env} to a long random secret (clients send 'Authorization: Bearer <it>'), "
            "or bind 127.0.0.1")


class BearerAuth:
    """ASGI middleware: 401 with a JSON error unless the request carries the token (health is open)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
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
