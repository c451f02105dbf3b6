"""Chinese frame rules for how people say things in passing: amounts that move (瘦到一百三十八了,
房东涨到四千了), pets named as they are counted (养了只橘猫叫年糕), things given away (大黄送给我表姐了),
work said by its trade (做保险销售, 本人一枚小会计, 我开的士的), schools (在实验中学, 在幼儿园大班), partners
(跟周杰分了, 现在男朋友是阿豪), tools a team moved to (代码放GitLab上, 迁到GitHub了), and habits changed
without a verb of learning (现在改游泳了, 下班去撸铁).

``FIRST`` is tried before the life-change table (it reads forms a rule there would misread);
``LAST`` after the base table (it only fills what nothing else read).
"""

from __future__ import annotations

from hlmem.application.extraction.frames import Rule, rx
from hlmem.application.extraction.frames_zh_life import APPS, A, END, WORD
from hlmem.application.extraction.lexicon import CITIES_ZH as CITIES
from hlmem.application.extraction.lexicon import NUM_ZH, ORG_NAMES_ZH, ORG_ZH, PETS_ZH
from hlmem.application.extraction.subjects import REL_ALL_ZH
from hlmem.domain.events import Scope

#: 咗 is Cantonese for 了.
_LE = r"(?:了|咗)"
_END = END
_NAME = r"[\u4e00-\u9fffA-Za-z]{1,4}?"
_TOOL = r"[A-Za-z][\w.+#\-]*(?:\s+[A-Z][\w.+#\-]*)?"
#: A school, by the words its name ends in.
_SCHOOL = r"[\u4e00-\u9fffA-Za-z]{1,10}?(?:小学|中学|大学|学院|幼儿园|高中|初中|[一二三四五六七八九十]中|附中|附小|实验学校|学校)"
_GRADE = r"(?:幼儿园|小学|初中|高中)?\s*(?:大班|中班|小班|托班|学前班|[一二三四五六]年级|初[一二三]|高[一二三])"


def _r(name: str, slot: str, what: str, example: str, pattern: str, **kw: object) -> Rule:
    return Rule(name=name, lang="zh", slot=slot, what=what, example=example, regex=rx(pattern), **kw)  # type: ignore[arg-type]


