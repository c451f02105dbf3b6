"""English frame rules for how people say things in passing: amounts that move ("down to 198",
"paying $1,400 for my studio"), tools one is on or has left ("still on an iPhone 12", "everything's
in Linear now"), work said without a full sentence ("Night shift nurse at St. Mary's", "I'm at
Shopify on the checkout team"), and partners by name ("married to Dan", "her name is Jordan").

``FIRST`` is tried before the life-change table (it reads forms another rule would misread:
"gave up on Android" is a platform left, not a diet); ``LAST`` after the base table (it only fills
what nothing else read).
"""

from __future__ import annotations

from hlmem.application.extraction.frames import Rule, rx
from hlmem.application.extraction.frames_en_words import A, BE, CAP, END, PRODUCT, TAIL
from hlmem.application.extraction.lexicon import NUM_EN

_PERFECT = r"(?:'ve|'s|'d|\s+(?:have|has|had|just|recently|finally|officially|already))*"
_ORG = r"(?:the\s+)?(?-i:[A-Z][\w.&'\-]*(?:\s+(?:[A-Z][\w.&'\-]*|of|de|&))*)"
#: A weight said with its unit, or a bare number a weight is said with ("down to 198").
_WEIGHT = rf"(?P<v>\d{{1,3}}(?:\.\d)?\s*(?:lbs?|pounds|kg|kgs|kilos?)\b|\d{{2,3}}(?:\.\d)?)(?![\d,.]*\s*(?:k\b|%|dollars|bucks|an\s+hour))"
_MONEY = r"(?:[$€£¥]\s?\d[\d,.]*\s?(?:k|K)?|\d[\d,.]*\s?(?:k|K|grand)\b|\d[\d,.]*\s*(?:dollars|bucks|euros|pounds\s+sterling))"
#: Places one rents.
_HOME = r"(?:studio|apartment|flat|place|room|house|condo|one-bedroom|two-bedroom|1br|2br|rental|unit|loft)"



def _r(name: str, slot: str, what: str, example: str, pattern: str, **kw: object) -> Rule:
    return Rule(name=name, lang="en", slot=slot, what=what, example=example, regex=rx(pattern), **kw)  # type: ignore[arg-type]


