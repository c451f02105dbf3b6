"""Value shapes and lexicons shared by the Chinese and English rule patterns."""

from __future__ import annotations

import re
from collections.abc import Mapping

from hlmem.application.extraction.lexicon import KIN
from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.slots import SlotRegistry, normalize_key

VERSION = r"[vV]?\d+(?:\.\d+){1,3}(?:[-+][0-9A-Za-z.]+)?(?![\w.])|[vV]\d+(?![\w.])"
VERSION_RE = re.compile(rf"(?:{VERSION})")
PATH = r"(?:~|/|\.{1,2}/|[A-Za-z]:[\\/])[^\s，。；,;\"“”'`]*"
MODEL = r"[A-Za-z0-9][\w.\-/:@]*|[\u4e00-\u9fff]{2,8}[\w.\-]*"
STATUS = r"[A-Za-z][\w\-]{0,30}|[\u4e00-\u9fff]{1,6}"

THEME_RE = re.compile(r"(?:深色|浅色|暗色|亮色|暗黑|黑暗|夜间|日间|白天|黑夜|黑色|白色|护眼|高对比度?|dark|light|night|day|"
                      r"high[- ]contrast)\s*(?:模式|主题|配色|皮肤|mode|theme)?", re.I)
LANGUAGE_RE = re.compile(r"(?P<lang>简体中文|繁体中文|中文|汉语|普通话|粤语|英文|英语|日语|日文|韩语|韩文|法语|德语|西班牙语|"
                         r"俄语|Chinese|Mandarin|Cantonese|English|Japanese|Korean|French|German|Spanish|Russian)"
                         r"\s*(?:回复|回答|交流|沟通|聊天|写作|对话|界面)?", re.I)

#: Relation words → (predicate, cardinality). Multi-valued where one person naturally has several.
_M, _S = Cardinality.MULTI, Cardinality.SINGLE
RELATIONS: Mapping[str, tuple[str, Cardinality]] = {
    "上司": ("boss", _S), "老板": ("boss", _S), "领导": ("boss", _S), "经理": ("boss", _S), "主管": ("boss", _S),
    "同事": ("colleague", _M), "朋友": ("friend", _M), "好朋友": ("friend", _M), "好友": ("friend", _M),
    "闺蜜": ("friend", _M), "发小": ("friend", _M), "死党": ("friend", _M), "妻子": ("spouse", _S), "老婆": ("spouse", _S), "太太": ("spouse", _S),
    "爱人": ("spouse", _S), "丈夫": ("spouse", _S), "老公": ("spouse", _S), "先生": ("spouse", _S),
    "男朋友": ("partner", _S), "女朋友": ("partner", _S), "男友": ("partner", _S), "女友": ("partner", _S),
    "对象": ("partner", _S), "哥哥": ("sibling", _M), "姐姐": ("sibling", _M), "弟弟": ("sibling", _M),
    "妹妹": ("sibling", _M), "爸爸": ("father", _S), "父亲": ("father", _S), "妈妈": ("mother", _S),
    "母亲": ("mother", _S), "儿子": ("child", _M), "女儿": ("child", _M), "孩子": ("child", _M),
    "室友": ("roommate", _M), "导师": ("advisor", _S), "同学": ("classmate", _M), "邻居": ("neighbor", _M),
    "搭档": ("collaborator", _M), "合伙人": ("collaborator", _M),
    "boss": ("boss", _S), "manager": ("boss", _S), "supervisor": ("boss", _S), "colleague": ("colleague", _M),
    "coworker": ("colleague", _M), "co-worker": ("colleague", _M), "friend": ("friend", _M),
    "best friend": ("friend", _M), "wife": ("spouse", _S), "husband": ("spouse", _S), "spouse": ("spouse", _S),
    "partner": ("partner", _S), "girlfriend": ("partner", _S), "boyfriend": ("partner", _S),
    "brother": ("sibling", _M), "sister": ("sibling", _M), "father": ("father", _S), "dad": ("father", _S),
    "mother": ("mother", _S), "mom": ("mother", _S), "mum": ("mother", _S), "son": ("child", _M),
    "daughter": ("child", _M), "roommate": ("roommate", _M), "flatmate": ("roommate", _M),
    "advisor": ("advisor", _S), "adviser": ("advisor", _S), "neighbor": ("neighbor", _M),
    "neighbour": ("neighbor", _M), "classmate": ("classmate", _M),
}
RELATIONS = {**RELATIONS, **KIN}  # kin words (表哥, sister-in-law) from the lexicon
REL_ZH = "|".join(sorted((k for k in RELATIONS if not k.isascii()), key=len, reverse=True))
REL_EN = "|".join(sorted((k for k in RELATIONS if k.isascii()), key=len, reverse=True))

