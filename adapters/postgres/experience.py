"""``PostgresExperience``: the experience channel's projection on PostgreSQL (the ExperienceReader role, ADR 0045).

Episodes, policies and procedures are state documents (the event converter's JSON, as in
:mod:`.states`) with the columns the reads filter on; ``experience_counts`` holds each situation's
outcome counts per approach and ``policy_links`` each policy's support in the order counted
(ADR 0071; forget's cascade reads the links). The append folds the ``ep_``/``po_``/``pd_`` events
of its transaction through :func:`project` with the shared reducer
:func:`hlmem.domain.experience_reducers.reduce_experience` and the shared
:func:`~hlmem.domain.experience_counts.count_changes` / ``support_change``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hlmem.adapters.postgres.db import PgDb, translated
from hlmem.adapters.serialization import converter
from hlmem.domain.events import DomainEvent
from hlmem.domain.experience_counts import (
    Counts,
    SupportChange,
    complete_support_forgotten,
    count_changes,
    support_change,
)
from hlmem.domain.experience_events import PolicySupportForgotten
from hlmem.domain.experience_reducers import reduce_experience
from hlmem.domain.experience_state import EpisodeOutcome, EpisodeState, PolicyState, ProcedureState

if TYPE_CHECKING:
    import psycopg


_TABLES = {"ep_": ("episodes", "episode_id", EpisodeState), "po_": ("policies", "policy_id", PolicyState),
           "pd_": ("procedures", "procedure_id", ProcedureState)}


def _doc(state: object) -> str:
    return json.dumps(converter.unstructure(state), ensure_ascii=True, sort_keys=True, separators=(",", ":"))


def _load(con: psycopg.Connection, ids: Sequence[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for prefix, (table, key, cls) in _TABLES.items():
        wanted = [i for i in dict.fromkeys(ids) if i.startswith(prefix)]
        if wanted:
            for sid, text in con.execute(f"SELECT {key}, state FROM {table} WHERE {key} = ANY(%s)", (wanted,)):
                out[sid] = converter.structure(json.loads(text), cls)
    return out


def project(con: psycopg.Connection, events: Sequence[DomainEvent]) -> None:
    """Fold one append's experience events into their rows, inside its transaction."""
    if not events:
        return
    states: dict[str, object | None] = dict(_load(con, [e.stream_id for e in events if e.version != 1]))
    changed: set[str] = set()
    counts: dict[tuple[str, str, str], list[int]] = {}
    for event in events:
        if isinstance(event, PolicySupportForgotten):
            event = complete_support_forgotten(event, _links(con, [event.stream_id]).get(event.stream_id, {}))
        before = states.get(event.stream_id)
        state = reduce_experience(before, event)
        if state is not None:
            states[event.stream_id] = state
            changed.add(event.stream_id)
        if event.stream_id.startswith("ep_"):
            for key, (ds, df) in count_changes(before, state).items():  # type: ignore[arg-type]
                row = counts.setdefault(key, [0, 0])
                row[0] += ds
                row[1] += df
        change = support_change(event)
        if change is not None:
            _link(con, change)
    with con.cursor() as cur:
        for sid in sorted(changed):
            state = states[sid]
            if isinstance(state, EpisodeState):
                cur.execute("INSERT INTO episodes (episode_id, namespace, signature, status, state) "
                            "VALUES (%s,%s,%s,%s,%s) ON CONFLICT (episode_id) DO UPDATE SET "
                            "namespace = excluded.namespace, signature = excluded.signature, "
                            "status = excluded.status, state = excluded.state",
                            (sid, state.namespace, state.signature, state.status, _doc(state)))
            elif isinstance(state, PolicyState):
                cur.execute("INSERT INTO policies (policy_id, namespace, signature, status, state) "
                            "VALUES (%s,%s,%s,%s,%s) ON CONFLICT (policy_id) DO UPDATE SET "
                            "namespace = excluded.namespace, signature = excluded.signature, "
                            "status = excluded.status, state = excluded.state",
                            (sid, state.namespace, state.signature, state.status, _doc(state)))
            elif isinstance(state, ProcedureState):
                cur.execute("INSERT INTO procedures (procedure_id, namespace, policy_id, source_episode, status, "
                            "state) VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT (procedure_id) DO UPDATE SET "
                            "namespace = excluded.namespace, policy_id = excluded.policy_id, "
                            "source_episode = excluded.source_episode, status = excluded.status, "
                            "state = excluded.state",
                            (sid, state.namespace, state.policy_id, state.source_episode, state.status,
                             _doc(state)))
        for (namespace, signature, approach), (ds, df) in sorted(counts.items()):
            if not ds and not df:
                continue
            cur.execute("INSERT INTO experience_counts AS c (namespace, signature, approach, successes, failures) "
                        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (namespace, signature, approach) DO UPDATE SET "
                        "successes = c.successes + excluded.successes, failures = c.failures + excluded.failures",
                        (namespace, signature, approach, ds, df))
            if ds < 0 or df < 0:
                cur.execute("DELETE FROM experience_counts WHERE namespace = %s AND signature = %s AND approach = %s "
                            "AND successes = 0 AND failures = 0", (namespace, signature, approach))


