"""Who may call ``hlmem serve``: the bearer token, the open health route, the loopback rule (ADR 0036)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")
import httpx  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.listen_guard import check_bind, is_loopback, read_token  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.domain.errors import ConfigurationError  # noqa: E402
from support.cli import HLMEM, cli_env, run_cli  # noqa: E402
from support.rest_server import free_port, serve_process, serving  # noqa: E402

TOKEN = "s3cret-token-for-tests"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with Memory(tmp_path_factory.mktemp("auth") / "m.db", embedder="hash", settings=Settings()) as mem, \
            serving(mem, token=TOKEN) as base:
        yield base


@pytest.mark.parametrize(("method", "path", "json"), [
    ("GET", "/v1/stats", None), ("POST", "/v1/memories", {"subject": "a", "predicate": "b", "value": "c"}),
    ("POST", "/v1/recall", {"query": "c"}), ("POST", "/v1/episodes", {"goal": "deploy the site"}),
    ("GET", "/v1/policies", None), ("GET", "/openapi.json", None), ("GET", "/docs", None),
    ("GET", "/v1/nothing-here", None),
])
def test_every_route_but_health_needs_the_token(url: str, method: str, path: str, json: dict | None) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:
        for headers, why in (({}, "no bearer token"), ({"Authorization": "Bearer wrong"}, "not the configured"),
                             ({"Authorization": TOKEN}, "not the configured")):
            denied = http.request(method, path, json=json, headers=headers)
            assert denied.status_code == 401, denied.text
            assert denied.json()["error"]["code"] == "unauthorized" and why in denied.json()["error"]["message"]
            assert denied.headers["www-authenticate"] == "Bearer"
        allowed = http.request(method, path, json=json, headers={"Authorization": f"Bearer {TOKEN}"})
        assert allowed.status_code != 401
        assert allowed.status_code < 300 or path == "/v1/nothing-here"


def test_health_is_open(url: str) -> None:
    assert httpx.get(f"{url}/health", timeout=30).json() == {"status": "ok"}


def test_an_anonymous_large_body_is_refused_by_auth_before_it_is_read(url: str) -> None:
    denied = httpx.post(f"{url}/v1/events", content=b"x" * (2 << 20), timeout=30)
    assert denied.status_code == 401


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.8.9.1", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("example.org", False),
])
def test_which_hosts_are_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
    if loopback:
        check_bind(host, None, "HLMEM_SERVER_TOKEN")
    else:
        with pytest.raises(ConfigurationError, match="set HLMEM_SERVER_TOKEN"):
            check_bind(host, None, "HLMEM_SERVER_TOKEN")
        with pytest.raises(ConfigurationError, match="too weak"):
            check_bind(host, "a-token", "HLMEM_SERVER_TOKEN")
        check_bind(host, "kX3v9Qm2_Lp7Rt-Zw4Nc8Hb6Jd1Fg5Sy0Ua2Ve7MiOq", "HLMEM_SERVER_TOKEN")  # token_urlsafe(32)


def test_the_token_comes_from_the_named_variable_blank_is_none() -> None:
    assert read_token("MY_TOKEN", {"MY_TOKEN": " abc "}) == "abc"
    assert read_token("MY_TOKEN", {"MY_TOKEN": "  "}) is None
    assert read_token("MY_TOKEN", {}) is None


def test_serve_refuses_a_public_address_without_a_token(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    run = run_cli(db, ["serve", "--host", "0.0.0.0", "--port", "1"])
    assert run.code == 1, run
    assert "refusing to serve on 0.0.0.0: it is reachable from other machines and no token is set" in run.err and "HLMEM_SERVER_TOKEN" in run.err
    assert not db.exists()  # refused before the store was opened
    named = run_cli(db, ["serve", "--host", "0.0.0.0", "--token-env", "OTHER_VAR"],
                    env=cli_env(db, HLMEM_SERVER_TOKEN="not-this-one"))
    assert named.code == 1 and "OTHER_VAR" in named.err


@pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")
def test_hlmem_serve_as_a_process_with_a_token_from_the_config_files_variable(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "hlmem.toml"
    config.write_text(f'embedder = "hash"\n[server]\nport = {port}\ntoken_env = "MY_SERVER_TOKEN"\n')
    env = cli_env(tmp_path / "m.db", HLMEM_CONFIG=str(config), MY_SERVER_TOKEN=TOKEN)
    with serve_process(HLMEM, port, env, tmp_path) as base:
        assert httpx.get(f"{base}/v1/stats", timeout=30).status_code == 401
        stats = httpx.get(f"{base}/v1/stats", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        assert stats.status_code == 200 and stats.json()["embedder"] == "hash"
