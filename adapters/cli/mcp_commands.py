"""``hlmem mcp``: serve the store to MCP clients over stdio (default) or streamable HTTP (docs/mcp.md)."""

from __future__ import annotations

import os
import signal
import threading

import click

from hlmem.adapters.cli.context import _Ctx, cli


@cli.command(name="mcp")
@click.option("--transport", default="stdio", show_default=True, type=click.Choice(["stdio", "http"]),
              help="stdio for a client that spawns the server; http for streamable HTTP at /mcp.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP only. Any non-loopback address needs a strong token in $HLMEM_MCP_TOKEN.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP only.")
@click.option("--public-name", "public_names", multiple=True, metavar="NAME",
              help="HTTP only. A host name clients reach the server by (repeatable; default: [server] "
                   "public_names); requests addressed to other names than these, loopback and --host get 421.")
@click.pass_obj
def mcp_command(obj: _Ctx, transport: str, host: str, port: int, public_names: tuple[str, ...]) -> None:
    """Serve the memory as an MCP server: memory_* tools, a context resource and prompt (hlmem[mcp])."""
    from hlmem.adapters.mcp import require_mcp

    require_mcp()
    from hlmem.adapters.mcp.http import check_bind, read_token, serve_http
    from hlmem.adapters.mcp.server import build_server
    from hlmem.adapters.settings_sections import server_settings

    names: tuple[str, ...] = ()
    token = read_token(os.environ) if transport == "http" else None
    if transport == "http":
        check_bind(host, token)  # before the store opens: a refused start touches nothing
        names = server_settings({"public_names": list(public_names)}, "hlmem mcp --public-name").public_names \
            if public_names else obj.loaded.settings.server.public_names
    memory = obj.memory()
    server = build_server(memory)  # the group closes the Memory when the command ends
    if transport == "stdio":
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _close_then_die(memory))
        server.run("stdio")
    else:
        click.echo(f"hlmem mcp: streamable HTTP on http://{host}:{port}/mcp"
                   + (" (bearer token required)" if token else ""), err=True)
        # uvicorn re-raises SIGTERM/SIGINT once stopped: the store is closed in the app's lifespan.
        serve_http(server, host=host, port=port, token=token, public_names=names, on_shutdown=memory.close)


def _close_then_die(memory: object) -> object:
    """A SIGTERM handler for the stdio server: close the store (its ``-wal`` is folded in), then
    die of the signal as before. Raising instead would wait for the thread blocked reading stdin,
    so a server whose client keeps stdin open would not stop at all."""
    def handler(signum: int, frame: object) -> None:  # noqa: ARG001
        try:
            memory.close()  # type: ignore[attr-defined]
        finally:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
    return handler
