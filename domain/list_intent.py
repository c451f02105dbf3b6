"""Whether a query asks for many things at once: a count or a list (pure, deterministic).

"How many times has Melanie gone to the beach?", "What books has Melanie read?", "Which cities
have both of them visited?", 有几个活动在上海举行？, 我用过哪些美妆产品？ are answered by several
memories, often from different conversations; a question about one value ("What is my boss's
name?") by one. Recall spreads the best items of a list question across sessions
(``RankingConfig.spread_weight``, docs/recall.md), so that ten turns of one conversation do not
crowd out the others.

The cues are deliberately few and literal (a false positive costs a little ranking, not an answer):

- English: "how many" (not "how many days/weeks/months/years", which asks for a span of time);
  ``what``/``which`` + a plural noun + an auxiliary at the start ("What activities does …", "What
  musical artists/bands has …"); "what kinds/sorts/types of"; "both".
- Chinese: 有几个/几位/几种/几次… (not 几个字, the length of a name), 哪些, 一共, 总共, 所有, 全部.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["asks_for_many"]

_EN = re.compile(
    r"\bhow\s+many\b(?!\s+(?:seconds|minutes|hours|days|weeks|months|years)\b)"
    r"|^\W*(?:what|which)\s+(?:[a-z/-]+\s+){0,2}[a-z/-]+s\s+(?:has|have|had|did|does|do|are|were)\b"
    r"|\b(?:what|which)\s+(?:kinds|sorts|types)\s+of\b"
    r"|\bboth\b",
    re.IGNORECASE)
_ZH = re.compile(r"有几[个位种次件家所项样](?!字)|哪些|一共|总共|所有|全部")


def asks_for_many(query: str) -> str | None:
    """The cue that makes ``query`` a count or list question (as written, NFKC), or None."""
    text = unicodedata.normalize("NFKC", query or "")
    found = _EN.search(text) or _ZH.search(text)
    return found.group(0).strip() if found else None