FIRST: tuple[Rule, ...] = (
    _r("zh.retired_short", "job_title", "我妈上个月退了 (a relative retired: 退了 said of a person)", "我妈上个月退了",
       rf"{A}(?:也|刚|正式)?(?P<v>退)了(?:[，,].*)?{_END}", third_party=True, change=True, check="habit", also=("employer",),
       clean=lambda v: "退休"),
    _r("zh.moved_data_to", "uses", "把笔记全搬到 Notion 了 (a tool one moved one's things to, from then on)", "把笔记全搬到Notion了",
       rf"{A}(?:把|将)?\s*(?:笔记|文件|数据|文档|照片|代码|任务|资料|东西|待办|日程|账本|记账)\s*(?:全|都|全部|统一)?\s*(?:搬|迁|转|导|挪|同步)(?:到|去|进)了?\s*"
       rf"(?P<v>{_TOOL}|{APPS})\s*(?:上|里)?{_LE}?(?:[，,].*)?{_END}", change=True, on_text=True),
    _r("zh.bought_home_in", "owns", "在 X (那边) 买了套房/小三居 (owns it, and lives there)", "在燕郊买了套小三居",
       rf"{A}(?:还是|最后|是)?\s*在\s*(?P<place>[\u4e00-\u9fff]{{2,6}}?)\s*(?:这边|那边)?\s*(?:买|全款买|贷款买)了\s*(?:个|套|间|一套|一个|一间)?\s*"
       rf"(?P<v>(?:小|大)?(?:房子|房|两居|三居|一居|三居室|两居室|一室一厅|两室一厅|三室一厅|公寓|别墅|复式|loft))(?:[，,].*)?{_END}",
       change=True, place_slot="lives_in"),
    _r("zh.rents_in", "lives_in", "在 X (这边) 租/买了(套)房子/两居 (lives there)", "在顺义租了个两居",
       rf"{A}(?:还是|最后|是)?\s*在\s*(?P<v>[\u4e00-\u9fff]{{2,6}}?)\s*(?:这边|那边)?\s*(?:租|买|看中)(?:的|了)?\s*(?:个|套|间|一套|一个|一间)?\s*"
       rf"(?:小|大)?(?:房子|房|两居|三居|一居|小三居|一室一厅|两室一厅|三室一厅|公寓|单间|别墅|复式|loft)[^，。；,;！？!?]{{0,12}}?(?:[，,].*)?{_END}",
       change=True),
    _r("zh.topic_stopped_act", "habit", "跑步/羽毛球 (我)早就不跑/不打了 (the activity first: habit, negated)", "跑步早就不跑了",
       rf"\s*(?P<v>(?!{APPS}|{ORG_NAMES_ZH}|{ORG_ZH}\s*(?:我|我们)?\s*(?:早就|已经)?\s*不){WORD}{{1,6}}?)\s*(?:我|我们)?{A}(?:早就|好久)?(?:不|没)(?:再)?\s*(?:跑|打|踢|游|练|弹|跳|骑|爬|滑|下|玩)了"
       rf"(?:[，,].*)?{END}", polarity=False, change=True, also=("hobby",)),
    _r("zh.rent_raised", "rent", "房东/房租 涨到/降到 N (rent, from then on)", "房东涨到四千了",
       rf"{A}(?:房东|房租|租金|房子)\s*(?:又|已经|终于|突然)?\s*(?:涨|加|提|降|减)(?:价)?(?:到|至|成)了?\s*"
       rf"(?P<v>{NUM_ZH}\s*(?:元|块钱|块|万|千)?)(?:一个月|每月)?(?:[，,].*)?{_END}", change=True),
    _r("zh.given_away", "owns", "X 送给/送人/转出去/卖给 … 了 (the thing or pet first: owns, negated)", "大黄送给我表姐了",
       rf"\s*(?P<v>(?![我你他她它这那])[\u4e00-\u9fffA-Za-z0-9]{{2,8}}?)\s*(?:已经|早就)?\s*(?:送给(?:了)?{WORD}{{1,6}}?|送人|"
       rf"卖给(?:了)?{WORD}{{1,6}}?|送回(?:了)?{WORD}{{0,4}}?(?:给|让)?{WORD}{{0,6}}?养|转出去|转让出去|转手|盘出去|卖掉){_LE}(?:[，,].*)?{_END}",
       polarity=False, change=True),
    _r("zh.broke_up_with", "partner", "跟 X 分了/掰了/吹了 (partner, negated)", "跟周杰分了",
       rf"{A}(?:和|跟|与)\s*(?P<v>{_NAME})\s*(?:分了|掰了|吹了|离了)(?:[。.…]*)(?:[，,].*)?{_END}",
       polarity=False, change=True),
    _r("zh.pet_counted_named", "owns", "养了只橘猫叫年糕 (a pet counted and named at once)", "家里养了只橘猫叫年糕",
       rf"{A}(?:还)?(?:养了?|养着|有|捡了|领养了|收养了)\s*(?:[一两二三四五六七八九几]\s*)?[只条头匹尾]\s*"
       rf"(?P<v>[\u4e00-\u9fff]{{1,4}}?)\s*(?:叫做?|名叫|取名叫?)\s*(?P<n>{_NAME})(?:[，,].*)?{END}"),
    _r("zh.partner_now", "partner", "(现在的)男朋友/女朋友/对象 是/叫 X (a partner, from then on)", "现在男朋友是阿豪",
       rf"{A}(?:现在的?|新的?)?\s*(?:男朋友|女朋友|男友|女友|对象)\s*(?:是|叫)\s*(?P<v>{_NAME})(?:[，,].*)?{_END}",
       change=True, opening=True),
)

