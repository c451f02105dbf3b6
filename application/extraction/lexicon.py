"""The rule extractor's small lexicon: kinship, health, possession, habit, diet and quantity words.

Data only. Every list is closed and short on purpose: a word belongs here when its presence
settles what a clause is about (过敏 is health, 养 is a pet, 每周二 is a habit), not when it merely
might. Open classes (which drug, which city, which pet name) are value spans, never listed.
"""

from __future__ import annotations

from collections.abc import Mapping

from hlmem.domain.events import Cardinality

_M, _S = Cardinality.MULTI, Cardinality.SINGLE

#: Kin and social relations beyond the common ones (patterns_common.RELATIONS): word → (predicate, cardinality).
KIN: Mapping[str, tuple[str, Cardinality]] = {
    **{w: ("cousin", _M) for w in ("表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "堂弟", "堂妹", "表兄", "堂兄", "cousin")},
    **{w: ("uncle", _M) for w in ("叔叔", "舅舅", "伯伯", "伯父", "叔父", "姑父", "姨父", "舅父", "uncle", "叔", "舅", "大伯", "二叔",
                                  "小叔", "大舅", "二舅", "小舅")},
    **{w: ("aunt", _M) for w in ("阿姨", "姑姑", "姨妈", "舅妈", "婶婶", "伯母", "姑妈", "小姨", "aunt", "auntie", "婶", "姑", "大姨",
                                 "二姨", "小姑", "大姑")},
    **{w: ("grandparent", _M) for w in ("爷爷", "奶奶", "外公", "外婆", "姥姥", "姥爷", "祖父", "祖母", "grandmother",
                                        "grandfather", "grandma", "grandpa", "granny", "nana")},
    **{w: ("mother_in_law", _S) for w in ("岳母", "丈母娘", "婆婆", "mother-in-law")},
    **{w: ("father_in_law", _S) for w in ("岳父", "丈人", "公公", "father-in-law")},
    **{w: ("sister_in_law", _M) for w in ("嫂子", "弟媳", "弟妹", "小姑子", "大姑子", "姨子", "sister-in-law")},
    **{w: ("brother_in_law", _M) for w in ("姐夫", "妹夫", "小舅子", "大舅子", "连襟", "brother-in-law")},
    **{w: ("niece", _M) for w in ("侄女", "外甥女", "niece")},
    **{w: ("nephew", _M) for w in ("侄子", "外甥", "nephew")},
    **{w: ("grandchild", _M) for w in ("孙子", "孙女", "外孙", "外孙女", "grandson", "granddaughter")},
    **{w: ("sibling", _M) for w in ("兄弟姐妹", "兄弟", "姐妹", "老弟", "老妹", "siblings", "younger brother", "older brother",
                                    "little brother", "big brother", "younger sister", "older sister",
                                    "little sister", "big sister")},
    **{w: ("colleague", _M) for w in ("老同事", "workmate", "teammate")},
    **{w: ("child", _M) for w in ("kid",)},
    **{w: ("subordinate", _M) for w in ("下属", "部下", "手下", "subordinate", "direct report")},
    # colloquial short forms (我妈, 我哥) and family words people use every day
    **{w: ("mother", _S) for w in ("妈", "老妈", "mommy", "mama", "老母亲", "母亲大人")},
    **{w: ("father", _S) for w in ("爸", "老爸", "daddy", "papa", "老父亲", "父亲大人")},
    **{w: ("sibling", _M) for w in ("哥", "姐", "弟", "妹", "大哥", "大姐", "二哥", "二姐", "小弟", "小妹", "亲哥", "亲姐")},
    **{w: ("spouse", _S) for w in ("媳妇", "媳妇儿", "老伴", "hubby")},
    **{w: ("partner", _S) for w in ("fiancé", "fiance", "fiancée", "fiancee")},
    **{w: ("child", _M) for w in ("闺女", "娃", "宝宝", "大女儿", "小女儿", "大儿子", "小儿子", "stepson", "stepdaughter",
                                  "kids", "children", "youngest", "oldest", "eldest", "middle child", "little one", "baby",
                                  "toddler", "teenager", "孩子们", "小孩", "老大", "老二", "老三", "小宝", "大宝", "二宝", "twins")},
    **{w: ("parent", _M) for w in ("爸妈", "父母", "parents")},
}

#: Kin words written one way in subjects, so 我妈 and 我妈妈 are one person (用户的妈妈).
KIN_CANON: Mapping[str, str] = {
    "妈": "妈妈", "老妈": "妈妈", "爸": "爸爸", "老爸": "爸爸", "哥": "哥哥", "姐": "姐姐", "弟": "弟弟", "妹": "妹妹",
    "叔": "叔叔", "舅": "舅舅", "婶": "婶婶", "姑": "姑姑", "亲哥": "哥哥", "亲姐": "姐姐", "闺女": "女儿", "媳妇": "老婆", "媳妇儿": "老婆", "mum": "mom", "mommy": "mom",
    "daddy": "dad", "mama": "mom", "papa": "dad", "hubby": "husband", "mother": "mom", "father": "dad", "老母亲": "妈妈",
    "老父亲": "爸爸", "kids": "kids", "fiance": "fiancé", "fiancee": "fiancée",
}

#: Health conditions named without a suffix (a suffix — 病, 症, 炎, 癌, disease — is enough on its own).
CONDITIONS_ZH = ("哮喘", "糖尿病", "高血压", "低血压", "高血脂", "贫血", "失眠", "偏头痛", "头痛", "近视", "远视", "痛风",
                 "乳糖不耐受", "抑郁", "焦虑", "腰间盘突出", "颈椎病", "胃病", "胃炎", "湿疹", "鼻炎", "脂肪肝", "三高",
                 "心脏病", "过敏性鼻炎", "甲亢", "甲减", "荨麻疹", "肾结石", "胆结石", "关节炎", "腱鞘炎", "色盲")
_SUFFIX_ZH = r"(?:病|症|炎|癌|瘤|不耐受|综合征|结石|障碍|结节|增生|囊肿|息肉)"
CONDITION_ZH = (rf"(?:{'|'.join(sorted(CONDITIONS_ZH, key=len, reverse=True))})|[\u4e00-\u9fff]{{1,6}}?{_SUFFIX_ZH}"
                r"|(?:血压|血糖|血脂|胆固醇|尿酸|心率|眼压|转氨酶)(?:也|都|还|一直|有点|有些|稍微|略|比较)*(?:偏高|偏低|高|低|超标|异常)")
CONDITIONS_EN = ("asthma", "diabetes", "type 1 diabetes", "type 2 diabetes", "hypertension", "high blood pressure",
                 "low blood pressure", "high cholesterol", "anemia", "anaemia", "insomnia", "migraines", "migraine",
                 "celiac disease", "coeliac disease", "eczema", "arthritis", "ADHD", "autism", "depression", "anxiety",
                 "sleep apnea", "epilepsy", "gout", "psoriasis", "IBS", "GERD", "acid reflux", "a heart condition",
                 "tinnitus", "scoliosis", "glaucoma", "colour blindness", "color blindness", "back pain", "Parkinson's",
                 "Alzheimer's", "Crohn's", "Hashimoto's", "dementia", "cancer", "breast cancer", "lupus", "MS",
                 "multiple sclerosis", "PTSD", "OCD", "bipolar disorder", "long COVID", "fibromyalgia", "endometriosis",
                 "PCOS", "osteoporosis", "sciatica", "vertigo", "a bad back", "a heart murmur", "high blood sugar", "celiac",
                 "coeliac", "diabetes type 2", "prediabetes", "pre-diabetes", "sleep apnea", "asthma attacks")
_BODY = r"(?:knee|back|hip|shoulder|ankle|wrist|neck|elbow|heart)"
CONDITION_EN = (rf"(?:type\s+[12]\s+)?(?:{'|'.join(sorted(CONDITIONS_EN, key=len, reverse=True))})|(?:a\s+)?(?:bad|weak|dodgy|torn)\s+{_BODY}"
                r"|[a-z]+(?:\s+[a-z]+)?\s+(?:disease|syndrome|disorder|intolerance|deficiency)|(?:[a-z]+\s+)?[a-z]+itis")
#: States said with "I am": lactose intolerant, diabetic, pre-diabetic, anemic.
STATES_EN = r"(?:lactose|gluten)\s+intolerant|(?:pre-?)?diabetic|anemic|anaemic|asthmatic|epileptic|colou?r\s*blind"

#: Who may report a user's health in their stead (医生说我血压偏高): an authority, not an opinion.
AUTHORITY_ZH = r"(?:医生|大夫|主治医生|牙医|体检报告|体检结果|检查结果|化验单|报告|诊断)"
AUTHORITY_EN = (r"(?:my\s+|the\s+)?(?:doctor|dentist|physician|GP|nurse|cardiologist|allergist|test results?|blood\s+test|checkup|"
                r"PT|physio|physiotherapist|physical\s+therapist|surgeon|orthopedist|specialist)")

#: Things people own or keep (a classifier or a verb like 养 or "drive" also settles possession).
PETS_ZH = ("猫", "狗", "猫咪", "狗子", "猫猫", "小猫", "小狗", "狗狗", "金毛", "泰迪", "柯基", "哈士奇", "柴犬", "布偶猫", "英短", "橘猫",
           "仓鼠", "兔子", "鹦鹉", "乌龟", "金鱼", "鱼", "龙猫", "刺猬", "蜥蜴", "宠物", "萨摩耶", "边牧", "拉布拉多", "德牧",
           "比熊", "博美", "雪纳瑞", "法斗", "巴哥", "阿拉斯加", "田园犬", "土狗", "蓝猫", "暹罗", "加菲", "狸花", "蓝白",
           "金丝熊", "荷兰猪", "豚鼠", "蜜袋鼯", "守宫", "柯尔鸭", "八哥", "画眉", "锦鲤", "孔雀鱼", "热带鱼", "陆龟", "蛇",
           "羊驼", "鸽子", "小鸡", "鸭子")
#: A species word people make up with these endings (狸花猫, 中华田园犬, 虎皮鹦鹉) is a pet too.
PET_SUFFIX_ZH = "猫|狗|犬|鸟|鱼|龟|兔|鼠|蛇|鸭|鹦鹉"
OWNABLE_ZH = r"(?:车|汽车|电动车|自行车|摩托车|房子|房|公寓|别墅|手机|电脑|笔记本|平板|相机|钢琴|吉他|手表|游戏机|船|驾照|驾驶证)"
_PETS_EN = ("cat", "dog", "kitten", "puppy", "parrot", "hamster", "rabbit", "bunny", "turtle", "tortoise", "goldfish",
            "fish", "guinea pig", "lizard", "snake", "ferret", "budgie", "pet", "golden retriever", "labrador", "lab",
            "poodle", "beagle", "corgi", "husky", "terrier", "chihuahua", "dachshund", "pug", "bulldog", "greyhound",
            "german shepherd", "border collie", "collie", "shih tzu", "boxer", "goldendoodle", "labradoodle", "doodle",
            "pit bull", "pitbull", "rottweiler", "spaniel", "schnauzer", "maltese", "yorkie", "pomeranian", "whippet",
            "shiba", "siamese", "maine coon", "ragdoll", "persian", "tabby", "sphynx", "bearded dragon", "gecko",
            "axolotl", "hedgehog", "chinchilla", "gerbil", "mouse", "rat", "cockatiel", "canary", "parakeet", "macaw",
            "cockatoo", "chicken", "hen", "duck", "goat", "pony", "horse", "donkey", "pig", "tarantula", "python",
            "iguana", "chameleon", "frog", "hermit crab", "betta", "koi", "alpaca", "llama", "bee", "mutt", "tomcat")
#: Pets (species and common breeds), singular and plural.
PETS_EN = tuple(sorted({*_PETS_EN, *(w + ("es" if w.endswith(("sh", "ch", "x")) else "s") for w in _PETS_EN),
                        "mice", "puppies", "bunnies", "ponies", "fish", "guinea pigs"}, key=len, reverse=True))
OWNABLE_EN = ("car", "bike", "bicycle", "motorbike", "motorcycle", "scooter", "house", "flat", "apartment", "condo",
              "boat", "sailboat", "laptop", "phone", "camera", "piano", "guitar", "tablet", "watch", "truck", "van",
              "garden", "cabin", "e-bike", "drone", "console", "desk", "standing desk", "treadmill", "printer", "3d printer",
              "tv", "television", "grill", "kayak", "canoe", "rv", "camper", "trailer", "pickup", "minivan", "suv", "sedan",
              "smartwatch", "e-reader", "espresso machine", "air fryer", "sewing machine", "hot tub", "lawn mower", "pool",
              "smart speaker", "gaming pc", "pc", "desktop", "record player", "synth", "keyboard", "drum kit", "furniture",
              "couch", "sofa", "mattress", "microwave", "dishwasher", "washing machine", "washer", "dryer")
#: Device and car brands: "用的是 X" with one of them names a thing one owns.
BRANDS_ZH = (r"iPhone|苹果|华为|小米|荣耀|OPPO|vivo|一加|三星|Pixel|魅族|红米|MacBook|ThinkPad|联想|戴尔|惠普|华硕|"
             r"特斯拉|比亚迪|大众|丰田|本田|宝马|奔驰|奥迪|理想|蔚来|小鹏|吉利|长安|哈弗|五菱")
#: What "my X is Y" names as a possession (我的手机是 iPhone 15, my laptop is a ThinkPad).
DEVICE_ZH = r"(?:手机|电脑|笔记本|笔记本电脑|车|相机|平板|手表|耳机|显示器|键盘)"
DEVICE_EN = r"(?:phone|laptop|car|camera|tablet|watch|computer|bike|headphones|keyboard|monitor)"

#: How often: the words that make a statement a habit.
FREQ_ZH = (r"(?:天天|每日|成天|每(?:天|日|晚|早|周|个?星期|个?礼拜|个?月|年|个?周末|隔一天|两天|周[一二三四五六日天])(?:[一二三四五六日天末])?"
           r"(?:早上|上午|中午|下午|晚上|早晨|傍晚|睡前|饭后)?|平时|平常|一般|通常|经常|总是|常常|习惯|周末)")
_WD_EN = r"(?:mon|tues|wednes|thurs|fri|satur|sun)"
FREQ_EN = (rf"(?:every|each)\s+(?:single\s+|other\s+|second\s+|two\s+|few\s+)?(?:day|morning|evening|night|week|weekend|weekday|"
           rf"workday|month|year|{_WD_EN}day)|on\s+(?:weekends|weekdays|{_WD_EN}days)|"
           rf"{_WD_EN}days(?:\s*(?:,|and|&)\s*{_WD_EN}days)*|weekday\s+(?:mornings|afternoons|evenings|nights)|"
           rf"{_WD_EN}day\s+(?:and|&)\s+{_WD_EN}day\s+(?:mornings|afternoons|evenings|nights)|"
           rf"(?:once|twice|three\s+times|four\s+times|\d+\s+times)\s+a\s+(?:day|week|month|year)|daily|weekly|nightly|biweekly|"
           rf"every\s+(?:two|few)\s+(?:days|weeks|months)|(?:one|two|three|four|five|six|\d)\s+(?:days|mornings|evenings|nights|"
           rf"times|afternoons)\s+(?:a|per)\s+(?:week|month)|(?:a|per)\s+(?:day|week|month|night)")
HABIT_ADV_EN = r"(?:usually|always|often|normally|regularly|typically|generally)"
#: Activities that are habits by themselves (抽烟, smoke): their negation retires the habit.
HABITS_ZH = r"(?:抽烟|吸烟|喝酒|熬夜|喝咖啡|游泳|跑步|健身|打游戏|吃夜宵|喝奶茶)"
HABITS_EN = r"(?:smoke|smoking|drink|drinking|vape|vaping)"

#: Diets said as what one is or eats.
DIETS_ZH = (r"(?:素食主义者|纯素食主义者|素食者|吃素的|吃素|全素|纯素|蛋奶素|鱼素|海鲜素|弹性素食|清真|低碳水|生酮饮食|生酮|轻断食|"
            r"戒糖|控糖|少油少盐|地中海饮食|什么都吃|荤素都吃|开荤)")
DIETS_EN = (r"(?:strict\s+)?(?:vegetarian|vegan|pescatarian|pescetarian|flexitarian|kosher|halal|gluten[-\s]free|dairy[-\s]free|"
            r"plant-based|on\s+a\s+[a-z\-]+(?:\s+[a-z\-]+)?\s+diet|keto|paleo|teetotal)")

#: Quantities: the noun that names one → predicate.
QUANTITY_ZH: Mapping[str, str] = {
    "身高": "height", "个子": "height", "体重": "weight", "预算": "budget", "月薪": "salary", "工资": "salary",
    "薪水": "salary", "年薪": "salary", "收入": "salary", "月收入": "salary", "到手": "salary", "税后": "salary", "底薪": "salary", "房租": "rent", "租金": "rent", "月租": "rent",
    "鞋码": "shoe_size", "视力": "eyesight", "血型": "blood_type", "房贷": "mortgage", "月供": "mortgage",
}
QUANTITY_EN: Mapping[str, str] = {
    "budget": "budget", "salary": "salary", "income": "salary", "pay": "salary", "base": "salary", "base salary": "salary",
    "take-home": "salary", "rent": "rent", "height": "height",
    "weight": "weight", "shoe size": "shoe_size", "blood type": "blood_type", "mortgage": "mortgage",
    "mortgage payment": "mortgage",
}
NUM_ZH = r"(?:\d(?:[\d,.]*\d)?(?![,.]?\d)|[零一二两三四五六七八九十百千万亿半]+)"
NUM_EN = r"(?:[$€£¥]\s?)?\d(?:[\d,.]*\d)?(?![,.]?\d)\s?(?:k|K|m|M|grand)?"
HEDGE_ZH = r"(?:大概|大约|差不多|将近|约|接近|左右|上下|估计|好像)"
HEDGE_EN = r"(?:about|around|roughly|approximately|nearly|almost|close\s+to|maybe|probably)"

#: A negated general value covers more specific ones of the same slot (no sweet → 全糖奶茶). Data for
#: the domain's multi-valued reversal (:func:`hlmem.domain.reversal.covers`) lives there, not here.

#: Organisations people work for, by a suffix or a well-known name (跳槽去了一家国企, 从腾讯离职).
ORG_NAMES_ZH = (r"阿里巴巴|阿里|腾讯|字节跳动|字节|华为|百度|京东|美团|小米|网易|拼多多|滴滴|快手|蚂蚁|微软|谷歌|苹果|亚马逊|英伟达|"
                r"携程|商汤|大疆|联想|中兴|比亚迪|宁德时代|蔚来|理想|小鹏|米哈游|B站|哔哩哔哩|小红书|得物|顺丰|招行|工行|建行|中行|农行")
ORG_ZH = (rf"(?:[\u4e00-\u9fffA-Za-z]{{0,10}}?(?:公司|集团|企业|国企|外企|央企|私企|厂|银行|医院|[市省县区一二三四五六七八九十]院|学校|大学|学院|研究所|研究院|"
          rf"事务所|律所|工作室|中心|单位|局|报社|电视台|餐厅|超市|酒店|门店|店)|{ORG_NAMES_ZH}|[A-Z][\w&.\-]{{1,20}})")
#: An organisation named so it cannot be a place one is at (a company suffix or a known name).
ORG_NAMED_ZH = rf"(?:[\u4e00-\u9fffA-Za-z]{{1,10}}?(?:公司|集团|科技)|{ORG_NAMES_ZH})"

_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
#: English numbers in words up to 99 (seven, twenty-one, forty five).
NUMBER_WORDS = (rf"(?:(?:{'|'.join(t for t in _TENS if t)})(?:[\s\-](?:{'|'.join(_ONES[1:10])}))?|"
                rf"{'|'.join(sorted(_ONES, key=len, reverse=True))})")


def word_number(text: str) -> str:
    """Digits for an English number word ("seven" → "7", "forty-five" → "45"); other text unchanged."""
    words = text.lower().replace("-", " ").split()
    if words and all(w in _ONES or w in _TENS for w in words):
        return str(sum(_ONES.index(w) if w in _ONES else _TENS.index(w) * 10 for w in words))
    return text

#: Cities and regions a Chinese speaker says they are in (我现在在南京): a closed list, because "在 X"
#: alone is as often an activity (在上课) or a spot (在公司) as a city.
CITIES_ZH = ("北京|上海|广州|深圳|杭州|南京|苏州|成都|重庆|武汉|西安|天津|长沙|郑州|青岛|大连|厦门|宁波|合肥|福州|济南|昆明|沈阳|"
             "哈尔滨|长春|石家庄|太原|南昌|南宁|贵阳|兰州|乌鲁木齐|呼和浩特|银川|西宁|拉萨|海口|三亚|珠海|佛山|东莞|无锡|常州|"
             "温州|嘉兴|绍兴|金华|台州|徐州|扬州|南通|烟台|潍坊|洛阳|桂林|香港|澳门|台北|湛江|惠州|中山|江门|汕头|泉州|漳州|"
             "保定|廊坊|唐山|秦皇岛|邯郸|新加坡|东京|首尔|纽约|伦敦|巴黎|悉尼|墨尔本|多伦多|温哥华|洛杉矶|旧金山|西雅图|"
             "老家|国外|海外|美国|日本|韩国|英国|加拿大|澳洲|澳大利亚|德国|法国|新西兰")
