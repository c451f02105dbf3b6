"""``hlmem episode``: start, step, end, show, list episodes; policies, procedures, induce, forget (docs/experience.md)."""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from hlmem.adapters.cli.context import _Ctx, _emit, _ts, cli, json_option
from hlmem.adapters.cli.render import plain
from hlmem.adapters.wire.experience import (
    change_dicts,
    end_dict,
    episode_dict,
    policy_dict,
    procedure_dict,
    step_dict,
)
from hlmem.adapters.wire.forget import report_dict
from hlmem.domain.experience_policy import reliability
from hlmem.domain.experience_state import END_STATUSES, EPISODE_STATUSES, POLICY_STATUSES, PROCEDURE_STATUSES


def _change_lines(changes: Any) -> list[str]:
    return [f"{type(e).__name__} {e.stream_id}" + (f": {plain(e.reason)}" if getattr(e, "reason", "") else "")
            for e in changes]


@cli.group()
def episode() -> None:
    """Episodes: task-level experience, and the policies and procedures learnt from it (docs/experience.md)."""


@episode.command(name="start")
@click.argument("goal")
@click.option("--context", default="", help="A tool or error signature that refines the situation.")
@click.option("--approach", default="", help="How the task will be tackled (default: the trace's tools).")
@click.option("--namespace", default=None)
@click.option("--started-at", default=None, metavar="TIMESTAMP")
@json_option
@click.pass_obj
def start(obj: _Ctx, goal: str, context: str, approach: str, namespace: str | None, started_at: str | None,
          as_json: bool) -> None:
    """Begin an episode towards GOAL; prints its id."""
    e = obj.memory().episodes.start(goal, context=context, approach=approach, namespace=namespace,
                                   started_at=_ts(started_at, "--started-at"))
    if as_json:
        _emit(episode_dict(e), True)
    else:
        click.echo(f"started {e.episode_id} ({plain(e.signature)})")


@episode.command(name="step")
@click.argument("episode_id")
@click.argument("action")
@click.option("--tool", default="")
@click.option("--observation", default="", help="What came back.")
@click.option("--error", default="", help="The error signature, if the step failed.")
@click.option("--cost", default=0.0, type=float, show_default=True)
@click.option("--value", default=None, type=float, help="The step's value, -1..1.")
@click.option("--evidence", multiple=True, metavar="EV_ID", help="An event this step rests on (repeatable).")
@json_option
@click.pass_obj
def step(obj: _Ctx, episode_id: str, action: str, tool: str, observation: str, error: str, cost: float,
         value: float | None, evidence: tuple[str, ...], as_json: bool) -> None:
    """Append a step (ACTION) to a running episode's trace."""
    e = obj.memory().episodes.step(episode_id, action, tool=tool, observation=observation, error=error, cost=cost,
                                 value=value, evidence=evidence)
    if as_json:
        _emit(step_dict(e), True)
    else:
        click.echo(f"step {len(e.steps)} of {e.episode_id} ({e.steps[-1].event_id})")


@episode.command(name="end")
@click.argument("episode_id")
@click.argument("status", type=click.Choice(END_STATUSES))
@click.option("--reward", default=None, type=float, help="0..1.")
@click.option("--outcome", default="", help="A summary of how it went.")
@click.option("--approach", default="", help="Name the approach taken (overrides the one given at start).")
@json_option
@click.pass_obj
def end(obj: _Ctx, episode_id: str, status: str, reward: float | None, outcome: str, approach: str,
        as_json: bool) -> None:
    """End a running episode; prints what it changed in policies and procedures."""
    result = obj.memory().episodes.end(episode_id, status, reward=reward, outcome=outcome, approach=approach)
    if as_json:
        _emit(end_dict(result), True)
        return
    click.echo(f"ended {result.episode.episode_id}: {result.episode.status}")
    for line in _change_lines(result.changes):
        click.echo(f"  {line}")


@episode.command(name="show")
@click.argument("episode_id")
@json_option
@click.pass_obj
def show(obj: _Ctx, episode_id: str, as_json: bool) -> None:
    """One episode with its trace."""
    e = obj.memory().episodes.get(episode_id)
    if as_json:
        _emit(episode_dict(e), True)
        return
    click.echo(f"{e.episode_id} [{e.status}] {plain(e.goal)}")
    click.echo(f"  signature: {plain(e.signature)}; approach: {plain(e.approach) or '-'}; reward: "
               f"{'-' if e.reward is None else e.reward}; cost: {e.cost:g}")
    for s in e.steps:
        err = f" ERROR {plain(s.error)}" if s.error else ""
        click.echo(f"  {s.index}. {plain(s.tool) + ': ' if s.tool else ''}{plain(s.action)}{err}")
    if e.outcome:
        click.echo(f"  outcome: {plain(e.outcome)}")