FIRST: tuple[Rule, ...] = (
    _r("en.bought_home_in", "owns", "bought a (little) two-bed / house / condo in X (owns it, and lives there from then on)",
       "bought a little two-bed in Bristol",
       rf"{A}{_PERFECT}\s+(?:bought|closed\s+on)\s+(?:a|an|our|my|the)\s+"
       rf"(?:(?:little|small|tiny|new|nice|cute|big|old)\s+)*(?P<v>two-bed|one-bed|three-bed|2-bed|1-bed|house|flat|condo|apartment|"
       rf"townhouse|bungalow|place|studio|cottage|home)(?:\s+[\w\-]+){{0,3}}?\s+(?:in|near)\s+(?P<place>{CAP}){TAIL}(?:\s*,\s*[^.!?]*)?{END}",
       change=True, place_slot="lives_in"),
    _r("en.do_a_lot_of", "hobby", "do a lot of knitting / some hiking (a hobby)", "I do a lot of knitting in the evenings",
       rf"{A}\s+(?:do|does)\s+(?:a\s+lot\s+of|lots\s+of|a\s+ton\s+of|some|a\s+bit\s+of|plenty\s+of)\s+"
       rf"(?P<v>[a-z]+ing(?:\s+[a-z]+ing)?){TAIL}{END}"),
    _r("en.drives_for", "job_title", "drive / deliver for Uber (a driver, and the employer)", "Now I drive for Uber",
       rf"{A}\s+(?P<v>drive|drives|deliver|delivers)\s+(?:full[\s\-]time\s+|part[\s\-]time\s+)?for\s+(?P<org>{CAP})"
       rf"(?:\s+(?:now|full[\s\-]time|part[\s\-]time|these\s+days))?{TAIL}(?:\s*,\s*[^.!?]*)?{END}", change=True, check="habit",
       clean=lambda v: "delivery driver" if v.lower().startswith("deliver") else "driver", org_slot="employer"),
    _r("en.gave_up_on", "uses", "gave up on / am done with / moved off X (a tool or platform, negated)", "gave up on Android",
       rf"{A}{_PERFECT}\s+(?:gave\s+up\s+on|given\s+up\s+on|(?:am|'m)\s+done\s+with|moved\s+off(?:\s+of)?|got\s+off|"
       rf"(?:am|'m)\s+off)\s+(?:my\s+|the\s+)?(?P<v>{PRODUCT}){TAIL}{END}", polarity=False, change=True),
    _r("en.not_on", "uses", "am not on X anymore / no longer on X (a platform, negated)", "I'm not on Facebook anymore",
       rf"{A}{BE}\s+(?:not|no\s+longer)\s+on\s+(?P<v>{PRODUCT})(?:\s+(?:anymore|any\s+more))?(?:\s*,\s*[^.!?]*)?{END}",
       polarity=False, change=True),
    _r("en.everything_in", "uses", "everything's in X now / it all lives in X (the tool one keeps things in)",
       "everything's in Linear now",
       rf"^\s*(?:(?:and|so|now|but)\s+)*(?:everything|it\s+all|all\s+(?:of\s+)?(?:it|our\s+\w+|my\s+\w+))(?:'s|\s+is|\s+lives|"
       rf"\s+goes|\s+happens)\s+(?:in|on)\s+(?:a\s+|an\s+|the\s+)?(?P<v>{PRODUCT}){TAIL}{END}", change=True, opening=True),
    _r("en.amount_to", "weight", "(am) down to / back up to N (a weight, from then on)", "down to 198!!",
       rf"{A}(?:{BE})?(?:\s+(?:finally|now|all\s+the\s+way))?\s+(?:down|up|back\s+up|back\s+down|back)\s+to\s+{_WEIGHT}"
       rf"(?:\s+(?:lbs?|pounds|kg))?(?:\s+(?:from|since|after|and|now|already|again|finally|this|last|today|yesterday|on|at|in|"
       rf"as\s+of|by)\b[^.!?]*)?(?:\s*,\s*[^.!?]*)?{END}",
       change=True),
    _r("en.married_to", "spouse", "am married to X (the spouse)", "I've been married to Dan for eleven years",
       rf"{A}{BE}\s+(?:happily\s+)?married\s+to\s+(?P<v>(?-i:[A-Z][a-z'\-]+(?:\s+[A-Z][a-z'\-]+)?))"
       rf"(?:\s+(?:for|since|and|but)\b[^.!?]*)?(?:\s*,\s*[^.!?]*)?{END}"),
)

