"""Reversals of multi-valued slots: which positive values a negated value retires.

In a multi-valued slot (``likes``, ``uses``, ``owns``, ``habit``, ``diet``) a new value never
competes with the others; only a *negation* can end one. "不喜欢甜的了" must retire "全糖奶茶",
and "I don't have any pets" the claim "golden retriever (Biscuit)": a negated value covers a
positive one when, after normalising both, it is part of it (游泳 of 每周二去游泳; English words
compared by stem, so "playing tennis" covers "play tennis on weekends"), or when the negated value
is one of the small categories below and the positive one names a member (sweet things, meat, pets…).
"猫" never covers "狗": two values of one slot are only related through a listed category. Pure data and one
function, used by :func:`hlmem.domain.decisions.decide_assert`.
"""

from __future__ import annotations

import re

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
    "coffee": ("咖啡", "coffee", "latte", "espresso", "cappuccino"),
    "宠物": ("宠物", "猫", "狗", "金毛", "泰迪", "柯基", "仓鼠", "兔", "鹦鹉", "龟", "鱼", "pet", "cat", "dog"),
    "pet": ("宠物", "pet", "cat", "dog", "kitten", "puppy", "hamster", "rabbit", "parrot", "fish", "retriever"),
    "素": ("素",),
    "烟": ("烟", "smok", "cigar"),
    "smoking": ("烟", "smok", "cigar", "vap"),
}
_FILLER = re.compile(r"^(?:吃|喝|用|玩|养|去|一只|一条|一个|any|a|an|the|some|my)\s*|(?:的|了|东西|类|食物|饮料|饮品|"
                     r"things|stuff|food|foods|drinks?|anymore|any\s*more)$")
_PLURAL = re.compile(r"(?<=[a-z])(?:es|s)$")


def _core(value: str) -> str:
    text = normalize_key(value)
    for _ in range(3):
        text = _FILLER.sub("", text).strip()
    return _PLURAL.sub("", text) if text.isascii() else text


def _stems(text: str) -> set[str]:
    return {re.sub(r"(?:ing|ed|es|s)$", "", w) or w for w in re.findall(r"[a-z0-9]+", text)}


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
    if neg.isascii() and pos.isascii() and _stems(neg) and _stems(neg) <= _stems(pos):
        return True  # "playing tennis" retires "play tennis on weekends"
    words = CATEGORIES.get(neg) or CATEGORIES.get(neg.rstrip("s"))
    return bool(words) and any(w in pos for w in words)
