"""Who may reach a server hlmem runs: the token's strength and the Host allowlist (ADR 0059)."""

from __future__ import annotations

import base64
import secrets
import uuid

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hlmem.adapters.listen_guard import (
    MIN_TOKEN_BITS,
    allowed_hosts,
    check_bind,
    host_allowed,
    host_name,
    public_name_problem,
    token_bits,
    token_problem,
)
from hlmem.domain.errors import ConfigurationError

STRONG = {
    "token_urlsafe(32)": lambda: secrets.token_urlsafe(32),
    "token_hex(32)": lambda: secrets.token_hex(32),
    "openssl rand -base64 32": lambda: base64.b64encode(secrets.token_bytes(32)).decode(),
}


@pytest.mark.parametrize("make", list(STRONG.values()), ids=list(STRONG))
def test_the_usual_generators_of_32_random_bytes_pass(make) -> None:
    for _ in range(200):
        token = make()
        assert token_bits(token) >= MIN_TOKEN_BITS and token_problem(token) is None, token


_WEAK = {"abc": "abc", "known-phrase": "s3cret-token-for-tests", "hex-24-bytes": secrets.token_hex(24),
         "uuid4": str(uuid.uuid4()), "one-letter": "a" * 300, "two-letters": "ab" * 100, "four-chars": "Aa1!" * 30,
         "words-repeated": "correcthorsebatterystaple" * 3, "alphabet-repeated": "abcdefghijkl" * 40,
         "random-repeated": secrets.token_urlsafe(20) * 4, "urlsafe-16-bytes": secrets.token_urlsafe(16),
         "zeros": "0" * 64}


# Stable ids: the values are random (pytest-xdist's workers must collect the same names).
@pytest.mark.parametrize("token", list(_WEAK.values()), ids=list(_WEAK))
def test_short_repetitive_or_small_tokens_fail(token: str) -> None:
    problem = token_problem(token)
    assert problem is not None and "32 random bytes" in problem, token


@pytest.mark.parametrize("token", ["kéy" + secrets.token_urlsafe(32), secrets.token_urlsafe(32) + " x",
                                   "\t" + secrets.token_hex(40)], ids=["non-ascii", "space", "tab"])
def test_a_token_must_be_printable_ascii(token: str) -> None:
    assert "printable ASCII" in token_problem(token)


def test_check_bind_names_the_problem_never_the_token() -> None:
    check_bind("127.0.0.1", "abc", "T")  # loopback: any token only adds
    check_bind("0.0.0.0", secrets.token_urlsafe(32), "T")
    with pytest.raises(ConfigurationError) as caught:
        check_bind("0.0.0.0", "weak-but-secret", "MY_TOKEN", "serve MCP")
    text = str(caught.value)
    assert "refusing to serve MCP on 0.0.0.0 with the token in MY_TOKEN" in text and "weak-but-secret" not in text
    assert "secrets.token_urlsafe(32)" in text


@pytest.mark.parametrize(("value", "name"), [
    ("localhost", "localhost"), ("LocalHost:8765", "localhost"), ("localhost.", "localhost"),
    ("127.0.0.1:80", "127.0.0.1"), ("[::1]", "::1"), ("[::1]:8765", "::1"), ("::1", "::1"),
    ("[0:0:0:0:0:0:0:1]", "::1"), ("Memory.Example.ORG.:443", "memory.example.org"),
    ("evil.example", "evil.example"),
    ("", None), ("localhost:", None), ("localhost:0", None), ("localhost:99999", None), ("localhost:x", None),
    ("[::1", None), ("[::1]x", None), ("[::1]:x", None), ("[evil]", None), ("a b", None), ("a/b", None),
    ("user@localhost", None), ("*.localhost", None), ("local\x00host", None), ("localhost\r\nX: y", None),
    ("é.example", None), (":8765", None), (".", None),
])
def test_host_names_are_normalised_or_refused(value: str, name: str | None) -> None:
    assert host_name(value) == name


def test_the_allowlist_is_loopback_the_bound_address_and_the_public_names() -> None:
    assert allowed_hosts("127.0.0.1") == {"localhost", "127.0.0.1", "::1"}
    assert allowed_hosts("0.0.0.0") == allowed_hosts("::") == allowed_hosts("127.0.0.1")
    assert allowed_hosts("192.168.1.5", ["Memory.LAN"]) == {"localhost", "127.0.0.1", "::1", "192.168.1.5",
                                                           "memory.lan"}
    assert "fe80::1" in allowed_hosts("[fe80::1]")


@pytest.mark.parametrize(("name", "problem"), [
    ("memory.lan", None), ("10.0.0.7", None), ("[fe80::1]", None), ("fe80::1", None),
    ("memory.lan:443", "without a port"), ("[fe80::1]:443", "without a port"), ("*", "wildcards"),
    ("*.lan", "wildcards"), ("::", "wildcard bind address"), ("0.0.0.0", "wildcard bind address"),
    ("https://memory.lan", "not a host name"), ("", "blank"), (None, "blank"),
])
def test_a_public_name_is_a_bare_host(name: object, problem: str | None) -> None:
    found = public_name_problem(name)
    assert (found is None) if problem is None else (problem in found)


LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)


@given(st.lists(label, min_size=1, max_size=4).map(".".join), st.integers(1, 65535) | st.none())
@example("localhost.evil", 80)
@example("127.0.0.1.nip", None)
@example("evil-localhost", None)
def test_any_other_host_name_is_refused(name: str, port: int | None) -> None:
    sent = name if port is None else f"{name}:{port}"
    ok, what = host_allowed([(b"host", sent.encode())], LOOPBACK)
    assert ok is (name in LOOPBACK)
    assert ok or sent in what


@given(st.sampled_from(["localhost", "127.0.0.1", "[::1]"]), st.integers(1, 65535) | st.none(),
       st.booleans())
def test_the_loopback_names_pass_in_any_case_with_any_port(name: str, port: int | None, upper: bool) -> None:
    sent = (name.upper() if upper else name) + ("" if port is None else f":{port}")
    assert host_allowed([(b"host", sent.encode())], LOOPBACK) == (True, f"the host {sent!r}")


def test_no_host_or_several_are_refused() -> None:
    assert host_allowed([], LOOPBACK) == (False, "a request without a Host header")
    two = [(b"host", b"localhost"), (b"host", b"evil.example")]
    assert host_allowed(two, LOOPBACK) == (False, "a request with several Host headers")
