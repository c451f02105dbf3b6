"""Forgetting in the experience channel: the cascade of a forgotten episode (pure; docs/experience.md).

Forgetting an episode forgets its trace with it (the steps are events of its stream), every
procedure built from its steps, and every policy it leaves with no support; a policy that keeps
other support loses the episode from its counts (:class:`PolicySupportForgotten`), and the
procedures of a forgotten policy go with it. Each forgotten stream gets an
:class:`~hlmem.domain.events.ItemForgotten` and a ledger row, so replay and restore never bring
it back; the payloads are erased through the storage's one audited path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from attrs import frozen

from hlmem.domain.events import DomainEvent, ForgetRequested, ItemForgotten
from hlmem.domain.experience_counts import trailing_failures
from hlmem.domain.experience_events import PolicySupportForgotten
from hlmem.domain.experience_state import EpisodeState, PolicyState, ProcedureState

#: Counts an experience forget reports, in display order.
EXPERIENCE_COUNTS = ("episodes", "steps", "policies", "procedures", "policy_support")


@frozen
class ExperienceForgetPlan:
    """The streams one forget turns into tombstones and the policies that lose support."""

    episodes: tuple[str, ...]
    policies: tuple[str, ...]
    procedures: tuple[str, ...]
    #: Per surviving policy: its id, the episodes it loses, whether each had succeeded, and the
    #: failures in a row left at the end of its support.
    unlinks: tuple[tuple[str, tuple[str, ...], tuple[bool, ...], int], ...]
    steps: int

    @property
    def streams(self) -> tuple[str, ...]:
        """Every stream forgotten, episodes first."""
        return (*self.episodes, *self.policies, *self.procedures)

    @property
    def empty(self) -> bool:
        """Whether there is nothing left to forget."""
        return not self.streams and not self.unlinks

    @property
    def counts(self) -> dict[str, int]:
        """What the report counts (:data:`EXPERIENCE_COUNTS`)."""
        return {"episodes": len(self.episodes), "steps": self.steps, "policies": len(self.policies),
                "procedures": len(self.procedures), "policy_support": sum(len(u[1]) for u in self.unlinks)}


def plan_experience_forget(episodes: Mapping[str, EpisodeState], policies: Mapping[str, PolicyState],
                           procedures: Mapping[str, ProcedureState],
                           support: Mapping[str, Mapping[str, bool]]) -> ExperienceForgetPlan:
    """The cascade of forgetting ``episodes`` (already-forgotten ones are skipped).

    :param policies: at least every live policy citing one of the episodes.
    :param procedures: at least every procedure of those policies or built from those episodes.
    :param support: those policies' support links, ``{episode_id: succeeded}`` in the order counted
        (``ExperienceReader.support_of``).
    """
    gone = {e for e, s in episodes.items() if s.status != "forgotten"}
    dead_policies, unlinks = [], []
    for pid in sorted(policies):
        policy = policies[pid]
        if policy.status == "forgotten":
            continue
        links = support.get(pid, {})
        lost = tuple(e for e in links if e in gone)
        if not lost:
            continue
        if len(lost) == len(links):
            dead_policies.append(pid)
        else:
            unlinks.append((pid, lost, tuple(links[e] for e in lost),
                            trailing_failures(ok for e, ok in links.items() if e not in gone)))
    dead = set(dead_policies)
    dead_procedures = sorted(pid for pid, p in procedures.items() if p.status != "forgotten" and (
        p.source_episode in gone or p.policy_id in dead))
    steps = sum(len(episodes[e].steps) for e in gone)
    return ExperienceForgetPlan(tuple(sorted(gone)), tuple(dead_policies), tuple(dead_procedures), tuple(unlinks),
                                steps)


def experience_forget_events(plan: ExperienceForgetPlan, versions: Mapping[str, int], namespaces: Mapping[str, str],
                             *, forget_id: str, new_id: Callable[[str], str], recorded_at: datetime, namespace: str,
                             target_kind: str, target: str, actor: str, reason: str) -> tuple[DomainEvent, ...]:
    """One :class:`ForgetRequested`, one :class:`ItemForgotten` per stream, one
    :class:`PolicySupportForgotten` per surviving policy (``versions``: each stream's last)."""
    events: list[DomainEvent] = [ForgetRequested(
        event_id=new_id("lg"), stream_id=forget_id, version=1, recorded_at=recorded_at, namespace=namespace,
        target_kind=target_kind, target=target, actor=actor, reason=reason,
        counts=tuple(plan.counts.items()), items=plan.streams)]
    for sid in plan.streams:
        events.append(ItemForgotten(event_id=new_id("lg"), stream_id=sid, version=versions[sid] + 1,
                                    recorded_at=recorded_at, namespace=namespaces[sid], reason=reason, actor=actor,
                                    cascade_of=forget_id))
    for pid, lost, succeeded, streak in plan.unlinks:
        events.append(PolicySupportForgotten(event_id=new_id("lg"), stream_id=pid, version=versions[pid] + 1,
                                             recorded_at=recorded_at, namespace=namespaces[pid], episodes=lost,
                                             cascade_of=forget_id, succeeded=succeeded, streak=streak))
    return tuple(events)
