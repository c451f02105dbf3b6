"""Admission policy: shape, secrets, noise, chatter, evidence quotes and value support, as tables."""

from __future__ import annotations

import string
from datetime import datetime, timedelta, timezone

import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain import admission as A
from hlmem.domain.admission import admit_candidate, find_secrets, is_chatter, is_operational_noise
from hlmem.domain.candidates import CandidateClaim, SourceEvent, Verdict

T0 = datetime(2026, 3, 4, 9, 0, tzinfo=timezone.utc)


def sources(*texts: str) -> dict[str, SourceEvent]:
    return {f"ev_{i}": SourceEvent(event_id=f"ev_{i}", text=t, role="user", session_id="s", origin_class="direct_user",
                                   session_kind="interactive", occurred_at=T0) for i, t in enumerate(texts, 1)}


def claim(value: str, quote: str, *, subject: str = "用户", predicate: str = "note",
          evidence: tuple[str, ...] = ("ev_1",), **kw: object) -> CandidateClaim:
    return CandidateClaim(subject=subject, predicate=predicate, value=value, evidence_quote=quote,
                          evidence=evidence, **kw)  # type: ignore[arg-type]


def reasons(c: CandidateClaim, *texts: str) -> tuple[str, ...]:
    decision = admit_candidate(c, sources(*texts))
    assert (decision.verdict is Verdict.ACCEPT) == (decision.reasons == ())
    assert decision.verdict in (Verdict.ACCEPT, Verdict.REJECT)
    return decision.reasons


ACCEPTED = [
    # value, quote, source
    ("深色模式", "我现在主要用深色模式", "我现在主要用深色模式。"),
    ("浅色模式", "暂时换成浅色模式", "嗯，暂时换成浅色模式吧"),
    ("杭州", "我住在杭州", "我住在 杭州。"),
    ("张伟", "我的同事叫张伟", "我的同事叫张伟，负责部署"),
    ("部署 v1.2", "现在线上部署的是 v1.2", "现在线上部署的是 v1.2。"),
    ("8080", "端口是 8080", "服务的端口是 8080"),
    ("两个孩子", "我有两个孩子", "我有两个孩子"),
    ("2 个孩子", "我有两个孩子", "我有两个孩子"),
    ("周三开会", "星期三开会", "我们星期三开会"),
    ("不吃香菜", "我不吃香菜", "我不吃香菜"),
    ("/etc/nginx/nginx.conf", "config is at /etc/nginx/nginx.conf", "The config is at /etc/nginx/nginx.conf."),
    ("PostgreSQL 16", "we moved to PostgreSQL 16", "We moved to PostgreSQL 16 last week"),
    ("Prefers dark mode", "I prefer dark mode", "I prefer dark mode"),
    ("works at Acme", "I work at Acme", "i WORK   at Acme!"),
    ("coffee", "I ＬＩＫＥ coffee", "I like coffee"),
    ("喜欢咖啡", "喜欢 咖啡", "我喜欢咖啡"),
    ("10.0.0.1", "db host is 10.0.0.1", "The db host is 10.0.0.1."),
    ("早上跑步", "每天早上跑步", "我每天早上跑步，雷打不动"),
]


@pytest.mark.parametrize(("value", "quote", "source"), ACCEPTED)
def test_well_supported_candidates_are_accepted(value: str, quote: str, source: str) -> None:
    assert reasons(claim(value, quote), source) == ()


def test_quote_may_come_from_any_of_its_evidence_events() -> None:
    c = claim("杭州", "我住在杭州", evidence=("ev_1", "ev_2"))
    assert reasons(c, "你好", "我住在杭州") == ()
    # ... but not from an event the candidate does not cite.
    assert reasons(claim("杭州", "我住在杭州"), "你好", "我住在杭州") == (A.QUOTE_NOT_FOUND, A.VALUE_NAME_UNSUPPORTED)


