"""Relations' MCP tools: the review queue of relations between people and things (docs/relations.md,
ADR 0081): list, get, accept, reject. Each is one call into ``Memory.relations`` returning the
CLI's ``relations … --json`` shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from hlmem.adapters.mcp import shapes
from hlmem.adapters.mcp.calls import READ, WRITE, Namespace
from hlmem.adapters.page_cursor import check_cursor
from hlmem.adapters.wire.relations import page_dict, view_dict

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from hlmem.adapters.mcp.calls import Calls

RelationId = Annotated[str, Field(description="The relation's id (rl_…), from memory_relation_list.",
                                  min_length=1, max_length=200)]
Reason = Annotated[str, Field(description="Why (kept in the log with the decision).", max_length=2000)]


def add_relation_tools(server: MCPServer, call: Calls) -> None:
    """Register the relation tools on ``server``, calling ``call.memory``."""
    mem = call.memory

    @server.tool(annotations=READ)
    async def memory_relation_list(
        status: Literal["proposed", "accepted", "rejected", "retired", "forgotten", "all"] = "proposed",
        entity: Annotated[str | None, Field(description="Only edges with this entity (a name, or en_…) at either "
                                                        "end.", min_length=1, max_length=500)] = None,
        namespace: Namespace = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="How many at most.")] = 50,
        cursor: Annotated[str | None, Field(description="next_cursor of the previous page.")] = None,
    ) -> shapes.RelationPageOut:
        """Relations between people and things (source —relation→ target) with their evidence ids; by default
        the review queue: edges proposed by rules from what the user said, waiting to be accepted or rejected."""
        return await call("memory_relation_list", lambda: page_dict(mem.relations.page(
            status=None if status == "all" else status, entity=entity, namespace=namespace, limit=limit,
            after=check_cursor(cursor, "rl"))))  # type: ignore[return-value]

    @server.tool(annotations=READ)
    async def memory_relation_get(relation_id: RelationId) -> shapes.RelationOut:
        """One relation with each evidence item as it stands now (claims with their status, the turns' text)."""
        return await call("memory_relation_get",
                          lambda: view_dict(mem.relations.get(relation_id)))  # type: ignore[return-value]

    @server.tool(annotations=WRITE)
    async def memory_relation_accept(relation_id: RelationId, reason: Reason = "") -> shapes.RelationOut:
        """Accept a proposed relation after checking its evidence (refused when it is retired, forgotten or its
        evidence is no longer current). Ask the user when unsure: a wrong edge spreads."""
        return await call("memory_relation_accept", lambda: view_dict(mem.relations.accept(
            relation_id, reason=reason, actor="mcp")))  # type: ignore[return-value]

    @server.tool(annotations=WRITE)
    async def memory_relation_reject(relation_id: RelationId, reason: Reason = "") -> shapes.RelationOut:
        """Reject a relation: it leaves the queue and the rules never propose it again."""
        return await call("memory_relation_reject", lambda: view_dict(mem.relations.reject(
            relation_id, reason=reason, actor="mcp")))  # type: ignore[return-value]
