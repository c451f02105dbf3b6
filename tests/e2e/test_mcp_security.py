"""The attacks of issue 33 on ``hlmem mcp`` (docs/mcp.md; ADR 0059): forged Host headers on the
streamable HTTP transport (raw bytes, as curl sends them), a weak token off loopback, argument
errors that must read as one line, a made-up cursor, and SIGTERM on either transport, which must
leave no ``-wal`` behind.

One HTTP server process is shared by the module; the SIGTERM tests start their own.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the mcp extra is not installed (pip install 'hlmem[mcp]')")

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
from support.cli import HLMEM, cli_env, end_process, run_cli  # noqa: E402
from support.raw_http import raw, request  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

PUBLIC = "memory.example.org"
LIMIT = 60
PING = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = cli_env(tmp_path / "memory.db", HLMEM_EMBEDDER="hash", XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.Popen([HLMEM, "mcp", "--transport", "http", "--port", str(port), *extra], env=env,
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if proc.poll() is not None:
            raise AssertionError(f"hlmem mcp exited {proc.returncode}: {proc.stderr.read().decode()}")
        try:
            raw(base, request("GET", "/", b"Host: localhost"))
            return proc, base
        except OSError:
            anyio.run(anyio.sleep, 0.05)
    end_process(proc)
    raise AssertionError("hlmem mcp never accepted connections")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, base = start_http(tmp_path_factory.mktemp("mcp-security"), "--public-name", PUBLIC)
    try:
        yield base
    finally:
        end_process(proc)


def ping(base: str, host: bytes, *headers: bytes) -> tuple[int, bytes]:
    return raw(base, request("POST", "/mcp", b"Host: " + host, b"Content-Type: application/json",
                             b"Accept: application/json, text/event-stream", *headers, body=PING))


@pytest.mark.parametrize("host", [b"evil.example", b"evil.example:8765", b"localhost.evil.example",
                                  b"127.0.0.1.evil.example", b"[::2]", b"0.0.0.0", b""])
def test_a_forged_host_is_refused_on_the_mcp_endpoint(server: str, host: bytes) -> None:
    status, body = ping(server, host)
    assert status == 421, body
    answer = json.loads(body)
    assert answer["error"] == "host_not_allowed" and "DNS rebinding" in answer["message"]


def test_no_host_or_two_hosts_are_refused(server: str) -> None:
    assert raw(server, b"POST /mcp HTTP/1.0\r\nContent-Length: 0\r\n\r\n")[0] == 421
    assert ping(server, b"localhost", b"Host: evil.example")[0] == 421


@pytest.mark.parametrize("host", [b"localhost", b"127.0.0.1", b"[::1]", PUBLIC.encode()])
def test_the_servers_own_names_reach_the_endpoint(server: str, host: bytes) -> None:
    port = server.rsplit(":", 1)[1].encode()
    for sent in (host, host + b":" + port):
        status, body = ping(server, sent)
        assert status != 421 and b"host_not_allowed" not in body and b"Invalid Host" not in body, (sent, body)


def test_a_foreign_origin_is_refused(server: str) -> None:
    status, body = ping(server, b"localhost", b"Origin: http://evil.example")
    assert status == 403 and json.loads(body)["error"] == "origin_not_allowed"
    port = server.rsplit(":", 1)[1].encode()
    assert ping(server, b"localhost", b"Origin: http://localhost:" + port)[0] != 403


@pytest.mark.parametrize("token", ["abc", "0123456789abcdef" * 3, "a" * 100])
def test_a_weak_token_off_loopback_is_refused(tmp_path: Path, token: str) -> None:
    db = tmp_path / "memory.db"
    run = run_cli(db, ["mcp", "--transport", "http", "--host", "0.0.0.0"], env=cli_env(db, HLMEM_MCP_TOKEN=token))
    assert run.code == 1 and "refusing to serve MCP on 0.0.0.0" in run.err, run
    assert "secrets.token_urlsafe(32)" in run.err and token not in run.err and not db.exists()


def test_argument_errors_are_one_line_naming_the_argument(server: str) -> None:
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> None:
        with anyio.fail_after(LIMIT):
            async with streamable_http_client(f"{server}/mcp") as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                for tool, arguments, expected in (
                        ("memory_recall", {"query": "x", "k": 500}, "argument 'k': input should be less than or "
                                                                    "equal to 200 (got 500)"),
                        ("memory_recall", {}, "argument 'query' is required"),
                        ("memory_feedback", {"id": "cl_1", "verdict": "meh"}, "argument 'verdict'"),
                        ("memory_episode_step", {"episode_id": "ep_1", "action": "x", "value": 3},
                         "argument 'value'"),
                        ("memory_recall", {"query": "x", "kinds": ["claim", 7]}, "argument 'kinds.1'")):
                    text = await error_text(session, tool, arguments)
                    assert expected in text and text.startswith(f"{tool}: "), text
                    assert "\n" not in text and "http" not in text and "errors.pydantic.dev" not in text, text
                cursor = await error_text(session, "memory_episode_list", {"cursor": "garbage"})
                assert "cursor 'garbage' is not a next_cursor" in cursor and "\n" not in cursor

    anyio.run(main)


async def error_text(session: ClientSession, tool: str, arguments: dict[str, Any]) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error, (tool, result.structured_content)
    return result.content[0].text


def test_sigterm_on_http_leaves_no_wal_behind(tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    proc, base = start_http(tmp_path)
    try:
        async def main() -> None:
            with anyio.fail_after(LIMIT):
                async with streamable_http_client(f"{base}/mcp") as (read, write), \
                        ClientSession(read, write) as session:
                    await session.initialize()
                    for n in range(20):
                        result = await session.call_tool("memory_save", {"text": f"note {n} about the garden"})
                        assert not result.is_error

        anyio.run(main)
        assert (tmp_path / "memory.db-wal").stat().st_size > 0
    finally:
        end_process(proc)
    assert proc.returncode == -signal.SIGTERM
    assert not (tmp_path / "memory.db-wal").exists() and not (tmp_path / "memory.db-shm").exists()


def test_sigterm_on_stdio_leaves_no_wal_behind_and_stops(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "memory.db", HLMEM_EMBEDDER="hash", XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.Popen([HLMEM, "mcp"], env=env, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        def send(message: dict[str, Any]) -> None:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
        assert json.loads(proc.stdout.readline())["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "memory_save", "arguments": {"text": "the gate code is 1234"}}})
        assert json.loads(proc.stdout.readline())["id"] == 2
        assert (tmp_path / "memory.db-wal").exists()
        proc.send_signal(signal.SIGTERM)  # stdin stays open: the server must stop anyway
        assert proc.wait(timeout=30) == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=15)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    assert not (tmp_path / "memory.db-wal").exists() and not (tmp_path / "memory.db-shm").exists()
