"""Word lists and patterns of query understanding (:mod:`hlmem.domain.query_understanding`):
Chinese and English time words, life events, roles, names and fillers. Data, not logic.
"""

from __future__ import annotations

import re

_HAN = r"[\u3400-\u9fff\uf900-\ufaff]"
_A, _Z = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"
_MONTH_WORD = re.compile(r"(?i)january|february|march|april|may|june|july|august|september|october|november|december")
_VAGUE = re.compile(r"(?i)最近|近来|近期|recently|lately|these days")
_SUFFIX = re.compile(r"^(?:的时候|时候|那时候?|那会儿?|那阵子?|前后|左右|期间|时)")
#: A part of a month: 3月上旬/中旬/下旬, 3月初/中/底/末 after it; mid-/early/late/the middle of/the end of before it.
_MONTH_PART_ZH = re.compile(r"^(?:份)?(?P<part>上旬|中旬|下旬|月?初|月?中(?![国文午心旬间])|月?底|月?末)")
_MONTH_PART_EN = re.compile(r"(?i)(?:^|\s)(?P<part>mid-?|early|late|(?:the\s+)?(?:middle|beginning|start|end)\s+of)\s*$")
_BOUND_AFTER_ZH = re.compile(r"^\s*(之前|以前|前(?!后)|之后|以后|后|起|以来|开始)")
_BOUND_BEFORE_EN = re.compile(r"(?i)(?:^|\s)(before|prior to|until|till|after|since|from|as of)\s+$")
#: 截至/截止(到) before a date, or 到 … 为止 around it: "as of", the state up to the end of the date.
_AS_OF_ZH_BEFORE = re.compile(r"(截至|截止到?|直到|到)\s*$")
_AS_OF_ZH_AFTER = re.compile(r"^\s*(?:底|末)?\s*(?:为止|止)?")
_N = r"\d{1,3}|[零一二两三四五六七八九十百]{1,4}|半|几|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|few|several|a couple of|couple of"
_AGO = re.compile(rf"(?i)(?P<n>{_N})\s*(?P<u>天|日|周|星期|个?礼拜|个?月|年)\s*(?:之|以)?前"
                  rf"|前(?P<n2>几|两|三|些)(?P<u2>天|周|个月|年)"
                  rf"|{_A}(?P<n3>{_N})\s+(?P<u3>day|week|month|year)s?\s+ago{_Z}")
_YEAR_BOUND = re.compile(rf"(?i){_A}(?:before|after|until|till|prior to|by)\s+(?P<y>(?:19|20)\d{{2}}){_Z}")
_EN_NUM = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_CLOCK = re.compile(r"(?<![\d.:])(?:\d{1,2}|[一二三四五六七八九十]{1,3}|几)\s*[点點](?:\s*(?:半|一刻|三刻|[0-5]?\d\s*分|钟))?"
                    rf"|(?<![\d.:])\d{{1,2}}:[0-5]\d(?![\d:.])(?:\s*(?:am|pm|a\.m\.|p\.m\.))?|{_A}\d{{1,2}}\s*(?:am|pm|o'clock){_Z}",
                    re.IGNORECASE)
_LIFE_EVENTS = ("搬家|搬走|结婚|离婚|毕业|入职|离职|辞职|跳槽|换工作|退休|出国|回国|分手|装修|转学|升职|买房|生孩子|怀孕|"
                f"手术|住院|出院|搬到{_HAN}{{1,4}}?|搬去{_HAN}{{1,4}}?")
_ANCHOR_ZH = re.compile(rf"(?P<ev>{_LIFE_EVENTS})了?(?P<rel>之前|以前|前|之后|以后|后)"
                        rf"|(?P<ev2>{_HAN}{{2,6}}?)(?P<rel2>之前|以前)(?=[，,、\s]*(?:我|你|他|她|咱))")
_PREP = r"(?:\s+(?:to|into|in|from|out of|up|away|with)\s+\w+)?"
_ANCHOR_EN = re.compile(rf"(?i){_A}(?P<rel>before|after|prior to)\s+(?P<ev>(?P<det>the|my|our|his|her|their|i|we|he|she|they|you)"
                        rf"\s+\w+{_PREP}|(?!(?:any|some|no|every)thing|morning|evening|spring|during)\w+ing{_PREP}){_Z}")
_PAST = re.compile(r"(?i)\b(?:did|was|were|had|used)\b")
#: A question about what is planned ("我周五要做什么", "what will I do on Friday"): a weekday or month
#: without a year then names the next one, not the latest past one. 需要/主要/只要/想要/不要 are not plans.
_FUTURE_CUE = re.compile(rf"(?i)计划|打算|准备(?!好)|将要|将会|即将|安排|(?<![主需重只想不还])要(?![求是不])"
                         rf"|{_A}(?:will|shall|gonna|going to|plan to|planning to|planned for|scheduled|upcoming|coming up){_Z}"
                         rf"|(?<=[a-z])'ll{_Z}")