#: Organisation-looking names: a suffix, or a well-known employer written without one.
ORG_RE = re.compile(r"(?:公司|集团|科技|银行|大学|学院|医院|学校|研究所|研究院|实验室|工作室|事务所|中心|基金会|出版社|报社|"
                    r"电视台|律所|Inc\.?|Ltd\.?|Corp\.?|LLC|GmbH|Co\.?)$|^(?:阿里巴巴|阿里|腾讯|字节跳动|字节|华为|百度|京东|"
                    r"美团|小米|网易|拼多多|滴滴|快手|蚂蚁|微软|谷歌|苹果|亚马逊|英伟达|携程|商汤|大疆|联想|中兴|OPPO|vivo)$")
JOB_SUFFIX = re.compile(r"(?:工程师|经理|总监|主管|总裁|老师|教师|医生|护士|学生|研究生|博士生?|硕士生?|本科生|作家|律师|会计|"
                        r"设计师|程序员|开发者?|架构师|科学家|分析师|顾问|记者|编辑|司机|厨师|警察|主任|教授|讲师|创始人|实习生|"
                        r"工人|销售|运营|店长|研究员|程序员|公务员|运动员|演员|服务员|销售员|职员|飞行员|乘务员|产品|测试|运维|歌手|画家|翻译|"
                        r"财务|出纳|人事|行政|客服|前台|文员|保安|保洁|快递员|外卖员|骑手|收银员|柜员|导游|策划|文案|主播|审计|法务|采购|"
                        r"仓管|护工|保姆|月嫂|社工|消防员|军人|农民|个体户|自由职业者?|店主|全职妈妈|全职爸爸|家庭主妇|主妇|全职太太|"
                        r"大学生|高中生|初中生|小学生|中学生|留学生|博士后|设计|开发|前端|后端|算法|数据分析|人力资源|HR|外贸|电商|"
                        r"金融|保险|证券|投资|基金|房地产|地产|物流|跨境电商|互联网|IT|医疗|教育|培训|法律|广告|媒体|餐饮|建筑|装修|咨询|贸易|"
                        r"[^\s]师|[^\s]警|当兵|兵|CEO|CTO|COO|CFO)$")
EN_JOB = re.compile(r"(?:engineer|developer|programmer|designer|manager|director|teacher|professor|lecturer|doctor|"
                    r"nurse|student|scientist|researcher|analyst|consultant|lawyer|accountant|architect|writer|"
                    r"editor|journalist|founder|intern|officer|CEO|CTO|COO|CFO|lead|specialist|administrator|admin|"
                    r"technician|artist|photographer|translator|chef|driver|pharmacist|dentist|therapist|"
                    r"librarian|product owner|data scientist|sre|devops|barista|cashier|paralegal|cook|server|waiter|waitress|"
                    r"bartender|mechanic|electrician|plumber|carpenter|coordinator|assistant|receptionist|clerk|secretary|"
                    r"teller|bookkeeper|realtor|agent|broker|pilot|flight attendant|firefighter|police officer|cop|soldier|"
                    r"farmer|janitor|custodian|housekeeper|nanny|babysitter|tutor|coach|trainer|instructor|counselor|"
                    r"counsellor|social worker|psychologist|psychiatrist|surgeon|physician|vet|veterinarian|paramedic|emt|"
                    r"midwife|dietitian|nutritionist|optometrist|coder|sysadmin|tester|marketer|recruiter|salesperson|"
                    r"sales rep|representative|courier|trucker|postdoc|principal|curator|musician|singer|actor|actress|"
                    r"dancer|author|blogger|youtuber|streamer|photographer|videographer|producer|animator|illustrator|"
                    r"contractor|freelancer|entrepreneur|owner|supervisor|apprentice|stay-at-home (?:mom|dad|parent)|"
                    r"homemaker|housewife|retiree|freshman|sophomore|grad student|phd student|pastor|priest|rabbi|"
                    r"welder|machinist|operator|dispatcher|auditor|actuary|economist|banker|trader|investor|"
                    r"underwriter|adjuster|planner|strategist|copywriter|researcher|hygienist|"
                    r"sonographer|radiologist|anesthesiologist|pediatrician|caregiver|aide|cna|rn|lpn|guard|tech|cleaner|"
                    r"caretaker|porter|dishwasher|barber|hairdresser|stylist|butcher|baker|florist|tailor|mover|roofer|painter|"
                    r"landscaper|gardener|groundskeeper|lifeguard|crossing guard|bus driver|conductor|clerk)s?$", re.I)

