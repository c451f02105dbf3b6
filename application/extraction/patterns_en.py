"""English rule patterns: one clause in, facts out (first person only when the user speaks).

Keywords match in any case; names and places must be capitalised (that is what tells "I live in
Berlin" from "I live in fear").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from attrs import evolve

from hlmem.application.extraction.clauses import Clause, Fact, parse_head
from hlmem.application.extraction.patterns_common import (
    ABSTRACT_KEYS,
    CONFIG_KEYS,
    DEICTIC_VALUE,
    EN_JOB,
    MODEL,
    PATH,
    PRONOUN_VALUE,
    REL_EN,
    RELATIONS,
    VERSION,
    VERSION_RE,
    language_value,
    person_like,
    predicate_for,
    rule_names,
    theme_value,
)
from hlmem.domain.events import Cardinality
from hlmem.domain.slots import SlotRegistry

#: Discourse words a clause may open with ("and I live…", "btw my name is…").
LEAD = (r"^\s*(?:(?i:and|but|so|also|oh|well|btw|by\s+the\s+way|actually|anyway|now|then|ok|okay|yes|yeah|hi|hey|"
        r"hello)\b[,\s]*)*")
I = LEAD + r"(?i:I|we)"  # noqa: E741 - the pronoun
ADV = (r"(?:\s+(?i:now|currently|still|also|actually|really|mostly|mainly|usually|generally|already|just|recently|"
       r"finally|officially|temporarily|basically|primarily))*")
NEG = r"(?P<neg>\s+(?i:don't|do\s+not|doesn't|didn't|no\s+longer|never|not|won't|can't|cannot)|(?i:n't))?"
TAIL = (r"(?:\s+(?i:now|anymore|any\s+more|these\s+days|for\s+now|at\s+the\s+moment|again|too|as\s+well|temporarily|"
        r"for\s+the\s+time\s+being|for\s+a\s+while|though|actually))*\s*[.!]*\s*$")
CAP = r"[A-Z][\w.&'\-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w.&'\-]*){0,3}"
HEAD = r"(?:(?i:the)\s+)?(?P<head>[A-Za-z0-9][\w.\-/ ]{0,40}?)"
IS = r"\s+(?i:is|are|=|:)(?:\s+(?i:now|currently|still))?\s+|\s*[:=]\s*"
_JOBV = r"(?P<job>[A-Za-z][\w\- ]{1,40}?)"

_NAME = re.compile(rf"{LEAD}(?i:my\s+name(?:'s|\s+is)|i'm\s+called|i\s+am\s+called|call\s+me|i\s+go\s+by){NEG}\s+(?P<v>{CAP}){TAIL}")
_LIVES = re.compile(rf"{I}(?i:'m|\s+am|'re|\s+are)?{ADV}{NEG}{ADV}\s+(?i:live|living|reside|residing|based|staying)\s+"
                    rf"(?i:in|at)\s+(?P<v>{CAP}){TAIL}")
_MOVED = re.compile(rf"{I}(?i:'ve|\s+have|'d|\s+had)?{ADV}\s+(?i:moved|relocated)(?:\s+(?i:back))?\s+(?i:to)\s+(?P<v>{CAP}){TAIL}")
_WORK_AT = re.compile(rf"{I}{ADV}{NEG}{ADV}(?:\s+|(?='))(?i:work|am\s+working|'m\s+working|'ve\s+been\s+working)\s+(?i:at|for)\s+"
                      rf"(?P<v>{CAP})(?:\s+(?i:as)\s+(?:(?i:an?|the)\s+)?{_JOBV})?{TAIL}")
_WORK_IN = re.compile(rf"{I}{ADV}{NEG}{ADV}(?:\s+|(?='))(?i:work|am\s+working|'m\s+working)\s+(?i:in)\s+(?P<v>{CAP}){TAIL}")
_JOINED = re.compile(rf"{I}(?i:'ve|\s+have)?{ADV}\s+(?i:joined|started\s+at|started\s+working\s+at|moved\s+to)\s+"
                     rf"(?P<v>{CAP})(?:\s+(?i:as)\s+(?:(?i:an?|the)\s+)?{_JOBV})?{TAIL}")
_JOB = re.compile(rf"{I}(?i:'m|\s+am){ADV}{NEG}\s+(?i:an?|the)\s+{_JOBV}(?:\s+(?i:at|for)\s+(?P<v>{CAP}))?{TAIL}")
_WORK_AS = re.compile(rf"{I}{ADV}\s+(?i:work|am\s+working|'m\s+working)\s+(?i:as)\s+(?:(?i:an?|the)\s+)?{_JOBV}"
                      rf"(?:\s+(?i:at|for)\s+(?P<v>{CAP}))?{TAIL}")
_PROMOTED = re.compile(rf"{I}(?i:'ve|\s+have|'ve\s+been|\s+was|\s+got)?{ADV}\s+(?i:promoted\s+to|became|become)\s+"
                       rf"(?:(?i:an?|the)\s+)?{_JOBV}{TAIL}")
_AGE = re.compile(rf"{I}(?i:'m|\s+am)\s+(?P<v>\d{{1,3}})(?:\s+(?i:years?\s+old))?{TAIL}")
_FROM = re.compile(rf"{I}(?i:'m|\s+am)(?:\s+(?i:originally))?\s+(?i:from)\s+(?P<v>{CAP}){TAIL}")
_THEME_SET = re.compile(rf"{I}{ADV}\s+(?i:switched|changed|set|turned)\s+(?:(?i:the|my)\s+)?(?:(?i:ui|editor|app)\s+)?"
                        rf"(?i:theme|color\s+scheme|colour\s+scheme|appearance)\s+(?i:to)\s+(?P<v>.+?){TAIL}")
_PREF = re.compile(rf"{I}{ADV}{NEG}{ADV}(?:\s+|(?='))(?P<verb>(?i:prefer\s+to\s+use|prefer|like\s+to\s+use|use|am\s+using|'m\s+using|"
                   rf"switched\s+(?:back\s+)?to|'ve\s+switched\s+(?:back\s+)?to|have\s+switched\s+(?:back\s+)?to|"
                   rf"changed\s+to|went\s+back\s+to|turned\s+on|turned\s+off|enabled|disabled|am\s+on|'m\s+on))\s+"
                   rf"(?:(?i:the)\s+)?(?P<v>.+?){TAIL}")
_LIKE = re.compile(rf"{I}{ADV}(?P<neg>\s+(?i:don't|do\s+not|no\s+longer|never|didn't))?{ADV}\s+(?:(?i:really|absolutely|"
                   rf"totally|kind\s+of)\s+)?(?P<verb>(?i:like|love|enjoy|adore|hate|dislike|detest|can't\s+stand))\s+"
                   rf"(?:(?i:to)\s+)?(?P<v>.+?){TAIL}")
_REL_IS = re.compile(rf"{LEAD}(?i:my)\s+(?P<rel>(?i:{REL_EN}))(?:'s\s+(?i:name)\s+(?i:is)|\s+(?i:is\s+called|is\s+named|name\s+is)|"
                     rf"'s|\s+(?i:is)){NEG}\s+(?P<v>{CAP}){TAIL}")
_IS_REL = re.compile(rf"{LEAD}(?P<v>{CAP})(?:'s|\s+(?i:is)){NEG}\s+(?i:my)\s+(?P<rel>(?i:{REL_EN})){TAIL}")
_MY_IS = re.compile(rf"{LEAD}(?i:my)\s+(?P<k>[a-zA-Z]+(?:\s+[a-zA-Z]+)?)(?:\s+(?i:is)|'s){NEG}\s+(?P<v>.+?){TAIL}")
_OF_IS = re.compile(rf"{LEAD}(?P<head>{CAP})'s\s+(?P<k>[a-zA-Z]+(?:\s+[a-zA-Z]+)?)\s+(?i:is){NEG}\s+(?P<v>.+?){TAIL}")

_VERSION_KEY = re.compile(rf"{LEAD}{HEAD}(?:'s)?(?:\s+(?i:current|latest|installed|deployed))?\s+(?i:version)(?:{IS}|\s+)"
                          rf"(?P<v>{VERSION}){TAIL}")
_VERSION_OF = re.compile(rf"{LEAD}(?:(?i:the)\s+)?(?:(?i:current)\s+)?(?i:version)\s+(?i:of)\s+(?P<head>[\w.\-/ ]{{1,40}}?)"
                         rf"(?:{IS})(?P<v>{VERSION}){TAIL}")
_VERSION_MOVE = re.compile(rf"{LEAD}(?:(?i:we|I)(?i:'ve|\s+have)?\s+)?(?P<verb>(?i:upgraded|updated|bumped|rolled\s+back|"
                           rf"downgraded|reverted|pinned|moved))\s+{HEAD}\s+(?:(?i:back)\s+)?(?i:to)\s+(?:(?i:version)\s+)?"
                           rf"(?P<v>{VERSION}){TAIL}")
_VERSION_PASSIVE = re.compile(rf"{LEAD}{HEAD}\s+(?i:was|has\s+been|got|is\s+now|is|has\s+now\s+been)\s+(?P<verb>(?i:upgraded|"
                              rf"updated|bumped|rolled\s+back|downgraded|reverted|pinned))\s+(?i:to)\s+(?:(?i:version)\s+)?"
                              rf"(?P<v>{VERSION}){TAIL}")
_VERSION_RUN = re.compile(rf"{LEAD}{HEAD}\s+(?:(?i:is)\s+)?(?:(?i:now|currently|still)\s+)?(?i:running|runs|on|at)\s+"
                          rf"(?:(?i:version|release)\s+)?(?P<v>{VERSION}){TAIL}")
_VERSION_DEPLOY = re.compile(rf"{LEAD}(?:(?i:we|I)\s+)?(?i:deployed|installed|released|shipped)\s+{HEAD}\s+(?P<v>{VERSION}){TAIL}")
_VERSION_USE = re.compile(rf"{I}{ADV}\s+(?i:use|am\s+using|'m\s+using|run|am\s+running|'m\s+running|have)\s+"
                          rf"(?P<head>[A-Za-z][\w.+#\-]*)\s+(?:(?i:version)\s+)?(?P<v>{VERSION}){TAIL}")
_PORT_KEY = re.compile(rf"{LEAD}{HEAD}(?:'s)?\s+(?i:port)(?:{IS}|\s+)(?P<v>\d{{2,5}}){TAIL}")
_PORT_ON = re.compile(rf"{LEAD}{HEAD}\s+(?i:runs|is\s+running|listens|is\s+listening|is|serves|is\s+served)\s+(?i:on)\s+"
                      rf"(?i:port)\s+(?P<v>\d{{2,5}}){TAIL}")
_MODEL_KEY = re.compile(rf"{LEAD}{HEAD}(?:'s)?\s+(?:(?i:default|current)\s+)?(?i:model)(?:{IS})(?P<v>{MODEL}){TAIL}")
_MODEL_USE = re.compile(rf"{LEAD}{HEAD}\s+(?i:uses|is\s+using|now\s+uses|runs\s+on)\s+(?:(?i:the)\s+)?(?P<v>{MODEL})\s+(?i:model)"
                        rf"{TAIL}")
_PATH_KEY = re.compile(rf"{LEAD}{HEAD}(?:'s)?\s+(?:(?P<k>[a-z]+)\s+)?(?i:path|directory|dir|folder)(?:{IS})(?P<v>{PATH}){TAIL}")
_PATH_AT = re.compile(rf"{LEAD}{HEAD}\s+(?i:is|lives|was)\s+(?:(?i:installed|located|stored|kept)\s+)?(?i:at|in|under)\s+"
                      rf"(?P<v>{PATH}){TAIL}")
_STATUS_KEY = re.compile(rf"{LEAD}{HEAD}(?:'s)?\s+(?i:status|state)(?:{IS})(?P<v>[A-Za-z][\w\-]*){TAIL}")
_STATUS_IS = re.compile(rf"{LEAD}{HEAD}(?:\s+(?i:is)|'s){NEG}\s+(?:(?i:currently|now|still)\s+)?(?P<v>(?i:running|stopped|down|"
                        rf"up|healthy|unhealthy|online|offline|degraded|failing|ready|paused|crashed|broken)){TAIL}")
_CONFIG_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (_VERSION_OF, "version"), (_VERSION_MOVE, "version"), (_VERSION_PASSIVE, "version"), (_VERSION_DEPLOY, "version"),
    (_VERSION_USE, "version"), (_VERSION_KEY, "version"), (_VERSION_RUN, "version"), (_PORT_ON, "port"),
    (_PORT_KEY, "port"), (_MODEL_KEY, "model"), (_MODEL_USE, "model"), (_PATH_KEY, "path"), (_PATH_AT, "path"),
    (_STATUS_KEY, "status"), (_STATUS_IS, "status"),
)
_PLAN = re.compile(rf"{I}(?i:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'re\s+going\s+to|\s+are\s+going\s+to|\s+plan\s+to|"
                   rf"\s+am\s+planning\s+to|'m\s+planning\s+to|\s+intend\s+to|'m|\s+am|'re|\s+are|\s+have\s+got|'ve\s+got|"
                   rf"\s+have|\s+need\s+to)\s+(?P<v>.+?)\s*[.!]*\s*$")
_JUDGEMENT = re.compile(r"(?i:(?:very|so|too|really|pretty|quite|a\s+bit|kind\s+of)\s+)?(?i:broken|fine|good|bad|great|done|"
                        r"ready|ok|okay|working|slow|fast|wrong|right|correct|empty|full|busy|free|nice|better|worse|"
                        r"terrible|awesome|weird|strange|old|new|messy|clean|long|short)")
#: Plans too vague to remember ("we'll see tomorrow").
_VAGUE_PLAN = re.compile(r"(?i:see|check|try|do\s+it|do\s+that|go|look|think|decide|know|talk|be\s+\w+|continue|help|"
                         r"let\s+you\s+know|get\s+back\s+to\s+you|see\s+about\s+it|fine|ok|okay|busy|free|back)")
#: Conversational promises and encouragement, not plans worth remembering ("I'll keep you posted",
#: "I'll definitely check it out", "I'm sure you'll do great", "I'll keep pushing").
_SMALL_TALK_PLAN = re.compile(
    r"(?i:(?:definitely|totally|surely|probably|really|def|for\s+sure)\s+)*(?i:"
    r"sure\b|make\s+sure\b|never\s+forget\b|ttyl\b|"
    r"(?:keep|let|send|show|tell|update|text|call|message|ping|email|share|get\s+back|talk|see|catch\s+up|"
    r"fill|hit)\b(?:\s+\S+){0,3}?\s+(?:you|ya|u)\b|"
    r"(?:keep|bear)\s+(?:that|it|this|them)\s+in\s+mind|(?:check|try|look\s+into|think\s+about)\s+(?:it|that|this|them)\b|"
    r"give\s+(?:it|that|this)\s+a\s+(?:try|shot|go)|add\s+(?:it|that|this)\s+to\s+my\s+list|"
    r"take\s+(?:your|the|that)\s+advice|try\s+(?:my|our)\s+best|"
    r"keep\s+(?:working|pushing|going|trying|plugging|searching|at\s+it|it\s+up|that\s+in))")
_DANGLING = re.compile(r"\s+(?i:on|at|in|by|for|the|this|next|last)\s*$")
_CHANGE = re.compile(r"(?i:switched|changed|moved|went\s+back|turned|enabled|disabled|set|upgraded|updated|rolled|bumped|"
                     r"downgraded|reverted|joined|started|became|promoted)")


def _v(m: re.Match[str], clause: Clause, group: str = "v") -> tuple[str, tuple[int, int]]:
    start, end = m.span(group)
    return " ".join(clause.text[start:end].split()), (start, end)


def _fact(m: re.Match[str], clause: Clause, predicate: str, group: str = "v", **kw: object) -> Fact:
    value, span = _v(m, clause, group)
    return Fact(predicate=predicate, value=value, span=span, polarity=not m.groupdict().get("neg"),
                change=bool(_CHANGE.search(m.group())), rule=_rule(m), **kw)  # type: ignore[arg-type]


def _config(clause: Clause) -> list[Fact]:
    for rx, predicate in _CONFIG_RULES:
        m = rx.match(clause.work)
        if not m:
            continue
        parsed = parse_head(m["head"], clause.topic, topic_near=clause.topic_near)
        if parsed is None or (parsed[0] is None and (predicate == "status" or not clause.by_user)):
            continue
        subject, coords = parsed
        fact = _fact(m, clause, predicate, subject=subject, importance=0.4 if predicate == "status" else 0.6)
        if predicate == "port" and not 0 < int(fact.value) < 65536:
            continue
        if predicate == "status" and VERSION_RE.fullmatch(fact.value):
            fact = evolve(fact, predicate="version")
        if predicate == "path" and m.groupdict().get("k"):
            coords = (*coords, ("target", m["k"]))
        return [evolve(fact, coordinates=tuple(sorted(coords)))]
    return []


def _work(m: re.Match[str], clause: Clause, *, change: bool = False) -> list[Fact]:
    facts = []
    if m["v"]:
        facts.append(evolve(_fact(m, clause, "employer", importance=0.7), change=change))
    if m["job"] and EN_JOB.search(m["job"].strip()):
        facts.append(evolve(_fact(m, clause, "job_title", "job", importance=0.7), change=change, polarity=True))
    return facts


def _speaker(clause: Clause) -> list[Fact]:
    w, c = clause.work, clause
    if m := _REL_IS.match(w) or _IS_REL.match(w):
        predicate, card = RELATIONS[m["rel"].lower()]
        return [_fact(m, c, predicate, cardinality=card, importance=0.6)] if person_like(m["v"]) else []
    if m := _NAME.match(w):
        return [_fact(m, c, "name", importance=0.8)]
    if m := _MOVED.match(w):
        return [evolve(_fact(m, c, "lives_in", importance=0.7), change=True)]
    if m := _LIVES.match(w):
        return [_fact(m, c, "lives_in", importance=0.7)]
    if m := _WORK_AT.match(w):
        return _work(m, c)
    if m := _WORK_IN.match(w):
        return [_fact(m, c, "works_in", importance=0.7)]
    if m := _JOINED.match(w):
        return _work(m, c, change=True)
    if (m := _JOB.match(w) or _WORK_AS.match(w)) and EN_JOB.search(m["job"].strip()):
        return _work(m, c) if m["v"] else [_fact(m, c, "job_title", "job", importance=0.7)]
    if (m := _PROMOTED.match(w)) and EN_JOB.search(m["job"].strip()):
        return [evolve(_fact(m, c, "job_title", "job", importance=0.7), change=True)]
    if m := _AGE.match(w):
        return [_fact(m, c, "age", importance=0.6)]
    if m := _FROM.match(w):
        return [_fact(m, c, "hometown", importance=0.6)]
    if m := _THEME_SET.match(w):
        return [evolve(_fact(m, c, "preferred_ui_theme", importance=0.6), change=True)]
    if m := _PREF.match(w):
        return _preference(m, c)
    if (m := _LIKE.match(w)) and not PRONOUN_VALUE.match(m["v"].strip()):
        fact = _fact(m, c, "likes", cardinality=Cardinality.MULTI, importance=0.5)
        hate = m["verb"].lower() in ("hate", "dislike", "detest", "can't stand")
        return [evolve(fact, polarity=not m["neg"] and not hate)]
    return []


def _preference(m: re.Match[str], clause: Clause) -> list[Fact]:
    verb = " ".join(m["verb"].lower().split())
    off = verb in ("turned off", "disabled")
    fact = _fact(m, clause, "preferred_ui_theme", importance=0.6)
    fact = evolve(fact, polarity=fact.polarity and not off)
    if theme_value(fact.value):
        return [fact]
    if lang := language_value(fact.value):
        return [evolve(fact, predicate="preferred_language", value=lang)]
    if off:
        return []
    if verb.startswith("prefer"):
        value = re.split(r"\s+(?i:over|to|rather\s+than)\s+", fact.value)[0]
        return [evolve(fact, predicate="likes", value=value, cardinality=Cardinality.MULTI, change=False)]
    if re.fullmatch(r"[A-Z][\w.+#\-]*(?:\s+[A-Z][\w.+#\-]*){0,2}", fact.value):
        return [evolve(fact, predicate="uses", cardinality=Cardinality.MULTI, importance=0.5)]
    return []


#: Keys that name a credential (admission refuses their values; the verbatim event alone keeps them).
_CREDENTIAL = re.compile(r"\b(?:password|passcode|passphrase|pin|pin\s+code|api\s+key|key|token|secret|ssn|social\s+security(?:\s+number)?|"
                         r"credit\s+card(?:\s+number)?|card\s+number|cvv|private\s+key|login|credentials?|recovery\s+code)\b", re.I)
#: A key named after a product or network, then a lowercase noun: "Wi-Fi name", "Netflix username", "GitHub handle".
_BRANDED_KEY = re.compile(r"[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)?\s+(?:name|username|handle|id|account|email|plan|number)")


def _generic(clause: Clause, labels: Mapping[str, str], registry: SlotRegistry) -> list[Fact]:
    # On the text, not the masked work: a date may be the value ("Alice's birthday is May 3").
    m = _MY_IS.match(clause.text) if clause.by_user else None
    subject = None
    if m is None:
        m = _OF_IS.match(clause.text)
        if m is None:
            return []
        subject = m["head"]
    key = m["k"].lower()
    fact = _fact(m, clause, "x", subject=subject, importance=0.5)
    favourite = key.split()[0] in ("favorite", "favourite")  # "my favorite place is the lighthouse": a preference
    # A capitalised key is no attribute ("My Christmas is ruined") unless it names an account ("My Spotify username")
    # or a credential ("my API key", "My Netflix password"): those go on as candidates, and admission rejects a
    # credential with its reason code, so a secret is refused the same way whatever its case.
    if (key.split()[-1] in ABSTRACT_KEYS and not favourite) or any(w in RELATIONS for w in key.split()) \
            or (m["k"] != m["k"].lower() and not _BRANDED_KEY.fullmatch(m["k"]) and not _CREDENTIAL.search(key)):
        return []  # "my sleep schedule is a disaster", "my daughter Lily's home": no attribute
    if key in CONFIG_KEYS | ABSTRACT_KEYS or not fact.value or len(fact.value) > 60 or DEICTIC_VALUE.match(fact.value):
        return []
    if re.match(r"(?i:to|that|because|about|if|whether)\b", fact.value) or _JUDGEMENT.fullmatch(fact.value):
        return []  # "my plan is to…", "my code is broken": a thought or a judgement, not an attribute
    if key in RELATIONS:
        predicate, card = RELATIONS[key]
        if not person_like(fact.value):
            return []
        return [evolve(fact, predicate=predicate, cardinality=card, importance=0.6)]
    return [evolve(fact, predicate=predicate_for(key, labels, registry))]


def plan_value(clause: Clause) -> str | None:
    """What a plan clause says will happen, without its time words and modal ("I'm meeting Ann" → meeting Ann)."""
    m = _PLAN.match(clause.work)
    if not m:
        return None
    value = " ".join(m["v"].split())
    for _ in range(3):
        value = _DANGLING.sub("", value)
    if (not value or len(value) > 80 or _VAGUE_PLAN.fullmatch(value) or DEICTIC_VALUE.match(value)
            or _SMALL_TALK_PLAN.match(value)):
        return None
    return value


def match(clause: Clause, labels: Mapping[str, str], registry: SlotRegistry) -> list[Fact]:
    """Facts stated by one English clause (empty when no rule applies)."""
    if clause.planned:
        value = plan_value(clause) if clause.by_user else None
        return [Fact(predicate="plan", value=value, plan=True, cardinality=Cardinality.MULTI,
                     rule="en.plan")] if value else []
    facts = _config(clause)
    if not facts and clause.by_user:
        facts = _speaker(clause)
    return facts or _generic(clause, labels, registry)


_RULES: dict[re.Pattern[str], str] = {}


def _rule(m: re.Match[str]) -> str:
    """The name of the pattern that matched (``en.lives`` for ``_LIVES``)."""
    if not _RULES:
        _RULES.update(rule_names(globals(), "en"))
    return _RULES.get(m.re, "en.pattern")
