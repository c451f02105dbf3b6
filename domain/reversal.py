"""Reversals of multi-valued slots: which positive values a negation or a change retires.

In a multi-valued slot (``likes``, ``uses``, ``owns``, ``habit``, ``diet``) a new value does not
compete with the others by default; two things retire one:

- a **negation** (:func:`covers`): "不喜欢甜的了" retires "全糖奶茶", "I don't have any pets" the
  claim "golden retriever (Biscuit)". A negated value covers a positive one when, after
  normalising both, it is part of it (游泳 of 每周二去游泳, 钢琴课 of 每周六学钢琴; English words
  compared by stem without light verbs, so "going to the gym" covers "gym on Mondays"), or when
  the negated value is one of the small categories below and the positive one names a member
  (sweet things, meat, pets…). "猫" never covers "狗": two values are only related through a
  listed category;
- a **replacement** (:func:`replaces`, ADR 0059): a diet label replaces a conflicting diet label
  whenever it is said (pescatarian ends vegetarian: one cannot be both); and a value the speaker
  reports as a *change* (bought, switched to, 改成, now…) replaces the value of the same kind it
  took over from — a phone a phone, a car a car, a browser a browser, a weekly activity another
  on the same weekday. Things people keep several of (pets, friends, likes) are no kind here.

Pure data and two functions, used by :func:`hlmem.domain.decisions.decide_assert`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hlmem.domain.slots import normalize_key

#: Category word → words any covered value contains. Closed and small: a category is listed when
#: people negate it as a whole ("no more sweets", "没有宠物了").
CATEGORIES: dict[str, tuple[str, ...]] = {
    "甜": ("甜", "糖", "蜜", "蛋糕", "奶茶", "巧克力", "冰淇淋", "sweet", "sugar", "dessert", "candy", "cake", "chocolate"),
    "sweet": ("甜", "糖", "奶茶", "sweet", "sugar", "dessert", "candy", "cake", "chocolate", "soda"),
    "辣": ("辣", "麻辣", "火锅", "川菜", "湘菜", "spicy", "chili", "chilli"),
    "spicy": ("辣", "spicy", "chili", "chilli", "hot sauce"),
    "肉": ("肉", "猪", "牛", "羊", "鸡", "鸭", "meat", "pork", "beef", "chicken", "lamb", "bacon", "ham"),
    "meat": ("肉", "meat", "pork", "beef", "chicken", "lamb", "bacon", "ham", "steak", "sausage"),
    "酒": ("酒", "啤酒", "红酒", "白酒", "beer", "wine", "alcohol", "whisky", "whiskey"),
    "alcohol": ("酒", "beer", "wine", "alcohol", "whisky", "whiskey", "vodka", "cocktail"),
    "咖啡": ("咖啡", "拿铁", "美式", "coffee", "latte", "espresso"),
    "caffeine": ("coffee", "latte", "espresso", "cappuccino", "tea", "soda", "cola", "energy drink", "咖啡", "茶"),
    "咖啡因": ("咖啡", "茶", "可乐", "coffee", "tea"),
    "coffee": ("咖啡", "coffee", "latte", "espresso", "cappuccino"),
    "宠物": ("宠物", "猫", "狗", "金毛", "泰迪", "柯基", "仓鼠", "兔", "鹦鹉", "龟", "鱼", "pet", "cat", "dog"),
    "pet": ("宠物", "pet", "cat", "dog", "kitten", "puppy", "hamster", "rabbit", "parrot", "fish", "retriever"),
    "素": ("素",),
    "烟": ("烟", "smok", "cigar"),
    "smoking": ("烟", "smok", "cigar", "vap"),
    "car": ("car", "车", "honda", "toyota", "ford", "tesla", "subaru", "bmw", "audi", "volkswagen", "vw", "mazda",
            "nissan", "hyundai", "kia", "chevy", "chevrolet", "jeep", "volvo", "minivan", "suv", "sedan", "truck"),
    "车": ("车", "car", "大众", "丰田", "本田", "特斯拉", "比亚迪", "宝马", "奔驰", "奥迪", "朗逸", "卡罗拉", "思域", "轩逸"),
    "kid": ("kid", "child", "son", "daughter", "孩子", "儿子", "女儿"),
    "孩子": ("孩子", "儿子", "女儿", "小孩", "kid", "child"),
}
_FILLER = re.compile(r"^(?:吃|喝|用|玩|养|去|上|学|练|打|踢|弹|抽|吸|一只|一条|一个|一辆|any|a|an|the|some|my|our)\s*|"
                     r"(?:的|了|东西|类|食物|饮料|饮品|课|班|课程|things|stuff|food|foods|drinks?|anymore|any\s*more|"
                     r"lessons?|class(?:es)?|practice)$")
_PLURAL = re.compile(r"(?<=[a-z])(?:es|s)$")
#: Words that say nothing about which activity or thing it is ("going to the gym" is about the gym).
_LIGHT = frozenset({"go", "goe", "went", "gone", "play", "do", "doe", "did", "take", "have", "ha", "had", "hit", "attend",
                    "drink", "eat", "use", "to", "the", "a", "an", "my", "our", "at", "in", "on", "for", "with",
                    "any", "some", "more", "anymore", "again"})


def _core(value: str) -> str:
    text = normalize_key(value)
    for _ in range(3):
        text = _FILLER.sub("", text).strip()
    return _PLURAL.sub("", text) if text.isascii() else text


def _stems(text: str) -> set[str]:
    """Crude English stems: running → run, stopped → stop, coffees → coffee."""
    out = set()
    for w in re.findall(r"[a-z0-9]+", text):
        stem = re.sub(r"(?:ing|ed|es|s)$", "", w) or w
        out.add(re.sub(r"([bdgmnprt])\1$", r"\1", stem) if stem != w else stem)
    return out


def _content(stems: set[str]) -> set[str]:
    content = stems - _LIGHT
    return content or stems


def covers(negated: str, positive: str) -> bool:
    """Whether negating ``negated`` also retires ``positive`` (same slot, multi-valued).

    >>> covers("甜的", "全糖奶茶"), covers("游泳", "每周二去游泳"), covers("dogs", "a dog"), covers("猫", "狗")
    (True, True, True, False)
    """
    neg, pos = _core(negated), normalize_key(positive)
    if not neg:
        return False
    if neg in pos:
        return True
    if neg.isascii() and pos.isascii() and _stems(neg) and _content(_stems(neg)) <= _stems(pos):
        return True  # "playing tennis" retires "play tennis on weekends"
    words = CATEGORIES.get(neg) or CATEGORIES.get(neg.rstrip("s"))
    return bool(words) and any(w in pos for w in words)


# -- replacements -------------------------------------------------------------------------------

#: Diet labels that exclude each other, by group: a label replaces another of its group whenever said.
EXCLUSIVE: Mapping[str, tuple[Mapping[str, tuple[str, ...]], ...]] = {
    "diet": (
        {"vegan": ("vegan", "纯素", "全素", "plant-based", "plant based"),
         "pescatarian": ("pescatarian", "pescetarian", "鱼素", "海鲜素", "fish", "seafood", "salmon", "吃鱼", "鱼"),
         "vegetarian": ("vegetarian", "素食", "吃素", "蛋奶素", "veggie"),
         "flexitarian": ("flexitarian", "弹性素食"),
         "omnivore": ("omnivore", "eat meat", "eating meat", "meat", "chicken", "beef", "pork", "steak", "bacon", "everything",
                      "吃肉", "肉", "荤", "什么都吃", "荤素都吃", "开荤")},
        {"keto": ("keto", "生酮"), "paleo": ("paleo",), "low-carb": ("low-carb", "low carb", "低碳水", "低碳"),
         "mediterranean": ("mediterranean", "地中海"), "whole30": ("whole30",)},
    ),
}

#: Kinds of thing one normally has or uses one of at a time: a *change* to one replaces the other.
#: Each kind lists type words, then brand words; a type word decides first ("Samsung TV" is no phone).
KINDS: Mapping[str, Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "owns": {
        "phone": (("phone", "smartphone", "手机"),
                  ("iphone", "pixel", "galaxy", "samsung", "oneplus", "xiaomi", "huawei", "motorola", "华为", "小米",
                   "荣耀", "一加", "三星", "oppo", "vivo")),
        "car": (("car", "车", "汽车", "轿车", "suv", "sedan", "minivan", "hatchback", "pickup", "truck"),
                ("honda", "toyota", "ford", "tesla", "subaru", "bmw", "audi", "volkswagen", "mazda", "nissan", "hyundai",
                 "kia", "chevy", "chevrolet", "jeep", "volvo", "prius", "civic", "corolla", "大众", "丰田", "本田",
                 "特斯拉", "比亚迪", "宝马", "奔驰", "奥迪", "朗逸", "卡罗拉", "思域", "轩逸", "理想", "蔚来", "小鹏")),
        "laptop": (("laptop", "notebook", "笔记本"), ("macbook", "thinkpad", "chromebook", "surface", "xps")),
        "watch": (("watch", "手表", "手环"), ()),
        "tablet": (("tablet", "平板"), ("ipad",)),
        "tv": (("tv", "television", "电视"), ()),
    },
    "uses": {
        "phone": (("phone", "手机"), ("android", "ios", "iphone", "pixel", "galaxy", "安卓", "鸿蒙", "harmonyos", "samsung",
                                     "huawei", "xiaomi", "oneplus", "华为", "小米", "荣耀", "三星", "oppo", "vivo", "苹果手机")),
        "browser": (("browser", "浏览器"), ("chrome", "firefox", "safari", "microsoft edge", "arc", "brave", "opera")),
        "notes": (("note app", "notes app", "笔记软件"),
                  ("notion", "obsidian", "evernote", "onenote", "logseq", "roam", "joplin", "apple notes", "印象笔记",
                   "有道云笔记", "语雀", "flomo")),
        "editor": (("editor", "ide", "编辑器"),
                   ("vs code", "vscode", "visual studio code", "cursor", "vim", "neovim", "emacs", "sublime",
                    "intellij", "pycharm", "webstorm", "zed")),
        "tasks": (("to-do app", "todo app", "task app", "待办"),
                  ("todoist", "ticktick", "滴答清单", "things 3", "omnifocus", "microsoft to do", "trello", "asana")),
        "tracker": (("issue tracker", "项目管理"), ("jira", "linear", "youtrack", "shortcut", "clickup", "monday.com", "basecamp",
                                                  "禅道", "tapd")),
        "code_host": (("code host", "代码托管"), ("github", "gitlab", "bitbucket", "gitee", "码云")),
        "music": (("music app", "音乐软件"),
                  ("spotify", "apple music", "youtube music", "tidal", "deezer", "pandora", "网易云音乐", "qq音乐", "酷狗")),
        "passwords": (("password manager", "密码管理"), ("1password", "bitwarden", "lastpass", "keepass", "dashlane")),
    },
}
_WEEKDAY = re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])|\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b")
_WEEKLY_SLOTS = frozenset({"habit", "hobby"})


def _has(value: str, word: str) -> bool:
    if word.isascii():
        return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z])", value) is not None
    return word in value


def _label(value: str, table: Mapping[str, tuple[str, ...]]) -> str | None:
    """The label whose longest word ``value`` contains, else None."""
    best: tuple[int, str] | None = None
    for label, words in table.items():
        for word in words:
            if _has(value, word) and (best is None or len(word) > best[0]):
                best = (len(word), label)
    return best[1] if best else None


def _kind(value: str, kinds: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> str | None:
    """The kind a value names: by a type word first, else by a brand word."""
    return (_label(value, {k: types for k, (types, _) in kinds.items()})
            or _label(value, {k: brands for k, (_, brands) in kinds.items()}))


def _weekday(value: str) -> str | None:
    m = _WEEKDAY.search(value)
    if m is None:
        return None
    return {"日": "天"}.get(m[1], m[1]) if m[1] else m[2]


def replaces(predicate: str, new: str, old: str, *, change: bool) -> bool:
    """Whether asserting ``new`` (positive) in multi-valued ``predicate`` retires positive ``old``.

    :param change: the statement reports a change (bought, switched to, 改成, now…): only then do
        values of one kind replace each other; exclusive labels (diets) replace regardless.

    >>> replaces("diet", "pescatarian", "vegetarian", change=False), replaces("owns", "Pixel 8", "iPhone 13", change=True)
    (True, True)
    >>> replaces("owns", "Pixel 8", "iPhone 13", change=False), replaces("owns", "cat", "dog", change=True)
    (False, False)
    """
    n, o = normalize_key(new), normalize_key(old)
    if n == o:
        return False
    for group in EXCLUSIVE.get(predicate, ()):
        a, b = _label(n, group), _label(o, group)
        if a and b and a != b:
            return True
    if not change:
        return False
    kinds = KINDS.get(predicate)
    if kinds:
        kind = _kind(n, kinds)
        return kind is not None and kind == _kind(o, kinds)
    if predicate in _WEEKLY_SLOTS:
        day = _weekday(n)
        return day is not None and day == _weekday(o)
    return False
