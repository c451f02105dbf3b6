"""Chinese frame rules: what the rest of a clause says about its subject (health, habits, pets…)."""

from __future__ import annotations

import re

from hlmem.application.extraction import frames_zh_life, frames_zh_talk
from hlmem.application.extraction.frames import Rule, rx
from hlmem.application.extraction.lexicon import (
    BRANDS_ZH,
    CONDITION_ZH,
    DEVICE_ZH,
    DIETS_ZH,
    FREQ_ZH,
    HABITS_ZH,
    HEDGE_ZH,
    NUM_ZH,
    OWNABLE_ZH,
    PETS_ZH,
    QUANTITY_ZH,
)
from hlmem.application.extraction.subjects import REL_ALL_ZH
from hlmem.domain.temporal import cn_int

A = (r"(?:\s*(?:现在|目前|如今|已经|已|也|都|还|又|一直|其实|最近|刚刚|刚|就是|只是|就|才|从小|从小就|天生|真的|确实|本身|偷偷|家里|家里面|"
     r"平常|干脆|咬咬牙|终于|总算)\s*)*\s*")
NEG = r"(?P<neg>不再|已经不|并不|从不|从来不|没有|没|不|未曾)"
#: A duration after the value ("吃素五年了") and the particles that end a clause.
END = r"\s*(?:好几年|好多年|[一二三四五六七八九十两几多半]+(?:个)?(?:年|月|星期|周|天)(?:多)?|很久|好久|多年|几十年)?\s*(?:了|咗|啦|呢|哦|呀|啊|吧|哈+|的|嘅|嘛|呗|哟)*\s*$"
V = r"(?P<v>[^，。；,;！？!?]{1,16}?)"
_PETS = "|".join(sorted(PETS_ZH, key=len, reverse=True))
_CL = r"(?:[一两二三四五六七八九几]\s*[只条头匹]|[一两二三几]个?|[只条])?"
_MONEY_UNIT = r"(?:元|块钱|块|万元|万|千|千元|k|K|美元|刀|人民币)?"
_HEDGE = rf"(?:(?P<hedge>{HEDGE_ZH})\s*)?"
_QTY_KEYS = "|".join(QUANTITY_ZH)
_AGE_NUM = r"[1-9]\d|[二三四五六七八九]?十[一二三四五六七八九]?"
_SEVERITY = r"(?:轻微的|轻度的?|严重的|慢性|点|一点|一些|些)?\s*"


_FREQ_SPEAKER = re.compile(rf"^(?P<f>{FREQ_ZH})\s*(?:我们|我)\s*")  # 每周五我都去… → 每周五都去…


def _age(value: str) -> str:
    """七岁 → 7岁, 三岁半 → 3岁半: the number in digits, the words around it kept."""
    m = re.match(r"(\d{1,3}|[一二三四五六七八九十两]{1,3})(.*)$", value)
    return f"{cn_int(m[1]) or m[1]}{m[2]}" if m else value


def _r(name: str, slot: str, what: str, example: str, pattern: str, **kw: object) -> Rule:
    return Rule(name=name, lang="zh", slot=slot, what=what, example=example, regex=rx(pattern), **kw)  # type: ignore[arg-type]


