"""``hlmem doctor``: every check in order, on a store it never writes to (ADR 0035, docs/operations.md).

The store is read on a read-only connection; what must write (the full-text check, the replay)
runs on a private copy in a temporary directory, removed afterwards. A store that does not
exist yet is a ``fail`` of the ``store`` check and nothing is created; the checks that need a
store are then left out, the others (versions, disk, secrets, plugins, ``--live``) still run.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import apsw

from hlmem.adapters.ops import environment, live, store_checks
from hlmem.adapters.ops.checks import FAIL, OK, WARN, Check, plugin_check
from hlmem.adapters.ops.snapshot import copy_to, existing_dir, file_bytes, open_readonly
from hlmem.domain.errors import HlmemError
from hlmem.plugins.registry import Registry

#: The private copy and the store its replay builds need about this many times the store's bytes.
COPY_ROOM = 2.2


def run_doctor(path: str | Path, settings: Any, *, now: datetime, environ: Mapping[str, str],
               embedder: str | None = None, is_live: bool = False,
               plugins: Registry | None = None, store_named: bool = True,
               replay_seconds: float = store_checks.REPLAY_SECONDS, disk_usage: Callable[[Path], Any] | None = None,
               transport: Any = None) -> list[Check]:
    """Run every check and return them in order (docs/operations.md lists each one).

    :param settings: the effective :class:`hlmem.adapters.settings.Settings`.
    :param environ: where API key variables are looked up (only their presence is reported).
    :param embedder: the embedder chosen on the command line (else the settings', else the
        store's, else the best installed one, as ``Memory`` chooses).
    :param is_live: also send one minimal request to each configured provider.
    :param store_named: ``path`` was named (``--db``, ``HLMEM_DB``, ``db`` in the config file), so
        no store there fails; the default path without a store (a fresh installation) warns.
    :param plugins: the plugin registry (its rows and start-up check make the ``plugins`` check);
        None: no ``plugins`` check.
    :param disk_usage: ``shutil.disk_usage`` unless a test gives another (for the store's folder
        and the temporary directory the copy goes to).
    :param transport: an httpx transport for the live probes (tests); None: the network.
    """
    store = Path(path).expanduser()
    usage = disk_usage or shutil.disk_usage
    checks: list[Check] = []
    name = (embedder or settings.embedder or "").strip().lower() or None
    on_postgres = str(path).startswith(("postgresql://", "postgres://"))
    if on_postgres:
        # The store checks read a SQLite file read-only (ADR 0035); a PostgreSQL store has none.
        store = Path(tempfile.gettempdir())
        checks.append(Check("store", WARN, "the store is a PostgreSQL database: the store checks read a SQLite "
                            "file and were not run", "check it with `hlmem replay --verify` (docs/postgres.md)"))
        # Its workers beat in the database (ADR 0074): that check reads it without opening the store.
        checks.append(_guarded("worker", store_checks.postgres_worker, str(path), now))
    elif store.exists():
        store_checks_run = _store(store, settings, name, now=now, replay_seconds=replay_seconds, usage=usage)
        name = store_checks_run[0]
        checks += store_checks_run[1]
        checks.append(store_checks.temporaries(store))
    else:
        # A path someone named (--db, HLMEM_DB, the file's db) that holds nothing is likely a typo;
        # the default path without a store is a fresh installation.
        checks.append(Check("store", FAIL if store_named else WARN,
                            f"no store at {store} (nothing was created); the store checks were not run",
                            "point --db (or HLMEM_DB, or db in hlmem.toml) at your store; a new one is created by "
                            "the first write (`hlmem add …`)"))
    checks.insert(0, environment.versions(name or _default_embedder()))
    checks.append(environment.disk_space(existing_dir(store), usage=usage))
    providers, bad = environment.configured_providers(settings)
    checks += bad
    checks.append(environment.secrets_present(providers, environ))
    if plugins is not None:
        checks.append(plugin_check(plugins))
    if is_live:
        checks += _live(settings, environ, transport)
    return checks


def _store(store: Path, settings: Any, name: str | None, *, now: datetime, replay_seconds: float,
           usage: Callable[[Path], Any]) -> tuple[str, list[Check]]:
    """The checks that read the store; returns the embedder name they settled on too."""
    try:
        con = open_readonly(store)
    except HlmemError as exc:
        return name or _default_embedder(), [Check("store", FAIL, str(exc), store_checks._RESTORE)]
    try:
        opened = _guarded("store", store_checks.store_opens, store, con)
        if opened.status == FAIL:
            return name or _default_embedder(), [opened]
        checks = [opened, _guarded("migrations", store_checks.migrations_current, con)]
        try:
            name = name or _meta(con, "embedder_name") or _default_embedder()
        except apsw.Error:
            name = _default_embedder()
        checks.append(_guarded("embedder", store_checks.embedder_matches, con, name, _model))
        checks.append(_guarded("worker", store_checks.worker_heartbeat, con, now))
        scratch = Path(tempfile.gettempdir())
        needed = int(COPY_ROOM * sum(file_bytes(store).values()))
        free = usage(scratch).free
        if free < needed:
            action = f"free space in {scratch}, or point TMPDIR at a file system with room, and run the doctor again"
            detail = f"not run: a private copy and its replay need about {needed >> 20} MiB, {free >> 20} MiB free in {scratch}"
            return name, checks + [Check("integrity", WARN, detail, action), Check("replay", WARN, detail, action)]
        with tempfile.TemporaryDirectory(prefix="hlmem-doctor-") as tmp:
            try:
                copy = copy_to(con, Path(tmp) / "copy.db")
            except apsw.Error as exc:
                checks.append(Check("integrity", FAIL, f"{store} cannot be copied: {exc}", store_checks._RESTORE))
            else:
                checks += _on_copy(copy, store, settings, name, replay_seconds)
        return name, checks
    finally:
        con.close()


def _guarded(name: str, check: Callable[..., Check], *args: Any) -> Check:
    """Run one check; a store that cannot be read where it looks is that check's failure (the
    other checks still run), never an error of the whole command."""
    try:
        return check(*args)
    except (apsw.Error, HlmemError) as exc:
        return Check(name, FAIL, f"cannot be checked: {exc}", store_checks._RESTORE)


def _on_copy(copy: Path, store: Path, settings: Any, name: str, replay_seconds: float) -> list[Check]:
    """The checks that write, on the private copy: integrity (FTS5's check), then the replay."""
    from hlmem.adapters.memory_api import Memory
    from hlmem.adapters.sqlite.connection import open_connection

    try:
        con = open_connection(copy)  # writable: FTS5's integrity-check is an INSERT
    except HlmemError as exc:
        return [Check("integrity", FAIL, f"the copy does not open: {exc}", store_checks._RESTORE)]
    try:
        checked = store_checks.integrity(con, copy, store)
        if checked.status == FAIL:
            return [checked]
        total = con.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()[0]
    finally:
        con.close()
    try:
        mem = Memory(copy, embedder=name, settings=settings, llm="none", rerank="none", synchronous="OFF")
    except HlmemError as exc:
        return [checked, Check("replay", FAIL, f"the copy does not open: {exc}", store_checks._RESTORE)]
    try:
        replayed = store_checks.replay_copy(lambda progress: mem.replay(progress=progress), total,
                                            seconds=replay_seconds)
    finally:
        mem.close()
    return [checked, replayed]


def _live(settings: Any, environ: Mapping[str, str], transport: Any) -> list[Check]:
    from hlmem.adapters.llm.presets import LLMConfig
    from hlmem.adapters.rerank.config import RerankConfig

    out = []
    llm = environment.provider_config(settings, "llm", LLMConfig)
    if isinstance(llm, environment.PluginProvider):
        out.append(live.plugin_reachable("llm", llm.provider, settings, environ))
    elif llm is not None and not isinstance(llm, HlmemError):
        out.append(live.llm_reachable(llm, environ, transport=transport))
    rerank = environment.provider_config(settings, "rerank", RerankConfig)
    if isinstance(rerank, environment.PluginProvider):
        out.append(live.plugin_reachable("reranker", rerank.provider, settings, environ))
    elif rerank is not None and not isinstance(rerank, HlmemError):
        out.append(live.reranker_reachable(rerank, environ, transport=transport))
    if not out:
        out.append(Check("live", OK, "--live: no LLM or reranker configured, nothing to reach"))
    return out


def _meta(con: Any, key: str) -> str | None:
    if con.execute("SELECT 1 FROM sqlite_schema WHERE name = 'meta'").fetchone() is None:
        return None
    row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def _default_embedder() -> str:
    from hlmem.adapters.embedders.select import default_embedder_name

    return default_embedder_name()


def _model(name: str) -> tuple[str, int]:
    from hlmem.adapters.embedders.select import make_embedder

    embedder = make_embedder(name)
    return embedder.model_id, embedder.dim