def _link(con: psycopg.Connection, change: SupportChange) -> None:
    pid = change.policy_id
    if change.replace:
        con.execute("DELETE FROM policy_links WHERE policy_id = %s", (pid,))
    if change.remove:
        con.execute("DELETE FROM policy_links WHERE policy_id = %s AND episode_id = ANY(%s)", (pid, list(change.remove)))
    if change.add:
        last = con.execute("SELECT coalesce(max(seq), 0) FROM policy_links WHERE policy_id = %s", (pid,)).fetchone()[0]
        with con.cursor() as cur:
            cur.executemany("INSERT INTO policy_links (policy_id, seq, episode_id, succeeded) VALUES (%s, %s, %s, %s) "
                            "ON CONFLICT DO NOTHING", [(pid, last + i, e, ok) for i, (e, ok) in enumerate(change.add, 1)])


def _links(con: psycopg.Connection, policy_ids: Sequence[str]) -> dict[str, dict[str, bool]]:
    out: dict[str, dict[str, bool]] = {}
    ids = list(dict.fromkeys(policy_ids))
    if ids:
        for pid, episode_id, ok in con.execute("SELECT policy_id, episode_id, succeeded FROM policy_links "
                                               "WHERE policy_id = ANY(%s) ORDER BY policy_id, seq", (ids,)):
            out.setdefault(pid, {})[episode_id] = bool(ok)
    return out


def upgrade(con: psycopg.Connection) -> None:
    """Layout 3 -> 4 (ADR 0071): the counts of the counted episodes, the links of every policy's
    support list, and each policy's state rewritten as counts and its latest 16 episodes. Safe to run
    again: the counts are made anew, and a state already in counts is left as it is."""
    con.execute("DELETE FROM experience_counts")
    con.execute("INSERT INTO experience_counts (namespace, signature, approach, successes, failures) "
                "SELECT namespace, signature, state::json ->> 'approach', count(*) FILTER (WHERE status = 'succeeded'), "
                "count(*) FILTER (WHERE status = 'failed') FROM episodes WHERE status IN ('succeeded', 'failed') "
                "AND state::json ->> 'approach' <> '' GROUP BY 1, 2, 3")
    rows = con.execute("SELECT policy_id, state FROM policies").fetchall()
    with con.cursor() as cur:
        for policy_id, text in rows:
            state = json.loads(text)
            if "support" not in state:
                continue
            support = [(e, bool(ok)) for e, ok in state.pop("support")]
            state.pop("since_proposal", None)
            state["successes"] = sum(1 for _, ok in support if ok)
            state["failures"] = len(support) - state["successes"]
            state["recent"] = [[e, ok] for e, ok in support[-16:]]
            cur.execute("UPDATE policies SET state = %s WHERE policy_id = %s",
                        (json.dumps(state, ensure_ascii=True, sort_keys=True, separators=(",", ":")), policy_id))
            cur.execute("DELETE FROM policy_links WHERE policy_id = %s", (policy_id,))
            cur.executemany("INSERT INTO policy_links (policy_id, seq, episode_id, succeeded) VALUES (%s, %s, %s, %s)",
                            [(policy_id, i, e, ok) for i, (e, ok) in enumerate(dict(support).items(), 1)])
    con.execute("DROP TABLE IF EXISTS policy_support")


