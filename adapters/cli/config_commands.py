"""CLI commands of the configuration: ``config show`` (every effective value and its source) and ``config path``.

Secrets are never printed: API key variables are shown as ``present``, ``absent`` or
``placeholder``, never their value or any part of it (ADR 0033, docs/config.md).
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import attrs
import click

from hlmem.adapters.cli import render
from hlmem.adapters.cli.context import _Ctx, _emit, cli, json_option


@cli.group(name="config")
def config_group() -> None:
    """The effective configuration: values, their sources, the config file (docs/config.md)."""


@config_group.command(name="show")
@json_option
@click.pass_obj
def show(obj: _Ctx, as_json: bool) -> None:
    """Every setting's effective value and where it came from; API keys only as present/absent."""
    data = effective_config(obj)
    if as_json:
        _emit(data, True)
        return
    location = data["config_file"]
    if location["path"]:
        click.echo(render.plain(f"config file: {location['path']} (from {location['origin']})"))
    else:
        click.echo(render.plain(f"config file: none (looked for {location['default']})"))
    for name, entry in data["settings"].items():
        for key, value in _lines(name, entry["value"]):
            click.echo(render.plain(f"{key} = {value}    [{entry['source']}]"))
    click.echo("API keys (from the environment only; values are never shown):")
    for secret in data["secrets"]:
        used = f" (used by {', '.join(secret['used_by'])})" if secret["used_by"] else ""
        click.echo(render.plain(f"  {secret['variable']}: {secret['status']}{used}"))


@config_group.command(name="path")
@click.pass_obj
def path(obj: _Ctx) -> None:
    """The config file in use; without one, the default location (and a note that it is missing)."""
    from hlmem.adapters.config_file import find_config_file

    location = find_config_file(obj.config)
    if location.path is not None:
        click.echo(render.plain(str(location.path)))
    else:
        click.echo(render.plain(str(location.default)))
        click.echo("note: no config file there; the defaults and HLMEM_* variables apply", err=True)


def effective_config(obj: _Ctx) -> dict[str, Any]:
    """What ``config show --json`` prints: the file, each field's value and source, the API key variables."""
    loaded = obj.loaded
    location = loaded.location
    settings = {field.name: {"value": _plain(getattr(loaded.settings, field.name)),
                             "source": str(loaded.sources[field.name])}
                for field in attrs.fields(type(loaded.settings))}
    settings["db"]["value"] = obj.shown_db  # the store actually opened (the user data directory's when unset)
    return {"config_file": {"path": None if location.path is None else str(location.path),
                            "origin": location.origin if location.path else None,
                            "default": str(location.default)},
            "settings": settings, "secrets": _secrets(loaded.settings, os.environ)}


def _secrets(settings: Any, environ: Mapping[str, str]) -> list[dict[str, Any]]:
    """Each variable an LLM or reranker preset reads its key from, with its status and who uses it now."""
    from hlmem.adapters.llm.presets import PRESETS as LLM_PRESETS
    from hlmem.adapters.rerank.config import PRESETS as RERANK_PRESETS
    from hlmem.adapters.secrets import key_status

    used: dict[str, list[str]] = {}
    for kind, presets, chosen in (("llm", LLM_PRESETS, settings.llm), ("rerank", RERANK_PRESETS, settings.rerank)):
        for name, preset in presets.items():
            if preset.api_key_env:
                used.setdefault(preset.api_key_env, [])
                if name == chosen:
                    used[preset.api_key_env].append(kind)
    return [{"variable": var, "status": key_status(var, environ), "used_by": who} for var, who in sorted(used.items())]


def _plain(value: Any) -> Any:
    """A settings value as JSON data: tables as objects, durations in seconds, enums as their value."""
    if attrs.has(type(value)):
        return {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=str)
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _lines(name: str, value: Any) -> list[tuple[str, str]]:
    """``name = value`` lines; a table gives one line per key (``ranking.text_weight = 0.4``)."""
    if isinstance(value, dict) and value:
        return [line for key, sub in value.items() for line in _lines(f"{name}.{key}", sub)]
    text = value if isinstance(value, str) else render.json_text(value)
    return [(name, text)]
