"""CLI commands for backup, restore and the governance audit: ``backup``, ``restore``, ``audit``."""

from __future__ import annotations

import sys

import click
from rich.table import Table

from hlmem.adapters.cli.context import EXIT_USAGE, _Ctx, _emit, _ts, cli, json_option
from hlmem.adapters.cli.render import cell, plain
from hlmem.adapters.wire.governance import audit_dict, backup_dict, restore_dict
from hlmem.application.audit import KINDS, MAX_LIMIT
from hlmem.domain.time import format_timestamp as ts


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover - the loop always returns


@cli.command()
@click.argument("path", type=click.Path())
@click.option("--overwrite", is_flag=True, help="Replace an existing file at PATH.")
@json_option
@click.pass_obj
def backup(obj: _Ctx, path: str, overwrite: bool, as_json: bool) -> None:
    """Copy the store to PATH (a new file, or a directory to name one in) while writes go on.

    The copy is one consistent snapshot, verified before it is renamed into place.
    """
    info = obj.memory().backup(path, overwrite=overwrite)
    if as_json:
        _emit(backup_dict(info), True)
    else:
        click.echo(f"backup {info.backup_id} written to {info.path}: log position {info.position}, "
                   f"{_size(info.size_bytes)}, {info.seconds:.2f} s")
    if info.removed:
        from hlmem.adapters.sqlite.temp_files import stale_note

        click.echo(f"note: {plain(stale_note(list(info.removed)))}", err=True)


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Restore a backup of another store (or over an unreadable store).")
@click.option("--yes", is_flag=True, help="Do not ask; needed when there is no terminal to ask on.")
@click.option("--reason", default="", help="Why (kept in the StoreRestored event).")
@json_option
@click.pass_obj
def restore(obj: _Ctx, path: str, force: bool, yes: bool, reason: str, as_json: bool) -> None:
    """Replace the store with the backup at PATH; what was forgotten since stays forgotten.

    Offline: stop every hlmem process using the store first. The backup is verified, the live
    store's tombstone ledger is enforced on it, and the files are swapped in one rename.
    """
    from hlmem.adapters.memory_api import restore_store

    from hlmem.adapters.sqlite.backup import read_backup

    info = read_backup(path)
    if not yes:
        if not sys.stdin.isatty():
            click.echo("error: restore replaces the store; pass --yes to confirm without a terminal", err=True)
            sys.exit(EXIT_USAGE)
        click.confirm(f"Replace the store at {obj.shown_db} with backup {info.backup_id} (store {info.store_id}, "
                      f"log position {info.position}, made {ts(info.created_at)})?", abort=True)
    result = restore_store(obj.db, path, force=force, reason=reason, now=obj.now)
    if as_json:
        _emit(restore_dict(result), True)
        return
    click.echo(f"restored {obj.shown_db} from backup {info.backup_id} (log position {info.position}); "
               f"{result.reapplied} forgotten streams enforced again; event {result.restored_id}")
    for note in result.notes:
        click.echo(f"note: {plain(note)}", err=True)


@cli.command()
@click.option("--since", default=None, metavar="TIMESTAMP", help="Only actions recorded at or after this time.")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(list(KINDS)), help="Only these kinds.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, MAX_LIMIT))
@json_option
@click.pass_obj
def audit(obj: _Ctx, since: str | None, kinds: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Governance actions (forget, expire, archive, revive, restore, conflict decisions, retractions), newest first."""
    entries = obj.memory().audit(since=_ts(since, "--since"), kinds=kinds or None, limit=limit)
    table = Table(title=f"audit (newest first, {len(entries)} shown)")
    for col in ("time", "kind", "actor", "target", "reason / decision", "details"):
        table.add_column(col, overflow="fold")
    for e in entries:
        table.add_row(*(cell(v) for v in (ts(e.at), e.kind, e.actor, e.target, e.detail,
                                          ", ".join(f"{k}={v}" for k, v in e.extra))))
    _emit({"items": [audit_dict(e) for e in entries]}, as_json, table)