_BEFORE_END = re.compile(rf"(?i){_A}before(?=\s*(?:[?.!,;？。！，]|$))")
_NOT_EVENT = re.compile(r"(?i)^(?:我|你|他|她|咱|我们|这|那|现在|目前|之前|以前)$")
_MARKERS: tuple[tuple[str, float, re.Pattern[str]], ...] = (
    ("earliest", 0.9, re.compile(rf"(?i)一开始|刚开始|起初|最初|最早|{_A}(?:originally|at first|initially|in the beginning){_Z}")),
    ("history", 0.9, re.compile(rf"(?i)之前|以前|原来|原先|曾经|早先|先前|从前|当初|本来|以往|上一个(?![月周星礼])|上一任|前任"
                                rf"|{_A}(?:previously|formerly|used to|use to|in the past|back then|before|earlier"
                                rf"|previous|former|prior|at one point){_Z}")),
    ("history", 0.6, re.compile(rf"(?i)过去(?![找看接送帮拿玩吃坐住一了吧])|{_A}ever{_Z}")),
    ("current", 0.9, re.compile(rf"(?i)现在|目前|当前|如今|眼下|此刻|当下|至今|仍然|依然|依旧|还在|{_A}(?:right now|now|currently|current"
                                rf"|nowadays|at the moment|at present|presently|these days|still|anymore|any more|latest){_Z}")),
    ("current", 0.6, re.compile(rf"(?i)最近|近来|近期|这两天|这几天|{_A}(?:recently|lately){_Z}")),
)
# "What does Joanna use to remember…" is the instrument "use … to", not the habitual past.
_NOT_HISTORY = re.compile(r"原来如此|原来是这样|原来(?=你|他|她|是你)|[搬走跑飞开]过去"
                          r"|(?i:\b(?:do|does|don't|doesn't)\b(?:\s+[\w'-]+){0,3}\s+use to\b)")
_KNOWN_CUE = re.compile(rf"(?i)说过|讲过|提到过?|提起过|告诉过?你|记录过|记下|你(?:当时)?(?:记得|知道)"
                        rf"|你(?:当时)?以为"
                        rf"|{_A}(?:did i (?:tell|say|mention)|had i (?:told|said|mentioned)"
                        rf"|i (?:told|said|mentioned)|did you (?:know|believe)|(?:was|were) (?:known|believed)"
                        rf"|you (?:knew|believed)){_Z}")
_FIRST_PERSON = re.compile(rf"(?i)我们|我|咱们|咱|俺|本人|用户|{_A}(?:i|me|my|mine|myself|i'm|i've|i'd|i'll|the user|user's){_Z}")
_ROLES_ZH = ("表弟|表妹|表哥|表姐|堂弟|堂妹|堂哥|堂姐|弟弟|妹妹|哥哥|姐姐|爸爸|妈妈|父亲|母亲|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|"
             "阿姨|舅舅|舅妈|姑姑|姑父|婶婶|伯伯|伯父|伯母|老公|老婆|丈夫|妻子|儿子|女儿|孙子|孙女|侄子|侄女|外甥女|外甥|"
             "男朋友|女朋友|男友|女友|朋友|同事|同学|室友|邻居|上司|老板|领导|经理|老师|导师|学生|客户|医生|宝宝|孩子")
_ROLES_EN = ("wife|husband|mom|mother|dad|father|sister|brother|son|daughter|friend|boss|manager|colleague|coworker|"
             "roommate|neighbou?r|cousin|uncle|aunt|grandma|grandpa|grandmother|grandfather|girlfriend|boyfriend|"
             "partner|teacher|doctor|kids?|children|child|baby|parents?")
_ROLE = re.compile(rf"(?P<own>(?:我们|我|咱们|咱|俺)的?)?(?P<zh>{_ROLES_ZH})"
                   rf"|(?i:{_A}(?P<own2>(?:my|our)\s+)?(?P<en>{_ROLES_EN})(?:s|'s)?{_Z})")
_EN_NAME = re.compile(rf"{_A}[A-Z][a-z]+(?:-[A-Z][a-z]+)*(?:\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)*)*(?=\W|$)")
_EN_STOP = frozenset(
    "i a an the my our your his her its their we he she it they you this that these those there here what when "
    "where who whom whose why how which is are was were do does did have has had can could would should will shall "
    "may might must user users yes no ok hi hello please thanks also and but or if so then tell show remember "
    "list give find describe explain summarize summarise recall name "
    "in on at for from to of with since during today yesterday tomorrow last next before after now".split())
_NAME_END = frozenset("的了是在和与跟及或也都就还说叫把被给对向从要会很住去来喜爱想最有吗呢吧啊做用买养搬工上下到过多几哪谁什怎现之以")
#: Characters that end a name when they come third (张伟家 is 张伟's home), though they may be second (张家辉).
_NAME_TAIL = _NAME_END | frozenset("家里他她它们那这")
_NOT_NAME = re.compile(r"什么|啥|谁|哪|几|多少|怎么")
_FILLER = re.compile(r"(?i)[呢吗吧啊呀么嘛哦那还有又]|那么|然后|{a}(?:and|so|then|what|about|how|what's|is|it|was|the){z}|[\W_]"
                     .format(a=_A, z=_Z))
