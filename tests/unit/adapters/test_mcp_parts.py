"""The MCP server's parts in process (no transport): argument errors in one line, a made-up
cursor, the bind rule and the HTTP app's middleware order (docs/mcp.md; ADR 0037, ADR 0059)."""

from __future__ import annotations

import secrets

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the mcp extra is not installed (pip install 'hlmem[mcp]')")

import anyio  # noqa: E402
from mcp.client.client import Client  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.asgi_guards import CloseOnShutdown, HostGuard  # noqa: E402
from hlmem.adapters.mcp.http import BearerToken, check_bind, http_app  # noqa: E402
from hlmem.adapters.mcp.server import build_server  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.domain.errors import ConfigurationError  # noqa: E402

CASES = [
    ("memory_recall", {"query": "x", "k": 500},
     "memory_recall: argument 'k': input should be less than or equal to 200 (got 500)"),
    ("memory_recall", {}, "memory_recall: argument 'query' is required"),
    ("memory_recall", {"query": "x", "kinds": ["claim", 7]},
     "memory_recall: argument 'kinds.1': input should be 'claim' or 'event' (got 7)"),
    ("memory_feedback", {"id": "cl_1", "verdict": "meh"},
     "memory_feedback: argument 'verdict': input should be 'helpful' or 'unhelpful' (got 'meh')"),
    ("memory_save", {"text": "x", "extract": "maybe" * 30},
     "memory_save: argument 'extract': input should be a valid boolean, unable to interpret input (got 'maybemaybe"),
    ("memory_episode_end", {"episode_id": "ep_1", "status": "done", "reward": 2},
     "memory_episode_end: argument 'status': input should be 'succeeded', 'failed' or 'cancelled' (got 'done'); "
     "argument 'reward': input should be less than or equal to 1 (got 2)"),
]


def run_tools(calls: list[tuple[str, dict]]) -> list[tuple[bool, str]]:
    async def main() -> list[tuple[bool, str]]:
        with Memory(":memory:", embedder="none", settings=Settings()) as mem:
            async with Client(build_server(mem)) as client:
                out = []
                for tool, arguments in calls:
                    result = await client.call_tool(tool, arguments)
                    out.append((result.is_error, result.content[0].text))
                return out

    return anyio.run(main)


def test_argument_errors_are_one_line_with_the_argument_and_the_reason() -> None:
    for (is_error, text), (_, _, expected) in zip(run_tools([(t, a) for t, a, _ in CASES]), CASES, strict=True):
        assert is_error and text.startswith(expected), text
        assert "\n" not in text and "https://" not in text and "For further information" not in text


def test_a_made_up_episode_cursor_is_a_tool_error() -> None:
    [(is_error, text)] = run_tools([("memory_episode_list", {"cursor": "garbage"})])
    assert is_error and "cursor 'garbage' is not a next_cursor this server gave (an id ep_…)" in text


def test_the_bind_rule_wants_a_strong_token_off_loopback() -> None:
    check_bind("127.0.0.1", None)
    check_bind("0.0.0.0", secrets.token_urlsafe(32))
    for token, why in ((None, "no token is set"), ("abc", "too weak")):
        with pytest.raises(ConfigurationError, match=why):
            check_bind("0.0.0.0", token)


def test_the_http_app_checks_the_host_first_then_the_token_and_closes_at_shutdown() -> None:
    closed: list[bool] = []
    with Memory(":memory:", embedder="none", settings=Settings()) as mem:
        app = http_app(build_server(mem), host="0.0.0.0", token="t" * 43, public_names=["memory.lan"],
                       on_shutdown=lambda: closed.append(True))
    assert isinstance(app, CloseOnShutdown) and isinstance(app.app, HostGuard)
    assert isinstance(app.app.app, BearerToken)
    assert app.app.allowed == {"localhost", "127.0.0.1", "::1", "memory.lan"}
