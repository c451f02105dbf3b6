"""The ``hlmem`` command: one clear line and a non-zero exit on any error, never a traceback.

This module assembles the command line: the group and its shared parts live in
:mod:`hlmem.adapters.cli.context`, the core commands here, the others in ``*_commands`` modules.
"""

from __future__ import annotations

import sys

import click

# The other command modules register themselves on ``cli`` when imported, and ``cli`` imports
# each when one of its commands runs (context.COMMAND_MODULES): the write pipeline (worker, jobs,
# conflicts), backup/restore/audit, ``forget``, ``maintain`` and ``revive``, config, ``mcp``
# (ADR 0037), doctor and ops, plugins (ADR 0032), hermes (ADR 0038), ``serve`` (ADR 0036),
# ``episode`` (ADR 0045), derive, observations and profile (ADR 0046), ``relations`` (ADR 0081).
from hlmem.adapters.cli import render
from hlmem.adapters.cli.context import (  # noqa: F401  (re-exported: ``cli`` is the entry point's group)
    EXIT_CORRUPT,
    EXIT_ERASURE_PENDING,
    EXIT_ERROR,
    EXIT_USAGE,
    _Ctx,
    _emit,
    _ts,
    cli,
    default_db,
    json_option,
    load_all_commands,
    run_line,
)


@cli.command()
@click.argument("text")
@click.option("--session", default="default", help="Session id.")
@click.option("--role", default="user", help="Speaker role (user, assistant, tool, …).")
@click.option("--origin", default="direct_user",
              type=click.Choice(["direct_user", "agent", "external", "external_derived", "system", "unknown"]))
@click.option("--session-kind", default="interactive",
              type=click.Choice(["interactive", "cron", "heartbeat", "subagent", "unknown"]))
@click.option("--occurred-at", default=None, metavar="TIMESTAMP", help="When it happened (default: now).")
@click.option("--defer", is_flag=True, help="Leave claim extraction to the worker (batched per session).")
@click.option("--no-extract", is_flag=True, help="Record verbatim only; never extract claims from it.")
@json_option
@click.pass_obj
def add(obj: _Ctx, text: str, session: str, role: str, origin: str, session_kind: str,
        occurred_at: str | None, defer: bool, no_extract: bool, as_json: bool) -> None:
    """Record a raw event verbatim (recallable at once) and extract claims from it."""
    if obj.served():
        return
    from hlmem.adapters.wire.writes import save_dict

    result = obj.memory().add(text, session=session, role=role, origin=origin, session_kind=session_kind,
                              occurred_at=_ts(occurred_at, "--occurred-at"), extract=not no_extract,
                              process=not defer)
    if as_json:
        _emit(save_dict(result), True)
        return
    click.echo(f"recorded {result.id}")
    for claim in result.claims:
        click.echo(render.plain(f"  claim {claim.claim_id}: {claim.subject} · {claim.predicate} · {claim.value} "
                                f"({claim.status.value})"))


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{option} takes KEY=VALUE, got {item!r}")
        out[key.strip()] = value
    return out


@cli.command()
@click.option("--subject", required=True)
@click.option("--predicate", required=True)
@click.option("--value", required=True)
@click.option("--qualifier", "qualifiers", multiple=True, metavar="K=V", help="Descriptive or known coordinate qualifier.")
@click.option("--coordinate", "coordinates", multiple=True, metavar="K=V", help="A qualifier that picks out its own slot.")
@click.option("--valid-from", default=None, metavar="TIMESTAMP")
@click.option("--valid-to", default=None, metavar="TIMESTAMP")
@click.option("--importance", default=0.5, type=float, show_default=True)
@click.option("--scope", default="permanent", type=click.Choice(["permanent", "temporal"]), show_default=True)
@click.option("--negative", is_flag=True, help="The claim says the value does NOT hold.")
@click.option("--multi", is_flag=True, help="Declare the predicate multi-valued (values coexist).")
@click.option("--evidence", multiple=True, metavar="EVENT_ID")
@json_option
@click.pass_obj
def remember(obj: _Ctx, subject, predicate, value, qualifiers, coordinates, valid_from, valid_to, importance,
             scope, negative, multi, evidence, as_json) -> None:
    """Assert an explicit claim (no LLM); a new value of a single-valued slot supersedes the old."""
    from hlmem.adapters.wire.writes import write_dict

    result = obj.memory().remember(
        subject, predicate, value, qualifiers=_pairs(qualifiers, "--qualifier"),
        coordinates=_pairs(coordinates, "--coordinate"), valid_from=_ts(valid_from, "--valid-from"),
        valid_to=_ts(valid_to, "--valid-to"), importance=importance, scope=scope, polarity=not negative,
        cardinality="multi" if multi else None, evidence=evidence,
    )
    if as_json:
        _emit(write_dict(result), True)
    else:
        click.echo(f"{result.outcome} {result.id}")


