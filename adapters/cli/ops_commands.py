"""CLI commands for operators: ``doctor`` and ``ops report`` (ADR 0035, docs/operations.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from hlmem.adapters.cli import render
from hlmem.adapters.cli.context import _Ctx, _emit, _ts, cli, json_option

_STYLE = {"ok": "green", "warn": "yellow", "fail": "red"}


def _now(obj: _Ctx) -> datetime:
    from hlmem.domain.time import UTC

    return _ts(obj.now, "--now") if obj.now else datetime.now(UTC)


def _settings(obj: _Ctx) -> Any:
    """The effective settings (``--config``/``HLMEM_CONFIG``/``hlmem.toml``, ``HLMEM_*``, the flags)."""
    return obj.loaded.settings


def plugin_registry(obj: _Ctx) -> Any:
    """The plugin registry of the effective ``[plugins]`` settings (ADR 0032), for the ``plugins`` check."""
    from hlmem.adapters.plugin_wiring import make_plugin_registry

    return make_plugin_registry(_settings(obj).plugins)


@cli.command()
@click.option("--live", "is_live", is_flag=True, help="Also send one minimal request to each configured provider.")
@json_option
@click.pass_obj
def doctor(obj: _Ctx, is_live: bool, as_json: bool) -> None:
    """Check the installation and the store without changing it; exit 0 ok, 1 warnings, 2 failures."""
    import os

    from hlmem.adapters.ops.checks import exit_code
    from hlmem.adapters.ops.doctor import run_doctor

    checks = run_doctor(obj.db, _settings(obj), now=_now(obj), environ=os.environ, embedder=obj.embedder,
                        is_live=is_live, plugins=plugin_registry(obj),
                        store_named=obj.loaded.sources["db"].kind != "default")
    code = exit_code(checks)
    if as_json:
        _emit({"store": obj.shown_db, "status": ("ok", "warn", "fail")[code], "exit_code": code,
               "checks": [c.as_dict() for c in checks]}, True)
    else:
        table = Table(title=render.cell(f"hlmem doctor: {obj.shown_db}"))
        for col in ("check", "status", "detail", "what to do"):
            table.add_column(col, overflow="fold")
        for c in checks:
            table.add_row(render.cell(c.name), render.cell(c.status), render.cell(c.detail), render.cell(c.action or ""),
                          style=_STYLE[c.status] if c.status != "ok" else None)
        Console().print(table)
    click.get_current_context().exit(code)


@cli.group()
def ops() -> None:
    """Operational reports on the store (read-only)."""


@ops.command(name="report")
@click.option("--since", default=None, metavar="DURATION|TIMESTAMP",
              help="Start of the period: 90m, 24h, 7d, 2w or an ISO 8601 time (default 24h).")
@click.option("--backups", default=None, metavar="DIR", help="Count the files of this backups directory too.")
@json_option
@click.pass_obj
def ops_report(obj: _Ctx, since: str | None, backups: str | None, as_json: bool) -> None:
    """Provider calls, jobs, the worker, storage and conflicts, with warnings (never writes)."""
    from hlmem.adapters.budget import budget_limits
    from hlmem.adapters.ops.report import parse_since, report_dict

    now = _now(obj)
    budget = _settings(obj).budget
    data = report_dict(obj.db, now=now, since=parse_since(since, now), backups=backups, limits=budget_limits(budget),
                       priced=budget.price_book is not None)
    if as_json:
        _emit(data, True)
        return
    console = Console()
    for table in report_tables(data):
        console.print(table)


def report_tables(data: dict[str, Any]) -> list[Table]:
    """The report as rich tables: providers, jobs, worker and storage, warnings."""
    cell = render.cell
    providers = Table(title=cell(f"provider calls since {data['since']}"))
    for col in ("provider:model", "op", "req", "ok", "errors", "tok in", "tok out", "p50 ms", "p95 ms", "items",
                "cost"):
        providers.add_column(col, overflow="fold")
    for p in data["providers"]:
        errors = ", ".join(f"{k} {v}" for k, v in p["errors"].items()) or "0"
        providers.add_row(*(cell(v) for v in (
            f"{p['provider']}:{p['model']}", p["operation"], p["requests"], p["successes"], errors, p["tokens_in"],
            p["tokens_out"], p["latency_ms"]["p50"], p["latency_ms"]["p95"], _unknown(p["items"]),
            _unknown(p["cost"]))))
    if not data["providers"]:
        providers.add_row(*(cell(v) for v in ("none", "", 0, 0, "0", 0, 0, "", "", "", "")))
    jobs = data["jobs"]
    overview = Table(title=cell(f"store {data['store']}" + ("" if data["exists"] else " (does not exist)")))
    overview.add_column("what")
    overview.add_column("value", overflow="fold")
    counts = ", ".join(f"{n} {state}" for state, n in jobs["counts"].items())
    age = jobs["oldest_pending_age_s"]
    rows = [("jobs", counts), ("oldest pending", "none" if age is None else f"{age:.0f} s"),
            ("worker", _worker(data["worker"])), ("open conflicts", data["conflicts"]["open"])]
    rows += [(f"embeddings {e['model']}", f"{e['passages']} passages stored") for e in data["embeddings"]]
    if data["budget"]:
        rows.append(("budget today", _budget(data["budget"])))
    s = data["storage"]
    rows.append(("storage bytes", f"db {s['db']}, wal {s['wal']}, shm {s['shm']}"
                 + (f", backups {s['backups']['bytes']} in {s['backups']['files']} files" if s["backups"] else "")))
    rows += [(f"dead {d['id']}", f"{d['error_class'] or ''}: {d['error'] or ''}") for d in jobs["dead"]]
    for what, value in rows:
        overview.add_row(cell(what), cell(value))
    alerts = Table(title="warnings")
    alerts.add_column("code")
    alerts.add_column("message", overflow="fold")
    for w in data["warnings"]:
        alerts.add_row(cell(w["code"]), cell(w["message"]), style="yellow")
    if not data["warnings"]:
        alerts.add_row(cell("none"), cell(""))
    return [providers, overview, _packets_table(data), alerts]


def _packets_table(data: dict[str, Any]) -> Table:
    """Context packets served per UTC day and the history they stood in for (ADR 0061)."""
    from hlmem.adapters.ops.report_packets import packet_rows

    table = Table(title="context packets served (per UTC day; history: the sessions they came from)")
    for col in ("day", "packets", "mean tokens", "history tokens per packet", "saved tokens"):
        table.add_column(col, overflow="fold")
    for row in packet_rows(data["packets"]) or [("none", "0", "", "", "")]:
        table.add_row(*row)
    return table


def _budget(b: dict[str, Any]) -> str:
    parts = []
    for kind in ("requests", "tokens", "cost"):
        used, limit = b[kind]["used"], b[kind]["limit"]
        used = f"{used:.4f}".rstrip("0").rstrip(".") if kind == "cost" else used
        parts.append(f"{kind} {used}" + ("" if limit is None else f" of {limit}"))
    unknown = f", {b['unknown_cost']} of unknown cost" if b["unknown_cost"] else ""
    return ", ".join(parts) + unknown + f" (resets {b['resets_at']})"


def _unknown(value: object) -> object:
    return "n/a" if value is None else value


def _worker(w: dict[str, Any] | None) -> str:
    if w is None:
        return "never seen"
    state = w["state"] if w["freshness"] == w["state"] else f"{w['freshness']} ({w['state']})"
    return (f"{state}, last beat {w['last_beat']}, pid {w['pid']} on {w['host']}, "
            f"{w['jobs_done']} jobs done" + (f", last error: {w['last_error']}" if w["last_error"] else ""))
