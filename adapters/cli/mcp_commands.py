"""``hlmem mcp``: serve the store to MCP clients over stdio (default) or streamable HTTP (docs/mcp.md)."""

from __future__ import annotations

import os

import click

from hlmem.adapters.cli.context import _Ctx, cli


@cli.command(name="mcp")
@click.option("--transport", default="stdio", show_default=True, type=click.Choice(["stdio", "http"]),
              help="stdio for a client that spawns the server; http for streamable HTTP at /mcp.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP only. Any non-loopback address needs $HLMEM_MCP_TOKEN.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP only.")
@click.pass_obj
def mcp_command(obj: _Ctx, transport: str, host: str, port: int) -> None:
    """Serve the memory as an MCP server: memory_* tools, a context resource and prompt (hlmem[mcp])."""
    from hlmem.adapters.mcp import require_mcp

    require_mcp()
    from hlmem.adapters.mcp.http import check_bind, read_token, serve_http
    from hlmem.adapters.mcp.server import build_server

    token = read_token(os.environ) if transport == "http" else None
    if transport == "http":
        check_bind(host, token)  # before the store opens: a refused start touches nothing
    server = build_server(obj.memory())  # the group closes the Memory when the command ends
    if transport == "stdio":
        server.run("stdio")
    else:
        click.echo(f"hlmem mcp: streamable HTTP on http://{host}:{port}/mcp"
                   + (" (bearer token required)" if token else ""), err=True)
        serve_http(server, host=host, port=port, token=token)
