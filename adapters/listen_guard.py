"""Who may reach a server hlmem runs (``hlmem serve``, ``hlmem mcp --transport http``): loopback
by default, a bearer token read from the environment when one is configured (ADR 0036, ADR 0037).

Both servers share these rules; each keeps its own middleware, because their error bodies differ
(REST's JSON error, MCP's plain 401).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping

from hlmem.adapters.secrets import is_placeholder
from hlmem.domain.errors import ConfigurationError


def is_loopback(host: str) -> bool:
    """Whether ``host`` only reaches this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def read_token(variable: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The token in ``variable`` (None when unset or blank).

    :raises ConfigurationError: it holds a placeholder (``changeme``, ``<token>``…); the message
        never contains the value.
    """
    value = (os.environ if environ is None else environ).get(variable, "").strip()
    if value and is_placeholder(value):
        raise ConfigurationError(f"{variable} holds a placeholder, not a token: set it to a long random string "
                                 "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)")
    return value or None


def check_bind(host: str, token: str | None, token_env: str, what: str = "serve") -> None:
    """Refuse to listen beyond this machine without a token.

    :param what: names the server in the message (``serve MCP``).
    :raises ConfigurationError: ``host`` is not loopback and no token is set.
    """
    if token is None and not is_loopback(host):
        raise ConfigurationError(
            f"refusing to {what} on {host}: it is reachable from other machines and no token is set, so anyone "
            f"who can reach it could read and erase the memory; set {token_env} to a long random secret "
            "(clients send 'Authorization: Bearer <it>'), or bind 127.0.0.1")