SHAPE = [
    (dict(subject=" "), (A.EMPTY_SUBJECT,)),
    (dict(predicate="__"), (A.EMPTY_PREDICATE,)),
    (dict(value="  "), (A.EMPTY_VALUE,)),
    (dict(subject="", predicate="", value=""), (A.EMPTY_SUBJECT, A.EMPTY_PREDICATE, A.EMPTY_VALUE)),
    (dict(value="长" * (A.MAX_CANDIDATE_VALUE_CHARS + 1)), (A.TOO_LONG,)),
    (dict(subject="x" * 257), (A.TOO_LONG,)),
    (dict(evidence_quote="我" * (A.MAX_QUOTE_CHARS + 1)), (A.TOO_LONG,)),
    (dict(importance=1.5), (A.INVALID_IMPORTANCE,)),
    (dict(importance=float("nan")), (A.INVALID_IMPORTANCE,)),
    (dict(importance=-0.1), (A.INVALID_IMPORTANCE,)),
    (dict(valid_from=T0, valid_to=T0), (A.INVALID_INTERVAL,)),
    (dict(valid_from=T0, valid_to=T0 - timedelta(days=1)), (A.INVALID_INTERVAL,)),
]


@pytest.mark.parametrize(("change", "expected"), SHAPE)
def test_misshapen_candidates_stop_at_the_shape_check(change: dict[str, object], expected: tuple[str, ...]) -> None:
    c = evolve(claim("杭州", "我住在杭州"), **change)
    assert reasons(c, "我住在杭州") == expected


def test_evidence_must_be_named_and_known() -> None:
    assert reasons(claim("杭州", "我住在杭州", evidence=()), "我住在杭州") == (A.NO_EVIDENCE,)
    assert reasons(claim("杭州", "我住在杭州", evidence=("ev_1", "ev_9")), "我住在杭州") == (A.UNKNOWN_EVIDENCE,)


SECRETS = [
    ("sk-proj-AbCdEfGhIjKlMnOpQrStUvWx", A.SECRET_KEY),
    ("my key is sk-1234567890abcdefghij", A.SECRET_KEY),
    ("AKIAIOSFODNN7EXAMPLE", A.SECRET_KEY),
    ("ghp_" + "a1B2" * 9, A.SECRET_KEY),
    ("xoxb-123456789012-abcdefABCDEF", A.SECRET_KEY),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", A.SECRET_KEY),
    ("AIzaSyA1234567890abcdefghijklmnopqrstu", A.SECRET_KEY),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow...", A.SECRET_PRIVATE_KEY),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", A.SECRET_PRIVATE_KEY),
    ("my password is hunter2", A.SECRET_CREDENTIAL),
    ("Password: Tr0ub4dor&3", A.SECRET_CREDENTIAL),
    ("the user's password is correct-horse", A.SECRET_CREDENTIAL),
    ("api_key=abcd1234", A.SECRET_CREDENTIAL),
    ("token: 9f8e7d6c", A.SECRET_CREDENTIAL),
    ("recovery code is 4821-9932", A.SECRET_CREDENTIAL),
    ("我的密码是 abc123", A.SECRET_CREDENTIAL),
    ("wifi密码：12345678", A.SECRET_CREDENTIAL),
    ("口令为 qwerty", A.SECRET_CREDENTIAL),
    ("恢复码是 AB12-CD34", A.SECRET_CREDENTIAL),
    ("验证码是 482913", A.SECRET_CREDENTIAL),
    ("支付密码改成了 888888", A.SECRET_CREDENTIAL),
    ("ｓｋ－ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔ", A.SECRET_KEY),
]


@pytest.mark.parametrize(("text", "code"), SECRETS)
def test_secrets_are_found(text: str, code: str) -> None:
    assert code in find_secrets(text)


@pytest.mark.parametrize("text", [
    "密码是什么", "我忘了密码", "密码必须包含数字", "my password is too weak", "the token is expired",
    "password: ", "用户喜欢 sketch 和 skiing", "ask-me-anything", "用户的项目叫 task-runner",
    "Token limits matter", "a 12-word recovery phrase is stored offline",
])
def test_talk_about_secrets_is_not_a_secret(text: str) -> None:
    assert find_secrets(text) == ()


