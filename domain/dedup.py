"""The dedup funnel: is a new candidate the same claim as an existing one, surely different, or unsure?

Stages, cheapest and safest first (:func:`classify`):

1. slot — a different subject, predicate, coordinates, qualifiers or polarity is DIFFERENT;
2. exact content hash of the normalised claim (:func:`content_hash`) — EQUAL;
3. protected-atoms safety gate — any differing atom kind (numbers, versions, IPs, ports, dates,
   relative days, weekdays, paths, negations, quoted strings, names, places, entities) is
   DIFFERENT: such claims are never merged, whatever a similarity score or an LLM says;
4. near-identical text — character-bigram Jaccard of the values' letters and digits
   ≥ :data:`GRAY_THRESHOLD` is GRAY, below it DIFFERENT.

Only GRAY may go to the optional LLM audit (off by default). With the audit off, GRAY means keep
both; folding near-duplicates for display is recall's job. EQUAL means: link the new evidence to
the existing claim (``ClaimCorroborated``).
"""

from __future__ import annotations

import enum
import hashlib
from typing import Protocol

from attrs import frozen

from hlmem.domain.atoms import content_key, protected_atoms, skeleton
from hlmem.domain.slots import normalize_predicate

#: Bigram Jaccard at or above which two atom-identical values are a gray-zone pair.
GRAY_THRESHOLD = 0.6

EXACT_HASH = "dedup.exact_hash"
SUBJECT_DIFFERS = "dedup.subject_differs"
PREDICATE_DIFFERS = "dedup.predicate_differs"
COORDINATES_DIFFER = "dedup.coordinates_differ"
QUALIFIERS_DIFFER = "dedup.qualifiers_differ"
POLARITY_DIFFERS = "dedup.polarity_differs"
NEAR_DUPLICATE = "dedup.near_duplicate"
DISSIMILAR = "dedup.dissimilar"
#: One code per atom kind: ``dedup.atom_<kind>_differ``.
ATOM_DIFFERS = {kind: f"dedup.atom_{kind}_differ" for kind in (
    "numbers", "versions", "ips", "ports", "dates", "relative", "weekdays", "paths", "negations", "quoted",
    "names", "places", "entities")}

REASON_CODES = (EXACT_HASH, SUBJECT_DIFFERS, PREDICATE_DIFFERS, COORDINATES_DIFFER, QUALIFIERS_DIFFER,
                POLARITY_DIFFERS, NEAR_DUPLICATE, DISSIMILAR, *ATOM_DIFFERS.values())


class DedupOutcome(str, enum.Enum):
    """What the funnel concluded."""

    EQUAL = "equal"  # the same claim: corroborate the existing one
    DIFFERENT = "different"  # distinct claims: never merge
    GRAY = "gray"  # near-identical: the audit may decide; without it, keep both


@frozen
class DedupVerdict:
    """The funnel's outcome, its reason codes, and the bigram similarity (0 when not computed)."""

    outcome: DedupOutcome
    reasons: tuple[str, ...] = ()
    similarity: float = 0.0


class ClaimLike(Protocol):
    """What the funnel reads of a claim: a :class:`CandidateClaim` or a :class:`ClaimState`."""

    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def qualifiers(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def polarity(self) -> bool: ...


def _pairs(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((content_key(k), content_key(v)) for k, v in pairs))


def content_hash(claim: ClaimLike) -> str:
    """SHA-256 of the normalised claim: subject, predicate, value, qualifiers, coordinates, polarity.

    Normalisation is :func:`~hlmem.domain.atoms.content_key` (NFKC, case, whitespace, sentence
    punctuation), which never drops a digit or a character inside a token.
    """
    parts = (content_key(claim.subject), normalize_predicate(claim.predicate), content_key(claim.value),
             repr(_pairs(claim.qualifiers)), repr(_pairs(getattr(claim, "coordinates", ()))),
             "+" if claim.polarity else "-")
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def bigram_jaccard(a: str, b: str) -> float:
    """Jaccard index of the character bigrams of the letters and digits of ``a`` and ``b``.

    A string of one character counts as its own single gram; two empty strings are identical.
    """
    def grams(text: str) -> set[str]:
        s = skeleton(text)
        return {s[i:i + 2] for i in range(len(s) - 1)} or ({s} if s else set())

    ga, gb = grams(a), grams(b)
    if not ga and not gb:
        return 1.0
    return len(ga & gb) / len(ga | gb)


def classify(new: ClaimLike, existing: ClaimLike, *, gray_threshold: float = GRAY_THRESHOLD) -> DedupVerdict:
    """Run the funnel on a new candidate against one existing claim.

    :param new: the incoming candidate.
    :param existing: a stored claim (or any object with the :class:`ClaimLike` attributes;
        ``coordinates`` is compared when both have it).
    :param gray_threshold: the bigram Jaccard from which atom-identical values are GRAY.
    """
    slot = []
    if content_key(new.subject) != content_key(existing.subject):
        slot.append(SUBJECT_DIFFERS)
    if normalize_predicate(new.predicate) != normalize_predicate(existing.predicate):
        slot.append(PREDICATE_DIFFERS)
    if _pairs(getattr(new, "coordinates", ())) != _pairs(getattr(existing, "coordinates", ())):
        slot.append(COORDINATES_DIFFER)
    if _pairs(new.qualifiers) != _pairs(existing.qualifiers):
        slot.append(QUALIFIERS_DIFFER)
    if bool(new.polarity) != bool(existing.polarity):
        slot.append(POLARITY_DIFFERS)
    if slot:
        return DedupVerdict(DedupOutcome.DIFFERENT, tuple(slot))
    if content_hash(new) == content_hash(existing):
        return DedupVerdict(DedupOutcome.EQUAL, (EXACT_HASH,), 1.0)
    differing = protected_atoms(new.value).differing_kinds(protected_atoms(existing.value))
    if differing:
        return DedupVerdict(DedupOutcome.DIFFERENT, tuple(ATOM_DIFFERS[k] for k in differing))
    similarity = bigram_jaccard(new.value, existing.value)
    if similarity >= gray_threshold:
        return DedupVerdict(DedupOutcome.GRAY, (NEAR_DUPLICATE,), similarity)
    return DedupVerdict(DedupOutcome.DIFFERENT, (DISSIMILAR,), similarity)
