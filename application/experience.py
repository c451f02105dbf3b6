"""The experience channel's write and read service: episodes, steps, ends, and the induction
they trigger (docs/experience.md, ADR 0045).

Each command is one write transaction: read the states it decides against, call the pure
decision (:mod:`hlmem.domain.experience_decisions`), append. Ending an episode also runs the
policy lifecycle of its situation (:mod:`hlmem.domain.experience_policy`) in the same
transaction, so the log never holds an ended episode whose policies were not updated. Nothing
here waits for fact extraction: episodes are written directly.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from hlmem.application.ports import Clock, ExperienceReader, ExperienceStore, HasExperience, IdGenerator
from hlmem.domain.errors import NotFound, ValidationError
from hlmem.domain.events import DomainEvent
from hlmem.domain.experience_decisions import (
    EndEpisode,
    RecordStep,
    StartEpisode,
    check_episode_id,
    decide_end,
    decide_start,
    decide_step,
)
from hlmem.domain.experience_policy import PolicyThresholds, Situation, induce, on_episode_end
from hlmem.domain.experience_prior import DEFAULT_PRIOR, RatePrior, fit_prior
from hlmem.domain.experience_state import EPISODE_STATUSES, POLICY_STATUSES, EpisodeState, PolicyState, ProcedureState
from hlmem.domain.commands import check_namespace

#: A namespace's prior is fitted again after this many ends at least, or a tenth of the outcomes it
#: was fitted on (:meth:`ExperienceService.prior`).
REFIT_MIN_ENDS = 10
REFIT_SHARE = 0.1


@frozen
class EpisodePage:
    """A page of episodes ordered by id; ``next_cursor`` (the last id) is None on the last page."""

    items: tuple[EpisodeState, ...]
    next_cursor: str | None


@frozen
class EpisodeEndResult:
    """An ended episode and what its end changed in policies and procedures (their events)."""

    episode: EpisodeState
    changes: tuple[DomainEvent, ...]


class ExperienceService:
    """Starts, extends and ends episodes; induces policies and procedures; reads them back."""

    def __init__(self, storage: ExperienceStore, clock: Clock, ids: IdGenerator,
                 thresholds: PolicyThresholds | None = None) -> None:
        """:param storage: a store with the event log, observations (step evidence), transactions and
            ``storage.experience`` (:class:`~hlmem.application.ports.ExperienceStore`)."""
        self._storage = storage
        self._clock = clock
        self._ids = ids
        self.thresholds = thresholds or PolicyThresholds()
        self._reader = storage.experience
        #: Per namespace, the fitted rate prior and the ends seen since it was fitted (ADR 0066).
        self._priors: dict[str, tuple[RatePrior, int]] = {}

    @property
    def reader(self) -> ExperienceReader:
        """The projection this service reads."""
        return self._reader

    # -- writes -----------------------------------------------------------------------------------

    def start(self, cmd: StartEpisode) -> EpisodeState:
        """Begin an episode; returns its state (``running``)."""
        event = decide_start(cmd, episode_id=self._ids.new("ep"), event_id=self._ids.new("lg"),
                             now=self._clock.now())
        with self._storage.transaction():
            self._storage.append([event])
        return self._reader.get_episodes([event.stream_id])[event.stream_id]

    def record_step(self, cmd: RecordStep) -> EpisodeState:
        """Append one step; returns the episode with it.

        :raises NotFound: for an unknown episode; ``EpisodeEndedError`` for an ended one;
            ``UnusableEvidence`` for cited events that do not exist or were forgotten.
        """
        episode_id = check_episode_id(cmd.episode_id)
        with self._storage.transaction():
            episode = self._reader.get_episodes([episode_id]).get(episode_id)
            cited = self._storage.get_observations(list(cmd.evidence)) if cmd.evidence else {}
            event = decide_step(cmd, episode, cited, event_id=self._ids.new("lg"), now=self._clock.now())
            self._storage.append([event])
            return self._reader.get_episodes([episode_id])[episode_id]

    def end(self, cmd: EndEpisode) -> EpisodeEndResult:
        """End an episode and run its situation's policy lifecycle, in one transaction."""
        episode_id = check_episode_id(cmd.episode_id)
        with self._storage.transaction():
            episode = self._reader.get_episodes([episode_id]).get(episode_id)
            now = self._clock.now()
            self._storage.append([decide_end(cmd, episode, event_id=self._ids.new("lg"), now=now)])
            ended = self._reader.get_episodes([episode_id])[episode_id]
            self._seen_end(ended.namespace)
            changes = on_episode_end(self._situation(ended.namespace, ended.signature), ended, self.thresholds,
                                     new_id=self._ids.new, now=now)
            if changes:
                self._storage.append(changes)
        return EpisodeEndResult(ended, tuple(changes))

    def induce(self, namespace: str = "default") -> tuple[DomainEvent, ...]:
        """Run induction over every situation of ``namespace`` (idempotent: nothing new, nothing written)."""
        _check_namespace(namespace)
        out: list[DomainEvent] = []
        with self._storage.transaction():
            now = self._clock.now()
            self._priors.pop(namespace, None)  # induction judges under a prior fitted on every count now
            for signature in self._reader.signatures(namespace):
                events = induce(self._situation(namespace, signature), self.thresholds, new_id=self._ids.new,
                                now=now)
                if events:
                    self._storage.append(events)
                    out += events
        return tuple(out)

    def _situation(self, namespace: str, signature: str) -> Situation:
        # Counts per approach (the store's counts projection, ADR 0071), never the situation's
        # episodes or outcomes: an end must not get slower as the situation's history grows. Only a
        # proposal lists its approach's outcomes (its support), and only a promotion loads episodes.
        policies = self._reader.policies(namespace, signature=signature)
        procedures = self._reader.procedures_of([p.policy_id for p in policies])

        def outcomes(approach: str) -> list[tuple[str, bool]]:
            return [(o.episode_id, o.succeeded) for o in self._reader.outcomes(namespace, signature, approach=approach)]

        return Situation(namespace, signature, self._reader.approach_counts(namespace, signature), tuple(policies),
                         tuple(procedures), self._reader.get_episodes, outcomes, self.prior(namespace))

    def prior(self, namespace: str) -> RatePrior:
        """The namespace's rate prior (ADR 0066): fitted on its situations' counts when first needed,
        and again once its ends since then reach a tenth of the outcomes it was fitted on (at least
        :data:`REFIT_MIN_ENDS`), so a fit's cost is spread over many ends. The default prior under
        ``rule = "wilson"``, which reads none."""
        if self.thresholds.rule != "bayes":
            return DEFAULT_PRIOR
        fitted = self._priors.get(namespace)
        if fitted is None or fitted[1] >= max(REFIT_MIN_ENDS, REFIT_SHARE * fitted[0].outcomes):
            fitted = (fit_prior(self._reader.situation_counts(namespace).values()), 0)
            self._priors[namespace] = fitted
        return fitted[0]

    def _seen_end(self, namespace: str) -> None:
        if namespace in self._priors:
            prior, ends = self._priors[namespace]
            self._priors[namespace] = (prior, ends + 1)

    # -- reads ------------------------------------------------------------------------------------

    def show(self, episode_id: str) -> EpisodeState:
        """One episode with its trace (a forgotten one as its tombstone).

        :raises NotFound: for an unknown id.
        """
        episode_id = check_episode_id(episode_id)
        found = self._reader.get_episodes([episode_id]).get(episode_id)
        if found is None:
            raise NotFound(f"no episode {episode_id}")
        return found

    def list(self, namespace: str = "default", *, status: str | None = None, limit: int = 50,
             after: str | None = None) -> list[EpisodeState]:
        """A page of episodes ordered by id (forgotten ones only when asked for by status)."""
        return [*self.page(namespace, status=status, limit=limit, after=after).items]

    def page(self, namespace: str = "default", *, status: str | None = None, limit: int = 50,
             after: str | None = None) -> EpisodePage:
        """Up to ``limit`` episodes with ids after ``after``, and the cursor of the next page when
        another episode matches (read one past the page to know)."""
        _check_namespace(namespace)
        if status is not None and status not in EPISODE_STATUSES:
            raise ValidationError(f"status is one of {', '.join(EPISODE_STATUSES)}, not {status!r}", field="status")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise ValidationError(f"limit must be 1..1000, not {limit!r}", field="limit")
        found = self._reader.episodes(namespace, status=status, after=after, limit=limit + 1)
        more = len(found) > limit
        return EpisodePage(tuple(found[:limit]), found[limit - 1].episode_id if more else None)

    def policies(self, namespace: str = "default", *, status: str | None = None) -> list[PolicyState]:
        """The namespace's policies (forgotten ones only when asked for by status)."""
        _check_namespace(namespace)
        if status is not None and status not in POLICY_STATUSES:
            raise ValidationError(f"status is one of {', '.join(POLICY_STATUSES)}, not {status!r}", field="status")
        return self._reader.policies(namespace, status=status)

    def procedures(self, namespace: str = "default", *, status: str | None = None) -> list[ProcedureState]:
        """The namespace's procedures, every version (forgotten ones only when asked for)."""
        _check_namespace(namespace)
        return self._reader.procedures(namespace, status=status)

    def procedures_of(self, policy_ids: Sequence[str]) -> list[ProcedureState]:
        """The not-forgotten procedures of these policies."""
        return self._reader.procedures_of(policy_ids)


