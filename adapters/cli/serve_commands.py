"""``hlmem serve``: the REST API on uvicorn (docs/rest.md, ADR 0036; extra ``hlmem[server]``)."""

from __future__ import annotations

import click

from hlmem.adapters.cli.context import _Ctx, cli


@cli.command()
@click.option("--host", default=None, help="Address to bind (default: [server] host, else 127.0.0.1). "
                                           "Anything but loopback needs a token.")
@click.option("--port", default=None, type=click.IntRange(1, 65535), help="TCP port (default: [server] port, else 8765).")
@click.option("--token-env", default=None, metavar="VAR",
              help="Environment variable holding the bearer token (default: [server] token_env, else "
                   "HLMEM_SERVER_TOKEN). Set, every route but /health needs it.")
@click.pass_obj
def serve(obj: _Ctx, host: str | None, port: int | None, token_env: str | None) -> None:
    """Serve the store over HTTP: REST + OpenAPI at /openapi.json, docs at /docs (docs/rest.md)."""
    from hlmem.adapters.server import require_server_packages
    from hlmem.adapters.settings_sections import server_settings

    require_server_packages()
    import uvicorn

    from hlmem.adapters.server.app import create_app
    from hlmem.adapters.listen_guard import check_bind, read_token

    base = obj.loaded.settings.server
    chosen = {k: v for k, v in {"host": host, "port": port, "token_env": token_env}.items() if v is not None}
    settings = server_settings({"host": base.host, "port": base.port, "token_env": base.token_env,
                                "max_body_bytes": base.max_body_bytes, **chosen}, "hlmem serve")
    token = read_token(settings.token_env)
    check_bind(settings.host, token, settings.token_env)  # before the store opens
    app = create_app(obj.memory(), settings, token=token)
    guard = "a bearer token" if token else "no token (loopback only)"
    click.echo(f"hlmem serving {obj.shown_db} on http://{settings.host}:{settings.port} with {guard}; "
               "API docs at /docs, schema at /openapi.json", err=True)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning", access_log=False)