@cli.command()
@click.argument("query")
@click.option("--k", default=None, type=click.IntRange(1, 200),
              help="How many items at most (default 10, or with --budget one per 40 tokens of it, "
                   "80 for --packet-version 1, up to 200).")
@click.option("--valid-at", default=None, metavar="TIMESTAMP", help="World time asked about (default now).")
@click.option("--known-at", default=None, metavar="TIMESTAMP", help="Knowledge time asked about (default now).")
@click.option("--now", "reference", default=None, metavar="TIMESTAMP",
              help="Reference time the question is asked at: what yesterday, in May, 周三 mean, and the "
                   "default --valid-at (default: the clock, i.e. the global --now).")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(["claim", "event"]), help="Restrict item kinds.")
@click.option("--include-archived", is_flag=True, help="Also search archived claims (by their own words).")
@click.option("--entity-constraint", default="enforce", show_default=True,
              type=click.Choice(["enforce", "observe", "off"]),
              help="Keep memories about other entities (张卫 for 张伟, v1.3 for v1.2) from the top.")
@click.option("--no-understand", is_flag=True, help="Ignore the query's time words (现在, 之前, used to, 4月时).")
@click.option("--budget", default=None, type=click.IntRange(0, None), metavar="TOKENS",
              help="Print a context packet for a prompt that never exceeds TOKENS (docs/packet.md).")
@click.option("--packet-version", default=None, type=click.IntRange(1, 2), metavar="1|2",
              help="The packet's format: 2 (default; items named by handles such as fxqwtzk.3, which only the "
                   "process that printed them resolves: in the CLI use the ids of --json) or 1 (ids on every line).")
@click.option("--intent", default="auto", show_default=True, type=click.Choice(["auto", "procedure", "facts"]),
              help="procedure: put matching active procedures and policies first (auto: for how-to questions; "
                   "docs/experience.md).")
@json_option
@click.pass_obj
def recall(obj: _Ctx, query: str, k: int | None, valid_at, known_at, reference, kinds, include_archived: bool,
           entity_constraint: str, no_understand: bool, budget: int | None, packet_version: int | None, intent: str,
           as_json: bool) -> None:
    """Find what memory holds about QUERY, as of any (valid, known) instant."""
    if obj.served():
        return
    from hlmem.adapters.wire.recall import recall_dict

    result = obj.memory().recall(query, k=k, valid_at=_ts(valid_at, "--valid-at"), now=_ts(reference, "--now"),
                                 known_at=_ts(known_at, "--known-at"), kinds=kinds or ("claim", "event"),
                                 include_archived=include_archived, entity_constraint=entity_constraint,
                                 understand_query=not no_understand, budget=budget, intent=intent,
                                 packet_version=packet_version)
    for note in result.notes:
        click.echo(f"note: {render.plain(note)}", err=True)
    if result.packet is not None and not as_json:
        click.echo(render.plain(result.packet.text, lines=True))
        return
    _emit(recall_dict(result), as_json, render.recall_table(result))


