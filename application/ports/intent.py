"""The intent role: how likely a question asks for someone's profile (ADR 0090).

Recall serves a subject's mental model and observation summary first only for profile questions
(ADR 0084). The adapter (:mod:`hlmem.adapters.intent.profile_model`) reads the question with a
model trained offline; the pure subject and side reading stays in :mod:`hlmem.domain.profile_reading`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from hlmem.domain.ask_features import IntentReading


@runtime_checkable
class ProfileIntent(Protocol):
    """Reads whether a question asks for a profile ("hey quick q — what do you remember about Bob?")
    rather than one value ("where does Bob work now?").

    Contract:
    - ``reading(text)`` returns an :class:`~hlmem.domain.ask_features.IntentReading` (a probability
      in [0, 1], the threshold it is compared with and what read it), or None when this reader
      cannot tell (the question is then read by the cue rules alone).
    - Deterministic: the same text gives the same reading in one process.
    - Cheap: nothing is embedded but the question itself (recall's query vector, remembered), no
      download, no LLM call; a failure of the embedder gives the lexical reading, never an error.
    """

    def reading(self, text: str) -> IntentReading | None: ...
