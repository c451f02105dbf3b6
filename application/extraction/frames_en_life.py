"""English frame rules for changes in a life: leaving a job, stopping a habit, selling a thing, a
new job, and the everyday ways people say what they do, study, speak and are.

Tried before the base table (:mod:`.frames_en`): each says more than the general rule would read
from the same words ("I quit Target" is no job, "We sold the minivan" no possession). A reversal
is a claim with polarity false (the domain retires the values it covers, ADR 0041); a change
(bought, switched back to, got married) is marked so it replaces what it took over from (ADR 0059).
"""

from __future__ import annotations

import re

from hlmem.application.extraction import frames_en_work
from hlmem.application.extraction.frames import Rule, rx
from hlmem.application.extraction.frames_en_words import (
    BE, CAP, END, HAVE, HEDGE, NEG_DO, OWN, PETS, PRODUCT, QTY, TAIL, A,
)
from hlmem.application.extraction.lexicon import FREQ_EN, NUM_EN, NUMBER_WORDS, QUANTITY_EN, word_number
from hlmem.domain.events import Scope

_PERFECT = r"(?:'ve|'s|'d|\s+(?:have|has|had|just|recently|finally|officially|already))*"
_ORG = r"(?:the\s+|a\s+|an\s+)?(?-i:[A-Z][\w.&'\-]*(?:\s+(?:[A-Z][\w.&'\-]*|of|de|&))*)"
_LANG = (r"(?-i:English|Spanish|French|German|Italian|Portuguese|Mandarin|Chinese|Cantonese|Japanese|Korean|Russian|Arabic|"
         r"Hindi|Urdu|Bengali|Punjabi|Tamil|Vietnamese|Thai|Tagalog|Indonesian|Malay|Turkish|Persian|Farsi|Hebrew|Greek|"
         r"Polish|Dutch|Swedish|Norwegian|Danish|Finnish|Czech|Hungarian|Romanian|Ukrainian|Swahili|ASL|Sign\s+Language)")
_ACTIVITY = (r"(?:play|go\s+to|go|do|take|attend|watch|run|swim|ride|cook|practice|practise|visit|coach|teach|volunteer|drive|"
             r"bike|cycle|walk|commute|work\s+out)")
#: Nationalities and other adjectives "I'm X" says that are no name.
_NATIONS = (r"(?:American|Canadian|British|English|Irish|Scottish|Welsh|Australian|Indian|Chinese|Japanese|Korean|Mexican|"
            r"German|French|Italian|Spanish|Dutch|Swedish|Norwegian|Polish|Russian|Brazilian|Filipino|Vietnamese|Thai|"
            r"Nigerian|Kenyan|Jewish|Muslim|Christian|Catholic|Asian|Black|White|Latino|Latina|Hispanic|Gay|Straight|"
            r"Single|Married|Fine|Good|Great|Okay|Sorry|Here|Back|Home|Done|Ready|Tired|Sure|Not|So|Just|Still|Also|Always|"
            r"Never|Currently|Really|Honestly|Retired|Pregnant|Vegan|Vegetarian|Allergic|Going|Getting|Trying|Thinking|"
            r"Looking|Working|Living|Moving|Planning|Glad|Happy|Sad|Excited|Worried|Busy|Free|Late|Early|Alone|New|Old)\b")
#: Gig platforms people work through.
_GIGS = (r"(?-i:Uber(?:\s+Eats)?|Lyft|DoorDash|Grubhub|Instacart|Amazon\s+Flex|Postmates|Deliveroo|TaskRabbit|Shipt|Spark|"
         r"Caviar|Gopuff|Rover|Wag|Fiverr|Upwork)")
#: A school by its name ("Lincoln Elementary", "Ohio State University"): "started at Costco" is a job.
_SCHOOLISH = (r"(?-i:[A-Z][\w.&'\-]*(?:\s+[A-Z][\w.&'\-]*)*\s+(?:School|College|University|Academy|Elementary|High|Middle|Prep|"
              r"Institute|Kindergarten|Preschool|Montessori)|(?:University|College)\s+of\s+[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*)")
_FOR_NOW = r"(?:\s+(?:for|until|till|since|right\s+now|this)\b[^.!?]*)?"
_ANYMORE = r"\s+(?:anymore|any\s+more)\b(?:[^.!?]*)?[.!]*\s*$"


def _language(value: str) -> str:
    """The language of "a little Portuguese", "fluent Spanish"."""
    return re.sub(r"^(?:(?:a\s+)?little|some|basic|fluent|conversational|decent)\s+", "", value, flags=re.I)


def _r(name: str, slot: str, what: str, example: str, pattern: str, **kw: object) -> Rule:
    return Rule(name=name, lang="en", slot=slot, what=what, example=example, regex=rx(pattern), **kw)  # type: ignore[arg-type]


