"""Chinese frame rules for changes in a life: leaving a job, stopping a habit, selling a thing, a
new job or class, and the everyday ways people say what they do, study, speak and are.

Tried before the base table (:mod:`.frames_zh`): each says more than the general rule would read
from the same words ("我上个月把车卖了" is no possession, "钢琴课我已经不上了" is a habit ending).
A reversal is a claim with polarity false (the domain retires the values it covers, ADR 0041);
a change (换了, 改成, 跳槽) is marked so it replaces what it took over from (ADR 0059).
"""

from __future__ import annotations

from hlmem.application.extraction.frames import Rule, rx
from hlmem.application.extraction.lexicon import CITIES_ZH as CITIES
from hlmem.application.extraction.lexicon import ORG_NAMED_ZH as ORG_NAMED
from hlmem.application.extraction.lexicon import ORG_ZH as ORG
from hlmem.application.extraction.lexicon import OWNABLE_ZH, PET_SUFFIX_ZH, PETS_ZH
from hlmem.application.extraction.subjects import REL_ALL_ZH
import re

from hlmem.domain.events import Scope

A = (r"(?:\s*(?:现在|而家|目前|如今|已经|已|也|都|还|又|一直|其实|最近|刚刚|刚|就|才|早就|终于|后来|所以|然后|但是|不过|这几天|这两天|"
     r"这段时间|这阵子|最近几天|前两天|前几天|前阵子|这两周|这几周|这周|偷偷|家里|干脆|咬咬牙|总算|好不容易)\s*)*\s*")
END = r"\s*(?:好几年|好多年|[一二三四五六七八九十两几多半]+(?:个)?(?:年|月|星期|周|天)(?:多)?|很久|好久|多年|几十年)?\s*(?:了|咗|啦|呢|哦|呀|啊|吧|哈+|的|嘅|嘛|呗|哟)*\s*$"
WORD = r"[\u4e00-\u9fffA-Za-z0-9·]"
#: Verbs of an activity one keeps up or stops (上课, 学琴, 打球…).
#: Apps people name by name (刷小红书, 玩抖音).
APPS = (r"(?:小红书|b站|B站|哔哩哔哩|抖音|快手|微博|知乎|豆瓣|淘宝|拼多多|京东|微信|QQ|今日头条|头条|网易云|喜马拉雅|得到|Keep|keep|"
        r"大众点评|美团|饿了么|支付宝|闲鱼|视频号|百度|虎扑|贴吧|得物|携程|高德|滴滴|钉钉|飞书|企业微信|WPS|夸克|樊登读书|微信读书|"
        r"印象笔记|有道云笔记|语雀|石墨文档|腾讯文档|随手记|剪映|坚果云|百度网盘|滴答清单)")
_NOW_ZH = re.compile(r"现在|目前|如今")
ACT = r"(?:上|学|练|打|踢|玩|跑|弹|跳|游|追|看|去|参加|做|下|骑|拉|画|写|唱|考|刷)"
_PETS = "|".join(sorted(PETS_ZH, key=len, reverse=True))
_HAVE_NOT = (rf"(?:驾照|驾驶证|车|汽车|房|房子|电脑|手机|存款|护照|信用卡|医保|社保|{OWNABLE_ZH}|{_PETS}|"
             rf"[\u4e00-\u9fff]{{0,3}}(?:{PET_SUFFIX_ZH}))")


def _r(name: str, slot: str, what: str, example: str, pattern: str, **kw: object) -> Rule:
    return Rule(name=name, lang="zh", slot=slot, what=what, example=example, regex=rx(pattern), **kw)  # type: ignore[arg-type]


