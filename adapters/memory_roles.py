"""``Memory``'s role namespaces: ``mem.episodes``, ``mem.policies``, ``mem.procedures``, ``mem.derived``,
``mem.conflicts``, ``mem.worker``.

Each groups one role's calls under the name the other front ends give it (``hlmem episode …``,
``/v1/episodes``, ``memory_episode_*``; ADR 0077). A namespace holds the facade's container and
reads the facade's default namespace; each method turns its arguments into one command and makes
one call into one service (:class:`~hlmem.application.experience.ExperienceService`,
:class:`~hlmem.application.experience_forget.ExperienceForgetService`,
:class:`~hlmem.application.derived.DerivedService`, :class:`~hlmem.application.conflicts.ConflictService`,
:class:`~hlmem.application.worker.Worker`). A namespace is callable where the facade's earlier flat
name listed or read: ``mem.episodes(status="running")``, ``mem.derived("dv_…")``, ``mem.conflicts()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from attrs import fields
from hlmem.adapters.di import providers

from hlmem.adapters.arguments import Timestamp, when
from hlmem.domain.errors import ValidationError
from hlmem.domain.experience_decisions import EndEpisode, RecordStep, StartEpisode
from hlmem.domain.experience_policy import PolicyThresholds

if TYPE_CHECKING:
    from hlmem.adapters.container import Container
    from hlmem.application.derived import BuildReport, DerivedView
    from hlmem.domain.state import ConflictState
    from hlmem.application.experience import EpisodeEndResult, EpisodePage
    from hlmem.application.forgetting import ForgetReport
    from hlmem.domain.events import DomainEvent
    from hlmem.domain.experience_state import EpisodeState, PolicyState, ProcedureState


class _Role:
    """What every namespace holds: the facade's container, and the facade for its default namespace."""

    def __init__(self, container: Container, memory: Any) -> None:
        self._container = container
        self._memory = memory

    def _ns(self, namespace: str | None) -> str:
        return namespace or self._memory.namespace

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._memory!r}>"


class Episodes(_Role):
    """Episodes: start, step, end, read, list, forget (``hlmem episode``, ``/v1/episodes``, docs/experience.md)."""

    def start(self, goal: str, *, context: str = "", approach: str = "", namespace: str | None = None,
              started_at: Timestamp = None, actor: str = "agent") -> EpisodeState:
        """Begin an episode towards ``goal`` (``context``: a tool or error signature that refines the
        situation; ``approach``: how it will be tackled, else the trace's tools). Returns it, running."""
        return self._container.experience().start(StartEpisode(
            goal=goal, namespace=self._ns(namespace), context=context, approach=approach,
            started_at=when(started_at, "started_at"), actor=actor))

    def step(self, episode_id: str, action: str, *, tool: str = "", observation: str = "", error: str = "",
             cost: float = 0.0, value: float | None = None, evidence: Iterable[str] = (),
             occurred_at: Timestamp = None) -> EpisodeState:
        """Append a step to a running episode's trace; ``evidence`` cites events (``ev_…``) that exist.

        :raises NotFound: an unknown episode; ``EpisodeEndedError``: an ended one;
            ``UnusableEvidence``: a cited event that does not exist or was forgotten.
        """
        if isinstance(evidence, str):
            evidence = (evidence,)
        return self._container.experience().record_step(RecordStep(
            episode_id=episode_id, action=action, tool=tool, observation=observation, error=error, cost=cost,
            value=value, evidence=tuple(evidence), occurred_at=when(occurred_at, "occurred_at")))

    def end(self, episode_id: str, status: str, *, reward: float | None = None, outcome: str = "",
            approach: str = "") -> EpisodeEndResult:
        """End a running episode (``succeeded``, ``failed``, ``cancelled``; ``reward`` 0..1); the
        policies of its situation are updated in the same transaction (``result.changes``)."""
        return self._container.experience().end(EndEpisode(episode_id=episode_id, status=status, reward=reward,
                                                           outcome=outcome, approach=approach))

    def get(self, episode_id: str) -> EpisodeState:
        """One episode with its trace. :raises NotFound: an unknown id."""
        return self._container.experience().show(episode_id)

    def list(self, *, status: str | None = None, namespace: str | None = None, limit: int = 50,
             after: str | None = None) -> list[EpisodeState]:
        """A page of episodes ordered by id; pass the last id as ``after`` for the next."""
        return self._container.experience().list(self._ns(namespace), status=status, limit=limit, after=after)

    __call__ = list

    def page(self, *, status: str | None = None, namespace: str | None = None, limit: int = 50,
             after: str | None = None) -> EpisodePage:
        """:meth:`list` with the cursor of the next page (None on the last): REST and MCP list with it."""
        return self._container.experience().page(self._ns(namespace), status=status, limit=limit, after=after)

    def forget(self, episode_id: str, *, dry_run: bool = False, actor: str = "user",
               reason: str = "") -> ForgetReport:
        """Forget an episode with its trace, the procedures built from it and the policies it leaves
        without support (docs/experience.md); ``dry_run`` only reports."""
        return self._container.experience_forget().forget_episode(episode_id, actor=actor, reason=reason,
                                                                  dry_run=dry_run)


