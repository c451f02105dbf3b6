"""A statement opened by a third-person pronoun is about someone else, never the user.

"她现在在腾讯上班了" with no one named before it is *her* employer: a claim giving it to the user
would supersede the user's own. Admission rejects a claim about the user whose evidence quote
opens with a third-person pronoun as its subject (他, 她, 它, 他们, 其, 此人, 对方, ta; he, she,
they) and has no first person in it ("they made me shift supervisor" is the user's), whichever
extractor proposed it (ADR 0094). A pronoun that only names someone ("她叫小雨", "she's called
Jo") and a possessive ("her name's Jo": the partner the clause before introduced) are not
refused here. Pure: no I/O.
"""

from __future__ import annotations

import re

#: Words that only frame a clause before its subject (现在她…, "so he…").
_LEAD = (r"^[\s\"'“‘(（]*(?:(?:现在|目前|如今|最近|已经|其实|另外|对了|而且|但是|不过|然后|所以|可是|后来|听说|反正|总之|哦|嗯|"
         r"(?i:so|and|but|then|now|also|well|oh|actually|anyway|btw|plus|yeah|ok|okay|update|lately|nowadays))[\s,，、]*)*")
_PRONOUN = re.compile(_LEAD + r"(?:(?:他们|她们|它们|他|她|它|其(?![实他它中次余后间])|此人|对方|(?i:ta)(?=[\u4e00-\u9fff]))"
                      r"(?!\s*(?:分别)?(?:叫|名叫|的名字))|(?i:he|she|they)(?=[\s'’])(?!(?:'s|’s|\s+is|\s+are)\s+(?:called|named)\b))")
_FIRST_PERSON = re.compile(r"[我俺咱]|本人|(?i:\b(?:i|me|my|mine|myself|we|us|our)\b)")


def pronoun_opened(quote: str) -> bool:
    """Whether ``quote`` opens with a third-person pronoun as its subject and names no first
    person anywhere (so it cannot be the user's own statement)."""
    return _PRONOUN.match(quote) is not None and _FIRST_PERSON.search(quote) is None
