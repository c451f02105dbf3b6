"""Is this question a profile question, about whom, which side? (ADR 0090, docs/recall.md "Profile questions").

:func:`read_profile` decides whether recall serves a subject's mental model and summary first
(:mod:`hlmem.application.recall.derived_items`). Three readings, any one suffices:

1. the **cue rules** (:func:`~hlmem.domain.profile_intent.profile_ask`: "what do you know about Bob?",
   "用户的饮食习惯"), which need no model;
2. the **intent model** (a :class:`~hlmem.application.ports.ProfileIntent`): a linear model over the
   question's words and, when the store's vectors are the model's, its query vector, trained offline
   on labelled asks ("hey quick q — what do you remember about Bob?", "小明这人咋样" are profile
   questions; "what kind of music is Bob into?" is not);
3. the **structure**: a question holding nothing but a subject and maybe a side ("Bob?", "小明这人",
   "Alice's health stuff"; :func:`~hlmem.domain.profile_reading.bare_subject`).

Whom it asks about is read against the subjects that have a mental model (a name, else a relative
of the user, else the user in the first person; :func:`~hlmem.domain.profile_reading.read_subject`),
so "我妹" finds the stored ``user's sister``; the side by its words (``read_side``). A question that
names no subject with a profile gets no derived item, whatever its intent. A question that none of
the three reads as one but speaks of someone by he/she/他/她 after a clause is read again as its
asking clause with the pronoun replaced by the person named before (``asked_clause``: "下周要跟 Bob
吃饭，帮我回忆下他的情况" -> "帮我回忆下Bob的情况"; ADR 0098).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hlmem.domain.asked_subject import asked_clause, refers_back
from hlmem.domain.derived import CURRENT, MENTAL_MODEL, STALE
from hlmem.domain.profile_intent import ProfileAsk, profile_ask
from hlmem.domain.profile_reading import bare_subject, may_be_bare, read_side, read_subject

if TYPE_CHECKING:
    from hlmem.application.ports import DerivedReader, ProfileIntent

def _subjects(storage: DerivedReader, namespace: str) -> list[str]:
    """The subjects that have a mental model (current or stale) in ``namespace``."""
    return [d.subject for d in storage.derived_items(namespace, kind=MENTAL_MODEL)
            if d.subject and d.status in (CURRENT, STALE)]


def read_profile(question: str, storage: DerivedReader, namespace: str, intent: ProfileIntent | None,
                 notes: list[str]) -> ProfileAsk | None:
    """The profile question ``question`` asks (module docstring), or None."""
    text = question.strip()
    if not text:
        return None
    cued = profile_ask(text)
    reading = intent.reading(text) if intent is not None and cued is None else None
    asked = cued is not None or (reading is not None and reading.is_profile)
    back = not asked and refers_back(text)
    if not asked and not back and not may_be_bare(text):  # the store is read only for a question that may be one
        return None
    subjects = _subjects(storage, namespace)
    if back:  # "下周要跟 Bob 吃饭，帮我回忆下他的情况": the asking clause, its pronoun read as the person named before
        clause = asked_clause(text, subjects)
        cued = profile_ask(clause) if clause is not None else None
        if cued is not None:
            notes.append(f"derived: read as a profile question in {clause!r} (its pronoun is the person named before)")
            subject = read_subject(clause, subjects)  # its side too: the plan's 吃饭 is no side asked about
            return ProfileAsk(subject or cued.subject, cued.family or (read_side(clause) if subject else None))
        if not may_be_bare(text):
            return None
    subject = read_subject(text, subjects)
    if cued is not None:
        return ProfileAsk(subject or cued.subject, cued.family or (read_side(text) if subject else None))
    if subject is None:
        return None
    if asked and reading is not None:
        notes.append(f"derived: read as a profile question by the intent model ({reading.by}, "
                     f"p={reading.probability:.2f} ≥ {reading.threshold:.2f})")
    elif bare_subject(text, subject):
        notes.append(f"derived: read as a profile question: it names {subject!r} and nothing else to ask")
    else:
        return None
    return ProfileAsk(subject, read_side(text))
