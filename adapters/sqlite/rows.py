"""Row codecs: claim and observation states to and from their projection tables."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence

import apsw

from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind
from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion, ObservationState, subject_key
from hlmem.domain.time import from_micros, to_micros

_CLAIM_COLUMNS = (
    "claim_id, namespace, subject, predicate, value, qualifiers, coordinates, polarity, importance, "
    "scope, cardinality, source, recorded_at, version, status, superseded_by, supersedes, archived, helpful, unhelpful"
)
_OBS_COLUMNS = (
    "event_id, namespace, text, role, session_id, origin_class, session_kind, occurred_at, recorded_at, "
    "version, forgotten, helpful, unhelpful"
)


def _pairs(text: str) -> tuple[tuple[str, str], ...]:
    if text == "[]":  # most claims: no qualifiers, no coordinates (as written by _pairs_json)
        return ()
    return tuple((k, v) for k, v in json.loads(text))


def _strings(text: str) -> tuple[str, ...]:
    return () if text == "[]" else tuple(json.loads(text))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# Enum members by value: a dict lookup per row instead of an Enum call (which still judges unknown values).
_SCOPES = {m.value: m for m in Scope}
_CARDINALITIES = {m.value: m for m in Cardinality}
_STATUSES = {m.value: m for m in ClaimStatus}
_ORIGINS = {m.value: m for m in OriginClass}
_SESSION_KINDS = {m.value: m for m in SessionKind}


def _chunks(ids: Sequence[str], size: int = 500) -> Iterable[Sequence[str]]:
    for start in range(0, len(ids), size):
        yield ids[start:start + size]


def load_claims(con: apsw.Connection, ids: Sequence[str]) -> dict[str, ClaimState]:
    """Claim states for ``ids`` (missing ids are absent)."""
    ids = list(dict.fromkeys(ids))
    base: dict[str, tuple] = {}
    versions: dict[str, list[ClaimVersion]] = defaultdict(list)
    evidence: dict[str, list[str]] = defaultdict(list)
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for row in con.execute(f"SELECT {_CLAIM_COLUMNS} FROM claims WHERE claim_id IN ({marks})", chunk):
            base[row[0]] = row
        for cid, vf, vt, rf, rt in con.execute(
            f"SELECT claim_id, valid_from, valid_to, recorded_from, recorded_to FROM claim_versions "
            f"WHERE claim_id IN ({marks}) ORDER BY claim_id, seq", chunk,
        ):
            versions[cid].append(ClaimVersion(from_micros(vf), None if vt is None else from_micros(vt),
                                              from_micros(rf), None if rt is None else from_micros(rt)))
        for cid, eid in con.execute(
            f"SELECT claim_id, event_id FROM claim_evidence WHERE claim_id IN ({marks}) ORDER BY claim_id, seq", chunk
        ):
            evidence[cid].append(eid)
    out: dict[str, ClaimState] = {}
    for cid in ids:
        row = base.get(cid)
        if row is None:
            continue
        out[cid] = ClaimState(
            claim_id=row[0], namespace=row[1], subject=row[2], predicate=row[3], value=row[4],
            qualifiers=_pairs(row[5]), coordinates=_pairs(row[6]), polarity=bool(row[7]), importance=row[8],
            scope=_SCOPES.get(row[9]) or Scope(row[9]),
            cardinality=_CARDINALITIES.get(row[10]) or Cardinality(row[10]), source=row[11],
            recorded_at=from_micros(row[12]), version=row[13], evidence=tuple(evidence.get(cid, ())),
            versions=tuple(versions.get(cid, ())), status=_STATUSES.get(row[14]) or ClaimStatus(row[14]),
            superseded_by=row[15], supersedes=_strings(row[16]), archived=bool(row[17]), helpful=row[18],
            unhelpful=row[19],
        )
    return out


_CLAIMS_SQL = (f"INSERT OR REPLACE INTO claims ({_CLAIM_COLUMNS}, slot_key, subject_key) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
_VERSIONS_SQL = ("INSERT OR REPLACE INTO claim_versions (claim_id, seq, valid_from, valid_to, recorded_from, "
                 "recorded_to) VALUES (?,?,?,?,?,?)")
_EVIDENCE_SQL = "INSERT OR IGNORE INTO claim_evidence (claim_id, event_id, seq) VALUES (?,?,?)"


def _pairs_json(value: tuple) -> str:
    return "[]" if not value else _json(value)


def claim_rows(claim: ClaimState, previous: ClaimState | None) -> tuple[tuple, list[tuple], list[tuple]]:
    """The rows that store ``claim``: its ``claims`` row and the version and evidence rows that
    changed since ``previous`` (the state already stored, or None)."""
    main = (
        claim.claim_id, claim.namespace, claim.subject, claim.predicate, claim.value,
        _pairs_json(claim.qualifiers), _pairs_json(claim.coordinates), int(claim.polarity), claim.importance,
        claim.scope.value, claim.cardinality.value, claim.source, to_micros(claim.recorded_at),
        claim.version, claim.status.value, claim.superseded_by, _pairs_json(claim.supersedes),
        int(claim.archived), claim.helpful, claim.unhelpful, claim.slot_key, subject_key(claim.subject),
    )
    old_versions = previous.versions if previous else ()
    versions = [
        (claim.claim_id, seq, to_micros(row.valid_from), None if row.valid_to is None else to_micros(row.valid_to),
         to_micros(row.recorded_from), None if row.recorded_to is None else to_micros(row.recorded_to))
        for seq, row in enumerate(claim.versions)
        if not (seq < len(old_versions) and old_versions[seq] == row)
    ]
    old_evidence = set(previous.evidence) if previous else set()
    if old_evidence - set(claim.evidence):
        # Evidence was removed (forget): the caller rewrites every row, renumbered.
        return main, versions, [(claim.claim_id, None, -1),
                                *((claim.claim_id, e, seq) for seq, e in enumerate(claim.evidence))]
    evidence = [(claim.claim_id, event_id, seq) for seq, event_id in enumerate(claim.evidence)
                if event_id not in old_evidence]
    return main, versions, evidence


def save_claims(con: apsw.Connection, pairs: Sequence[tuple[ClaimState, ClaimState | None]]) -> None:
    """Write many claims' rows with one statement per table."""
    mains, versions, evidence = [], [], []
    for claim, previous in pairs:
        m, v, e = claim_rows(claim, previous)
        mains.append(m)
        versions += v
        evidence += e
    if mains:
        con.executemany(_CLAIMS_SQL, mains)
    if versions:
        con.executemany(_VERSIONS_SQL, versions)
    cleared = [(cid,) for cid, event_id, _seq in evidence if event_id is None]
    if cleared:
        con.executemany("DELETE FROM claim_evidence WHERE claim_id = ?", cleared)
        evidence = [row for row in evidence if row[1] is not None]
    if evidence:
        con.executemany(_EVIDENCE_SQL, evidence)


