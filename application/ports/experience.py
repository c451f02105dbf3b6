"""The experience channel's read role (ADR 0045): episodes, policies and procedures as projected.

Every store exposes an :class:`ExperienceReader` as ``store.experience`` (:class:`HasExperience`,
part of :class:`~hlmem.application.ports.storage.Storage` since ADR 0076); its projection is
updated by the store's own ``append`` through
:func:`hlmem.domain.experience_reducers.reduce_experience`, in the append's transaction, like every
other projection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from hlmem.domain.experience_counts import Counts
from hlmem.domain.experience_state import EpisodeOutcome, EpisodeState, PolicyState, ProcedureState


@runtime_checkable
class ExperienceReader(Protocol):
    """Reads of the experience projection.

    Contract:
    - ``get_*`` return the states of the ids they know (forgotten ones as tombstones), silently
      leaving out unknown ids.
    - ``episodes`` lists one namespace's episodes ordered by id, after ``after`` (exclusive),
      at most ``limit``, optionally of one ``status`` and/or ``signature``; forgotten episodes
      only when ``status="forgotten"`` is asked for.
    - ``policies`` and ``procedures`` list one namespace's, ordered by id, optionally filtered;
      forgotten ones only when that status is asked for.
    - ``policies_citing(episode_ids)`` are the not-forgotten policies whose support holds any of
      them; ``procedures_of(policy_ids, episode_ids)`` the not-forgotten procedures of those
      policies or built from those episodes.
    - ``outcomes(namespace, signature, approach=None)`` lists the counted outcomes of one situation
      (of one approach when given): its succeeded or failed (not cancelled, running or forgotten)
      episodes that name an approach, as :class:`~hlmem.domain.experience_state.EpisodeOutcome`,
      in the order they ended (``ended_at``, then episode id). Only a proposal reads them (its
      support); its cost may grow with the situation's history.
    - ``approach_counts(namespace, signature)`` is the counts projection of one situation
      (ADR 0071): ``{approach: Counts(successes, failures)}`` of exactly the episodes ``outcomes``
      lists, approaches with none left out; it costs the same however long the history is, and is
      what every end reads. ``situation_counts(namespace)`` is the same for every situation of a
      namespace, ``{signature: {approach: Counts}}`` (what a prior is fitted on, ADR 0066).
    - ``support_of(policy_ids)`` is the support projection: for each of those policies with any,
      ``{episode_id: succeeded}`` in the order they were counted (folded from the policy events by
      :func:`hlmem.domain.experience_counts.support_change`); ``policies_citing`` reads it.
    - ``signatures(namespace)`` lists the distinct signatures of the namespace's ended,
      not-forgotten episodes, sorted.
    """

    def get_episodes(self, ids: Sequence[str]) -> dict[str, EpisodeState]: ...

    def episodes(self, namespace: str, *, status: str | None = None, signature: str | None = None,
                 after: str | None = None, limit: int = 100) -> list[EpisodeState]: ...

    def get_policies(self, ids: Sequence[str]) -> dict[str, PolicyState]: ...

    def policies(self, namespace: str, *, status: str | None = None,
                 signature: str | None = None) -> list[PolicyState]: ...

    def policies_citing(self, episode_ids: Sequence[str]) -> list[PolicyState]: ...

    def get_procedures(self, ids: Sequence[str]) -> dict[str, ProcedureState]: ...

    def procedures(self, namespace: str, *, status: str | None = None) -> list[ProcedureState]: ...

    def procedures_of(self, policy_ids: Sequence[str], episode_ids: Sequence[str] = ()) -> list[ProcedureState]: ...

    def outcomes(self, namespace: str, signature: str, *, approach: str | None = None) -> list[EpisodeOutcome]: ...

    def approach_counts(self, namespace: str, signature: str) -> dict[str, Counts]: ...

    def situation_counts(self, namespace: str) -> dict[str, dict[str, Counts]]: ...

    def support_of(self, policy_ids: Sequence[str]) -> dict[str, dict[str, bool]]: ...

    def signatures(self, namespace: str) -> list[str]: ...


@runtime_checkable
class HasExperience(Protocol):
    """A store that keeps the experience channel's projection as ``store.experience``."""

    experience: ExperienceReader