_BASE: tuple[Rule, ...] = (
    # -- health ---------------------------------------------------------------------------------
    _r("zh.allergy", "allergy", "对 X (不)过敏 / X 过敏", "我对青霉素过敏",
       rf"{A}(?:{_HEDGE}(?:对|吃|碰)?\s*(?P<v>[^，。；,;！？!?\s]{{1,10}}?)\s*{A}(?:有点|有些|会|严重|轻微)?{NEG}?过敏)"
       rf"(?:[，,].*)?{END}", hedged=True, reported=True),
    _r("zh.condition", "health_condition", "有/患有/得过 X(病、症、炎…) or a named condition", "我有轻微的哮喘",
       rf"{A}{_HEDGE}(?:{NEG}?有|患有|得过)\s*{_SEVERITY}(?P<v>{CONDITION_ZH}){END}", hedged=True, reported=True),
    _r("zh.diagnosed", "health_condition", "查出/确诊/得了 X: from then on (a diagnosis in the past still holds)",
       "我去年查出高血压",
       rf"{A}{_HEDGE}(?:被)?(?:患上了?|得了|体检查出来了?|体检查出了?|检查出来了?|检查出了?|查出来了?|查出了?|被诊断(?:出|为)了?|"
       rf"诊断出了?|确诊了?)\s*(?:有|了)?\s*{_SEVERITY}(?P<v>{CONDITION_ZH}){END}", hedged=True, reported=True, change=True),
    _r("zh.condition_for_years", "health_condition", "X(病) 好几年了 (a condition named first, with how long)", "我妈高血压好几年了",
       rf"{A}(?:有)?\s*(?P<v>{CONDITION_ZH})(?:好几年|好多年|[一二三四五六七八九十两几多]+年|多年|很久|老毛病|老胃病)了?"
       rf"(?:[，,].*)?\s*$", hedged=True, reported=True),
    _r("zh.condition_state", "health_condition", "X 偏高/偏低, 贫血, 乳糖不耐受 said of the subject", "我乳糖不耐受",
       rf"{A}{_HEDGE}(?:有点|有些|比较|一直)?\s*(?P<v>{CONDITION_ZH}|乳糖不耐受|贫血|失眠|近视|高度近视|色盲){END}",
       hedged=True, reported=True),
    _r("zh.likes", "likes", "(不)喜欢/爱吃 X — any subject", "我老婆喜欢吃辣",
       rf"{A}(?P<neg>不太|不怎么|不再|不)?\s*(?:很|非常|特别|超级|最|挺|比较|更|超|巨|贼|好|真|偏偏|就)?\s*(?:喜欢|喜爱|热爱|爱吃|爱喝|爱(?![吃喝]))(?!用)\s*"
       rf"(?P<v>(?![你他她它这那])[^，。；,;！？!?]{{1,16}}?){END}"),
    # -- diet -----------------------------------------------------------------------------------
    _r("zh.diet_is", "diet", "是素食主义者 / 吃素 / 戒糖", "我是素食主义者",
       rf"{A}(?:{NEG}?(?:是|在|开始|改成了?|改|坚持|算是|现在是|属于|在吃|吃|在做|做)?\s*(?:一个|一名|个)?)\s*(?P<v>{DIETS_ZH}){END}"),
    _r("zh.diet_not", "diet", "不(再)吃/喝 X (diet, negated)", "我不吃猪肉了",
       rf"{A}(?:早上|中午|晚上|平时|周末|白天|睡前)?\s*(?P<neg>不再|已经不|从不|从来不|不|戒了|戒掉了)\s*(?:吃|喝)\s*"
       rf"(?P<v>[^，。；,;！？!?\s了]{{1,6}}?){END}", polarity=True, change=True, also=("habit",)),
    _r("zh.quit", "habit", "戒了烟/酒 (habit, negated)", "我戒烟了",
       rf"{A}(?P<neg>戒|戒掉了?|戒了)\s*(?P<v>烟|酒){END}", change=True,
       clean=lambda v: {"烟": "抽烟", "酒": "喝酒"}.get(v, v)),
    # -- habits ---------------------------------------------------------------------------------
    _r("zh.habit_stop", "habit", "不(再) + a habit verb (抽烟, 熬夜, 游泳…), one or two", "我已经不抽烟了",
       rf"{A}{NEG}(?:再)?\s*(?P<v>{HABITS_ZH})(?:\s*(?:也|还)?(?:不|从不)(?:再)?\s*(?P<v2>{HABITS_ZH}))?{END}", change=True),
    _r("zh.habit", "habit", "每周二/每天/平时/习惯 + an activity", "我每周二去游泳",
       rf"{A}(?:改成|换成|改为|开始|变成)?\s*(?P<v>(?![^，。]*(?:{_QTY_KEYS}))(?:{FREQ_ZH})\s*(?:都|会|要|去|也|坚持|固定)*\s*"
       rf"[^，。；,;！？!?]{{1,14}}?){END}", on_text=True,
       clean=lambda v: _FREQ_SPEAKER.sub(r"\g<f>", v)),
    _r("zh.kin_have_named", "@kin", "有一个 X 叫 Y (a kin word and a name)", "我有个女儿叫乐乐",
       rf"{A}有\s*(?:一个|一位|个|一)?\s*(?P<kin>{REL_ALL_ZH})\s*[，,]?\s*(?:叫做?|名叫)\s*(?P<v>[\u4e00-\u9fffA-Za-z]{{1,4}}){END}"),
    _r("zh.kin_have", "@kin", "有一个 X (a kin word: 弟弟, 表妹)", "我有一个弟弟",
       rf"{A}有\s*(?:一个|一位|两个|个|一)?\s*(?P<v>(?P<kin>{REL_ALL_ZH})){END}", cardinality=None),
    # -- possessions and pets -------------------------------------------------------------------
    _r("zh.pet_named", "owns", "养了一只叫 Y 的 X", "我养了一只叫咪咪的猫",
       rf"{A}(?:养了?|有)\s*{_CL}\s*叫\s*(?P<n>[^，。的]{{1,6}})的\s*(?P<v>{_PETS}){END}"),
    _r("zh.pet", "owns", "养了/家里有 X (a pet by its name: 猫, 柯基…)", "我家里养了猫",
       rf"{A}{NEG}?(?:养了?|养着|家里?有|有|捡了|领养了|收养了|抱回来了|买了)\s*{_CL}\s*(?P<v>(?:[\u4e00-\u9fff]{{0,4}}(?:{_PETS})|{_PETS})){END}"),
    _r("zh.owns", "owns", "有/买了/开的是 (一辆/一台…) X (a vehicle, device, home…)", "我有一辆自行车",
       rf"{A}{NEG}?(?:有|买了|刚买了|入手了|拥有|开的是|开着|开)\s*(?:一|两|二|三)?\s*(?:辆|台|部|套|块|架|艘|把|个)\s*"
       rf"(?P<v>[^，。；,;！？!?]{{1,16}}?){END}"),
    _r("zh.owns_plain", "owns", "有/买了 + an ownable noun (车, 房子…)", "我有房子",
       rf"{A}{NEG}?(?:有|买了|刚买了|拥有)\s*(?P<v>(?:[^，。；,;\s]{{0,6}}){OWNABLE_ZH}){END}"),
    _r("zh.device_is", "owns", "我(用)的手机/车/电脑是 X", "我的手机是iPhone 15",
       rf"{A}(?:用的|在用的|手里的|现在的)?的?\s*(?:{DEVICE_ZH})\s*(?:是|用的是)\s*(?:一辆|一台|一部|一个)?\s*(?P<v>[^，。；,;！？!?]{{2,20}}?){END}"),
    _r("zh.device_used", "owns", "用的(手机/电脑/车)是 X (a device by brand: owns)", "我用的是iPhone 13",
       rf"{A}(?:手里|平时|现在|一直)?\s*(?:在)?用的\s*(?:{DEVICE_ZH})?\s*(?:是|就是)?\s*(?:还是)?\s*(?P<v>(?:{BRANDS_ZH})[^，。；,;！？!?]{{0,14}}?){END}"),
    _r("zh.item_used_bare", "uses", "X 用的 Y (a tool named right after 用的)", "店里进销存用的秦丝",
       rf"{A}(?:[\u4e00-\u9fff]{{0,6}})?用的\s*(?!是|最|比较|挺|很|不|多|少|还是)(?P<v>[\u4e00-\u9fffA-Za-z0-9]{{2,8}}){END}"),
    _r("zh.item_used", "uses", "(手里/家里)用的是 X (a product)", "我家里用的是戴森吸尘器",
       rf"{A}(?:手里|家里|里|手头|平时|现在|一直|日常)?\s*(?:在)?用的\s*(?:[\u4e00-\u9fff]{{1,5}})?\s*(?:是|就是)\s*(?P<v>[^，。；,;！？!?]{{2,20}}?){END}"),
    _r("zh.item_worn", "owns", "穿的/戴的/开的 X 是 Y (something worn or driven)", "我穿的运动鞋是斯凯奇GoWalk5",
       rf"{A}(?:平时|现在|一直)?\s*(?:穿的|戴的|开的|骑的|背的)\s*(?:[\u4e00-\u9fff]{{1,5}})?\s*(?:是|就是)\s*(?P<v>[^，。；,;！？!?]{{2,20}}?){END}"),
    _r("zh.visited_is", "visited", "(刚才)路过/去/参观的(那个)公园/景区… 是/叫 X", "我去的那个景区是海滨公园",
       rf"{A}(?:刚刚|刚才|今天|上次|之前)?\s*(?:去过|路过|经过|去|参观|逛|游览|到过|住过)(?:了)?的\s*(?:那个|那家|这个|这家|那座|那)?\s*"
       rf"(?:[\u4e00-\u9fff]{{1,4}})?\s*(?:是|叫|就是)\s*(?:一家|一个|一座)?\s*(?:专门的)?\s*(?P<v>[^，。；,;！？!?]{{2,16}}?){END}"),
    _r("zh.visited", "visited", "去了/路过了/参观了 X (参观/玩) — a place visited", "我去了民俗文化村参观",
       rf"{A}(?:刚刚|刚才|今天|上周|昨天)?\s*(?:去了|路过了|参观了|逛了|游览了|经过了)\s*(?P<v>[^，。；,;！？!?的]{{2,12}}?)\s*"
       rf"(?:那个|那家|这个)?(?:商场|公园|景区|医院)?\s*(?:参观|玩|游玩|逛逛?|看看|一趟|一圈)?{END}"),
    _r("zh.neighborhood", "neighborhood", "住的(那个)小区/楼盘叫 X", "我住的那个小区叫世纪花园",
       rf"{A}住的\s*(?:那个|这个)?\s*(?:小区|楼盘|社区|公寓|园区)\s*(?:是|叫)\s*(?P<v>[^，。；,;！？!?]{{2,12}}?){END}"),
    _r("zh.hometown", "hometown", "(的)老家/家乡/祖籍 是/在 X(的/人)", "我妈老家是河南新乡的",
       rf"{A}的?\s*(?:老家|家乡|故乡|祖籍)\s*(?:是|在)?\s*(?P<v>[\u4e00-\u9fff]{{2,10}}?)\s*(?:的|人|那边|那儿)?{END}"),
    _r("zh.birthday", "birthday", "(的)生日(是) M月D日 (a birthday)", "我生日十一月十二号",
       rf"{A}的?\s*生日\s*(?:是|在)?\s*(?P<v>(?:\d{{1,2}}|[一二三四五六七八九十]{{1,3}})\s*月\s*(?:\d{{1,2}}|[一二三四五六七八九十]{{1,3}})\s*[日号])"
       rf"(?:[，,\s].*)?$", on_text=True),
    _r("zh.native", "hometown", "是 X 人 (where the subject comes from)", "我表妹是北京人",
       rf"{A}是\s*(?P<v>[\u4e00-\u9fff]{{2,6}}?)人{END}"),
    _r("zh.shop", "owns", "开了一家 X (a shop or business)", "我舅舅在深圳开了一家餐厅",
       rf"{A}(?:在\s*[^，。；,;]{{1,8}}?)?(?:自己)?(?<!新)(?<!刚)开了\s*(?:一家|一个|一间|个|家)\s*(?P<v>[^，。；,;！？!?]{{1,12}}?){END}"),
    # -- quantities -----------------------------------------------------------------------------
    _r("zh.quantity", "@k", "身高/体重/预算/月薪/房租/鞋码 (是/有/大概) N (unit)", "我身高175厘米",
       rf"{A}(?:每个?月|一个月|每年)?\s*(?:的)?\s*(?P<k>{'|'.join(sorted(QUANTITY_ZH, key=len, reverse=True))})\s*(?:每个?月|一个月|每年)?\s*"
       rf"(?:现在|目前|大概|差不多)?\s*(?:是|有|为|在|大概是|达到了?|要还|要交|要付|还|交|付|:|：)?\s*{_HEDGE}(?:是|有)?\s*"
       rf"(?:每个?月|一个月)?\s*"
       rf"(?P<v>(?:一米)?{NUM_ZH}\s*(?:厘米|公分|cm|米|公斤|千克|kg|斤|码|号)?{_MONEY_UNIT}(?:左右|上下|多)?)\s*(?:以内|以下|之内|出头|封顶)?\s*(?:一个月|每月)?{END}",
       keys=QUANTITY_ZH, hedged=True),
    _r("zh.quantity_change", "@k", "预算/房租/月薪 提高到/涨到/降到 N", "预算提高到两万了",
       rf"{A}(?:的)?\s*(?P<k>{'|'.join(sorted(QUANTITY_ZH, key=len, reverse=True))})\s*(?:已经)?\s*(?:提高到|提高了到|涨到|涨到了|"
       rf"升到|降到|减到|变成|改成|调整为|调到|增加到|减少到)了?\s*(?P<v>{NUM_ZH}\s*{_MONEY_UNIT}(?:厘米|公斤|斤)?){END}",
       keys=QUANTITY_ZH, change=True),
    _r("zh.height_bare", "height", "身高 without 是 (我表妹身高164厘米 is covered by zh.quantity); 一米七", "我一米八",
       rf"{A}{_HEDGE}(?P<v>一米[一二三四五六七八九]{{1,2}}|1\.\d{{1,2}}米|1米\d{{1,2}}){END}", hedged=True),
    _r("zh.weight_bare", "weight", "N 斤/公斤 said alone (a weight)", "我一百零五斤",
       rf"{A}{_HEDGE}(?P<v>{NUM_ZH}\s*(?:斤|公斤|千克|kg))(?:左右|上下|出头)?{END}", hedged=True),
    _r("zh.shoe", "shoe_size", "穿 N 码的鞋 (a shoe size)", "我穿38的鞋",
       rf"{A}(?:穿|是)\s*(?P<v>\d{{2}}(?:\.5)?|[三四]十[一二三四五六七八九]?)\s*(?:码|号)?\s*(?:的)?\s*鞋{END}"),
    _r("zh.age", "age", "(今年/现在) N 岁", "我女儿今年七岁",
       rf"{A}(?:今年|现在|已经)?\s*{_HEDGE}(?P<v>(?:\d{{1,3}}|[一二三四五六七八九十两]{{1,3}})\s*(?:周)?岁(?:半|多)?)(?:了)?{END}",
       hedged=True, clean=_age),
    _r("zh.age_bare", "age", "今年 N 了 (an age said without 岁: 今年七十了)", "我婆婆今年七十了",
       rf"{A}(?:今年|都|已经)?\s*(?:都|已经)?\s*{_HEDGE}(?P<v>{_AGE_NUM})(?:了|多了|出头)\s*$",
       hedged=True, clean=lambda v: str(cn_int(v) or v), on_text=True),
    _r("zh.age_this_year", "age", "今年 N (an age: 我今年四十二)", "我今年四十二",
       rf"{A}今年\s*{_HEDGE}(?P<v>{_AGE_NUM})\s*$", hedged=True, clean=lambda v: str(cn_int(v) or v), on_text=True),
    _r("zh.weight_to", "weight", "瘦到/胖到/减到 N 公斤/斤 (weight, from then on)", "我现在瘦到了62公斤",
       rf"{A}(?:瘦到了?|胖到了?|减到了?|降到了?|涨到了?|长到了?)\s*(?P<v>{NUM_ZH}\s*(?:公斤|千克|kg|斤)){END}", change=True),
    # -- residence and work (any subject) -------------------------------------------------------
    _r("zh.lives", "lives_in", "住在/家在/定居在 X (…)", "我表哥住在成都",
       rf"{A}(?:一个人|自己|独自|单独|一直)?\s*{NEG}?(?:住在|居住在|生活在|定居在|定居|家住|家在|住(?![院宿手口了过的着]))\s*(?P<v>[\u4e00-\u9fffA-Za-z·]{{2,12}}?)\s*"
       rf"(?:[，,].*)?{END}"),
    _r("zh.lived_years", "lives_in", "在 X 住了 N 年", "我在杭州住了五年了",
       rf"{A}在\s*(?P<v>[\u4e00-\u9fffA-Za-z·]{{2,10}}?)\s*(?:住|生活|定居)了?\s*(?:[^，。]{{0,8}})?{END}"),
    _r("zh.moved", "lives_in", "搬到/搬去/搬回 X (a move: from then on)", "我表哥搬到重庆了",
       rf"{A}(?:(?:从|由)\s*[^，。]{{1,10}}?)?(?:搬家到|搬到了?|搬去了?|搬回了?|迁到|移居到?|嫁到了?|嫁去了?)\s*(?P<v>[\u4e00-\u9fffA-Za-z·]{{2,12}}?){END}",
       change=True),
    _r("zh.works", "@where", "在 X 工作/上班 (employer for an organisation, else works_in)", "我堂哥在武汉工作",
       rf"{A}在\s*(?P<v>[\u4e00-\u9fffA-Za-z·]{{2,10}}?)\s*(?:工作|上班|打工|干活|跑单|送外卖|兼职|实习|上夜班|值班){END}"),
    _r("zh.job", "job_title", "是/当/做 (一名) X (a job word)", "我姐姐是一名护士",
       rf"{A}(?:是|当了?|做了?|成了|转行做了?|转行当了?|改行做了?|升职(?:当了?|为|成了?)?|晋升为|升为|升任|被提拔为)\s*(?:在做|做|当|干)?\s*(?:一名|一个|一位|名|个)?\s*(?P<v>[^，。；,;！？!?]{{1,12}}?){END}",
       change=True),
    _r("zh.kin_named", "@kin", "我的 X 叫/姓/名叫 Y (X a kin word: the user's relation)", "我岳母姓刘",
       rf"{A}(?:叫做?|名叫|姓|的名字(?:是|叫))\s*(?P<v>[\u4e00-\u9fff]{{1,4}}|[A-Z][a-z]+){END}", to_user=True),
    # -- tools ----------------------------------------------------------------------------------
    _r("zh.switched", "uses", "从 A 换成/切换到/改用 B (B used, A retired)", "我从VS Code换成了Cursor",
       rf"{A}(?:从|由)\s*(?P<old>[^，。；,;]{{1,16}}?)\s*(?:换成了?|换到了?|切换到了?|切换成了?|转到了?|迁移到了?|改用了?|换用了?)\s*"
       rf"(?P<v>[^，。；,;！？!?]{{1,16}}?){END}", on_text=True, change=True),
    _r("zh.replaced", "uses", "把 X 换成了 Y (Y used)", "我把浏览器换成了Firefox",
       rf"{A}把\s*(?:[^，。；,;]{{1,12}}?)\s*(?:换成了?|改成了?|替换成了?)\s*(?P<v>[^，。；,;！？!?]{{1,16}}?){END}", change=True),
    _r("zh.replaced_with", "uses", "用 B 替换了/取代了 A (B used, A retired)", "我用飞书替换了钉钉",
       rf"{A}用\s*(?P<v>[^，。；,;]{{1,16}}?)\s*(?:替换了|替代了|换掉了|取代了)\s*(?P<old>[^，。；,;！？!?]{{1,16}}?){END}", change=True),
    _r("zh.start_using", "uses", "开始用/改用/在用 X (a product)", "我最近开始用Obsidian",
       rf"{A}{NEG}?(?:再)?(?:开始用|开始使用|改用|换用|在用|一直用|主要用|用)了?\s*(?P<v>[A-Za-z0-9][\w .+#\-]{{0,24}}?|{BRANDS_ZH}|飞书|钉钉|微信|"
       rf"企业微信|印象笔记|有道云笔记|语雀|石墨文档|腾讯文档|WPS)\s*(?:[\u4e00-\u9fff]{{2,6}})?{END}"),
    # -- attributes (last: the most general) ----------------------------------------------------
    _r("zh.attribute", "@attr", "的 Y 是 Z (Y names the predicate: 生日, 联系电话, 学历…)", "我上司的学历是硕士",
       rf"\s*的\s*(?P<k>(?![他她它我你])[\u4e00-\u9fff]{{2,6}}?)\s*(?:就|也|都|还|真的|真|其实|才)?\s*(?:是|为|叫)\s*(?:在)?\s*(?P<v>[\w.@+\-]{{6,64}}|[^，。；,;！？!?]{{1,24}}?){END}",
       importance=0.5, on_text=True),
    _r("zh.attribute_bare", "@attr", "(其/他) Y 是 Z about a third party (其教育背景是博士)", "张伟是我的表弟，其教育背景是博士",
       rf"\s*(?P<k>(?![他她它我你])[\u4e00-\u9fff]{{2,6}}?)(?<![就真])\s*(?:也|都|还|其实|才)?\s*(?:是|为|叫)\s*(?:在)?\s*(?P<v>[\w.@+\-]{{6,64}}|[^，。；,;！？!?]{{1,24}}?){END}",
       importance=0.5, third_party=True, on_text=True),
)

#: Every Chinese frame rule, in the order tried: life changes first (they say more than the base
#: rule would read from the same words), then the base table.
RULES: tuple[Rule, ...] = (*frames_zh_talk.FIRST, *frames_zh_life.RULES, *_BASE, *frames_zh_talk.LAST)
