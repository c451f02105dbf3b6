"""``hlmem ops report``: what the store's operational tables say about a period (ADR 0035).

Read on a read-only connection (nothing is written, and a store that does not exist reports
zeros without being created). The JSON shape is stable and documented in docs/operations.md;
``report_dict`` builds it, ``cli/ops_commands.py`` renders it as tables.

The budget (ADR 0034): ``providers[].items`` (embedding items, rerank documents) and
``providers[].cost`` come from the ``llm_calls`` columns of migration 0013 (``null`` on a store
from before it: :func:`_budget_columns`); ``budget`` is today's spending and open reservations
against the configured limits (:func:`budget_today`), and :func:`budget_warnings` turns it into
``budget_near_limit`` and ``unknown_cost`` warnings.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import apsw

from hlmem.adapters.ops.environment import DISK_WARN_BYTES
from hlmem.adapters.ops.report_packets import packets
from hlmem.adapters.ops.snapshot import dir_bytes, existing_dir, file_bytes, open_readonly
from hlmem.adapters.ops.store_checks import STALE_AFTER, beat_state
from hlmem.adapters.postgres.budget import PostgresBudgetLedger
from hlmem.adapters.postgres.db import connect, is_postgres_url, shown_store, translated
from hlmem.adapters.postgres.heartbeat import READ_BEATS, beats_from_rows
from hlmem.adapters.sqlite.heartbeat import read_beats
from hlmem.domain.budget import BudgetLimits
from hlmem.domain.errors import ValidationError
from hlmem.domain.time import format_timestamp, from_micros, parse_timestamp, to_micros

#: The JSON shape's version: bumped only when a field changes meaning or goes away.
REPORT_VERSION = 1
#: Error share of a provider/model's attempts above which the report warns (at 5 attempts or more).
ERROR_SHARE = 0.2
#: Share of a daily budget limit at which the report warns that the budget is near its limit.
BUDGET_NEAR = 0.8
DEFAULT_SINCE = timedelta(hours=24)
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
DEAD_SHOWN = 20
#: Every job state, each always present in ``jobs.counts`` (0 when none).
JOB_STATES = ("pending", "running", "failed", "succeeded", "dead")


def parse_since(text: str | None, now: datetime) -> datetime:
    """``--since``: a duration back from ``now`` (``90m``, ``24h``, ``7d``, ``2w``) or a timestamp.

    :raises ValidationError: neither, or a time after ``now``.
    """
    if text is None:
        return now - DEFAULT_SINCE
    if m := _DURATION.match(text):
        return now - timedelta(seconds=float(m[1]) * _UNITS[m[2]])
    try:
        since = parse_timestamp(text, field="since")
    except ValidationError:
        raise ValidationError(f"--since must be a duration such as 90m, 24h, 7d, 2w or an ISO 8601 timestamp, "
                              f"not {text!r}", field="since") from None
    if since > now:
        raise ValidationError(f"--since {text} is after now ({format_timestamp(now)})", field="since")
    return since


def report_dict(path: str | Path, *, now: datetime, since: datetime, backups: str | Path | None = None,
                limits: BudgetLimits | None = None, priced: bool = False, disk_usage: Callable[[Path], Any] = shutil.disk_usage,
                stale_after: timedelta = STALE_AFTER) -> dict[str, Any]:
    """The report of the store at ``path`` for [``since``, ``now``] (docs/operations.md, "ops report").

    :param backups: a directory of backups whose files are counted in ``storage``.
    :param limits: the configured daily limits (ADR 0034); the ``budget`` section shows today's
        spending against them (``limit`` null where none is set), or is null when the store has no
        budget table.
    :param priced: a price book is configured: successful calls without a cost are a warning
        (their model has no rate), not the expected state of a store without prices.
    """
    store = Path(path).expanduser()
    out: dict[str, Any] = {"version": REPORT_VERSION, "store": shown_store(str(path)), "exists": store.exists(),
                           "since": format_timestamp(since), "now": format_timestamp(now), "priced": priced}
    out["storage"] = storage(store, backups)  # before opening: what was there, not what a reader adds
    if is_postgres_url(str(path)):
        # The database's shared tables (ADR 0074): every process's calls, jobs, beats and budget.
        out["exists"] = True
        found = postgres_sections(str(path), now=now, since=since, limits=limits or BudgetLimits(), stale_after=stale_after)
        budget = found.pop("budget")
        out.update(found)
        return _finish(out, budget, store, disk_usage)
    con = open_readonly(store) if store.exists() else None
    budget = None
    try:
        out["providers"] = providers(con, since, now) if con else []
        out["jobs"] = jobs(con, now) if con else _no_jobs()
        out["worker"] = worker(con, now, stale_after) if con else None
        out["conflicts"] = {"open": _scalar(con, "SELECT count(*) FROM conflicts WHERE status = 'open'", "conflicts")}
        out["embeddings"] = embeddings(con) if con else []
        out["packets"] = packets(con, since, now)  # context packets served and what they saved (ADR 0061)
        if con is not None:
            budget = budget_today(con, now, limits or BudgetLimits())
    finally:
        if con is not None:
            con.close()
    return _finish(out, budget, store, disk_usage)


def _finish(out: dict[str, Any], budget: Mapping[str, Any] | None, store: Path,
            disk_usage: Callable[[Path], Any]) -> dict[str, Any]:
    out["disk_free_bytes"] = disk_usage(existing_dir(store)).free
    out["budget"] = dict(budget) if budget is not None else None
    out["warnings"] = warnings(out) + budget_warnings(budget)
    return out


def providers(con: apsw.Connection, since: datetime, now: datetime) -> list[dict[str, Any]]:
    """Per provider, model and operation: attempts, logical calls, successes, errors by status,
    tokens in and out, latency p50/p95 (ms) of the attempts recorded in the period."""
    if not _has(con, "llm_calls"):
        return []
    extra = _budget_columns(con)
    rows = con.execute(
        f"SELECT {CALL_COLUMNS}{''.join(', ' + c for c in extra)} FROM llm_calls "
        f"WHERE created_at >= ? AND created_at <= ? ORDER BY seq",
        (format_timestamp(since), format_timestamp(now))).fetchall()
    return provider_entries(rows, extra)


#: What :func:`provider_entries` reads of each ``llm_calls`` row, before the budget columns.
CALL_COLUMNS = "provider, model, operation, call_id, status, prompt_tokens, completion_tokens, latency_ms"


def provider_entries(rows: list[tuple], extra: list[str]) -> list[dict[str, Any]]:
    """The ``providers`` section from the period's ``llm_calls`` rows (:data:`CALL_COLUMNS`, then
    the budget columns named in ``extra``), in recording order."""
    groups: dict[tuple[str, str, str], list[tuple]] = {}
    for row in rows:
        groups.setdefault((row[0], row[1], row[2]), []).append(row)
    out = []
    for (provider, model, operation), rs in sorted(groups.items()):
        errors: dict[str, int] = {}
        for r in rs:
            if r[4] != "ok":
                errors[r[4]] = errors.get(r[4], 0) + 1
        latencies = sorted(r[7] for r in rs)
        entry = {"provider": provider, "model": model, "operation": operation, "requests": len(rs),
                 "calls": len({r[3] for r in rs}), "successes": sum(r[4] == "ok" for r in rs),
                 "errors": dict(sorted(errors.items())),
                 "tokens_in": sum(r[5] or 0 for r in rs), "tokens_out": sum(r[6] or 0 for r in rs),
                 "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
                 # Filled from the budget columns when they exist (ADR 0034); null: not recorded.
                 "capability": None, "items": None, "cost": None, "unknown_cost": None}
        if extra:
            _fill_budget(entry, rs, extra)
        out.append(entry)
    return out


def _budget_columns(con: apsw.Connection) -> list[str]:
    """Which of the budget work's ``llm_calls`` columns this store has (capability, items, cost)."""
    have = {r[1] for r in con.execute("PRAGMA table_info(llm_calls)")}
    return [c for c in ("capability", "items", "cost") if c in have]


