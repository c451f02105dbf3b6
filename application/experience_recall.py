"""Recall of experience: procedures and policies for "how do I …" questions (docs/experience.md).

:meth:`ExperienceRecall.items` returns, for a how-to question (:func:`howto_task`) or any query
asked with ``intent="procedure"``, the namespace's live policies whose situation the task asks for
(:class:`~hlmem.application.experience_match.SituationMatcher`: the embedder's similarity, no
contrasting action or object; ADR 0067), each active one preceded by its active procedure, as recall
items of kind ``procedure`` and ``policy`` that carry their support (counts, the latest episodes
in ``evidence``) and reliability. Active policies come first; a candidate (on probation) follows,
marked ``status="candidate"``, unless the caller asks for active ones only. Recall puts them
before the facts; with no match, recall is exactly the fact recall it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from hlmem.application.experience_match import SituationMatcher
from hlmem.application.ports import Embedder, HasExperience
from hlmem.application.recall.items import RecallItem
from hlmem.domain.errors import ValidationError
from hlmem.domain.experience_policy import PolicyThresholds, reliability
from hlmem.domain.experience_state import PolicyState, ProcedureState
from hlmem.domain.procedure_intent import howto_task

#: What ``intent`` may be: read the query (None/``auto``), ask for procedures, or facts only.
INTENTS = ("auto", "procedure", "facts")
#: Kinds of recall item the experience channel adds (the packet labels them so).
EXPERIENCE_KINDS = ("procedure", "policy", "episode")
#: How much the floor is lowered when the caller asks for procedures explicitly (``intent="procedure"``).
EXPLICIT_SLACK = {"embedded": 0.04, "lexical": 0.4}


def check_intent(intent: str | None) -> str:
    """``intent`` as one of :data:`INTENTS` (None is ``auto``), or a :class:`ValidationError`."""
    value = "auto" if intent is None else intent
    if value not in INTENTS:
        raise ValidationError(f"intent is one of {', '.join(INTENTS)}, not {intent!r}", field="intent")
    return value


class ExperienceRecall:
    """Finds the live policies and procedures a question asks for."""

    def __init__(self, storage: HasExperience, thresholds: PolicyThresholds | None = None, *,
                 embedder: Embedder | None = None, floor: float | None = None) -> None:
        self._reader = storage.experience
        self._thresholds = thresholds or PolicyThresholds()
        self._matcher = SituationMatcher(embedder, floor=floor)
        self._slack = EXPLICIT_SLACK["embedded" if embedder is not None else "lexical"]

    def matching(self, query: str, *, namespace: str, active_only: bool = False,
                 explicit: bool = True) -> list[tuple[float, PolicyState]]:
        """The namespace's live policies (active ones only if asked) whose situation ``query`` asks
        for — a how-to question's task, or the whole query — with their similarity, best first
        (active before candidate at equal similarity)."""
        task = howto_task(query) or query
        floor = self._matcher.floor - (self._slack if explicit else 0.0)
        live = [p for p in self._reader.policies(namespace, status="active") if p.support]
        if not active_only:
            live += [p for p in self._reader.policies(namespace, status="candidate") if p.support]
        texts = [p.situation or p.signature for p in live]
        found = [(m.similarity, p) for m, p in zip(self._matcher.match(task, texts, floor=floor), live, strict=True)
                 if m.matched]
        found.sort(key=lambda sp: (-round(sp[0], 6), sp[1].status != "active",
                                   -reliability(sp[1], self._thresholds), sp[1].policy_id))
        return found

    def items(self, query: str, *, namespace: str, intent: str | None = None, k: int = 10,
              active_only: bool = False) -> list[RecallItem]:
        """The experience items for ``query``, best first (empty for a fact question)."""
        mode = check_intent(intent)
        if mode == "facts":
            return []
        if howto_task(query) is None and mode != "procedure":
            return []
        scored = self.matching(query, namespace=namespace, active_only=active_only, explicit=mode == "procedure")
        if not scored:
            return []
        procedures = {p.policy_id: p for p in self._reader.procedures_of([p.policy_id for _, p in scored])
                      if p.status == "active"}
        out: list[RecallItem] = []
        for score, policy in scored:
            if policy.status == "active" and policy.policy_id in procedures:
                out.append(self._procedure_item(procedures[policy.policy_id], policy, score))
            out.append(self._policy_item(policy, score))
        return out[:k]

    def _policy_item(self, policy: PolicyState, score: float) -> RecallItem:
        rel = reliability(policy, self._thresholds)
        mark = "candidate on probation: " if policy.status == "candidate" else ""
        text = (f"{mark}in situation “{policy.situation or policy.signature}” prefer {policy.approach} "
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
                          evidence=tuple(dict.fromkeys((proc.source_episode, *policy.recent_episodes))),
                          subject=policy.signature, value=policy.approach, status=proc.status,
                          recorded_from=proc.promoted_at, support=policy.support, successes=policy.successes,
                          failures=policy.failures, reliability=rel, steps=proc.steps, policy_id=policy.policy_id)


def merge_items(experience: Sequence[RecallItem], facts: Sequence[RecallItem], k: int) -> tuple[RecallItem, ...]:
    """Experience items first, then the facts, ``k`` in all (the facts alone when there is no experience)."""
    if not experience:
        return tuple(facts[:k])
    return tuple([*experience, *facts][:k])
