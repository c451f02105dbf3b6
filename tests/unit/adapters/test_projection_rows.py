"""Projection rows: every shape of claim and observation state reads back equal to what was written (the
codec's shortcuts included)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from hlmem.adapters.sqlite.connection import open_connection
from hlmem.adapters.sqlite.migrations import migrate
from hlmem.adapters.sqlite.rows import load_claims, load_observations, save_claims, save_observation
from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind
from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion, ObservationState

T0 = datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=timezone.utc)


def _claim(cid: str, **changes: object) -> ClaimState:
    fields: dict[str, object] = dict(
        claim_id=cid, namespace="default", subject="张伟", predicate="lives_in", value="杭州", qualifiers=(),
        coordinates=(), polarity=True, importance=0.5, scope=Scope.PERMANENT, cardinality=Cardinality.SINGLE,
        source="user", recorded_at=T0, version=1, versions=(ClaimVersion(T0, None, T0, None),))
    fields.update(changes)
    return ClaimState(**fields)  # type: ignore[arg-type]


CLAIMS = [
    _claim("cl_plain"),
    _claim("cl_pairs", qualifiers=(("confidence", "high"), ("reason", "健康")), coordinates=(("service", "翻译"),)),
    # Values that look like the empty list's encoding must survive as values.
    _claim("cl_brackets", value="[]", subject="[]", qualifiers=(("k", "[]"),)),
    _claim("cl_full", status=ClaimStatus.SUPERSEDED, superseded_by="cl_next", supersedes=("cl_a", "cl_b"),
           polarity=False, scope=Scope.TEMPORAL, cardinality=Cardinality.MULTI, archived=True, helpful=3,
           unhelpful=1, version=4, evidence=("ev_1", "ev_2"),
           versions=(ClaimVersion(T0, T0 + timedelta(days=3), T0, T0 + timedelta(days=1)),
                     ClaimVersion(T0, T0 + timedelta(days=2), T0 + timedelta(days=1), None))),
    *(_claim(f"cl_{status.value}", status=status) for status in ClaimStatus),
]


@pytest.fixture
def con():
    connection = open_connection(":memory:")
    migrate(connection, T0.isoformat())
    with connection:
        save_claims(connection, [(c, None) for c in CLAIMS])
    yield connection
    connection.close()


def test_every_claim_reads_back_equal(con) -> None:
    loaded = load_claims(con, [c.claim_id for c in CLAIMS])
    assert loaded == {c.claim_id: c for c in CLAIMS}
    assert list(loaded) == [c.claim_id for c in CLAIMS]  # in the order asked
    assert all(type(c.scope) is Scope and type(c.status) is ClaimStatus for c in loaded.values())


def test_ids_are_read_once_in_the_order_asked_and_missing_ones_are_absent(con) -> None:
    loaded = load_claims(con, ["cl_pairs", "cl_missing", "cl_plain", "cl_pairs"])
    assert list(loaded) == ["cl_pairs", "cl_plain"]


def test_an_unknown_enum_value_is_refused_not_guessed(con) -> None:
    with con:
        con.execute("UPDATE claims SET status = 'dormant' WHERE claim_id = 'cl_plain'")
    with pytest.raises(ValueError, match="dormant"):
        load_claims(con, ["cl_plain"])


def test_lists_written_by_other_writers_are_read(con) -> None:
    # JSON with spaces (not this codec's compact form) still decodes.
    with con:
        con.execute("UPDATE claims SET qualifiers = ?, supersedes = ? WHERE claim_id = 'cl_plain'",
                    (json.dumps([["a", "b"]]), json.dumps(["cl_x"])))
        con.execute("UPDATE claims SET coordinates = '[ ]' WHERE claim_id = 'cl_pairs'")
    loaded = load_claims(con, ["cl_plain", "cl_pairs"])
    assert loaded["cl_plain"].qualifiers == (("a", "b"),) and loaded["cl_plain"].supersedes == ("cl_x",)
    assert loaded["cl_pairs"].coordinates == ()


def test_every_observation_reads_back_equal(con) -> None:
    observations = [
        ObservationState(event_id=f"ev_{origin.value}_{kind.value}", namespace="default", text="我搬到杭州了", role="user",
                         session_id="s1", origin_class=origin, session_kind=kind, occurred_at=T0 - timedelta(hours=1),
                         recorded_at=T0, version=2, forgotten=origin is OriginClass.AGENT, helpful=1, unhelpful=2)
        for origin in OriginClass for kind in SessionKind
    ]
    with con:
        for obs in observations:
            save_observation(con, obs)
    assert load_observations(con, [o.event_id for o in observations]) == {o.event_id: o for o in observations}
