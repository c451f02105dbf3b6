"""Token counters the packet tests pack with besides the estimate (format v1 and v2 alike)."""

from __future__ import annotations

import re

from hlmem.application.packet import estimate_tokens


def count_bytes(text: str) -> int:
    """A strict counter: no byte-level BPE tokenizer makes more tokens than UTF-8 bytes."""
    return len(text.encode("utf-8", "surrogatepass"))


def count_words(text: str) -> int:
    """A counter far below the estimate (about one per word or CJK character)."""
    return len(re.findall(r"\w+|[^\w\s]", text))


def count_lumpy(text: str) -> int:
    """A counter that is not additive over lines and not monotone in the prefix length."""
    return estimate_tokens(text) + (7 if len(text) % 3 == 0 else 0) + text.count("\n") * 2 if text else 0


COUNTERS = {"estimate": estimate_tokens, "bytes": count_bytes, "words": count_words, "lumpy": count_lumpy}
