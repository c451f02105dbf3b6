"""English frame rules: what the rest of a clause says about its subject (health, habits, pets…).

The rest starts at the verb ("I|'m allergic to…", "My sister| lives in…"). Keywords match in any
case; places, employers and products must be capitalised, which is what tells "I live in Porto"
from "I live in fear".
"""

from __future__ import annotations

from hlmem.application.extraction import frames_en_life, frames_en_talk
from hlmem.application.extraction.frames import Rule, rx
from hlmem.application.extraction.lexicon import (
    CONDITION_EN,
    DEVICE_EN,
    DIETS_EN,
    FREQ_EN,
    HABIT_ADV_EN,
    HABITS_EN,
    NUM_EN,
    QUANTITY_EN,
    STATES_EN,
)
from hlmem.application.extraction.frames_en_words import (
    ADJ, A, BE, CAP, COUNT, DESCRIBED, END, HAVE, HEDGE, NEG_DO, OWN, PETS, PRODUCT, QTY, SEVERITY, TAIL,
)
from hlmem.application.extraction.lexicon import NUMBER_WORDS, word_number
from hlmem.application.extraction.subjects import REL_ALL_EN


def _r(name: str, slot: str, what: str, example: str, pattern: str, **kw: object) -> Rule:
    return Rule(name=name, lang="en", slot=slot, what=what, example=example, regex=rx(pattern), **kw)  # type: ignore[arg-type]


