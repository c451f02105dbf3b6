"""The facade's earlier, flat spelling of the experience and derived calls (ADR 0077).

``Memory`` groups them in role namespaces (:mod:`hlmem.adapters.memory_roles`):
``mem.episodes.start`` (was ``start_episode``), ``mem.episodes.step`` (``record_step``),
``mem.episodes.end`` (``end_episode``), ``mem.episodes.get`` (``episode``), ``mem.episodes.page``
(``episode_page``), ``mem.episodes.forget`` (``forget_episode``), ``mem.policies.induce``
(``induce_policies``), ``mem.policies.thresholds`` / ``set_thresholds``
(``experience_thresholds`` / ``set_experience_thresholds``), ``mem.derived.build`` (``derive``),
``mem.derived.observations`` (``observations``), ``mem.derived.profile`` (``mental_model``),
``mem.conflicts.resolve`` (``resolve_conflict``), ``mem.worker.run`` / ``stop`` / ``config``
(``run_worker`` / ``stop_worker`` / ``worker_config``). The
earlier names below still work, each one line calling its namespace; ``mem.episodes(…)``,
``mem.policies(…)``, ``mem.procedures(…)``, ``mem.derived(id)`` and ``mem.conflicts(…)`` work
because the namespaces are callable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hlmem.adapters.memory_roles import Conflicts, Derived, Episodes, Policies, Worker
    from hlmem.application.derived import BuildReport, DerivedView
    from hlmem.application.experience import EpisodeEndResult, EpisodePage
    from hlmem.application.forgetting import ForgetReport
    from hlmem.domain.events import DomainEvent
    from hlmem.domain.experience_policy import PolicyThresholds
    from hlmem.domain.experience_state import EpisodeState


class FlatNames:
    """The earlier names, mixed into :class:`~hlmem.adapters.memory_api.Memory`; see the module docstring."""

    episodes: Episodes
    policies: Policies
    derived: Derived
    conflicts: Conflicts
    worker: Worker

    def start_episode(self, goal: str, **kwargs: Any) -> EpisodeState:
        """:meth:`mem.episodes.start <hlmem.adapters.memory_roles.Episodes.start>`."""
        return self.episodes.start(goal, **kwargs)

    def record_step(self, episode_id: str, action: str, **kwargs: Any) -> EpisodeState:
        """:meth:`mem.episodes.step <hlmem.adapters.memory_roles.Episodes.step>`."""
        return self.episodes.step(episode_id, action, **kwargs)

    def end_episode(self, episode_id: str, status: str, **kwargs: Any) -> EpisodeEndResult:
        """:meth:`mem.episodes.end <hlmem.adapters.memory_roles.Episodes.end>`."""
        return self.episodes.end(episode_id, status, **kwargs)

    def episode(self, episode_id: str) -> EpisodeState:
        """:meth:`mem.episodes.get <hlmem.adapters.memory_roles.Episodes.get>`."""
        return self.episodes.get(episode_id)

    def episode_page(self, **kwargs: Any) -> EpisodePage:
        """:meth:`mem.episodes.page <hlmem.adapters.memory_roles.Episodes.page>`."""
        return self.episodes.page(**kwargs)

    def forget_episode(self, episode_id: str, **kwargs: Any) -> ForgetReport:
        """:meth:`mem.episodes.forget <hlmem.adapters.memory_roles.Episodes.forget>`."""
        return self.episodes.forget(episode_id, **kwargs)

    def induce_policies(self, **kwargs: Any) -> tuple[DomainEvent, ...]:
        """:meth:`mem.policies.induce <hlmem.adapters.memory_roles.Policies.induce>`."""
        return self.policies.induce(**kwargs)

    @property
    def experience_thresholds(self) -> PolicyThresholds:
        """:attr:`mem.policies.thresholds <hlmem.adapters.memory_roles.Policies.thresholds>`."""
        return self.policies.thresholds

    def set_experience_thresholds(self, thresholds: Any) -> PolicyThresholds:
        """:meth:`mem.policies.set_thresholds <hlmem.adapters.memory_roles.Policies.set_thresholds>`."""
        return self.policies.set_thresholds(thresholds)

    def derive(self, **kwargs: Any) -> BuildReport:
        """:meth:`mem.derived.build <hlmem.adapters.memory_roles.Derived.build>`."""
        return self.derived.build(**kwargs)

    def observations(self, **kwargs: Any) -> list[DerivedView]:
        """:meth:`mem.derived.observations <hlmem.adapters.memory_roles.Derived.observations>`."""
        return self.derived.observations(**kwargs)

    def mental_model(self, subject: str, **kwargs: Any) -> DerivedView:
        """:meth:`mem.derived.profile <hlmem.adapters.memory_roles.Derived.profile>`."""
        return self.derived.profile(subject, **kwargs)

    def resolve_conflict(self, conflict_id: str, decision: str, **kwargs: Any) -> Any:
        """:meth:`mem.conflicts.resolve <hlmem.adapters.memory_roles.Conflicts.resolve>`."""
        return self.conflicts.resolve(conflict_id, decision, **kwargs)

    def run_worker(self, **kwargs: Any) -> Any:
        """:meth:`mem.worker.run <hlmem.adapters.memory_roles.Worker.run>`."""
        return self.worker.run(**kwargs)

    def stop_worker(self) -> None:
        """:meth:`mem.worker.stop <hlmem.adapters.memory_roles.Worker.stop>`."""
        self.worker.stop()

    @property
    def worker_config(self) -> Any:
        """:attr:`mem.worker.config <hlmem.adapters.memory_roles.Worker.config>`."""
        return self.worker.config