RULES: tuple[Rule, ...] = (
    _r("zh.dislikes", "dislikes", "讨厌/受不了/接受不了 X (dislikes; likes no more)", "我特别讨厌香菜",
       rf"{A}(?:是|真的|特别|超|超级|最|很|非常|实在)*\s*(?:讨厌|受不了|反感|接受不了|吃不了|闻不了|怕|(?<=最)烦)\s*(?P<v>(?![你他她它这那])"
       rf"{WORD}{{1,8}}?){END}", also_not=("likes",)),
    _r("zh.topic_dislikes", "dislikes", "X 我(是真的)不行/受不了 (the object first: dislikes)", "香菜我是真的不行",
       rf"\s*(?P<v>{WORD}{{1,8}}?)\s*(?:我|我们)\s*(?:是|真的|实在|一直|从来)*\s*(?:不行|受不了|接受不了|吃不了|闻不了|讨厌|不喜欢|"
       rf"不感冒|不爱吃|不能吃)(?:[，,].*)?{END}", also_not=("likes",)),
    # -- work: leaving, joining, retiring, what one does ----------------------------------------
    _r("zh.left_job", "employer", "从/在 X 离职/辞职了, 离开了 X (employer, negated)", "我从腾讯离职了",
       rf"{A}(?:从|在)\s*(?P<v>{WORD}{{2,12}}?)\s*(?:离职|辞职|辞了职|裸辞)了?{END}", polarity=False, change=True),
    _r("zh.not_there", "employer", "不在 X 上班/工作了 (employer, negated)", "我已经不在字节上班了",
       rf"{A}(?:不在|没在)\s*(?P<v>{WORD}{{2,12}}?)\s*(?:上班|工作|干|做)了{END}", polarity=False, change=True),
    _r("zh.left_org", "employer", "离开了/辞掉了 X(的工作) (employer, negated)", "我离开了阿里",
       rf"{A}(?:离开了|辞掉了?|辞了)\s*(?P<v>{ORG})\s*(?:的工作)?{END}", polarity=False, change=True),
    _r("zh.retired_before", "job_title", "退休前… (retired now; what came before is history)", "我退休前在县一中教语文",
       rf"{A}(?P<v>退休)(?:前|以前|之前).*$", change=True, check="habit"),
    _r("zh.retired", "job_title", "退休了 (the job is now 退休)", "我爸去年退休了",
       rf"{A}(?:办了)?\s*(?P<v>退休)(?:好几年|好多年|[一二三四五六七八九十两几]+年|多年|很久|半年)?了?{END}", change=True, check="habit"),
    _r("zh.lost_job", "job_title", "辞职了/失业了/被裁了 (no job now: no employer either)", "我辞职了",
       rf"{A}(?P<v>辞职|离职|裸辞|失业|被裁|被辞退|下岗|待业)了?{END}", change=True, check="habit", also=("employer",)),
    _r("zh.company_named", "employer", "公司/单位/店 叫 X (the employer's name)", "公司叫星禾",
       rf"{A}(?:我们|我的)?(?:公司|单位|店|工作室|老东家)(?:名|名字)?(?:叫做?|名叫|是)\s*(?P<v>{WORD}{{2,10}}?){END}"),
    _r("zh.deliver_for", "employer", "给 (一家) X 送货/打工 (an employer)", "现在给一个生鲜店送货",
       rf"{A}给\s*(?:一家|一个|家|个)?\s*(?P<v>{ORG}|{WORD}{{2,8}}?(?:店|厂|公司|超市|餐厅|饭店))\s*(?:送货|送外卖|打工|干活|上班|开车|做事|跑腿|当\w+)"
       rf"(?:[，,].*)?{END}", change=True),
    _r("zh.topic_quit", "employer", "X 辞了/不干了 (the employer first: negated)", "富士康辞了",
       rf"\s*(?P<v>{ORG}|{WORD}{{2,8}}?)\s*(?:我|也)?\s*(?:辞了|不干了|不做了|离职了|不跑了|辞职了)(?:[，,].*)?{END}",
       polarity=False, change=True),
    _r("zh.transferred", "works_in", "调到/调去 X (a department or place, from then on)", "终于调到门诊了",
       rf"{A}(?:要|就|终于)?调(?:到|去)了?\s*(?P<v>{WORD}{{2,8}}?){END}", change=True, check="habit"),
    _r("zh.now_in", "lives_in", "(现在/目前) 在 X (a city: where one is now)", "我现在在南京",
       rf"{A}(?:人)?在\s*(?P<v>{CITIES}|[\u4e00-\u9fff]{{1,6}}(?:市|省|县|州))(?:呢)?{END}", change=True, when=_NOW_ZH),
    _r("zh.arrived", "lives_in", "到 X 快一个月了 (lives there since)", "到上海快一个月了",
       rf"{A}(?:来|到)\s*(?P<v>[\u4e00-\u9fff]{{2,6}}?)\s*(?:快|已经|都)?(?:一|两|三|几|半|十几)?个?(?:月|年|星期|周)(?:多)?了{END}", change=True),
    _r("zh.drifting", "lives_in", "在 X 漂/待/混 了 N 年 (lives there)", "在北京漂了八年了",
       rf"{A}在\s*(?P<v>[\u4e00-\u9fff]{{2,6}}?)\s*(?:漂|待|呆|混|奋斗)了?{END}"),
    _r("zh.joined", "employer", "跳槽到/去了/入职了 (一家) X (an organisation, from then on)", "我老公跳槽去了一家国企",
       rf"{A}(?:跳槽(?:到了?|去了?|进了?)|入职了?|加入了?|进了|去了|换到了?)\s*(?:一家|一个|家)?\s*(?P<v>{ORG})\s*(?:工作|上班)?"
       rf"(?:[，,].*)?{END}", change=True),
    _r("zh.job_do", "job_title", "是做/干 X 的 (a job said by what one does)", "我是做财务的",
       rf"{A}(?:是)?\s*(?:做|干|搞)\s*(?P<v>{WORD}{{1,8}}?)\s*(?:工作|行业|这行)?的{END}", check="habit"),
    _r("zh.job_verb", "job_title", "是开出租车/教书/卖保险的 (a job said by its verb)", "我爸是开出租车的",
       rf"{A}是\s*(?P<v>(?:开|跑|教|卖|修|送|带|写|画|唱|演|拍|种|养|看)\s*{WORD}{{1,6}}?)\s*的{END}", check="habit"),
    _r("zh.works_as", "job_title", "在 X 做/当/担任 Y (the job, and the employer or place)", "我老公在外企做财务",
       rf"{A}在\s*(?P<org>{WORD}{{2,12}}?)\s*(?:做|当|担任|任|干)\s*(?P<v>{WORD}{{1,8}}?){END}"),
    _r("zh.works_as_org", "job_title", "在 (一家) 公司/银行 做 Y (an organisation: any job word)", "我在一家外贸公司做跟单",
       rf"{A}在\s*(?:一家|一个|家)?\s*(?P<org>{ORG})\s*(?:做|当|担任|任|干)\s*(?P<v>{WORD}{{1,6}}?)(?:[，,].*)?{END}", check="habit"),
    _r("zh.at_org", "employer", "(现在)在 X (a company by name or suffix)", "现在在京东",
       rf"{A}在\s*(?P<v>{ORG_NAMED}){END}", change=True),
    _r("zh.went_back_work", "works_in", "回(到)老家/X 发展/工作了 (works there from then on)", "我回老家成都发展了",
       rf"{A}(?:又)?回(?:到|了)?\s*(?:老家)?\s*(?P<v>[\u4e00-\u9fff]{{2,8}}?)\s*(?:发展|工作|上班|找工作|创业|找了份工作|找了个工作|找到工作|"
       rf"找到了工作|上班了)了?{END}", change=True),
    _r("zh.went_back", "lives_in", "(上个月)回了/回到了 X (back home there, from then on)", "上个月回了成都",
       rf"{A}(?:又)?回(?:到)?了\s*(?:老家)?\s*(?P<v>[\u4e00-\u9fff]{{2,6}}?)(?!一趟|趟|看|玩|过)\s*了?{END}", change=True),
    _r("zh.went_back_live", "lives_in", "回(到)老家/X 定居/生活了 (lives there from then on)", "我爸妈回老家长沙定居了",
       rf"{A}(?:又)?回(?:到|了)?\s*(?:老家)?\s*(?P<v>[\u4e00-\u9fff]{{2,8}}?)\s*(?:定居|生活|养老|住)了?{END}", change=True),
    # -- study ----------------------------------------------------------------------------------
    _r("zh.grade", "education", "上/读 小学一年级/初二/大三 (a school year)", "我儿子今年上小学一年级了",
       rf"{A}(?:在)?(?:上|读|念)\s*(?P<v>(?:小学|初中|高中|大学|幼儿园|中学)?(?:[一二三四五六]年级)|小学|初中|高中|幼儿园|托班|小班|中班|大班|学前班|"
       rf"初[一二三]|高[一二三]|大[一二三四]|研[一二三]|博[一二三四]){END}"),
    _r("zh.major", "education", "学 X 的 / 学的 X (the subject one studies)", "我学护理的",
       rf"{A}(?:是)?学(?=[^，,]*的)(?![历校位生费期院习])(?:的)?\s*(?P<v>{WORD}{{2,6}}?)(?:专业)?(?:的)?{END}"),
    _r("zh.grade_bare", "education", "大三 / 研二 said alone (the school year)", "大三",
       rf"{A}(?P<v>大[一二三四]|研[一二三]|高[一二三]|初[一二三]|博[一二三四五])(?:了)?{END}"),
    _r("zh.studies_in_city", "lives_in", "在 (城市) 读书/上大学 (lives there)", "我在广州读书",
       rf"{A}在\s*(?P<v>{CITIES})\s*(?:读书|读大学|上大学|读研|念书|上学|读博)(?:[，,].*)?{END}"),
    _r("zh.studies_at", "education", "在 X 读大三/读研/上大学 (where one studies)", "我在复旦读大三",
       rf"{A}在\s*(?P<v>{WORD}{{2,12}}?)\s*(?:读|上|念)(?:大[一二三四]|研[一二三]?|博士?|高[一二三]|初[一二三]|书|大学|研究生|本科|"
       rf"高中|初中|小学|中学|幼儿园|MBA)(?:[，,].*)?{END}"),
    _r("zh.admitted", "education", "考上了/被 X 录取了 (a school, from then on)", "我女儿考上了浙大",
       rf"{A}(?:考上了|考进了|考取了|被)\s*(?P<v>{WORD}{{2,12}}?)\s*(?:录取了?)?{END}", change=True),
    _r("zh.preparing", "plan", "(在)准备/备考 考研/考公/雅思 (what one is busy with for now)", "现在在准备考研",
       rf"{A}(?:在|正在)?\s*(?:准备|备考|复习|准备考)\s*(?P<v>考研|考公|考编|雅思|托福|高考|中考|司法考试|法考|CPA|注会|GRE|GMAT|"
       rf"教资|{WORD}{{1,4}}考试)(?:呢)?{END}", scope=Scope.TEMPORAL),
    # -- language, relationship, temporary states ----------------------------------------------
    _r("zh.topic_speaks", "speaks", "X 我会说/会讲 (the language first)", "粤语我会说",
       rf"\s*(?P<v>[\u4e00-\u9fff]{{1,4}}?(?:语|话|文))\s*(?:我|我们)\s*(?:也)?(?:会说|会讲|能说|会|懂|能听懂|说得挺好)(?:[，,].*)?{END}"),
    _r("zh.taking", "status", "在考 驾照/雅思 (what one is busy with for now)", "在考驾照呢",
       rf"{A}(?:在|正在)\s*(?:考|学|备考)\s*(?P<v>驾照|驾驶证|雅思|托福|研|公|编|教资|{WORD}{{1,4}}证)(?:呢)?{END}", scope=Scope.TEMPORAL),
    _r("zh.shift", "habit", "三班倒 / 上夜班 / 朝九晚五 (a work schedule)", "我现在三班倒",
       rf"{A}(?:是|上)?\s*(?P<v>三班倒|两班倒|倒班|夜班|白班|长白班|朝九晚五|朝八晚五|996|双休|单休|做六休一)(?:[，,].*)?{END}"),
    _r("zh.shift_not", "habit", "不用倒班了 (a work schedule ended)", "不用倒班了",
       rf"{A}(?:不用|不再|不)\s*(?P<v>三班倒|两班倒|倒班|上夜班|值夜班|加班)了{END}", polarity=False, change=True),
    _r("zh.shares", "roommate", "跟 X 合租 (a roommate)", "我跟同事小赵合租",
       rf"{A}(?:跟|和)\s*(?:同事|朋友|同学|闺蜜|室友)?\s*(?P<v>[\u4e00-\u9fff]{{2,4}})\s*(?:一起)?合租(?:[，,].*)?{END}"),
    _r("zh.apps_now", "uses", "(现在)都是/都用 微信、支付宝… (apps one uses)", "现在都是微信支付宝扫码",
       rf"{A}(?:都是|都用|用的是|都在用)\s*(?P<v>{APPS})(?:\s*(?:和|跟|、)?\s*(?P<v2>{APPS}))?(?:扫码|支付|付款|付钱|结账|联系)?"
       rf"(?:[，,].*)?{END}", change=True),
    _r("zh.decided", "plan", "决定/想了想还是 X (a plan one settled on)", "想了想还是直接找工作吧",
       rf"{A}(?:决定|想了想还是|最后还是|还是决定)\s*(?:直接|先)?\s*(?P<v>{WORD}{{2,8}}?)(?:了|吧)?{END}", change=True),
    _r("zh.apps", "uses", "(平时)刷/逛 小红书、b站… (apps one uses)", "平时刷小红书和b站比较多",
       rf"{A}(?:平时|经常|天天|每天|一般)?\s*(?:刷|逛|玩|看|用|听)\s*(?P<v>{APPS})(?:\s*(?:和|跟|、)\s*(?P<v2>{APPS}))?"
       rf"(?:比较多|挺多|很多|最多)?(?:[，,].*)?{END}"),
    _r("zh.speaks", "speaks", "会说/会讲/能说 X(语/话)", "我会说粤语",
       rf"{A}(?:会说|会讲|能说|能讲|说得一口|讲一口|说一口)\s*(?:一点|点|一些|流利的|标准的|地道的)?\s*"
       rf"(?P<v>[\u4e00-\u9fff]{{1,4}}?(?:语|话|文))(?:\s*(?:和|跟|、|还有)\s*(?:一点|点|一些)?\s*(?P<v2>[\u4e00-\u9fff]{{1,4}}?(?:语|话|文)))?"
       rf"(?:和.*)?(?:[，,].*)?{END}"),
    _r("zh.relationship", "relationship_status", "单身/已婚/结婚了/离婚了/订婚了/有对象了", "我离婚了",
       rf"{A}(?:是|还是|一直)?\s*(?P<v>单身|已婚|结婚|离婚|离异|丧偶|订婚|脱单|恋爱|分手|领证|扯证)(?:了|好几年了|[一二三四五六七八九十两几]+年了)?{END}",
       change=True),
    _r("zh.unwell", "health_condition", "感冒了/发烧了/骨折了/怀孕了 (a state for now)", "我这几天感冒了",
       rf"{A}(?:有点|有些)?\s*(?P<v>感冒|发烧|咳嗽|生病|住院|骨折|怀孕|拉肚子|扭伤|失眠|嗓子疼|头疼|牙疼|胃疼|腰疼)了?{END}",
       scope=Scope.TEMPORAL),
    _r("zh.away", "status", "在 X 出差/旅游/住院 (where one is for now)", "我这周在上海出差",
       rf"{A}(?:正)?在\s*(?P<v>{WORD}{{2,8}}?(?:出差|旅游|旅行|度假|休假|住院|隔离|培训|探亲|学习))(?:呢)?{END}",
       scope=Scope.TEMPORAL),
    # -- possessions: selling, buying, not having -----------------------------------------------
    _r("zh.lost", "owns", "(我那辆) X 被偷了/丢了/报废了 (owns, negated)", "我那辆电动车被偷了",
       rf"{A}(?:的)?\s*(?:那辆|那台|那部|那个|这辆|新买的|刚买的)?\s*(?P<v>{WORD}{{1,10}}?)\s*(?:被偷了|被偷走了|走丢了|丢了|弄丢了|报废了|被撞坏了|"
       rf"坏掉了|撞坏了|摔坏了|摔碎了|坏了)(?:[，,].*)?{END}", polarity=False, change=True),
    _r("zh.uninstalled", "uses", "把 X 卸载了/删了/注销了 (uses, negated)", "我把抖音卸载了",
       rf"{A}(?:把|将)\s*(?P<v>{WORD}{{1,10}}?)\s*(?:卸载了|卸了|删了|删掉了|注销了|退订了|取关了)(?:[，,].*)?{END}",
       polarity=False, change=True),
    _r("zh.pet_counted", "owns", "养了两只 X / 捡了只 X (any animal, by its classifier)", "我养了两只布偶",
       rf"{A}(?:养了?|养着|有|捡了|领养了|收养了|抱回来了|接了|领了|抱了|领回了)\s*(?:[一两二三四五六七八九几]\s*)?[只条头匹尾]\s*(?P<v>[\u4e00-\u9fff]{{1,4}}?)"
       rf"(?:回家|回来)?(?:[，,].*)?{END}"),
    _r("zh.sold", "owns", "把 X 卖了 / 卖掉了 X (owns, negated)", "我上个月把车卖了",
       rf"{A}(?:把|将)\s*(?:我的|家里的|那辆|那台)?\s*(?P<v>{WORD}{{1,10}}?)\s*(?:卖了|卖掉了?|转手了|送人了|处理掉了|退掉了)"
       rf"(?:[，,].*)?{END}", polarity=False, change=True),
    _r("zh.bought", "owns", "买了/换了/入手了 (一辆/一台…) X (owns, from then on)", "我换了一辆比亚迪",
       rf"{A}(?:新)?(?:买了|换了|入手了|提了|刚买了|刚换了|又买了)\s*(?:一|两|二|三)?\s*(?:辆|台|部|套|块|架|个|只)\s*(?:新的|新)?\s*"
       rf"(?P<v>[^，。；,;！？!?]{{1,16}}?){END}", change=True),
    _r("zh.bought_brand", "owns", "买了/换了 X (a product name or an ownable noun, from then on)", "我换了华为Mate 60",
       rf"{A}(?:新)?(?:买了|换了|入手了|刚买了|刚换了)\s*(?:新的|新)?\s*(?P<v>[\u4e00-\u9fff]{{0,6}}[A-Za-z][\w .+\-]{{0,16}}?|"
       rf"[\u4e00-\u9fff]{{0,4}}{OWNABLE_ZH}){END}", change=True),
    _r("zh.have_kin_not", "@kin", "没有/还没有 孩子/兄弟姐妹 (kin, negated)", "我还没有孩子",
       rf"{A}(?:还|暂时|从来)?(?:没有|没)\s*(?:要)?(?P<v>(?P<kin>{REL_ALL_ZH})){END}", polarity=False),
    _r("zh.have_not", "owns", "没有 驾照/车/宠物 (owns, negated)", "我没有驾照",
       rf"{A}(?:还|暂时|从来)?(?:没有|没)\s*(?:考)?\s*(?P<v>{_HAVE_NOT}){END}", polarity=False),
    # -- habits and tools that stop or change ---------------------------------------------------
    _r("zh.uses_for", "uses", "(平时)用 X 跟/来/记/聊天… (a tool used for something)", "我平时用微信跟客户沟通",
       rf"{A}(?:平时|一般|都|主要|经常|一直|现在|个人|比较|更)*\s*(?:喜欢|习惯|爱)?\s*(?:都)?用\s*(?P<v>[A-Za-z0-9\u4e00-\u9fff][\w\u4e00-\u9fff .+\-]{{0,12}}?)\s*"
       rf"(?:跟|和|给|来|做|记|写|管理|聊天|沟通|联系|办公|看|听|买|打车|付款|付钱|支付|导航|剪|修|画|开会|上课|上班|工作|学习|打卡)[^，。；,;！？!?]{{0,12}}{END}",
       on_text=True),
    _r("zh.uses_code", "uses", "(平时主要)写/用 React、Python… (a language or framework by name)", "平时主要写React",
       rf"{A}(?:平时|一般|主要|现在|工作中|日常)*\s*(?:都)?(?<!开始)(?:写|敲|主要用)\s*(?P<v>[A-Za-z][\w.+#\-]{{0,20}}){END}"),
    _r("zh.not_in_place", "lives_in", "不在 X 了 (lives there no more)", "我不在上海了",
       rf"{A}(?:已经)?(?:不在|不住在|离开了)\s*(?P<v>[\u4e00-\u9fff]{{2,8}}?)\s*了{END}", polarity=False, change=True),
    _r("zh.card_lapsed", "habit", "X 的卡/会员 没续/退了 (the habit ends)", "健身房的卡我没续",
       rf"\s*(?P<v>{WORD}{{1,8}}?)\s*的?\s*(?:卡|会员|年卡|月卡|课)\s*(?:我|我们)?{A}(?:没续|没有续|不续了|退了|到期了|停了)(?:[，,].*)?{END}",
       polarity=False, change=True),
    _r("zh.topic_unused", "uses", "X (我)已经不用了 (the object first: uses, negated)", "微信已经不用了",
       rf"\s*(?P<v>{WORD}{{1,8}}?)\s*(?:我|我们)?{A}(?:不|没)(?:再)?\s*用了{END}", polarity=False, change=True),
    _r("zh.topic_stopped", "habit", "X (我)已经不上/不打/退了 (the object first: habit, negated)", "钢琴课我已经不上了",
       rf"\s*(?P<v>{WORD}{{1,8}}?)\s*(?:我|我们)?{A}(?:(?:不|没)(?:再)?\s*{ACT}|退(?:掉|出)?|停|暂停|停掉|放弃|断|戒(?:掉)?)了{END}",
       polarity=False, change=True, also=("plan", "hobby")),
    _r("zh.stop_doing", "habit", "不(再)去健身房/学钢琴 了 (habit, negated)", "我女儿不学钢琴了",
       rf"{A}(?:不再|已经不|不|没再|没有再)\s*(?:去)?(?P<v>{ACT}\s*{WORD}{{1,6}}?)了{END}", polarity=False, change=True,
       also=("hobby",)),
    _r("zh.quit_any", "habit", "戒了 X (奶茶, 游戏…: habit and diet, negated)", "我戒了奶茶",
       rf"{A}(?:戒了|戒掉了?|戒)\s*(?P<v>(?!烟|酒){WORD}{{1,5}}?)(?:[，,].*)?{END}", polarity=False, change=True, also=("diet",)),
    _r("zh.started_learning", "hobby", "(最近)开始学/在学 X (a habit, from then on)", "我最近开始学吉他了",
       rf"{A}(?:开始|在|正在|报了个班|(?<=\s))\s*(?P<v>(?:学|练|自学)(?![历校位生费期院科术])\s*{WORD}{{1,6}}?)(?:了|呢)?(?:[，,].*)?{END}",
       change=True),
    _r("zh.took_up", "hobby", "迷上了/爱上了/开始 跑步/打羽毛球 (a hobby taken up, from then on)", "我最近迷上了钓鱼",
       rf"{A}(?:迷上了|爱上了|喜欢上了|入坑了?|沉迷于?|玩上了)\s*(?P<v>{WORD}{{2,6}}?)(?:了|啦)?(?:[，,].*)?{END}",
       change=True, also=("likes",)),
    _r("zh.started_doing", "hobby", "开始 跑步/打羽毛球 了 (an activity taken up, from then on)", "我开始跑步了",
       rf"{A}开始\s*(?P<v>(?!下雨|下雪|下班|上班|上课|上学|看病|去医院|考试|放假|做饭|写作业)(?:{ACT}|健|钓|爬|滑|骑|冥|露|烘|遛)(?![历校位生费期院科术班课])\s*{WORD}{{1,4}}?)(?:了|啦)(?:[，,].*)?{END}",
       change=True),
    _r("zh.signed_up", "hobby", "报了个游泳班/瑜伽课 (a hobby taken up, from then on)", "我报了个游泳班",
       rf"{A}(?:给自己)?报(?:名)?了\s*(?:一?[个门期])?\s*(?P<v>{WORD}{{2,5}}?)(?:班|课|培训班|兴趣班)(?:了)?(?:[，,].*)?{END}",
       change=True),
    _r("zh.eats_again", "diet", "也/又/开始 吃肉/吃鱼 了 (diet, from then on)", "我现在也吃肉了",
       rf"{A}(?:也|又|开始|重新|恢复)\s*吃\s*(?P<v>肉|荤|鱼|海鲜|鸡蛋|蛋|奶制品|糖|主食)了{END}", change=True),
    _r("zh.broke_up", "partner", "和 X 分手了 (partner, negated)", "我和小雨分手了",
       rf"{A}(?:和|跟|与)\s*(?P<v>[\u4e00-\u9fffA-Za-z]{{1,4}}?)\s*(?:分手|分开)了{END}", polarity=False, change=True),
    _r("zh.changed_use", "uses", "改成用/换成用/用回 X (a tool, from then on)", "我又用回安卓了",
       rf"{A}(?:改成用|换成用|改为用|用回了?|换回了?|又用回了?)\s*(?P<v>{WORD}{{1,12}}?){END}", change=True, on_text=True),
    _r("zh.changed_habit", "habit", "改成/换成 X (a habit, from then on)", "改成每周六学游泳",
       rf"{A}(?:改成了?|换成了?|改为|现在改|变成)\s*(?P<v>[^，。；,;！？!?]{{2,14}}?){END}", change=True, on_text=True),
    _r("zh.changed_to", "habit", "改学/改练 X (a habit, from then on)", "我女儿改学画画了",
       rf"{A}改\s*(?P<v>(?:学|练|打|去|上|喝|吃|玩|跑)[^，。；,;！？!?]{{1,10}}?){END}", change=True, on_text=True),
)
