"""``InMemoryExperience``: the experience projection of ``InMemoryStorage`` (ADR 0045).

The store calls :meth:`project` for every appended event; changes go through the store's
journal, so a failed transaction undoes them with everything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from hlmem.adapters.inmemory.journal import Journal
from hlmem.domain.events import DomainEvent
from hlmem.domain.experience_reducers import reduce_experience, touches_experience
from hlmem.domain.experience_state import EpisodeOutcome, EpisodeState, PolicyState, ProcedureState, outcomes_of


class InMemoryExperience:
    """Episodes, policies and procedures in dicts, folded by the pure reducer."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._episodes: dict[str, EpisodeState] = {}
        self._policies: dict[str, PolicyState] = {}
        self._procedures: dict[str, ProcedureState] = {}

    def _table(self, stream_id: str) -> dict:
        return {"ep_": self._episodes, "po_": self._policies, "pd_": self._procedures}[stream_id[:3]]

    def project(self, event: DomainEvent) -> None:
        """Apply one appended event (others are ignored)."""
        if not touches_experience(event):
            return
        table = self._table(event.stream_id)
        state = reduce_experience(table.get(event.stream_id), event)
        if state is not None:
            self._journal.set(table, event.stream_id, state)

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
        wanted = set(episode_ids)
        return sorted((p for p in self._policies.values() if p.status != "forgotten"
                       and any(e in wanted for e in p.episodes)), key=lambda p: p.policy_id)

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

    def outcomes(self, namespace: str, signature: str) -> list[EpisodeOutcome]:
        return list(outcomes_of(e for e in self._episodes.values()
                                if e.namespace == namespace and e.signature == signature))

    def signatures(self, namespace: str) -> list[str]:
        return sorted({e.signature for e in self._episodes.values() if e.namespace == namespace
                       and e.status not in ("running", "forgotten")})
