"""CLI commands of the derived layer: ``derive``, ``observations`` and ``profile`` (docs/derived.md, ADR 0046)."""

from __future__ import annotations

import click
from rich.table import Table

from hlmem.adapters.cli import render
from hlmem.adapters.cli.context import _Ctx, _emit, cli, json_option
from hlmem.adapters.wire.derived import view_dict

_namespace = click.option("--namespace", default=None, metavar="NS", help="Namespace (default: the store's default).")


@cli.command()
@click.option("--subject", default=None, metavar="S", help="Only this subject (default: every subject).")
@_namespace
@json_option
@click.pass_obj
def derive(obj: _Ctx, subject: str | None, namespace: str | None, as_json: bool) -> None:
    """Build or bring up to date the observation summaries and mental models (offline, deterministic)."""
    report = obj.memory().derived.build(subject=subject, namespace=namespace)
    data = {"built": list(report.built), "rebuilt": list(report.rebuilt), "removed": list(report.removed),
            "subjects": report.subjects}
    if as_json:
        _emit(data, True)
    else:
        click.echo(f"{report.subjects} subject(s): built {len(report.built)}, rebuilt {len(report.rebuilt)}, "
                   f"removed {len(report.removed)}")


@cli.command()
@click.option("--subject", default=None, metavar="S", help="Only this subject.")
@_namespace
@json_option
@click.pass_obj
def observations(obj: _Ctx, subject: str | None, namespace: str | None, as_json: bool) -> None:
    """List the observation summaries (current and stale) with their source claims."""
    views = obj.memory().derived.observations(subject=subject, namespace=namespace)
    table = Table("id", "subject", "family", "status", "text", "sources")
    for v in views:
        table.add_row(render.cell(v.item.derived_id), render.cell(v.item.subject), render.cell(v.item.family),
                      render.cell(v.item.status + (f" ({v.item.stale_reason})" if v.item.status == "stale" else "")),
                      render.cell(v.item.text), render.cell(", ".join(s.claim_id for s in v.sources)))
    _emit([view_dict(v) for v in views], as_json, table)


@cli.command()
@click.argument("subject")
@_namespace
@json_option
@click.pass_obj
def profile(obj: _Ctx, subject: str, namespace: str | None, as_json: bool) -> None:
    """Show a subject's mental model: its profile text and the claims it was built from."""
    view = obj.memory().derived.profile(subject, namespace=namespace)
    if as_json:
        _emit(view_dict(view), True)
        return
    d = view.item
    state = d.status + (f" ({d.stale_reason}; a worker rebuilds it)" if d.status == "stale" else "")
    click.echo(render.plain(f"{d.derived_id} · {state} · built {d.built_at.isoformat()} at log position "
                            f"{d.watermark}"))
    click.echo(render.plain(d.text, lines=True))
    for s in view.sources:
        click.echo(render.plain(f"  {s.claim_id} v{s.version} [{s.status}] {s.subject} · {s.predicate} · {s.value}"))