def save_claim(con: apsw.Connection, claim: ClaimState, previous: ClaimState | None) -> None:
    """Write ``claim``'s rows, touching only what changed since ``previous``."""
    save_claims(con, [(claim, previous)])


def load_observations(con: apsw.Connection, ids: Sequence[str]) -> dict[str, ObservationState]:
    """Observation states for ``ids`` (missing ids are absent)."""
    out: dict[str, ObservationState] = {}
    ids = list(dict.fromkeys(ids))
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for row in con.execute(f"SELECT {_OBS_COLUMNS} FROM observations WHERE event_id IN ({marks})", chunk):
            out[row[0]] = ObservationState(
                event_id=row[0], namespace=row[1], text=row[2], role=row[3], session_id=row[4],
                origin_class=_ORIGINS.get(row[5]) or OriginClass(row[5]),
                session_kind=_SESSION_KINDS.get(row[6]) or SessionKind(row[6]),
                occurred_at=from_micros(row[7]), recorded_at=from_micros(row[8]), version=row[9],
                forgotten=bool(row[10]), helpful=row[11], unhelpful=row[12],
            )
    return out


def save_observation(con: apsw.Connection, obs: ObservationState) -> None:
    """Write an observation's row."""
    con.execute(
        f"INSERT OR REPLACE INTO observations ({_OBS_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            obs.event_id, obs.namespace, obs.text, obs.role, obs.session_id, obs.origin_class.value,
            obs.session_kind.value, to_micros(obs.occurred_at), to_micros(obs.recorded_at), obs.version,
            int(obs.forgotten), obs.helpful, obs.unhelpful,
        ),
    )