@cli.command()
@click.option("--subject", required=True)
@click.option("--predicate", required=True)
@json_option
@click.pass_obj
def history(obj: _Ctx, subject: str, predicate: str, as_json: bool) -> None:
    """The slot's claims, oldest first, with status and both clocks."""
    from hlmem.adapters.wire.claims import claim_dict

    claims = obj.memory().history(subject, predicate)
    _emit({"items": [claim_dict(c) for c in claims]}, as_json, render.history_table(claims))


@cli.command()
@click.argument("item_id")
@json_option
@click.pass_obj
def explain(obj: _Ctx, item_id: str, as_json: bool) -> None:
    """Why memory holds ITEM_ID: evidence verbatim, supersede chain, both clocks."""
    from hlmem.adapters.wire.claims import explanation_dict

    data = explanation_dict(obj.memory().explain(item_id))
    if data["kind"] == "forgotten" and not as_json:
        # A forgotten id is explained by its forget time only.
        click.echo(render.plain(f"{data['id']}: forgotten at {data['forgotten_at'] or 'an unknown time'}"))
        return
    _emit(data, True) if as_json else _emit(data, False)


@cli.command()
@click.argument("claim_id")
@click.option("--reason", default="", help="Why it is no longer believed.")
@click.pass_obj
def retract(obj: _Ctx, claim_id: str, reason: str) -> None:
    """Stop believing a claim from now on (history keeps it)."""
    result = obj.memory().retract(claim_id, reason)
    click.echo(f"retracted {result.id}")


@cli.command()
@click.argument("item_id")
@click.argument("verdict", type=click.Choice(["helpful", "unhelpful"]))
@click.option("--reason", default="", help="Why (kept in the log).")
@click.pass_obj
def feedback(obj: _Ctx, item_id: str, verdict: str, reason: str) -> None:
    """Say whether a recalled claim or event helped: it feeds ranking and lifecycle."""
    result = obj.memory().feedback(item_id, verdict, reason=reason)
    click.echo(f"{verdict}: {result.id}")


@cli.command()
@json_option
@click.pass_obj
def stats(obj: _Ctx, as_json: bool) -> None:
    """Counts of events, claims by status and vectors, and the embedding model."""
    if obj.served():
        return
    data = obj.memory().stats()
    data["db"] = obj.shown_db
    _emit(data, as_json) if as_json else click.echo("\n".join(render.plain(f"{k}: {v}") for k, v in data.items()))


@cli.command()
@click.option("--verify", is_flag=True,
              help="Check the file's integrity first (exit 4 if corrupt); exit 1 when the projections differ.")
@click.option("--into", default=None, metavar="PATH",
              help="Keep the rebuilt store at PATH (a new file, or an empty PostgreSQL database: postgresql://…).")
@json_option
@click.pass_obj
def replay(obj: _Ctx, verify: bool, into: str | None, as_json: bool) -> None:
    """Rebuild every projection from the log into a fresh store and report differences."""
    from hlmem.adapters.cli.progress import progress_bar

    mem = obj.memory()
    with progress_bar("replaying", mem.progress_total("replay"), quiet=as_json) as advance:
        report = mem.replay(into=into, progress=advance, verify=verify)
    data = {"events": report.events, "streams": report.streams, "equal": report.equal,
            "differences": list(report.differences), "counts": report.rebuilt_counts,
            "tombstones": report.tombstones}
    if verify:
        data["integrity"] = "ok"  # a damaged store ends in "corrupt" (exit 4) before this
        data["integrity_checked"] = report.integrity
    if as_json:
        _emit(data, True)
    else:
        verdict = "projections equal the log" if report.equal else f"{len(report.differences)} differences"
        carried = f"; {report.tombstones} tombstones carried with the salt" if report.tombstones else ""
        checked = f"; passed first: {report.integrity}" if verify and report.integrity else ""
        click.echo(f"replayed {report.events} events over {report.streams} streams: {verdict}{carried}{checked}")
        for line in report.differences[:20]:
            click.echo(f"  {render.plain(line)}")
    if verify and not report.equal:
        sys.exit(EXIT_ERROR)


