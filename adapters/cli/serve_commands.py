"""``hlmem serve``: the REST API on uvicorn (docs/rest.md, ADR 0036; extra ``hlmem[server]``)."""

from __future__ import annotations

import click

from hlmem.adapters.cli.context import _Ctx, cli


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
    # uvicorn re-raises SIGTERM/SIGINT once stopped: the store is closed in the app's lifespan.
    app = create_app(memory, settings, token=token, on_shutdown=memory.close)
    guard = "a bearer token" if token else "no token (loopback only)"
    names = ", ".join(sorted(allowed_hosts(settings.host, settings.public_names)))
    click.echo(f"hlmem serving {obj.shown_db} on http://{settings.host}:{settings.port} with {guard}; "
               f"answers to the hosts {names}; backups go to {backup_directory(settings.backup_dir)}; "
               "API docs at /docs, schema at /openapi.json", err=True)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning", access_log=False)
