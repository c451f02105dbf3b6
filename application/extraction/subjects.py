"""Subject resolution for the rule extractor: who a clause is about, and where the rest begins.

A clause opens with its subject: the speaker (我, I, my family), a kin relation of the speaker
(我表哥, my sister-in-law), a named third party (张伟, Alice, my coworker Tom → Tom), or a pronoun
(他, 其, she) standing for the last third party the event named — never the speaker: with no
referent the subject is ``unresolved`` and the clause yields nothing (:mod:`.referents`, ADR 0094). The third party is the claim's
subject; a kin relation is written from the user (``用户的表哥``, ``user's sister-in-law``), so
it stays one entity across statements. "My coworker Tom" also states the relation
(``user · colleague · Tom``).
"""

from __future__ import annotations

import re

from attrs import evolve, frozen

from hlmem.application.extraction.lexicon import KIN, KIN_CANON, PET_SUFFIX_ZH, PETS_EN, PETS_ZH, QUANTITY_ZH
from hlmem.application.extraction.patterns_common import RELATIONS, person_like

#: Every relation word, longest first (so 表哥 wins over 哥).
_ALL_REL = {**RELATIONS, **KIN}
REL_ALL_ZH = "|".join(sorted((k for k in _ALL_REL if not k.isascii()), key=len, reverse=True))
REL_ALL_EN = "|".join(sorted((re.escape(k) for k in _ALL_REL if k.isascii()), key=len, reverse=True))
#: Common Chinese surnames: a 2–3 character run starting with one, before a verb, is a name.
SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟"
            "谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝")
_ZH_NAME = rf"(?:[{SURNAMES}][\u4e00-\u9fff]{{1,2}}?|[老小][{SURNAMES}]|阿(?![姨公婆妈爸哥姐])[\u4e00-\u9fff])"
_ZH_VERB = r"(?:在|是|住|对|有|今年|喜欢|也|每|最近|现在|的|去|搬|已经|刚|一直|养|开|不)"
_ADV_ZH = (r"(?:现在|而家|目前|如今|其实|另外|对了|最近|已经|一直|平时|还|所以|但是|不过|然后|而且|可是|后来|因此|于是|说实话|老实说|"
           r"说真的|讲真|其实吧|话说|顺便说一下|哦对了|哦|嗯|哎|唉|反正|总之|另外就是)*")
_PET_ZH = rf"(?:{'|'.join(sorted(PETS_ZH, key=len, reverse=True))}|[^\s养了有是的只条个在和跟给把被买卖送捡\W\d]{{1,3}}?(?:{PET_SUFFIX_ZH}))"
_ZH = re.compile(rf"^\s*{_ADV_ZH}(?:(?P<fp>我们(?:团队|公司|组|部门|家|一家)?|我家里|我家|我(?:个人|自己)?|咱们|咱家|俺们(?:家)?|俺家|俺|本人)(?:的)?"
                 rf"(?:(?P<cl>[那这]?[一两二三四五几]?[只条])?(?P<pet>{_PET_ZH})(?P<pname>(?!叫|今年|已经|现在|最近|特别|每天)[\u4e00-\u9fff]{{2}}(?=\s*(?:今年|已经|现在|最近|又|都|也|是|有|得|才|刚|上个|前|去年|[一二三四五六七八九十两\d])))?(?=\s*(?:叫|名叫|今年|已经|现在|是|有|得|每|特别|很|不|最近|都|也|走|死|丢|跑|被|去世|生|病|刚|才|又|还|就|上个|前|[一二三四五六七八九十两\d]|$))|"
                 rf"(?P<kin>{REL_ALL_ZH})"
                 rf"(?:(?P<kname>[{SURNAMES}](?:阿姨|叔叔|老师|大爷|大妈|姐|哥|总|工)|{_ZH_NAME})(?=\s*{_ZH_VERB}))?)?(?:他|她)?|(?P<name>{_ZH_NAME})(?=\s*(?:是|在|住|对|有|的|今年|身高|体重|喜欢|不|也|每|最近|现在|养|开|搬|从|刚|一直|已经|患|得))"
                 rf"|(?P<dup>(?P<dc>[\u4e00-\u9fff])(?P=dc))(?=\s*(?:减|瘦|胖|长|重|又|都|上|读|去|学|今年|已经|现在|最近|去年|上个|前|被|生|病|查|得|是|在|有|也|不|会|[一二三四五六七八九十两\d]))"
                 rf"|(?P<bare>孩子|大儿子|小儿子|大女儿|小女儿|儿子|女儿|闺女|老公|老婆|媳妇|爸妈|老大|老二|小宝|大宝|二宝|娃)(?=\s*(?:{_ZH_VERB}|身高|体重|上|读|学|今年|[一二三四五六七八九十两\d]))"
                 rf"|(?P<pro>他们|她们|它们|他|她|其(?![实他它中次余后间])|此人|它|对方|(?i:ta)(?![A-Za-z]))|(?P<thing>(?![我你他她它这那该此其])[\u4e00-\u9fffA-Za-z0-9·]{{2,14}}?)的(?![那这])(?=[\u4e00-\u9fff]{{2,6}}?(?:是|为)))\s*")
