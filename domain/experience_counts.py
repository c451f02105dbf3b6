"""The experience channel's two projections beside the stream states (pure; ADR 0071).

- **Outcome counts**: per situation (namespace, signature) and approach, how many counted
  episodes succeeded and failed. An episode counts once it has ended succeeded or failed with an
  approach; forgetting it takes it out again. :func:`count_changes` turns one episode's state
  before and after an event into the rows' changes, so every store keeps the counts in the
  append's own transaction, and the policy lifecycle reads a situation's counts in a few rows
  however long its history is.
- **Support links**: which episodes support which policy, and whether each succeeded, in the
  order they were counted. :func:`support_change` says what one policy event does to them. The
  forget cascade reads them (which policies an episode supports, which of their outcomes go);
  a policy's own state holds only counts and its latest few episodes.

Both are folds of the log like the states: replay rebuilds them, and the stores' contract and
state-machine tests compare them with :func:`fold_counts` and :func:`fold_support`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from attrs import evolve, frozen

from hlmem.domain.events import DomainEvent, ItemForgotten
from hlmem.domain.experience_events import PolicyOutcomeRecorded, PolicyProposed, PolicySupportForgotten
from hlmem.domain.experience_state import EpisodeState

#: A counts row's key: (namespace, signature, approach).
CountKey = tuple[str, str, str]


class Counts(NamedTuple):
    """One approach's counted episodes in one situation."""

    successes: int
    failures: int

    @property
    def n(self) -> int:
        """Episodes counted."""
        return self.successes + self.failures

_COUNTED = {"succeeded": True, "failed": False}


def counted(state: EpisodeState | None) -> tuple[CountKey, bool] | None:
    """The row an episode counts in and whether it succeeded; None when it counts nowhere (running,
    cancelled, forgotten, or no approach)."""
    if state is None or not state.approach or state.status not in _COUNTED:
        return None
    return (state.namespace, state.signature, state.approach), _COUNTED[state.status]


def count_changes(before: EpisodeState | None, after: EpisodeState | None) -> dict[CountKey, tuple[int, int]]:
    """How an episode's event changes the counts: ``{key: (Δsuccesses, Δfailures)}``, rows that do
    not change left out."""
    out: dict[CountKey, list[int]] = {}
    for state, sign in ((before, -1), (after, 1)):
        found = counted(state)
        if found is not None:
            key, ok = found
            row = out.setdefault(key, [0, 0])
            row[0 if ok else 1] += sign
    return {k: (s, f) for k, (s, f) in out.items() if s or f}


def fold_counts(episodes: Iterable[EpisodeState]) -> dict[CountKey, tuple[int, int]]:
    """The counts of these episodes' current states (rows with nothing counted left out)."""
    out: dict[CountKey, tuple[int, int]] = {}
    for e in episodes:
        found = counted(e)
        if found is not None:
            key, ok = found
            s, f = out.get(key, (0, 0))
            out[key] = (s + ok, f + (not ok))
    return out


@frozen
class SupportChange:
    """What one event does to a policy's support links: drop them all first (``replace``), then
    add ``add`` (``(episode_id, succeeded)``, in order, an episode already linked kept where it
    is) and remove ``remove``."""

    policy_id: str
    replace: bool = False
    add: tuple[tuple[str, bool], ...] = ()
    remove: tuple[str, ...] = ()


def support_change(event: DomainEvent) -> SupportChange | None:
    """The support links' change an event makes (None for an event that makes none)."""
    if not event.stream_id.startswith("po_"):
        return None
    if isinstance(event, PolicyProposed):
        return SupportChange(event.stream_id, replace=True, add=tuple(dict.fromkeys(
            (e, bool(ok)) for e, ok in event.support)))
    if isinstance(event, PolicyOutcomeRecorded):
        return SupportChange(event.stream_id, add=((event.episode_id, bool(event.succeeded)),))
    if isinstance(event, PolicySupportForgotten):
        return SupportChange(event.stream_id, remove=tuple(event.episodes))
    if isinstance(event, ItemForgotten):
        return SupportChange(event.stream_id, replace=True)
    return None


def apply_support(links: Mapping[str, bool], change: SupportChange) -> dict[str, bool]:
    """One policy's links (``{episode_id: succeeded}`` in the order counted) after ``change``."""
    out = {} if change.replace else dict(links)
    for episode_id, ok in change.add:
        out.setdefault(episode_id, ok)
    for episode_id in change.remove:
        out.pop(episode_id, None)
    return out


def fold_support(events: Iterable[DomainEvent]) -> dict[str, dict[str, bool]]:
    """Every policy's support links after ``events`` (policies with none left out)."""
    out: dict[str, dict[str, bool]] = {}
    for event in events:
        change = support_change(event)
        if change is not None:
            out[change.policy_id] = apply_support(out.get(change.policy_id, {}), change)
    return {p: links for p, links in out.items() if links}


def complete_support_forgotten(event: PolicySupportForgotten, links: Mapping[str, bool]) -> PolicySupportForgotten:
    """A ``policy.support_forgotten.v1`` written before the event carried the lost episodes'
    outcomes and the streak left, completed from the policy's support links as they were just
    before it (what the forget read when it wrote the event): the upcast each store applies
    before reducing, so an old log replays to the same counts."""
    if len(event.succeeded) == len(event.episodes) and event.streak is not None:
        return event

    gone = set(event.episodes)
    return evolve(event, succeeded=tuple(bool(links.get(e, False)) for e in event.episodes),
                  streak=trailing_failures(ok for e, ok in links.items() if e not in gone))


def trailing_failures(outcomes: Iterable[bool]) -> int:
    """Failures in a row at the end of ``outcomes``."""
    n = 0
    for ok in outcomes:
        n = 0 if ok else n + 1
    return n