def _fill_budget(entry: dict[str, Any], rows: list[tuple], extra: list[str]) -> None:
    at = {name: 8 + i for i, name in enumerate(extra)}
    if "capability" in at:
        entry["capability"] = ", ".join(sorted({str(r[at["capability"]]) for r in rows if r[at["capability"]]})) or None
    if "items" in at:  # null when no attempt counted items (chat)
        counted = [r[at["items"]] for r in rows if r[at["items"]] is not None]
        entry["items"] = sum(counted) if counted else None
    if "cost" in at:  # the known costs' sum (null: none known) and the successful attempts without one
        known = [r[at["cost"]] for r in rows if r[at["cost"]] is not None]
        entry["cost"] = sum(known) if known else None
        entry["unknown_cost"] = sum(r[4] == "ok" and r[at["cost"]] is None for r in rows)


def embeddings(con: apsw.Connection) -> list[dict[str, Any]]:
    """Passage embeddings kept in the store, per model (all time: the cache has no dates). A local
    embedder makes no provider calls, so this is where its work shows."""
    if not _has(con, "embedding_cache"):
        return []
    rows = con.execute("SELECT model, count(*) FROM embedding_cache GROUP BY model ORDER BY model")
    return [{"model": model, "passages": n} for model, n in rows]


def percentile(values: list[int], pct: int) -> int | None:
    """The nearest-rank percentile of sorted ``values`` (None for none)."""
    if not values:
        return None
    rank = max(1, -(-pct * len(values) // 100))  # ceil(pct/100 * n)
    return values[rank - 1]


def jobs(con: apsw.Connection, now: datetime) -> dict[str, Any]:
    """Jobs now (not only the period's): counts by state, the oldest pending one's age, the dead ones."""
    if not _has(con, "jobs"):
        return _no_jobs()
    return jobs_from(con.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall(),
                     con.execute("SELECT min(created_at) FROM jobs WHERE state = 'pending'").fetchone()[0],
                     con.execute(DEAD_JOBS.replace("%s", "?"), (DEAD_SHOWN,)).fetchall(), now)


#: The dead jobs shown, newest first (``%s``: how many).
DEAD_JOBS = ("SELECT job_id, kind, attempts, last_error_class, last_error, updated_at FROM jobs "
             "WHERE state = 'dead' ORDER BY updated_at DESC LIMIT %s")


def jobs_from(count_rows: list[tuple], oldest: int | None, dead_rows: list[tuple], now: datetime) -> dict[str, Any]:
    """The ``jobs`` section from the counts by state, the oldest pending job's creation (µs) and
    the :data:`DEAD_JOBS` rows."""
    counts = dict.fromkeys(JOB_STATES, 0)
    counts.update(count_rows)
    dead = [{"id": r[0], "kind": r[1], "attempts": r[2], "error_class": r[3], "error": r[4],
             "updated_at": format_timestamp(from_micros(r[5]))} for r in dead_rows]
    age = None if oldest is None else max(0.0, (to_micros(now) - oldest) / 1e6)
    return {"counts": counts, "total": sum(counts.values()), "oldest_pending_age_s": age, "dead": dead}


def worker(con: apsw.Connection, now: datetime, stale_after: timedelta) -> dict[str, Any] | None:
    """The newest heartbeat, with ``freshness`` fresh/stale/stopped (None: no worker ever beat)."""
    return worker_from(read_beats(con), now, stale_after)


def worker_from(beats: list, now: datetime, stale_after: timedelta) -> dict[str, Any] | None:
    """The ``worker`` section from every worker's beat (None: no worker ever beat)."""
    if not beats:
        return None
    freshness, age, b = beat_state(beats, now, stale_after)
    return {"owner": b.owner, "pid": b.pid, "host": b.host, "state": b.state, "freshness": freshness,
            "started_at": format_timestamp(b.started_at), "last_beat": format_timestamp(b.last_beat),
            "age_s": age.total_seconds(), "jobs_done": b.jobs_done, "last_error": b.last_error,
            "workers_seen": len(beats)}


def storage(store: Path, backups: str | Path | None) -> dict[str, Any]:
    """Bytes of the store's files, and of the backups directory when one is given."""
    out: dict[str, Any] = dict(file_bytes(store))
    out["backups"] = None
    if backups is not None:
        folder = Path(backups).expanduser()
        if not folder.is_dir():
            raise ValidationError(f"--backups {folder} is not a directory", field="backups")
        files, total = dir_bytes(folder)
        out["backups"] = {"path": str(folder), "files": files, "bytes": total}
    out["total"] = out["db"] + out["wal"] + out["shm"] + (out["backups"]["bytes"] if out["backups"] else 0)
    return out


def warnings(report: Mapping[str, Any]) -> list[dict[str, str]]:
    """What needs attention: worker inactive with jobs pending, dead jobs, errors over
    :data:`ERROR_SHARE`, calls of unknown cost while a price book is configured (``priced``), low disk. Each is ``{"code", "message"}`` (codes in docs/operations.md)."""
    out = []
    counts = report["jobs"]["counts"]
    waiting = counts.get("pending", 0) + counts.get("failed", 0)
    w = report["worker"]
    if waiting and (w is None or w["freshness"] != "fresh"):
        seen = "no worker has run" if w is None else f"the worker is {w['freshness']} (last beat {w['last_beat']})"
        out.append({"code": "worker_inactive", "message": f"{waiting} jobs wait and {seen}: start `hlmem worker`"})
    if counts.get("dead"):
        out.append({"code": "dead_jobs", "message": f"{counts['dead']} dead jobs: read their errors, then "
                                                    "`hlmem jobs retry ID`"})
    for p in report["providers"]:
        failed = p["requests"] - p["successes"]
        if p["requests"] >= 5 and failed / p["requests"] > ERROR_SHARE:
            out.append({"code": "provider_errors",
                        "message": f"{p['provider']}:{p['model']} {p['operation']}: {failed} of {p['requests']} "
                                   f"requests failed ({', '.join(f'{k} {v}' for k, v in p['errors'].items())})"})
        if p["unknown_cost"] and report.get("priced"):  # without a price book every cost is unknown by choice
            out.append({"code": "unknown_cost", "message": f"{p['provider']}:{p['model']}: {p['unknown_cost']} "
                                                           "calls of unknown cost (no price in the price book)"})
    if report["disk_free_bytes"] < DISK_WARN_BYTES:
        out.append({"code": "disk_low", "message": f"{report['disk_free_bytes'] >> 20} MiB free next to the store"})
    return out


def budget_today(con: apsw.Connection, now: datetime, limits: BudgetLimits) -> dict[str, Any] | None:
    """Today's budget (UTC day) from ``budget_reservations``: for requests, tokens and cost the
    ``used`` amount (settled spending plus open reservations, what the next reservation is checked
    against), its ``spent`` and ``reserved`` parts and the ``limit``; ``unknown_cost`` (charges of
    unknown cost today), ``resets_at`` and ``next_expiry``. None when the store has no budget table."""
    if not _has(con, "budget_reservations"):
        return None
    from hlmem.adapters.sqlite.budget import SQLiteBudgetLedger

    return budget_from(SQLiteBudgetLedger(con).totals(now=now, limits=limits), limits)


def budget_from(t: Any, limits: BudgetLimits) -> dict[str, Any]:
    """The ``budget`` section from a ledger's ``BudgetTotals`` of today."""
    caps = {"requests": limits.requests_per_day, "tokens": limits.tokens_per_day, "cost": limits.cost_per_day}
    out: dict[str, Any] = {"day": t.day.isoformat()}
    for kind, limit in caps.items():
        spent, reserved = getattr(t.spent, kind), getattr(t.reserved, kind)
        out[kind] = {"used": spent + reserved, "spent": spent, "reserved": reserved, "limit": limit}
    out["unknown_cost"] = t.spent.unknown_cost + t.reserved.unknown_cost
    out["resets_at"] = format_timestamp(t.resets_at)
    out["next_expiry"] = None if t.next_expiry is None else format_timestamp(t.next_expiry)
    return out


def budget_warnings(budget: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """Warnings from the budget ledger's summary of today (the budget work, ADR 0034, feeds it):
    ``budget_near_limit`` for each of requests, tokens and cost at :data:`BUDGET_NEAR` of its
    limit or more, ``unknown_cost`` when calls of unknown cost were made today."""
    if not budget:
        return []
    out = []
    for kind in ("requests", "tokens", "cost"):
        item = budget.get(kind) or {}
        used, limit = item.get("used"), item.get("limit")
        if used is not None and limit and used >= BUDGET_NEAR * limit:
            out.append({"code": "budget_near_limit", "message": f"{kind} today: {used} of {limit} "
                                                                f"({used / limit:.0%}); calls are refused at the limit"})
    if budget.get("unknown_cost"):
        out.append({"code": "unknown_cost", "message": f"{budget['unknown_cost']} calls of unknown cost today"})
    return out


def _no_jobs() -> dict[str, Any]:
    return {"counts": dict.fromkeys(JOB_STATES, 0), "total": 0, "oldest_pending_age_s": None, "dead": []}


def _has(con: apsw.Connection, name: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_schema WHERE name = ?", (name,)).fetchone() is not None


def _scalar(con: apsw.Connection | None, sql: str, table: str) -> int:
    return con.execute(sql).fetchone()[0] if con is not None and _has(con, table) else 0


# -- a PostgreSQL store (ADR 0074) ------------------------------------------------------------------
# Every process of the store records its calls, beats and reservations in the database (layout 5),
# so the report covers them all; read in one read-only snapshot without opening (or upgrading) the
# store. A table the database lacks reads as empty; packets are not kept on PostgreSQL (ADR 0061).

_TABLES = ("llm_calls", "jobs", "worker_heartbeats", "conflicts", "embedding_cache", "budget_reservations")


def postgres_sections(url: str, *, now: datetime, since: datetime, limits: BudgetLimits,
             stale_after: timedelta) -> dict[str, Any]:
    """``providers``, ``jobs``, ``worker``, ``conflicts``, ``embeddings``, ``packets`` and ``budget``.

    :raises StorageError: the database cannot be reached or read.
    """
    con = connect(url)
    try:
        with translated("reading the store for the report"), con.transaction():
            con.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            have = {name for name in _TABLES
                    if con.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]}
            out: dict[str, Any] = {"providers": [], "jobs": _no_jobs(), "worker": None, "conflicts": {"open": 0},
                                   "embeddings": [], "packets": {"days": [], "total": _no_packets()}, "budget": None}
            if "llm_calls" in have:
                extra = ["capability", "items", "cost"]
                rows = con.execute(f"SELECT {CALL_COLUMNS}, {', '.join(extra)} FROM llm_calls WHERE created_at >= %s "
                                   "AND created_at <= %s ORDER BY seq",
                                   (format_timestamp(since), format_timestamp(now))).fetchall()
                out["providers"] = provider_entries([tuple(r) for r in rows], extra)
            if "jobs" in have:
                out["jobs"] = jobs_from(con.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall(),
                                        con.execute("SELECT min(created_at) FROM jobs WHERE state = 'pending'"
                                                    ).fetchone()[0],
                                        con.execute(DEAD_JOBS, (DEAD_SHOWN,)).fetchall(), now)
            if "worker_heartbeats" in have:
                out["worker"] = worker_from(beats_from_rows(con.execute(READ_BEATS).fetchall()), now, stale_after)
            if "conflicts" in have:
                out["conflicts"] = {"open": con.execute("SELECT count(*) FROM conflicts WHERE status = 'open'"
                                                        ).fetchone()[0]}
            if "embedding_cache" in have:
                out["embeddings"] = [{"model": m, "passages": n} for m, n in con.execute(
                    "SELECT model, count(*) FROM embedding_cache GROUP BY model ORDER BY model")]
            if "budget_reservations" in have:
                out["budget"] = budget_from(PostgresBudgetLedger.totals_on(con, now, limits), limits)
    finally:
        con.close()
    return out


def _no_packets() -> dict[str, Any]:
    return {"packets": 0, "tokens": 0, "tokens_mean": None, "history_tokens": 0, "history_tokens_mean": None,
            "saved_tokens": 0}
