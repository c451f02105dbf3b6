"""Forgetting, planned purely: which streams a forget removes, and the events that record it.

A forget names a target — a claim, an event, a session, or everything about a subject — and the
cascade follows (docs/forgetting.md, ADR 0014):

1. **Events**: the target event; every event of the session; for a subject, the evidence events
   of the subject's claims *and every event whose text mentions the name* (:func:`mentions`; not
   for the user themself, whose "我"/"I" is in almost every turn). Forgetting a claim forgets
   the claim only: its evidence events keep their text (the report says how many).
2. **Claims**: the target claim; a subject's claims (subject matched through
   :func:`~hlmem.domain.state.subject_key`, so "我", "用户" and "user" are one subject) and
   claims whose subject, value or qualifiers mention the name; every claim whose evidence is
   only forgotten events.
3. **Evidence links**: a claim with surviving evidence keeps living and loses only the links to
   forgotten events (:class:`~hlmem.domain.events.EvidenceForgotten`).
4. **Conflicts**: a review item drawn from a forgotten event (any of its candidate's evidence),
   one whose existing claims are all forgotten, and one about the forgotten subject.
5. **Extraction records** citing a forgotten event get their payloads redacted; they project no
   state, so no tombstone event is needed.

Supersede links are never cut: a forgotten claim in the middle of a chain keeps its ids and
times (the tombstone reducer keeps them), so its neighbours' history stays whole.

The application service gathers the states (:class:`Gathered`), calls :func:`plan_forget` and
:func:`forget_events`, and executes the plan in one transaction.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

from attrs import field, frozen

from hlmem.domain.commands import MAX_NAME_CHARS, check_namespace
from hlmem.domain.errors import DomainRuleViolation, ValidationError
from hlmem.domain.events import DomainEvent, EvidenceForgotten, ForgetRequested, ItemForgotten
from hlmem.domain.redaction import CLAIM, OBSERVATION, SUBJECT, Tombstone, claim_content, fingerprint, normalize_content
from hlmem.domain.slots import normalize_predicate
from hlmem.domain.state import SELF_KEY, ClaimState, ClaimStatus, ConflictState, ObservationState, subject_key

#: The kinds of target a person can name.
TARGET_KINDS = ("claim", "event", "session", "subject")
#: The target kind of a forget that enforces another ledger's tombstones (restore).
TOMBSTONES = "tombstones"
#: What a scrubbed job error (or other operational text) says instead of forgotten content.
ERASED_TEXT = "[erased: forgotten content]"
#: Keys of :attr:`ForgetPlan.counts` (and of a report's counts), in display order.
PLAN_COUNTS = ("events", "claims", "evidence_links", "conflicts", "extraction_records")


class ForgottenContent(DomainRuleViolation):
    """Content whose fingerprint is in the tombstone ledger may not come back (re-ingest blocking)."""


@frozen
class ForgetTarget:
    """What to forget: ``kind`` is claim, event, session or subject; ``value`` an id, session id or name."""

    kind: str
    value: str
    namespace: str = "default"

    @property
    def label(self) -> str:
        """How a report names the target (a subject's name stays with the caller, never in the log)."""
        return f"{self.kind} {self.value}"


def target_for_id(item_id: str, namespace: str = "default") -> ForgetTarget:
    """The target for an id that recall, history or explain showed (``cl_…`` or ``ev_…``).

    :raises ValidationError: for anything else.
    """
    item_id = (item_id or "").strip()
    if item_id.startswith("cl_"):
        return ForgetTarget("claim", item_id, namespace)
    if item_id.startswith("ev_"):
        return ForgetTarget("event", item_id, namespace)
    raise ValidationError(f"{item_id!r} is neither a claim id (cl_…) nor an event id (ev_…)", field="id")


def validate_target(target: ForgetTarget) -> ForgetTarget:
    """The target with its value stripped, or a :class:`ValidationError` saying what is wrong."""
    problems = check_namespace(target.namespace)
    if target.kind not in TARGET_KINDS:
        problems.append(ValidationError(f"a forget target is one of {', '.join(TARGET_KINDS)}, not {target.kind!r}",
                                        field="target"))
    value = target.value.strip() if isinstance(target.value, str) else ""
    if not value:
        problems.append(ValidationError(f"the {target.kind} to forget is empty", field="target"))
    elif len(value) > MAX_NAME_CHARS:
        problems.append(ValidationError(f"the {target.kind} to forget is longer than {MAX_NAME_CHARS} characters",
                                        field="target"))
    if problems:
        raise problems[0] if len(problems) == 1 else ExceptionGroup("invalid forget target", problems)
    return ForgetTarget(target.kind, value, target.namespace)


def is_self(name: str) -> bool:
    """Whether ``name`` is one of the user's own names ("我", "user", "用户"…)."""
    return subject_key(name) == SELF_KEY


def _latin_word(ch: str) -> bool:
    # Letters and digits of alphabetic scripts delimit words; CJK text has no spaces, so a
    # Chinese name is matched as a plain substring.
    return ch.isalnum() and ord(ch) < 0x2E80


@functools.lru_cache(maxsize=256)
def _normalized_name(name: str) -> str:
    return normalize_content(name)


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` mentions ``name`` (NFKC, case-folded; whole words for alphabetic names).

    "Alice" is in "alice's plan" but not in "Alicent"; "张伟" is in "我和张伟吃饭".
    """
    needle = _normalized_name(name)
    if not needle:
        return False
    # Cheap rejections (a forget scans whole tables): NFKC keeps ASCII text ASCII, where
    # case-folding is lower-casing; text already in NFKC only needs case-folding. Either way the
    # needle's first word must then be in the folded text.
    if text.isascii():
        if not needle.isascii() or needle.split(" ", 1)[0] not in text.lower():
            return False
    elif unicodedata.is_normalized("NFKC", text) and needle.split(" ", 1)[0] not in text.casefold():
        return False
    hay = normalize_content(text)
    start = hay.find(needle)
    while start >= 0:
        end = start + len(needle)
        before_ok = start == 0 or not (_latin_word(needle[0]) and _latin_word(hay[start - 1]))
        after_ok = end == len(hay) or not (_latin_word(needle[-1]) and _latin_word(hay[end]))
        if before_ok and after_ok:
            return True
        start = hay.find(needle, start + 1)
    return False


def fragment_forms(fragments: Iterable[str]) -> tuple[str, ...]:
    """The forms in which forgotten fragments may sit in operational text (job errors, raw
    provider responses): as written and as a JSON string carries them (non-ASCII escaped or
    not). Fragments shorter than two characters are left out: they would match everything."""
    forms: dict[str, None] = {}
    for fragment in fragments:
        if len(fragment.strip()) < 2:
            continue
        for form in (fragment, json.dumps(fragment)[1:-1], json.dumps(fragment, ensure_ascii=False)[1:-1]):
            forms[form] = None
    return tuple(forms)


def holds_any(text: str | None, forms: Sequence[str]) -> bool:
    """Whether ``text`` contains one of ``forms`` (:func:`fragment_forms`)."""
    return bool(text) and any(f in text for f in forms)


# --- fingerprints --------------------------------------------------------------------------------


def jobs_to_scrub(rows: Iterable[tuple[str, str, str | None, str | None]], event_ids: Iterable[str],
                  fragments: Iterable[str]) -> set[str]:
    """Which jobs' error text and raw response a forget must blank, from ``(job_id, payload JSON,
    last_error, raw_response)`` rows (every store keeping raw responses decides so).

    A job is hit when it serves a forgotten event, when its error or raw response contains a
    fragment of forgotten content, or when it shares a raw response with a hit job (the jobs of
    one window fail with one response).
    """
    rows = list(rows)
    wanted, forms = set(event_ids), fragment_forms(fragments)
    hit: set[str] = set()
    responses: set[str] = set()
    for job_id, payload, error, raw in rows:
        try:
            event_id = json.loads(payload).get("event_id")
        except (ValueError, AttributeError):
            event_id = None
        if event_id in wanted or holds_any(error, forms) or holds_any(raw, forms):
            hit.add(job_id)
            if raw:
                responses.add(raw)
    hit.update(job_id for job_id, _p, _e, raw in rows if raw and raw in responses)
    return hit


def _encodable(text: str) -> str:
    # A lone surrogate cannot be hashed as UTF-8; spell it out (deterministically) instead.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def observation_fingerprint(text: str, salt: bytes) -> str:
    """The fingerprint of an event's text ("" for an erased one)."""
    return fingerprint(OBSERVATION, _encodable(text), salt) if text.strip() else ""


def claim_fingerprint(subject: str, predicate: str, value: str, salt: bytes) -> str:
    """The fingerprint of a claim's content: the subject's key, the canonical predicate, the value.

    Every name of the user is one subject, so "我 · lives_in · Berlin" and "user · lives_in ·
    berlin" share a fingerprint. "" for an erased claim.
    """
    if not (subject.strip() or value.strip()):
        return ""
    content = claim_content(subject_key(subject), normalize_predicate(predicate), value)
    return fingerprint(CLAIM, _encodable(content), salt)


def subject_fingerprint(name: str, salt: bytes) -> str:
    """The fingerprint of a subject (what a subject forget's ``target`` holds instead of the name)."""
    return fingerprint(SUBJECT, _encodable(subject_key(name)), salt)


# --- the plan ------------------------------------------------------------------------------------


@frozen(kw_only=True)
class Gathered:
    """The states one plan reads, loaded by the service.

    :param events: the events the target names directly (session, subject evidence, mentions).
    :param claims: every claim the plan may need: the target's, those citing ``events``, and the
        existing claims of ``conflicts``.
    :param seed_claims: the claims the target names directly.
    :param conflicts: the conflicts that may be affected (the namespace's review queue).
    :param seed_conflicts: conflicts the target names directly.
    :param extractions: the extraction-record streams (``ex_…``) citing one of the not-forgotten ``events``.
    :param subject: the subject's key for a subject target (conflicts about it go too).
    :param dead_evidence: evidence ids of those claims that were forgotten earlier or name no
        event: they keep no claim alive.
    """

    events: Mapping[str, ObservationState] = field(factory=dict)
    claims: Mapping[str, ClaimState] = field(factory=dict)
    seed_claims: frozenset[str] = frozenset()
    conflicts: Mapping[str, ConflictState] = field(factory=dict)
    seed_conflicts: frozenset[str] = frozenset()
    extractions: frozenset[str] = frozenset()
    subject: str | None = None
    dead_evidence: frozenset[str] = frozenset()


@frozen
class ForgetPlan:
    """What one forget removes (every tuple sorted, nothing already forgotten)."""

    events: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()
    unlinks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    conflicts: tuple[str, ...] = ()
    extractions: tuple[str, ...] = ()

    @property
    def streams(self) -> tuple[str, ...]:
        """Every stream that becomes a tombstone."""
        return (*self.events, *self.claims, *self.conflicts)

    @property
    def empty(self) -> bool:
        """Whether there is nothing (left) to forget."""
        return not (self.streams or self.unlinks or self.extractions)

    @property
    def counts(self) -> dict[str, int]:
        """Streams and links by kind (:data:`PLAN_COUNTS`)."""
        return {"events": len(self.events), "claims": len(self.claims),
                "evidence_links": sum(len(gone) for _, gone in self.unlinks),
                "conflicts": len(self.conflicts), "extraction_records": len(self.extractions)}


def _live_claim(claim: ClaimState | None) -> bool:
    return claim is not None and claim.status is not ClaimStatus.FORGOTTEN


def plan_forget(g: Gathered) -> ForgetPlan:
    """The cascade (module docstring) over what the service gathered; pure and deterministic."""
    events = {eid for eid, obs in g.events.items() if not obs.forgotten}
    claims = {cid for cid in g.seed_claims if _live_claim(g.claims.get(cid))}
    unlinks: list[tuple[str, tuple[str, ...]]] = []
    for cid, claim in sorted(g.claims.items()):
        if cid in claims or not _live_claim(claim):
            continue
        gone = tuple(e for e in claim.evidence if e in events)
        if not gone:
            continue
        if all(e in events or e in g.dead_evidence for e in claim.evidence):
            claims.add(cid)  # nothing of its evidence survives
        else:
            unlinks.append((cid, gone))
    forgotten_claims = claims | {cid for cid, c in g.claims.items() if c.status is ClaimStatus.FORGOTTEN}
    conflicts = set()
    for cf_id, conflict in g.conflicts.items():
        if conflict.status == "forgotten":
            continue
        evidence = conflict.candidate.get("evidence", ())
        candidate_subject = str(conflict.candidate.get("subject", ""))
        if (cf_id in g.seed_conflicts or any(e in events for e in evidence)
                or (conflict.existing and all(c in forgotten_claims for c in conflict.existing))
                or (g.subject is not None and subject_key(candidate_subject) == g.subject)):
            conflicts.add(cf_id)
    extractions = g.extractions if events else frozenset()
    return ForgetPlan(tuple(sorted(events)), tuple(sorted(claims)), tuple(unlinks), tuple(sorted(conflicts)),
                      tuple(sorted(extractions)))


def stream_fingerprints(g: Gathered, plan: ForgetPlan, salt: bytes) -> dict[str, tuple[str, str]]:
    """``stream -> (kind, fingerprint)`` of every stream the plan forgets, from its content now."""
    out: dict[str, tuple[str, str]] = {}
    for eid in plan.events:
        out[eid] = (OBSERVATION, observation_fingerprint(g.events[eid].text, salt))
    for cid in plan.claims:
        c = g.claims[cid]
        out[cid] = (CLAIM, claim_fingerprint(c.subject, c.predicate, c.value, salt))
    for cf_id in plan.conflicts:
        cand = g.conflicts[cf_id].candidate
        out[cf_id] = (CLAIM, claim_fingerprint(str(cand.get("subject", "")), str(cand.get("predicate", "")),
                                               str(cand.get("value", "")), salt))
    return out


def _state_of(g: Gathered, stream_id: str) -> ObservationState | ClaimState | ConflictState:
    return g.events.get(stream_id) or g.claims.get(stream_id) or g.conflicts[stream_id]


def forget_events(g: Gathered, plan: ForgetPlan, *, forget_id: str, new_id: Callable[[str], str],
                  recorded_at: datetime, namespace: str, target_kind: str, target: str, actor: str, reason: str,
                  counts: Mapping[str, int], fingerprints: Mapping[str, tuple[str, str]]) -> tuple[DomainEvent, ...]:
    """One :class:`ForgetRequested`, one :class:`ItemForgotten` per stream, one
    :class:`EvidenceForgotten` per surviving claim — in that order, versions following each stream.

    :param target: the id, the session, or (subject) the name's salted fingerprint.
    :param counts: what the report counts, recorded in the audit event.
    """
    events: list[DomainEvent] = [ForgetRequested(
        event_id=new_id("lg"), stream_id=forget_id, version=1, recorded_at=recorded_at, namespace=namespace,
        target_kind=target_kind, target=target, actor=actor, reason=reason,
        counts=tuple((k, int(v)) for k, v in counts.items()), items=plan.streams,
    )]
    for sid in plan.streams:
        state = _state_of(g, sid)
        events.append(ItemForgotten(
            event_id=new_id("lg"), stream_id=sid, version=state.version + 1, recorded_at=recorded_at,
            namespace=state.namespace, reason=reason, actor=actor, fingerprint=fingerprints.get(sid, ("", ""))[1],
            cascade_of=forget_id,
        ))
    for cid, gone in plan.unlinks:
        claim = g.claims[cid]
        events.append(EvidenceForgotten(
            event_id=new_id("lg"), stream_id=cid, version=claim.version + 1, recorded_at=recorded_at,
            namespace=claim.namespace, evidence=gone, cascade_of=forget_id,
        ))
    return tuple(events)


def tombstones_for(plan: ForgetPlan, fingerprints: Mapping[str, tuple[str, str]], *, forget_id: str,
                   forgotten_at: datetime, subject_fp: str | None = None) -> list[Tombstone]:
    """The ledger rows of one forget: one per forgotten stream, plus one for a subject target."""
    rows = [Tombstone(fingerprints.get(sid, ("", ""))[1], fingerprints.get(sid, (OBSERVATION, ""))[0], sid,
                      forgotten_at, forget_id) for sid in plan.streams]
    if subject_fp:
        rows.append(Tombstone(subject_fp, SUBJECT, forget_id, forgotten_at, forget_id))
    return rows
