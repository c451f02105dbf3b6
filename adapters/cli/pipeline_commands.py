"""CLI commands of the write pipeline: ``worker``, ``jobs`` (and ``jobs retry``), ``conflicts``."""

from __future__ import annotations

import click

from hlmem.adapters.cli import render
from hlmem.adapters.cli.context import _Ctx, _emit, cli, json_option
from hlmem.adapters.wire.pipeline import conflict_dict, job_dict


@cli.command()
@click.option("--once", is_flag=True, help="Drain every ready job (partial windows too) and exit (cron).")
@click.option("--window", "window_size", default=None, type=click.IntRange(min=1), metavar="N",
              help="Events per extraction window (default 8).")
@click.option("--idle", "idle_seconds", default=None, type=click.FloatRange(min=0), metavar="SECONDS",
              help="Close a session's partial window after this long without a new event (default 120).")
@click.option("--max-wait", "max_seconds", default=None, type=click.FloatRange(min=0), metavar="SECONDS",
              help="Close a window once its oldest event has waited this long (default 600).")
@click.option("--maintenance-every", "maintenance_seconds", default=None, type=click.FloatRange(min=0),
              metavar="SECONDS", help="Run a bounded lifecycle maintenance pass this often (default 3600; 0: never).")
@json_option
@click.pass_obj
def worker(obj: _Ctx, once: bool, window_size: int | None, idle_seconds: float | None, max_seconds: float | None,
           maintenance_seconds: float | None, as_json: bool) -> None:
    """Run the extraction worker until SIGTERM/SIGINT (a window in flight finishes first).

    A session's window closes at --window events, after --idle seconds without a new event, or once
    its oldest event has waited --max-wait seconds; --once closes partial windows at once.
    """
    import signal

    mem = obj.memory()
    # The worker's tunables (WorkerConfig) are per process, not stored: set them on this one.
    config = mem.worker.config
    for name, value in (("window_size", window_size), ("window_idle_seconds", idle_seconds),
                        ("window_max_seconds", max_seconds),
                        ("maintenance_interval_seconds", maintenance_seconds)):
        if value is not None:
            setattr(config, name, value)
    if not once:
        def _stop(signum, frame):  # noqa: ARG001 - signal handler signature
            mem.worker.stop()

        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)
        click.echo("worker running; Ctrl-C or SIGTERM stops it", err=True)
    stats = mem.worker.run(once=once)
    data = {"windows": stats.windows, "jobs_succeeded": stats.jobs_succeeded, "jobs_failed": stats.jobs_failed,
            "jobs_deferred": stats.jobs_deferred, "claims": stats.claims, "rejected": stats.rejected,
            "conflicts": stats.conflicts, "vectors": stats.vectors}
    deferred = f"{stats.jobs_deferred} waiting for the budget, " if stats.jobs_deferred else ""
    _emit(data, True) if as_json else click.echo(
        f"{stats.windows} windows: {stats.jobs_succeeded} jobs done, {stats.jobs_failed} failed, {deferred}"
        f"{stats.claims} claims, {stats.rejected} rejected, {stats.conflicts} conflicts"
        + (f", {stats.vectors} vectors" if stats.vectors else ""))


@cli.group(invoke_without_command=True)
@click.option("--state", default=None, type=click.Choice(["pending", "running", "succeeded", "failed", "dead"]))
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10_000))
@json_option
@click.pass_context
def jobs(ctx: click.Context, state: str | None, limit: int, as_json: bool) -> None:
    """List jobs and counts by state and type; `jobs retry ID` re-queues a dead one."""
    if ctx.invoked_subcommand is not None:
        return
    mem = ctx.obj.memory()
    listed = mem.jobs.jobs(state=state, limit=limit)
    data = {"counts": mem.jobs.job_counts(), "jobs": [job_dict(j) for j in listed]}
    _emit(data, as_json, render.jobs_table(data["counts"], listed))


@jobs.command(name="retry")
@click.argument("job_id")
@click.pass_obj
def jobs_retry(obj: _Ctx, job_id: str) -> None:
    """Re-queue a dead or failed job (its attempts start again)."""
    obj.memory().retry_job(job_id)
    click.echo(f"re-queued {job_id}")


@cli.group()
def conflicts() -> None:
    """The review queue for claims the rules cannot settle."""


@conflicts.command(name="list")
@click.option("--all", "show_all", is_flag=True, help="Include resolved conflicts.")
@json_option
@click.pass_obj
def conflicts_list(obj: _Ctx, show_all: bool, as_json: bool) -> None:
    """Open conflicts, oldest first."""
    found = obj.memory().conflicts.list(status=None if show_all else "open")
    data = {"items": [conflict_dict(c) for c in found]}
    _emit(data, as_json, render.conflicts_table(found))


@conflicts.command(name="resolve")
@click.argument("conflict_id")
@click.argument("decision", type=click.Choice(["keep-new", "keep-old", "coexist"]))
@click.option("--version", "expected_version", type=int, default=None,
              help="The conflict version you decided on (refused if it moved on).")
@click.pass_obj
def conflicts_resolve(obj: _Ctx, conflict_id: str, decision: str, expected_version: int | None) -> None:
    """Decide a conflict; a decision on a stale view (the slot changed) is refused."""
    result = obj.memory().conflicts.resolve(conflict_id, decision, expected_version=expected_version)
    click.echo(f"resolved {result.conflict_id}: {result.decision}" + (f" → {result.claim_id}" if result.claim_id else ""))
