"""``InMemoryExperience``: the experience projection of ``InMemoryStorage`` (ADR 0045).

The store calls :meth:`project` for every appended event; changes go through the store's
journal, so a failed transaction undoes them with everything else. Beside the states it keeps
the outcome counts and the policies' support links (ADR 0071), each change O(1).
"""

from __future__ import annotations

from collections.abc import Sequence

from hlmem.adapters.inmemory.journal import Journal
from hlmem.domain.events import DomainEvent
from hlmem.domain.experience_counts import (
    CountKey,
    Counts,
    complete_support_forgotten,
    count_changes,
    support_change,
)
from hlmem.domain.experience_events import PolicySupportForgotten
from hlmem.domain.experience_reducers import reduce_experience, touches_experience
from hlmem.domain.experience_state import EpisodeOutcome, EpisodeState, PolicyState, ProcedureState, outcomes_of


class InMemoryExperience:
    """Episodes, policies and procedures in dicts, folded by the pure reducer."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._episodes: dict[str, EpisodeState] = {}
        self._policies: dict[str, PolicyState] = {}
        self._procedures: dict[str, ProcedureState] = {}
        #: (namespace, signature) -> approach -> Counts.
        self._counts: dict[tuple[str, str], dict[str, Counts]] = {}
        #: policy id -> {episode id: succeeded}, in the order counted; episode id -> {policy id: True}.
        self._links: dict[str, dict[str, bool]] = {}
        self._citing: dict[str, dict[str, bool]] = {}

    def _table(self, stream_id: str) -> dict:
        return {"ep_": self._episodes, "po_": self._policies, "pd_": self._procedures}[stream_id[:3]]

    def project(self, event: DomainEvent) -> None:
        """Apply one appended event (others are ignored)."""
        if not touches_experience(event):
            return
        if isinstance(event, PolicySupportForgotten):
            event = complete_support_forgotten(event, self._links.get(event.stream_id, {}))
        table = self._table(event.stream_id)
        before = table.get(event.stream_id)
        state = reduce_experience(before, event)
        if state is not None:
            self._journal.set(table, event.stream_id, state)
        if table is self._episodes:
            for key, delta in count_changes(before, state).items():
                self._count(key, delta)
        change = support_change(event)
        if change is not None:
            self._link(change)

    def _count(self, key: CountKey, delta: tuple[int, int]) -> None:
        situation = (key[0], key[1])
        if situation not in self._counts:
            self._journal.set(self._counts, situation, {})
        rows = self._counts[situation]
        old = rows.get(key[2], Counts(0, 0))
        new = Counts(old.successes + delta[0], old.failures + delta[1])
        if new.n:
            self._journal.set(rows, key[2], new)
        else:
            self._journal.pop(rows, key[2])

    def _link(self, change) -> None:
        pid = change.policy_id
        if pid not in self._links:
            self._journal.set(self._links, pid, {})
        links = self._links[pid]
        drop = list(links) if change.replace else [e for e in change.remove if e in links]
        for episode_id in drop:
            self._journal.pop(links, episode_id)
            self._journal.pop(self._citing.get(episode_id, {}), pid)
        for episode_id, ok in change.add:
            if episode_id not in links:
                self._journal.set(links, episode_id, ok)
                if episode_id not in self._citing:
                    self._journal.set(self._citing, episode_id, {})
                self._journal.set(self._citing[episode_id], pid, True)

    def state_of(self, stream_id: str) -> object | None:
        """The state of any experience stream (replay's fingerprints)."""
        return self._table(stream_id).get(stream_id) if stream_id[:3] in ("ep_", "po_", "pd_") else None

    def counts(self) -> dict[str, int]:
        """Projected rows per table."""
        return {"episodes": len(self._episodes), "policies": len(self._policies),
                "procedures": len(self._procedures)}

    # -- ExperienceReader -------------------------------------------------------------------------

    def get_episodes(self, ids: Sequence[str]) -> dict[str, EpisodeState]:
        return {i: self._episodes[i] for i in dict.fromkeys(ids) if i in self._episodes}

    def episodes(self, namespace: str, *, status: str | None = None, signature: str | None = None,
                 after: str | None = None, limit: int = 100) -> list[EpisodeState]:
        found = sorted((e for e in self._episodes.values() if e.namespace == namespace
                        and (e.status == status if status is not None else e.status != "forgotten")
                        and (signature is None or e.signature == signature)
                        and (after is None or e.episode_id > after)), key=lambda e: e.episode_id)
        return found[:max(limit, 0)]

    def get_policies(self, ids: Sequence[str]) -> dict[str, PolicyState]:
        return {i: self._policies[i] for i in dict.fromkeys(ids) if i in self._policies}

    def policies(self, namespace: str, *, status: str | None = None,
                 signature: str | None = None) -> list[PolicyState]:
        return sorted((p for p in self._policies.values() if p.namespace == namespace
                       and (p.status == status if status is not None else p.status != "forgotten")
                       and (signature is None or p.signature == signature)), key=lambda p: p.policy_id)

    def policies_citing(self, episode_ids: Sequence[str]) -> list[PolicyState]:
        found = {pid for e in dict.fromkeys(episode_ids) for pid in self._citing.get(e, {})}
        return [self._policies[p] for p in sorted(found) if self._policies[p].status != "forgotten"]

    def support_of(self, policy_ids: Sequence[str]) -> dict[str, dict[str, bool]]:
        return {p: dict(self._links[p]) for p in dict.fromkeys(policy_ids) if self._links.get(p)}

    def get_procedures(self, ids: Sequence[str]) -> dict[str, ProcedureState]:
        return {i: self._procedures[i] for i in dict.fromkeys(ids) if i in self._procedures}

    def procedures(self, namespace: str, *, status: str | None = None) -> list[ProcedureState]:
        return sorted((p for p in self._procedures.values() if p.namespace == namespace
                       and (p.status == status if status is not None else p.status != "forgotten")),
                      key=lambda p: p.procedure_id)

    def procedures_of(self, policy_ids: Sequence[str], episode_ids: Sequence[str] = ()) -> list[ProcedureState]:
        policies, episodes = set(policy_ids), set(episode_ids)
        return sorted((p for p in self._procedures.values() if p.status != "forgotten"
                       and (p.policy_id in policies or p.source_episode in episodes)), key=lambda p: p.procedure_id)

    def outcomes(self, namespace: str, signature: str, *, approach: str | None = None) -> list[EpisodeOutcome]:
        return list(outcomes_of(e for e in self._episodes.values()
                                if e.namespace == namespace and e.signature == signature
                                and (approach is None or e.approach == approach)))

    def approach_counts(self, namespace: str, signature: str) -> dict[str, Counts]:
        return dict(sorted(self._counts.get((namespace, signature), {}).items()))

    def situation_counts(self, namespace: str) -> dict[str, dict[str, Counts]]:
        return {sig: dict(sorted(rows.items())) for (ns, sig), rows in sorted(self._counts.items())
                if ns == namespace and rows}

    def signatures(self, namespace: str) -> list[str]:
        return sorted({e.signature for e in self._episodes.values() if e.namespace == namespace
                       and e.status not in ("running", "forgotten")})