def _check_namespace(namespace: str) -> None:
    problems = check_namespace(namespace)
    if problems:
        raise problems[0]


def experience_differences(live: HasExperience, rebuilt: HasExperience, stream_ids: Sequence[str]) -> list[str]:
    """Replay's comparison of the experience projection: one line per stream whose state differs,
    per situation whose outcome counts differ, per policy whose support links differ (ADR 0071)."""
    if not stream_ids:
        return []
    a, b = live.experience, rebuilt.experience
    diffs, namespaces = [], set()
    for start in range(0, len(stream_ids), 500):
        chunk = stream_ids[start:start + 500]
        left = {**a.get_episodes(chunk), **a.get_policies(chunk), **a.get_procedures(chunk)}
        right = {**b.get_episodes(chunk), **b.get_policies(chunk), **b.get_procedures(chunk)}
        namespaces.update(s.namespace for s in (*left.values(), *right.values()))
        for sid in chunk:
            if left.get(sid) != right.get(sid):
                diffs.append(f"experience {sid}: live {left.get(sid)!r} != rebuilt {right.get(sid)!r}")
        policies = [sid for sid in chunk if sid.startswith("po_")]
        if policies:
            left_links, right_links = a.support_of(policies), b.support_of(policies)
            for pid in policies:
                if list(left_links.get(pid, {}).items()) != list(right_links.get(pid, {}).items()):
                    diffs.append(f"support of {pid}: live {left_links.get(pid)!r} != rebuilt {right_links.get(pid)!r}")
    for namespace in sorted(namespaces):
        left_counts, right_counts = a.situation_counts(namespace), b.situation_counts(namespace)
        for sig in sorted(set(left_counts) | set(right_counts)):
            if left_counts.get(sig) != right_counts.get(sig):
                diffs.append(f"outcome counts of {sig!r} in {namespace}: live {left_counts.get(sig)!r} "
                             f"!= rebuilt {right_counts.get(sig)!r}")
    return diffs
