"""Profile-like questions, purely: "what do you know about Bob?", "用户的饮食习惯" (ADR 0084).

:func:`profile_ask` reads a question that asks for an overview of someone (a *profile*) rather
than for one value, and returns whom it asks about and, when it names one, the topic (a slot
family of the derived layer: ``preferences``, ``places``, ``work``, ``health``, ``identity``,
``people``). Recall answers such a question with that subject's mental model and the observation
summary of the topic first (docs/recall.md). A question about one value ("where does Bob work
now?", "我现在住哪？") is not one: it gets the current claim, never a profile in its place.

Cues are deliberately explicit (a profile verb or phrase, or a topic noun such as 习惯/情况/偏好
after 的): a missed profile question costs nothing (the claims still come), a false one would put
a summary above the claim asked for. They are one of three readings (ADR 0090): recall also asks
the intent model and the structural reading (application/recall/profile_question.py), and reads
the subject against the subjects with a profile (domain/profile_reading.py).
"""

from __future__ import annotations

import re

from attrs import frozen

from hlmem.domain.state import SELF_SUBJECTS

#: Topic words -> the derived layer's slot family (domain/derived_build.py's FAMILIES).
TOPICS: tuple[tuple[str, str], ...] = (
    ("饮食", "health"), ("吃", "health"), ("健康", "health"), ("身体", "health"), ("作息", "health"),
    ("diet", "health"), ("eating", "health"), ("food", "health"), ("health", "health"), ("habit", "health"),
    ("习惯", "health"),
    ("工作", "work"), ("职业", "work"), ("事业", "work"), ("学历", "work"), ("work", "work"), ("job", "work"),
    ("career", "work"), ("employ", "work"),
    ("偏好", "preferences"), ("喜好", "preferences"), ("爱好", "preferences"), ("兴趣", "preferences"),
    ("口味", "preferences"), ("preference", "preferences"), ("likes", "preferences"), ("hobbies", "preferences"),
    ("hobby", "preferences"), ("taste", "preferences"), ("interests", "preferences"),
    ("住", "places"), ("地点", "places"), ("居住", "places"), ("places", "places"), ("where .* lives", "places"),
    ("家人", "people"), ("朋友", "people"), ("人际", "people"), ("关系", "people"), ("family", "people"),
    ("friends", "people"), ("relationships", "people"), ("people", "people"),
    ("个人信息", "identity"), ("基本信息", "identity"), ("identity", "identity"), ("personal details", "identity"),
)

_SUBJECT = r"(?P<subject>.{1,40}?)"
_END = r"\s*[吧呢啊呀嘛]?\s*[?？.!。！]*\s*$"
_TOPIC_EN = (r"(?:habits?|preferences|likes|hobbies|interests|situation|life|background|diet|health|work|job"
             r"|job situation|career|family|friends)")
