"""Recall of experience: active procedures and policies for "how do I …" questions (docs/experience.md).

:meth:`ExperienceRecall.items` returns, for a how-to question (:func:`howto_task`) or any query
asked with ``intent="procedure"``, the namespace's active policies whose situation matches the
task (:func:`match_score` at least ``floor``; ``procedure_floor`` with the explicit intent), each
preceded by its active procedure, as recall items of kind ``procedure`` and ``policy`` that carry
their support (the episodes, in ``evidence``), counts and reliability. Recall puts them before
the facts; with no match, recall is exactly the fact recall it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from hlmem.application.recall_items import RecallItem
from hlmem.domain.errors import ValidationError
from hlmem.domain.experience_policy import PolicyThresholds, reliability
from hlmem.domain.experience_state import PolicyState, ProcedureState
from hlmem.domain.procedure_intent import howto_task, match_score

#: What ``intent`` may be: read the query (None/``auto``), ask for procedures, or facts only.
INTENTS = ("auto", "procedure", "facts")
#: Kinds of recall item the experience channel adds (the packet labels them so).
EXPERIENCE_KINDS = ("procedure", "policy", "episode")


def check_intent(intent: str | None) -> str:
    """``intent`` as one of :data:`INTENTS` (None is ``auto``), or a :class:`ValidationError`."""
    value = "auto" if intent is None else intent
    if value not in INTENTS:
        raise ValidationError(f"intent is one of {', '.join(INTENTS)}, not {intent!r}", field="intent")
    return value


class ExperienceRecall:
    """Finds the active policies and procedures a question asks for."""

    def __init__(self, storage: object, thresholds: PolicyThresholds | None = None, *, floor: float = 0.6,
                 procedure_floor: float = 0.2) -> None:
        self._reader = getattr(storage, "experience", None)
        self._thresholds = thresholds or PolicyThresholds()
        self._floor = floor
        self._procedure_floor = procedure_floor

    def items(self, query: str, *, namespace: str, intent: str | None = None, k: int = 10) -> list[RecallItem]:
        """The experience items for ``query``, best first (empty for a fact question)."""
        mode = check_intent(intent)
        if mode == "facts" or self._reader is None:
            return []
        task = howto_task(query)
        if task is None and mode != "procedure":
            return []
        floor = self._procedure_floor if mode == "procedure" else self._floor
        task = task or query
        scored: list[tuple[float, PolicyState]] = []
        for policy in self._reader.policies(namespace, status="active"):
            score = max(match_score(task, policy.signature), match_score(task, policy.situation))
            if score >= floor and policy.support:
                scored.append((score, policy))
        if not scored:
            return []
        scored.sort(key=lambda sp: (-sp[0], -reliability(sp[1], self._thresholds), sp[1].policy_id))
        procedures = {p.policy_id: p for p in self._reader.procedures_of([p.policy_id for _, p in scored])
                      if p.status == "active"}
        out: list[RecallItem] = []
        for score, policy in scored:
            if policy.policy_id in procedures:
                out.append(self._procedure_item(procedures[policy.policy_id], policy, score))
            out.append(self._policy_item(policy, score))
        return out[:k]

    def _policy_item(self, policy: PolicyState, score: float) -> RecallItem:
        rel = reliability(policy, self._thresholds)
        text = (f"in situation “{policy.situation or policy.signature}” prefer {policy.approach} "
                f"({policy.successes}/{policy.support} episodes succeeded, reliability {rel:.2f})")
        return RecallItem(id=policy.policy_id, kind="policy", text=text, score=score, ranks={"experience": 1},
                          evidence=policy.recent_episodes, subject=policy.signature, value=policy.approach,
                          status=policy.status, recorded_from=policy.proposed_at, support=policy.support,
                          successes=policy.successes, failures=policy.failures, reliability=rel)

    def _procedure_item(self, proc: ProcedureState, policy: PolicyState, score: float) -> RecallItem:
        rel = reliability(policy, self._thresholds)
        steps = "; ".join(f"{i}. {s}" for i, s in enumerate(proc.steps, 1))
        text = f"procedure v{proc.number} for “{policy.situation or policy.signature}”: {steps}"
        return RecallItem(id=proc.procedure_id, kind="procedure", text=text, score=score, ranks={"experience": 1},
                          evidence=tuple(dict.fromkeys((proc.source_episode, *policy.recent_episodes))), subject=policy.signature,
                          value=policy.approach, status=proc.status, recorded_from=proc.promoted_at,
                          support=policy.support, successes=policy.successes, failures=policy.failures,
                          reliability=rel, steps=proc.steps, policy_id=policy.policy_id)


def merge_items(experience: Sequence[RecallItem], facts: Sequence[RecallItem], k: int) -> tuple[RecallItem, ...]:
    """Experience items first, then the facts, ``k`` in all (the facts alone when there is no experience)."""
    if not experience:
        return tuple(facts[:k])
    return tuple([*experience, *facts][:k])
