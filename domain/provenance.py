"""Provenance admission: may an observation produce claims at all? Decided before any LLM call.

The rules (enforce mode), checked in this order; the verdict is the most severe one that applies
(REJECT > RESTRICT > ACCEPT) and every reason that applies is kept, in this order:

==========================================  ========  ==========================================
condition                                   verdict   reason code
==========================================  ========  ==========================================
session kind ``heartbeat``                  REJECT    ``provenance.heartbeat_session``
session kind ``subagent``                   REJECT    ``provenance.subagent_session``
session kind ``cron``                       RESTRICT  ``provenance.cron_session``
session kind unknown / unrecognised         RESTRICT  ``provenance.unknown_session``
origin ``external``                         RESTRICT  ``provenance.external_origin``
origin ``external_derived``                 RESTRICT  ``provenance.external_derived_origin``
origin ``system``                           RESTRICT  ``provenance.system_origin``
origin ``agent``                            RESTRICT  ``provenance.agent_origin``
origin unknown / unrecognised               RESTRICT  ``provenance.unknown_origin``
``direct_user`` with a non-user role        RESTRICT  ``provenance.non_user_role``
restricted text that instructs the memory   REJECT    ``provenance.injection_suspected``
==========================================  ========  ==========================================

``direct_user`` + ``interactive`` with a user role is ACCEPTed with no reasons. An agent's own
statements are not facts about the user, hence RESTRICT. Injection is only looked for in text
that is already restricted: such text must cost no LLM call, so it is rejected outright.

RESTRICT means: extraction may run, but every candidate goes through :func:`restrict`. REJECT
means no extraction (no LLM tokens); the observation itself is always kept and recallable.

Untrusted text never speaks for the user. Text from outside the conversation (origin
``external``, ``external_derived``, ``unknown`` or unrecognised) or from a session no user is in
(``cron``, ``heartbeat``, ``subagent``, ``unknown`` or unrecognised) is :func:`untrusted`: its
"I live in …" or "User profile update: …" is somebody else's first person, or an attempt to
write the user's profile. Admission (:func:`~hlmem.domain.admission.admit_candidate`) refuses a
candidate whose subject :func:`names_user` when any of its evidence is untrusted; such text may
still yield restricted (temporal, low-importance) claims about other subjects. The agent's,
the system's and an assistant role's words are restricted but not untrusted in this sense: they
speak *to* the user in the user's own session, and their claims about the user stay inferences.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from datetime import datetime, timedelta

from attrs import evolve

from hlmem.domain.candidates import CandidateClaim, GateDecision, SourceEvent, Verdict
from hlmem.domain.events import OriginClass, Scope, SessionKind
from hlmem.domain.state import subject_key, SELF_KEY


class ProvenanceMode(str, enum.Enum):
    """``provenance.mode``: whether the rules are off, only logged, or enforced."""

    OFF = "off"
    OBSERVE = "observe"
    ENFORCE = "enforce"


DEFAULT_MODE = ProvenanceMode.ENFORCE

HEARTBEAT_SESSION = "provenance.heartbeat_session"
SUBAGENT_SESSION = "provenance.subagent_session"
CRON_SESSION = "provenance.cron_session"
UNKNOWN_SESSION = "provenance.unknown_session"
EXTERNAL_ORIGIN = "provenance.external_origin"
EXTERNAL_DERIVED_ORIGIN = "provenance.external_derived_origin"
SYSTEM_ORIGIN = "provenance.system_origin"
AGENT_ORIGIN = "provenance.agent_origin"
UNKNOWN_ORIGIN = "provenance.unknown_origin"
NON_USER_ROLE = "provenance.non_user_role"
INJECTION_SUSPECTED = "provenance.injection_suspected"
#: Observe mode: the first reason says what enforce would have done ...
WOULD_REJECT = "provenance.would_reject"
WOULD_RESTRICT = "provenance.would_restrict"
#: ... and every enforce reason follows with this prefix.
OBSERVE_PREFIX = "observe:"

REASON_CODES = (HEARTBEAT_SESSION, SUBAGENT_SESSION, CRON_SESSION, UNKNOWN_SESSION, EXTERNAL_ORIGIN,
                EXTERNAL_DERIVED_ORIGIN, SYSTEM_ORIGIN, AGENT_ORIGIN, UNKNOWN_ORIGIN, NON_USER_ROLE,
                INJECTION_SUSPECTED, WOULD_REJECT, WOULD_RESTRICT)

_SESSION_RULES = {
    SessionKind.HEARTBEAT: (Verdict.REJECT, HEARTBEAT_SESSION),
    SessionKind.SUBAGENT: (Verdict.REJECT, SUBAGENT_SESSION),
    SessionKind.CRON: (Verdict.RESTRICT, CRON_SESSION),
    SessionKind.UNKNOWN: (Verdict.RESTRICT, UNKNOWN_SESSION),
}
_ORIGIN_RULES = {
    OriginClass.EXTERNAL: (Verdict.RESTRICT, EXTERNAL_ORIGIN),
    OriginClass.EXTERNAL_DERIVED: (Verdict.RESTRICT, EXTERNAL_DERIVED_ORIGIN),
    OriginClass.SYSTEM: (Verdict.RESTRICT, SYSTEM_ORIGIN),
    OriginClass.AGENT: (Verdict.RESTRICT, AGENT_ORIGIN),
    OriginClass.UNKNOWN: (Verdict.RESTRICT, UNKNOWN_ORIGIN),
}
#: Roles whose words are not the user's own, even in a direct-user session.
NON_USER_ROLES = frozenset({"assistant", "agent", "tool", "function", "system", "developer"})
_SEVERITY = {Verdict.ACCEPT: 0, Verdict.RESTRICT: 1, Verdict.REJECT: 2}

#: "you are now …" is an injection only when what follows re-casts the model: a role noun after
#: an article ("an unrestricted AI", "a helpful assistant"), a jailbreak mode or persona, freedom
#: from its rules, or an order ("to act as"). Sentence position alone is not enough: "You are now
#: registered." and "…appreciate where you are now." are ordinary assistant turns.
_ROLE_NOUN = r"(?:assistant|chatbot|bot|ai|a\.i|llm|(?:language|ai|chat)\s+model|persona|jailbreak\w*)\b(?!['’]s)"
_RECAST = (
    r"you\s+are\s+now\s+(?:"
    rf"(?:a|an|the|my|your)\s+(?:[\w'-]+\s+){{0,3}}?{_ROLE_NOUN}"
    r"|in\s+(?:[\w-]+\s+)?(?:developer|dev|god|jailbreak\w*|jailbroken|unrestricted|unfiltered|uncensored|dan|sudo"
    r"|evil|opposite)\s+mode\b"
    r"|dan\b(?!['’]s)"
    r"|(?:unrestricted|unfiltered|uncensored|jailbroken|unbound|unshackled)\b"
    r"|(?:free|freed|liberated|released)\s+(?:from|of)\s+(?:all\s+|any\s+|your\s+|the\s+|its\s+)*"
    r"(?:restrictions|rules|guidelines|limits|limitations|constraints|filters|policies|programming|instructions)"
    r"|no\s+longer\s+(?:bound|restricted|limited|constrained|filtered"
    rf"|(?:a|an)\s+(?:[\w'-]+\s+){{0,2}}?{_ROLE_NOUN})"
    r"|(?:acting|operating|role-?playing)\s+as\b"
    r"|to\s+(?:act|behave|respond|answer|reply|ignore|obey|follow|pretend|forget|role-?play|speak)\b)"
)

#: Text that tries to steer the agent or write into its memory. Matched on NFKC, casefolded text.
_INJECTION_RE = re.compile(
    r"(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier"
    r"|preceding|system)\s+(?:instructions?|prompts?|messages?|rules?)"
    rf"|{_RECAST}|new\s+instructions?\s*:|system\s+prompt"
    r"|(?:remember|memorize|note)\s+(?:that\s+)?(?:the\s+)?user(?:'s)?\b"
    r"|(?:store|save|add|write)\s+(?:this|that|the\s+following)\s+(?:to|in|into)\s+(?:your\s+|the\s+)?memory"
    r"|(?:忽略|无视|忘记|忘掉)(?:之前|以上|前面|上述|先前|所有)(?:的|所有)*(?:指令|指示|提示|要求|规则|设定)"
    r"|系统提示词?|(?:请)?记住用户|(?:写入|存入|保存到)(?:你的)?记忆")

#: Highest importance a restricted candidate keeps.
RESTRICTED_MAX_IMPORTANCE = 0.3
#: Longest validity a restricted candidate may claim, counted from its valid_from (or anchor).
RESTRICTED_HORIZON = timedelta(days=30)


def _parse(enum_type: type[enum.Enum], value: str) -> enum.Enum | None:
    try:
        return enum_type(value)
    except ValueError:
        return None


def _rules(event: SourceEvent) -> list[tuple[Verdict, str]]:
    found: list[tuple[Verdict, str]] = []
    session = _parse(SessionKind, event.session_kind)
    origin = _parse(OriginClass, event.origin_class)
    if session is None:
        found.append((Verdict.RESTRICT, UNKNOWN_SESSION))
    elif session in _SESSION_RULES:
        found.append(_SESSION_RULES[session])
    if origin is None:
        found.append((Verdict.RESTRICT, UNKNOWN_ORIGIN))
    elif origin in _ORIGIN_RULES:
        found.append(_ORIGIN_RULES[origin])
    elif event.role.strip().casefold() in NON_USER_ROLES:
        found.append((Verdict.RESTRICT, NON_USER_ROLE))
    if found and _INJECTION_RE.search(unicodedata.normalize("NFKC", event.text).casefold()):
        found.append((Verdict.REJECT, INJECTION_SUSPECTED))
    return found


#: Origins whose text does not come from the user's conversation at all.
UNTRUSTED_ORIGINS = frozenset({OriginClass.EXTERNAL, OriginClass.EXTERNAL_DERIVED, OriginClass.UNKNOWN})
#: Session kinds in which no user speaks.
UNTRUSTED_SESSIONS = frozenset({SessionKind.CRON, SessionKind.HEARTBEAT, SessionKind.SUBAGENT, SessionKind.UNKNOWN})
#: First person plural includes the user; a possessive ("user's", "my", 用户的, 我的) makes a claim
#: about the user's own things.
_USER_WORDS_RE = re.compile(
    r"^(?:(?:(?:the\s+)?user['’]s?|my|mine|our|ours)(?:\s|$)|(?:we|us|ourselves)$"
    r"|(?:我们|咱们|咱|俺)$|(?:我们?|咱们?|俺|用户|本人|自己)的)")


def untrusted(event: SourceEvent) -> bool:
    """Whether ``event`` may not make claims about the user: its origin is outside the
    conversation (external, external-derived, unknown or unrecognised) or no user is in its
    session (cron, heartbeat, subagent, unknown or unrecognised). Independent of the mode."""
    origin = _parse(OriginClass, event.origin_class)
    session = _parse(SessionKind, event.session_kind)
    return origin is None or origin in UNTRUSTED_ORIGINS or session is None or session in UNTRUSTED_SESSIONS


def names_user(subject: str) -> bool:
    """Whether ``subject`` is the user, in any language and case ("user", "I", "me", "用户", "我",
    "本人"…), a group the user is in ("we", 我们), or the user's own thing ("user's employer",
    "my wife", 我的公司, 用户的…)."""
    key = subject_key(subject)
    if key == SELF_KEY:
        return True
    folded = key.strip(" \t\"'“”‘’「」()（）[]【】.,:;，。：；")
    return subject_key(folded) == SELF_KEY or bool(_USER_WORDS_RE.match(folded))


def admit_event(event: SourceEvent, mode: ProvenanceMode | str = DEFAULT_MODE) -> GateDecision:
    """Decide whether ``event`` may produce claims, before anything is sent to an LLM.

    :param event: the observation as the extractor would see it.
    :param mode: ``enforce`` applies the rules in the module docstring; ``observe`` computes them
        but ACCEPTs, with :data:`WOULD_REJECT` / :data:`WOULD_RESTRICT` followed by the enforce
        reasons prefixed with :data:`OBSERVE_PREFIX`; ``off`` ACCEPTs with no reasons.
    """
    mode = ProvenanceMode(mode)
    if mode is ProvenanceMode.OFF:
        return GateDecision(Verdict.ACCEPT)
    found = _rules(event)
    if not found:
        return GateDecision(Verdict.ACCEPT)
    verdict = max((v for v, _ in found), key=_SEVERITY.__getitem__)
    reasons = tuple(dict.fromkeys(code for _, code in found))
    if mode is ProvenanceMode.OBSERVE:
        would = WOULD_REJECT if verdict is Verdict.REJECT else WOULD_RESTRICT
        return GateDecision(Verdict.ACCEPT, (would, *(OBSERVE_PREFIX + r for r in reasons)))
    return GateDecision(verdict, reasons)


def restrict(candidate: CandidateClaim, *, anchor: datetime | None = None,
             horizon: timedelta = RESTRICTED_HORIZON) -> CandidateClaim:
    """Apply the RESTRICT rule: what untrusted provenance may still keep.

    The candidate becomes a temporary-scope inference (``scope=TEMPORAL``, ``inference=True``),
    its importance is capped at :data:`RESTRICTED_MAX_IMPORTANCE`, and its validity is bounded
    to ``horizon`` after its start (``valid_from``, else ``anchor`` — pass the event's occurred
    time — which then becomes ``valid_from``). With neither, validity is left open and the
    pipeline must supply the start. Idempotent.

    :param candidate: a candidate extracted from a RESTRICTed event.
    :param anchor: the start to use when the candidate has no ``valid_from``.
    :param horizon: the longest validity kept.
    """
    start = candidate.valid_from or anchor
    valid_to = candidate.valid_to
    if start is not None:
        try:
            bound = start + horizon
        except OverflowError:  # a start at the calendar's end: validation refuses it next
            bound = None
        if bound is not None:
            valid_to = bound if valid_to is None else min(valid_to, bound)
    return evolve(
        candidate, scope=Scope.TEMPORAL, inference=True,
        importance=min(candidate.importance, RESTRICTED_MAX_IMPORTANCE),
        valid_from=start, valid_to=valid_to,
    )
