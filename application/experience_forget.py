"""Forgetting episodes: the experience channel's cascade, erased and tombstoned in one transaction.

Like :mod:`hlmem.application.forgetting` (docs/forgetting.md, ADR 0014), in one write transaction:
plan the cascade (:func:`hlmem.domain.experience_forgetting.plan_experience_forget`), erase the
payloads of every event of every forgotten stream through the one audited path, append the
``ForgetRequested`` / ``ItemForgotten`` / ``PolicySupportForgotten`` events, and add a ledger row
per forgotten stream, so replay (which redacts ledger streams) and restore (which enforces the
live ledger, :meth:`enforce_tombstones`) never bring anything back. The bytes then leave the
disk through ``compact_erased``.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from attrs import evolve

from hlmem.application.forgetting import ForgetReport, compacted
from hlmem.application.ports import Clock, ExperienceForgetStore, IdGenerator, TombstoneLedger
from hlmem.domain.errors import NotFound
from hlmem.domain.experience_decisions import check_episode_id
from hlmem.domain.experience_forgetting import (
    EXPERIENCE_COUNTS,
    ExperienceForgetPlan,
    experience_forget_events,
    plan_experience_forget,
)
from hlmem.domain.redaction import Tombstone

#: The ledger's ``kind`` of each experience stream (by prefix); no content fingerprint is kept.
KINDS = {"ep_": "episode", "po_": "policy", "pd_": "procedure"}
#: Every count an episode forget reports.
REPORT_COUNTS = (*EXPERIENCE_COUNTS, "payloads")


class _DryRun(Exception):
    def __init__(self, report: ForgetReport) -> None:
        super().__init__("dry run")
        self.report = report


class ExperienceForgetService:
    """Forgets episodes with their traces, dependent procedures and unsupported policies."""

    def __init__(self, storage: ExperienceForgetStore, ledger: TombstoneLedger, clock: Clock,
                 ids: IdGenerator) -> None:
        self._storage = storage
        self._ledger = ledger
        self._clock = clock
        self._ids = ids

    def forget_episode(self, episode_id: str, *, actor: str = "user", reason: str = "",
                       dry_run: bool = False) -> ForgetReport:
        """Forget one episode and its cascade; idempotent (a repeat reports ``already_forgotten``).

        :param reason: kept in the audit event — do not put the forgotten text in it.
        :raises NotFound: for an unknown episode.
        """
        episode_id = check_episode_id(episode_id)
        reader = self._storage.experience
        try:
            with self._storage.transaction():
                episode = reader.get_episodes([episode_id]).get(episode_id)
                if episode is None:
                    raise NotFound(f"no episode {episode_id}")
                plan = self._plan([episode_id])
                if plan.empty:
                    found = self._ledger.of_streams([episode_id]).get(episode_id)
                    return ForgetReport(target_kind="episode", target=episode_id, namespace=episode.namespace,
                                        counts=_counts({}), dry_run=dry_run, already_forgotten=True,
                                        forgotten_at=found.forgotten_at if found else None)
                report = self._execute(plan, namespace=episode.namespace, target=episode_id, actor=actor,
                                       reason=reason)
                if dry_run:
                    raise _DryRun(evolve(report, dry_run=True, forget_id=None, forgotten_at=None))
        except _DryRun as done:
            return done.report
        return compacted(report, self._storage.compact_erased())

    def enforce_tombstones(self, tombstones: Sequence[Tombstone], *, actor: str, reason: str) -> int:
        """Forget, with the cascade, every live episode, policy and procedure ``tombstones`` name by
        id (restore calls this on the restored copy); return how many streams it newly forgot."""
        reader = self._storage.experience
        ids = sorted({t.stream_id for t in tombstones if t.stream_id[:3] in KINDS})
        if not ids:
            return 0
        with self._storage.transaction():
            episodes = [e for e, s in reader.get_episodes(ids).items() if s.status != "forgotten"]
            plan = self._plan(episodes)
            extra_policies = [p for p, s in reader.get_policies(ids).items()
                              if s.status != "forgotten" and p not in plan.policies]
            extra_procedures = {p for p, s in reader.get_procedures(ids).items() if s.status != "forgotten"}
            extra_procedures |= {p.procedure_id for p in reader.procedures_of(extra_policies)}
            extra_procedures -= set(plan.procedures)
            plan = ExperienceForgetPlan(plan.episodes, (*plan.policies, *sorted(extra_policies)),
                                        (*plan.procedures, *sorted(extra_procedures)),
                                        tuple(u for u in plan.unlinks if u[0] not in extra_policies), plan.steps)
            if plan.empty:
                return 0
            self._execute(plan, namespace="default", target=f"{len(tombstones)} tombstones", actor=actor,
                          reason=reason, target_kind="tombstones")
        self._storage.compact_erased()
        return len(plan.streams)

    def _plan(self, episode_ids: Sequence[str]) -> ExperienceForgetPlan:
        reader = self._storage.experience
        episodes = reader.get_episodes(episode_ids)
        policies = {p.policy_id: p for p in reader.policies_citing(list(episodes))}
        procedures = {p.procedure_id: p for p in reader.procedures_of(list(policies), list(episodes))}
        return plan_experience_forget(episodes, policies, procedures, reader.support_of(list(policies)))

    def _execute(self, plan: ExperienceForgetPlan, *, namespace: str, target: str, actor: str, reason: str,
                 target_kind: str = "episode") -> ForgetReport:
        reader = self._storage.experience
        now = self._clock.now()
        forget_id = self._ids.new("fg")
        touched = [*plan.streams, *(u[0] for u in plan.unlinks)]
        states = {**reader.get_episodes(touched), **reader.get_policies(touched), **reader.get_procedures(touched)}
        counts = plan.counts
        counts["payloads"] = self._storage.erase_payloads(list(plan.streams), reason=f"forget {forget_id}", at=now)
        self._storage.mark_erasure_pending(forget_id)
        events = experience_forget_events(
            plan, {s: st.version for s, st in states.items()}, {s: st.namespace for s, st in states.items()},
            forget_id=forget_id, new_id=self._ids.new, recorded_at=now, namespace=namespace,
            target_kind=target_kind, target=target, actor=actor, reason=reason)
        self._storage.append(list(events))
        self._ledger.add([Tombstone("", KINDS[s[:3]], s, now, forget_id) for s in plan.streams])
        return ForgetReport(target_kind=target_kind, target=target, namespace=namespace, counts=_counts(counts),
                            items=plan.streams, forget_id=forget_id, forgotten_at=now)


def _counts(values: dict[str, int]) -> MappingProxyType:
    return MappingProxyType({k: int(values.get(k, 0)) for k in REPORT_COUNTS})


class BothEnforcers:
    """Restore's tombstone enforcement over both channels: facts first, then experience."""

    def __init__(self, facts: object, experience: ExperienceForgetService) -> None:
        self._facts = facts
        self._experience = experience

    def enforce_tombstones(self, tombstones: Sequence[Tombstone], *, actor: str, reason: str) -> int:
        n = self._facts.enforce_tombstones(tombstones, actor=actor, reason=reason)
        return n + self._experience.enforce_tombstones(tombstones, actor=actor, reason=reason)
