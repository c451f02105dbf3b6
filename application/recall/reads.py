"""The store reads of one recall: each claim and observation read once, and the vector side run beside."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hlmem.application.ports import Candidate, Storage
    from hlmem.domain.state import ClaimState, ObservationState


class RecallReads:
    """The claims and observations one recall has read, by id: each is read from the store once.

    A stage asks for the ids it needs and gets those found; ids read before (by an earlier stage,
    or ahead of need, batched with another stage's ids) cost no round trip.
    """

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._claims: dict[str, ClaimState] = {}
        self._observations: dict[str, ObservationState] = {}
        self._asked_claims: set[str] = set()
        self._asked_observations: set[str] = set()

    def claims(self, ids: Sequence[str]) -> dict[str, ClaimState]:
        """The claims of ``ids`` that exist (``Storage.get_claims``)."""
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._asked_claims]
        if missing:
            self._claims.update(self._storage.get_claims(missing))
            self._asked_claims.update(missing)
        return {i: self._claims[i] for i in wanted if i in self._claims}

    def observations(self, ids: Sequence[str]) -> dict[str, ObservationState]:
        """The observations of ``ids`` that exist, forgotten ones included (``Storage.get_observations``)."""
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._asked_observations]
        if missing:
            self._observations.update(self._storage.get_observations(missing))
            self._asked_observations.update(missing)
        return {i: self._observations[i] for i in wanted if i in self._observations}

    def sessions(self, event_ids: Sequence[str]) -> dict[str, str]:
        """Each known event's session: from the observations read, else ``Storage.sessions_of``."""
        out = {i: o.session_id for i in event_ids if (o := self._observations.get(i)) is not None}
        missing = [i for i in event_ids if i not in out and i not in self._asked_observations]
        if missing:
            out.update(self._storage.sessions_of(missing))
        return out


class Pending:
    """Work submitted to an executor, or done in the calling thread at :meth:`result` when there is none.

    As a context manager it never lets the work outlive the block: leaving early (an error in the
    block) waits for it and drops its outcome.
    """

    def __init__(self, work: Callable[[], list[Candidate] | None], executor: Executor | None) -> None:
        self._work = work
        self._future: Future | None = executor.submit(work) if executor is not None else None

    def result(self) -> list[Candidate] | None:
        """The work's value; its error is raised here."""
        return self._work() if self._future is None else self._future.result()

    def __enter__(self) -> Pending:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._future is not None and not self._future.cancel():
            self._future.exception()