LAST: tuple[Rule, ...] = (
    _r("zh.drives_now", "job_title", "现在开网约车 / 跑滴滴 / 送外卖 (a job said by its verb, from then on)", "现在开网约车，主要跑滴滴",
       rf"\s*(?:我(?:的|家)?(?:{REL_ALL_ZH})?)?{A}(?:主要|改|在|也)?\s*(?P<v>(?:开|跑|送)\s*(?:网约车|滴滴|出租车?|的士|外卖|快递|货车|大车|货拉拉|美团|顺风车))(?!\s*的)(?:了)?(?:[，,].*)?{_END}",
       change=True, check="habit", opening=True),
    _r("zh.rent_of_place", "rent", "单间/开间/一室一厅 一个月 N (the rent of where one lives)", "城中村这个单间一个月2200",
       rf".*?(?:单间|开间|一室一厅|两室一厅|一居室|两居|房子|房间|主卧|次卧)[^，,。0-9]{{0,6}}?(?:一个月|每个?月|月租)\s*(?P<v>{NUM_ZH}\s*(?:元|块钱|块)?)"
       rf"(?:[，,].*)?{_END}", opening=True, on_text=True),
    _r("zh.flared_up", "health_condition", "腰椎间盘突出犯了 / 胃炎又犯了 (a condition flaring up)", "腰椎间盘突出犯了",
       rf"{A}(?:我的?)?(?P<v>[\u4e00-\u9fff]{{1,8}}?(?:突出|炎|病|痛|疼|哮喘|过敏|结石|痛风|湿疹))\s*(?:又|老毛病)?\s*(?:犯了|复发了|发作了)"
       rf"(?:[，,].*)?{_END}", hedged=True),
    _r("zh.weighed", "weight", "(今天)称了 65公斤 (a weight)", "今天称了65公斤",
       rf"{A}(?:早上|今天|刚才|刚刚)?\s*(?:称了(?:一下|下)?|称出来|上秤)\s*(?:是|有)?\s*(?P<v>{NUM_ZH}\s*(?:公斤|千克|kg|斤))(?:了)?(?:[，,].*)?{_END}",
       change=True),
    _r("zh.uses_latin", "uses", "(剪视频)都用 Premiere 了 / 笔记都用 Obsidian (a tool by its Latin name)", "我现在剪视频都用Premiere了",
       rf"{A}(?:[\u4e00-\u9fff]{{1,4}}?)?\s*(?:都|全|全都|主要|一直)?\s*(?:在用|改用|用的是|用)\s*(?P<v>[A-Za-z][\w.+#\-]*(?:\s+[A-Z0-9][\w.+#\-]*)?|{APPS})"
       rf"\s*(?:了|啦)?(?:[，,].*)?{_END}", on_text=True, change=True),
    _r("zh.went_back_city", "lives_in", "辞职回长沙了 / 搬回成都了 (lives there, from then on)", "我辞职回长沙了",
       rf"{A}(?:辞职|辞了职|离职|搬家|搬|已经|又)?\s*回(?:到)?(?:了)?\s*(?P<v>{CITIES})\s*(?:了|来了|去了|发展了|定居了)(?:[，,].*)?{_END}",
       change=True),
    _r("zh.reported_to", "employer", "去字节报到了 / 入职了 (an employer, from then on)", "昨天去字节报到了",
       rf"{A}(?:正式)?(?:去|到)\s*(?P<v>{ORG_NAMES_ZH}|{ORG_ZH}|[\u4e00-\u9fffA-Za-z]{{2,6}}?)\s*(?:报到|入职)了(?:[，,].*)?{_END}",
       change=True),
    _r("zh.weight_moved", "weight", "瘦到/胖回/减到 N(斤) (a weight, from then on)", "瘦到一百三十八了",
       rf"{A}(?:(?:过年|过节|春节|放假|假期|国庆|暑假|寒假|这个月|这半年|生完孩子|生完)(?:后|以后|期间)?)?\s*(?:又|终于)?\s*(?:瘦|胖|减|掉|反弹)(?:到|回|回到|至)了?\s*(?P<v>{NUM_ZH}\s*(?:斤|公斤|千克|kg)?)"
       rf"(?:左右|多)?(?:[，,].*)?{_END}", change=True),
    _r("zh.brought_kin", "lives_in", "把我爸接到北京来了 (the one brought lives there, from then on)", "把我爸接到北京来了",
       rf"{A}(?:把|将)\s*(?:我|我们)?(?:的|家)?(?P<okin>{REL_ALL_ZH})\s*(?:接到|接去|接来|送到|送回|送去|搬到)了?\s*"
       rf"(?P<v>[\u4e00-\u9fff]{{2,6}}?)\s*(?:来|去)?\s*(?:住|养老|生活|定居)?{_LE}?(?:[，,].*)?{_END}", change=True),
    _r("zh.home_town_in", "lives_in", "(还)在 哈尔滨老家 (lives there, in the home town)", "我妈还在湛江老家",
       rf"{A}(?:都|还|一直)?在\s*(?P<v>[\u4e00-\u9fff]{{2,5}}?)\s*老家(?:住|待着|呢|那边)?(?:[，,].*)?{_END}"),
    _r("zh.work_site", "works_in", "在工地/厂里 干活/打工 (where one works)", "我哥在码头搬砖",
       rf"{A}在\s*(?P<v>[\u4e00-\u9fff]{{0,8}}?(?:工地|厂|厂里|车间|店里|餐馆|饭店|工厂|矿上|码头|仓库|物流园))\s*(?:干活|打工|上班|做事|搬砖)"
       rf"(?:[，,].*)?{_END}", check="habit"),
    _r("zh.went_to_farm", "job_title", "回老家种地去了 / 务农 (a trade, from then on)", "回老家种地去了",
       rf"{A}(?:回(?:了|到)?(?:老家|农村|村里)\s*)?(?P<v>种地|种田|务农|养猪|养鸡|养鱼|种果树|摆摊|开店|开网店|跑运输|跑车)(?:去)?{_LE}?"
       rf"(?:[，,].*)?{_END}", change=True, check="habit", opening=True),
    _r("zh.home_pet", "owns", "家里(就)一只猫 (a pet counted at home)", "家里就一只猫",
       rf"\s*(?:我们)?(?:家里|家|我家)\s*(?:就|只|还)?\s*(?:有|养了?|养着)?\s*[一两二三四五六七八九几]\s*[只条头匹尾]\s*"
       rf"(?P<v>{'|'.join(sorted(PETS_ZH, key=len, reverse=True))}){END}"),
    _r("zh.found_pet", "owns", "在楼下捡了只小狗 (a pet found or adopted somewhere)", "前两天在楼下捡了只小狗",
       rf"{A}在\s*[\u4e00-\u9fff]{{1,6}}?(?:捡了|领养了|收养了|买了|抱了)\s*(?:[一两]\s*)?[只条]\s*"
       rf"(?P<v>{'|'.join(sorted(PETS_ZH, key=len, reverse=True))}){END}", change=True),
    _r("zh.phone", "phone", "电话/手机号(是/换成) 138… (a mobile number)", "有事直接打我电话 13812345678",
       rf"^[^，。；,;！？!?]*?(?:电话|手机|号码|号|新的)[^0-9，。；,;！？!?]{{0,6}}?(?P<v>1[3-9]\d{{9}})(?!\d)(?:[，,].*)?{END}", opening=True,
       on_text=True),
    _r("zh.side_gig", "job_title", "接(一些)翻译的活儿 (a trade said by the work one takes)", "接一些翻译的活儿",
       rf"{A}(?:主要)?接\s*(?:一些|点|些|一点)?\s*(?P<v>{WORD}{{2,4}}?)\s*的?\s*(?:活儿|活|单子|项目|私活)(?:[，,].*)?{END}", opening=True),
    _r("zh.on_leave", "status", "在休病假/产假 (a state for now)", "最近在休病假",
       rf"{A}(?:在|正在)?\s*休\s*(?P<v>病假|产假|陪产假|年假|婚假|长假|育儿假)(?:呢)?(?:[，,].*)?{END}", scope=Scope.TEMPORAL),
    _r("zh.bare_job", "job_title", "…，柜员，… (a bare job word continuing a third party)", "我对象在银行上班，柜员",
       rf"\s*(?P<v>{WORD}{{2,6}})\s*$", third_party=True),
    _r("zh.stack", "uses", "(项目)用的 Spring Boot / 数据库是 MySQL (a tool by name)", "我们项目用的Spring Boot",
       rf"{A}(?:项目|公司|团队|组里|后端|前端)?\s*(?:(?:数据库|框架|后端|前端|语言|缓存|编辑器|IDE|服务器|系统)(?:用的)?\s*是|用的是?|用的都是)\s*"
       rf"(?P<v>[A-Za-z][\w.+#\-]*(?:\s+[A-Z][\w.+#\-]*)?)(?:\s*\d[\d.]*)?(?:[，,].*)?{END}", on_text=True, check="owns"),
    _r("zh.trade", "job_title", "(现在)做保险销售/做金融 (a trade one works in)", "做保险销售",
       rf"{A}(?:(?:跟|和|同)(?:我)?(?:老公|老婆|朋友|家里人|爸妈|对象)(?:一起)?)?(?:在|是)?\s*(?:做|干|搞)\s*(?P<v>{WORD}{{2,6}}?)(?:工作|行业|这行|这块)?(?:[，,].*)?{_END}", change=True,
       opening=True),
    _r("zh.one_of", "job_title", "(本人)一枚/一名 小会计 (a job said by a count word)", "本人一枚小会计",
       rf"{A}(?:是)?\s*一(?:枚|名|个|位|只)\s*(?:小|普通的?|苦逼的?|光荣的|资深的?)?\s*(?P<v>{WORD}{{1,6}}?){END}"),
    _r("zh.runs_shop", "owns", "(在X)开奶茶店(的) (a shop one runs)", "我在深圳开奶茶店的",
       rf"{A}(?:在\s*[^，。；,;]{{1,8}}?)?(?:自己)?(?<!新)(?<!刚)开(?:了)?\s*(?:一家|一个|一间|个|家)?\s*(?P<v>[\u4e00-\u9fff]{{1,8}}?(?:店|馆|厂|铺|摊|工作室))"
       rf"(?:[，,].*)?{END}"),
    _r("zh.drives_for_living", "job_title", "开的士/开出租/跑滴滴 的 (a job said by its verb, without 是)", "我开的士的",
       rf"{A}(?P<v>(?:开|跑)\s*(?:的士|出租车?|网约车|滴滴|货车|大车|公交|卡车|快递|外卖))\s*的(?:[，,].*)?{_END}", check="habit"),
    _r("zh.at_school", "education", "在 X小学/中学 (上学) (where one studies)", "在实验中学",
       rf"{A}(?:本科|研究生|硕士|博士|大学|高中|初中)?\s*在\s*(?:附近的|家门口的|隔壁的)?\s*(?P<v>{_SCHOOL})\s*"
       rf"(?:上学|读书|念书|上|读|念)?(?:的)?(?:[，,].*)?{_END}"),
    _r("zh.in_grade", "education", "在幼儿园大班 / 在读初二 (a school year)", "我闺女在幼儿园大班",
       rf"{A}在(?:读|上)?\s*(?P<v>{_GRADE}){_END}"),
    _r("zh.code_on", "uses", "代码放/存在 GitLab 上 (a tool a team keeps things on)", "我们组代码放GitLab上",
       rf"{A}(?:代码|文档|文件|项目|资料|数据|照片|笔记|任务|需求)?\s*(?:都|全)?\s*(?:放|存|托管|记|管理|写)(?:在)?\s*"
       rf"(?P<v>{_TOOL})\s*(?:上|里)(?:面)?(?:[，,].*)?{_END}", on_text=True),
    _r("zh.moved_to_tool", "uses", "(公司)统一迁到/换到 GitHub 了 (a tool, from then on)", "公司统一迁到GitHub了",
       rf"{A}(?:公司|团队|我们|组里|项目)?\s*(?:统一|全部|都|已经)*\s*(?:迁到|迁移到|搬到|切到|换到|转到)了?\s*"
       rf"(?P<v>{_TOOL}|{APPS})\s*(?:上|里)?{_LE}?(?:[，,].*)?{_END}", change=True, on_text=True),
    _r("zh.changed_bare", "habit", "(现在)改游泳了 (a habit taken over from another, from then on)", "现在改游泳了",
       rf"{A}改\s*(?P<v>(?!成|为|天|日|变|善|掉|了|口|名|期|版|主意)[\u4e00-\u9fff]{{2,6}}?){_LE}(?:[，,].*)?{_END}",
       change=True, also=("hobby",)),
    _r("zh.after_work", "habit", "下班/放学/周末 (就)去 X (a habit)", "现在下班去撸铁",
       rf"(?![^，,]*了)(?![^，,]*过)"
       rf"{A}(?P<v>(?:(?:下班|放学|下课|周末|晚饭|退休|吃完饭|没事)(?:后|以后|之后)?\s*(?:就|都|会|天天|每天|经常|常|一般|通常)*|"
       rf"(?:一般|通常|经常|平时)\s*(?:都|会)?)\s*去\s*{WORD}{{1,8}}?)"
       rf"(?:[，,].*)?{_END}",
       on_text=True, also=("hobby",)),
)
