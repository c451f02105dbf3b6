"""``hlmem serve``: the REST API on uvicorn (docs/rest.md, ADR 0036; extra ``hlmem[server]``)."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from hlmem.adapters.cli.context import _SERVER_MEMORY, _Ctx, cli, run_line


@cli.command()
@click.option("--host", default=None, help="Address to bind (default: [server] host, else 127.0.0.1). "
                                           "Anything but loopback needs a strong token.")
@click.option("--port", default=None, type=click.IntRange(1, 65535), help="TCP port (default: [server] port, else 8765).")
@click.option("--token-env", default=None, metavar="VAR",
              help="Environment variable holding the bearer token (default: [server] token_env, else "
                   "HLMEM_SERVER_TOKEN). Set, every route but /health needs it.")
@click.option("--public-name", "public_names", multiple=True, metavar="NAME",
              help="A host name clients reach the server by (repeatable; default: [server] public_names). "
                   "Requests addressed to any other name than these, loopback and the bound address get 421.")
@click.option("--backup-dir", default=None, metavar="DIR",
              help="Where POST /v1/backup writes (default: [server] backup_dir, else backups/ in the user data "
                   "directory).")
@click.pass_obj
def serve(obj: _Ctx, host: str | None, port: int | None, token_env: str | None, public_names: tuple[str, ...],
          backup_dir: str | None) -> None:
    """Serve the store over HTTP: REST + OpenAPI at /openapi.json, docs at /docs (docs/rest.md)."""
    from hlmem.adapters.server import require_server_packages
    from hlmem.adapters.settings_sections import server_settings

    require_server_packages()
    import uvicorn

    from hlmem.adapters.listen_guard import allowed_hosts, check_bind, read_token
    from hlmem.adapters.server.app import create_app
    from hlmem.adapters.server.backups import backup_directory

    base = obj.loaded.settings.server
    chosen = {k: v for k, v in {"host": host, "port": port, "token_env": token_env, "backup_dir": backup_dir,
                                "public_names": list(public_names) or None}.items() if v is not None}
    settings = server_settings({"host": base.host, "port": base.port, "token_env": base.token_env,
                                "max_body_bytes": base.max_body_bytes, "backup_dir": base.backup_dir,
                                "public_names": list(base.public_names), **chosen}, "hlmem serve")
    token = read_token(settings.token_env)
    check_bind(settings.host, token, settings.token_env)  # before the store opens
    memory = obj.memory()
    listener, refused = _cli_socket(obj, memory)

    def shutdown() -> None:
        if listener is not None:
            listener.close()  # waits for a command it is running
        memory.close()

    # uvicorn re-raises SIGTERM/SIGINT once stopped: the socket and the store are closed in the
    # app's lifespan.
    app = create_app(memory, settings, token=token, on_shutdown=shutdown)
    guard = "a bearer token" if token else "no token (loopback only)"
    names = ", ".join(sorted(allowed_hosts(settings.host, settings.public_names)))
    click.echo(f"hlmem serving {obj.shown_db} on http://{settings.host}:{settings.port} with {guard}; "
               f"answers to the hosts {names}; backups go to {backup_directory(settings.backup_dir)}; "
               "API docs at /docs, schema at /openapi.json", err=True)
    if listener is not None:
        click.echo(f"hlmem recall, add and stats of this store run here (socket {listener.path})", err=True)
    elif refused:
        click.echo(f"note: {refused}; the CLI runs its commands itself", err=True)
    try:
        uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning", access_log=False)
    finally:
        if listener is not None:
            listener.close()  # when uvicorn did not start (its port taken): closing again is harmless


def _cli_socket(obj: _Ctx, memory):  # noqa: ANN001, ANN202
    """The Unix socket the CLI's recall, add and stats use (ADR 0079): (listener, None) when
    listening, (None, why not) otherwise; (None, None) for a store that is no file."""
    from hlmem.adapters.cli import server_link

    real = server_link.store_key(obj.db)
    if real is None:
        return None, None
    listener = server_link.CommandListener(real, server_link.settings_key(obj.loaded.settings),
                                           _command_runner(memory))
    refused = listener.start()
    return (None, refused) if refused else (listener, None)


class _Captured(io.StringIO):
    """What a command prints, for the client; a terminal when the client's stream is one, so
    that click and rich format as they would there."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def _command_runner(memory: Any) -> Callable[..., tuple[str, str, int]]:
    """Run a client's command line here with ``memory`` (the server's, never closed by it) and
    the client's terminal facts; one at a time (the output streams are swapped while it runs)."""
    def run(args: Sequence[str], db: str, env: Mapping[str, str], tty: tuple[bool, bool]) -> tuple[str, str, int]:
        from hlmem.adapters.cli import server_link

        out, err = _Captured(tty[0]), _Captured(tty[1])
        saved = {name: os.environ.get(name) for name in server_link.OUTPUT_ENV}
        token = _SERVER_MEMORY.set(memory)
        try:
            for name in server_link.OUTPUT_ENV:
                os.environ.pop(name, None)
            os.environ.update({k: v for k, v in env.items() if k in server_link.OUTPUT_ENV})
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = run_line(["--db", db, "--no-server", *args])
        finally:
            _SERVER_MEMORY.reset(token)
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        return out.getvalue(), err.getvalue(), code

    return run
