"""``hlmem mcp``: the memory as a Model Context Protocol server (extra ``hlmem[mcp]``; docs/mcp.md, ADR 0037).

Importing this package needs nothing beyond the core: the ``mcp`` SDK is imported by
:mod:`hlmem.adapters.mcp.server` only, and :func:`require_mcp` says which extra to install.
"""

from __future__ import annotations

from hlmem.domain.errors import ConfigurationError

#: What to install when the SDK is missing.
INSTALL_HINT = "pip install 'hlmem[mcp]'"


def require_mcp() -> None:
    """Check that the official ``mcp`` SDK (version 2) can be imported.

    :raises ConfigurationError: it is missing or too old, naming the extra to install.
    """
    try:
        from mcp.server.mcpserver import MCPServer  # noqa: F401
    except ImportError as exc:
        raise ConfigurationError(f"hlmem mcp needs the MCP Python SDK (mcp>=2): {INSTALL_HINT} ({exc})") from None
