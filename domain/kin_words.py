"""Kin and social words in English and Chinese, purely: what edge type each names, and which words
name the *same* relative (a sister, not a brother), ADR 0081 and ADR 0085.

The relation rules (:mod:`hlmem.domain.relation_rules`) read apposition with them ("my sis Anna",
"我老婆的哥哥"), and recall reads a question's relation phrase with them
(:mod:`hlmem.domain.relation_query`). An edge type is coarser than the word ("sister" and "brother"
are both ``sibling``; 表哥 and 表妹 both ``cousin``); :func:`same_relative` tells which words a
question may be matched to in an edge's evidence when the user has more than one of a type.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: Kin and social words, English, by edge type (singular; "sisters" is read by stripping the s).
EN_KIN: Mapping[str, str] = MappingProxyType({
    **dict.fromkeys(("sister", "brother", "sibling", "sis", "bro", "stepsister", "stepbrother"), "sibling"),
    "cousin": "cousin",
    **dict.fromkeys(("mom", "mum", "mother", "mama", "mommy", "mummy", "stepmom", "stepmother"), "mother"),
    **dict.fromkeys(("dad", "father", "papa", "daddy", "stepdad", "stepfather"), "father"),
    **dict.fromkeys(("wife", "husband", "spouse", "hubby", "missus"), "spouse"),
    **dict.fromkeys(("partner", "boyfriend", "girlfriend", "fiance", "fiancee", "fiancé", "fiancée", "bf", "gf"),
                    "partner"),
    **dict.fromkeys(("son", "daughter", "kid", "child", "stepson", "stepdaughter"), "child"),
    "uncle": "uncle", "aunt": "aunt", "auntie": "aunt",
    **dict.fromkeys(("grandma", "grandmother", "grandpa", "grandfather", "granny", "nana", "grandparent"),
                    "grandparent"),
    **dict.fromkeys(("grandson", "granddaughter", "grandchild", "grandkid"), "grandchild"),
    "niece": "niece", "nephew": "nephew",
    "sister-in-law": "sister_in_law", "brother-in-law": "brother_in_law", "mother-in-law": "mother_in_law",
    "father-in-law": "father_in_law", **dict.fromkeys(("son-in-law", "daughter-in-law"), "relative"),
    **dict.fromkeys(("friend", "buddy", "pal", "bestie", "bff"), "friend"),
    **dict.fromkeys(("coworker", "co-worker", "colleague", "teammate"), "colleague"),
    **dict.fromkeys(("boss", "manager", "supervisor", "team lead"), "manager"),
    "direct report": "subordinate",
    **dict.fromkeys(("roommate", "flatmate", "housemate"), "roommate"),
    "classmate": "classmate", "neighbor": "neighbor", "neighbour": "neighbor",
    **dict.fromkeys(("advisor", "adviser", "mentor", "tutor", "teacher"), "advisor"),
    **dict.fromkeys(("business partner", "co-founder", "cofounder"), "collaborator"),
})
#: The same in Chinese.
ZH_KIN: Mapping[str, str] = MappingProxyType({
    **dict.fromkeys(("哥哥", "姐姐", "弟弟", "妹妹", "哥", "姐", "弟", "妹", "兄弟", "姐妹", "老哥", "老姐", "老弟",
                     "老妹", "大哥", "大姐", "二哥", "二姐", "小弟", "小妹"), "sibling"),
    **dict.fromkeys(("表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "堂弟", "堂妹"), "cousin"),
    **dict.fromkeys(("爸爸", "父亲", "爸", "老爸", "爹", "老爹"), "father"),
    **dict.fromkeys(("妈妈", "母亲", "妈", "老妈", "娘", "妈咪"), "mother"),
    **dict.fromkeys(("老婆", "妻子", "太太", "老公", "丈夫", "爱人", "媳妇", "媳妇儿", "老伴", "老伴儿", "家那位",
                     "先生", "老头子", "老太婆"),
                    "spouse"),
    **dict.fromkeys(("男朋友", "女朋友", "对象", "男友", "女友", "未婚夫", "未婚妻"), "partner"),
    **dict.fromkeys(("儿子", "女儿", "孩子", "闺女", "宝宝"), "child"),
    **dict.fromkeys(("叔叔", "舅舅", "伯伯", "舅", "叔", "大伯", "姑父", "姨父"), "uncle"),
    **dict.fromkeys(("阿姨", "姑姑", "姨妈", "舅妈", "小姨", "大姨", "姑妈", "婶婶", "伯母"), "aunt"),
    **dict.fromkeys(("爷爷", "奶奶", "外公", "外婆", "姥姥", "姥爷"), "grandparent"),
    **dict.fromkeys(("孙子", "孙女", "外孙", "外孙女"), "grandchild"),
    **dict.fromkeys(("侄子", "外甥"), "nephew"), **dict.fromkeys(("侄女", "外甥女"), "niece"),
    **dict.fromkeys(("嫂子", "弟媳", "弟妹", "大姑子", "小姑子", "大姨子", "小姨子"), "sister_in_law"),
    **dict.fromkeys(("姐夫", "妹夫", "大舅子", "小舅子", "大舅哥", "大伯子", "小叔子", "连襟"), "brother_in_law"),
    **dict.fromkeys(("女婿", "儿媳", "儿媳妇", "前妻", "前夫"), "relative"),
    **dict.fromkeys(("婆婆", "岳母", "丈母娘"), "mother_in_law"),
    **dict.fromkeys(("公公", "岳父", "老丈人"), "father_in_law"),
    **dict.fromkeys(("朋友", "好朋友", "闺蜜", "好友", "发小", "哥们", "哥们儿"), "friend"),
    **dict.fromkeys(("同事", "搭档", "工友"), "colleague"), **dict.fromkeys(("合伙人", "合作伙伴"), "collaborator"),
    **dict.fromkeys(("老板", "上司", "领导", "经理", "主管", "组长", "头儿"), "manager"),
    **dict.fromkeys(("下属", "手下", "实习生", "徒弟"), "subordinate"),
    **dict.fromkeys(("室友", "舍友"), "roommate"),
    **dict.fromkeys(("同学", "同桌", "师兄", "师姐", "师弟", "师妹"), "classmate"), "老乡": "knows",
    "邻居": "neighbor", **dict.fromkeys(("导师", "师傅", "师父", "老师", "班主任"), "advisor"),
})
EN_PETS = ("cat", "dog", "kitten", "puppy", "rabbit", "bunny", "hamster", "parrot", "bird", "fish", "turtle",
           "horse", "guinea pig")
ZH_PETS = ("猫咪", "小猫", "猫", "狗狗", "小狗", "狗", "兔子", "仓鼠", "鹦鹉", "乌龟", "金鱼")

#: Words that name one and the same relative, by language: "sister" is not "brother", 表哥 is not 表妹.
_SAME: tuple[frozenset[str], ...] = tuple(frozenset(g) for g in (
    ("sister", "sis", "stepsister"), ("brother", "bro", "stepbrother"),
    ("mom", "mum", "mother", "mama", "mommy", "mummy"), ("dad", "father", "papa", "daddy"),
    ("wife", "missus"), ("husband", "hubby"), ("girlfriend", "gf", "fiancee", "fiancée"),
    ("boyfriend", "bf", "fiance", "fiancé"), ("son", "stepson"), ("daughter", "stepdaughter"),
    ("grandma", "grandmother", "granny", "nana"), ("grandpa", "grandfather"), ("aunt", "auntie"),
    ("哥哥", "哥", "老哥", "大哥", "二哥"), ("姐姐", "姐", "老姐", "大姐", "二姐"), ("弟弟", "弟", "老弟", "小弟"),
    ("妹妹", "妹", "老妹", "小妹"),
    ("老婆", "妻子", "太太", "媳妇", "媳妇儿"), ("老公", "丈夫", "先生"), ("男朋友", "男友"), ("女朋友", "女友"),
    ("儿子",), ("女儿", "闺女"), ("女婿",), ("儿媳", "儿媳妇"), ("son-in-law",), ("daughter-in-law",), ("表哥",), ("表姐",), ("表弟",), ("表妹",), ("堂哥",), ("堂姐",), ("堂弟",), ("堂妹",),
    ("爷爷",), ("奶奶",), ("外公", "姥爷"), ("外婆", "姥姥"),
))
_SAME_OF: Mapping[str, frozenset[str]] = MappingProxyType({w: g for g in _SAME for w in g})


def kin_type(word: str) -> str | None:
    """The edge type of a kin or social word in either language ("表哥" → cousin), or None."""
    text = word.strip()
    return EN_KIN.get(text.casefold()) or ZH_KIN.get(text)


def same_relative(word: str) -> frozenset[str]:
    """The words that name the same relative as ``word`` ("sis" → sister, sis, stepsister); empty
    when the word says no more than its edge type ("cousin", "friend", 同事)."""
    text = word.strip()
    return _SAME_OF.get(text.casefold()) or _SAME_OF.get(text) or frozenset()