LAST: tuple[Rule, ...] = (
    _r("en.started_as", "job_title", "started as a Y (at Z) (a job, from then on)", "monday I started as an instructional designer at an ed-tech company",
       rf"{A}{_PERFECT}\s+(?:started|start|began|am\s+starting|'m\s+starting)\s+(?:work\s+|working\s+)?as\s+(?:a|an|the)\s+"
       rf"(?P<v>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}?)(?:\s+(?:at|for|with)\s+(?P<org>{_ORG}|(?:a|an|the)\s+[\w\-]+(?:\s+[\w\-]+){{0,2}}?))?"
       rf"(?:\s*,\s*[^.!?]*)?{TAIL}{END}", change=True),
    _r("en.made_me", "job_title", "they made me / promoted me to shift supervisor (a job, from then on)", "they made me shift supervisor on nights",
       rf"^\s*(?:(?:so|and|finally|ok)\s+)*(?:they|he|she|my\s+(?:boss|manager|company)|the\s+(?:company|store|boss))\s+(?:just\s+|finally\s+)?"
       rf"(?:made\s+me|promoted\s+me\s+to|bumped\s+me\s+(?:up\s+)?to)\s+(?:a\s+|an\s+|the\s+)?(?P<v>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}?)"
       rf"(?:\s+(?:on|at|for|in|of)\b[^.!?]*)?{END}", opening=True, speaker=True, change=True),
    _r("en.proposed", "partner", "Sam proposed (last weekend) (the speaker's partner, engaged from then on)", "Sam proposed on the beach last weekend",
       rf"^\s*(?:(?:and|so|then|finally)\s+)*(?P<v>(?-i:[A-Z][a-z]+))\s+(?:finally\s+|just\s+)?proposed\b(?!\s+to\s+(?!me\b))[^.!?]*{END}",
       opening=True, speaker=True, change=True),
    _r("en.weighed", "weight", "weighed (in at) 162 / 12 stone 4 (a weight)", "weighed 162 today!!",
       rf"^\s*(?:(?:and|so|ok|just|finally|i|I)\s+)*(?:weighed|weigh)(?:\s+(?:myself|in))?(?:\s+(?:at|this\s+morning|today))?\s+"
       rf"(?P<v>\d{{1,2}}\s+stone(?:\s+\d{{1,2}})?|\d{{2,3}}(?:\.\d)?(?:\s*(?:lbs?|pounds|kg|kilos?))?)\b[^.!?]*{END}", opening=True, change=True),
    _r("en.rented_in", "lives_in", "rented / signed a lease on a place in X (lives there, from then on)", "I rented a place in Tacoma",
       rf"{A}(?:{_PERFECT}|\s+ended\s+up)\s+(?:rented|leased|(?:signed|signing)\s+a\s+lease(?:\s+on)?|sublet|found)\s+(?:(?:a|an|our|my|the)\s+"
       rf"(?:(?:little|small|tiny|new|nice|cute|big|old)\s+)*(?:two-bed|one-bed|three-bed|2-bed|1-bed|house|flat|condo|apartment|"
       rf"townhouse|place|studio|room|unit)(?:\s+[\w\-]+){{0,3}}?\s+)?(?:in|near|on)\s+(?P<v>{CAP}){TAIL}(?:\s*,\s*[^.!?]*)?{END}",
       change=True),
    _r("en.obsessed", "likes", "is obsessed with / really into / hooked on X (likes)", "my son is totally obsessed with dinosaurs",
       rf"{A}{BE}\s+(?:(?:totally|literally|completely|so|really|kind\s+of|super|lowkey|a\s+bit)\s+)*(?:obsessed\s+with|into|crazy\s+about|"
       rf"addicted\s+to|hooked\s+on)\s+(?P<v>(?!it\b|that\b|this\b|him\b|her\b|them\b|you\b|me\b|the\s+idea)[a-z][\w\s'\-]{{1,24}}?)"
       rf"(?:\s+(?:lately|right\s+now|these\s+days|now))?(?:\s*,\s*[^.!?]*)?{END}"),
    _r("en.stack", "uses", "our stack is X plus / and Y (the tools one works with)", "our stack is Postgres plus a pretty old Django app",
       rf"^\s*(?:(?:and|so|also)\s+)*(?:our|my)\s+(?:tech\s+|whole\s+)?stack\s+is\s+(?:(?:mostly|basically|just)\s+)?(?P<v>{PRODUCT})"
       rf"(?:\s*(?:,|plus|and|with|\+)\s*(?:an?\s+)?(?:[a-z][\w\-]*\s+){{0,3}}(?P<v2>{PRODUCT}))?[^.!?]*{END}", opening=True),
    _r("en.first_language", "speaks", "my first / native language is X (a language one speaks)", "my first language is Arabic",
       rf"^\s*(?:(?:and|but|so)\s+)*(?:my|his|her)\s+(?:first|native|mother)\s+(?:language|tongue)\s+is\s+(?P<v>(?-i:[A-Z][a-z]+))"
       rf"(?:\s*,\s*[^.!?]*)?{END}", opening=True),
    _r("en.moved_back_in", "lives_in", "moved back in with my parents in X (lives there, from then on)",
       "moved back in with my parents in Reading for a bit",
       rf"{A}{_PERFECT}\s+moved\s+(?:back\s+)?in\s+with\s+(?:my|our)\s+[\w\s'\-]{{2,20}}?\s+in\s+(?P<v>{CAP}){TAIL}(?:\s*,\s*[^.!?]*)?{END}",
       change=True),
    _r("en.still_on", "uses", "am (still) on Python 3.8 / an iPhone 12 (a device, platform or version one uses)",
       "we're still on Python 3.8 in prod",
       rf"{A}{BE}\s+(?:still\s+|now\s+|currently\s+|all\s+)?on\s+(?:an?\s+|the\s+)?(?P<v>(?-i:[A-Z]|i(?=[A-Z]))[\w.+#\-]*"
       rf"(?:\s+(?-i:[A-Z0-9])[\w.+#\-]*){{0,2}})(?!\s+(?:street|st\.?|avenue|road|team|call|board|time))"
       rf"(?:\s+(?:in|at|for|since|and|but|until|till|because)\b[^.!?]*)?(?:\s*,\s*[^.!?]*)?{END}", check="owns"),
    _r("en.moved_kin", "lives_in", "moved Mom into a place in X (the one moved lives there, from then on)",
       "we moved Mom into an assisted living place in Mesa",
       rf"{A}{_PERFECT}\s+(?:moved|brought|took)\s+(?:my\s+|our\s+)?(?P<okin>mom|mum|dad|mother|father|grandma|grandpa|grandmother|"
       rf"grandfather|nana|granny|mother-in-law|father-in-law|parents)\s+(?:in)?to\s+(?:a|an|the|their|her|his)?\s*[\w\s'\-]{{0,40}}?"
       rf"\b(?:in|near|outside)\s+(?P<v>{CAP}){TAIL}(?:\s*,\s*[^.!?]*)?{END}", change=True),
    _r("en.job_here", "job_title", "Freelance illustrator here / Night shift nurse at X (a job said as a noun phrase)",
       "Night shift nurse at St. Mary's",
       rf"^\s*(?:(?:and|so|but|also)\s+)*(?P<v>(?:(?:freelance|night[\s\-]shift|day[\s\-]shift|part[\s\-]time|full[\s\-]time|senior|"
       rf"junior|lead|retired|self-employed|stay-at-home|travel|registered|licensed|certified|staff|head|chief|solo)\s+)*"
       rf"[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:here\b[^.!?]*|(?:at|for|with)\s+(?P<org>{_ORG})(?:\s*,\s*[^.!?]*)?)\s*[.!]*\s*$",
       opening=True, org_slot="employer"),
    _r("en.do_work_at", "employer", "do backend stuff / marketing at X (an employer)", "I do backend stuff at Stripe",
       rf"{A}\s+(?:do|does)\s+(?:(?:backend|frontend|front-end|back-end|full-stack|marketing|sales|design|data|QA|HR|IT|support|"
       rf"accounting|engineering|research|ops|devops|security|product|finance|legal|recruiting|admin|payroll|content|growth)\s+)+"
       rf"(?:stuff\s+|work\s+|things\s+)?(?:at|for)\s+(?P<v>{_ORG})(?:\s*,\s*[^.!?]*)?{TAIL}{END}"),
    _r("en.had_event", "health_condition", "had a stroke / heart attack / seizure (a condition, from then on)",
       "my dad had a stroke last November",
       rf"{A}(?:\s+had|'s\s+had|\s+has\s+had|\s+suffered)\s+(?:a\s+|an\s+)?(?:mild\s+|minor\s+|major\s+|massive\s+|bad\s+|small\s+)?"
       rf"(?P<v>stroke|heart\s+attack|seizure|concussion|TIA|mini-stroke|aneurysm|hip\s+replacement|knee\s+replacement|"
       rf"bypass|hernia|blood\s+clot|pulmonary\s+embolism|breakdown)(?:\s+(?:so|and|but|which|last|in|this|a)\b[^.!?]*)?{END}",
       change=True, hedged=True),
    _r("en.tore", "health_condition", "tore my ACL / broke my wrist (an injury, from then on)", "tore my ACL playing soccer in October",
       rf"{A}{_PERFECT}\s+(?:tore|torn|broke|broken|sprained|fractured|dislocated|ruptured|herniated)\s+(?:my|his|her|their|a)\s+"
       rf"(?P<v>ACL|MCL|meniscus|rotator\s+cuff|achilles|ankle|wrist|arm|leg|hip|collarbone|elbow|knee|finger|toe|foot|hand|"
       rf"rib|ribs|back|disc|nose|shoulder)\b[^.!?]*{END}", change=True),
    _r("en.degree_from", "education", "have a master's / degree (in X) from Y (a school)", "I have a master's in public health from Emory",
       rf"{A}(?:{_PERFECT}|\s+have|\s+has|'ve\s+got|\s+got|\s+earned|\s+finished)\s+(?:a|an|my)\s+(?:(?:master's|masters|bachelor's|"
       rf"bachelors|phd|ph\.d\.|doctorate|degree|ba|bs|ma|ms|mba|jd|md|associate's|nursing\s+degree|law\s+degree)\s*)+"
       rf"(?:in\s+[\w\s\-]{{2,30}}?\s+)?from\s+(?P<v>{CAP}){TAIL}{END}"),
    _r("en.grade_in", "education", "(am) in 10th grade / in my junior year (a school year)", "my son is in 4th grade",
       rf"{A}(?:{BE})?\s+in\s+(?:the\s+|my\s+)?(?P<v>\d{{1,2}}(?:st|nd|rd|th)\s+grade|(?:first|second|third|fourth|fifth|sixth|seventh|"
       rf"eighth|ninth|tenth|eleventh|twelfth)\s+grade|(?:freshman|sophomore|junior|senior)\s+year)(?:\s+(?:now|lol|haha))*{TAIL}{END}"),
    _r("en.back_in", "lives_in", "am back in X (lives there again, from then on)", "I'm back in Chicago near my folks",
       rf"{A}{BE}\s+(?:now\s+)?back\s+(?:in|home\s+in)\s+(?P<v>{CAP}){TAIL}(?:\s*,\s*[^.!?]*)?{END}", change=True),
    _r("en.at_school", "education", "is at Lincoln Elementary / Roosevelt High (a school)", "my son Ethan is at Lincoln Elementary",
       rf"{A}{BE}\s+(?:now\s+|still\s+)?(?:at|in)\s+(?P<v>(?-i:[A-Z][\w.'\-]*(?:\s+[A-Z][\w.'\-]*){{0,3}}\s+(?:Elementary|Middle|High|"
       rf"Academy|School|College|University|Prep|Montessori|Primary|Secondary|Preschool|Kindergarten))(?:\s+School)?)"
       rf"(?:\s+(?:now|this\s+year))?{TAIL}(?:\s*,\s*[^.!?]*)?{END}"),
    _r("en.school_started_at", "education", "started middle school at X (a school, from then on)",
       "Ethan started middle school this fall at Roosevelt",
       rf"{A}{_PERFECT}\s+(?:started|starts|began|is\s+starting|'s\s+starting)\s+(?:(?:middle|high|elementary|primary|secondary|"
       rf"grade|grad|law|med|nursing)\s+school|kindergarten|preschool|college|university|first\s+grade|\w+\s+grade)"
       rf"[\s\w]*?\s+at\s+(?P<v>{CAP}){TAIL}(?:\s*,\s*[^.!?]*)?{END}", change=True),
    _r("en.weight_plain", "weight", "am 210 (right now) (a weight said as a bare number over 130)", "I'm 210 right now",
       rf"{A}{BE}\s+(?:about\s+|around\s+)?(?P<v>(?:1[3-9]\d|[2-4]\d\d)(?:\s*(?:lbs?|pounds))?)(?:\s+(?:right\s+now|now|at\s+the\s+moment|"
       rf"currently|today))?(?:\s*,\s*[^.!?]*)?{END}"),
    _r("en.paying_rent", "rent", "pay(ing) N (a month) for my studio / in rent (rent)", "paying $1,400 for my studio",
       rf"{A}(?:{BE})?\s+(?:pay|pays|paying|spend|spending)\s+(?:about\s+|around\s+|like\s+)?(?P<v>{_MONEY})"
       rf"(?:\s+(?:a|per|each)\s+month)?\s+(?:for\s+(?:my|our|the|a)\s+(?:little\s+|tiny\s+|small\s+)?{_HOME}|in\s+rent|rent)"
       rf"{TAIL}{END}"),
    _r("en.make_money", "salary", "make / earn / bill N (a year, an hour) (what one earns)", "I make about 85k before taxes",
       rf"{A}\s+(?:make|makes|making|earn|earns|earning|bill|bills|charge|charges|take\s+home|takes\s+home|gross|grosses)\s+"
       rf"(?:about\s+|around\s+|like\s+|roughly\s+|almost\s+|over\s+|under\s+)?(?P<v>{_MONEY}(?:\s+(?:a|an|per)\s+(?:year|hour|month|week))?)"
       rf"(?:\s+(?:a|an|per)\s+(?:year|hour|month|week))?(?:\s+(?:before|after|pre|post)[\s\-]tax(?:es)?)?"
       rf"(?:\s+(?:for|at|as|doing|from|and|but|plus)\b[^.!?]*)?(?:\s*,\s*[^.!?]*)?{END}"),
    _r("en.at_team", "employer", "am at X on the Y team / in Y (an employer)", "I'm at Shopify on the checkout team",
       rf"{A}{BE}\s+(?:now\s+)?at\s+(?P<v>{_ORG})\s+(?:on|in)\s+(?:the\s+|their\s+)?[\w\s\-]{{1,24}}?"
       rf"\s*(?:team|department|dept|group|org|squad|desk|side){TAIL}{END}"),
    _r("en.signed_with", "employer", "signed with / accepted an offer from X (an employer, from then on)", "signed with Datadog, start Monday",
       rf"{A}{_PERFECT}\s+(?:signed\s+(?:on\s+)?with|accepted\s+(?:an|the|their)\s+offer\s+(?:from|at|with)|"
       rf"took\s+(?:an|the|a)\s+(?:job|offer|position|role)\s+(?:at|with))\s+(?P<v>{_ORG}){TAIL}(?:\s*,\s*[^.!?]*)?{END}",
       change=True),
    _r("en.doing_school", "education", "am doing / in X school (what one studies, from then on)",
       "I'm doing dental hygiene school full time now",
       rf"{A}{BE}\s+(?:now\s+)?(?:doing|in|attending|starting|going\s+to)\s+(?P<v>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}\s+"
       rf"(?:school|college|program|bootcamp))(?:\s+(?:full[\s\-]time|part[\s\-]time|at\s+night|online))?{TAIL}{END}", change=True),
    _r("en.my_thing", "hobby", "X (is|are) my thing / my new hobby now (a hobby, from then on)", "Jigsaw puzzles are my thing now.",
       rf"^\s*(?:(?:and|so|now|but)\s+)*(?P<v>(?!it\b|that\b|this\b|which\b)[A-Za-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}?)\s+"
       rf"(?:is|are|'s|'re)\s+(?:kind\s+of\s+)?my\s+(?:new\s+)?(?:thing|jam|hobby|obsession|passion)(?:\s+(?:now|these\s+days|lately))?{END}",
       change=True, opening=True, clean=lambda v: v.lower() if v[:1].isupper() and not v[1:2].isupper() else v),
    _r("en.been_doing", "hobby", "been bouldering / climbing for two years (a hobby one keeps up)", "been bouldering for two years",
       rf"{A}(?:'ve|\s+have)?\s+been\s+(?P<v>(?!working|living|staying|trying|thinking|feeling|looking|doing|going|getting|"
       rf"using|eating|dating|seeing|sleeping|married)[a-z]+ing)\s+(?:for|since)\s+[^.!?]*{END}"),
    _r("en.at_now", "employer", "I'm at Costco now (a workplace one has moved to)", "ok update I'm at Costco now, my friend got me in",
       rf"{A}{BE}\s+(?:now\s+)?at\s+(?P<v>(?-i:[A-Z][\w.&'\-]*(?:\s+[A-Z][\w.&'\-]*){{0,2}}))(?<!School)(?<!High)(?<!Elementary)(?<!College)(?<!University)(?<!Academy)(?<!Middle)(?<!Hospital)(?<!Airport)\s+now(?:\s*,\s*[^.!?]*)?{END}", change=True),
)