RULES: tuple[Rule, ...] = (
    # -- dislikes ---------------------------------------------------------------------------------
    _r("en.dislikes", "dislikes", "hate / can't stand / can't do / am not a fan of X (dislikes; likes no more)",
       "I can't stand country music",
       rf"{A}(?:\s+(?:really|absolutely|totally|just|honestly|genuinely|seriously))*\s+(?:hate|hates|can't\s+stand|cannot\s+stand|"
       rf"can't\s+do|cannot\s+do|can't\s+handle|can't\s+eat|despise|despises|detest|detests|loathe|loathes|dislike|dislikes|"
       rf"(?:am|'m|is|'s)\s+not\s+a\s+(?:big\s+)?fan\s+of|'m\s+not\s+into|am\s+not\s+into)\s+"
       rf"(?P<v>(?!it\b|that\b|this\b|you\b|them\b|when\b|how\b|people\b|being\b)[a-z][\w\s'\-]{{1,30}}?){TAIL}"
       rf"(?:\s*,\s*[^.!?]*)?{END}", also_not=("likes",)),
    *frames_en_work.RULES,
    # -- study, languages, relationships -------------------------------------------------------
    _r("en.speaks", "speaks", "speak(s) / am fluent in X (a language)", "I speak Spanish and a little Portuguese",
       rf"{A}(?:\s+(?:speak|speaks|can\s+speak)|{BE}\s+(?:fluent|native|conversational)\s+in)\s+(?:fluent\s+|some\s+|a\s+little\s+|"
       rf"basic\s+|conversational\s+|decent\s+)?(?P<v>{_LANG}(?:\s*(?:,\s*and|,|and|or)\s*(?:a\s+(?:little|bit\s+of)\s+|some\s+|basic\s+|"
       rf"broken\s+|a\s+little\s+bit\s+of\s+)?{_LANG})*)"
       rf"(?:\s+(?:at|with|to|in|on|from|because|since|but|when|everywhere|fluently|natively|too|as\s+well|mostly|daily)\b[^.!?]*)?"
       rf"{END}", clean=_language),
    _r("en.relationship", "relationship_status", "am married / single / divorced / engaged (for N years)", "I've been married for twelve years",
       rf"{A}{BE}\s+(?:happily\s+|recently\s+|newly\s+|still\s+)?(?P<v>married|single|divorced|engaged|widowed|separated)"
       rf"(?:\s+(?:for|since|to|with)\b[^.!?]*)?{END}"),
    _r("en.got_married", "relationship_status", "got married / engaged / divorced (from then on)", "I got married in June",
       rf"{A}{_PERFECT}\s+(?:got|getting)\s+(?P<v>married|engaged|divorced)(?:\s+(?:to|with)\b[^.!?]*)?{END}", change=True),
    # -- possessions: selling, buying, not having -----------------------------------------------
    _r("en.sold", "owns", "sold / got rid of / traded in my X (owns, negated)", "We sold the minivan",
       rf"{A}{_PERFECT}\s+(?:sold|got\s+rid\s+of|gave\s+away|traded\s+in|totaled|totalled|returned|gave\s+up)\s+"
       rf"(?:my|our|the|his|her|their)\s+(?:old\s+)?(?P<v>{OWN}|{PRODUCT}|[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)"
       rf"(?:\s+(?:for|to|last|in|after|because|since)\b[^.!?]*)?{END}", polarity=False, change=True),
    _r("en.bought", "owns", "bought / got / picked up a (new) X (owns, from then on)", "I just bought a Pixel 8",
       rf"{A}{_PERFECT}\s+(?:bought|(?<!'ve\s)(?<!'s\s)(?<!have\s)(?<!has\s)got|picked\s+up|purchased|leased|upgraded\s+to|ordered)\s+(?:myself\s+|ourselves\s+)?"
       rf"(?:a|an|the|my|our)?\s*(?:new\s+|used\s+|second-hand\s+|brand\s+new\s+)?(?:\d{{4}}\s+)?"
       rf"(?P<v>(?:{OWN})|{PRODUCT}(?:\s+(?:{OWN}))?){TAIL}{END}", change=True),
    _r("en.no_kids", "@kin", "don't have (any) kids / siblings (kin, negated)", "We don't have any kids",
       rf"{A}{NEG_DO}\s+(?:have|got)\s+(?:any\s+)?(?P<v>(?P<kin>kids|children|siblings|brothers|sisters|grandkids|"
       rf"grandchildren|kid|child))(?:\s+(?:yet|of\s+\w+\s+own)\b)?{TAIL}{END}", polarity=False),
    _r("en.have_not", "owns", "don't have a car / driver's license / any pets (owns, negated)", "I don't have a driver's license",
       rf"{A}{NEG_DO}\s+(?:have|own)\s+(?:a|an|any)\s+(?P<v>driver'?s\s+licen[cs]e|driving\s+licen[cs]e|licen[cs]e|"
       rf"passport|TV|television|smartphone|credit\s+card|(?:health\s+)?insurance|{OWN}|{PETS})(?:\s+yet)?{TAIL}{END}",
       polarity=False),
    # -- habits and tools that stop or change ---------------------------------------------------
    _r("en.started_ing", "hobby", "started running / began doing yoga (a hobby, from then on)", "I started running in March",
       rf"{A}(?:{_PERFECT}|{BE})\s+(?:started|began|starting)\s+(?P<v>(?:(?:doing|playing)\s+[a-z]+|(?!working|going|"
       rf"thinking|looking|feeling|getting|trying|dating|seeing|wondering|having|making|taking|using|living|wearing|"
       rf"eating|drinking|sleeping|waking|paying|saving|losing|gaining)[a-z]+ing(?:\s+(?!again|in\b|at\b|on\b|last\b|this\b|with\b|and\b)"
       rf"[a-z]+)?))(?:\s+again)?{TAIL}{END}", change=True,
       clean=lambda v: re.sub(r"^(?:doing|playing)\s+(?=\S)", "", v)),
    _r("en.took_up", "hobby", "took up pottery / got into bouldering (a hobby, from then on)", "I took up pottery last year",
       rf"{A}(?:{_PERFECT}|{BE})\s+(?:took\s+up|taken\s+up|picked\s+up|got\s+(?:really\s+)?into|gotten\s+into|"
       rf"getting\s+(?:really\s+)?into)\s+(?!it\b|that\b|this\b|them\b|a\b|an\b|my\b|the\b|some\b|trouble\b|debt\b)"
       rf"(?P<v>[a-z][\w\-]*(?:\s+(?!again|in\b|at\b|on\b|last\b|this\b|with\b|and\b|because\b|since\b|lately\b|"
       rf"recently\b|for\b|after\b)[a-z][\w\-]*)?)(?:\s+again)?{TAIL}{END}", change=True),
    _r("en.stopped", "habit", "stopped / quit going to the gym, playing X (habit, negated)", "I stopped going to the gym",
       rf"{A}{_PERFECT}\s+(?:stopped|quit|gave\s+up)\s+(?P<v>(?!using\b|smoking\b|drinking\b|last\b|this\b|in\b|on\b|"
       rf"yesterday\b|today\b|recently\b|cold\b|my\s+job\b|work\b)(?:going\s+to\s+(?:the\s+)?|doing\s+|playing\s+|taking\s+)?"
       rf"[a-z][\w\-]*(?:\s+(?!in\b|on\b|last\b|this\b|after\b|because\b|completely\b|entirely\b|altogether\b|for\b)"
       rf"[a-z][\w\-]*){{0,2}})(?:\s+(?:completely|entirely|altogether|cold\s+turkey|for\s+good))?"
       rf"(?:\s+(?:in|on|last|this|after|because|since|when|a|about)\b[^.!?]*)?{END}", polarity=False, change=True),
    _r("en.not_anymore", "habit", "don't play tennis / go to X anymore (habit, negated)", "I don't play tennis anymore",
       rf"{A}{NEG_DO}\s+(?P<v>{_ACTIVITY}\b[\w\s'\-]{{0,24}}?){_ANYMORE}", polarity=False, change=True),
    _r("en.no_longer", "habit", "no longer drive to work / play X (habit, negated)", "I no longer drive to work",
       rf"{A}\s+no\s+longer\s+(?P<v>{_ACTIVITY}\b[\w\s'\-]{{0,24}}?){TAIL}{END}", polarity=False, change=True),
    _r("en.not_a", "habit", "am not a smoker / drinker anymore (habit, negated)", "I'm not a smoker anymore",
       rf"{A}{BE}\s+(?:not|no\s+longer)\s+a\s+(?:heavy\s+|big\s+)?(?P<v>smoker|drinker|coffee\s+drinker|gamer|runner|"
       rf"morning\s+person|night\s+owl)(?:\s+anymore)?{TAIL}{END}", polarity=False, change=True,
       clean=lambda v: {"smoker": "smoking", "drinker": "drinking"}.get(v.lower(), v)),
    _r("en.commute", "habit", "take the bus / bike to work (now) (how one gets around)", "I take the bus now",
       rf"{A}\s+(?P<v>(?:take|takes|ride|rides|catch|catches|drive|drives|bike|bikes|cycle|cycles|walk|walks|commute|commutes)\s+"
       rf"(?:the\s+|my\s+)?(?:bus|train|subway|metro|tube|ferry|bike|car|scooter|to\s+work|to\s+school|to\s+the\s+office|in)"
       rf"(?:\s+to\s+(?:work|school|the\s+office))?){TAIL}\s*(?:now|these\s+days|nowadays)\s*[.!]*\s*$", change=True),
    _r("en.no_drink", "diet", "don't drink X anymore (diet and habit, negated)", "I don't drink soda anymore",
       rf"{A}{NEG_DO}\s+(?:drink|have)\s+(?:any\s+)?(?P<v>[a-z][\w\s\-]{{1,20}}?){_ANYMORE}", polarity=False, change=True,
       also=("habit",)),
    _r("en.back_to", "uses", "went / switched back to X (a tool, from then on)", "I've gone back to Android",
       rf"{A}{_PERFECT}\s+(?:gone|went|switched|changed|come|came|go|going)\s+(?:all\s+the\s+way\s+)?back\s+to\s+"
       rf"(?:using\s+)?(?:an?\s+|the\s+)?(?P<v>{PRODUCT}){TAIL}{END}", change=True),
    _r("en.switched_to", "uses", "switched to / started using X (a tool, from then on)", "I switched to Linear",
       rf"{A}{_PERFECT}\s+(?:switched\s+(?:over\s+)?to|started\s+using|migrated\s+to)\s+"
       rf"(?P<v>{PRODUCT}){TAIL}{END}", change=True, on_text=True),
    _r("en.keeps_in", "uses", "keep / track / write my X in Y (a tool)", "These days I keep my notes in Obsidian",
       rf"{A}\s+(?:keep|keeps|track|tracks|write|writes|take|takes|manage|manages|store|stores|do|does|plan|plans)\s+"
       rf"(?:all\s+)?(?:my|our|his|her|their)\s+[\w\s\-]{{1,20}}?\s+(?:in|on|with)\s+(?P<v>{PRODUCT}){TAIL}{END}"),
    # -- states for now, sizes said plainly, schedules ------------------------------------------
    _r("en.unwell", "health_condition", "am on crutches / on bed rest (a state for now)", "I'm on crutches for the next few weeks",
       rf"{A}{BE}\s+on\s+(?P<v>crutches|bed\s+rest|antibiotics|a\s+cast){_FOR_NOW}{END}", scope=Scope.TEMPORAL, hedged=True),
    _r("en.sick", "health_condition", "am sick / pregnant / recovering from X (a state for now)", "I'm recovering from a knee surgery",
       rf"{A}{BE}\s+(?P<v>sick|ill|pregnant|down\s+with\s+\w+(?:\s+\w+)?|recovering\s+from\s+[\w\s\-]{{2,24}}?){_FOR_NOW}{TAIL}{END}",
       scope=Scope.TEMPORAL, hedged=True),
    _r("en.caught", "health_condition", "have a cold / the flu / a broken X (a state for now)", "I have the flu",
       rf"{A}{HAVE}\s+(?P<v>a\s+cold|the\s+flu|flu|covid|COVID|a\s+fever|a\s+sore\s+throat|strep|pneumonia|bronchitis|"
       rf"a\s+broken\s+\w+|a\s+sprained\s+\w+){_FOR_NOW}{END}", scope=Scope.TEMPORAL, hedged=True),
    _r("en.staying", "status", "am staying at / with X until / for … (where one is for now)",
       "I'm staying at my parents' place until the renovation is done",
       rf"{A}{BE}\s+(?:(?:staying|crashing)\s+(?:at|with|in)|living\s+(?:at|with))\s+(?P<v>(?:my|our)\s+[\w\s'\-]{{2,24}}?|{CAP})\s+"
       rf"(?:until|till|for|while|during)\b[^.!?]*{END}", scope=Scope.TEMPORAL),
    _r("en.height_plain", "height", "am 5'7\" / 170 cm (a height said without \"tall\")", "I'm 5'7\"",
       rf"{A}{BE}\s+{HEDGE}(?P<v>\d'\s?\d{{1,2}}(?:\"|''|\s*(?:in|inches))?|\d\s*(?:foot|feet|ft)\s*\d{{0,2}}(?:\s*(?:inches|in))?|"
       rf"1\.\d{{1,2}}\s*m|1\d\d\s*cm)(?!\s+tall){TAIL}{END}", hedged=True),
    _r("en.quantity_the", "@k", "(the) rent here / mortgage is N", "Rent here is $2,100 a month",
       rf"^\s*(?:the\s+)?(?P<k>{QTY})(?:\s+(?:here|for\s+(?:my|our|the)\s+[\w\s]{{1,15}}?))?\s*(?:is|'s|runs|comes\s+to|=|:)\s*"
       rf"(?:now\s+|currently\s+)?{HEDGE}(?P<v>{NUM_EN}(?:\s*(?:dollars|euros|pounds|bucks))?)(?:\s+(?:a|per|each)\s+(?:month|year|week))?"
       rf"(?:,?\s+(?:maybe|or|plus|for|split|which|but|if|and)\b[^.!?]*)?{END}",
       keys=QUANTITY_EN, hedged=True, opening=True),
    _r("en.has_schedule", "habit", "have a 1:1 / standup every Tuesday (a schedule)", "We have a 1:1 every Tuesday",
       rf"{A}\s+(?:have|has)\s+(?P<v>(?:a\s+|an\s+|our\s+|my\s+)?[\w:\-]+(?:\s+[\w:\-]+){{0,3}}?\s+(?:{FREQ_EN})"
       rf"(?:\s+(?:morning|evening|night|afternoon))?)(?:\s+at\s+\d{{1,2}}(?::\d\d)?\s*(?:am|pm)?)?{END}", on_text=True),
    _r("en.moved_into", "lives_in", "moved into a place in / near X (lives there from then on)",
       "We moved out of the city and into a small place near Asheville",
       rf"{A}{_PERFECT}\s+moved\s+(?:out\s+of\s+[\w\s']{{1,24}}?\s+and\s+)?(?:in)?to\s+(?:a|an|the|our|my)\s+[\w\s'\-]{{1,30}}?\s+"
       rf"(?:in|near|outside|just\s+outside|outside\s+of)\s+(?P<v>{CAP}){TAIL}{END}", change=True),
    _r("en.from", "hometown", "is from X (where someone comes from)", "my roommate Jess is from Ohio",
       rf"{A}{BE}\s+(?:originally\s+)?from\s+(?P<v>{CAP}){TAIL}{END}"),
    _r("en.turned", "age", "just turned N (an age, from then on)", "My youngest just turned four",
       rf"{A}(?:\s+just)?\s+turned\s+(?P<v>\d{{1,3}}|{NUMBER_WORDS}){TAIL}{END}", change=True, clean=word_number),
    _r("en.away", "status", "am in X for work / a conference (until …) (where one is for now)", "I'm in Tokyo for work until Friday",
       rf"{A}{BE}\s+(?:currently\s+|away\s+)?in\s+(?P<v>{CAP})\s+(?:for|on)\s+(?:work|a\s+conference|business|a\s+trip|vacation|"
       rf"holiday|a\s+few\s+days|the\s+week|the\s+weekend|a\s+wedding|the\s+month|a\s+month|the\s+summer|the\s+semester|"
       rf"a\s+bit|now)\b[^.!?]*{END}", scope=Scope.TEMPORAL),
    _r("en.here_for_now", "status", "this week / today I am in X (where one is for now)", "This week I am in Berlin",
       rf"{A}{BE}\s+(?:currently\s+|still\s+)?in\s+(?P<v>{CAP})\s*[.!]*\s*$", scope=Scope.TEMPORAL,
       when=re.compile(r"(?i:\bthis\s+(?:week|weekend|month)\b|\btoday\b|\btonight\b|\bright\s+now\b|\bat\s+the\s+moment\b)")),
    _r("en.stolen", "owns", "my X got stolen / totaled, I lost my X (owns, negated)", "My bike got stolen",
       rf"^\s*(?:(?:so|and|ugh|sadly)\s+)?(?:my|our)\s+(?:old\s+|new\s+)?(?P<v>{OWN}|{PRODUCT}|[a-z][\w\-]*)\s+(?:got|was)\s+"
       rf"(?:stolen|totaled|totalled|written\s+off|repossessed|towed\s+for\s+good)(?:\s+(?:last|this|yesterday|from|while|at|in)\b[^.!?]*)?"
       rf"{END}", polarity=False, change=True, opening=True),
    _r("en.lost_thing", "owns", "lost / broke / dropped my X (owns, negated)", "I lost my phone",
       rf"{A}{_PERFECT}\s+(?:lost|broke|smashed|destroyed|totaled|totalled|crashed|dropped|cracked|drowned)\s+(?:my|our|the)\s+(?:old\s+|new\s+)?"
       rf"(?P<v>{OWN}|{PRODUCT})(?:\s+(?:last|this|yesterday|on|at|in|while)\b[^.!?]*)?{END}", polarity=False, change=True),
    _r("en.city_person", "lives_in", "am a Dallas person / a New Yorker now (lives there)", "so I'm a Dallas person now",
       rf"{A}{BE}\s+(?:officially\s+)?(?:a|an)\s+(?P<v>{CAP})\s+(?:person|girl|guy|resident|local)(?:\s+now)?\s*[.!]*\s*$", change=True),
    _r("en.handed_down", "owns", "my cousin sold / gave me his old X (owns, from then on)", "my cousin sold me his old iPhone 12",
       rf"\s+(?:sold|gave|handed|lent)\s+me\s+(?:his|her|their|an?|the)\s+(?:old\s+|spare\s+|used\s+)?(?P<v>{PRODUCT}){TAIL}{END}",
       change=True, to_user=True),
    _r("en.on_unit", "works_in", "am on med-surg / nights at X (a unit, and the employer)", "I'm on med-surg at Mercy",
       rf"{A}{BE}\s+(?:now\s+)?on\s+(?P<v>[a-z]+(?:-[a-z]+)+|(?-i:[A-Z]{{2,5}}))\s+(?:at|for)\s+(?P<org>{CAP}){TAIL}{END}", check="habit"),
    _r("en.shift_on", "habit", "am on nights / the day shift (a schedule)", "I'm on nights",
       rf"{A}{BE}\s+(?:back\s+)?on\s+(?P<v>nights|days|evenings|weekends|overnights|(?:the\s+)?(?:night|day|early|late|evening|graveyard)"
       rf"\s+shift)\b(?!\s+(?:at|for)\s)[^.!?]*{END}", change=True),
    _r("en.shift_off", "habit", "(finally) off nights (a schedule ended)", "finally off nights",
       rf"^\s*(?:(?:so|and|finally|officially)\s+)*(?:I'm\s+|I\s+am\s+)?(?:finally\s+)?off\s+(?P<v>nights|overnights|(?:the\s+)?night\s+shift|"
       rf"weekends)\b[^.!?]*{END}", polarity=False, change=True, opening=True),
    _r("en.shift_from_now", "habit", "day shift from now on (a schedule, from then on)", "day shift from now on",
       rf"^\s*(?P<v>(?:day|night|early|late|evening|morning)\s+shift|nights|days|weekends|mornings)\s+(?:from\s+now\s+on|now|starting\s+\w+)"
       rf"\b[^.!?]*{END}", change=True, opening=True),
    _r("en.seeing_someone", "partner", "have been seeing someone (new) (a partner, named after)", "I've been seeing someone new",
       rf"{A}(?:(?:'ve|\s+have)?\s+been|'m|\s+am)\s+(?:seeing|dating|talking\s+to)\s+(?P<v>someone|somebody)(?:\s+new)?{TAIL}{END}", change=True,
       check="habit"),
    _r("en.been_in", "lives_in", "have been in X since / for … (lives there)", "I've been in Seattle since 2015",
       rf"{A}(?:'ve|\s+have|'s|\s+has)\s+been\s+(?:living\s+)?in\s+(?P<v>{CAP})(?:\s+(?:since|for)\b[^.!?]*)?{END}",
       when=re.compile(r"(?i:\bsince\b|\bfor\s+(?:years|ages|a\s+while|(?:a|one|two|three|four|five|six|\d+)\s+(?:years?|months?)))")),
    _r("en.year_at", "education", "am in my second year at X (a school)", "I'm in my second year at NYU Law",
       rf"{A}{BE}\s+in\s+(?:my|her|his|their)\s+(?:first|second|third|fourth|fifth|final|last|senior|junior)\s+year\s+(?:at|of)\s+"
       rf"(?P<v>{CAP}){TAIL}{END}"),
    _r("en.drinks_mostly", "habit", "drink tea mostly / eat X usually (what one usually has)", "I drink tea mostly",
       rf"{A}\s+(?P<v>(?:drink|drinks|eat|eats|take|takes|ride|rides|wear|wears|read|reads|watch|watches|cook|cooks)\s+[\w\s\-]{{1,20}}?)"
       rf"\s+(?:mostly|usually|mainly|nowadays|instead)\s*[.!]*\s*$"),
    _r("en.traded", "owns", "traded (in) the X for a Y (Y owned from then on, X no more)", "traded the Civic in for a RAV4",
       rf"{A}{_PERFECT}\s+traded\s+(?:in\s+)?(?:my|our|the)\s+(?:old\s+)?(?P<old>{OWN}|{PRODUCT})\s+(?:in\s+)?for\s+(?:a|an|the)\s+"
       rf"(?:new\s+|used\s+)?(?P<v>{PRODUCT}|{OWN}){TAIL}{END}", change=True),
    _r("en.gave_up_being", "diet", "gave up on being vegetarian / am no longer vegan (diet, negated)", "gave up on being vegetarian",
       rf"{A}{_PERFECT}\s+(?:gave\s+up\s+(?:on\s+)?being|stopped\s+being|quit\s+being)\s+(?:a\s+|an\s+)?(?P<v>vegetarian|vegan|pescatarian|"
       rf"keto|paleo|gluten-free|dairy-free|sober){TAIL}{END}", polarity=False, change=True),
    _r("en.eats_now", "diet", "eat chicken / meat / fish now (diet, from then on)", "I eat chicken now",
       rf"{A}\s+(?:eat|eats)\s+(?P<v>meat|fish|chicken|beef|pork|seafood|eggs|dairy|everything)(?:\s+again)?\s+(?:now|again|these\s+days)\b[^.!?]*{END}",
       change=True),
    _r("en.in_now", "lives_in", "am in X now / these days (where one lives now)", "but now I'm in Denver",
       rf"{A}{BE}\s+(?:now\s+)?(?:based\s+)?in\s+(?P<v>{CAP})(?:\s+(?:now|these\s+days|nowadays))?\s*[.!]*\s*$", change=True,
       when=re.compile(r"(?i:\bnow\b|these\s+days|nowadays)")),
    _r("en.started_school_at", "education", "started med school / college at X (the school, from then on)",
       "my sister Hannah just started med school at Michigan",
       rf"{A}{_PERFECT}\s+(?:started|starts|began|is\s+starting|got\s+into)\s+(?:med|law|grad|nursing|business|dental|vet|art|"
       rf"film|cooking|high|middle)?\s*(?:school|college|university|classes|a\s+program)\s+at\s+(?P<v>{CAP}){TAIL}{END}",
       change=True),
    _r("en.started_school", "education", "started kindergarten / college / at X (a school, from then on)",
       "My grandson Eli started kindergarten this fall",
       rf"{A}{_PERFECT}\s+(?:started|starts|began|is\s+starting)\s+(?:at\s+)?(?P<v>kindergarten|preschool|pre-k|school|"
       rf"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)\s+grade|middle\s+school|"
       rf"high\s+school|college|university|grad\s+school|law\s+school|med\s+school|{_SCHOOLISH}){TAIL}{END}", change=True, check="habit"),
    _r("en.on_shift_at", "employer", "am on the night shift at X (where one works)", "I'm on the night shift at the warehouse",
       rf"{A}{BE}\s+(?:working\s+)?(?:on\s+)?(?:the\s+)?(?:night|day|early|late|morning|evening|graveyard|weekend)\s+shift\s+"
       rf"(?:at|for)\s+(?:the\s+)?(?P<v>{CAP}|[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?){TAIL}{END}", check="habit"),
    _r("en.rent_in", "lives_in", "rent / share a flat in X (lives there)", "We rent a two-bedroom apartment in Queens",
       rf"{A}\s+(?:rent|rents|share|shares|live\s+in)\s+(?:a|an|our|my|the)\s+[\w\s\-]{{0,30}}?(?:apartment|flat|house|condo|place|"
       rf"studio|room|home|townhouse|loft)\s+(?:in|near)\s+(?P<v>{CAP}){TAIL}{END}"),
    _r("en.on_device", "uses", "am (still) on an iPhone 11 (the phone or computer one uses)", "I'm still on an iPhone 11",
       rf"{A}{BE}\s+(?:still\s+|now\s+)?on\s+(?:a|an|the|my)\s+(?:old\s+|new\s+|ancient\s+)?(?P<v>{PRODUCT}){TAIL}{END}"),
    _r("en.runs_life", "uses", "X runs my life / keeps me organized (a tool one lives by)", "Notion runs my whole life at this point",
       rf"^\s*(?P<v>{PRODUCT})\s+(?:basically\s+|literally\s+)?(?:runs|organizes|manages|keeps|holds)\s+(?:my|our)\s+(?:whole\s+|entire\s+)?"
       rf"(?:life|day|days|schedule|work|business|house|brain|everything)\b[^.!?]*{END}", opening=True, speaker=True),
    _r("en.been_at", "employer", "has been at the same X since / for … (an employer)", "My mom's been at the same Walgreens since before I was born",
       rf"{A}(?:'s|'ve|\s+has|\s+have)\s+been\s+(?:at|with)\s+(?:the\s+same\s+)?(?P<v>{_ORG})\s+(?:for|since)\b[^.!?]*{END}"),
    _r("en.gig", "employer", "drive / do Amazon Flex, DoorDash orders (gig work)", "I drive Amazon Flex most mornings",
       rf"{A}\s+(?:drive|drives|do|does|deliver|delivers|work|works|pick\s+up)\s+(?:for\s+)?(?P<v>{_GIGS})\b[^.!?]*{END}"),
    _r("en.learning_on", "uses", "am learning X on / with Y (a tool)", "I'm learning Japanese on Duolingo",
       rf"{A}{BE}\s+(?:slowly\s+|still\s+)?(?:learning|studying|practicing|practising|doing)\s+[\w\s\-]{{1,24}}?\s+(?:on|with|using)\s+"
       rf"(?P<v>{PRODUCT}){TAIL}{END}"),
    _r("en.moved_everything", "uses", "moved everything / my notes over to X (a tool, from then on)", "I moved everything to Notion",
       rf"{A}{_PERFECT}\s+(?:moved|migrated|switched|ported)\s+(?:everything|all\s+(?:my|our)\s+[\w\s]{{1,15}}?|my\s+[\w\s]{{1,15}}?)\s+"
       rf"(?:over\s+)?to\s+(?P<v>{PRODUCT}){TAIL}{END}", change=True),
    _r("en.not_at", "employer", "am not at / no longer with X (employer, negated)", "I'm not at Amazon anymore",
       rf"{A}{BE}\s+(?:not|no\s+longer)\s+(?:at|with|working\s+(?:at|for))\s+(?P<v>{_ORG})(?:\s+anymore)?{TAIL}{END}",
       polarity=False, change=True),
    _r("en.no_more", "habit", "no more running / X for me (habit, negated)", "so no more running for a while",
       rf"^\s*(?:(?:so|and|but|well|ugh)\s+)?(?:[\w\s]{{1,20}}?\s+(?:says|said)\s+)?no\s+more\s+(?P<v>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)"
       rf"(?:\s+for\s+me)?{TAIL}{END}", polarity=False, change=True, opening=True, reported=True),
    _r("en.eats_again", "diet", "started eating meat / fish again (diet, from then on)", "I started eating meat again",
       rf"{A}(?:{_PERFECT}\s+(?:started|began|am|went\s+back\s+to)|'m|\s+am)\s+eating\s+(?P<v>meat|fish|seafood|chicken|dairy|eggs|pork|beef|"
       rf"red\s+meat|sugar|gluten|carbs|bread)(?:\s+again)?{TAIL}{END}", change=True),
    _r("en.named_guy", "@kin", "my <kin> is a guy / woman named X (the user's relation)", "my boss is a guy named Kevin",
       rf"{BE}\s+(?:a|an|this)\s+(?:guy|man|woman|lady|girl|dude|person|fellow)\s+(?:named|called)\s+(?P<v>(?-i:[A-Z][\w'\-]+)){TAIL}{END}",
       to_user=True),
    _r("en.moved_in_with_in", "lives_in", "moved in with my brother (up) in X (lives in X from then on)",
       "moved in with my brother up in Spokane",
       rf"{A}{_PERFECT}\s+(?:moved|has\s+moved|is\s+moving)\s+in\s+with\s+[\w\s'\-]{{2,30}}?\s+(?:up\s+|down\s+|out\s+|over\s+)?in\s+"
       rf"(?P<v>{CAP}){TAIL}{END}", change=True),
    _r("en.on_leave", "status", "am on maternity leave / sabbatical (until …) (a state for now)", "I'm on maternity leave until January",
       rf"{A}{BE}\s+(?:currently\s+)?on\s+(?P<v>(?:maternity|paternity|parental|sick|medical|bereavement|unpaid|disability)\s+leave|"
       rf"leave|vacation|holiday|sabbatical|furlough|bed\s+rest|a\s+(?:\d+-week\s+)?contract(?:\s+in\s+{CAP})?)"
       rf"(?:\s+(?:until|till|through|for|since)\b[^.!?]*)?{END}", scope=Scope.TEMPORAL),
    _r("en.partner_together", "partner", "X and I have been together / dating / married (a partner)", "Priya and I have been together three years",
       rf"^\s*(?:(?:so|and|well|oh)\s+)?(?P<v>(?-i:[A-Z][a-z'\-]+))\s+and\s+I(?:\s+|(?='))(?:have|'ve)\s+been\s+(?:together|dating|married|going\s+out|"
       rf"living\s+together)\b[^.!?]*{END}", opening=True),
    _r("en.broke_up_with", "partner", "X and I broke up / split (partner, negated)", "Marcus and I broke up in June",
       rf"^\s*(?:(?:so|and|well|oh)\s+)?(?P<v>(?-i:[A-Z][a-z'\-]+))\s+and\s+I\s+(?:broke\s+up|split\s+up|split|separated|"
       rf"called\s+it\s+quits|are\s+done|got\s+divorced|divorced)\b[^.!?]*{END}", polarity=False, change=True, opening=True),
    _r("en.broke_up", "relationship_status", "broke up / got dumped (single from then on)", "I broke up with my boyfriend",
       rf"{A}{_PERFECT}\s+(?P<v>broke\s+up|got\s+dumped|split\s+up)\b[^.!?]*{END}", change=True, check="habit",
       clean=lambda v: "single"),
    _r("en.major", "education", "am a bio major / majoring in X (what one studies)", "I'm a bio major, pre-med track",
       rf"{A}(?:{BE}\s+(?:(?:now|officially)\s+)?(?:a|an)\s+(?P<v>[\w\-]+(?:\s+[\w\-]+)?)\s+major|{BE}\s+majoring\s+in\s+"
       rf"(?P<v2>[\w\-]+(?:\s+[\w\-]+)?)){TAIL}{END}", change=True, check="habit"),
    _r("en.degree_at", "education", "(second year of) my MPH / PhD / degree at X", "second year of my MPH at Emory",
       rf"^\s*(?:(?:first|second|third|fourth|final|last)\s+year\s+(?:of|in)\s+)?(?:my\s+|a\s+|an\s+)?(?:MPH|MBA|MFA|MSW|MSc|MS|MA|BA|BS|"
       rf"PhD|Ph\.D\.|master'?s|bachelor'?s|degree|undergrad|program|residency|doctorate|postdoc)\s+(?:at|from|in)\s+(?P<v>{CAP})"
       rf"{TAIL}(?:\s*,\s*[^.!?]*)?{END}", opening=True),
    _r("en.contact_phone", "phone", "text / call me at N, my number is N", "you can text me at 555-0142",
       rf"^.*?\b(?:text|call|reach|ring|whatsapp|message)\s+me\s+(?:at|on)\s+(?P<v>\+?[\d][\d\s().\-]{{6,18}}\d)\b[^.!?]*$",
       opening=True, check="habit"),
    _r("en.contact_email", "email", "email me at X / use my address X", "just put my school one, jkreyes@ucsd.edu",
       rf"^(?!.*\b(?:his|her|their|your|its)\b[^@]{{0,30}}@)[^@]{{0,60}}?(?P<v>[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+)\b[^.!?]*$",
       opening=True, check="habit"),
    _r("en.booked", "plan", "booked / planned a trip to X (for …) (a plan)", "we booked Japan for next April",
       rf"{A}{_PERFECT}(?:\s+|(?='))(?:booked|planned|are\s+planning|'re\s+planning|reserved)\s+(?:a\s+trip\s+to\s+|flights\s+to\s+|tickets\s+to\s+)?"
       rf"(?P<v>{CAP})\b[^.!?]*{END}", check="habit"),
    _r("en.been_to", "visited", "have been to X (twice) (a place visited)", "I've been to Iceland twice",
       rf"{A}(?:'ve|\s+have|'d|\s+had)\s+(?:already\s+|never\s+)?been\s+to\s+(?P<v>{CAP})(?:\s+(?:once|twice|\w+\s+times))?{TAIL}{END}"),
    _r("en.no_pets_home", "owns", "there are no pets / there's no car in the house (owns, negated)", "so there are no pets in the house right now",
       rf"^\s*(?:(?:so|and|but|now)\s+)?there(?:\s+|(?='))(?:are|is|'s)\s+no\s+(?:more\s+)?(?P<v>pets|animals|car|cars|TV)\b[^.!?]*{END}",
       polarity=False, opening=True),
    _r("en.theme_bare", "preferred_ui_theme", "dark mode (on everything, please) (a theme said alone)", "dark mode on everything please",
       rf"^\s*(?P<v>dark|light)\s+mode(?:\s+(?:on\s+everything|everywhere|please|always|for\s+everything|forever|all\s+day))*"
       rf"\s*(?:please|pls|plz)?{END}", opening=True),
    _r("en.runs_business", "owns", "own / run / have had a bakery, shop, practice (a business)", "my cousin Ray runs a tattoo shop in Austin",
       rf"{A}(?:'ve\s+had|\s+have\s+had|'ve\s+been\s+running|\s+(?:been\s+running|running|own|owns|run|runs|opened|started|manage|"
       rf"manages))\s+(?:a|an|the|our|my|his|her|their)\s+(?:same\s+|own\s+)?(?:little\s+|small\s+|tiny\s+)?(?P<v>[\w\s\-]{{0,25}}?(?:shop|store|business|restaurant|cafe|café|bakery|salon|studio|bar|"
       rf"practice|clinic|company|firm|farm|garage|agency|food\s+truck|place|daycare|gym|boutique|pharmacy|repair))"
       rf"(?:\s+(?:in|on|at|behind|near|downtown)\b[^.!?]*)?{END}", check="habit"),
    _r("en.name_is", "name", "I'm X (btw) (the speaker's name, not a nationality)", "I'm Tamsin btw",
       rf"^\s*(?:(?:hi|hey|hello|oh|so|and|well)[,\s]+)?(?:I'm|I\s+am)\s+(?P<v>(?-i:(?!{_NATIONS})[A-Z][a-z]{{2,14}}))"
       rf"(?:\s+(?:btw|by\s+the\s+way|here|lol|haha|fwiw))?(?:\s+but\b[^.!?]*)?{END}", opening=True),
    _r("en.does_in", "uses", "do / make / draw X in Y (a tool by name)", "I do all the cake mockups in Procreate",
       rf"{A}\s+(?:do|does|make|makes|draw|draws|edit|edits|design|designs|build|builds|code|codes|write|writes|"
       rf"plan|plans|run|runs|manage|manages|handle|handles)\s+(?:all\s+)?(?:the\s+|my\s+|our\s+)?[\w\s\-]{{1,25}}?\s+"
       rf"(?:in|on|with|using|through)\s+(?P<v>{PRODUCT}){TAIL}{END}"),
    _r("en.gerund_job", "job_title", "am travel nursing / bartending / tutoring (a job said as what one does)", "right now I'm travel nursing",
       rf"{A}{BE}\s+(?:currently\s+|now\s+|still\s+)?(?P<v>travel\s+nursing|nursing|bartending|waitressing|waiting\s+tables|tutoring|"
       rf"freelancing|consulting|contracting|substitute\s+teaching|subbing|nannying|babysitting|driving\s+for\s+(?-i:[A-Z]\w+)|"
       rf"doing\s+(?:doordash|uber|lyft|instacart))(?:\s+(?:full-time|part-time|now|again))?{TAIL}{END}", check="habit"),
    _r("en.works_for", "employer", "deliver / drive / cook for X (an employer)", "I cook for Mario's Trattoria on weekends",
       rf"{A}\s+(?:deliver|delivers|drive|drives|cook|cooks|clean|cleans|nanny|nannies|tutor|tutors|write|writes|design|designs|"
       rf"volunteer|volunteers|sub|subs|bartend|bartends)\s+for\s+(?P<v>{CAP}){TAIL}(?:\s*,\s*[^.!?]*)?{END}"),
    _r("en.landed_at", "employer", "landed at / took a job at X (an employer, from then on)", "landed at Home Depot",
       rf"{A}{_PERFECT}\s+(?:landed|ended\s+up|took\s+a\s+job|got\s+on|started)\s+(?:at|with)\s+(?P<v>{_ORG}){TAIL}{END}", change=True),
    _r("en.transferred", "works_in", "transferred (up) to the ICU (a unit, from then on)", "transferred up to the ICU last month",
       rf"{A}{_PERFECT}\s+(?:got\s+|was\s+)?transferred\s+(?:up\s+|over\s+|back\s+|down\s+)?to\s+(?:the\s+)?"
       rf"(?P<v>(?-i:[A-Z][A-Z\-]+)|(?-i:[A-Z][a-z]+)\s+(?:unit|floor|ward|department|team|desk|shift)|(?:night|day|weekend)\s+shift|"
       rf"[a-z]+-[a-z]+){TAIL}{END}", change=True, check="habit"),
    _r("en.ditched", "uses", "ditched / dropped / deleted X (a tool, negated)", "we ditched Trello",
       rf"{A}{_PERFECT}\s+(?:ditched|dropped|dumped|abandoned|uninstalled|deleted|cancelled|canceled|quit|got\s+rid\s+of)\s+"
       rf"(?:my\s+|our\s+|the\s+)?(?P<v>{PRODUCT}){TAIL}{END}", polarity=False, change=True),
    _r("en.put_in", "uses", "put everything in X (a tool, from then on)", "my daughter put everything in a Google Sheet",
       rf"{A}{_PERFECT}\s+(?:put|moved|keep|keeps|track|tracks)\s+(?:everything|it\s+all|all\s+(?:of\s+)?(?:it|our\s+\w+|my\s+\w+))\s+"
       rf"(?:in|into|on)\s+(?:a\s+|an\s+|the\s+)?(?P<v>{PRODUCT}){TAIL}{END}", change=True),
    _r("en.raised_rent", "rent", "(landlord) raised us / the rent to N (rent, from then on)", "landlord raised us to $1,575",
       rf"^\s*(?:(?:so|and|ugh|well)\s+)?(?:the\s+|our\s+|my\s+)?(?:landlord|building|management)\s+(?:just\s+)?(?:raised|increased|"
       rf"bumped|hiked)\s+(?:us\s+|it\s+|the\s+rent\s+|me\s+)?(?:up\s+)?to\s+(?P<v>{NUM_EN})\b[^.!?]*{END}",
       change=True, opening=True),
    _r("en.diagnosis", "health_condition", "got / have the celiac diagnosis (a condition)", "since I got the celiac diagnosis",
       rf"{A}{_PERFECT}\s+(?:got|received|have|had)\s+(?:a|an|the|my)\s+(?P<v>[\w'\-]+(?:\s+[\w'\-]+)?)\s+diagnosis\b[^.!?]*{END}",
       change=True),
    _r("en.doing_diet", "diet", "have been doing gluten-free / keto (a diet)", "I've been doing gluten-free",
       rf"{A}(?:'ve\s+been|\s+have\s+been|'m|\s+am)?\s+(?:doing|eating|going)\s+(?P<v>gluten[-\s]free|dairy[-\s]free|keto|paleo|"
       rf"low-carb|vegan|vegetarian|plant-based|whole30|intermittent\s+fasting|carnivore)\b[^.!?]*{END}", change=True),
    _r("en.moved_in_with", "lives_in", "moved in with us / her boyfriend (lives with them from then on)",
       "My mom moved in with us last week",
       rf"{A}{_PERFECT}\s+(?:moved|has\s+moved|is\s+moving)\s+in\s+with\s+(?P<v>us|me|(?:my|our|his|her|their)\s+[\w\s'\-]{{2,24}}?|{CAP})"
       rf"{TAIL}{END}", change=True, check="habit", clean=lambda v: f"with {v}"),
)