_KNOW = r"(?:know|remember|recall|have)"
#: English profile phrasings: the subject is what the phrase is about.
_ENGLISH = [re.compile(p, re.IGNORECASE) for p in (
    rf"^\s*(?:so\s*,?\s*|and\s+|now\s*,?\s*|ok\s*,?\s*)?what\s+(?:else\s+)?(?:do|did|can|could)\s+(?:you|we|i)\s+"
    rf"(?:{_KNOW}|tell me|say)(?:\s+on\s+record)?\s+(?:about|on)\s+{_SUBJECT}{_END}",
    rf"^\s*(?:can you\s+|could you\s+|please\s+)?(?:tell|remind)\s+me\s+(?:more\s+|everything\s+|all\s+)?"
    rf"(?:you know\s+)?about\s+{_SUBJECT}{_END}",
    rf"^\s*(?:can you\s+|could you\s+|please\s+)?(?:summari[sz]e|tell me|describe|list|recap)\s+(?:what|everything|all)"
    rf"\s+(?:that\s+)?(?:you|we)\s+{_KNOW}\s+(?:about|on)\s+{_SUBJECT}{_END}",
    rf"^\s*anything\s+(?:else\s+)?(?:(?:that\s+)?i\s+(?:should|need\s+to)|you|we|to|worth)\s+(?:know|knowing|remember)"
    rf"\s+about\s+{_SUBJECT}{_END}",
    rf"^\s*(?:can you\s+|please\s+)?(?:give\s+me\s+|what'?s\s+)?(?:the\s+)?(?:rundown|lowdown|low-down|scoop|background)"
    rf"\s+(?:on|about)\s+{_SUBJECT}{_END}",
    rf"^\s*(?:can you\s+|please\s+)?(?:fill\s+me\s+in|catch\s+me\s+up|brief\s+me|update\s+me"
    rf"|(?:refresh|jog)\s+my\s+memory)\s+(?:on|about)\s+{_SUBJECT}{_END}",
    rf"^\s*(?:can you\s+|please\s+)?(?:describe|summari[sz]e|profile)\s+{_SUBJECT}{_END}",
    rf"^\s*(?:give me\s+|show me\s+)?(?:a|an|the)\s+(?:profile|overview|summary)\s+of\s+{_SUBJECT}{_END}",
    rf"^\s*what(?:\s+is|'s|’s|\s+are)\s+{_SUBJECT}\s+like{_END}",
    rf"^\s*what\s+(?:are|is)\s+(?P<owner>my|his|her|their|[\w .'-]{{1,30}}?'s)\s+(?P<topic>[\w ]{{0,30}}?"
    rf"{_TOPIC_EN}){_END}",
    rf"^\s*(?:tell me about|describe|summari[sz]e)\s+(?P<owner>my|his|her|their|[\w .'-]{{1,30}}?'s)\s+"
    rf"(?P<topic>[\w ]{{0,30}}?{_TOPIC_EN}){_END}",
)]
#: "Who is Bob?": a profile question only about a name (capitalised), not "who is my manager?".
_WHO = re.compile(r"^\s*(?i:who)(?:\s+is|'s|’s)\s+(?P<subject>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s*[?.!]*\s*$")
#: A request wrapped around the ask: 请, 你, 帮我, 给我, 麻烦你 (帮我回忆下…, 麻烦给我讲讲…).
_ZH_REQUEST = r"(?:请你?|你|麻烦你?|帮我|给我|替我|跟我|再)*"
_ZH_KNOW = r"(?:都|还)?(?:知道|了解|记得)(?:些|多少)?(?:什么|哪些|多少|啥)"
#: Chinese profile phrasings.
_CHINESE = [re.compile(p) for p in (
    rf"^\s*(?:关于|对于){_SUBJECT}[，,]?\s*你?{_ZH_KNOW}{_END}",
    rf"^\s*你(?:对|关于){_SUBJECT}{_ZH_KNOW}{_END}",
    rf"^\s*你(?:知道|了解|记得){_SUBJECT}的?(?:什么|哪些|多少|啥)(?:事|情况|信息)?{_END}",
    rf"^\s*{_ZH_REQUEST}(?:说说|讲讲|聊聊|谈谈|介绍一下|介绍下|介绍|总结一下|总结|概括一下|描述一下"
    rf"|(?:回忆|回顾|回想|梳理|汇总|整理|说|讲)(?:一)?下){_SUBJECT}{_END}",
    rf"^\s*{_SUBJECT}是(?:个|一个)?(?:什么样|怎样|怎么样)的人{_END}",
    rf"^\s*{_SUBJECT}(?:这个人|这人)(?:怎么样|如何){_END}",
    rf"^\s*{_SUBJECT}的(?P<topic>[\u4e00-\u9fff]{{0,4}}(?:习惯|情况|概况|偏好|喜好|爱好|兴趣|画像|特点|背景|生活|口味|资料))"
    rf"(?:是(?:什么|怎样的|怎么样)|怎么样|如何|有哪些)?{_END}",
)]

#: A request's tag after the ask ("…, would you?", "…, please", "…，好吗"): it asks nothing more.
_TAG = re.compile(r"(?i)\s*[,，]\s*(?:(?:would|could|can|will)\s+you(?:\s+please)?|please|thanks|ok(?:ay)?|好吗|行吗|可以吗|谢谢)"
                  r"\s*[?？.!。！]*\s*$")
#: What a first-person owner becomes in a subject (as extraction writes kin: "user's sister", 用户的姐姐).
_MY = re.compile(r"(?i)^(?:my|our)\s+")
_WO = re.compile(r"^(?:我的|我们的|我)(?=.)")


