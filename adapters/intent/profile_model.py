"""The profile-intent model: a :class:`~hlmem.application.ports.ProfileIntent` (ADR 0090).

``profile_intent.json`` (beside this module, written by ``scripts/train_profile_intent.py``) holds
two logistic models: a **lexical** one over the question's words and neighbouring pairs
(:func:`hlmem.domain.ask_features.features`), which any store can use, and a **vector** one per
embedder model over the query vector (standardised per dimension). With the recall embedder's
model among them, the reading is the mean of the two probabilities against that model's
threshold; without it (``hash``, ``none``, another model), the lexical one against its own, stricter
threshold. The question's vector is the one recall embeds anyway (the query memo answers it), so
a reading costs a dot product of 384 numbers and a few dictionary lookups; the file is read once
per process.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from hlmem.application.errors import EmbedderError
from hlmem.domain.ask_features import IntentReading, linear_probability

if TYPE_CHECKING:
    from hlmem.application.ports import Embedder

log = logging.getLogger(__name__)
MODEL_FILE = "profile_intent.json"


class ProfileIntentModel:
    """Reads :class:`IntentReading` s from a trained model (the module docstring).

    :param model: the parsed model file.
    :param embedder: the recall embedder (its query vectors, remembered); None: words only."""

    def __init__(self, model: Mapping[str, Any], embedder: Embedder | None = None) -> None:
        lexical = model["lexical"]
        self._weights: dict[str, float] = {str(k): float(v) for k, v in lexical["weights"].items()}
        self._bias, self._lexical_threshold = float(lexical["bias"]), float(lexical["threshold"])
        self._embedder = embedder
        self._vector = None
        part = model.get("vector", {}).get(embedder.model_id) if embedder is not None else None
        if part is not None and len(part["weights"]) == embedder.dim:
            scale = np.asarray(part["scale"], dtype=np.float64)
            weights = np.asarray(part["weights"], dtype=np.float64) / scale  # (v - mean) / scale @ w, folded
            self._vector = (weights, float(part["bias"]) - float(np.asarray(part["mean"]) @ weights),
                            float(part["threshold"]))

    @property
    def by(self) -> str:
        """``vector+lexical`` when the embedder's model has a vector part, else ``lexical``."""
        return "vector+lexical" if self._vector is not None else "lexical"

    def reading(self, text: str) -> IntentReading | None:
        lexical = linear_probability(text, self._weights, self._bias)
        if self._vector is not None and self._embedder is not None:
            try:
                vector = np.asarray(self._embedder.embed_queries([text])[0], dtype=np.float64)
            except EmbedderError as exc:  # the words alone, never a failed recall
                log.warning("profile intent: the query vector failed (%s); reading the words alone", exc)
            else:
                weights, bias, threshold = self._vector
                z = float(np.clip(vector @ weights + bias, -60.0, 60.0))
                return IntentReading((lexical + 1.0 / (1.0 + np.exp(-z))) / 2.0, threshold, "vector+lexical")
        return IntentReading(lexical, self._lexical_threshold, "lexical")


@functools.lru_cache(maxsize=1)
def shipped_model() -> Mapping[str, Any] | None:
    """The model file shipped in the package, read once (None, with a warning, when unreadable)."""
    try:
        text = resources.files(__package__).joinpath(MODEL_FILE).read_text(encoding="utf-8")
        model = json.loads(text)
        model["lexical"]["weights"]  # noqa: B018 - the shape the reader needs
        return model
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("profile intent: %s unreadable (%s); profile questions are read by the cue rules only",
                    MODEL_FILE, exc)
        return None


def profile_intent(embedder: Embedder | None, enabled: bool = True) -> ProfileIntentModel | None:
    """The composition root's reader: the shipped model with the recall embedder (None: cue rules only)."""
    model = shipped_model() if enabled else None
    return ProfileIntentModel(model, embedder) if model is not None else None
