"""The MCP server: twenty ``memory_*`` tools, a context-packet resource and prompt, over one ``Memory``.

The experience channel's seven tools (episodes, policies, procedures) are in
:mod:`~hlmem.adapters.mcp.experience_tools`, the four of relations (list, get, accept, reject) in
:mod:`~hlmem.adapters.mcp.relation_tools`.

Each tool parses its JSON arguments (the SDK validates them against the input schema built from
the signature), makes one call into :class:`~hlmem.Memory` and returns the CLI's JSON shape
(:mod:`hlmem.adapters.mcp.shapes`) as structured content. No policy lives here.

The call runner (:class:`~hlmem.adapters.mcp.calls.Calls`) and the arguments' annotations every
tool shares are in :mod:`~hlmem.adapters.mcp.calls`.

Threads: the SDK is async; ``Memory`` is synchronous and not meant to be entered by two threads
at once, so every call runs in a worker thread (``anyio.to_thread``) behind one
``CapacityLimiter(1)``: the event loop stays free for the transport, and the store sees one call
at a time, in arrival order, from one process (other processes share the file as ADR 0024 says).

Errors: an :class:`~hlmem.domain.errors.HlmemError` (not found, validation, forgotten content,
a stale claim, a refused configuration) becomes a tool error (``isError: true``) with its
message; anything else becomes a tool error that names only the exception's type, its traceback
going to the server's log (stderr), never to the client. The session goes on either way.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Annotated, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from hlmem.adapters.mcp import shapes
from hlmem.adapters.mcp.calls import ERASE, READ, WRITE, Calls, HlmemMCPServer, Id, Namespace, Pairs, Time
from hlmem.adapters.mcp.experience_tools import add_experience_tools
from hlmem.adapters.mcp.relation_tools import add_relation_tools
from hlmem.adapters.wire.claims import claim_dict, explanation_dict
from hlmem.adapters.wire.forget import report_dict
from hlmem.adapters.wire.recall import recall_dict
from hlmem.adapters.wire.writes import correction_dict, item_dict, save_dict, write_dict

if TYPE_CHECKING:
    from hlmem.adapters.memory_api import Memory

#: The server's name in ``initialize`` (clients show it).
SERVER_NAME = "hlmem"
#: The resource template whose reads return the context packet for a query.
CONTEXT_URI = "hlmem://context/{query}"
#: Token budget of the packet the resource and the prompt return (docs/packet.md).
CONTEXT_BUDGET = 800

INSTRUCTIONS = (
    "Long-term memory with two clocks. memory_recall before answering from memory; memory_save each "
    "user turn verbatim; memory_remember an explicit fact; memory_correct a wrong claim by id; "
    "memory_explain to see a claim's evidence; memory_forget erases (try dry_run first). A context packet's "
    "item [n] is named <tag>.n wherever an id is taken (the tag is in its first line). For a task: "
    "memory_episode_start, memory_episode_step per action, memory_episode_end with how it went; a how-to "
    "memory_recall (or memory_policies, memory_procedures) returns what worked before.")


def build_server(memory: Memory) -> HlmemMCPServer:
    """An MCP server whose tools, resource and prompt all call ``memory`` (the caller closes it).

    :param memory: the one store this server serves, opened by the caller (``hlmem mcp``: from
        ``--db`` and the settings, as every command).
    """
    server = HlmemMCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")
    call = Calls(memory)
    mem = memory

    @server.tool(annotations=READ)
    async def memory_recall(
        query: Annotated[str, Field(description="What to look for, in any language.", min_length=1)],
        k: Annotated[int | None, Field(ge=1, le=200, description="How many items at most (default 10, or with budget one "
                                                                 "per 40 tokens of it, 80 for packet_version 1).")] = None,
        valid_at: Time = None, known_at: Time = None, namespace: Namespace = None,
        session: Annotated[str | None, Field(description="Keep only this session's events (claims stay).")] = None,
        budget: Annotated[int | None, Field(ge=0, description="Also return a context packet of at most this many "
                                                              "tokens (docs/packet.md).")] = None,
        kinds: Annotated[list[Literal["claim", "event"]] | None, Field(description="Restrict item kinds.")] = None,
        intent: Annotated[Literal["auto", "procedure", "facts"], Field(
            description="auto: a how-to question also returns learnt procedures and policies first; procedure: "
                        "look for them whatever the wording; facts: never (docs/experience.md).")] = "auto",
        packet_version: Annotated[Literal[1, 2] | None, Field(
            description="The packet's format: 2 (default; item n is named <tag>.n, e.g. fxqwtzk.3, in every tool "
                        "that takes an id) or 1 (ids on every line).")] = None,
    ) -> shapes.RecallOut:
        """Relevant claims and events that held at valid_at (world time) as known at known_at (record time),
        best first; with budget, also a context packet ready for a prompt."""
        return await call("memory_recall", lambda: recall_dict(mem.recall(
            query, k=k, valid_at=valid_at, known_at=known_at, namespace=namespace, session=session,
            kinds=tuple(kinds or ("claim", "event")), budget=budget, intent=intent,
            packet_version=packet_version)))  # type: ignore[return-value]

    @server.tool(annotations=WRITE)
    async def memory_save(
        text: Annotated[str, Field(description="The turn, verbatim.", min_length=1)],
        session: Annotated[str, Field(description="Conversation/session id.")] = "default",
        role: Annotated[str, Field(description="Speaker: user, assistant, tool…")] = "user",
        origin: Literal["direct_user", "agent", "external", "external_derived", "system", "unknown"] = "direct_user",
        session_kind: Literal["interactive", "cron", "heartbeat", "subagent", "unknown"] = "interactive",
        occurred_at: Time = None, namespace: Namespace = None,
        extract: Annotated[bool, Field(description="Extract claims from it (provenance still decides).")] = True,
    ) -> shapes.SaveOut:
        """Record a raw conversation turn verbatim (recallable at once) and extract claims from it inline."""
        return await call("memory_save", lambda: save_dict(mem.add(
            text, session=session, role=role, origin=origin, session_kind=session_kind, occurred_at=occurred_at,
            namespace=namespace, extract=extract)))  # type: ignore[return-value]

    @server.tool(annotations=WRITE)
    async def memory_remember(
        subject: Annotated[str, Field(description="Who or what it is about, e.g. 'user'.", min_length=1)],
        predicate: Annotated[str, Field(description="The slot, e.g. 'home_city'.", min_length=1)],
        value: Annotated[str, Field(description="The value, e.g. 'Berlin'.", min_length=1)],
        qualifiers: Pairs = None, valid_from: Time = None, valid_to: Time = None,
        negative: Annotated[bool, Field(description="The claim says the value does NOT hold.")] = False,
        multi: Annotated[bool, Field(description="Declare the predicate multi-valued (values coexist).")] = False,
        namespace: Namespace = None,
    ) -> shapes.WriteOut:
        """Assert an explicit claim; a new value of a single-valued slot supersedes the old one (history keeps it)."""
        return await call("memory_remember", lambda: write_dict(mem.remember(
            subject, predicate, value, qualifiers=qualifiers, valid_from=valid_from, valid_to=valid_to,
            polarity=not negative, cardinality="multi" if multi else None,
            namespace=namespace)))  # type: ignore[return-value]

    @server.tool(annotations=ERASE)
    async def memory_forget(
        id: Annotated[str | None, Field(
            description="Forget this claim, event or episode (cl_…/ev_…/ep_…), or a context packet's item "
                        "(fxqwtzk.3).")] = None,
        session: Annotated[str | None, Field(description="Forget every event of this session.")] = None,
        subject: Annotated[str | None, Field(description="Forget everything about this subject.")] = None,
        namespace: Namespace = None,
        dry_run: Annotated[bool, Field(description="Only report what would go.")] = False,
        reason: Annotated[str, Field(description="Kept in the audit log; do not repeat the forgotten text.")] = "",
    ) -> shapes.ForgetOut:
        """Erase a claim, event or episode, a whole session, or everything about a subject, with its cascade
        (give exactly one of id, session, subject). Cannot be undone: try dry_run first."""
        return await call("memory_forget", lambda: report_dict(mem.forget(
            id, session=session, subject=subject, namespace=namespace, dry_run=dry_run, actor="mcp",
            reason=reason)))  # type: ignore[return-value]

    @server.tool(annotations=READ)
    async def memory_get(id: Id) -> shapes.ItemOut:
        """One claim (with status and both clocks) or one event (verbatim) by id."""
        return await call("memory_get", lambda: item_dict(mem.get(id)))  # type: ignore[return-value]

    @server.tool(annotations=WRITE)
    async def memory_correct(
        id: Annotated[str, Field(description="The active claim to correct (cl_…).")],
        value: Annotated[str, Field(description="The right value.", min_length=1)],
        valid_from: Time = None, qualifiers: Pairs = None,
        reason: Annotated[str, Field(description="Why (kept when the old claim is retracted).")] = "",
    ) -> shapes.CorrectOut:
        """Replace a claim's value: the new value goes on the same slot and supersedes the old claim (retracts
        it on a multi-valued slot). Refused for a claim that is no longer active: the error names the current."""
        return await call("memory_correct", lambda: correction_dict(mem.correct(
            id, value, valid_from=valid_from, qualifiers=qualifiers, reason=reason)))  # type: ignore[return-value]

    @server.tool(annotations=READ)
    async def memory_explain(id: Id) -> shapes.ExplainOut:
        """Why memory holds an id: a claim with its evidence verbatim and supersede chain, or an event and the
        claims it backs; a forgotten id only with when it was forgotten."""
        return await call("memory_explain", lambda: explanation_dict(mem.explain(id)))  # type: ignore[return-value]

    @server.tool(annotations=READ)
    async def memory_history(
        subject: Annotated[str, Field(min_length=1)], predicate: Annotated[str, Field(min_length=1)],
        namespace: Namespace = None,
    ) -> shapes.HistoryOut:
        """Every claim of a subject's slot, oldest first, with status and both clocks."""
        return await call("memory_history", lambda: {"items": [claim_dict(c) for c in mem.history(
            subject, predicate, namespace=namespace)]})  # type: ignore[return-value]

    @server.tool(annotations=WRITE)
    async def memory_feedback(
        id: Id, verdict: Literal["helpful", "unhelpful"],
        reason: Annotated[str, Field(description="Why (kept in the log).")] = "",
    ) -> shapes.WriteOut:
        """Say whether a recalled claim or event helped; it feeds ranking and lifecycle."""
        return await call("memory_feedback", lambda: write_dict(mem.feedback(
            id, verdict, actor="mcp", reason=reason)))  # type: ignore[return-value]

    add_experience_tools(server, call)
    add_relation_tools(server, call)  # docs/relations.md, ADR 0081

    async def packet(query: str) -> str:
        def run() -> str:
            result = mem.recall(query, budget=CONTEXT_BUDGET)
            return result.packet.text if result.packet is not None else ""
        try:
            return await call("context", run)
        except ToolError as exc:  # a resource or prompt reports its own kind of error
            from mcp.server.mcpserver.exceptions import ResourceError

            raise ResourceError(str(exc)) from None

    @server.resource(CONTEXT_URI, name="context", mime_type="text/plain",
                     description=f"The context packet (docs/packet.md, {CONTEXT_BUDGET} tokens) for a query.")
    async def context_resource(query: str) -> str:
        return await packet(query)

    @server.prompt(name="memory_context", description="What memory holds about a query, as a context packet "
                                                      "to put before the question.")
    async def context_prompt(query: Annotated[str, Field(description="The question or topic.")]) -> str:
        return await packet(query)

    return server


@functools.cache
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hlmem")
    except PackageNotFoundError:
        return "0"