class Policies(_Role):
    """The policies learnt from episodes, their induction and thresholds (``/v1/policies``, ``memory_policies``)."""

    def list(self, *, status: str | None = None, namespace: str | None = None,
             query: str | None = None) -> list[PolicyState]:
        """The policies learnt in a namespace (every status but forgotten unless asked). With ``query``
        (a how-to question or a task), the live policies whose situation it asks for, matched by meaning
        and best first: active ones and candidates on probation (``status``: ``"active"`` for active
        ones only, ``"candidate"`` for candidates only; docs/experience.md, ADR 0067)."""
        ns = self._ns(namespace)
        if query is None:
            return self._container.experience().policies(ns, status=status)
        if status not in (None, "active", "candidate"):
            raise ValidationError("a query matches live policies: status is active, candidate or none",
                                  field="status")
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query must be a non-empty text", field="query")
        found = self._container.experience_recall().matching(query, namespace=ns, active_only=status == "active")
        return [p for _, p in found if status is None or p.status == status]

    __call__ = list

    def induce(self, *, namespace: str | None = None) -> tuple[DomainEvent, ...]:
        """Run policy induction over every situation of the namespace; returns the events it appended."""
        return self._container.experience().induce(self._ns(namespace))

    @property
    def thresholds(self) -> PolicyThresholds:
        """The thresholds policy induction uses now."""
        return self._container.experience().thresholds

    def set_thresholds(self, thresholds: PolicyThresholds | Mapping[str, Any]) -> PolicyThresholds:
        """Use other induction thresholds from now on (the object, or a mapping of its fields)."""
        if isinstance(thresholds, Mapping):
            known = {f.name for f in fields(PolicyThresholds)}
            unknown = sorted(set(thresholds) - known)
            if unknown:
                raise ValidationError(f"unknown experience threshold(s): {', '.join(unknown)}", field="experience")
            thresholds = PolicyThresholds(**dict(thresholds))
        if not isinstance(thresholds, PolicyThresholds):
            raise ValidationError("thresholds must be a PolicyThresholds or a mapping", field="experience")
        self._container.experience_thresholds.override(providers.Object(thresholds))
        for name in ("experience", "experience_recall", "recall"):
            getattr(self._container, name).reset()
        return thresholds


class Procedures(_Role):
    """The procedures (every version) learnt from episodes (``/v1/procedures``, ``memory_procedures``)."""

    def list(self, *, status: str | None = None, namespace: str | None = None) -> list[ProcedureState]:
        """The procedures (every version) learnt in a namespace."""
        return self._container.experience().procedures(self._ns(namespace), status=status)

    __call__ = list


class Derived(_Role):
    """Observation summaries and mental models (``hlmem derive``, ``observations``, ``profile``; docs/derived.md)."""

    def build(self, *, subject: str | None = None, namespace: str | None = None) -> BuildReport:
        """Build (or bring up to date) the observation summaries and mental models of one subject,
        or of every subject of the namespace."""
        return self._container.derived().build(self._ns(namespace), subject)

    def observations(self, *, subject: str | None = None, namespace: str | None = None) -> list[DerivedView]:
        """The observation summaries (current and stale), each with its source claims."""
        return self._container.derived().observations(self._ns(namespace), subject=subject)

    def profile(self, subject: str, *, namespace: str | None = None) -> DerivedView:
        """A subject's mental model with its source claims (NotFound when none was built)."""
        return self._container.derived().mental_model(subject, self._ns(namespace))

    def get(self, derived_id: str) -> DerivedView:
        """One derived item (``dv_…``) by id, whatever its status, with its source claims."""
        return self._container.derived().show(derived_id)

    __call__ = get


class Conflicts(_Role):
    """The review queue of conflicting claims (``hlmem conflicts``, ``/v1/conflicts``; docs/pipeline.md)."""

    def list(self, *, status: str | None = "open", namespace: str | None = None) -> list[ConflictState]:
        """Conflicts waiting for review (or all, with ``status=None``), oldest first."""
        return self._container.conflicts().list(self._ns(namespace), status)

    __call__ = list

    def resolve(self, conflict_id: str, decision: str, *, expected_version: int | None = None) -> Any:
        """Decide a conflict: ``keep-new``, ``keep-old`` or ``coexist`` (stale decisions are refused)."""
        return self._container.conflicts().resolve(conflict_id, decision, expected_version=expected_version)


class Worker(_Role):
    """The extraction worker of this process (``hlmem worker``; docs/pipeline.md)."""

    def run(self, *, once: bool = True) -> Any:
        """Drain the extraction queue (``once``) or run until :meth:`stop`; returns its stats."""
        worker = self._container.worker()
        return worker.run_once() if once else worker.run()

    def stop(self) -> None:
        """Ask a running worker to stop after the window in flight."""
        self._container.worker().stop_event.set()

    @property
    def config(self) -> Any:
        """The worker's tunables (a ``WorkerConfig``: per process, not stored; set them before running)."""
        return self._container.worker().config
