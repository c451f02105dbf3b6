"""CLI commands of the lifecycle: ``maintain`` (TTL, decay, archive, pruning) and ``revive``."""

from __future__ import annotations

from typing import Any

import click

from hlmem.adapters.cli.context import _Ctx, _emit, _ts, cli, json_option

#: Passes ``maintain`` (without --once) runs at most before it stops and says so.
MAX_PASSES = 10_000


def _summary(data: dict[str, Any]) -> str:
    reasons = data["reasons"]

    def why(prefix: str) -> str:
        picked = [f"{k} {v}" for k, v in sorted(reasons.items()) if k.startswith(prefix)]
        return f" ({', '.join(picked)})" if picked else ""

    verb = "would change" if data["dry_run"] else "changed"
    state = "complete" if data["complete"] else "stopped at its bound; run again to go on"
    return (f"{verb}: expired {data['expired']}{why('ttl.')}, archived {data['archived']}{why('decay.')}, "
            f"pruned {data['jobs_pruned']} jobs and {data['ledger_pruned']} LLM-ledger rows\n"
            f"examined {data['examined']} claims in {data['passes']} pass(es), {data['transactions']} transactions "
            f"(longest {data['longest_transaction_ms']} ms), {data['seconds']} s; {state}"
            + ("\nfinished the erasure a forget had left pending: the erased bytes are gone"
               if data["erasure_finished"] else "")
            + ("\nerasure still pending: another connection holds old pages; it is finished once that ends"
               if data["erasure_pending"] else ""))


def _add(total: dict[str, Any] | None, part: dict[str, Any]) -> dict[str, Any]:
    if total is None:
        return {**part, "passes": 1}
    out = dict(total)
    for key in ("expired", "archived", "jobs_pruned", "ledger_pruned", "examined", "touched", "transactions"):
        out[key] += part[key]
    out["seconds"] = round(out["seconds"] + part["seconds"], 3)
    out["longest_transaction_ms"] = max(out["longest_transaction_ms"], part["longest_transaction_ms"])
    out["reasons"] = {k: out["reasons"].get(k, 0) + part["reasons"].get(k, 0)
                      for k in {*out["reasons"], *part["reasons"]}}
    out.update(complete=part["complete"], passes=out["passes"] + 1, erasure_pending=part["erasure_pending"],
               erasure_finished=out["erasure_finished"] or part["erasure_finished"])
    return out


@cli.command()
@click.option("--once", is_flag=True, help="Run one bounded pass and exit (the worker runs them on a schedule).")
@click.option("--now", "at", default=None, metavar="TIMESTAMP", help="Judge expiry and decay at this instant.")
@click.option("--max-rows", default=None, type=click.IntRange(min=1), metavar="N",
              help="Rows a pass examines at most (default 5000).")
@click.option("--max-seconds", default=None, type=click.FloatRange(min=0), metavar="SECONDS",
              help="Seconds a pass runs at most (default 2).")
@click.option("--dry-run", is_flag=True, help="Count what would change; write nothing.")
@json_option
@click.pass_obj
def maintain(obj: _Ctx, once: bool, at: str | None, max_rows: int | None, max_seconds: float | None,
             dry_run: bool, as_json: bool) -> None:
    """Expire passed plans and temporary facts, archive unused claims, prune old jobs and LLM-ledger rows.

    Without --once, bounded passes repeat until one reaches the end; each works in small
    transactions, so recall and writes are never blocked for long.
    """
    mem = obj.memory()
    now = _ts(at, "--now")
    total: dict[str, Any] | None = None
    for _ in range(1 if once or dry_run else MAX_PASSES):
        report = mem.maintain(now=now, max_rows=max_rows, max_seconds=max_seconds, dry_run=dry_run).as_dict()
        total = _add(total, report)
        if report["complete"] or (report["examined"] == 0 and report["touched"] == 0):
            break
    assert total is not None
    _emit(total, True) if as_json else click.echo(_summary(total))


@cli.command()
@click.argument("claim_id")
@click.option("--reason", default="", help="Why it comes back (kept in the log; default 'explicit').")
@click.pass_obj
def revive(obj: _Ctx, claim_id: str, reason: str) -> None:
    """Bring an archived claim back into normal recall."""
    result = obj.memory().revive(claim_id, reason=reason)
    click.echo(f"revived {result.id}")
