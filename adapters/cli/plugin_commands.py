"""CLI command ``plugins list``: every entry point of the plugin groups, allowed or not (docs/plugins.md)."""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from hlmem.adapters.cli.context import EXIT_ERROR, _Ctx, _emit, cli, json_option


def _plugin_settings(obj: _Ctx) -> Any:
    """The effective ``[plugins]`` settings (``hlmem.toml``, ``HLMEM_*``: the settings every command loads)."""
    return obj.loaded.settings.plugins


@cli.group()
def plugins() -> None:
    """Provider plugins: what is installed, allowed, enabled and loaded."""


@plugins.command(name="list")
@json_option
@click.pass_obj
def list_(obj: _Ctx, as_json: bool) -> None:
    """List every plugin entry point with its distribution, version and state.

    Allowed ones are imported and checked (api version, port); ones that are not allowed are
    listed and never imported. Exits 1 when an enabled plugin would stop start-up.
    """
    from rich.table import Table

    from hlmem.adapters.plugin_wiring import make_plugin_registry

    registry = make_plugin_registry(_plugin_settings(obj))
    rows = [dataclasses.asdict(row) for row in registry.report()]
    problem = registry.problem()
    table = Table("group", "name", "distribution", "version", "allowed", "enabled", "state")
    for row in rows:
        state = "loaded" if row["loaded"] else (row["error"] or "not loaded")
        table.add_row(row["group"], row["name"], row["distribution"], row["version"], _yes(row["allowed"]),
                      _yes(row["enabled"]), state if row["loaded"] else f"[red]{state}[/red]")
    _emit({"plugins": rows, "problem": problem}, as_json, table)
    if problem is not None:
        if not as_json:
            click.echo(f"error: {problem}", err=True)
        raise SystemExit(EXIT_ERROR)


def _yes(value: bool) -> str:
    return "yes" if value else "no"
