"""Who may reach a server hlmem runs (``hlmem serve``, ``hlmem mcp --transport http``): loopback
by default, a bearer token read from the environment when one is configured, and only requests
addressed to one of the server's own host names (ADR 0036, ADR 0037, ADR 0059).

- :func:`check_bind` refuses a non-loopback address without a token, or with a token too weak to
  guard it (:func:`token_problem`: fewer than :data:`MIN_TOKEN_BITS` bits by a length and
  character-class estimate);
- :func:`allowed_hosts` and :func:`host_allowed` are the Host header allowlist against DNS
  rebinding: a page on ``evil.example`` whose name is made to resolve to 127.0.0.1 reaches the
  server with ``Host: evil.example``, and is refused (:class:`hlmem.adapters.asgi_guards.HostGuard`);
  :func:`origin_allowed` applies the same names to a browser's ``Origin`` header, so a page on
  another site cannot make the browser post to the server either (cross-site request forgery).

Both servers share these rules; each keeps its own middleware, because their error bodies differ
(REST's JSON error, MCP's plain one).
"""

from __future__ import annotations

import ipaddress
import math
import os
import string
from collections import Counter
from collections.abc import Iterable, Mapping

from hlmem.adapters.secrets import is_placeholder
from hlmem.domain.errors import ConfigurationError

#: Names every server answers to, whatever it binds (with or without a port).
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
#: Bind addresses that mean "every interface": they name no host a client would send.
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
#: A token guarding a server reachable from other machines must carry this much entropy (32 bytes).
MIN_TOKEN_BITS = 256
#: How to make a good token (said in every refusal).
TOKEN_HINT = "make one with `python -c \"import secrets; print(secrets.token_urlsafe(32))\"`"
_HEX = frozenset(string.hexdigits)
_BASE64 = frozenset(string.ascii_letters + string.digits + "-_+/=")
_PRINTABLE = frozenset(string.printable) - frozenset(string.whitespace)


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
                                 f"({TOKEN_HINT})")
    return value or None


