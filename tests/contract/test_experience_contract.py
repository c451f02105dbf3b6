"""The experience channel's read role (``ExperienceReader``, ADR 0045), once per adapter.

The projection is built the way production builds it: events appended through the store's own
``append`` by the :class:`ExperienceService`; the suite checks the reads' contract, that a failed
transaction leaves no trace in the projection, and that both adapters agree state for state.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.application.experience import ExperienceService, experience_differences
from hlmem.application.experience_forget import ExperienceForgetService
from hlmem.application.ports import ExperienceReader, HasExperience
from hlmem.domain.experience_decisions import EndEpisode, RecordStep, StartEpisode
from hlmem.domain.experience_policy import PolicyThresholds
from hlmem.domain.experience_counts import Counts, fold_counts, fold_support, trailing_failures
from hlmem.domain.experience_events import PolicyProposed, PolicySupportForgotten
from hlmem.domain.experience_state import EpisodeOutcome, outcomes_of

from support.stores import T0, InMemoryStore, PostgresStore, SQLiteStore, StoreContract

LOW = PolicyThresholds(rule="wilson", min_support=3, min_reliability=0.4, min_lead=0.1, probation=1, retire_after=2,
                       procedure_min_successes=3, procedure_min_reliability=0.4)


def run_workload(store, *, episodes: int = 12, namespace: str = "default") -> ExperienceService:
    """Episodes of two situations: ``pip`` always works for installing, ``retry`` half the time."""
    clock = FixedClock(T0)
    svc = ExperienceService(store, clock, SequentialIds(), LOW)
    for n in range(episodes):
        clock.advance(timedelta(minutes=1))
        install = n % 3 != 2
        goal = f"install package lib{n}.py" if install else "flaky network call"
        approach = ("pip" if n % 2 == 0 else "conda") if install else "retry"
        ep = svc.start(StartEpisode(goal=goal, namespace=namespace, approach=approach))
        svc.record_step(RecordStep(episode_id=ep.episode_id, action=f"{approach} install", tool=approach))
        svc.record_step(RecordStep(episode_id=ep.episode_id, action="check", error="E1" if n % 4 == 1 else ""))
        ok = approach == "pip" or (approach == "retry" and n % 2 == 0)
        svc.end(EndEpisode(episode_id=ep.episode_id, status="succeeded" if ok else "failed", reward=float(ok)))
    return svc


class ExperienceReaderContract(StoreContract):
    def test_the_store_has_the_role(self, store) -> None:
        assert isinstance(store, HasExperience)
        assert isinstance(store.experience, ExperienceReader)

    def test_episodes_are_read_back_in_order_with_their_steps(self, store) -> None:
        svc = run_workload(store)
        reader = store.experience
        listed = reader.episodes("default", limit=100)
        assert [e.episode_id for e in listed] == sorted(e.episode_id for e in listed) and len(listed) == 12
        one = listed[0]
        assert [s.index for s in one.steps] == [1, 2] and one.status in ("succeeded", "failed")
        assert reader.get_episodes([one.episode_id, "ep_unknown"]) == {one.episode_id: one}
        page = reader.episodes("default", limit=5, after=listed[3].episode_id)
        assert [e.episode_id for e in page] == [e.episode_id for e in listed[4:9]]
        assert all(e.status == "failed" for e in reader.episodes("default", status="failed"))
        assert reader.episodes("other") == []
        sig = one.signature
        assert all(e.signature == sig for e in reader.episodes("default", signature=sig))
        assert reader.signatures("default") == sorted({e.signature for e in listed})
        assert svc.show(one.episode_id) == one

    def test_policies_and_procedures_follow_the_outcomes(self, store) -> None:
        run_workload(store)
        reader = store.experience
        policies = reader.policies("default")
        pip = [p for p in policies if p.approach == "pip"]
        assert pip and pip[0].status == "active" and pip[0].failures == 0
        assert reader.get_policies([pip[0].policy_id]) == {pip[0].policy_id: pip[0]}
        assert all(p.status == "active" for p in reader.policies("default", status="active"))
        assert reader.policies("default", signature=pip[0].signature) == [
            p for p in policies if p.signature == pip[0].signature]
        first = pip[0].recent_episodes[0]
        assert pip[0] in reader.policies_citing([first])
        procs = reader.procedures_of([pip[0].policy_id])
        assert procs and procs[0].policy_id == pip[0].policy_id and procs[0].number == 1
        assert procs[0].steps == ("pip: pip install", "check") or procs[0].steps[0] == "pip: pip install"
        assert reader.procedures_of([], [procs[0].source_episode]) == procs
        assert reader.get_procedures([procs[0].procedure_id]) == {procs[0].procedure_id: procs[0]}
        assert procs[0] in reader.procedures("default")

    def test_outcomes_are_the_counted_episodes_in_the_order_they_ended(self, store) -> None:
        clock = FixedClock(T0)
        svc = ExperienceService(store, clock, SequentialIds(), LOW)

        def start(approach: str = "make", goal: str = "build the site", namespace: str = "default") -> str:
            clock.advance(timedelta(seconds=1))
            return svc.start(StartEpisode(goal=goal, namespace=namespace, approach=approach)).episode_id

        def end(episode_id: str, status: str) -> None:
            svc.end(EndEpisode(episode_id=episode_id, status=status))

        a, b, c, d = start(), start("bazel"), start(), start("bazel")
        cancelled, unnamed, running, forgotten = start(), start(""), start(), start()
        elsewhere, other_goal = start(namespace="other"), start(goal="lint the docs")
        clock.advance(timedelta(minutes=1))
        end(c, "succeeded")
        clock.advance(timedelta(minutes=1))
        end(d, "failed")
        end(b, "succeeded")  # the same instant as d: the id decides
        clock.advance(timedelta(minutes=1))
        for episode_id, status in ((a, "failed"), (cancelled, "cancelled"), (unnamed, "succeeded"),
                                   (forgotten, "succeeded"), (elsewhere, "succeeded"), (other_goal, "failed")):
            end(episode_id, status)
        ExperienceForgetService(store, store.tombstones, FixedClock(T0), SequentialIds(start=10_000)).forget_episode(
            forgotten)
        reader = store.experience
        sig = reader.get_episodes([a])[a].signature
        assert reader.outcomes("default", sig) == [
            EpisodeOutcome(c, "make", True), EpisodeOutcome(b, "bazel", True), EpisodeOutcome(d, "bazel", False),
            EpisodeOutcome(a, "make", False)]
        assert reader.outcomes("default", sig) == list(outcomes_of(reader.episodes("default", signature=sig)))
        assert reader.outcomes("default", sig, approach="bazel") == [EpisodeOutcome(b, "bazel", True),
                                                                     EpisodeOutcome(d, "bazel", False)]
        assert running and reader.outcomes("default", "no such situation") == []
        assert [o.episode_id for o in reader.outcomes("other", sig)] == [elsewhere]
        # The counts projection holds exactly what the outcomes list (ADR 0071).
        assert reader.approach_counts("default", sig) == {"bazel": Counts(1, 1), "make": Counts(1, 1)}
        assert reader.approach_counts("other", sig) == {"make": Counts(1, 0)}
        assert reader.situation_counts("default") == {
            sig: {"bazel": Counts(1, 1), "make": Counts(1, 1)},
            reader.get_episodes([other_goal])[other_goal].signature: {"make": Counts(0, 1)}}
        assert reader.approach_counts("default", "no such situation") == {}

    def test_counts_and_support_links_are_the_fold_of_the_log(self, store) -> None:
        svc = run_workload(store, episodes=24)
        reader = store.experience
        forget = ExperienceForgetService(store, store.tombstones, FixedClock(T0), SequentialIds(start=10_000))
        policy = next(p for p in reader.policies("default") if p.approach == "pip")
        links = reader.support_of([policy.policy_id])[policy.policy_id]
        assert len(links) == policy.support and list(links.items())[-len(policy.recent):] == list(policy.recent)
        # Forget a supporting episode and one the policy never counted: counts and links follow.
        forget.forget_episode(next(iter(links)))
        forget.forget_episode(reader.episodes("default", status="failed")[0].episode_id)
        svc.end(EndEpisode(episode_id=svc.start(StartEpisode(goal="flaky network call", approach="retry")).episode_id,
                           status="cancelled"))
        events = [s.event for s in store.read()]
        episodes = reader.get_episodes([e.stream_id for e in events if e.stream_id.startswith("ep_")])
        folded = fold_counts(episodes.values())
        for namespace in ("default", "other"):
            expected: dict = {}
            for (ns, sig, approach), row in folded.items():
                if ns == namespace:
                    expected.setdefault(sig, {})[approach] = Counts(*row)
            assert reader.situation_counts(namespace) == expected
        links_now = fold_support(events)
        policy_ids = [e.stream_id for e in events if e.stream_id.startswith("po_")]
        assert {p: list(v.items()) for p, v in reader.support_of(policy_ids).items()} == {
            p: list(v.items()) for p, v in links_now.items()}
        for p in reader.get_policies(policy_ids).values():
            own = links_now.get(p.policy_id, {})
            assert (p.successes, p.failures) == (sum(own.values()), len(own) - sum(own.values())), p
            assert p.streak == trailing_failures(own.values())

    def test_a_support_forget_written_before_its_outcomes_were_recorded_is_completed(self, store) -> None:
        # policy.support_forgotten.v1 events from before ADR 0071 name the lost episodes only: the
        # store completes them from its support links, so an old log replays to the same counts.
        def event(cls, version: int, **payload):
            return cls(event_id=f"lg_{version:04d}", stream_id="po_old", version=version, recorded_at=T0,
                       namespace="default", **payload)

        with store.transaction():
            store.append([event(PolicyProposed, 1, signature="build it", approach="make", support=(
                ("ep_1", True), ("ep_2", False), ("ep_3", True), ("ep_4", False), ("ep_5", False)))])
            store.append([event(PolicySupportForgotten, 2, episodes=("ep_3", "ep_5"))])
        policy = store.experience.get_policies(["po_old"])["po_old"]
        assert (policy.successes, policy.failures, policy.streak) == (1, 2, 2)
        assert policy.recent == (("ep_1", True), ("ep_2", False), ("ep_4", False))
        assert store.experience.support_of(["po_old"]) == {"po_old": {"ep_1": True, "ep_2": False, "ep_4": False}}

    def test_forgotten_streams_are_listed_only_when_asked_for(self, store) -> None:
        run_workload(store)
        reader = store.experience
        victim = reader.episodes("default")[0]
        ExperienceForgetService(store, store.tombstones, FixedClock(T0), SequentialIds(start=10_000)).forget_episode(
            victim.episode_id)
        assert victim.episode_id not in {e.episode_id for e in reader.episodes("default")}
        gone = reader.episodes("default", status="forgotten")
        assert [e.episode_id for e in gone] == [victim.episode_id] and gone[0].goal == "" and gone[0].steps[0].action == ""
        assert all(victim.episode_id not in p.recent_episodes for p in reader.policies("default"))
        assert all(victim.episode_id not in links for links in reader.support_of(
            [p.policy_id for p in reader.policies("default")]).values())
        assert reader.policies_citing([victim.episode_id]) == []

    def test_a_failed_transaction_leaves_no_trace(self, store) -> None:
        svc = ExperienceService(store, FixedClock(T0), SequentialIds())
        with pytest.raises(RuntimeError), store.transaction():
            ep = svc.start(StartEpisode(goal="deploy the site"))
            assert store.experience.get_episodes([ep.episode_id])
            raise RuntimeError("boom")
        assert store.experience.episodes("default") == []
        assert store.experience.get_episodes([ep.episode_id]) == {}
        svc = run_workload(store, episodes=6)
        counts = store.experience.situation_counts("default")
        policies = [p.policy_id for p in store.experience.policies("default")]
        links = store.experience.support_of(policies)
        with pytest.raises(RuntimeError), store.transaction():
            for approach in ("pip", "conda"):
                started = svc.start(StartEpisode(goal="install package x.py", approach=approach))
                svc.end(EndEpisode(episode_id=started.episode_id, status="succeeded"))
            raise RuntimeError("boom")
        assert store.experience.situation_counts("default") == counts
        assert store.experience.support_of(policies) == links

    def test_the_projection_equals_the_in_memory_fold(self, store) -> None:
        run_workload(store)
        other = InMemoryStorage()
        other.append([s.event for s in store.read()])
        ids = list(store.stream_versions())
        assert experience_differences(store, other, [i for i in ids if i[:3] in ("ep_", "po_", "pd_")]) == []


class TestInMemoryExperience(InMemoryStore, ExperienceReaderContract):
    pass


class TestSQLiteExperience(SQLiteStore, ExperienceReaderContract):
    pass


class TestPostgresExperience(PostgresStore, ExperienceReaderContract):
    pass
