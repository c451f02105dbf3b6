"""Chinese rule patterns: one clause in, facts out (first person only when the user speaks)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from attrs import evolve

from hlmem.application.extraction.clauses import KIND_KEYS, Clause, Fact, parse_head
from hlmem.application.extraction.patterns_common import (
    ABSTRACT_KEYS,
    CONFIG_KEYS,
    DEICTIC_VALUE,
    JOB_SUFFIX,
    MODEL,
    ORG_RE,
    PATH,
    PRONOUN_VALUE,
    VAGUE_PLACE,
    REL_ZH,
    RELATIONS,
    STATUS,
    VERSION,
    VERSION_RE,
    language_value,
    person_like,
    predicate_for,
    rule_names,
    theme_value,
)
from hlmem.domain.temporal import cn_int
from hlmem.domain.events import Cardinality
from hlmem.domain.slots import SlotRegistry, normalize_key

_ADV_WORDS = sorted(("现在", "目前", "当前", "如今", "已经", "已", "早就", "早已", "就", "都", "也", "还", "又", "再", "一直",
                     "平时", "一般", "通常", "主要", "基本上", "基本", "其实", "实际上", "总是", "经常", "刚刚", "刚", "才",
                     "终于", "暂时", "临时", "先", "正在", "仍然", "依然", "还是", "从此", "今后", "另外", "对了", "嗯",
                     "哦", "那", "好的", "顺便说一下", "说起来", "反正", "本来", "最近", "这几天", "这段时间", "目前还"),
                    key=len, reverse=True)
ADV = rf"(?:\s*(?:{'|'.join(_ADV_WORDS)}))*\s*"
FP = r"(?:我们|我|咱们|本人)"
NEG = r"(?P<neg>不再|并不|并没有|并没|从不|从没有|从没|从来不|从来没有|没有|没|不|未)?"
TAIL = r"\s*(?:了|啦|呢|吧|哦|噢|呀|啊|哈|嘛|而已)*\s*$"
HEAD = r"(?P<head>[^，。；,;]*?)"
FILL = r"(?:\s*(?:当前|现在|目前|已经|已|也|仍然|依然|还|是|为|:|：|=|就是|还是|变成了?|变为|改成了?|改为|停留在|在))*\s*"
PLACE = r"[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z0-9·.' -]{0,30}?"
_KIND = "|".join(sorted(KIND_KEYS, key=len, reverse=True))


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


# -- configuration and state of things (any speaker) ---------------------------------------------
_VERSION_KEY = _re(rf"^{HEAD}\s*(?:的)?\s*(?:当前|现在|目前|最新)?\s*(?:的)?\s*(?:运行|部署|安装|使用)?\s*(?:的)?\s*"
                   rf"(?:版本号?|version|ver\.?)\s*{FILL}"
                   rf"(?P<v>{VERSION}){TAIL}")
_VERSION_CHANGE = _re(rf"^{HEAD}\s*(?:的版本)?\s*(?:已经|已|刚刚|刚|又|再次|被)*\s*(?P<verb>升级|升|更新|回滚|回退|退回|降级|降|"
                      rf"切换|切|部署|发布|上线|固定|锁定)(?:了)?\s*(?:到|至|为|成|回|在)?\s*(?:了)?\s*(?:版本|release|version)?"
                      rf"\s*(?P<v>{VERSION}){TAIL}")
_VERSION_BA = _re(rf"^{ADV}{FP}?{ADV}(?:把|将)\s*{HEAD}\s*(?:的版本)?\s*(?P<verb>升级|更新|回滚|回退|降级|切换|固定|锁定)(?:了)?"
                  rf"\s*(?:到|至|为|成|回|在)\s*(?:了)?\s*(?:版本)?\s*(?P<v>{VERSION}){TAIL}")
_VERSION_RUN = _re(rf"^{HEAD}\s*(?:当前|现在|目前|已经|仍然|还)?\s*(?:在)?(?:运行|跑|用|使用)(?:的是|着|了)?\s*"
                   rf"(?:release|版本|version)?\s*(?P<v>{VERSION}){TAIL}")
_VERSION_OBJ = _re(rf"^{ADV}{FP}?{ADV}(?:在)?(?:用|使用|装了?|安装了?|部署了?|发布了?|上线了?|跑)(?:的是)?\s*"
                   rf"(?P<head>(?![vV]\d)[A-Za-z][\w.+#\-]*)\s*(?:版本)?\s*(?P<v>{VERSION}){TAIL}")
_PORT_KEY = _re(rf"^{HEAD}\s*(?:的)?\s*(?:端口号?|port)\s*{FILL}(?:改成了?|换成了?|改为|设为|设置为|设成了?)?\s*(?P<v>\d{{2,5}}){TAIL}")
_PORT_VERB = _re(rf"^{HEAD}\s*(?:当前|现在|目前|默认)?\s*(?:跑在|运行在|监听在?|开在|部署在|用|使用|占用)了?\s*(?P<k>端口)?\s*[:：]?"
                 rf"\s*(?P<v>\d{{2,5}})\s*(?P<k2>端口)?{TAIL}")
_MODEL_KEY = _re(rf"^{HEAD}\s*(?:的)?\s*(?:用的|使用的|所用的?|默认)?\s*(?:模型|model|LLM|大模型)\s*{FILL}(?:用的是|换成了?|改成了?|"
                 rf"切换到了?|切换成了?|改为|设为|设置为)?\s*(?P<v>{MODEL}){TAIL}")
_MODEL_VERB = _re(rf"^{HEAD}\s*(?:现在|当前|目前|默认)?\s*(?:用|使用|调用|接入|换成|改用|切换到)了?\s*(?P<v>{MODEL})\s*"
                  rf"(?:模型|model){TAIL}")
_PATH_KEY = _re(rf"^{HEAD}\s*(?:的)?\s*(?P<k>(?:(?!的)[\w\u4e00-\u9fff]){{0,6}}?)\s*(?:路径|目录|文件夹|path|dir|directory)\s*{FILL}"
                rf"(?:在|放在|位于)?\s*(?P<v>{PATH}){TAIL}")
_PATH_VERB = _re(rf"^{HEAD}\s*(?:被)?(?:装在|安装在|放在|存放在|位于|部署在|存在)了?\s*(?P<v>{PATH}){TAIL}")
_STATUS_KEY = _re(rf"^{HEAD}\s*(?:的)?\s*(?:当前|现在|目前)?\s*(?:的)?\s*(?:运行|健康|服务)?状态\s*{FILL}(?P<v>{STATUS}){TAIL}")
_STATUS_KIND = _re(rf"^(?P<head>[^，。；,;]*?(?:{_KIND}))\s*(?:当前|现在|目前)\s*(?:是|为|:|：)?\s*(?P<v>{STATUS}){TAIL}")
_STATUS_IN = _re(rf"^{HEAD}\s*(?:(?P<neg>并不是|并非|不是|不在|没在|没有在|并没有在?)|是|处于|在)\s*(?P<v>{STATUS})\s*状态{TAIL}")
_CHANGE_VERBS = re.compile(r"升|更新|回滚|回退|退回|降|切|换|改|调|设")


def _config(clause: Clause, rx: re.Pattern[str], predicate: str, **extra: object) -> list[Fact]:
    m = rx.match(clause.work)
    if not m:
        return []
    parsed = parse_head(m["head"] or "", clause.topic, topic_near=clause.topic_near)
    if parsed is None:
        return []
    subject, coords = parsed
    value = " ".join(m["v"].split())
    if predicate == "port" and not 0 < int(value) < 65536:
        return []
    if predicate == "status" and VERSION_RE.fullmatch(value):
        predicate = "version"
    groups = m.groupdict()
    if predicate == "path" and groups.get("k"):
        coords = (*coords, ("target", groups["k"]))
    if groups.get("k") is None and groups.get("k2") is None and rx is _PORT_VERB and "监听" not in m.group():
        return []
    change = bool(groups.get("verb")) or bool(_CHANGE_VERBS.search(m.group()))
    importance = 0.4 if predicate == "status" else 0.6
    return [Fact(predicate=predicate, value=value, subject=subject, coordinates=tuple(sorted(coords)),
                 polarity=not groups.get("neg"), change=change, importance=importance, rule=_rule(m),
                 **extra)]  # type: ignore[arg-type]


_CONFIG_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (_VERSION_BA, "version"), (_VERSION_KEY, "version"), (_VERSION_CHANGE, "version"), (_VERSION_RUN, "version"),
    (_VERSION_OBJ, "version"), (_PORT_KEY, "port"), (_PORT_VERB, "port"), (_MODEL_KEY, "model"),
    (_MODEL_VERB, "model"), (_PATH_KEY, "path"), (_PATH_VERB, "path"), (_STATUS_KEY, "status"),
    (_STATUS_KIND, "status"), (_STATUS_IN, "status"),
)

# -- the speaker (first person) ------------------------------------------------------------------
_PRE = rf"^{ADV}{FP}{ADV}{NEG}{ADV}"
_PRE_DROP = rf"^{ADV}(?:{FP})?{ADV}{NEG}{ADV}"  # Chinese drops the subject: 暂时换成浅色模式
_NAME = _re(rf"{_PRE}(?:叫做?|名叫|的名字(?:是|叫))\s*(?P<v>[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z·.' -]{{0,30}}?){TAIL}")
_LIVES = _re(rf"{_PRE_DROP}(?:住在|居住在|生活在|定居在|定居|家住在?|家在|住(?![院宿手口]))\s*(?P<v>{PLACE}){TAIL}")
_MOVED = _re(rf"{_PRE_DROP}(?:搬家到|搬家去|搬到|搬去|搬来|搬回到|搬回|迁居到|迁居|移居到|移居|落户到|落户)了?\s*(?P<v>{PLACE}){TAIL}")
_WORKS = _re(rf"{_PRE_DROP}在\s*(?P<v>{PLACE})\s*(?:工作|上班|返工|任职|就职|实习|打工){TAIL}")
_WORKS_AS = _re(rf"{_PRE_DROP}在\s*(?P<v>{PLACE})\s*(?:当|做|担任|任)\s*(?P<job>{PLACE}){TAIL}")
_JOINED = _re(rf"{_PRE_DROP}(?:入职|加入|跳槽到|跳槽去|跳槽进|去了|进了|换到)了?\s*(?P<v>{PLACE})\s*(?:工作|上班)?{TAIL}")
_JOB = _re(rf"{_PRE}(?:是|当了?|做了?|担任了?|升职为|升职成|晋升为|晋升成|成为了?)\s*(?:一[名个位])?\s*(?P<job>{PLACE}){TAIL}")
_AGE = _re(rf"{_PRE}(?:今年)?\s*(?P<v>\d{{1,3}}|[一二三四五六七八九十两]{{1,3}})\s*周?岁(?P<half>半|多)?{TAIL}")
_HOMETOWN = _re(rf"^{ADV}{FP}的?(?:老家|家乡|故乡)\s*(?:是|在)\s*(?P<v>{PLACE}){TAIL}")
_NATIVE = _re(rf"{_PRE}是\s*(?P<v>[\u4e00-\u9fff]{{2,4}}?)人{TAIL}")
_THEME_SET = _re(rf"{_PRE_DROP}(?:把)?\s*(?:界面|UI|编辑器|系统|应用|app)?\s*(?:的)?\s*(?:主题|配色|外观|显示模式)\s*(?P<verb>改成|换成|"
                 rf"设成|设为|设置为|设置成|切换到|切换成|调成|改为|换为|是|用的是|用)了?\s*(?P<v>.+?){TAIL}")
_PREFS = ("更喜欢用|喜欢用|偏好用|偏好|倾向于用|倾向用|习惯用|用的是|在用|使用|改用|换用|换成|换回|改成|改回|切换到|切换成|切到|切成|调成|"
          "设成|设置成|设置为|设为|开启|打开|开了|启用|关闭|关掉|关了|禁用|用")
_PREF = _re(rf"{_PRE_DROP}(?P<verb>{_PREFS})了?\s*(?P<v>.+?){TAIL}")
_LIKE = _re(rf"^{ADV}(?:{FP})?{ADV}(?P<neg>不太|不怎么|并不|不再|从不|从来不|没那么|不)?{ADV}(?:很|非常|特别|超级|超|最|挺|真的|比较|更|蛮)?"
            rf"\s*(?P<verb>喜欢|喜爱|热爱|钟爱|爱上了|迷上了|爱|讨厌|厌恶|受不了|反感)\s*(?P<v>.+?){TAIL}")
_REL_IS = _re(rf"^{ADV}{FP}的?(?P<rel>{REL_ZH})\s*(?:的名字)?\s*{NEG}(?:叫做?|名叫|是)\s*(?P<v>.+?){TAIL}")
_IS_REL = _re(rf"^{ADV}(?P<v>[^\s，。；,;]{{1,20}}?)\s*{NEG}是\s*{FP}的?(?P<rel>{REL_ZH}){TAIL}")
_OF_IS = _re(rf"^{ADV}(?P<head>[^，。；,;的]{{1,20}}?)\s*的\s*(?P<k>[^\s，。；,;的是]{{1,8}}?)\s*{NEG}(?:是|为|叫做?)\s*(?P<v>.+?){TAIL}")
_PLAN = _re(rf"^{ADV}(?:{FP})?{ADV}(?:计划|打算|准备|将要|即将|要)\s*(?P<v>.+?){TAIL}")
_HATE = ("讨厌", "厌恶", "受不了", "反感")
_HABIT = re.compile(r"主要|平时|一般|通常|习惯|一直|在用|改用|换用|用的是")
_PRODUCT = re.compile(r"[A-Za-z][\w .+#\-]{0,30}")


def _fact(m: re.Match[str], clause: Clause, predicate: str, group: str = "v", **kw: object) -> Fact:
    """A fact whose value is the original words of ``group`` (a date in it stays in the value)."""
    start, end = m.span(group)
    return Fact(predicate=predicate, value=" ".join(clause.text[start:end].split()), span=(start, end),
                polarity=not m.groupdict().get("neg"), rule=_rule(m), **kw)  # type: ignore[arg-type]


def _place(m: re.Match[str] | None) -> bool:
    return m is not None and not VAGUE_PLACE.match(m["v"].strip())


def _speaker(clause: Clause) -> list[Fact]:
    w, c = clause.work, clause
    if m := _REL_IS.match(w) or _IS_REL.match(w):
        predicate, card = RELATIONS[m["rel"]]
        return [_fact(m, c, predicate, cardinality=card, importance=0.6)] if person_like(m["v"].strip()) else []
    if m := _NAME.match(w):
        return [_fact(m, c, "name", importance=0.8)]
    if _place(m := _MOVED.match(w)):
        return [_fact(m, c, "lives_in", change=True, importance=0.7)]
    if _place(m := _LIVES.match(w)):
        return [_fact(m, c, "lives_in", importance=0.7)]
    if _place(m := _WORKS_AS.match(w)) and JOB_SUFFIX.search(m["job"].strip()):
        where = "employer" if ORG_RE.search(m["v"].strip()) else "works_in"
        return [_fact(m, c, where, importance=0.7), _fact(m, c, "job_title", "job", importance=0.7)]
    if _place(m := _WORKS.match(w)):
        return [_fact(m, c, "employer" if ORG_RE.search(m["v"].strip()) else "works_in", importance=0.7)]
    if _place(m := _JOINED.match(w)) and ORG_RE.search(m["v"].strip()):
        return [_fact(m, c, "employer", change=True, importance=0.7)]
    if (m := _JOB.match(w)) and JOB_SUFFIX.search(m["job"].strip()):
        return [_fact(m, c, "job_title", "job", change="是" not in m.group(), importance=0.7)]
    if m := _AGE.match(w):
        age = cn_int(m["v"])
        # 今年 belongs to the statement, not to its validity: the span covers the whole clause.
        return [Fact(predicate="age", value=f"{age}岁{m['half'] or ''}", polarity=not m["neg"], importance=0.6,
                     span=(0, len(w)), rule=_rule(m))] if age else []
    if (m := _HOMETOWN.match(w) or _NATIVE.match(w)) and m["v"][0] not in "一个好坏大小男女老年普穷富有外本成病新聪":
        return [_fact(m, c, "hometown", importance=0.6)]
    if m := _THEME_SET.match(w):
        return [_fact(m, c, "preferred_ui_theme", change=m["verb"] not in ("是", "用的是", "用"), importance=0.6)]
    if m := _PREF.match(w):
        return _preference(m, clause)
    if (m := _LIKE.match(w)) and not PRONOUN_VALUE.match(m["v"].strip()):
        fact = _fact(m, c, "likes", cardinality=Cardinality.MULTI, importance=0.5)
        return [evolve(fact, polarity=not m["neg"] and m["verb"] not in _HATE)]
    return []


def _preference(m: re.Match[str], clause: Clause) -> list[Fact]:
    value, verb = " ".join(clause.text[m.start("v"):m.end("v")].split()), m["verb"]
    rule = _rule(m)
    off = verb in ("关闭", "关掉", "关了", "禁用")
    change = verb not in ("用", "使用", "在用", "用的是", "偏好", "偏好用", "习惯用", "喜欢用", "更喜欢用", "倾向于用", "倾向用")
    polarity = not m["neg"] and not off
    if theme_value(value):
        return [Fact(predicate="preferred_ui_theme", value=value, polarity=polarity, change=change, importance=0.6,
                     rule=rule)]
    if lang := language_value(value):
        return [Fact(predicate="preferred_language", value=lang, polarity=polarity, change=change, importance=0.6,
                     rule=rule)]
    if not off and _PRODUCT.fullmatch(value) and _HABIT.search(clause.work[:m.end("verb")]):
        return [Fact(predicate="uses", value=value, polarity=polarity, cardinality=Cardinality.MULTI, importance=0.5,
                     rule=rule)]
    return []


def _of_is(clause: Clause, labels: Mapping[str, str], registry: SlotRegistry) -> list[Fact]:
    """``X 的 Y 是 Z`` and ``我的 Y 是 Z``: Y names the predicate (through the catalogue's labels)."""
    m = _OF_IS.match(clause.text)  # on the text: a date may be the value (我的生日是5月3日)
    if not m or m["k"].strip().lower() in CONFIG_KEYS | ABSTRACT_KEYS or len(m["v"]) > 40:
        return []
    parsed = parse_head(m["head"], None)
    if parsed is None or parsed[1]:
        return []
    subject, key, value = parsed[0], m["k"].strip(), " ".join(clause.text[m.start("v"):m.end("v")].split())
    if key[-1] in "才就也都还又倒可真":
        return []  # 我的猫才是一家之主: an adverb ends the noun; a remark, not an attribute
    if (subject is None and not clause.by_user) or DEICTIC_VALUE.match(value) or value.endswith("的"):
        return []
    known = normalize_key(key) in labels or key in RELATIONS
    if subject is not None and not known and not re.search(r"[A-Za-z0-9]", subject):
        return []  # 问题的关键是…: only named things (hlmem, control-01) or catalogue attributes (生日)
    if key in RELATIONS:
        predicate, card = RELATIONS[key]
        if not person_like(value):
            return []
        return [Fact(predicate=predicate, value=value, subject=subject, cardinality=card,
                     polarity=not m["neg"], importance=0.6, span=m.span("v"), rule=_rule(m))]
    if not value:
        return []
    predicate = predicate_for(key, labels, registry)
    return [Fact(predicate=predicate, value=value, subject=subject, polarity=not m["neg"], importance=0.5,
                 span=m.span("v"), rule=_rule(m))]


_OPENING = re.compile(rf"{ADV}(?:{FP})?{ADV}")
_NOT_ACTION = re.compile(r"^(?:是|很|挺|真|太|有点|天气|会不会|不|能|才能|可以|才)|[<>*#|{}\[\]]|[了啊呀吧呢嘛啦哇哦]$|又|了(?!解)|好[累热冷闷困饿烦忙]|"
                         r"真|太|快乐|天气|下雨|下雪|股市|堵车|挤")


def plan_value(clause: Clause) -> str | None:
    """What a plan clause says will happen, without its time words, speaker and modal (下周三开会 → 开会).

    The clause must open with the plan: a modal (计划/打算/要…) or a time expression, after at
    most the speaker and adverbs.
    """
    m = _PLAN.match(clause.work)
    if m is None and clause.time is not None and _OPENING.fullmatch(clause.work[:clause.time.start]):
        m = re.match(rf"^{ADV}(?:{FP})?{ADV}(?P<v>.+?){TAIL}", clause.work)
    if not m:
        return None
    value = " ".join(m["v"].split())
    if len(value) < 2 or len(value) > 60 or _NOT_ACTION.search(value):
        return None
    return value


def match(clause: Clause, labels: Mapping[str, str], registry: SlotRegistry) -> list[Fact]:
    """Facts stated by one Chinese clause (empty when no rule applies)."""
    if clause.planned:
        value = plan_value(clause) if clause.by_user else None
        return [Fact(predicate="plan", value=value, plan=True, cardinality=Cardinality.MULTI,
                     rule="zh.plan")] if value else []
    for rx, predicate in _CONFIG_RULES:
        facts = _config(clause, rx, predicate)
        if facts:
            if facts[0].subject is None and not clause.by_user:
                return []
            return facts
    if clause.by_user:
        facts = _speaker(clause)
        if facts:
            return facts
    return _of_is(clause, labels, registry)


_RULES: dict[re.Pattern[str], str] = {}


def _rule(m: re.Match[str]) -> str:
    """The name of the pattern that matched (``zh.lives`` for ``_LIVES``)."""
    if not _RULES:
        _RULES.update(rule_names(globals(), "zh"))
    return _RULES.get(m.re, "zh.pattern")
