"""Admission policy: the deterministic checks a candidate claim must pass before it is written.

:func:`admit_candidate` REJECTs with every reason code that applies, or ACCEPTs with none. Checks,
in the order their codes are reported:

1. shape — empty subject/predicate/value, over-long fields, importance outside [0, 1], an empty
   valid interval (a misshapen candidate stops here);
2. secrets in the subject, value, qualifiers or quote — API keys and tokens, private keys,
   "password/密码/… is X" statements, or a credential-like predicate;
3. operational noise (test counts, "service is running", 构建成功, 已重启 …) and low-value chatter
   (好的, 谢谢, ok, 哈哈, greetings) in the value or the quote;
4. evidence — the candidate names source events, all known, and its quote occurs in one of them
   after :func:`~hlmem.domain.atoms.content_key` normalisation (NFKC, case, whitespace,
   sentence punctuation), with numbers — and so IPs, ports and versions — matching exactly: the
   matched span is widened to whole tokens, so ``v1.3`` is not found in ``v1.35``;
5. support — every protected atom of the value occurs in the evidence: numbers, versions, IPs,
   ports, dates, relative days and weekdays as canonical atoms; paths, quoted strings, names,
   places and entities as folded text; a negation in the value needs one in the evidence.
   Resolved times belong in ``valid_from``/``valid_to``, not in the value. The value is in the
   language of its evidence, not a translation of it (:func:`~hlmem.domain.language.translated`);
6. the user's own voice — a candidate about the user (its subject
   :func:`~hlmem.domain.provenance.names_user`: user, I, 用户, 我, my …, 我的 …) whose evidence
   includes an :func:`~hlmem.domain.provenance.untrusted` event (external, external-derived or
   unknown origin; cron, heartbeat, subagent or unknown session) is refused in ``enforce`` mode:
   untrusted text never speaks for the user, whatever extractor (rules or an LLM) proposed it;
7. someone else's fact — a candidate about the user itself whose evidence quote opens with a
   third-person pronoun and names no first person (她现在在腾讯上班了, "He works at Sony"):
   :func:`~hlmem.domain.pronoun_subject.pronoun_opened`, ADR 0094.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping

from hlmem.domain.atoms import ProtectedAtoms, content_key, fold, protected_atoms, skeleton
from hlmem.domain.candidates import CandidateClaim, GateDecision, SourceEvent, Verdict
from hlmem.domain.commands import MAX_NAME_CHARS
from hlmem.domain.language import translated
from hlmem.domain.pronoun_subject import pronoun_opened
from hlmem.domain.provenance import DEFAULT_MODE, ProvenanceMode, names_user, untrusted
from hlmem.domain.state import SELF_KEY, subject_key

EMPTY_SUBJECT = "admission.empty_subject"
EMPTY_PREDICATE = "admission.empty_predicate"
EMPTY_VALUE = "admission.empty_value"
TOO_LONG = "admission.too_long"
INVALID_IMPORTANCE = "admission.invalid_importance"
INVALID_INTERVAL = "admission.invalid_interval"
SECRET_KEY = "admission.secret_key"
SECRET_PRIVATE_KEY = "admission.secret_private_key"
SECRET_CREDENTIAL = "admission.secret_credential"
OPERATIONAL_NOISE = "admission.operational_noise"
LOW_VALUE = "admission.low_value"
NO_EVIDENCE = "admission.no_evidence"
UNKNOWN_EVIDENCE = "admission.unknown_evidence"
QUOTE_MISSING = "admission.quote_missing"
QUOTE_NOT_FOUND = "admission.quote_not_found"
QUOTE_ATOMS_MISMATCH = "admission.quote_atoms_mismatch"
VALUE_NUMBER_UNSUPPORTED = "admission.value_number_unsupported"
VALUE_TIME_UNSUPPORTED = "admission.value_time_unsupported"
VALUE_NAME_UNSUPPORTED = "admission.value_name_unsupported"
VALUE_NEGATION_UNSUPPORTED = "admission.value_negation_unsupported"
VALUE_TRANSLATED = "admission.value_translated"
UNTRUSTED_USER_SUBJECT = "admission.untrusted_user_subject"
PRONOUN_USER_SUBJECT = "admission.pronoun_user_subject"

REASON_CODES = (EMPTY_SUBJECT, EMPTY_PREDICATE, EMPTY_VALUE, TOO_LONG, INVALID_IMPORTANCE, INVALID_INTERVAL,
                SECRET_KEY, SECRET_PRIVATE_KEY, SECRET_CREDENTIAL, OPERATIONAL_NOISE, LOW_VALUE, NO_EVIDENCE,
                UNKNOWN_EVIDENCE, QUOTE_MISSING, QUOTE_NOT_FOUND, QUOTE_ATOMS_MISMATCH, VALUE_NUMBER_UNSUPPORTED,
                VALUE_TIME_UNSUPPORTED, VALUE_NAME_UNSUPPORTED, VALUE_NEGATION_UNSUPPORTED, VALUE_TRANSLATED,
                UNTRUSTED_USER_SUBJECT, PRONOUN_USER_SUBJECT)

#: An atomic claim's value is short; a longer one is a paragraph, not a claim.
MAX_CANDIDATE_VALUE_CHARS = 500
#: A quote is the span that supports the claim, not the whole conversation.
MAX_QUOTE_CHARS = 1_000

_SECRET_KEY_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_\-]{30,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_\-]{20,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})")
_PRIVATE_KEY_RE = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_CREDENTIAL_WORDS = (r"password|passwd|passcode|pass\s*phrase|pwd|pin(?:\s*code)?|(?:access\s*|api\s*|auth\s*)?token"
                     r"|api[\s_-]*key|secret(?:\s*key)?|recovery\s*codes?|backup\s*codes?|verification\s*code"
                     r"|otp|2fa\s*code|密码|口令|密钥|秘钥|令牌|恢复码|验证码|动态码|校验码|pin码")
#: A credential word followed by "is/是/:/=" and something that is not a description of it.
_CREDENTIAL_RE = re.compile(
    rf"(?:{_CREDENTIAL_WORDS})\s*(?:is|was|=|:|是|为|改成了?|改为|设置为|设为|set\s+to|changed\s+to)\s*"
    r"(?!(?:什么|多少|啥|错|不对|不|必须|必填|空|正确|过期|一样|相同)"
    r"|(?:required|needed|expired|wrong|incorrect|invalid|too|not|missing|empty|weak|strong|correct|the\s+same"
    r"|same|changed|reset)(?![\w-])|[\s?？。.!！]*$)\S",
    re.IGNORECASE)
_CREDENTIAL_PREDICATE_RE = re.compile(rf"^(?:\w+[\s_-])?(?:{_CREDENTIAL_WORDS})s?$", re.IGNORECASE)

_TEST_COUNT_RE = re.compile(
    r"(?<![A-Za-z0-9])\d+\s+(?:tests?\s+)?(?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?)"
    r"(?![A-Za-z])|(?:all\s+)?tests?\s+(?:passed|pass|are\s+green|succeeded)|\d+\s*(?:个)?(?:测试|用例)\s*(?:通过|失败)"
    r"|测试(?:全部|都)?(?:已)?通过|用例(?:全部|都)?(?:已)?通过", re.IGNORECASE)
#: A single clause (no punctuation) that only reports an operation's status.
_STATUS_RE = re.compile(
    r"^[^,，。;；!！?？\n]{0,16}?(?:"
    r"[\w.-]+\s+(?:is|are)\s+"
    r"(?:up\s+and\s+)?running(?:\s+(?:fine|ok|normally|now|again))?"
    r"|(?:successfully\s+)?(?:installed|restarted|rebuilt|deployed|started|built|compiled)(?:\s+successfully)?"
    r"|(?:install(?:ation)?|build|deploy(?:ment)?|restart|upgrade|update|compilation)\s+"
    r"(?:succeeded|successful|complete[d]?|finished|done|ok)"
    r"|(?:安装|构建|编译|部署|打包|上传|下载|同步|启动|重启|更新|升级)(?:已)?(?:成功|完成|完毕)了?"
    r"|已(?:经)?(?:重启|启动|安装|部署|更新|升级|完成|构建|编译)(?:完成|成功)?了?"
    r"|(?:正在|已在)?运行(?:中|正常)|正在运行)[\s.!！。~]*$", re.IGNORECASE)
_CHATTER_RE = re.compile(
    r"^(?:好的?|好滴|好嘞|好吧|嗯+|恩+|哦+|噢|喔|啊|哈+|呵+|嘿+|嘻+|谢谢(?:你|您)?|多谢|感谢|谢了|辛苦(?:了|啦)?|收到"
    r"|明白|了解|知道|没问题|可以|行|对|是的|你好|您好|早上好|早安|午安|晚上好|晚安|再见|拜拜|在吗|在不在"
    r"|了|啦|呀|吧|呢|哟|哒|滴|喽|嘛|的|hh+|ok(?:ay)?|k|thanks?|thankyou|thx|ty|lol|ha(?:ha)+|he(?:he)+|hi|hello"
    r"|hey|yes|yeah|yep|yup|no|nope|sure|cool|great|nice|bye|goodbye|good(?:morning|night|evening|afternoon)"
    r"|gotit|np|alright|fine)+$", re.IGNORECASE)

_NUMBER_KINDS = ("numbers", "versions", "ips", "ports")
_TIME_KINDS = ("dates", "relative", "weekdays")
_TEXT_KINDS = ("paths", "quoted", "names", "places", "entities")


def _shape(c: CandidateClaim) -> list[str]:
    # A subject or predicate needs a letter or digit; a value of only emoji is chatter, not empty.
    reasons = [code for empty, code in ((not skeleton(c.subject), EMPTY_SUBJECT),
                                        (not skeleton(c.predicate), EMPTY_PREDICATE),
                                        (not c.value.strip(), EMPTY_VALUE)) if empty]
    if (len(c.subject) > MAX_NAME_CHARS or len(c.predicate) > MAX_NAME_CHARS
            or len(c.value) > MAX_CANDIDATE_VALUE_CHARS or len(c.evidence_quote) > MAX_QUOTE_CHARS):
        reasons.append(TOO_LONG)
    if not (isinstance(c.importance, (int, float)) and math.isfinite(c.importance) and 0 <= c.importance <= 1):
        reasons.append(INVALID_IMPORTANCE)
    if c.valid_from is not None and c.valid_to is not None and c.valid_to <= c.valid_from:
        reasons.append(INVALID_INTERVAL)
    return reasons


def find_secrets(text: str) -> tuple[str, ...]:
    """The secret reason codes that ``text`` triggers (empty when it looks clean).

    :param text: any text; NFKC-normalised first, so full-width look-alikes are caught.
    """
    t = unicodedata.normalize("NFKC", text)
    found = []
    if _SECRET_KEY_RE.search(t):
        found.append(SECRET_KEY)
    if _PRIVATE_KEY_RE.search(t):
        found.append(SECRET_PRIVATE_KEY)
    if _CREDENTIAL_RE.search(t):
        found.append(SECRET_CREDENTIAL)
    return tuple(found)


def _secrets(c: CandidateClaim) -> list[str]:
    texts = [c.subject, c.value, c.evidence_quote, *(v for _, v in c.qualifiers)]
    found = {code for text in texts for code in find_secrets(text)}
    if _CREDENTIAL_PREDICATE_RE.match(fold(c.predicate).replace("_", " ")):
        found.add(SECRET_CREDENTIAL)
    return [code for code in (SECRET_KEY, SECRET_PRIVATE_KEY, SECRET_CREDENTIAL) if code in found]


def is_operational_noise(text: str) -> bool:
    """Whether ``text`` only reports a one-off operation (test counts, "已重启", "build succeeded")."""
    t = fold(text)
    return bool(t) and bool(_TEST_COUNT_RE.search(t) or _STATUS_RE.match(t))


def is_chatter(text: str) -> bool:
    """Whether ``text`` is only acknowledgement, thanks, laughter or a greeting (or only emoji)."""
    return bool(text.strip()) and (not skeleton(text) or bool(_CHATTER_RE.match(skeleton(text))))


def _value_level(c: CandidateClaim) -> list[str]:
    texts = (c.value, c.evidence_quote)
    reasons = []
    if any(is_operational_noise(t) for t in texts):
        reasons.append(OPERATIONAL_NOISE)
    if any(is_chatter(t) for t in texts):
        reasons.append(LOW_VALUE)
    return reasons


def _exact(text: str) -> tuple[str, ...]:
    # Every digit run is a number atom, so this covers the digits of IPs, ports and versions.
    return protected_atoms(text).numbers


def _tokenish(ch: str) -> bool:
    return (ch.isalnum() and ch.isascii()) or ch.isdigit() or ch in "零〇一二两三四五六七八九十百千万亿"


def _widen(s: str, a: int, b: int) -> tuple[int, int]:
    """Grow ``s[a:b]`` to whole tokens where it cuts one (a number, a word, ``1.2`` across ``.``)."""
    if _tokenish(s[a]):
        while a > 0 and (_tokenish(s[a - 1]) or (s[a - 1] in ".:" and a > 1 and s[a - 2].isdigit())):
            a -= 1
    if _tokenish(s[b - 1]):
        while b < len(s) and (_tokenish(s[b]) or (s[b] in ".:" and b + 1 < len(s) and s[b + 1].isdigit())):
            b += 1
    return a, b


def _quote(quote: str, texts: Iterable[str]) -> str | None:
    q = content_key(quote)
    if not q:
        return QUOTE_MISSING
    wanted = _exact(q)
    seen = False
    for text in texts:
        s = content_key(text)
        at = s.find(q)
        while at != -1:
            a, b = _widen(s, at, at + len(q))
            if _exact(s[a:b]) == wanted:
                return None
            seen = True
            at = s.find(q, at + 1)
    return QUOTE_ATOMS_MISMATCH if seen else QUOTE_NOT_FOUND


def _text_atoms(atoms: ProtectedAtoms) -> Iterable[str]:
    """Text atoms as letters and digits; a Chinese surname name only as surname + one character
    (the heuristic takes up to two more, which a paraphrase may change)."""
    for kind in _TEXT_KINDS:
        for x in getattr(atoms, kind):
            yield skeleton(x)[:2] if kind == "names" and "\u4e00" <= x[:1] <= "\u9fff" else skeleton(x)


def _support(value: str, texts: list[str]) -> list[str]:
    # A capital on the value's first word is style ("Prefers tea"), not a name.
    atoms = protected_atoms(value[:1].lower() + value[1:])
    source = [protected_atoms(t) for t in texts]
    letters = skeleton(" ".join(texts))
    reasons = []
    for kinds, code in ((_NUMBER_KINDS, VALUE_NUMBER_UNSUPPORTED), (_TIME_KINDS, VALUE_TIME_UNSUPPORTED)):
        have = {(k, x) for a in source for k in kinds for x in getattr(a, k)}
        if any((k, x) not in have for k in kinds for x in getattr(atoms, k)):
            reasons.append(code)
    if any(x not in letters for x in _text_atoms(atoms)):
        reasons.append(VALUE_NAME_UNSUPPORTED)
    if atoms.negations and not any(a.negations for a in source):
        reasons.append(VALUE_NEGATION_UNSUPPORTED)
    return reasons


def admit_candidate(candidate: CandidateClaim, sources: Mapping[str, SourceEvent], *,
                    mode: ProvenanceMode | str = DEFAULT_MODE) -> GateDecision:
    """REJECT ``candidate`` with every reason code that applies, else ACCEPT with none.

    :param candidate: a proposed claim (after :func:`~hlmem.domain.provenance.restrict`, if any).
    :param sources: source events by ``event_id``; at least those in ``candidate.evidence``.
    :param mode: the provenance mode; check 6 (the user's own voice) applies in ``enforce`` only,
        as the provenance rules do.
    """
    reasons = _shape(candidate)
    if reasons:
        return GateDecision(Verdict.REJECT, tuple(reasons))
    reasons = _secrets(candidate) + _value_level(candidate)
    if not candidate.evidence:
        reasons.append(NO_EVIDENCE)
    elif any(ev not in sources for ev in candidate.evidence):
        reasons.append(UNKNOWN_EVIDENCE)
    else:
        evidence = [sources[ev] for ev in dict.fromkeys(candidate.evidence)]
        texts = [s.text for s in evidence]
        quote = _quote(candidate.evidence_quote, texts)
        reasons += [quote] if quote else []
        reasons += _support(candidate.value, texts)
        if all(translated(candidate.value, t) for t in texts):
            reasons.append(VALUE_TRANSLATED)
        if (ProvenanceMode(mode) is ProvenanceMode.ENFORCE and names_user(candidate.subject)
                and any(untrusted(s) for s in evidence)):
            reasons.append(UNTRUSTED_USER_SUBJECT)
        if subject_key(candidate.subject) == SELF_KEY and pronoun_opened(candidate.evidence_quote):
            reasons.append(PRONOUN_USER_SUBJECT)  # "她现在在腾讯上班了": hers, not the user's (ADR 0094)
    return GateDecision(Verdict.REJECT, tuple(reasons)) if reasons else GateDecision(Verdict.ACCEPT)