_EN_NAME = r"(?:[A-Z][a-z'\-]+(?:\s+[A-Z][a-z'\-]+)?)"
_PET_EN = "|".join(re.escape(p) for p in PETS_EN if p not in ("pet", "pets"))
NOT_NAME_EN = re.compile(r"^(?:I|I'm|I've|We|My|The|This|That|These|Those|It|There|Here|What|When|Where|Why|How|Who|Which|"
                          r"Yes|No|Ok|Okay|Hi|Hello|Thanks|Please|Every|Each|Today|Tomorrow|Yesterday|Also|And|But|So|"
                          r"Then|Now|Maybe|Honestly|Actually|Well|Oh|People|Everyone|Somebody|Someone|Home|Our|Your|"
                          r"His|Her|Their|He|She|They|You|Let|Can|Could|Would|Should|Do|Does|Did|Is|Are|Was|Were|"
                          r"Great|Good|Nice|Lovely|Just|Mostly|Usually|Always|These|Last|Next)$")
_LEAD_EN = (r"(?i:(?:so|and|but|then|now|also|well|oh|actually|honestly|anyway|plus|these\s+days|nowadays|lately|since|after|"
            r"once|now\s+that|ever\s+since|because|sadly|unfortunately|luckily|finally|btw|by\s+the\s+way|fwiw|lol|yeah|ok|okay|"
            r"fun\s+fact|update|right\s+now|currently|at\s+the\s+moment|officially|ngl|tbh|welp|anyway)\s*(?:,|\.{2,}|…)?\s+)*")
_BARE_KIN_EN = r"(?i:mom|mum|dad|mommy|daddy|grandma|grandpa|granny|nana|papa|mama)"
_EN = re.compile(rf"^\s*{_LEAD_EN}(?:(?P<bare>{_BARE_KIN_EN})(?=\s|'s\s)|(?P<fp>(?:(?:[Mm]y|[Oo]ur)\s+[a-z\-]+(?:\s+[A-Z][a-z]+)?"
                 rf"|[A-Z][a-z]+)\s+and\s+I(?=\s|')|I(?=\s|'[mv])|[Ww]e(?=\s|'[rv])|[Mm]y\s+(?:family|household)(?=\s)|[Oo]ur\s+(?:family|household|team|company|office|group|startup)(?=\s))"
                 rf"|(?:[Mm]y|[Oo]ur)\s+(?:(?:younger|older|little|big|elder|baby)\s+)?(?P<kin>{REL_ALL_EN})(?:,?\s+(?:(?:Mr|Mrs|Ms|Dr|Miss|Prof)\.?\s+)?(?P<kname>{_EN_NAME})(?=\s|,|$),?)?"
                 rf"|(?:[Mm]y|[Oo]ur)\s+(?P<cnt>(?:two|three|four|\d)\s+)?(?:(?:old|little|new|rescue|senior)\s+)?(?P<pet>{_PET_EN})(?:,?\s+(?P<pname>{_EN_NAME})(?=\s|,|$),?)?(?=\s|'s|,|$)"
                 rf"|(?P<pro>[Hh]e|[Ss]he|[Tt]hey)(?=\s|'|’)|(?P<poss>[Hh]is|[Hh]er|[Tt]heir)\s+(?=[a-z])"
                 rf"|(?P<name>{_EN_NAME})(?=\s+(?:is|was|has|have|lives|works|moved|just|loves|likes|hates|eats|"
                 rf"drinks|plays|goes|runs|owns|got|recently|still|also|now|'s|passed|died|ran|went|turned|retired|started|"
                 rf"quit|left|bought|sold|joined|speaks|teaches|studies|graduated|takes|does|doesn't|can't|never|no)\b|'s\s))")


