"""Matching a how-to task to stored situations by meaning (ADR 0067): the embedder's similarity,
then the domain's contrasts (:mod:`hlmem.domain.experience_match`).

:class:`SituationMatcher` embeds the task as a query and each situation's text as a passage through
the Embedder port, and keeps the situations' vectors in process (bounded, least recently used),
so a namespace's policies are embedded once, not at every question; nothing is written to the
store (a recall writes nothing, ADR 0006). With no embedder (``embedder = "none"``) the similarity
is the lexical :func:`~hlmem.domain.procedure_intent.match_score`. The default floors were set on
``benchmarks/experience/goals_dev.jsonl`` (``benchmarks/experience_matching.py``): the embedder's
cosine must reach :data:`EMBEDDED_FLOOR`, the lexical score :data:`LEXICAL_FLOOR`.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence

from attrs import frozen

from hlmem.application.ports import Embedder
from hlmem.domain.experience_match import contrasts
from hlmem.domain.procedure_intent import match_score

#: multilingual-e5-small's cosine between a paraphrased task and its goal is 0.82-0.95; between
#: unrelated tasks well below. Hash and other embedders are scored the same way.
EMBEDDED_FLOOR = 0.82
#: The lexical score's floor when there is no embedder (ADR 0045's how-to floor).
LEXICAL_FLOOR = 0.6
#: Floors of embedders whose cosines live on another scale, by the start of their model id: the
#: hashing embedder (tests, ``embedder = "hash"``) compares character n-grams, so only close
#: rewordings reach it.
MODEL_FLOORS = {"hash": 0.5}
_PLACEHOLDER = re.compile(r"<(?:n|q|url|path|id)>")
#: Situation vectors kept in process.
_KEPT = 4096


@frozen
class Match:
    """How a task matched one situation text: the similarity, what contrasted, the verdict."""

    similarity: float
    contrasts: tuple[str, ...]
    matched: bool


def _floor_of(embedder: Embedder | None) -> float:
    if embedder is None:
        return LEXICAL_FLOOR
    model = str(getattr(embedder, "model_id", ""))
    return next((f for prefix, f in MODEL_FLOORS.items() if model.startswith(prefix)), EMBEDDED_FLOOR)


class SituationMatcher:
    """Decides whether tasks ask for stored situations (module docstring)."""

    def __init__(self, embedder: Embedder | None = None, *, floor: float | None = None) -> None:
        self._embedder = embedder
        self.floor = floor if floor is not None else _floor_of(embedder)
        self._vectors: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()

    def match(self, task: str, situations: Sequence[str], *, floor: float | None = None) -> list[Match]:
        """One :class:`Match` per situation text (a signature's placeholders such as ``<n>`` are
        left out of what is embedded and compared), in order."""
        bar = self.floor if floor is None else floor
        situations = [_PLACEHOLDER.sub(" ", s).strip() for s in situations]
        sims = self.similarities(task, situations)
        out = []
        for text, sim in zip(situations, sims, strict=True):
            found = tuple(contrasts(text, task))
            out.append(Match(sim, found, sim >= bar and not found))
        return out

    def similarities(self, task: str, situations: Sequence[str]) -> list[float]:
        """The similarity of ``task`` to each situation text: the embedder's cosine, or the lexical score."""
        if not situations:
            return []
        if self._embedder is None:
            return [match_score(task, s) for s in situations]
        query = self._embedder.embed_queries([task])[0]
        return [float(sum(float(a) * float(b) for a, b in zip(query, v, strict=True)))
                for v in self._passages(situations)]

    def _passages(self, texts: Sequence[str]) -> list:
        keys = [unicodedata.normalize("NFC", t) for t in texts]
        with self._lock:
            missing = [k for k in dict.fromkeys(keys) if k not in self._vectors]
        if missing:
            rows = self._embedder.embed_passages(missing)  # type: ignore[union-attr]
            with self._lock:
                for key, row in zip(missing, rows, strict=True):
                    self._vectors[key] = row
                    self._vectors.move_to_end(key)
                while len(self._vectors) > _KEPT:
                    self._vectors.popitem(last=False)
        with self._lock:
            for k in keys:
                if k in self._vectors:
                    self._vectors.move_to_end(k)
            return [self._vectors[k] if k in self._vectors else self._embedder.embed_passages([k])[0]  # type: ignore
                    for k in keys]