@frozen
class ProfileAsk:
    """A profile question: the ``subject`` asked about as the question words it (``Bob``, ``user``,
    ``user's sister``, ``用户的姐姐``) and the ``family`` of its topic (None: the whole profile)."""

    subject: str
    family: str | None = None


def _subject(raw: str) -> str:
    """The subject phrase, its first person made the user's (``my sister`` -> ``user's sister``)."""
    text = raw.strip().strip("\"'“”‘’「」").strip()
    text = re.sub(r"(?i)^(?:the\s+)?(?=user\b)", "", text)
    if text.casefold() in SELF_SUBJECTS or text.casefold() in ("my", "mine", "us", "we", "我们", "咱"):
        return "user"
    if _MY.match(text):
        return "user's " + _MY.sub("", text)
    if _WO.match(text):
        return "用户的" + _WO.sub("", text)
    return text


def _family(topic: str) -> str | None:
    folded = topic.casefold()
    for word, family in TOPICS:
        if re.search(word, folded):
            return family
    return None


_TOPIC_NOUNS = r"(?:习惯|情况|概况|偏好|喜好|爱好|兴趣|画像|特点|背景|生活|口味|资料|工作|健康|饮食)"
_ZH_TOPIC = re.compile(rf"^(?P<owner>.+?)(?:的|(?=我的|工作|饮食|健康))?(?P<topic>(?:(?!的)[\u4e00-\u9fff]){{0,4}}"
                       rf"{_TOPIC_NOUNS})$")
_EN_TOPIC = re.compile(r"(?i)^(?P<owner>my|our|his|her|their|[\w .'-]{1,30}?'s)\s+(?P<topic>[\w ]{1,30})$")
#: A subject phrase that is a moment or a clause, not someone ("the time we went to Paris").
_NOT_SOMEONE = re.compile(r"(?i)^[你您]|^(?:the (?:time|day|night|moment|trip)|when|how|why|what|where|that|it|this|these"
                          r"|those|yesterday|today|last|next)\b|\b(?:we|i|you|was|were|did)\b"
                          r"|^(?:最近|今天|明天|昨天|现在|天气|这|那)|[几哪谁啥，,、；;：:]|什么|多少|有没有|具有|拥有")


def _split_topic(raw: str) -> tuple[str, str] | None:
    """``我的工作情况`` -> (``我``, ``工作情况``); ``my eating habits`` -> (``my``, ``eating habits``):
    an owner and a topic naming a family, or None."""
    text = raw.strip()
    for pattern in (_ZH_TOPIC, _EN_TOPIC):
        found = pattern.match(text)
        if found is not None and (pattern is _ZH_TOPIC or _family(found["topic"]) is not None):
            return found["owner"], found["topic"]
    return None


def _owner_subject(owner: str) -> str:
    owner = owner.strip()
    if owner.casefold() in ("my", "our"):
        return "user"
    if owner.casefold() in ("his", "her", "their"):
        return ""
    return owner[:-2] if owner.endswith("'s") else owner


def profile_ask(question: str) -> ProfileAsk | None:
    """The profile question ``question`` asks, or None when it asks something else."""
    text = _TAG.sub("", question.strip()) or question.strip()
    if not text or len(text) > 200:
        return None
    for pattern in (*_ENGLISH, _WHO, *_CHINESE):
        found = pattern.match(text)
        if found is None:
            continue
        groups = found.groupdict()
        topic = groups.get("topic") or ""
        if groups.get("owner") is not None:
            subject = _owner_subject(groups["owner"])
        else:
            raw = groups.get("subject") or ""
            if _NOT_SOMEONE.search(raw) or _NOT_SOMEONE.search(topic):
                continue
            split = _split_topic(raw) if not topic else None
            if split is not None:
                raw, topic = split[0], split[1]
                subject = _owner_subject(raw) if re.match(r"(?i)^(?:my|our|his|her|their)$|.*'s$", raw) \
                    else _subject(raw)
            else:
                subject = _subject(raw)
        if not subject or re.search(r"[?？]", subject):
            continue
        return ProfileAsk(subject, _family(topic) if topic else None)
    return None