@cli.command()
@json_option
@click.pass_obj
def reembed(obj: _Ctx, as_json: bool) -> None:
    """Re-embed every item with the chosen --embedder and switch the store to that model."""
    from hlmem.adapters.cli.progress import progress_bar

    mem = obj.memory()
    with progress_bar("embedding", mem.progress_total("reembed"), quiet=as_json) as advance:
        count = mem.reembed(progress=advance)
    data = {"vectors": count, "model": mem.stats()["vector_model"]}
    _emit(data, True) if as_json else click.echo(f"re-embedded {count} items with {data['model']}")


@cli.command(name="import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--skip-invalid", is_flag=True, help="Import the valid lines and report the others.")
@json_option
@click.pass_obj
def import_(obj: _Ctx, file: str, skip_invalid: bool, as_json: bool) -> None:
    """Import a JSONL file of observations and claims (docs/import-format.md); '-' reads stdin."""
    import shutil
    import tempfile

    from hlmem.adapters.cli.progress import progress_bar
    from hlmem.application.import_reader import check_encoding

    # Read line by line, twice (check every line, then write), never whole: bounded memory
    # whatever the size; one bad byte costs its line, never the file (docs/import-format.md).
    # The file is opened, and its encoding checked, before the store is: a missing or unreadable
    # file creates no store. Standard input is copied first (it cannot be read twice).
    with tempfile.TemporaryFile(prefix="hlmem-import-") if file == "-" else open(file, "rb") as source:
        if file == "-":
            shutil.copyfileobj(sys.stdin.buffer, source, 1 << 20)
            source.seek(0)
        check_encoding(source.read(256))
        source.seek(0)
        mem = obj.memory()
        with progress_bar("importing", None, quiet=as_json) as advance:
            report = mem.import_file(source if file == "-" else file, progress=advance,
                                     planned=lambda n: advance(0, total=n), skip_invalid=skip_invalid)
    data = {"lines": report.lines, "written": report.written, "errors": list(report.errors)}
    if report.blocked:  # lines whose content was forgotten (re-ingest blocking)
        data["blocked"] = list(report.blocked)
    refused = bool(report.errors) and not skip_invalid
    if refused:
        # One line that names the (first) bad line; the others follow, indented, when there are more.
        first, more = report.errors[0], len(report.errors) - 1
        also = f" (and {more} more invalid line{'s' * (more > 1)})" if more else ""
        click.echo(f"error: {render.plain(first)}{also}; nothing was imported (fix {'them' if more else 'it'} "
                   "or pass --skip-invalid)", err=True)
    if as_json:
        _emit(data, True)
    else:
        if not refused:
            click.echo(f"imported {report.written} of {report.lines} records")
            if report.errors:
                click.echo(f"  {len(report.errors)} invalid line{'s' * (len(report.errors) > 1)} skipped", err=True)
            if report.blocked:
                click.echo(f"  {len(report.blocked)} skipped: forgotten content (re-ingest is blocked)", err=True)
        shown = report.errors[1:21] if refused else report.errors[:20]
        for line in shown:
            click.echo(f"  {render.plain(line)}", err=True)
        if len(report.errors) > len(shown) + refused:
            click.echo(f"  … and {len(report.errors) - len(shown) - refused} more", err=True)
    if refused:
        sys.exit(EXIT_ERROR)


@cli.command()
@click.option("--keep", default=None, metavar="PATH", help="Keep the demo store at PATH instead of a temp file.")
@click.pass_obj
def demo(obj: _Ctx, keep: str | None) -> None:
    """Walk a temporary store through supersede and two-clock scenarios (Chinese and English)."""
    from hlmem.adapters.cli.demo import run_demo

    run_demo(keep=keep, embedder=obj.embedder, echo=click.echo, settings=obj.loaded.settings)


def main() -> None:
    """Console-script entry point: a bug still ends in one line (``HLMEM_DEBUG=1`` shows the traceback)."""
    sys.exit(run_line())
