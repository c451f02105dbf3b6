"""Names of people in running text, purely: where a Chinese name starts and ends, and a Latin one.

The relation rules (:mod:`hlmem.domain.relation_rules`, :mod:`hlmem.domain.relation_intro`) read
"我表哥张伟在…" as the name 张伟 and "小雨她姐姐" as the name 小雨 with these; nothing here knows
whether anyone by that name exists.
"""

from __future__ import annotations

_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任"
             "沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤")
#: Characters that end a Chinese name in running text (verbs, particles, time words).
_ZH_STOP = set("在是住说去和也都从要会很刚已又还就叫的了把给跟对让带来到做买喜不没最每一这那有们下上前后结考搬换开当过被昨想打觉养他她")
_ZH_TIME = ("今天", "明天", "昨天", "今年", "明年", "去年", "现在", "最近")
#: 小雨, 阿杰, 老王: a familiar name's first character; and second characters that make a word instead.
_NICK_PREFIX = "小阿老"
_NOT_NICK = set("时学家区孩子伙朋姐妹哥弟公婆板师乡样是在的了说也都就会要人们")
#: Doubled characters that are words, not names (天天 "every day", 妈妈, 看看).
_NOT_DOUBLE = frozenset(("天天", "常常", "刚刚", "慢慢", "好好", "渐渐", "偷偷", "悄悄", "妈妈", "爸爸", "爷爷", "奶奶",
                         "宝宝", "谢谢", "看看", "试试", "说说", "想想", "走走", "星星", "人人", "个个", "样样", "处处",
                         "多多", "早早", "乖乖", "年年", "月月", "日日", "家家", "次次", "回回", "默默", "轻轻", "静静",
                         "满满", "大大", "小小", "久久", "紧紧", "哈哈", "嘿嘿", "呵呵", "嘻嘻", "呜呜", "啊啊", "舅舅",
                         "叔叔", "伯伯", "婶婶", "姑姑", "公公", "婆婆", "姥姥", "太太", "娃娃", "狗狗", "猫猫", "早早",
                         "往往", "统统", "通通", "稍稍", "略略", "明明", "仅仅", "白白", "快快", "匆匆", "纷纷", "连连"))


def zh_name(raw: str) -> str:
    """The Chinese name ``raw`` starts with: a common surname and one to three more characters, or
    小/阿/老 and one ("小雨", "阿杰"), ending at a verb, particle or time word; "" when none."""
    name = raw
    for i, ch in enumerate(raw):
        if ch in _ZH_STOP or raw[i:i + 2] in _ZH_TIME:
            name = raw[:i]
            break
    if name[:1] in _NICK_PREFIX and len(name) >= 2:
        return name[:2] if name[1] not in _NOT_NICK else ""
    if len(raw) >= 2 and raw[0] == raw[1] and raw[:2] not in _NOT_DOUBLE and raw[0] not in _NOT_NICK:
        return raw[:2]  # 豆豆, 妞妞, 朵朵: a child's name, a nickname
    return name if 2 <= len(name) <= 4 and name[0] in _SURNAMES else ""


def zh_owner(raw: str) -> str:
    """The name that ends ``raw`` (the words before "的"): its last two characters, else three."""
    if raw.isascii():
        return raw if raw not in ("I", "The") else ""
    for size in (2, 3):
        if len(raw) >= size and zh_name(raw[-size:]) == raw[-size:]:
            return raw[-size:]
    return ""


def latin_name(raw: str) -> str:
    """``raw`` when it reads as a Latin name (capitalised ASCII), else ""."""
    return raw if raw.isascii() and raw[:1].isupper() else ""