_BASE: tuple[Rule, ...] = (
    # -- kin named ------------------------------------------------------------------------------
    _r("en.kin_named", "@kin", "my <kin> is called/named X, my <kin>'s name is X", "My sister-in-law is called Priya",
       rf"(?:{BE}\s+(?:called|named)|'s\s+name\s+is|\s+goes\s+by)\s+(?P<v>(?-i:[A-Z][\w'\-]+(?:\s+[A-Z][\w'\-]+)?)){END}",
       to_user=True),
    # -- health ---------------------------------------------------------------------------------
    _r("en.allergy", "allergy", "(am|is) (not) allergic to X", "I'm allergic to penicillin",
       rf"{A}{BE}(?P<neg>\s+not)?{A}(?:\s+(?:severely|very|mildly|slightly|a\s+bit|quite|deathly|super|also))?\s+allergic\s+to\s+"
       rf"(?P<v>[^,.!?;]{{1,40}}?)(?:\s+(?:since|for|which|so|when|if)\b[^.!?]*)?{END}", hedged=True, reported=True),
    _r("en.allergy_have", "allergy", "have a(n) X allergy", "I have a peanut allergy",
       rf"{A}{HAVE}\s+(?:a|an)\s+(?:(?:severe|mild|bad|serious)\s+)?(?P<v>[a-z][\w\s\-]{{1,24}}?)\s+allergy{TAIL}{END}",
       hedged=True, reported=True),
    _r("en.allergy_to", "allergy", "have an allergy to X", "I have an allergy to latex",
       rf"{A}{HAVE}\s+(?:a|an)\s+(?:(?:severe|mild|bad|serious)\s+)?allergy\s+to\s+(?P<v>[^,.!?;]{{1,30}}?){TAIL}{END}",
       hedged=True, reported=True),
    _r("en.condition", "health_condition", "have/suffer from/live with X (a condition)", "I have asthma",
       rf"{A}(?:{HAVE}|\s+(?:suffer|suffers)\s+from|\s+(?:live|lives)\s+with)\s+{SEVERITY}"
       rf"(?P<v>{CONDITION_EN}){TAIL}{END}", hedged=True, reported=True),
    _r("en.diagnosed", "health_condition", "was diagnosed with / developed X: from then on", "I was diagnosed with asthma last year",
       rf"{A}(?:(?:\s+|(?='))(?:was|were|got|has\s+been|have\s+been|'ve\s+been|'s\s+been)\s+diagnosed\s+with|\s+(?:developed|caught|got))\s+"
       rf"{SEVERITY}(?P<v>{CONDITION_EN}){TAIL}{END}", hedged=True, reported=True, change=True),
    _r("en.condition_state", "health_condition", "am lactose intolerant / diabetic / pre-diabetic", "I'm lactose intolerant",
       rf"{A}{BE}(?P<neg>\s+not)?{A}(?:\s+(?:slightly|a\s+bit|mildly))?\s+(?P<v>{STATES_EN}){TAIL}{END}",
       hedged=True, reported=True),
    _r("en.condition_verb", "health_condition", "snore / grind my teeth / sleepwalk (a bodily habit)", "My dentist said I grind my teeth",
       rf"{A}\s+(?P<v>snore|grind\s+my\s+teeth|sleepwalk|sleep\s+talk|bite\s+my\s+nails|get\s+migraines|get\s+panic\s+attacks)"
       rf"(?:\s+(?:at\s+night|a\s+lot|sometimes|often))?{END}", hedged=True, reported=True),
    _r("en.likes", "likes", "(don't) like/love/enjoy X — any subject", "My mom loves gardening",
       rf"{A}(?P<neg>\s+(?:don't|doesn't|do\s+not|does\s+not|no\s+longer|never))?(?:\s+(?:really|absolutely|totally))?\s+"
       rf"(?:like|likes|love|loves|enjoy|enjoys|adore|adores)\s+(?P<v>(?!it\b|that\b|this\b|you\b|them\b|to\s+think)[^,.!?;]{{2,40}}?){END}"),
    # -- diet -----------------------------------------------------------------------------------
    _r("en.diet_is", "diet", "am (not) vegetarian/vegan/on a keto diet", "I'm vegetarian",
       rf"{A}{BE}(?P<neg>\s+not|\s+no\s+longer)?{A}\s+(?:(?:a|an)\s+)?(?P<v>{DIETS_EN}){TAIL}{END}"),
    _r("en.diet_went", "diet", "went/became/turned vegan, vegetarian…", "I went vegan in January",
       rf"{A}(?:(?:\s+|(?='))(?:have|'ve|has))?(?:\s+|(?='))(?:went|gone|became|become|turned|switched\s+to\s+being)\s+(?:a\s+|an\s+)?(?P<v>{DIETS_EN}){TAIL}{END}",
       change=True),
    _r("en.diet_eat", "diet", "eat gluten-free/vegan/halal", "I eat gluten-free",
       rf"{A}\s+(?:eat|eats|cook|follow)\s+(?P<v>(?:strictly\s+)?(?:gluten-free|vegan|vegetarian|halal|kosher|plant-based|"
       rf"dairy-free|low-carb|paleo|keto))(?:\s+(?:food|meals|diet))?{TAIL}{END}"),
    _r("en.diet_not", "diet", "don't/no longer eat or drink X (diet, negated)", "I don't eat pork anymore",
       rf"{A}{NEG_DO}{A}\s+(?:eat|drink|touch|consume)\s+(?:any\s+)?(?P<v>[a-z][\w\s\-]{{1,24}}?){TAIL}{END}", polarity=True,
       change=True),
    _r("en.diet_avoid", "diet", "avoid/cut out/gave up X (diet, negated)", "I avoid dairy",
       rf"{A}\s+(?P<neg>avoid|avoids|cut\s+out|have\s+cut\s+out|'ve\s+cut\s+out|gave\s+up|have\s+given\s+up|'ve\s+given\s+up|"
       rf"stay\s+away\s+from)\s+(?P<v>(?!smok|drink)[a-z][\w\s\-]{{1,24}}?){TAIL}{END}", change=True),
    # -- habits ---------------------------------------------------------------------------------
    _r("en.habit_quit", "habit", "quit/stopped/no longer + smoking, drinking…", "I no longer smoke",
       rf"{A}(?:\s+(?:don't|do\s+not|doesn't|no\s+longer|never)|(?:\s+|(?='))(?:quit|stopped|gave\s+up|have\s+quit|'ve\s+quit|have\s+stopped|'ve\s+stopped))\s+"
       rf"(?P<v>{HABITS_EN}){END}", polarity=False, change=True),
    _r("en.habit_freq", "habit", "an activity + every Tuesday / on weekends / twice a week", "I go swimming every Tuesday",
       rf"{A}(?:'ve\s+been|\s+have\s+been|'m|\s+am|'s|\s+is|'re|\s+are)?(?:\s+(?:usually|always|often|normally|regularly|"
       rf"typically|try\s+to|like\s+to|tend\s+to))?\s+"
       rf"(?P<v>(?!have\b|had\b|has\b|am\b|'m\b|was\b|will\b|would\b|live|work)[a-z][\w'\-]*(?:\s+(?!every|each|on\s+week|almost|nearly)"
       rf"[\w'\-:.]+){{0,6}}?\s+(?:(?:almost|nearly|pretty\s+much|basically)\s+)?(?:{FREQ_EN})(?:\s+(?:morning|evening|night|afternoon))?)"
       rf"{TAIL}{END}", on_text=True),
    _r("en.habit_adv", "habit", "usually/always + an activity", "I always have oatmeal for breakfast",
       rf"\s+(?P<v>{HABIT_ADV_EN}\s+(?!think|feel|forget|say|like|love|hate|wonder)[a-z][\w'\-]*(?:\s+[\w'\-]+){{0,6}}?){END}"),
    _r("en.kin_have_named", "@kin", "have a son/sister named X", "I have a son named Max",
       rf"{A}{HAVE}\s+(?:a|an|one)\s+(?:(?:younger|older|little|big|elder|twin)\s+)?(?P<kin>{REL_ALL_EN})\s*,?\s+"
       rf"(?:named|called)\s+(?P<v>(?-i:[A-Z][\w'\-]+)){TAIL}{END}"),
    _r("en.kin_have", "@kin", "have a (younger) brother / two cousins", "I have a younger brother",
       rf"{A}{HAVE}\s+(?P<v>{COUNT}(?:(?:younger|older|little|big|elder|twin)\s+)?(?P<kin>{REL_ALL_EN})s?){TAIL}{END}"),
    # -- possessions and pets -------------------------------------------------------------------
    _r("en.pet", "owns", "have/own/adopted a X (a pet) (called Y)", "We have a cat called Miso",
       rf"{A}(?:{NEG_DO}\s+have|{HAVE}|\s+(?:own|owns|adopted|got|just\s+got|rescued|keep))\s+{COUNT}(?:any\s+)?{ADJ}{DESCRIBED}"
       rf"(?P<v>{PETS})(?:\s+(?:called|named)\s+(?P<n>(?-i:[A-Z][\w'\-]+)))?{TAIL}{END}"),
    _r("en.owns", "owns", "have/own/bought/drive a X (a vehicle, device, home)", "I own a small apartment downtown",
       rf"{A}(?:{NEG_DO}\s+(?:have|own)|{HAVE}|\s+(?:own|owns|bought|just\s+bought|got|drive|drives|ride|rent))\s+{COUNT}(?:any\s+|single\s+(?:piece\s+of\s+)?)?{ADJ}"
       rf"(?P<v>(?:{OWN})|{PRODUCT}){TAIL}{END}"),
    _r("en.device_is", "owns", "my phone/laptop/car is (a) X", "My laptop is a ThinkPad X1",
       rf"^\s*(?:my|our)\s+(?:{DEVICE_EN})(?:\s+is|'s)\s+(?:still\s+)?(?:a|an)?\s*(?P<v>{PRODUCT}){TAIL}{END}", opening=True),
    # -- quantities -----------------------------------------------------------------------------
    _r("en.quantity", "@k", "my budget/salary/rent/height is (about) N", "My rent is $1,800 a month",
       rf"^\s*(?:my|our|his|her|their)\s+(?:(?:monthly|annual|yearly|weekly|total|current|new)\s+)?(?P<k>{QTY})\s+"
       rf"(?:(?:for|on)\s+(?:the|a|an|my|our|this|that|a\s+new)\s+[\w\s\-]{{1,20}}?\s+)?"
       rf"(?:is|was|are|'s)\s+(?:now\s+|currently\s+|only\s+)?{HEDGE}(?P<v>{NUM_EN}(?:\s*(?:dollars|euros|pounds|usd|eur|gbp|"
       rf"yuan|rmb|bucks|cm|kg|lbs))?)(?:\s+(?:a|per|each)\s+(?:month|year|week))?(?:\s*,\s*[^.!?]*)?{END}", keys=QUANTITY_EN, hedged=True,
       opening=True),
    _r("en.quantity_change", "@k", "my rent/budget went up to / rose to N", "My rent went up to $1,700 a month",
       rf"^\s*(?:(?:my|our)\s+)?(?:(?:monthly|annual|yearly|new)\s+)?(?P<k>{QTY})\s+(?:went\s+up|went\s+down|goes\s+up|goes|went|rose|dropped|fell|increased|"
       rf"decreased|has\s+gone\s+up|is\s+going\s+up|changed)\s+to\s+(?P<v>{NUM_EN})(?:\s+(?:a|per)\s+(?:month|year))?{END}",
       keys=QUANTITY_EN, change=True, opening=True),
    _r("en.height", "height", "am (about) N cm / N feet tall", "I'm 180 cm tall",
       rf"{A}{BE}\s+{HEDGE}(?P<v>\d[\d.,]*\s*(?:cm|m|meters|metres|feet|foot|ft)?(?:\s*\d+\s*(?:inches|in))?|\d'\s?\d+\"?)\s+tall{END}",
       hedged=True),
    _r("en.weight", "weight", "weigh (about) N kg", "I weigh 70 kg",
       rf"{A}(?:\s+(?:weigh|weighs)|{BE})\s+{HEDGE}(?P<v>\d[\d.,]*\s*(?:kg|kilos|kilograms|lbs|pounds|stone))(?:\s+now)?{END}",
       hedged=True),
    _r("en.shoe", "shoe_size", "wear size N shoes", "I wear size 10 shoes",
       rf"{A}(?:\s+|(?='))(?:wear|wears|take|am|'m)\s+(?:a\s+)?(?:women's\s+|men's\s+|ladies'\s+)?(?:size\s+)?(?P<v>\d{{1,2}}(?:\.5)?)"
       rf"(?:\s+(?:shoes?|in\s+shoes|shoe\s+size|in\s+sneakers|wide|in\s+(?:most\s+|all\s+)?[\w\s\-]{{0,16}}?(?:shoes|sneakers|boots|"
       rf"trainers|heels|runners)))(?:{TAIL})?(?:\s*,\s*[^.!?]*)?{END}"),
    _r("en.shoe_bare", "shoe_size", "women's 9 / men's 10.5 (a shoe size said alone)", "women's 9, or a 9.5 in anything",
       rf"^\s*(?:(?:a|I'm\s+a|I\s+wear\s+a)\s+)?(?:women's|men's|ladies'|womens|mens)\s+(?:size\s+)?(?P<v>\d{{1,2}}(?:\.5)?)\b[^.!?]*$",
       opening=True),
    _r("en.age", "age", "is N (years old)", "My son is 12 years old",
       rf"{A}{BE}\s+(?:now\s+|turning\s+|almost\s+|nearly\s+)?{HEDGE}(?P<v>\d{{1,3}}|{NUMBER_WORDS})(?:\s+years?\s+old|\s+yo)?"
       rf"(?:\s+and\s+(?!has\b|is\b|works\b|lives\b)[^.!?]*)?{END}",
       hedged=True, clean=word_number),
    # -- tools ----------------------------------------------------------------------------------
    _r("en.switched", "uses", "switched/moved from A to B (B used, A retired)", "I switched from Evernote to Obsidian",
       rf"{A}(?:(?:\s+|(?='))(?:have|'ve|just))*(?:\s+|(?='))(?:switched|moved|migrated|changed|went)\s+(?:over\s+)?from\s+(?P<old>{PRODUCT})\s+(?:over\s+)?to\s+"
       rf"(?P<v>{PRODUCT}){TAIL}{END}", on_text=True, change=True),
    _r("en.replaced", "uses", "replaced A with B", "I replaced Chrome with Arc",
       rf"{A}\s+(?:replaced|swapped|ditched|dropped|traded)\s+(?P<old>{PRODUCT})\s+(?:with|for)\s+(?P<v>{PRODUCT}){TAIL}{END}",
       change=True),
    _r("en.stopped_using", "uses", "stopped using / no longer use X (retired)", "I stopped using Evernote",
       rf"{A}(?:\s+(?:stopped|quit)\s+using|{NEG_DO}\s+use)\s+(?P<v>{PRODUCT}){TAIL}{END}", polarity=False, change=True),
    _r("en.uses", "uses", "use/started using/mostly use X (a product) (for…)", "I use Figma for design work",
       rf"{A}(?:'ve\s+been|\s+have\s+been|'m|\s+am)?(?:\s+(?:mostly|mainly|usually|now|primarily|temporarily|still|currently))?"
       rf"\s+(?:use|uses|started\s+using|"
       rf"using|switched\s+to|rely\s+on|swear\s+by)\s+(?:an?\s+|the\s+|my\s+(?:old\s+|new\s+)?)?(?P<v>{PRODUCT}|{OWN})"
       rf"{TAIL}{END}"),
    # -- residence and work ---------------------------------------------------------------------
    _r("en.lives", "lives_in", "live(s) in X (…with, for, since…)", "I live in Porto with my two kids",
       rf"{A}(?:{NEG_DO}\s+live|'ve\s+been\s+living|'ve\s+lived|'s\s+lived|'m\s+living|\s+(?:live\s+out|lives\s+out|live|lives|living|have\s+been\s+living|"
       rf"has\s+been\s+living|have\s+lived|has\s+lived|am\s+living|"
       rf"is\s+living|reside|resides))(?:\s+(?:with\s+[\w\s']{{2,30}}?|on\s+(?:her|his|my|their|our)\s+own|alone|"
       rf"by\s+(?:herself|himself|myself|themselves)))?\s+in\s+(?:the\s+(?:suburbs|outskirts|middle|center|centre|heart)\s+of\s+)?"
       rf"(?P<v>{CAP}){TAIL}{END}"),
    _r("en.grew_up", "hometown", "grew up in / am from X", "I grew up in Leeds",
       rf"{A}\s+(?:grew\s+up|was\s+born\s+and\s+raised|was\s+raised|was\s+born)\s+in\s+(?:a\s+[\w\s\-]{{1,25}}?\s+(?:outside|near|in|"
       rf"north\s+of|south\s+of|east\s+of|west\s+of|outside\s+of)\s+)?(?P<v>{CAP}){TAIL}{END}"),
    _r("en.based", "lives_in", "am based in X / home is X", "I'm based in London",
       rf"{A}{BE}\s+(?:based|settled)\s+in\s+(?P<v>{CAP}){TAIL}{END}"),
    _r("en.moved", "lives_in", "moved/relocated to X (a move: from then on)", "I moved to Seattle last spring",
       rf"{A}(?:(?:\s+|(?='))(?:have|has|'ve|just|finally))*(?:\s+|(?='))(?:moved|relocated|move|relocate|came|headed)\s+(?:back\s+)?(?:home\s+)?(?:out\s+)?"
       rf"(?:down\s+|up\s+|over\s+|across\s+|out\s+west\s+|back\s+east\s+)?"
       rf"(?:here\s+)?to\s+(?P<v>{CAP}){TAIL}{END}",
       change=True),
    _r("en.home", "lives_in", "home (for me) is X", "Home for me is Melbourne these days",
       rf"^\s*home(?:\s+for\s+me)?\s+is\s+(?:now\s+)?(?P<v>{CAP}){TAIL}{END}", opening=True),
    _r("en.quit_joined", "employer", "quit/left A to join B (B from then on)", "I left Acme to join Globex",
       rf"{A}\s+(?:quit|left)\s+(?P<old>{CAP})\s+(?:and|to)\s+(?:join|joined|start\s+at|started\s+at|went\s+to)\s+(?P<v>{CAP}){TAIL}{END}",
       change=True),
    _r("en.works_as", "@where", "work(s) at/for X as a Y (employer and job title)", "I work at Stripe as a backend engineer",
       rf"{A}(?:\s+|(?='))(?:work|works|am\s+working|'m\s+working|is\s+working)\s+(?:at|for)\s+(?P<v>(?:the\s+)?{CAP})\s+as\s+(?:a|an)\s+"
       rf"(?P<job>[a-z][\w\s\-]{{1,30}}?){END}"),
    _r("en.works_at", "@where", "work(s) at/for X (as a Y)", "My husband works at Google",
       rf"{A}(?:\s+|(?='))(?:work|works|'ve\s+been\s+working|have\s+been\s+working|am\s+working|'m\s+working|is\s+working)"
       rf"(?:\s+(?:nights|days|weekends|part-time|full-time|remotely|there))?\s+(?P<prep>at|for|in)\s+"
       rf"(?P<v>(?:the\s+)?{CAP}|(?:the|a)\s+(?:[a-z]+\s+)?(?:council|bank|hospital|university|school|library|"
       rf"airport|clinic|bakery|restaurant|startup|factory|museum|pharmacy))"
       rf"(?:\s+(?:on|off)\s+(?-i:[A-Z][\w'\-]+)(?:\s+(?-i:[A-Z][\w'\-]+))?)?(?:\s+in\s+(?P<place>{CAP}))?{TAIL}{END}"),
    _r("en.new_job", "employer", "started a new job at / joined X", "I just started a new job at Shopify",
       rf"{A}\s+(?:started\s+(?:a\s+new\s+job|working)\s+at|joined|got\s+(?:a\s+)?(?:new\s+)?job\s+(?:at|with)|"
       rf"got\s+hired\s+(?:at|by)|landed\s+a\s+(?:new\s+)?job\s+at)\s+"
       rf"(?:(?:a|an)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?\s+(?:called|named)\s+)?(?P<v>{CAP}){TAIL}{END}",
       change=True),
    _r("en.promoted", "job_title", "got promoted to / became (a) X", "I got promoted to senior designer",
       rf"{A}(?:(?:\s+|(?='))(?:got|was|have\s+been|'ve\s+been))?(?:\s+|(?='))(?:promoted\s+to|became|become|'ve\s+become|have\s+become|retrained\s+as)\s+"
       rf"(?:a\s+|an\s+)?(?P<v>[a-z][\w\s\-]{{1,30}}?){TAIL}{END}", change=True),
    _r("en.job", "job_title", "is/am a X (a job word)", "My brother-in-law is a dentist",
       rf"{A}{BE}(?P<neg>\s+not|\s+no\s+longer)?\s+(?:a|an)\s+(?P<v>[a-z][\w\s\-]{{1,30}}?)(?:\s+in\s+(?P<place>{CAP}))?{TAIL}{END}"),
)

#: Every English frame rule, in the order tried: life changes first, then the base table.
RULES: tuple[Rule, ...] = (*frames_en_talk.FIRST, *frames_en_life.RULES, *_BASE, *frames_en_talk.LAST)
