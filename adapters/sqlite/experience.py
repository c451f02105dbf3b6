"""``SQLiteExperience``: the experience projection in the store's file (migrations ``0015_experience``,
``0019_experience_counts``).

The store calls :meth:`project` for every event it appends and :meth:`flush` before the
append's transaction ends, like its own projector: the state is loaded, reduced by
:func:`hlmem.domain.experience_reducers.reduce_experience` and written back, as JSON through
the event converter (``adapters/serialization.py``), with the columns the reads filter on. The
outcome counts and the policies' support links (ADR 0071) change row by row as each event is
projected, in the same transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from hlmem.adapters.serialization import converter
from hlmem.adapters.sqlite.db import Db, translated
from hlmem.domain.events import DomainEvent
from hlmem.domain.experience_counts import (
    Counts,
    SupportChange,
    complete_support_forgotten,
    count_changes,
    support_change,
)
from hlmem.domain.experience_events import PolicySupportForgotten
from hlmem.domain.experience_reducers import reduce_experience, touches_experience
from hlmem.domain.experience_state import EpisodeOutcome, EpisodeState, PolicyState, ProcedureState

_TABLES = {"ep_": ("episodes", "episode_id", EpisodeState), "po_": ("policies", "policy_id", PolicyState),
           "pd_": ("procedures", "procedure_id", ProcedureState)}


def _encode(state: object) -> str:
    return json.dumps(converter.unstructure(state), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class SQLiteExperience:
    """Episodes, policies and procedures on the store's connection; writes join its transaction."""

    def __init__(self, db: Db) -> None:
        self._db = db
        self._cache: dict[str, object] = {}
        self._dirty: set[str] = set()

    def reset(self) -> None:
        """Forget cached states (the store calls it at every transaction's end)."""
        self._cache.clear()
        self._dirty.clear()

    def project(self, event: DomainEvent) -> None:
        """Apply one event inside the caller's write transaction (others are ignored)."""
        if not touches_experience(event):
            return
        sid = event.stream_id
        if isinstance(event, PolicySupportForgotten):
            event = complete_support_forgotten(event, self._links([sid]).get(sid, {}))
        if sid not in self._cache:
            self._cache[sid] = None if event.version == 1 else self._load([sid]).get(sid)
        before = self._cache[sid]
        state = reduce_experience(before, event)
        if state is not None:
            self._cache[sid] = state
            self._dirty.add(sid)
        if sid.startswith("ep_"):
            self._count(count_changes(before, state))  # type: ignore[arg-type]
        change = support_change(event)
        if change is not None:
            self._link(change)

    def _count(self, changes: dict) -> None:
        con = self._db.con
        for (namespace, signature, approach), (ds, df) in sorted(changes.items()):
            con.execute("INSERT INTO experience_counts (namespace, signature, approach, successes, failures) "
                        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET successes = successes + excluded.successes, "
                        "failures = failures + excluded.failures", (namespace, signature, approach, ds, df))
            if ds < 0 or df < 0:
                con.execute("DELETE FROM experience_counts WHERE namespace = ? AND signature = ? AND approach = ? "
                            "AND successes = 0 AND failures = 0", (namespace, signature, approach))

    def _link(self, change: SupportChange) -> None:
        con, pid = self._db.con, change.policy_id
        if change.replace:
            con.execute("DELETE FROM policy_links WHERE policy_id = ?", (pid,))
        for episode_id in change.remove:
            con.execute("DELETE FROM policy_links WHERE policy_id = ? AND episode_id = ?", (pid, episode_id))
        if change.add:
            last = con.execute("SELECT max(seq) FROM policy_links WHERE policy_id = ?", (pid,)).fetchone()[0] or 0
            con.executemany("INSERT OR IGNORE INTO policy_links (policy_id, seq, episode_id, succeeded) "
                            "VALUES (?, ?, ?, ?)", [(pid, last + i, e, int(ok)) for i, (e, ok) in enumerate(change.add, 1)])

    def _links(self, policy_ids: Sequence[str]) -> dict[str, dict[str, bool]]:
        out: dict[str, dict[str, bool]] = {}
        ids = list(dict.fromkeys(policy_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for pid, episode_id, ok in self._db.con.execute(
                    f"SELECT policy_id, episode_id, succeeded FROM policy_links WHERE policy_id IN ({marks}) "
                    "ORDER BY policy_id, seq", chunk):
                out.setdefault(pid, {})[episode_id] = bool(ok)
        return out

    def flush(self) -> None:
        """Write every state changed since the last flush."""
        con = self._db.con
        for sid in sorted(self._dirty):
            state = self._cache[sid]
            if isinstance(state, EpisodeState):
                con.execute("INSERT OR REPLACE INTO episodes (episode_id, namespace, signature, status, state) "
                            "VALUES (?,?,?,?,?)", (sid, state.namespace, state.signature, state.status,
                                                   _encode(state)))
            elif isinstance(state, PolicyState):
                con.execute("INSERT OR REPLACE INTO policies (policy_id, namespace, signature, status, state) "
                            "VALUES (?,?,?,?,?)", (sid, state.namespace, state.signature, state.status,
                                                   _encode(state)))
            elif isinstance(state, ProcedureState):
                con.execute("INSERT OR REPLACE INTO procedures (procedure_id, namespace, policy_id, source_episode, "
                            "status, state) VALUES (?,?,?,?,?,?)", (sid, state.namespace, state.policy_id,
                                                                    state.source_episode, state.status,
                                                                    _encode(state)))
        self._dirty.clear()

    def _load(self, ids: Sequence[str]) -> dict[str, object]:
        out: dict[str, object] = {}
        for prefix, (table, key, cls) in _TABLES.items():
            wanted = [i for i in dict.fromkeys(ids) if i.startswith(prefix)]
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for sid, text in self._db.con.execute(f"SELECT {key}, state FROM {table} WHERE {key} IN ({marks})",
                                                      chunk):
                    out[sid] = converter.structure(json.loads(text), cls)
        return out

    def _read(self, ids: Sequence[str]) -> dict[str, object]:
        with self._db.lock, translated("reading the experience projection"):
            return self._load(ids)

    def _select(self, table: str, cls: type, where: str, args: Sequence) -> list:
        with self._db.lock, translated("reading the experience projection"):
            rows = self._db.con.execute(f"SELECT state FROM {table} WHERE {where}", tuple(args)).fetchall()
        return [converter.structure(json.loads(r[0]), cls) for r in rows]

    def counts(self) -> dict[str, int]:
        """Projected rows per table."""
        with self._db.lock:
            return {t: self._db.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                    for t in ("episodes", "policies", "procedures")}

    # -- ExperienceReader -------------------------------------------------------------------------

    def get_episodes(self, ids: Sequence[str]) -> dict[str, EpisodeState]:
        return {i: s for i, s in self._read([i for i in ids if i.startswith("ep_")]).items()}

    def episodes(self, namespace: str, *, status: str | None = None, signature: str | None = None,
                 after: str | None = None, limit: int = 100) -> list[EpisodeState]:
        where, args = ["namespace = ?"], [namespace]
        if status is not None:
            where.append("status = ?")
            args.append(status)
        else:
            where.append("status != 'forgotten'")
        if signature is not None:
            where.append("signature = ?")
            args.append(signature)
        if after is not None:
            where.append("episode_id > ?")
            args.append(after)
        args.append(max(limit, 0))
        return self._select("episodes", EpisodeState, " AND ".join(where) + " ORDER BY episode_id LIMIT ?", args)

    def get_policies(self, ids: Sequence[str]) -> dict[str, PolicyState]:
        return {i: s for i, s in self._read([i for i in ids if i.startswith("po_")]).items()}

    def policies(self, namespace: str, *, status: str | None = None,
                 signature: str | None = None) -> list[PolicyState]:
        where, args = ["namespace = ?"], [namespace]
        where.append("status = ?" if status is not None else "status != 'forgotten'")
        if status is not None:
            args.append(status)
        if signature is not None:
            where.append("signature = ?")
            args.append(signature)
        return self._select("policies", PolicyState, " AND ".join(where) + " ORDER BY policy_id", args)

    def policies_citing(self, episode_ids: Sequence[str]) -> list[PolicyState]:
        ids = list(dict.fromkeys(episode_ids))
        found: set[str] = set()
        with self._db.lock, translated("reading the experience projection"):
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(r[0] for r in self._db.con.execute(
                    f"SELECT policy_id FROM policy_links WHERE episode_id IN ({marks})", chunk))
        states = self.get_policies(sorted(found))
        return [states[p] for p in sorted(states) if states[p].status != "forgotten"]

    def get_procedures(self, ids: Sequence[str]) -> dict[str, ProcedureState]:
        return {i: s for i, s in self._read([i for i in ids if i.startswith("pd_")]).items()}

    def procedures(self, namespace: str, *, status: str | None = None) -> list[ProcedureState]:
        where = "namespace = ? AND " + ("status = ?" if status is not None else "status != 'forgotten'")
        args = [namespace] + ([status] if status is not None else [])
        return self._select("procedures", ProcedureState, where + " ORDER BY procedure_id", args)

    def procedures_of(self, policy_ids: Sequence[str], episode_ids: Sequence[str] = ()) -> list[ProcedureState]:
        out: dict[str, ProcedureState] = {}
        for column, ids in (("policy_id", list(dict.fromkeys(policy_ids))),
                            ("source_episode", list(dict.fromkeys(episode_ids)))):
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for p in self._select("procedures", ProcedureState,
                                      f"{column} IN ({marks}) AND status != 'forgotten'", chunk):
                    out[p.procedure_id] = p
        return [out[p] for p in sorted(out)]

    def support_of(self, policy_ids: Sequence[str]) -> dict[str, dict[str, bool]]:
        with self._db.lock, translated("reading the experience projection"):
            return self._links(policy_ids)

    def outcomes(self, namespace: str, signature: str, *, approach: str | None = None) -> list[EpisodeOutcome]:
        # Two fields of each state, read by SQLite's JSON functions: no trace is decoded in Python.
        # Stored timestamps are fixed-width UTC text, so they sort as the instants do.
        with self._db.lock, translated("reading the experience projection"):
            rows = self._db.con.execute(
                "SELECT episode_id, approach, status FROM (SELECT episode_id, status, json_extract(state, "
                "'$.approach') AS approach, json_extract(state, '$.ended_at') AS ended FROM episodes "
                "WHERE namespace = ?1 AND signature = ?2 AND status IN ('succeeded', 'failed')) "
                "WHERE approach != '' AND (?3 IS NULL OR approach = ?3) ORDER BY ended, episode_id",
                (namespace, signature, approach)).fetchall()
        return [EpisodeOutcome(e, a, s == "succeeded") for e, a, s in rows]

    def approach_counts(self, namespace: str, signature: str) -> dict[str, Counts]:
        with self._db.lock, translated("reading the experience projection"):
            rows = self._db.con.execute(
                "SELECT approach, successes, failures FROM experience_counts WHERE namespace = ? AND signature = ? "
                "ORDER BY approach", (namespace, signature)).fetchall()
        return {a: Counts(s, f) for a, s, f in rows}

    def situation_counts(self, namespace: str) -> dict[str, dict[str, Counts]]:
        out: dict[str, dict[str, Counts]] = {}
        with self._db.lock, translated("reading the experience projection"):
            for sig, a, s, f in self._db.con.execute(
                    "SELECT signature, approach, successes, failures FROM experience_counts WHERE namespace = ? "
                    "ORDER BY signature, approach", (namespace,)):
                out.setdefault(sig, {})[a] = Counts(s, f)
        return out

    def signatures(self, namespace: str) -> list[str]:
        with self._db.lock, translated("reading the experience projection"):
            return [r[0] for r in self._db.con.execute(
                "SELECT DISTINCT signature FROM episodes WHERE namespace = ? AND status NOT IN ('running', "
                "'forgotten') ORDER BY signature", (namespace,))]
