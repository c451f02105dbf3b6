"""The ``forget`` command: a claim or event by id, a whole session, or everything about a subject."""

from __future__ import annotations

import sys
from typing import Any

import click

from hlmem.adapters.cli.context import EXIT_ERASURE_PENDING, EXIT_USAGE, _Ctx, _emit, cli, json_option
from hlmem.adapters.cli.render import plain
from hlmem.adapters.wire.forget import report_dict
from hlmem.application.forgetting import ForgetReport
from hlmem.domain.time import format_timestamp

#: How the counts read in a report, in order.
LABELS = {
    "events": "events", "claims": "claims", "evidence_links": "evidence links (surviving claims)",
    "conflicts": "conflicts", "extraction_records": "extraction records", "payloads": "log payloads erased",
    "fts_rows": "full-text rows", "vectors": "vectors", "cache_entries": "embedding-cache entries",
    "jobs": "job rows scrubbed",
}


#: What exit code 3 means, said on stderr (docs/cli.md, docs/forgetting.md).
PENDING_NOTE = ("note: erasure pending: the forget is done (nothing is recalled, explained or re-ingested), but "
                "another connection holds a read transaction, so the erased text is still in the store's files; "
                "it is removed by itself once that connection ends (next open of the store, the worker, or "
                "`hlmem maintain`)")


def _echo_report(report: ForgetReport) -> None:
    what = plain(f"{report.target_kind} {report.target}")
    if report.already_forgotten:
        when = f" at {format_timestamp(report.forgotten_at)}" if report.forgotten_at else ""
        click.echo(f"already forgotten: {what}{when}; nothing left to remove")
        return
    head = "would forget" if report.dry_run else f"forgot ({report.forget_id})"
    click.echo(f"{head}: {what}")
    for key in report.counts:  # an episode's forget counts other kinds (docs/experience.md)
        click.echo(f"  {LABELS.get(key, key):<34} {report.counts[key]}")
    for note in report.notes:
        click.echo(f"note: {plain(note)}")
    if report.dry_run:
        click.echo("dry run: nothing was removed")


@cli.command()
@click.argument("item_id", required=False, metavar="[ID]")
@click.option("--session", default=None, metavar="S", help="Forget every event of session S (and what follows).")
@click.option("--subject", default=None, metavar="NAME", help="Forget everything about NAME (asks to confirm).")
@click.option("--namespace", default="default", show_default=True, help="Namespace of --session/--subject.")
@click.option("--dry-run", is_flag=True, help="Show what would go; remove nothing.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation (needed for --subject without a terminal).")
@click.option("--reason", default="", help="Why (kept in the audit log; do not repeat the forgotten text).")
@json_option
@click.pass_obj
def forget(obj: _Ctx, item_id: str | None, session: str | None, subject: str | None, namespace: str,
           dry_run: bool, yes: bool, reason: str, as_json: bool) -> None:
    """Forget a claim or event (ID from recall, history or explain), a --session, or a --subject.

    The cascade erases the text from the log, claims whose evidence is all forgotten, full-text
    rows, vectors, cache entries, job rows and review items; claims with other evidence only lose
    the link. Prints what was removed, by kind. Repeating a forget is harmless and says so.
    Exit 3: done, but another connection keeps the erased bytes on disk until it ends.
    """
    given = [v for v in (item_id, session, subject) if v is not None]
    if len(given) != 1:
        click.echo("error: give exactly one of ID, --session S or --subject NAME", err=True)
        sys.exit(EXIT_USAGE)
    mem = obj.memory()
    target: dict[str, Any] = {"item_id": item_id, "session": session, "subject": subject, "namespace": namespace}
    if subject is not None and not dry_run and not yes:
        if not sys.stdin.isatty():
            click.echo("error: forget --subject removes everything about a person: confirm with --yes "
                       "(no terminal to ask on); --dry-run shows what would go", err=True)
            sys.exit(EXIT_USAGE)
        preview = mem.forget(dry_run=True, **target)
        if not preview.already_forgotten:
            _echo_report(preview)
            click.confirm(f"Forget everything about {subject!r}? This cannot be undone", abort=True, err=True)
    report = mem.forget(dry_run=dry_run, reason=reason, **target)
    if as_json:
        _emit(report_dict(report), True)
    else:
        _echo_report(report)
    if report.erasure_pending:
        click.echo(PENDING_NOTE, err=True)
        sys.exit(EXIT_ERASURE_PENDING)
