"""The experience channel's MCP tools: episodes (start, step, end, get, list), policies, procedures.

An agent records what it tried towards a goal and how it went (docs/experience.md); the policies
and procedures learnt from that come back through ``memory_recall`` (a how-to question) or
``memory_policies`` / ``memory_procedures``. Each tool is one call into ``Memory`` returning the
CLI's ``episode … --json`` shape; forgetting an episode is ``memory_forget`` with its ``ep_…`` id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from hlmem.adapters.mcp import shapes
from hlmem.adapters.mcp.calls import READ, WRITE, Namespace, Time
from hlmem.adapters.page_cursor import check_cursor
from hlmem.adapters.wire.experience import end_dict, episode_dict, policy_dict, procedure_dict, step_dict
from hlmem.domain.experience_decisions import (
    MAX_ACTION_CHARS,
    MAX_GOAL_CHARS,
    MAX_OBSERVATION_CHARS,
    MAX_SHORT_CHARS,
    MAX_STEP_EVIDENCE,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from hlmem.adapters.mcp.calls import Calls

#: Episodes started through MCP are recorded with this actor.
ACTOR = "mcp"

EpisodeId = Annotated[str, Field(description="The episode's id (ep_…), from memory_episode_start.")]
Short = Annotated[str, Field(max_length=MAX_SHORT_CHARS)]


def add_experience_tools(server: MCPServer, call: Calls) -> None:
    """Register the episode, policy and procedure tools on ``server``, calling ``call.memory``."""
    mem = call.memory

    @server.tool(annotations=WRITE)
    async def memory_episode_start(
        goal: Annotated[str, Field(description="The task, e.g. 'fix the failing test in tests/test_io.py'.",
                                   min_length=1, max_length=MAX_GOAL_CHARS)],
        context: Annotated[str, Field(description="A tool or error signature that refines the situation.",
                                      max_length=MAX_SHORT_CHARS)] = "",
        approach: Annotated[str, Field(description="How you will tackle it (default: the tools of your steps).",
                                       max_length=MAX_SHORT_CHARS)] = "",
        namespace: Namespace = None, started_at: Time = None,
    ) -> shapes.EpisodeOut:
        """Begin an episode: one task you are about to attempt. Record its steps with memory_episode_step and
        finish it with memory_episode_end; repeated situations teach policies (what works) and procedures."""
        return await call("memory_episode_start", lambda: episode_dict(mem.episodes.start(
            goal, context=context, approach=approach, namespace=namespace, started_at=started_at,
            actor=ACTOR)))  # type: ignore[return-value]

    @server.tool(annotations=WRITE)
    async def memory_episode_step(
        episode_id: EpisodeId,
        action: Annotated[str, Field(description="What you did.", min_length=1, max_length=MAX_ACTION_CHARS)],
        tool: Annotated[Short, Field(description="The tool used, e.g. 'pytest'.")] = "",
        observation: Annotated[str, Field(description="What came back.", max_length=MAX_OBSERVATION_CHARS)] = "",
        error: Annotated[Short, Field(description="The error signature, if the step failed.")] = "",
        cost: Annotated[float, Field(ge=0, description="What the step cost (time, money, tokens: your unit).")] = 0.0,
        value: Annotated[float | None, Field(ge=-1, le=1, description="How much the step helped, -1..1.")] = None,
        evidence: Annotated[list[str] | None, Field(max_length=MAX_STEP_EVIDENCE, description=(
            "Event ids (ev_…, from memory_save) the step rests on; they must exist."))] = None,
        occurred_at: Time = None,
    ) -> shapes.StepOut:
        """Append a step to a running episode's trace (refused once the episode has ended)."""
        return await call("memory_episode_step", lambda: step_dict(mem.episodes.step(
            episode_id, action, tool=tool, observation=observation, error=error, cost=cost, value=value,
            evidence=tuple(evidence or ()), occurred_at=occurred_at)))  # type: ignore[return-value]

    @server.tool(annotations=WRITE)
    async def memory_episode_end(
        episode_id: EpisodeId,
        status: Annotated[Literal["succeeded", "failed", "cancelled"], Field(
            description="How it went; cancelled counts neither way.")],
        reward: Annotated[float | None, Field(ge=0, le=1, description="0..1.")] = None,
        outcome: Annotated[str, Field(description="A summary of how it went.", max_length=MAX_OBSERVATION_CHARS)] = "",
        approach: Annotated[Short, Field(description="Name the approach taken (overrides the start's).")] = "",
    ) -> shapes.EndOut:
        """End a running episode, once. Its situation's policies and procedures are updated at once; `changes`
        lists what this end proposed, activated, retired, promoted or demoted."""
        return await call("memory_episode_end", lambda: end_dict(mem.episodes.end(
            episode_id, status, reward=reward, outcome=outcome, approach=approach)))  # type: ignore[return-value]

    @server.tool(annotations=READ)
    async def memory_episode_get(episode_id: EpisodeId) -> shapes.EpisodeOut:
        """One episode with its steps in order."""
        return await call("memory_episode_get",
                          lambda: episode_dict(mem.episodes.get(episode_id)))  # type: ignore[return-value]

    @server.tool(annotations=READ)
    async def memory_episode_list(
        status: Literal["running", "succeeded", "failed", "cancelled", "forgotten"] | None = None,
        namespace: Namespace = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="How many at most.")] = 50,
        cursor: Annotated[str | None, Field(description="next_cursor of the previous page.")] = None,
    ) -> shapes.EpisodePageOut:
        """Episodes by id, without their steps (status=running finds the ones you left open)."""
        def run() -> dict:
            page = mem.episodes.page(status=status, namespace=namespace, limit=limit,
                                    after=check_cursor(cursor, "ep"))
            return {"items": [episode_dict(e, steps=False) for e in page.items], "next_cursor": page.next_cursor}
        return await call("memory_episode_list", run)  # type: ignore[return-value]

    @server.tool(annotations=READ)
    async def memory_policies(
        status: Literal["candidate", "active", "retired", "forgotten"] | None = None, namespace: Namespace = None,
        query: Annotated[str | None, Field(
            min_length=1, max_length=MAX_GOAL_CHARS,
            description="A how-to question or task: only the live policies it asks for, best first "
                        "(status active: active ones only)")] = None,
    ) -> shapes.PoliciesOut:
        """What was learnt: "in situation T prefer approach P", with support (episodes), successes, failures and
        reliability (a Wilson lower bound, 0..1). Active ones are recommended; a candidate is on probation: the
        approach the evidence favours so far, not yet confirmed (try it when nothing better is known)."""
        def run() -> dict:
            thresholds = mem.policies.thresholds
            found = mem.policies.list(status=status, namespace=namespace, query=query)
            return {"items": [policy_dict(p, thresholds) for p in found]}
        return await call("memory_policies", run)  # type: ignore[return-value]

    @server.tool(annotations=READ)
    async def memory_procedures(
        status: Literal["active", "demoted", "forgotten"] | None = None, namespace: Namespace = None,
    ) -> shapes.ProceduresOut:
        """Reusable steps of reliable policies, every version (active ones are current)."""
        return await call("memory_procedures", lambda: {"items": [procedure_dict(p) for p in mem.procedures.list(
            status=status, namespace=namespace)]})  # type: ignore[return-value]