#: Nouns that start with a surname's character and are no one's name.
_NOUNS_ZH = frozenset({"游泳", "游戏", "游乐", "篮球", "足球", "钱包", "钱包", "毕业", "单位", "单身", "江苏", "江西", "安徽", "湖南",
                       "湖北", "广东", "广西", "云南", "贵州", "海南", "山东", "山西", "河南", "河北", "陕西", "甘肃", "宁夏",
                       "青海", "西藏", "明天", "明年", "常州", "温州", "余额", "包子", "饺子", "毛衣", "曾经", "向往", "元旦",
                       "房东", "房间", "房子", "房价", "房贷", "高铁", "高中", "高考", "高速", "周末", "金额", "时间",
                       "王者", "程序", "马上", "方便", "白天", "黄金", "毛病", "于是", "应该", "成绩", "安全", "华为", "小米",
                       "石头", "汤圆", "龙猫", "雷雨", "孔雀", "宁愿", "何况", "任何", "史上", "常常", "温度", "康复", "万一"})


#: Doubled characters that are words, not nicknames (天天 every day, 妈妈 mum).
_NOT_DUP = frozenset("天天 刚刚 常常 渐渐 慢慢 偷偷 好好 往往 明明 谢谢 哈哈 嘻嘻 呵呵 嘿嘿 爸爸 妈妈 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 "
                     "宝宝 叔叔 舅舅 姑姑 婶婶 公公 婆婆 姥姥 姥爷 太太 娃娃 人人 个个 处处 年年 时时 默默 悄悄 稍稍 微微 紧紧 轻轻 "
                     "早早 白白 整整 样样 家家 点点 多多少少 星星 狒狒 猩猩 蛐蛐 蝈蝈 往往 仅仅 统统 通通 纷纷 常常 匆匆 隐隐 "
                     "刚刚好 恰恰 足足 快快 久久 乖乖 宝贝 试试 看看 想想 说说 走走 等等 听听 聊聊 问问".split())


#: After a pronoun, a kin or social word: the pronoun is a possessive (他老婆, 她的同事).
_POSSESSED_ZH = re.compile(rf"\s*的?\s*(?:{REL_ALL_ZH})")


@frozen
class Subject:
    """Who a clause is about: ``name`` None means the speaker (the user)."""

    name: str | None
    end: int  # where the rest of the clause starts
    relation: tuple[str, str] | None = None  # (predicate, value) the subject phrase itself states
    kin: str | None = None  # the kin word when the subject is a kin relation of the user (用户的表哥)
    pet: str | None = None  # the pet word when the subject is the user's pet (用户的橘猫, user's dog)
    counted: bool = False  # the subject phrase counts or points at it (我家两只猫, 那只橘猫): it introduces the pet
    carried: bool = False  # not named in the clause: carried from the clause before it (…，经常加班)
    bare_end: int | None = None  # ``end`` before the blanks of masked words (从A of 从A换成B): where text rules start
    pronoun: bool = False  # opened by a third-person pronoun (他, she): ``name`` is its referent, None when it has none

    @property
    def unresolved(self) -> bool:
        """A pronoun with no referent: the clause is about someone, never the speaker, and no one known."""
        return self.pronoun and self.name is None


LEADING_ZH = re.compile(rf"^\s*{_ADV_ZH}\s*")
#: The leading adverbs without 平时, which opens a habit (平时骑车上班) rather than framing one.
LEADING_ZH_HABIT = re.compile(rf"^\s*{_ADV_ZH.replace('平时|', '')}\s*")


def resolve_zh(text: str, topic: str | None) -> Subject | None:
    """The subject a Chinese clause opens with (see the module docstring), else None."""
    found = _resolve_zh(text, topic)
    return _bare(found, text)


def resolve_en(text: str, topic: str | None) -> Subject | None:
    """The subject an English clause opens with (see the module docstring), else None."""
    return _bare(_resolve_en(text, topic), text)


