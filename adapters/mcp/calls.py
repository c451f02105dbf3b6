"""What every MCP tool shares: :class:`Calls`, which runs one ``Memory`` call at a time in a worker
thread and turns errors into tool errors; :class:`HlmemMCPServer`, which says in one line which
argument does not fit a tool's input schema and why; and the arguments' annotations and tool hints.

See :mod:`hlmem.adapters.mcp.server` (the tools, the resource and the prompt) for why calls run
one at a time and how errors reach the client.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from pydantic import ValidationError as ArgumentsError

from hlmem.adapters.wire.text import plain
from hlmem.domain.errors import HlmemError

if TYPE_CHECKING:
    from hlmem.adapters.memory_api import Memory

LOG = logging.getLogger("hlmem.mcp")
T = TypeVar("T")

Id = Annotated[str, Field(description="A claim id (cl_…) or an event id (ev_…), from recall, history or save; or a "
                                     "context packet's handle of an item (fxqwtzk.3: item [3] of packet fxqwtzk).")]
Time = Annotated[str | None, Field(description="ISO 8601 with a timezone, e.g. 2026-05-01T09:00:00+08:00.")]
Namespace = Annotated[str | None, Field(description="Namespace (default: the server's, usually 'default').")]
Pairs = Annotated[dict[str, str] | None, Field(description="Qualifiers, e.g. {\"company\": \"Acme\"}.")]

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False)
ERASE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False)


class Calls:
    """Runs ``Memory`` calls one at a time in a worker thread, with errors turned into tool errors."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._limiter = anyio.CapacityLimiter(1)

    async def __call__(self, tool: str, fn: Callable[[], T]) -> T:
        try:
            return await anyio.to_thread.run_sync(fn, limiter=self._limiter)
        except HlmemError as exc:
            raise ToolError(plain(exc, lines=True)) from None
        except BaseExceptionGroup as exc:  # several validation problems at once
            raise ToolError("; ".join(plain(e, lines=True) for e in exc.exceptions)) from None
        except Exception as exc:  # a bug: the log gets the traceback, the client one line
            LOG.exception("tool %s failed", tool)
            raise ToolError(f"internal error in {tool} ({type(exc).__name__}); the server's log has the "
                            "details") from None


def argument_problems(tool: str, exc: ArgumentsError) -> str:
    """One line saying which arguments of ``tool`` do not fit its input schema and why, e.g.
    ``memory_recall: argument 'k': input should be less than or equal to 200 (got 500)``
    (pydantic's own text spans lines and ends in a documentation URL)."""
    parts = []
    for problem in exc.errors(include_url=False):
        name = ".".join(str(p) for p in problem.get("loc", ())) or "arguments"
        kind = problem.get("type", "")
        if kind == "missing":
            parts.append(f"argument {name!r} is required")
        elif kind == "extra_forbidden":
            parts.append(f"argument {name!r} is not one this tool takes")
        else:
            message = " ".join(str(problem.get("msg", "is not valid")).split())
            got = " ".join(repr(problem.get("input")).split())
            got = got if len(got) <= 60 else got[:57] + "…"
            parts.append(f"argument {name!r}: {message[:1].lower()}{message[1:]} (got {got})")
    return f"{tool}: " + "; ".join(parts or ["the arguments do not fit the input schema"])


class HlmemMCPServer(MCPServer):
    """``MCPServer`` whose argument errors are one line naming the argument and the reason."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ArgumentsError):
                raise
            raise ToolError(argument_problems(name, exc.__cause__)) from exc.__cause__
