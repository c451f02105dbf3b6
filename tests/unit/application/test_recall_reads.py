"""RecallReads: each claim and observation of one recall is read from the store once."""

from __future__ import annotations

from hlmem.application.recall.reads import RecallReads


class _RecordingStorage:
    """Knows a few claims and observations (any object stands for a state); records every read."""

    def __init__(self) -> None:
        self.claim_states = {"cl_a": "A", "cl_b": "B"}
        self.observation_states = {"ev_1": _Obs("s1"), "ev_2": _Obs("s2")}
        self.sessions = {"ev_1": "s1", "ev_2": "s2", "ev_3": "s3"}
        self.calls: list[tuple[str, list[str]]] = []

    def get_claims(self, ids: list[str]) -> dict[str, str]:
        self.calls.append(("get_claims", list(ids)))
        return {i: self.claim_states[i] for i in ids if i in self.claim_states}

    def get_observations(self, ids: list[str]) -> dict[str, _Obs]:
        self.calls.append(("get_observations", list(ids)))
        return {i: self.observation_states[i] for i in ids if i in self.observation_states}

    def sessions_of(self, ids: list[str]) -> dict[str, str]:
        self.calls.append(("sessions_of", list(ids)))
        return {i: self.sessions[i] for i in ids if i in self.sessions}


class _Obs:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id


def test_ids_read_before_cost_no_read_and_unknown_ids_are_not_asked_twice() -> None:
    storage = _RecordingStorage()
    reads = RecallReads(storage)  # type: ignore[arg-type]
    assert reads.claims(["cl_a", "cl_x", "cl_a"]) == {"cl_a": "A"}
    assert reads.claims(["cl_x", "cl_b", "cl_a"]) == {"cl_b": "B", "cl_a": "A"}
    assert reads.claims(["cl_a", "cl_x"]) == {"cl_a": "A"}
    assert reads.claims([]) == {}
    assert storage.calls == [("get_claims", ["cl_a", "cl_x"]), ("get_claims", ["cl_b"])]


def test_only_the_ids_asked_come_back_in_the_order_asked() -> None:
    reads = RecallReads(_RecordingStorage())  # type: ignore[arg-type]
    reads.observations(["ev_1", "ev_2"])
    assert list(reads.observations(["ev_2"])) == ["ev_2"]
    assert list(reads.observations(["ev_2", "ev_1"])) == ["ev_2", "ev_1"]


def test_sessions_come_from_the_observations_read_and_the_store_for_the_rest() -> None:
    storage = _RecordingStorage()
    reads = RecallReads(storage)  # type: ignore[arg-type]
    reads.observations(["ev_1", "ev_9"])
    assert reads.sessions(["ev_1", "ev_9", "ev_2", "ev_3"]) == {"ev_1": "s1", "ev_2": "s2", "ev_3": "s3"}
    # ev_9 is known not to exist: it is not asked again.
    assert storage.calls[-1] == ("sessions_of", ["ev_2", "ev_3"])