def _bare(found: Subject | None, text: str) -> Subject | None:
    if found is None:
        return None
    return evolve(found, bare_end=len(text[:found.end].rstrip()) if text[:found.end].strip() else found.end)


def _resolve_zh(text: str, topic: str | None) -> Subject | None:
    m = _ZH.match(text)
    if m is None:
        return None
    if m["fp"]:
        if m["kin"] and m["kname"] and m["kname"] not in _NOUNS_ZH:
            predicate = relation_of(m["kin"]) or "knows"
            return Subject(m["kname"], m.end(), relation=(predicate, m["kname"]))
        if m["kin"]:
            end = m.start("kname") if m["kname"] else m.end()  # 我儿子游泳不学了: 游泳 is no name
            return Subject(f"用户的{KIN_CANON.get(m['kin'], m['kin'])}", end, kin=m["kin"])
        if m["pet"] and m["pname"]:  # 我家狗子旺财今年十一岁了: the pet, by its name
            return Subject(m["pname"], m.end(), relation=("owns", f"{m['pet']}（{m['pname']}）"), pet=m["pet"])
        if m["pet"]:
            return Subject(f"用户的{m['pet']}", m.end(), pet=m["pet"], counted=bool(m["cl"]))
        return Subject(None, m.end())
    if m["thing"]:
        return Subject(m["thing"], m.end())
    if m["dup"]:  # 咪咪减到九斤了, 乐乐今年上小学: a doubled nickname (not 天天, 刚刚, 妈妈)
        return None if m["dup"] in _NOT_DUP else Subject(m["dup"], m.end())
    if m["bare"]:  # 孩子今年六岁: the speaker's own family, said without 我
        return Subject(f"用户的{KIN_CANON.get(m['bare'], m['bare'])}", m.end(), kin=m["bare"])
    if m["name"]:
        name = m["name"]
        if name in QUANTITY_ZH or name in _NOUNS_ZH:
            return None  # 房租现在两千四: a noun that starts like a surname
        return Subject(name, m.end()) if person_like(name) or name[0] in "老小" else None
    if m["pro"] and _POSSESSED_ZH.match(text, m.end()):
        return Subject(None, m.end(), pronoun=True)  # 他老婆在谷歌上班: someone of someone unnamed
    return Subject(topic, m.end(), pronoun=True)


def _resolve_en(text: str, topic: str | None) -> Subject | None:
    m = _EN.match(text)
    if m is None:
        return None
    if m["fp"]:
        return Subject(None, m.end())
    if m["bare"]:
        kin = KIN_CANON.get(m["bare"].lower(), m["bare"].lower())
        return Subject(f"user's {kin}", m.end(), kin=m["bare"].lower())
    if m["kin"]:
        kin = m["kin"].lower()
        full = m.group().strip()
        if re.search(r"\b(?:younger|older|little|big|elder|baby)\s", full, re.I) and kin in ("brother", "sister"):
            kin = full.split(None, 1)[1].split(",")[0].rsplit(" ", 1)[0] if m["kname"] else full.split(None, 1)[1]
            kin = kin.lower()
        if m["kname"] and person_like(m["kname"]):
            predicate = _ALL_REL.get(kin, _ALL_REL.get(m["kin"].lower(), ("knows", None)))[0]
            return Subject(m["kname"], m.end(), relation=(predicate, m["kname"]))
        return Subject(f"user's {KIN_CANON.get(kin, kin)}", m.end(), kin=m["kin"].lower())
    if m["pet"]:
        pet = m["pet"].lower()
        if m["pname"] and person_like(m["pname"]):
            return Subject(m["pname"], m.end(), relation=("owns", f"{pet} ({m['pname']})"), pet=pet)
        return Subject(f"user's {pet}", m.end(), pet=pet, counted=bool(m["cnt"]))
    if m["name"]:
        if NOT_NAME_EN.match(m["name"].split()[0]):
            return None
        return Subject(m["name"], m.end())
    if m["poss"]:
        return Subject(None, m.end(), pronoun=True)  # "his wife works at Google": someone of someone unnamed
    return Subject(topic, m.end(), pronoun=True)


def relation_of(word: str) -> str | None:
    """The relation predicate of a kin or social word (表哥 → cousin), else None."""
    found = _ALL_REL.get(word) or _ALL_REL.get(word.lower())
    return found[0] if found else None
