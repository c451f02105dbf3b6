"""The cost-effect benchmark's optional LLM mode: the configured LLM answers from a packet and from the history.

Never part of the default run: ``python benchmarks/cost_effect.py --llm`` with an LLM configured
in hlmem's settings (``hlmem.toml``'s ``llm`` table or ``HLMEM_LLM``/``HLMEM_LLM_MODEL``/
``HLMEM_LLM_BASE_URL``, the key in the preset's variable; docs/config.md). The LLM is made by
hlmem's own composition root (``build_container``), so plugins, the allowlist and the daily
budget apply as they do for extraction.

Each sampled question is asked twice with the same instructions: once with the packet at
``--llm-budget`` tokens (hlmem's and the baseline's), once with the full history. MemDaily
questions are multiple choice (correct = the gold letter); LoCoMo questions get a short answer,
scored by LoCoMo's token F1 (answer and gold normalised by ``_answers.normalise``). The prompt
tokens are the provider's own count (``usage``), from hlmem's call ledger.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from _answers import normalise

SYSTEM = ("You answer a question about a user's conversations using only the memory text given. "
          "The memory may be a full transcript or a list of remembered lines, best first, each with when it "
          "was said. If the memory does not say, answer with your best guess.")
OPEN_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
CHOICE_SCHEMA = {"type": "object", "properties": {"choice": {"type": "string", "enum": ["A", "B", "C", "D"]}},
                 "required": ["choice"]}


def token_f1(answer: str, gold: str) -> float:
    """LoCoMo's QA score: F1 of the normalised tokens of ``answer`` against ``gold``."""
    a, g = Counter(normalise(answer)), Counter(normalise(str(gold)))
    common = sum((a & g).values())
    if not common:
        return 0.0
    precision, recall = common / sum(a.values()), common / sum(g.values())
    return 2 * precision * recall / (precision + recall)


def sample(ids: Sequence[str], limit: int) -> set[str]:
    """``limit`` ids spread evenly over ``ids`` (all of them when there are fewer)."""
    if limit >= len(ids):
        return set(ids)
    step = len(ids) / limit
    return {ids[int(i * step)] for i in range(limit)}


def user_message(question: str, gold: Mapping[str, Any], memory: str) -> tuple[str, Mapping[str, Any]]:
    """The user message and the schema for one question (multiple choice when the data gives choices)."""
    choices = gold.get("choices") or {}
    head = f"Memory:\n{memory or '(empty)'}\n\nQuestion: {question}\n"
    if choices:
        options = "\n".join(f"{k}. {v}" for k, v in sorted(choices.items()))
        return head + f"Options:\n{options}\nReply with JSON {{\"choice\": \"A\"|\"B\"|\"C\"|\"D\"}}.", CHOICE_SCHEMA
    return head + "Reply with JSON {\"answer\": \"a short phrase\"}.", OPEN_SCHEMA


class Asker:
    """One dataset's questions: which are asked, and the asking."""

    def __init__(self, llm: Any, ledger: Any, wanted: set[str]) -> None:
        self._llm, self._ledger, self._wanted = llm, ledger, wanted

    def wants(self, query_id: str) -> bool:
        """Whether this question is in the sample."""
        return query_id in self._wanted

    def ask(self, question: str, gold: Mapping[str, Any], memory: str) -> dict[str, Any]:
        """The LLM's answer from ``memory``, whether it is right, and the tokens the provider counted."""
        from hlmem.domain.errors import ProviderError

        user, schema = user_message(question, gold, memory)
        before = len(self._ledger.calls())
        out: dict[str, Any] = {"correct": None, "prompt_tokens": None, "completion_tokens": None}
        try:
            reply = self._llm.complete_json(SYSTEM, user, schema, operation="benchmark_answer")
        except ProviderError as exc:
            out["error"] = type(exc).__name__
            reply = None
        calls = self._ledger.calls()[before:]
        ok = [c for c in calls if c.status == "ok"]
        if ok:
            out["prompt_tokens"], out["completion_tokens"] = ok[-1].prompt_tokens, ok[-1].completion_tokens
        if reply is not None:
            if schema is CHOICE_SCHEMA:
                choice = str(reply.get("choice", "")).strip().upper()[:1]
                out["answer"] = choice
                out["correct"] = float(choice == str(gold.get("ground_truth", "")).strip().upper())
            else:
                answer = str(reply.get("answer", ""))
                out["answer"] = answer
                out["correct"] = round(token_f1(answer, str(gold.get("answer", ""))), 4)
        return out


class Answerer:
    """The configured LLM and its call ledger, for every dataset of a run."""

    def __init__(self, container: Any, limit: int) -> None:
        self._container = container
        self._llm = container.llm()
        self._ledger = container.ledger()
        self.limit = limit

    @classmethod
    def from_settings(cls, *, limit: int, settings: Any = None) -> Answerer:
        """The LLM hlmem's settings configure (``load_settings()`` unless given).

        :raises SystemExit: no LLM is configured, or it cannot be made (the message says why).
        """
        from hlmem.adapters.bootstrap import build_container
        from hlmem.adapters.settings_load import load_settings
        from hlmem.domain.errors import HlmemError

        settings = load_settings().settings if settings is None else settings
        if not settings.llm or settings.llm == "none":
            raise SystemExit("--llm: no LLM is configured; set one in hlmem.toml ([llm] provider, model) or with "
                             "HLMEM_LLM and HLMEM_LLM_MODEL, and its key in the provider's variable (docs/config.md)")
        try:
            container = build_container(":memory:", settings, now=None, synchronous="OFF", llm=None, provenance=None,
                                        dedup_audit=False, block_reingest=None, lifecycle=None, maintenance=None,
                                        rerank="none", rerank_top_n=30, ranking=None)
            answerer = cls(container, limit)
        except HlmemError as exc:
            raise SystemExit(f"--llm: the configured LLM cannot be used: {exc}") from exc
        if answerer._llm is None:
            raise SystemExit("--llm: the settings name no LLM")
        return answerer

    @property
    def model_id(self) -> str:
        """The provider and model asked."""
        return self._llm.model_id

    def for_dataset(self, name: str, ids: Sequence[str]) -> Asker:  # noqa: ARG002 - one signature per dataset
        """An :class:`Asker` for ``limit`` questions spread over ``ids``."""
        return Asker(self._llm, self._ledger, sample(list(ids), self.limit))

    def close(self) -> None:
        """Close the clients the container made."""
        owned = self._container.owned()
        while owned:
            owned.pop().close()
