"""Words the English frame tables share: adverbs, be/have forms, negation, time tails, names."""

from __future__ import annotations

from hlmem.application.extraction.lexicon import HEDGE_EN, OWNABLE_EN, PETS_EN, QUANTITY_EN

A = r"(?:\s+(?:also|now|still|just|really|actually|currently|recently|already|finally|even|mostly|mainly|totally|officially|kind\s+of)\b)*"
BE = r"(?:\s+(?:am|is|are|have\s+been|has\s+been)|'ve\s+been|'m|'s|'re)"
HAVE = r"(?:\s+(?:have|has)(?:\s+got)?|'ve\s+got|'s\s+got|\s+got)"
NEG_DO = r"(?P<neg>\s+(?:don't|do\s+not|doesn't|does\s+not|no\s+longer|never|can't|cannot|didn't))"
TIME = (r"(?:\s+(?:last|this|next)\s+(?:week|month|year|spring|summer|autumn|fall|winter|weekend)|\s+(?:in|since)\s+"
        r"(?:January|February|March|April|May|June|July|August|September|October|November|December|\d{4})|"
        r"\s+(?:yesterday|today|recently|a\s+while\s+ago|(?:about\s+|almost\s+|over\s+|like\s+)?(?:a\s+couple\s+of|a\s+few|several|a|an|\w+)"
        r"\s+(?:days?|weeks?|months?|years?)\s+ago)|"
        r"\s+for\s+(?:about\s+|almost\s+|over\s+|like\s+|the\s+past\s+|the\s+last\s+)?(?:a\s+couple\s+of|a\s+few|several|a|an|\w+)\s+"
        r"(?:days|weeks|months|years|decades)(?:\s+now)?|"
        r"\s+(?:last|this)\s+(?:spring|summer|autumn|fall|winter))?")
END = (rf"{TIME}(?:\s+(?:and|but|so|which|because|bc|cuz|though|although|while|unless)\b[^.!?]*)?\s*(?:anymore|any\s+more|now|these\s+days|nowadays|at\s+the\s+moment|lately|too|again|by\s+the\s+way|btw|originally|"
       rf"though|lol|haha|honestly|actually|right\s+now|for\s+sure)?\s*[.!]*\s*$")
CAP = r"(?-i:[A-Z][\w.&'\-]*(?:\s+(?:[A-Z][\w.&'\-]*|of|de|upon))*)"
PRODUCT = r"(?-i:(?:[A-Z0-9]|[ie](?=[A-Z]))[\w.+#&'\-]*(?:\s+[A-Z0-9][\w.+#&'\-]*){0,3})"
TAIL = (r"(?:\s+(?:now|these\s+days|nowadays|anymore|again|too|back))?"
        r"(?:\s+(?:with|by|for|since|and|near|in|on|at|because|while|where|which|who|but|as|from|to|so|after|before|when|back|"
        r"once|until|till|bc|cuz|though|unless|except|whenever|hub|store|office|branch|location|plant|warehouse|factory|"
        r"site|campus|up|down|out|over|like|plus|mostly|split|including)\b[^.!?]*"
        r"|\s+(?:downtown|uptown|nearby|together|outside\s+town|in\s+the\s+suburbs))?")
PETS = "|".join(sorted(PETS_EN, key=len, reverse=True))
OWN = "|".join(sorted(OWNABLE_EN, key=len, reverse=True))
QTY = "|".join(sorted(QUANTITY_EN, key=len, reverse=True))
HEDGE = rf"(?:(?P<hedge>{HEDGE_EN}|like|just\s+under|just\s+over|a\s+bit\s+over|a\s+little\s+over)\s+)?"
SEVERITY = r"(?:(?:mild|severe|chronic|bad|moderate|a\s+touch\s+of|early|early-onset|late-stage|stage\s+\d|advanced)\s+)?"
COUNT = r"(?:(?:a|an|one|two|three|four|five|\d+|some|several|a\s+couple\s+of)\s+)?"
ADJ = (r"(?:(?:little|small|big|old|young|new|rescue|black|white|ginger|tabby|fat|lazy|cute|second-hand|used|red|blue|"
       r"electric|pet|baby|senior|grumpy|sweet|tiny|giant|male|female|very|super|really|adorable|crazy)\s+)*")
#: Any few describing words before a noun ("a very dumb but very sweet beagle"), no preposition or determiner.
DESCRIBED = (r"(?:(?!(?:with|to|for|of|at|in|on|my|your|his|her|their|the|a|an|about|from|that|who|is|was|and|named|called)\b)"
             r"[a-z\-]+,?\s+(?:(?:but|and)\s+)?){0,5}?")
