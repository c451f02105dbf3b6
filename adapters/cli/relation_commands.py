"""CLI commands of relations between people and things: ``hlmem relations list|show|accept|reject|scan``
(docs/relations.md, ADR 0081)."""

from __future__ import annotations

import click
from rich.table import Table

from hlmem.adapters.cli import render
from hlmem.adapters.cli.context import _Ctx, _emit, cli, json_option
from hlmem.adapters.wire.relations import edge_text, page_dict, scan_dict, view_dict

_namespace = click.option("--namespace", default=None, metavar="NS", help="Namespace (default: the store's default).")
_STATUSES = click.Choice(["proposed", "accepted", "rejected", "retired", "forgotten", "all"])


@cli.group()
def relations() -> None:
    """Relations between people and things, and their review queue (off unless [relations] enabled)."""


@relations.command(name="list")
@click.option("--status", default="proposed", type=_STATUSES, show_default=True,
              help="Which edges: the review queue (proposed), one other status, or all but forgotten.")
@click.option("--entity", default=None, metavar="NAME", help="Only edges with this entity (a name or en_ id) at either end.")
@click.option("--limit", default=50, type=int, show_default=True)
@click.option("--after", default=None, metavar="CURSOR", help="The next_cursor of the previous page.")
@_namespace
@json_option
@click.pass_obj
def relations_list(obj: _Ctx, status: str, entity: str | None, limit: int, after: str | None, namespace: str | None,
                   as_json: bool) -> None:
    """List edges ordered by id (by default the ones waiting for review)."""
    mem = obj.memory()
    page = mem.relations.page(status=None if status == "all" else status, entity=entity, limit=limit, after=after,
                              namespace=namespace)
    table = Table("id", "status", "edge", "evidence", "rules")
    for r in page.items:
        table.add_row(render.cell(r.relation_id), render.cell(r.status + (f" ({r.retired_reason})" if
                                                                            r.retired_reason else "")),
                      render.cell(edge_text(r)), render.cell(", ".join(r.evidence)), render.cell(", ".join(r.rules)))
    if not as_json and not page.items and not mem.relations.enabled:
        click.echo("note: relations are off; [relations] enabled = true (or HLMEM_RELATIONS=1) proposes them",
                   err=True)
    _emit(page_dict(page), as_json, table)
    if not as_json and page.next_cursor:
        click.echo(f"more: --after {page.next_cursor}")


def _show(view, as_json: bool) -> None:
    if as_json:
        _emit(view_dict(view), True)
        return
    r = view.relation
    click.echo(render.plain(f"{r.relation_id} · {r.status} · {edge_text(r)}"))
    click.echo(render.plain(f"  valid from {r.valid_from.isoformat()}"
                            + (f" to {r.valid_to.isoformat()}" if r.valid_to else "")
                            + (f" · retired: {r.retired_reason}" if r.retired_reason else "")
                            + (f" · reviewed by {r.reviewed_by}" if r.reviewed_by else "")))
    for e in view.evidence:
        click.echo(render.plain(f"  {e.id} [{e.status}] {e.text}"))


@relations.command(name="show")
@click.argument("relation_id")
@json_option
@click.pass_obj
def relations_show(obj: _Ctx, relation_id: str, as_json: bool) -> None:
    """One edge with its evidence as it stands now."""
    _show(obj.memory().relations.get(relation_id), as_json)


@relations.command(name="accept")
@click.argument("relation_id")
@click.option("--reason", default="", help="Kept in the log with the decision.")
@json_option
@click.pass_obj
def relations_accept(obj: _Ctx, relation_id: str, reason: str, as_json: bool) -> None:
    """Accept an edge (refused when it is retired, forgotten or its evidence is no longer current)."""
    _show(obj.memory().relations.accept(relation_id, reason=reason, actor="cli"), as_json)


@relations.command(name="reject")
@click.argument("relation_id")
@click.option("--reason", default="", help="Kept in the log with the decision.")
@json_option
@click.pass_obj
def relations_reject(obj: _Ctx, relation_id: str, reason: str, as_json: bool) -> None:
    """Reject an edge: it leaves the queue and the rules never propose it again."""
    _show(obj.memory().relations.reject(relation_id, reason=reason, actor="cli"), as_json)


@relations.command(name="scan")
@_namespace
@json_option
@click.pass_obj
def relations_scan(obj: _Ctx, namespace: str | None, as_json: bool) -> None:
    """Propose edges from every current claim (claims written before relations were enabled)."""
    report = obj.memory().relations.scan(namespace=namespace)
    if as_json:
        _emit(scan_dict(report), True)
    else:
        click.echo(f"{report.claims} claim(s) read: {len(report.proposed)} proposed, "
                   f"{len(report.corroborated)} corroborated")
