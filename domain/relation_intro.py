"""More of the ways people introduce and refer to others, purely (ADR 0081; issue 37, the held-out
set's misses). :func:`intro_candidates` adds to :func:`~hlmem.domain.relation_rules.text_candidates`:

- a kin's or a named person's relative **without a name**: "我老婆她哥在成都卖二手车",
  "我老婆的妹妹在广州当空乘", "小雨她姐姐在重庆当小学老师", "小雨老公是杭州人", "大舅哥他女儿",
  "my wife's brother is a firefighter", "Sam's mom is a vet": the relative is named as the extractor
  names one ("用户的老婆的哥", "小雨的姐姐", "Sam's mom"), so a question walks to it and asks by that
  phrase, and the turn that says it is the edge's evidence;
- **apposition of two descriptions** of one person: "我老公的弟弟，就是我小叔子，…",
  "我女婿，就是小宇他爸", "我老婆的哥哥，我大舅哥，…" (an in-law word names the chain's person
  without "就是"), "My son-in-law Greg, that's Lily's dad";
- an introduction with a **modifier or a clause**: "对门邻居老刘", "合租室友Kevin", "我大学室友阿琳",
  "跟我一起跑单的老乡叫黄磊", "带我的师傅叫李强", "小孙是我徒弟", "Bob's my neighbor",
  "Neighbor Earl's selling", "My buddy from the Army, Marcus Reyes".

Never an edge from "his sister", "她妈" alone or a list ("我哥，我姐都来了"): an owner must be the
speaker or a name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from hlmem.domain.kin_words import EN_KIN, ZH_KIN, kin_type
from hlmem.domain.person_names import latin_name, zh_name, zh_owner
from hlmem.domain.relation_decisions import RelationCandidate
from hlmem.domain.relations import PERSON, USER_ENTITY, Entity

_ZH_K = "|".join(sorted(map(re.escape, ZH_KIN), key=len, reverse=True))
_EN_K = "|".join(sorted(map(re.escape, EN_KIN), key=len, reverse=True))
_EN_ADJ = r"(?:(?:older|younger|little|big|elder|twin|best|new|old|dear|baby|kid|eldest|youngest)\s+)?"
_EN_NAME = r"([A-Z][a-z]+(?:[ -][A-Z][a-z]+)?)"
_NOT_EN_NAME = frozenset(("I", "The", "And", "But", "So", "He", "She", "They", "It", "We", "My", "Our", "That",
                          "This", "Then", "What", "Who", "When", "Where", "Why", "How", "Just", "Also", "Here",
                          "There", "Today", "Yesterday"))
#: Where a clause starts: the text's start or just after a stop or a comma.
_AT = r"(?:^|(?<=[，。！？；：,.!?;:\s]))"
_MY = r"(?:我们|我|俺)(?:家)?(?:的)?"
#: Words between "我" and a kin word that say which one ("我大学室友", "对门邻居", "我最好的兄弟").
_ZH_MOD = r"(?:大学|高中|初中|小学|研究生|合租|对门|隔壁|楼上|楼下|最好的|好|亲|新|年级)"
_ZH_TAIL = r"(?P<rest>[\u4e00-\u9fffA-Za-z]{0,7})"
_ZH_CHAIN = re.compile(rf"(?:{_MY}|{_AT})(?P<first>{_ZH_K})(?:的|她|他)(?P<kin>{_ZH_K})(?:叫(?:做)?)?{_ZH_TAIL}")
_ZH_OWNED = re.compile(rf"(?P<owner>[\u4e00-\u9fff]{{2,3}}?|[A-Z][a-z]+)(?:(?:说|讲)(?=[她他]))?(?P<p>的|她|他)(?P<kin>{_ZH_K})"
                       rf"(?:叫(?:做)?)?{_ZH_TAIL}")
_ZH_OWNED_BARE = re.compile(rf"{_AT}(?P<owner>[\u4e00-\u9fff]{{2,3}}?|[A-Z][a-z]+)(?P<kin>{_ZH_K}){_ZH_TAIL}")
_ZH_MODIFIED = re.compile(rf"(?:{_MY}|{_AT}|我(?:跟|和|与|同))(?:{_ZH_MOD})?(?P<kin>{_ZH_K})(?P<name>[\u4e00-\u9fff]{{2,7}}|[A-Z][a-z]+)")
_ZH_CLAUSE = re.compile(rf"{_AT}(?P<clause>[^，。！？；：,.!?;:\s他她你]*我[^，。！？；：,.!?;:\s他她你]*?)的(?:那个|那位)?"
                        rf"(?P<kin>{_ZH_K})(?:的名字)?叫(?:做)?(?P<name>[\u4e00-\u9fff]{{2,7}}|[A-Z][a-z]+)")
_ZH_IS_MY = re.compile(rf"{_AT}(?P<name>[\u4e00-\u9fff]{{2,4}}|[A-Z][a-z]+)是(?:我们|我)(?:的)?{_ZH_MOD}?(?P<kin>{_ZH_K})")
#: "A，就是B，": two descriptions of one person.
_ZH_SAME = re.compile(r"^(?:就是|也就是说?|即)")
_ZH_SELF_DESC = re.compile(rf"(?:{_MY}|^)(?P<first>{_ZH_K})(?:(?:的|她|他)(?P<kin>{_ZH_K}))?$")
_ZH_NAMED_DESC = re.compile(rf"(?P<owner>[\u4e00-\u9fff]{{2,3}}|[A-Z][a-z]+)(?:的|她|他)(?P<kin>{_ZH_K})$")

_EN_CHAIN = re.compile(rf"\b(?:[Mm]y|[Oo]ur)\s+{_EN_ADJ}(?P<first>{_EN_K})(?:'s|’s)\s+{_EN_ADJ}(?P<kin>{_EN_K})\b"
                       r"(?P<rest>\s*,?\s*\S*)")
_EN_OWNED = re.compile(rf"(?<![\w'’.])(?P<owner>[A-Z][a-z]+)(?:'s|’s)\s+{_EN_ADJ}(?P<kin>{_EN_K})\b(?P<rest>\s*,?\s*\S*)")
_EN_THATS = re.compile(rf"{_EN_NAME},\s+(?:that's|that’s|that is|who's|who’s|who is|i\.e\.)\s+"
                       rf"(?P<owner>[A-Z][a-z]+)(?:'s|’s)\s+{_EN_ADJ}(?P<kin>{_EN_K})\b")
_EN_IS_MY = re.compile(rf"(?<![\w'’]){_EN_NAME}(?:'s|’s|\s+is)\s+(?:[Mm]y|[Oo]ur)\s+{_EN_ADJ}(?P<kin>{_EN_K})\b(?!'|’)")
_EN_LEAD = re.compile(r"(?:^|(?<=[.!?]\s))(?P<kin>" + "|".join(
    re.escape(w[:1].upper() + w[1:]) for w in sorted(EN_KIN, key=len, reverse=True)) + rf")\s+{_EN_NAME}")
_EN_FROM = re.compile(rf"\b(?:[Mm]y|[Oo]ur)\s+{_EN_ADJ}(?P<kin>{_EN_K})\s+(?:from|at)\s+[^,.;!?]{{1,30}},\s+{_EN_NAME}")

#: "his girlfriend, Priya", "her dad", "他老婆", "她的男朋友": the one person the turn names.
_EN_PRONOUN = re.compile(rf"\b(?:[Hh]is|[Hh]er)\s+{_EN_ADJ}(?P<kin>{_EN_K})\b(?P<rest>\s*,?\s*\S*)")
_ZH_PRONOUN = re.compile(rf"(?P<p>他|她)(?:的)?(?P<kin>{_ZH_K})(?:叫(?:做)?)?{_ZH_TAIL}")

#: Someone else a turn names ("met Tom", "with Sarah"): then "his wife" is not surely the other one's.
_EN_MET = re.compile(r"\b(?:met|meet|with|and|told|tell|saw|see|visited|married|marry|dating|called|texted)\s+"
                     r"([A-Z][a-z]+)\b")

Add = Callable[..., None]


def _zh_target(rest: str) -> str:
    """The name a kin word is followed by ("哥哥李强在…" → 李强), or ""."""
    return zh_name(rest) or (latin_name(re.match(r"[A-Za-z]*", rest).group(0)) if rest[:1].isupper() else "")


def _kin(owner: Entity, word: str, chinese: bool) -> Entity:
    """The owner's relative without a name, as the extractor names one: "用户的老婆", "小雨的姐姐",
    "user's wife's brother", "Sam's mom"."""
    base = ("用户" if chinese else "user") if owner == USER_ENTITY else owner.name
    return Entity(PERSON, f"{base}的{word}" if chinese else f"{base}'s {word.casefold()}")


def _not_owner(name: str) -> bool:
    """A kin word ("老妈" reads as a nickname) or the speaker is not a named owner."""
    return name in ZH_KIN or "我" in name


def _zh_named_owner(raw: str) -> str:
    owner = zh_owner(raw)
    return "" if _not_owner(owner) else owner


def _zh_forms(text: str, speaker: Entity, add: Add) -> None:
    consumed = _zh_same(text, speaker, add)
    for m in _ZH_CHAIN.finditer(text):
        if m.end("kin") in consumed:
            continue
        first = _kin(speaker, m.group("first"), True)
        name = _zh_target(m.group("rest"))
        add(kin_type(m.group("first")), first)
        add(kin_type(m.group("kin")), Entity(PERSON, name) if name else _kin(first, m.group("kin"), True), first)
    for m in _ZH_OWNED.finditer(text):
        owner = _zh_named_owner(m.group("owner"))
        if owner and m.end("kin") not in consumed and (name := _zh_target(m.group("rest"))) != owner:
            add(kin_type(m.group("kin")), Entity(PERSON, name) if name else _kin(Entity(PERSON, owner), m.group("kin"),
                                                                                     True), Entity(PERSON, owner))
    for m in _ZH_OWNED_BARE.finditer(text):  # "小雨老公是杭州人": a name, then a kin word, opening a clause
        owner = m.group("owner")
        if (zh_name(owner) == owner or latin_name(owner)) and not _not_owner(owner) \
                and not _zh_target(m.group("rest")):
            add(kin_type(m.group("kin")), _kin(Entity(PERSON, owner), m.group("kin"), True), Entity(PERSON, owner))
    for m in _ZH_MODIFIED.finditer(text):
        if name := _zh_target(m.group("name")):
            add(kin_type(m.group("kin")), Entity(PERSON, name))
    for m in _ZH_CLAUSE.finditer(text):  # not "我表哥张伟的老婆叫小雨": that is 张伟's wife
        clause = m.group("clause")
        mine = re.match(rf"(?:{_MY}){_ZH_MOD}?(?:{_ZH_K})", clause[clause.index("我"):])
        if not mine and not zh_owner(clause) and (name := _zh_target(m.group("name"))):
            add(kin_type(m.group("kin")), Entity(PERSON, name))
    for m in _ZH_IS_MY.finditer(text):
        if name := (zh_name(m.group("name")) or latin_name(m.group("name"))):
            add(kin_type(m.group("kin")), Entity(PERSON, name))


def _zh_desc(segment: str, speaker: Entity, left: bool) -> tuple[Entity, list[str]] | None:
    """A description of a person: the speaker's kin ("我小叔子", "我老公的弟弟") or a named person's
    ("小宇他爸"); at the end of the left segment, or the whole right one."""
    text = segment.strip()
    found = _ZH_SELF_DESC.search(text) if left else _ZH_SELF_DESC.fullmatch(text)
    if found and (found.start() == 0 or not left or text[found.start():].startswith(("我", "俺"))):
        return speaker, [w for w in (found.group("first"), found.group("kin")) if w]
    found = _ZH_NAMED_DESC.search(text) if left else _ZH_NAMED_DESC.fullmatch(text)
    if found and (owner := _zh_named_owner(found.group("owner"))):
        return Entity(PERSON, owner), [found.group("kin")]
    return None


def _zh_same(text: str, speaker: Entity, add: Add) -> set[int]:
    """"A，就是B，": the single kin word names the person; the other description is its chain. Without
    就是 only an in-law word is read so ("我老婆的哥哥，我大舅哥"), never a list of relatives. Returns
    where the chains read so end in ``text`` (their person is named, not "用户的老公的弟弟")."""
    bounds = [0, *(m.end() for m in re.finditer(r"[，,、。！？；]", text)), len(text) + 1]
    segments = [(text[a:b - 1], a) for a, b in zip(bounds, bounds[1:])]
    consumed: set[int] = set()
    for (left_raw, at), (right_raw, right_at) in zip(segments, segments[1:]):
        right_raw = right_raw.strip()
        same = _ZH_SAME.match(right_raw)
        left, right = _zh_desc(left_raw, speaker, True), _zh_desc(right_raw[same.end() if same else 0:], speaker, False)
        if left is None or right is None:
            continue
        single = [d for d in (left, right) if d[0] == speaker and len(d[1]) == 1]
        chain = [d for d in (left, right) if d[0] != speaker or len(d[1]) == 2]
        if len(single) != 1 or len(chain) != 1:
            continue
        word = single[0][1][0]
        if not same and kin_type(word) not in ("sister_in_law", "brother_in_law", "mother_in_law", "father_in_law",
                                               "relative"):
            continue
        person = _kin(speaker, word, True)
        add(kin_type(word), person)
        owner, words = chain[0]
        consumed.add(at + len(left_raw.rstrip()) if chain[0] is left else right_at + len(right_raw))
        if len(words) == 2:
            first = _kin(speaker, words[0], True)
            add(kin_type(words[0]), first)
            add(kin_type(words[1]), person, first)
        else:
            add(kin_type(words[0]), person, owner)
    return consumed


def _en_named(rest: str) -> bool:
    word = rest.strip(" ,").rstrip(".,;:!?")
    return bool(word[:1].isupper() and word.removesuffix("'s").removesuffix("’s") not in _NOT_EN_NAME
                and word.removesuffix("'s").removesuffix("’s").isalpha())


def _en_forms(text: str, speaker: Entity, add: Add) -> None:
    thats = {m.group("owner") for m in _EN_THATS.finditer(text)}
    for m in _EN_THATS.finditer(text):
        add(kin_type(m.group("kin")), Entity(PERSON, m.group(1)), Entity(PERSON, m.group("owner")))
    for m in _EN_CHAIN.finditer(text):
        if not _en_named(m.group("rest")):
            first = _kin(speaker, m.group("first"), False)
            add(kin_type(m.group("first")), first)
            add(kin_type(m.group("kin")), _kin(first, m.group("kin"), False), first)
    for m in _EN_OWNED.finditer(text):
        owner = m.group("owner")
        if owner not in _NOT_EN_NAME and owner not in thats and not _en_named(m.group("rest")):
            add(kin_type(m.group("kin")), _kin(Entity(PERSON, owner), m.group("kin"), False), Entity(PERSON, owner))
    for m in (*_EN_IS_MY.finditer(text), *_EN_FROM.finditer(text)):
        name = m.group(1) if m.re is _EN_IS_MY else m.group(2)
        if name.split()[0] not in _NOT_EN_NAME:
            add(kin_type(m.group("kin")), Entity(PERSON, name))
    for m in _EN_LEAD.finditer(text):
        if m.group("kin")[:1].isupper() and m.group(2).split()[0] not in _NOT_EN_NAME and m.group(2)[:1].isupper():
            add(kin_type(m.group("kin")), Entity(PERSON, m.group(2)))


def _one_named(text: str, speaker: Entity, found: Sequence[RelationCandidate]) -> Entity | None:
    """The one person a turn names besides the speaker (by an edge found in it, or as the subject it
    opens with), or None when it names none or several."""
    names = {e for c in found for e in (c.source, c.target)
             if e.kind == PERSON and e != speaker and "的" not in e.name and "'s " not in e.name}
    head = _OPENING.sub("", text.strip())
    if (says := _EN_SAYS.match(head)) and says.group("name") not in _NOT_EN_NAME:
        names.add(Entity(PERSON, says.group("name")))
    names |= {Entity(PERSON, m.group(1)) for m in _EN_MET.finditer(text) if m.group(1) not in _NOT_EN_NAME}
    return next(iter(names)) if len(names) == 1 else None


def _pronoun_forms(text: str, speaker: Entity, add: Add, found: Sequence[RelationCandidate]) -> None:
    """"his girlfriend, Priya", "her dad", "他老婆": the relative of the one person the turn names."""
    person = _one_named(text, speaker, found)
    if person is None:
        return
    for m in _EN_PRONOUN.finditer(text):
        rest = m.group("rest").strip(" ,")
        name = rest.rstrip(".,;:!?").removesuffix("'s").removesuffix("’s") if _en_named(m.group("rest")) else ""
        add(kin_type(m.group("kin")), Entity(PERSON, name) if name else _kin(person, m.group("kin"), False), person)
    for m in _ZH_PRONOUN.finditer(text):
        before = text[max(0, m.start() - 3):m.start()]
        if zh_owner(before) or any(before.endswith(w) for w in ZH_KIN):  # "小雨她姐姐", "我老婆她哥": read above
            continue
        name = _zh_target(m.group("rest"))
        add(kin_type(m.group("kin")), Entity(PERSON, name) if name else _kin(person, m.group("kin"), True), person)


def intro_candidates(text: str, speaker: Entity, add: Add, found: Sequence[RelationCandidate] = ()) -> None:
    """Calls ``add(relation, target, source=speaker)`` for each edge the forms above state; ``found``
    holds the edges found in the turn so far (a pronoun's relative is the one person they name)."""
    _zh_forms(text, speaker, add)
    _en_forms(text, speaker, add)
    _pronoun_forms(text, speaker, add, found)


#: What a turn opens with before its subject ("跟你说个事，", "So,", "今天").
_OPENING = re.compile(r"^(?:(?:跟你说个事|跟你说|对了|哈哈+|唉|哎|今天|昨天|最近|刚刚|刚才|听说|好消息|坏消息|So|Oh|Well|Also|Update|"
                      r"Ok|OK|Okay|Good news|Bad news|Big news|Guess what)[，,:：!！.\s—-]*)+")
#: A name opening a turn, then a verb a person does ("Kevin moved", "Chloe is moving"; not "Work is insane").
_EN_SAYS = re.compile(r"^(?P<name>[A-Z][a-z]+)(?:'s\s+(?:moving|going|leaving|starting|getting|taking|off|now)|"
                      r"\s+(?:is|was)\s+(?:moving|going|leaving|starting|getting|taking|now|off)|\s+(?:just|got|says|"
                      r"said|moved|works|lives|started|left|quit|switched|took|finally|called|texted|passed|sold|"
                      r"bought|went|told|thinks|wants|decided|changed|joined|dropped|retired|found|lost)\b)")
#: The speaker in a clause: "我" (not "我老婆"), "I", "I'm", "me".
_FIRST_PERSON = re.compile(rf"我(?!们?(?:家)?(?:的)?(?:{_ZH_MOD})?(?:{_ZH_K}))|\b(?:I|I'm|I’m|I've|I'd|me|myself)\b")


def someone_else_opens(text: str, value: str = "") -> bool:
    """Whether a turn opens with someone else as its subject: a name ("Kevin搬走了，回台北了",
    "Chloe is moving out"), a named person's relative ("Kevin的女朋友在字节…", "Sam's mom is a
    vet"), or the speaker's relative ("我老婆在…", "My sister lives in…") — so a claim the extractor
    made about the user from it is likely about that person instead (ADR 0081, issue 37). A "name"
    that is part of ``value`` (the claim's: "武汉" in "武汉今天下雨") is the place, not a person; a
    clause that holds ``value`` and the speaker ("我家养的是一只柴犬", "I'm from Minneapolis") makes
    it the user's after all."""
    head = _OPENING.sub("", text.strip())
    if value and any(value.casefold() in clause.casefold() and _FIRST_PERSON.search(clause)
                     for clause in re.split(r"[，。！？；,.!?;]", text)):
        return False  # "…, I'm from Minneapolis": the user says it of themself too
    if re.match(rf"(?:我们|我|俺)(?:家)?(?:的)?(?:{_ZH_MOD})?(?:{_ZH_K})(?![和跟与]我)", head):
        return True
    if re.match(rf"(?i:my|our)\s+{_EN_ADJ}(?i:{_EN_K})\b(?!\s+and\s+(?:I|me)\b)", head):
        return True
    if head.startswith(("我", "俺")) or re.match(r"(?i:i|i'm|i've|i'd|i'll|we|we're|we've|me|my|our)\b", head):
        return False
    zh = zh_name(head)
    if zh and zh not in ZH_KIN and head[len(zh):len(zh) + 1] not in ("", "，", ",") and not (
            value and (zh in value or value in zh)):
        return True
    if (found := _EN_SAYS.match(head)) and found.group("name") not in _NOT_EN_NAME:
        return True
    return bool(re.match(r"[A-Z][a-z]+(?=[\u4e00-\u9fff])", head))  # "Kevin搬走了"
