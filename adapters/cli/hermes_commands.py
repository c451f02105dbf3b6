"""CLI command ``hermes install``: write the Hermes Agent provider folder into a Hermes home (docs/hermes.md)."""

from __future__ import annotations

import click

from hlmem.adapters.cli.context import EXIT_ERROR, _emit, cli, json_option


@cli.group()
def hermes() -> None:
    """Hermes Agent: use hlmem as its memory provider (docs/hermes.md)."""


@hermes.command(name="install")
@click.option("--hermes-home", type=click.Path(file_okay=False), envvar="HERMES_HOME", default="~/.hermes",
              show_default=True, help="Hermes' home directory (Hermes' own HERMES_HOME).")
@click.option("--overwrite", is_flag=True, help="Replace a plugins/hlmem/__init__.py with other content.")
@json_option
def install_(hermes_home: str, overwrite: bool, as_json: bool) -> None:
    """Write <hermes-home>/plugins/hlmem/ so Hermes can load hlmem; then set memory.provider: hlmem."""
    from hlmem.adapters.hermes.plugin import install

    try:
        folder = install(hermes_home, overwrite=overwrite)
    except FileExistsError as exc:
        click.echo(f"error: {exc}", err=True)
        raise SystemExit(EXIT_ERROR) from None
    data = {"plugin": str(folder), "config": "memory:\n  provider: hlmem"}
    if as_json:
        _emit(data, True)
    else:
        click.echo(f"wrote {folder}\nnow set in {folder.parent.parent / 'config.yaml'}:\n{data['config']}")