def token_bits(token: str) -> float:
    """An upper estimate of a token's entropy in bits: its length times the bits of its alphabet.

    The alphabet is read off the characters used: hex digits only is 4 bits a character; the
    base64 alphabets (``secrets.token_urlsafe``, ``openssl rand -base64``) with both letter cases
    are 6; otherwise the sum of the classes present (26 lower, 26 upper, 10 digits, 32 other
    printable). Repetition counts once: a token that repeats a shorter one (``abab…``) counts
    that one's length, and a token that is mostly one character, or uses fewer than ten,
    counts its distinct characters only (``aaaa…`` is not long random text however long it is).
    """
    if not token:
        return 0.0
    n, chars = len(token), set(token)
    if chars <= _HEX:
        per_char = 4.0
    elif chars <= _BASE64 and chars & set(string.ascii_lowercase) and chars & set(string.ascii_uppercase):
        per_char = 6.0
    else:
        pool = sum(size for size, group in ((26, string.ascii_lowercase), (26, string.ascii_uppercase),
                                            (10, string.digits), (32, string.punctuation))
                   if chars & set(group))
        per_char = math.log2(max(pool, 2))
    if len(chars) < 10 or Counter(token).most_common(1)[0][1] > n / 4:
        per_char = min(per_char, math.log2(len(chars)))
    period = next((p for p in range(1, n // 2 + 1) if token[p:] == token[:n - p]), n)  # repeated at least twice
    return period * per_char


def token_problem(token: str) -> str | None:
    """Why ``token`` cannot guard a server reachable from other machines, or None when it can."""
    if not set(token) <= _PRINTABLE:
        return "it must be printable ASCII without spaces (it travels in an HTTP header)"
    bits = token_bits(token)
    if bits < MIN_TOKEN_BITS:
        return (f"it is too weak to guard a server other machines can reach (about {bits:.0f} bits of "
                f"entropy from its length and characters; at least {MIN_TOKEN_BITS}, i.e. 32 random bytes, "
                f"are needed)")
    return None


def check_bind(host: str, token: str | None, token_env: str, what: str = "serve") -> None:
    """Refuse to listen beyond this machine without a token, or with a weak one.

    :param what: names the server in the message (``serve MCP``).
    :raises ConfigurationError: ``host`` is not loopback and no token is set, or the token is
        too weak (:func:`token_problem`); the message never contains the token.
    """
    if is_loopback(host):
        return
    if token is None:
        raise ConfigurationError(
            f"refusing to {what} on {host}: it is reachable from other machines and no token is set, so anyone "
            f"who can reach it could read and erase the memory; set {token_env} to a long random secret "
            f"(clients send 'Authorization: Bearer <it>'; {TOKEN_HINT}), or bind 127.0.0.1")
    if problem := token_problem(token):
        raise ConfigurationError(f"refusing to {what} on {host} with the token in {token_env}: {problem}; "
                                 f"{TOKEN_HINT}")


# -- the Host header allowlist (DNS rebinding) ------------------------------------------------------

def host_name(value: str) -> str | None:
    """The host of a ``Host`` header value or a configured name, normalised (lower case, no port,
    no trailing dot, an IPv6 literal without brackets); None when it is not a host.

    ``localhost:8765`` → ``localhost``; ``[::1]:8765`` → ``::1``; ``Example.ORG.`` → ``example.org``.
    """
    text = value.strip().lower()
    if not text or any(c in text for c in "/\\@?#*%\x00 \t") or any(ord(c) < 0x20 or ord(c) > 0x7e for c in text):
        return None
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        try:
            return str(ipaddress.IPv6Address(inside))
        except ValueError:
            return None
    if text.count(":") > 1:  # a bare IPv6 literal (no port can follow one without brackets)
        try:
            return str(ipaddress.IPv6Address(text))
        except ValueError:
            return None
    name, colon, port = text.partition(":")
    if colon and not (port.isdigit() and 0 < int(port) < 65536):
        return None
    name = name[:-1] if name.endswith(".") else name
    return name or None


def public_name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a configured public name (a bare host name or address), or None."""
    if not isinstance(name, str) or not name.strip():
        return "it is blank"
    text = name.strip()
    if "*" in text:
        return "wildcards are not allowed (a name that matches any host would let DNS rebinding through)"
    found = host_name(text)
    if found is None:
        return "it is not a host name or an IP address"
    if text.count(":") == 1 or (text.startswith("[") and not text.endswith("]")):
        return "give the host name alone, without a port"
    if _is_wildcard(found):
        return "it is a wildcard bind address, not a name clients send"
    return None


def allowed_hosts(bind_host: str, public_names: Iterable[str] = ()) -> frozenset[str]:
    """The host names a server bound to ``bind_host`` answers to: the loopback names, the bound
    address itself unless it is a wildcard (``0.0.0.0``, ``::``), and ``public_names``."""
    names = set(LOOPBACK_NAMES)
    for value in (bind_host, *public_names):
        name = host_name(value)
        if name is not None and name not in WILDCARDS and not (value == bind_host and _is_wildcard(name)):
            names.add(name)
    return frozenset(names)


def _is_wildcard(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_unspecified
    except ValueError:
        return False


def host_allowed(headers: Iterable[tuple[bytes, bytes]], allowed: frozenset[str]) -> tuple[bool, str]:
    """Whether a request's headers carry exactly one ``Host`` naming one of ``allowed``; also what
    it was addressed to, for a refusal (``the host 'evil.example'``, ``no Host header``…)."""
    hosts = [value for key, value in headers if key.lower() == b"host"]
    if len(hosts) != 1:
        return False, "a request without a Host header" if not hosts else "a request with several Host headers"
    sent = hosts[0].decode("latin-1")
    shown = sent if len(sent) <= 100 else sent[:97] + "…"
    return host_name(sent) in allowed, f"the host {shown!r}"


def origin_allowed(headers: Iterable[tuple[bytes, bytes]], allowed: frozenset[str]) -> tuple[bool, str]:
    """Whether a request's ``Origin`` (sent by browsers on cross-site and on POST requests) is
    absent, or ``http(s)://`` one of ``allowed``; also the origin as sent, for a refusal.
    ``null`` (a sandboxed page, a file) and several ``Origin`` headers are refused."""
    origins = [value for key, value in headers if key.lower() == b"origin"]
    if not origins:
        return True, ""
    if len(origins) > 1:
        return False, "several Origin headers"
    sent = origins[0].decode("latin-1")
    shown = sent if len(sent) <= 100 else sent[:97] + "…"
    scheme, sep, rest = sent.partition("://")
    ok = bool(sep) and scheme.lower() in ("http", "https") and "/" not in rest and host_name(rest) in allowed
    return ok, f"the origin {shown!r}"