_NAME_ZH = re.compile(r"^[\u4e00-\u9fff·]{2,5}$")
_NAME_EN = re.compile(r"^[A-Z][a-zA-Z'\-]+(?:\s+[A-Z][a-zA-Z'\-]+){0,3}$")
_NOT_NAME = re.compile(r"[个很的是人们这那一位名些么种样我你他她学]")
PRONOUN_VALUE = re.compile(r"^(?:你|你们|他|她|它|他们|她们|它们|这个|那个|这|那|it|him|her|them|you|this|that)$"
                           r"|^(?:这|那|你|您)|^(?:this|that|these|those|it|how|what|your)\b", re.I)
#: Nouns of "my Y is Z" / "X 的 Y 是 Z" that introduce an opinion or a topic, not an attribute.
ABSTRACT_KEYS = frozenset({
    "问题", "意思", "想法", "建议", "看法", "意见", "目的", "目标", "要求", "需求", "原因", "理由", "感觉", "打算", "计划",
    "疑问", "观点", "关键", "重点", "结果", "效果", "区别", "作用", "意义", "办法", "方法", "方案", "思路", "答案", "任务",
    "question", "point", "idea", "guess", "concern", "problem", "issue", "answer", "plan", "goal", "suggestion",
    "opinion", "feeling", "reason", "thought", "understanding", "worry", "bet", "hope", "advice", "take", "view",
    "fear", "dream", "job", "task", "main concern", "real job", "dream job", "true calling", "real passion", "superpower",
    "kryptonite", "spirit animal", "love language", "personality", "brain", "head", "heart", "back", "knee", "knees",
    "body", "life", "week", "day", "mind", "mood", "schedule", "house", "room", "place", "internet", "wifi", "stomach",
    "skin", "hair", "luck", "boss", "commute", "inbox",
})
#: Values that point at the conversation rather than name something (this idea, 这个).
DEICTIC_VALUE = re.compile(r"^(?:这|那|你|您|它|this|that|these|those|it|how|what|when|where|why|which|your|the\s+way)"
                           r"(?:\b|(?=[\u4e00-\u9fff])|$)", re.I)
CONFIG_KEYS = frozenset({"版本", "版本号", "端口", "端口号", "模型", "路径", "目录", "状态", "version", "port", "model",
                         "path", "status", "directory"})


def person_like(value: str) -> bool:
    """Whether ``value`` looks like a person's name (张伟, 老王, Alice Chen), not a description."""
    if JOB_SUFFIX.search(value) or EN_JOB.search(value):
        return False
    return bool(_NAME_EN.match(value) or (_NAME_ZH.match(value) and not _NOT_NAME.search(value)))


#: Places that say where, but not which city or employer.
VAGUE_PLACE = re.compile(r"^(?:家|家里|公司|办公室|单位|这里|那里|这儿|那儿|这边|那边|外地|本地|当地|线上|远程|网上|学校|医院|一起|一块)$")


def theme_value(value: str) -> bool:
    """Whether ``value`` names a UI theme (深色模式, light mode)."""
    return THEME_RE.fullmatch(value.strip()) is not None


def language_value(value: str) -> str | None:
    """The language a preference value names (中文回复 → 中文), else None."""
    m = LANGUAGE_RE.fullmatch(value.strip())
    return m["lang"] if m else None


_LABELS: dict[int, tuple[SlotRegistry, dict[str, str]]] = {}


def label_index(registry: SlotRegistry) -> dict[str, str]:
    """Normalised label or alias → canonical predicate, from the registry's own data (cached per registry)."""
    cached = _LABELS.get(id(registry))
    if cached is not None and cached[0] is registry:
        return cached[1]
    out: dict[str, str] = {}
    for predicate, spec in registry.specs.items():
        for label in (predicate, *spec.labels):
            out.setdefault(normalize_key(label), predicate)
    for alias, predicate in registry.aliases.items():
        out.setdefault(normalize_key(alias.replace("_", " ")), predicate)
    if len(_LABELS) > 16:
        _LABELS.clear()
    _LABELS[id(registry)] = (registry, out)
    return out


def predicate_for(key: str, labels: Mapping[str, str], registry: SlotRegistry) -> str:
    """The catalogue predicate a noun (生日, job title) names, else the noun itself as a free predicate."""
    norm = normalize_key(key)
    return labels.get(norm) or registry.canonical(norm)


def scope_for(temporary: str | None, predicate: str, plan: bool) -> Scope:
    """Plans, statuses and temporary choices are temporal; everything else permanent."""
    return Scope.TEMPORAL if temporary or plan or predicate == "status" else Scope.PERMANENT


def rule_names(namespace: Mapping[str, object], lang: str) -> dict[re.Pattern[str], str]:
    """``pattern → rule name`` for a patterns module's compiled patterns (``_LIVES`` → ``zh.pattern.lives``)."""
    return {v: f"{lang}.pattern.{k.lstrip('_').lower()}" for k, v in namespace.items() if isinstance(v, re.Pattern)}