@episode.command(name="list")
@click.option("--status", default=None, type=click.Choice(EPISODE_STATUSES))
@click.option("--namespace", default=None)
@click.option("--limit", default=50, show_default=True, type=int)
@click.option("--after", default=None, metavar="EP_ID", help="The last id of the previous page.")
@json_option
@click.pass_obj
def list_(obj: _Ctx, status: str | None, namespace: str | None, limit: int, after: str | None,
          as_json: bool) -> None:
    """A page of episodes, ordered by id."""
    found = obj.memory().episodes.list(status=status, namespace=namespace, limit=limit, after=after)
    table = Table("id", "status", "goal", "approach", "steps", "reward")
    for e in found:
        table.add_row(e.episode_id, e.status, plain(e.goal), plain(e.approach), str(len(e.steps)),
                      "-" if e.reward is None else f"{e.reward:g}")
    _emit([episode_dict(e, steps=False) for e in found], as_json, table)


@episode.command(name="policies")
@click.option("--status", default=None, type=click.Choice(POLICY_STATUSES))
@click.option("--namespace", default=None)
@click.option("--query", default=None, help="A how-to question or task: the live policies it asks for, best first "
              "(with --status active, active ones only).")
@json_option
@click.pass_obj
def policies(obj: _Ctx, status: str | None, namespace: str | None, query: str | None, as_json: bool) -> None:
    """The policies learnt: "in situation T prefer approach P", with support and reliability."""
    mem = obj.memory()
    found, t = mem.policies.list(status=status, namespace=namespace, query=query), mem.policies.thresholds
    table = Table("id", "status", "situation", "approach", "support", "reliability")
    for p in found:
        table.add_row(p.policy_id, p.status, plain(p.situation or p.signature), plain(p.approach),
                      f"{p.successes}/{p.support}", f"{reliability(p, t):.2f}")
    _emit([policy_dict(p, t) for p in found], as_json, table)


@episode.command(name="procedures")
@click.option("--status", default=None, type=click.Choice(PROCEDURE_STATUSES))
@click.option("--namespace", default=None)
@json_option
@click.pass_obj
def procedures(obj: _Ctx, status: str | None, namespace: str | None, as_json: bool) -> None:
    """The procedures (every version): a reliable policy's reusable steps."""
    found = obj.memory().procedures.list(status=status, namespace=namespace)
    table = Table("id", "policy", "version", "status", "steps")
    for p in found:
        table.add_row(p.procedure_id, p.policy_id, str(p.number), p.status, plain(" → ".join(p.steps)))
    _emit([procedure_dict(p) for p in found], as_json, table)


@episode.command(name="induce")
@click.option("--namespace", default=None)
@json_option
@click.pass_obj
def induce(obj: _Ctx, namespace: str | None, as_json: bool) -> None:
    """Run policy induction over every situation (idempotent; episode end does it for its own)."""
    changes = obj.memory().policies.induce(namespace=namespace)
    if as_json:
        _emit(change_dicts(changes), True)
        return
    click.echo(f"{len(changes)} change(s)")
    for line in _change_lines(changes):
        click.echo(f"  {line}")


@episode.command(name="forget")
@click.argument("episode_id")
@click.option("--dry-run", is_flag=True, help="Show what would go; remove nothing.")
@click.option("--reason", default="", help="Why (kept in the audit log; do not repeat the forgotten text).")
@json_option
@click.pass_obj
def forget(obj: _Ctx, episode_id: str, dry_run: bool, reason: str, as_json: bool) -> None:
    """Forget an episode, its trace, procedures built from it and policies left without support."""
    report = obj.memory().episodes.forget(episode_id, dry_run=dry_run, reason=reason)
    if as_json:
        _emit(report_dict(report), True)
        return
    if report.already_forgotten:
        click.echo(f"already forgotten: episode {report.target}; nothing left to remove")
        return
    click.echo(("would forget" if dry_run else f"forgot ({report.forget_id})") + f": episode {report.target}")
    for key, n in report.counts.items():
        click.echo(f"  {key:<16} {n}")