@pytest.mark.parametrize("where", ["value", "evidence_quote", "subject", "qualifiers"])
def test_a_secret_anywhere_in_the_candidate_rejects_it(where: str) -> None:
    src = "我的密码是 abc123，我住在杭州"
    base = claim("杭州", "我住在杭州")
    secret = "我的密码是 abc123"
    change = {"qualifiers": (("note", secret),)} if where == "qualifiers" else {where: secret}
    assert A.SECRET_CREDENTIAL in reasons(evolve(base, **change), src)


@pytest.mark.parametrize("predicate", ["password", "wifi_password", "密码", "API key", "recovery codes", "恢复码"])
def test_a_credential_predicate_rejects_the_candidate(predicate: str) -> None:
    assert reasons(claim("hunter2", "hunter2", predicate=predicate), "it is hunter2") == (A.SECRET_CREDENTIAL,)


@pytest.mark.parametrize("text", [
    "12 passed", "12 passed, 1 warning in 3.2s", "3 failed", "All tests passed", "测试通过", "测试全部通过",
    "5 个用例通过", "service is running", "The server is up and running", "nginx is running",
    "install succeeded", "Successfully installed", "build succeeded", "构建成功", "安装成功了", "已重启",
    "服务已重启", "部署完成", "正在运行", "服务运行正常",
])
def test_operational_noise(text: str) -> None:
    assert is_operational_noise(text)
    assert A.OPERATIONAL_NOISE in reasons(claim(text, text), text)


@pytest.mark.parametrize("text", [
    "我把服务端口改成了8081，已重启", "the user is running a bakery", "用户在跑马拉松", "部署 v1.2",
    "CI 用的是 GitHub Actions", "passed the bar exam in 2019", "用户正在学习 Rust",
])
def test_facts_near_noise_words_are_not_noise(text: str) -> None:
    assert not is_operational_noise(text)


@pytest.mark.parametrize("text", [
    "好的", "好的。", "谢谢", "谢谢你！", "ok", "OK!", "Okay", "哈哈", "哈哈哈哈", "嗯嗯", "好的，谢谢", "你好",
    "hi", "Hello!", "Thank you", "thanks!!", "lol", "👍", "🙂🙂", "收到", "没问题", "good morning", "晚安~",
])
def test_chatter(text: str) -> None:
    assert is_chatter(text)
    assert A.LOW_VALUE in reasons(claim(text, text), text)


@pytest.mark.parametrize("text", ["喜欢好的咖啡", "hiking", "okra", "Nicole", "用户喜欢哈密瓜", "谢霆锋", "no sugar"])
def test_not_chatter(text: str) -> None:
    assert not is_chatter(text)


QUOTES = [
    # quote, source, reason (None: found)
    ("部署 v1.3", "部署 v1.2", A.QUOTE_NOT_FOUND),
    ("v1.3", "现在是 v1.35", A.QUOTE_ATOMS_MISMATCH),
    ("1.3", "现在是 v1.3", None),
    ("版本 1.3", "版本 11.3", A.QUOTE_NOT_FOUND),
    ("1.3 版本", "11.3 版本", A.QUOTE_ATOMS_MISMATCH),
    ("现在是 3.1", "现在是 3.11", A.QUOTE_ATOMS_MISMATCH),
    ("10.0.0.1", "host 10.0.0.12", A.QUOTE_ATOMS_MISMATCH),
    ("port 80", "port 8080", A.QUOTE_ATOMS_MISMATCH),
    ("端口 808", "端口 8080", A.QUOTE_ATOMS_MISMATCH),
    ("三个人", "十三个人", A.QUOTE_ATOMS_MISMATCH),
    ("三个人", "我们三个人去", None),
    ("ice cream", "I like nice cream", None),
    ("I LIKE   coffee", "i like coffee.", None),
    ("我喜欢，咖啡！", "我喜欢咖啡", None),
    ("ｖ１．２", "v1.2", None),
    ("v1.2", "ｖ１．２", None),
    ("我喜欢茶", "我喜欢咖啡", A.QUOTE_NOT_FOUND),
    ("", "我喜欢咖啡", A.QUOTE_MISSING),
    ("。，", "我喜欢咖啡", A.QUOTE_MISSING),
    ("v1.2 and v1.3", "v1.2 and v1.3 and v1.2 and v1.34", None),
]


