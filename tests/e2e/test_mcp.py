"""``hlmem mcp`` driven by the MCP SDK's own client: over stdio (the server a subprocess the client
spawns) and over streamable HTTP (a subprocess on a free 127.0.0.1 port). docs/mcp.md, ADR 0037.

Each server process is ended by the test (the SDK's stdio client ends its child; the HTTP server
is terminated in ``finally``), and every session runs under ``anyio.fail_after`` so nothing hangs.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the mcp extra is not installed (pip install 'hlmem[mcp]')")

import anyio  # noqa: E402
import httpx  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
from support.cli import HLMEM, cli_env, end_process  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

TOOLS = {"memory_relation_list", "memory_relation_get", "memory_relation_accept", "memory_relation_reject",
         "memory_recall", "memory_save", "memory_remember", "memory_forget", "memory_get", "memory_correct",
         "memory_explain", "memory_history", "memory_feedback", "memory_episode_start", "memory_episode_step",
         "memory_episode_end", "memory_episode_get", "memory_episode_list", "memory_policies", "memory_procedures"}
NOW = "2026-12-01T10:00:00+00:00"
LIMIT = 60  # seconds per session: a hang fails the test instead of blocking the run


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return cli_env(tmp_path / "memory.db", HLMEM_EMBEDDER="hash", XDG_CONFIG_HOME=str(tmp_path / "config"),
                   **extra)


async def call(mcp: ClientSession, tool: str, /, **arguments: Any) -> dict[str, Any]:
    """A tool call that must succeed; its structured content, checked against the text content."""
    result = await mcp.call_tool(tool, arguments)
    assert not result.is_error, (tool, result.content)
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def error_of(mcp: ClientSession, tool: str, /, **arguments: Any) -> str:
    """A tool call that must fail as a tool error (not a protocol error); its message."""
    result = await mcp.call_tool(tool, arguments)
    assert result.is_error, (tool, result.structured_content)
    return result.content[0].text


def over_stdio(tmp_path: Path, body: Callable[[ClientSession], Awaitable[None]], **env: str) -> None:
    """``body(session)`` against ``hlmem mcp`` spawned over stdio in ``tmp_path`` (bounded by LIMIT)."""
    params = StdioServerParameters(command=HLMEM, args=["--now", NOW, "mcp"], env=env_for(tmp_path, **env),
                                   cwd=str(tmp_path))

    async def main() -> None:
        with anyio.fail_after(LIMIT):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await body(session)

    anyio.run(main)


async def exercise(session: ClientSession) -> None:
    """Every tool, the resource and the prompt, and business errors that leave the session usable."""
    await session.initialize()
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.output_schema["type"] == "object", tool.name
        assert tool.description
    assert tools["memory_recall"].input_schema["required"] == ["query"]
    assert {"query", "k", "valid_at", "known_at", "namespace", "session", "budget"} <= set(
        tools["memory_recall"].input_schema["properties"])
    assert set(tools["memory_recall"].output_schema["required"]) == {"items", "valid_at", "known_at", "notes"}
    assert set(tools["memory_remember"].input_schema["required"]) == {"subject", "predicate", "value"}

    saved = await call(session, "memory_save", text="I moved to Lisbon in May", session="s1", occurred_at=NOW)
    assert saved["id"].startswith("ev_") and isinstance(saved["claims"], list)
    paris = await call(session, "memory_remember", subject="user", predicate="home_city", value="Paris",
                       valid_from="2026-01-01T00:00:00+00:00")
    assert paris["outcome"] == "created" and paris["id"].startswith("cl_")
    fixed = await call(session, "memory_correct", id=paris["id"], value="Lisbon")
    assert fixed["corrected"] == paris["id"] and fixed["outcome"] == "superseded" and not fixed["retracted"]

    got = await call(session, "memory_get", id=fixed["id"])
    assert got["kind"] == "claim" and got["claim"]["value"] == "Lisbon" and got["claim"]["status"] == "active"
    event = await call(session, "memory_get", id=saved["id"])
    assert event["event"]["text"] == "I moved to Lisbon in May" and event["event"]["session"] == "s1"

    history = await call(session, "memory_history", subject="user", predicate="home_city")
    assert [(c["value"], c["status"]) for c in history["items"]] == [("Paris", "superseded"), ("Lisbon", "active")]
    explained = await call(session, "memory_explain", id=fixed["id"])
    assert explained["kind"] == "claim" and [c["value"] for c in explained["chain"]] == ["Paris", "Lisbon"]

    recalled = await call(session, "memory_recall", query="home city", k=5, budget=300)
    assert recalled["items"][0]["id"] == fixed["id"] and "Lisbon" in recalled["packet"]["text"]
    assert recalled["packet"]["tokens"] <= 300 and recalled["packet"]["version"] == 2
    # a packet's handle names its item wherever an id is taken (ADR 0092); format v1 on request
    handle = f"{recalled['packet']['tag']}.1"
    assert f"named {handle[:-2]}.n" in recalled["packet"]["text"] and "[1] " in recalled["packet"]["text"]
    assert (await call(session, "memory_explain", id=handle))["claim"]["id"] == recalled["packet"]["included"][0]
    assert "did not serve" in await error_of(session, "memory_explain", id="bcdfghj.1")
    v1 = await call(session, "memory_recall", query="home city", k=5, budget=300, packet_version=1)
    assert v1["packet"]["text"].startswith("memory v1") and fixed["id"] in v1["packet"]["text"]
    before = await call(session, "memory_recall", query="home city", valid_at="2026-03-01T00:00:00+00:00")
    assert [i["value"] for i in before["items"] if i["kind"] == "claim"][:1] == ["Paris"]
    only_s2 = await call(session, "memory_recall", query="Lisbon", session="s2", kinds=["event"])
    assert only_s2["items"] == []

    liked = await call(session, "memory_feedback", id=fixed["id"], verdict="helpful")
    assert liked["id"] == fixed["id"]

    # Business errors are tool errors with a clear message; the session goes on.
    assert "no claim cl_missing" in await error_of(session, "memory_get", id="cl_missing")
    assert "not active" in await error_of(session, "memory_correct", id=paris["id"], value="Rome")
    assert "valid_at" in await error_of(session, "memory_recall", query="x", valid_at="next blue moon")
    assert "exactly one" in await error_of(session, "memory_forget")
    assert await error_of(session, "memory_feedback", id=fixed["id"], verdict="meh")  # schema: Literal
    assert "Traceback" not in await error_of(session, "memory_explain", id="nonsense")

    plan = await call(session, "memory_forget", id=saved["id"], dry_run=True)
    assert plan["dry_run"] and plan["counts"]["events"] == 1
    assert (await call(session, "memory_get", id=saved["id"]))["kind"] == "event"  # a dry run removes nothing
    gone = await call(session, "memory_forget", id=saved["id"], reason="user asked")
    assert not gone["dry_run"] and gone["counts"]["events"] == 1
    assert "forgotten" in await error_of(session, "memory_get", id=saved["id"])
    assert (await call(session, "memory_explain", id=saved["id"]))["kind"] == "forgotten"

    templates = (await session.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["hlmem://context/{query}"]
    packet = (await session.read_resource("hlmem://context/home%20city")).contents[0].text
    assert packet.startswith("memory v2") and "Lisbon" in packet and "I moved to Lisbon" not in packet
    prompt = await session.get_prompt("memory_context", {"query": "home city"})
    assert prompt.messages[0].content.text == packet


def test_stdio_every_tool_resource_and_prompt(tmp_path: Path) -> None:
    over_stdio(tmp_path, exercise)


def test_stdio_recall_answers_a_howto_question_with_the_procedure(tmp_path: Path) -> None:
    seed_policy(tmp_path / "memory.db")

    async def body(session: ClientSession) -> None:
        await session.initialize()
        found = await call(session, "memory_recall", query="How do I rotate the TLS certificate?")
        head = [(i["kind"], i["approach"], i["support"]) for i in found["items"][:2]]
        assert head == [("procedure", "certbot", 4), ("policy", "certbot", 4)]
        facts = await call(session, "memory_recall", query="How do I rotate the TLS certificate?", intent="facts")
        assert all(i["kind"] in ("claim", "event") for i in facts["items"])

    over_stdio(tmp_path, body)


async def exercise_episodes(session: ClientSession) -> None:
    """The experience tools: an episode started, stepped, ended, read and forgotten; policies and
    procedures listed; bad input as tool errors that write nothing."""
    await session.initialize()
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert tools["memory_episode_start"].input_schema["required"] == ["goal"]
    assert set(tools["memory_episode_end"].input_schema["required"]) == {"episode_id", "status"}
    assert {"changes", "status", "id"} <= set(tools["memory_episode_end"].output_schema["required"])

    saved = await call(session, "memory_save", text="the db container is up", extract=False)
    ep = await call(session, "memory_episode_start", goal="Set up the dev database", approach="compose")
    assert ep["id"].startswith("ep_") and ep["status"] == "running" and ep["steps"] == []
    step = await call(session, "memory_episode_step", episode_id=ep["id"], action="docker compose up -d db",
                      tool="docker", cost=0.2, value=0.5, evidence=[saved["id"]])
    assert step["step"]["index"] == 1 and step["step"]["evidence"] == [saved["id"]] and step["step_count"] == 1
    running = await call(session, "memory_episode_list", status="running")
    assert [e["id"] for e in running["items"]] == [ep["id"]] and running["next_cursor"] is None

    # Bad input: tool errors, the session goes on, the episode is as it was.
    assert "no episode" in await error_of(session, "memory_episode_step", episode_id="ep_0000000000", action="x")
    assert "episode id" in await error_of(session, "memory_episode_get", episode_id="cl_123")
    assert await error_of(session, "memory_episode_start", goal="")  # schema: min_length
    assert "goal" in await error_of(session, "memory_episode_start", goal="   ")
    assert await error_of(session, "memory_episode_end", episode_id=ep["id"], status="succeeded", reward=1.5)
    assert await error_of(session, "memory_episode_end", episode_id=ep["id"], status="running")
    assert "ev_gone" in await error_of(session, "memory_episode_step", episode_id=ep["id"], action="x",
                                       evidence=["ev_gone"])
    assert (await call(session, "memory_episode_get", episode_id=ep["id"]))["step_count"] == 1
    assert len((await call(session, "memory_episode_list"))["items"]) == 5  # the four seeded and this one

    ended = await call(session, "memory_episode_end", episode_id=ep["id"], status="succeeded", reward=1.0,
                       outcome="db up in 40 s")
    assert ended["status"] == "succeeded" and ended["reward"] == 1.0 and isinstance(ended["changes"], list)
    assert "already ended" in await error_of(session, "memory_episode_end", episode_id=ep["id"], status="failed")
    assert "already ended" in await error_of(session, "memory_episode_step", episode_id=ep["id"], action="x")
    shown = await call(session, "memory_episode_get", episode_id=ep["id"])
    assert (shown["status"], shown["outcome"], [s["tool"] for s in shown["steps"]]) == (
        "succeeded", "db up in 40 s", ["docker"])

    # Policies and procedures learnt before the server started (tests/e2e/test_mcp.py seeds them).
    policies = (await call(session, "memory_policies", status="active"))["items"]
    assert [(p["approach"], p["support"], p["successes"]) for p in policies] == [("certbot", 4, 4)]
    procedures = (await call(session, "memory_procedures"))["items"]
    assert [(p["policy_id"], p["version"], p["steps"]) for p in procedures] == [
        (policies[0]["id"], 1, ["certbot: certbot renew"])]
    assert (await call(session, "memory_policies", status="retired"))["items"] == []
    asked = await call(session, "memory_policies", query="how do I rotate the TLS certificate?", status="active")
    assert [p["id"] for p in asked["items"]] == [policies[0]["id"]]

    plan = await call(session, "memory_forget", id=ep["id"], dry_run=True)
    assert plan["dry_run"] and plan["target"] == ep["id"]
    gone = await call(session, "memory_forget", id=ep["id"])
    assert not gone["dry_run"]
    assert (await call(session, "memory_episode_get", episode_id=ep["id"]))["status"] == "forgotten"


def seed_policy(path: Path) -> None:
    """Four successful episodes under low thresholds: an active policy and its procedure."""
    from hlmem import Memory

    with Memory(path, embedder="hash", now=NOW) as mem:
        mem.set_experience_thresholds({"min_support": 3, "min_reliability": 0.3, "probation": 1,
                                       "procedure_min_successes": 3, "procedure_min_reliability": 0.3})
        for _ in range(4):
            ep = mem.start_episode("rotate the TLS certificate", approach="certbot")
            mem.record_step(ep.episode_id, "certbot renew", tool="certbot")
            mem.end_episode(ep.episode_id, "succeeded", reward=1.0)


def test_stdio_episode_policy_and_procedure_tools(tmp_path: Path) -> None:
    seed_policy(tmp_path / "memory.db")
    over_stdio(tmp_path, exercise_episodes)


def test_stdio_the_environments_experience_thresholds_reach_the_server(tmp_path: Path) -> None:
    eager = ('{"rule": "wilson", "min_support": 3, "min_reliability": 0.3, "probation": 1, "procedure_min_successes": 3, '
             '"procedure_min_reliability": 0.3}')

    async def body(session: ClientSession) -> None:
        await session.initialize()
        for _ in range(4):
            ep = await call(session, "memory_episode_start", goal="rotate the TLS certificate", approach="certbot")
            await call(session, "memory_episode_step", episode_id=ep["id"], action="certbot renew", tool="certbot")
            ended = await call(session, "memory_episode_end", episode_id=ep["id"], status="succeeded")
        assert {c["event"] for c in ended["changes"]} >= {"PolicyActivated", "ProcedurePromoted"}
        policies = (await call(session, "memory_policies"))["items"]
        assert [(p["status"], p["support"]) for p in policies] == [("active", 4)]

    over_stdio(tmp_path, body, HLMEM_EXPERIENCE=eager)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, str | None]]:
    """``hlmem mcp --transport http`` on a free loopback port; yields its URL and token."""
    token = getattr(request, "param", None)
    port = free_port()
    env = env_for(tmp_path, **({"HLMEM_MCP_TOKEN": token} if token else {}))
    proc = subprocess.Popen([HLMEM, "--now", NOW, "mcp", "--transport", "http", "--port", str(port)], env=env,
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        end_process(proc, timeout=10)


def wait_for_port(port: int, proc: subprocess.Popen) -> None:
    """Until the server accepts connections (bounded by tries, not by a timed assertion)."""
    for _ in range(600):
        if proc.poll() is not None:
            raise AssertionError(f"hlmem mcp exited {proc.returncode}: {proc.stderr.read().decode()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            anyio.run(anyio.sleep, 0.05)
    raise AssertionError("hlmem mcp never accepted connections")


def http_session(url: str, token: str | None):
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"} if token else None)
    return client, streamable_http_client(url, http_client=client)


def test_streamable_http_every_tool_resource_and_prompt(http_server: tuple[str, str | None]) -> None:
    url, token = http_server

    async def main() -> None:
        with anyio.fail_after(LIMIT):
            client, transport = http_session(url, token)
            async with client, transport as (read, write), ClientSession(read, write) as session:
                await exercise(session)

    anyio.run(main)


@pytest.mark.parametrize("http_server", ["s3cr3t-token-for-the-test-only"], indirect=True)
def test_with_a_token_every_request_needs_it(http_server: tuple[str, str | None]) -> None:
    url, token = http_server
    hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {token}"}):
        answer = httpx.post(url, json=hello, headers={**headers, "Accept": "application/json, text/event-stream"})
        assert answer.status_code == 401 and "HLMEM_MCP_TOKEN" in answer.json()["message"]

    async def main() -> None:
        with anyio.fail_after(LIMIT):
            client, transport = http_session(url, token)
            async with client, transport as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                assert len((await session.list_tools()).tools) == len(TOOLS)

    anyio.run(main)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.org"])
def test_a_non_loopback_host_without_a_token_is_refused(tmp_path: Path, host: str) -> None:
    done = subprocess.run([HLMEM, "mcp", "--transport", "http", "--host", host], env=env_for(tmp_path),
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"error: refusing to serve MCP on {host}: it is reachable from other machines and no token is set")
    assert "HLMEM_MCP_TOKEN" in done.stderr and not (tmp_path / "memory.db").exists()


def test_a_placeholder_token_is_refused_without_showing_it(tmp_path: Path) -> None:
    done = subprocess.run([HLMEM, "mcp", "--transport", "http"], env=env_for(tmp_path, HLMEM_MCP_TOKEN="changeme"),
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "placeholder" in done.stderr and "changeme" not in done.stderr


async def exercise_relations(session: ClientSession) -> None:
    """The relation tools (docs/relations.md): a turn saved with relations on proposes edges, which
    are listed, read with their evidence, accepted and rejected; bad ids are tool errors."""
    await session.initialize()
    await call(session, "memory_save", text="My coworker Tom works at Acme.")
    queue = (await call(session, "memory_relation_list"))["items"]
    by_relation = {r["relation"]: r for r in queue}
    assert set(by_relation) == {"colleague", "works_at"} and all(r["status"] == "proposed" for r in queue)
    shown = await call(session, "memory_relation_get", relation_id=by_relation["works_at"]["id"])
    assert shown["live"] and shown["target"]["name"] == "Acme"
    accepted = await call(session, "memory_relation_accept", relation_id=shown["id"], reason="he said so")
    assert (accepted["status"], accepted["reviewed_by"]) == ("accepted", "mcp")
    rejected = await call(session, "memory_relation_reject", relation_id=by_relation["colleague"]["id"])
    assert rejected["status"] == "rejected"
    assert (await call(session, "memory_relation_list"))["items"] == []
    assert len((await call(session, "memory_relation_list", status="all", entity="Tom"))["items"]) == 2
    assert "no relation" in await error_of(session, "memory_relation_accept", relation_id="rl_nothing")
    assert "rl_" in await error_of(session, "memory_relation_get", relation_id="cl_1")
    assert "cursor" in await error_of(session, "memory_relation_list", cursor="ep_1")


def test_relation_tools_review_the_queue(tmp_path: Path) -> None:
    over_stdio(tmp_path, exercise_relations, HLMEM_RELATIONS="1")
