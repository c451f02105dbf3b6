"""The dedup funnel and its protected atoms: never merge what differs in a number, a day or a name."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from attrs import evolve
from hypothesis import example, given
from hypothesis import strategies as st

from hlmem.domain import dedup as D
from hlmem.domain.atoms import KINDS, ProtectedAtoms, cn_number, content_key, protected_atoms
from hlmem.domain.candidates import CandidateClaim
from hlmem.domain.dedup import DedupOutcome, bigram_jaccard, classify, content_hash
from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.state import ClaimState

EQUAL, DIFFERENT, GRAY = DedupOutcome.EQUAL, DedupOutcome.DIFFERENT, DedupOutcome.GRAY
T0 = datetime(2026, 3, 4, tzinfo=timezone.utc)


def cand(value: str, *, subject: str = "用户", predicate: str = "note", **kw: object) -> CandidateClaim:
    return CandidateClaim(subject=subject, predicate=predicate, value=value, **kw)  # type: ignore[arg-type]


def state(value: str, *, subject: str = "用户", predicate: str = "note", polarity: bool = True,
          qualifiers: tuple[tuple[str, str], ...] = ()) -> ClaimState:
    return ClaimState(claim_id="cl_1", namespace="default", subject=subject, predicate=predicate, value=value,
                      qualifiers=qualifiers, coordinates=(), polarity=polarity, importance=0.5,
                      scope=Scope.PERMANENT, cardinality=Cardinality.SINGLE, source="rules", recorded_at=T0,
                      version=1)


NEVER_MERGED = [
    # new value, existing value, a reason that must be among the verdict's
    ("部署 v1.2", "部署 v1.3", D.ATOM_DIFFERS["versions"]),
    ("线上部署 v1.2 版本", "线上部署 v1.3 版本", D.ATOM_DIFFERS["versions"]),
    ("允许删除", "不允许删除", D.ATOM_DIFFERS["negations"]),
    ("允许删除生产日志", "不允许删除生产日志", D.ATOM_DIFFERS["negations"]),
    ("allows deleting logs", "never allows deleting logs", D.ATOM_DIFFERS["negations"]),
    ("can delete the logs", "can't delete the logs", D.ATOM_DIFFERS["negations"]),
    ("周三开会", "周四开会", D.ATOM_DIFFERS["weekdays"]),
    ("每周三下午开组会", "每周四下午开组会", D.ATOM_DIFFERS["weekdays"]),
    ("周三开会", "星期四开会", D.ATOM_DIFFERS["weekdays"]),
    ("meeting on Wednesday afternoon", "meeting on Thursday afternoon", D.ATOM_DIFFERS["weekdays"]),
    ("明天去北京出差", "后天去北京出差", D.ATOM_DIFFERS["relative"]),
    ("明天开会", "后天开会", D.ATOM_DIFFERS["relative"]),
    ("flight leaves tomorrow morning", "flight leaves the day after tomorrow morning", D.ATOM_DIFFERS["relative"]),
    ("下午三点开会", "上午三点开会", D.ATOM_DIFFERS["relative"]),
    ("日志写在 /var/a", "日志写在 /var/b", D.ATOM_DIFFERS["paths"]),
    ("logs go to /var/log/app-a/current", "logs go to /var/log/app-b/current", D.ATOM_DIFFERS["paths"]),
    ("服务端口 8080", "服务端口 8081", D.ATOM_DIFFERS["ports"]),
    ("api listens on localhost:8080", "api listens on localhost:8081", D.ATOM_DIFFERS["ports"]),
    ("我的同事张伟负责部署", "我的同事张卫负责部署", D.ATOM_DIFFERS["names"]),
    ("同事叫张伟", "同事叫张卫", D.ATOM_DIFFERS["names"]),
    ("manager is Alice Chen", "manager is Alice Cheng", D.ATOM_DIFFERS["names"]),
    ("住在杭州市西湖区", "住在苏州市西湖区", D.ATOM_DIFFERS["places"]),
    ("lives in Beijing now", "lives in Shanghai now", D.ATOM_DIFFERS["names"]),
    ("每天喝两杯咖啡", "每天喝三杯咖啡", D.ATOM_DIFFERS["numbers"]),
    ("每天喝2杯咖啡", "每天喝3杯咖啡", D.ATOM_DIFFERS["numbers"]),
    ("数据库在 10.0.0.1", "数据库在 10.0.0.2", D.ATOM_DIFFERS["ips"]),
    ("2026年5月1日上线", "2026年5月2日上线", D.ATOM_DIFFERS["dates"]),
    ("五月一号上线", "六月一号上线", D.ATOM_DIFFERS["dates"]),
    ("上线日期是 May 1", "上线日期是 June 1", D.ATOM_DIFFERS["dates"]),
    ("他说“先别发布”", "他说“先发布”", D.ATOM_DIFFERS["quoted"]),
    ("组件 component-03 负责鉴权", "组件 component-04 负责鉴权", D.ATOM_DIFFERS["entities"]),
    ("后端数据库用 PostgreSQL", "后端数据库用 MySQL", D.ATOM_DIFFERS["entities"]),
    ("配置项 max_retries 控制重试", "配置项 max_timeout 控制重试", D.ATOM_DIFFERS["entities"]),
    ("temperature is -5 degrees", "temperature is 5 degrees", D.ATOM_DIFFERS["numbers"]),
]


@pytest.mark.parametrize(("new", "old", "reason"), NEVER_MERGED)
def test_protected_atoms_keep_look_alikes_apart(new: str, old: str, reason: str) -> None:
    for a, b in ((new, old), (old, new)):
        verdict = classify(cand(a), state(b))
        assert verdict.outcome is DIFFERENT, (a, b, verdict)
        assert reason in verdict.reasons, verdict


EQUAL_VARIANTS = [
    ("用户 喜欢 咖啡", "用户喜欢咖啡 "),
    ("用户喜欢咖啡。", "用户喜欢咖啡"),
    ("用户，喜欢咖啡！", "用户喜欢咖啡"),
    ("用户喜欢咖啡", "用户喜欢咖啡"),
    ("ｖ１．２", "v1.2"),
    ("部署　v1.2。", "部署 v1.2"),
    ("Likes  Coffee.", "likes coffee"),
    ("「深色模式」", "深色模式"),
    ("I don't like tea!", "i don't like tea"),
    ("端口：8080", "端口 8080"),
]


@pytest.mark.parametrize(("new", "old"), EQUAL_VARIANTS)
def test_whitespace_punctuation_width_and_case_variants_are_equal(new: str, old: str) -> None:
    verdict = classify(cand(new), state(old))
    assert (verdict.outcome, verdict.reasons) == (EQUAL, (D.EXACT_HASH,))
    assert content_hash(cand(new)) == content_hash(cand(old))


def test_subject_and_predicate_variants_hash_alike() -> None:
    assert classify(cand("咖啡", subject=" 用户 ", predicate="Likes Food"),
                    state("咖啡", predicate="likes-food")).outcome is EQUAL


def test_near_identical_values_are_gray_and_only_gray_carries_a_similarity() -> None:
    verdict = classify(cand("每天晚上用深色模式写代码"), state("每天晚上都用深色模式写代码"))
    assert verdict.outcome is GRAY and verdict.reasons == (D.NEAR_DUPLICATE,)
    assert D.GRAY_THRESHOLD <= verdict.similarity < 1
    low = classify(cand("深色模式"), state("浅色模式"))
    assert low.outcome is DIFFERENT and low.reasons == (D.DISSIMILAR,) and low.similarity < D.GRAY_THRESHOLD


def test_gray_threshold_is_a_parameter() -> None:
    assert classify(cand("深色模式"), state("浅色模式"), gray_threshold=0.5).outcome is GRAY
    assert classify(cand("每天晚上用深色模式写代码"), state("每天晚上都用深色模式写代码"),
                    gray_threshold=0.99).outcome is DIFFERENT


SLOT = [
    (dict(subject="张伟"), D.SUBJECT_DIFFERS),
    (dict(predicate="dislikes"), D.PREDICATE_DIFFERS),
    (dict(polarity=False), D.POLARITY_DIFFERS),
    (dict(qualifiers=(("temporary", "暂时"),)), D.QUALIFIERS_DIFFER),
    (dict(coordinates=(("environment", "prod"),)), D.COORDINATES_DIFFER),
]


@pytest.mark.parametrize(("change", "reason"), SLOT)
def test_a_different_slot_or_polarity_is_different_even_with_the_same_value(change: dict[str, object],
                                                                          reason: str) -> None:
    verdict = classify(evolve(cand("咖啡", predicate="likes"), **change), state("咖啡", predicate="likes"))
    assert (verdict.outcome, verdict.reasons) == (DIFFERENT, (reason,))


def test_candidates_compare_with_candidates_and_qualifier_order_does_not_matter() -> None:
    q1 = (("temporary", "暂时"), ("reason", "眼睛累"))
    assert classify(cand("浅色模式", qualifiers=q1), cand("浅色模式 ", qualifiers=q1[::-1])).outcome is EQUAL


def test_every_reason_is_a_known_code() -> None:
    for new, old, _ in NEVER_MERGED:
        assert set(classify(cand(new), state(old)).reasons) <= set(D.REASON_CODES)


ATOMS = [
    ("周三 / 星期三 / 礼拜三 / Wednesday", "weekdays", ("wd3",)),
    ("下周三", "relative", ("w+1",)),
    ("上个月", "relative", ("m-1",)),
    ("the day after tomorrow", "relative", ("d+2",)),
    ("大后天", "relative", ("d+3",)),
    ("两百零五", "numbers", ("205",)),
    ("一起去", "numbers", ()),
    ("v1.2.3 and 2.0.1-rc1", "versions", ("1.2.3", "2.0.1-rc1")),
    ("IP 192.168.1.20.", "ips", ("192.168.1.20",)),
    ("8080端口", "ports", ("8080",)),
    ("端口号是 5432", "ports", ("5432",)),
    ("~/notes and C:\\Users\\me and /etc/hosts.", "paths", ("/etc/hosts", "C:\\Users\\me", "~/notes")),
    ("see https://example.com/a?b=1。", "paths", ("https://example.com/a?b=1",)),
    ("不要 没有 未 别 禁止 无法 never no n't", "negations", ("n't"[:0] + "no", "never", "not", "不", "无法",
                                                         "别", "未", "没", "禁止")),
    ("未来 别人 不过 非常", "negations", ()),
    ("他说「好」和 \"ok\"", "quoted", ("ok", "好")),
    ("我叫李雷，同事姓王", "names", ("李雷", "王")),
    ("I may go", "dates", ()),
    ("5月3号", "dates", ("m5-3",)),
    ("住在广州市天河区", "places", ("天河区", "广州")),
    ("PostgreSQL, iPhone, snake_case, k8s, GPU", "entities", ("gpu", "iphone", "k8s", "postgresql", "snake_case")),
]


@pytest.mark.parametrize(("text", "kind", "expected"), ATOMS)
def test_protected_atoms(text: str, kind: str, expected: tuple[str, ...]) -> None:
    assert tuple(sorted(getattr(protected_atoms(text), kind))) == tuple(sorted(expected))


def test_atoms_have_every_kind_and_report_differences() -> None:
    assert tuple(k for k, _ in ProtectedAtoms().items()) == KINDS
    assert protected_atoms("部署 v1.2").differing_kinds(protected_atoms("部署 v1.3")) == ("numbers", "versions")
    assert protected_atoms("不是不").negations == ("不", "不")  # a multiset: parity matters


@pytest.mark.parametrize(("text", "value"), [("三", 3), ("十二", 12), ("二十", 20), ("两百零五", 205),
                                             ("二〇二四", 2024), ("三万五千", 35000), ("百", 100), ("", None)])
def test_chinese_numerals(text: str, value: int | None) -> None:
    assert cn_number(text) == value


def test_content_key_keeps_tokens_and_drops_sentence_punctuation() -> None:
    assert content_key("部署 v1.2。") == "部署v1.2"
    assert content_key("Hello , World!  -5 .env ./a") == "hello world -5 .env ./a"
    assert content_key("10:30，/var/a") == "10:30 /var/a"
    assert content_key("端口，/var/a") == "端口/var/a"
    assert bigram_jaccard("", "") == 1.0 and bigram_jaccard("a", "a") == 1.0 and bigram_jaccard("a", "b") == 0.0


_TEXT = st.text(max_size=30)


@given(prefix=_TEXT, digits=st.text(alphabet="0123456789", min_size=1, max_size=8), suffix=_TEXT, data=st.data())
@example(prefix="部署 v1.", digits="2", suffix="", data=None)
@example(prefix="每天喝", digits="2", suffix="杯咖啡，周三 8080 端口", data=None)
def test_changing_one_digit_is_never_equal_or_gray(prefix: str, digits: str, suffix: str,
                                                    data: st.DataObject | None) -> None:
    i = data.draw(st.integers(0, len(digits) - 1)) if data else 0
    options = [d for d in "0123456789" if d != digits[i]]
    new_digit = data.draw(st.sampled_from(options)) if data else options[0]
    old = prefix + digits + suffix
    new = prefix + digits[:i] + new_digit + digits[i + 1:] + suffix
    verdict = classify(cand(new), state(old))
    assert verdict.outcome is DIFFERENT, (old, new, verdict)
    assert D.ATOM_DIFFERS["numbers"] in verdict.reasons