@pytest.mark.parametrize(("quote", "source", "expected"), QUOTES)
def test_evidence_quote_matching(quote: str, source: str, expected: str | None) -> None:
    got = reasons(claim("x", quote), source)
    quote_reasons = [r for r in got if r.startswith("admission.quote_")]
    assert quote_reasons == ([expected] if expected else [])


UNSUPPORTED = [
    # value, quote, source, reason
    ("部署 v1.3", "部署", "我们部署了 v1.2", A.VALUE_NUMBER_UNSUPPORTED),
    ("端口 8081", "端口", "端口是 8080", A.VALUE_NUMBER_UNSUPPORTED),
    ("3 个孩子", "孩子", "我有两个孩子", A.VALUE_NUMBER_UNSUPPORTED),
    ("周四开会", "开会", "我们周三开会", A.VALUE_TIME_UNSUPPORTED),
    ("后天出发", "出发", "明天出发", A.VALUE_TIME_UNSUPPORTED),
    ("2026-03-05 出发", "出发", "明天出发", A.VALUE_NUMBER_UNSUPPORTED),
    ("日志在 /var/b", "日志在", "日志在 /var/a", A.VALUE_NAME_UNSUPPORTED),
    ("同事张卫", "同事", "我的同事叫张伟", A.VALUE_NAME_UNSUPPORTED),
    ("Alice's manager is Bob", "manager", "my manager is Carol", A.VALUE_NAME_UNSUPPORTED),
    ("uses MySQL", "uses", "the team uses PostgreSQL", A.VALUE_NAME_UNSUPPORTED),
    ("不允许删除", "删除", "允许删除日志", A.VALUE_NEGATION_UNSUPPORTED),
    ("doesn't like tea", "like tea", "I like tea", A.VALUE_NEGATION_UNSUPPORTED),
]


@pytest.mark.parametrize(("value", "quote", "source", "expected"), UNSUPPORTED)
def test_values_must_be_supported_by_their_evidence(value: str, quote: str, source: str, expected: str) -> None:
    assert expected in reasons(claim(value, quote), source)


def test_all_reasons_are_reported_together() -> None:
    got = reasons(claim("我的密码是 abc123", "哈哈"), "你好")
    assert got[:2] == (A.SECRET_CREDENTIAL, A.LOW_VALUE)
    assert A.QUOTE_NOT_FOUND in got and A.VALUE_NUMBER_UNSUPPORTED in got
    assert set(got) <= set(A.REASON_CODES)


_WORDS = st.text(alphabet=string.ascii_letters + "我喜欢咖啡部署版本端口 .,，。-/:", min_size=0, max_size=20)


@given(prefix=_WORDS, digits=st.text(alphabet=string.digits, min_size=1, max_size=6), suffix=_WORDS,
       data=st.data())
def test_a_quote_with_one_digit_changed_is_never_found(prefix: str, digits: str, suffix: str,
                                                       data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(digits) - 1))
    new = data.draw(st.sampled_from([d for d in string.digits if d != digits[i]]))
    source = prefix + digits + suffix
    quote = prefix + digits[:i] + new + digits[i + 1:] + suffix
    got = reasons(claim("x", quote), source)
    assert A.QUOTE_NOT_FOUND in got or A.QUOTE_ATOMS_MISMATCH in got


@given(text=st.text(min_size=1, max_size=60).filter(lambda t: any(c.isalnum() for c in t)))
def test_a_source_always_contains_itself_as_a_quote(text: str) -> None:
    got = reasons(claim("x", text), text)
    assert not [r for r in got if r.startswith("admission.quote_")]