class PostgresExperience:
    """Reads of the experience projection on the store's connection (they see its open transaction)."""

    def __init__(self, db: PgDb) -> None:
        self._db = db

    def _read(self, ids: Sequence[str]) -> dict[str, object]:
        with self._db.lock, translated("reading the experience projection"):
            return _load(self._db.con, ids)

    def _select(self, table: str, cls: type, where: str, args: Sequence) -> list:
        with self._db.lock, translated("reading the experience projection"):
            rows = self._db.con.execute(f"SELECT state FROM {table} WHERE {where}", tuple(args)).fetchall()
        return [converter.structure(json.loads(r[0]), cls) for r in rows]

    def counts(self) -> dict[str, int]:
        """Projected rows per table."""
        with self._db.lock, translated("counting the experience projection"):
            return {t: self._db.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                    for t in ("episodes", "policies", "procedures")}

    # -- ExperienceReader -------------------------------------------------------------------------

    def get_episodes(self, ids: Sequence[str]) -> dict[str, EpisodeState]:
        return self._read([i for i in ids if i.startswith("ep_")])  # type: ignore[return-value]

    def episodes(self, namespace: str, *, status: str | None = None, signature: str | None = None,
                 after: str | None = None, limit: int = 100) -> list[EpisodeState]:
        where, args = ["namespace = %s"], [namespace]
        if status is not None:
            where.append("status = %s")
            args.append(status)
        else:
            where.append("status <> 'forgotten'")
        if signature is not None:
            where.append("signature = %s")
            args.append(signature)
        if after is not None:
            where.append("episode_id > %s")
            args.append(after)
        args.append(max(limit, 0))
        return self._select("episodes", EpisodeState, " AND ".join(where) + " ORDER BY episode_id LIMIT %s", args)

    def get_policies(self, ids: Sequence[str]) -> dict[str, PolicyState]:
        return self._read([i for i in ids if i.startswith("po_")])  # type: ignore[return-value]

    def policies(self, namespace: str, *, status: str | None = None,
                 signature: str | None = None) -> list[PolicyState]:
        where, args = ["namespace = %s"], [namespace]
        where.append("status = %s" if status is not None else "status <> 'forgotten'")
        if status is not None:
            args.append(status)
        if signature is not None:
            where.append("signature = %s")
            args.append(signature)
        return self._select("policies", PolicyState, " AND ".join(where) + " ORDER BY policy_id", args)

    def policies_citing(self, episode_ids: Sequence[str]) -> list[PolicyState]:
        ids = list(dict.fromkeys(episode_ids))
        if not ids:
            return []
        with self._db.lock, translated("reading the experience projection"):
            found = [r[0] for r in self._db.con.execute(
                "SELECT DISTINCT policy_id FROM policy_links WHERE episode_id = ANY(%s)", (ids,))]
        states = self.get_policies(sorted(found))
        return [states[p] for p in sorted(states) if states[p].status != "forgotten"]

    def get_procedures(self, ids: Sequence[str]) -> dict[str, ProcedureState]:
        return self._read([i for i in ids if i.startswith("pd_")])  # type: ignore[return-value]

    def procedures(self, namespace: str, *, status: str | None = None) -> list[ProcedureState]:
        where = "namespace = %s AND " + ("status = %s" if status is not None else "status <> 'forgotten'")
        args = [namespace] + ([status] if status is not None else [])
        return self._select("procedures", ProcedureState, where + " ORDER BY procedure_id", args)

    def procedures_of(self, policy_ids: Sequence[str], episode_ids: Sequence[str] = ()) -> list[ProcedureState]:
        policies, episodes = list(dict.fromkeys(policy_ids)), list(dict.fromkeys(episode_ids))
        if not policies and not episodes:
            return []
        return self._select("procedures", ProcedureState,
                            "(policy_id = ANY(%s) OR source_episode = ANY(%s)) AND status <> 'forgotten' "
                            "ORDER BY procedure_id", (policies, episodes))

    def support_of(self, policy_ids: Sequence[str]) -> dict[str, dict[str, bool]]:
        with self._db.lock, translated("reading the experience projection"):
            return _links(self._db.con, policy_ids)

    def outcomes(self, namespace: str, signature: str, *, approach: str | None = None) -> list[EpisodeOutcome]:
        # Two fields of each state, read by the server: no trace is decoded in Python. Stored
        # timestamps are fixed-width UTC text, so they sort as the instants do (byte order, "C").
        with self._db.lock, translated("reading the experience projection"):
            rows = self._db.con.execute(
                "SELECT episode_id, approach, status FROM (SELECT episode_id, status, state::json ->> 'approach' "
                "AS approach, state::json ->> 'ended_at' AS ended FROM episodes WHERE namespace = %(ns)s "
                "AND signature = %(sig)s AND status IN ('succeeded', 'failed')) AS counted WHERE approach <> '' "
                "AND (%(a)s::text IS NULL OR approach = %(a)s::text) ORDER BY ended COLLATE \"C\", episode_id",
                {"ns": namespace, "sig": signature, "a": approach}).fetchall()
        return [EpisodeOutcome(e, a, s == "succeeded") for e, a, s in rows]

    def approach_counts(self, namespace: str, signature: str) -> dict[str, Counts]:
        with self._db.lock, translated("reading the experience projection"):
            rows = self._db.con.execute(
                "SELECT approach, successes, failures FROM experience_counts WHERE namespace = %s AND signature = %s "
                "ORDER BY approach COLLATE \"C\"", (namespace, signature)).fetchall()
        return {a: Counts(s, f) for a, s, f in rows}

    def situation_counts(self, namespace: str) -> dict[str, dict[str, Counts]]:
        out: dict[str, dict[str, Counts]] = {}
        with self._db.lock, translated("reading the experience projection"):
            for sig, a, s, f in self._db.con.execute(
                    "SELECT signature, approach, successes, failures FROM experience_counts WHERE namespace = %s "
                    "ORDER BY signature COLLATE \"C\", approach COLLATE \"C\"", (namespace,)):
                out.setdefault(sig, {})[a] = Counts(s, f)
        return out

    def signatures(self, namespace: str) -> list[str]:
        with self._db.lock, translated("reading the experience projection"):
            return [r[0] for r in self._db.con.execute(
                "SELECT DISTINCT signature FROM episodes WHERE namespace = %s AND status NOT IN ('running', "
                "'forgotten') ORDER BY signature", (namespace,))]
