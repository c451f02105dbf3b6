"""Trigger signatures: the normalised situation an episode's experience is filed under (pure).

Two episodes share a signature when their goals (and, if given, their context: a tool or an
error signature) say the same thing once incidental detail is gone: case and width (NFKC,
case-folded), punctuation, and the values that differ between runs of one task — numbers and
versions, paths and file names, URLs, hex ids, quoted strings — each replaced by a placeholder.
"Fix failing test in tests/test_io.py" and "fix failing test in tests/test_net.py!" both become
``fix failing test in <path>``.
"""

from __future__ import annotations

import re
import unicodedata

_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`|“[^”]*”|「[^」]*」")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
_PATH = re.compile(r"(?:[\w.-]*[/\\])+[\w.-]+|\b[\w-]+(?:\.[\w-]+)*\.(?:py|js|ts|json|toml|yaml|yml|md|txt|csv|rs|go|c|h|"
                   r"cpp|java|sh|cfg|ini|lock|log|html|css|sql|tar|gz|tgz|zip|whl|jar)\b")
_HEX = re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{7,}\b")
_NUMBER = re.compile(r"\bv?\d+(?:[.,:_-]\d+)*\b|\d+")
_PUNCT = re.compile(r"[^\w<>\s]+")
_SPACE = re.compile(r"\s+")

#: Longest signature kept (a long goal keeps its head).
MAX_SIGNATURE_CHARS = 200


def normalize_situation(text: str) -> str:
    """The normalised form of a goal or context (placeholders ``<q>``, ``<url>``, ``<path>``, ``<id>``, ``<n>``)."""
    out = unicodedata.normalize("NFKC", text or "").casefold()
    out = _QUOTED.sub(" <q> ", out)
    out = _URL.sub(" <url> ", out)
    out = _PATH.sub(" <path> ", out)
    out = _HEX.sub(" <id> ", out)
    out = _NUMBER.sub(" <n> ", out)
    out = _PUNCT.sub(" ", out)
    out = _SPACE.sub(" ", out).strip()
    return out[:MAX_SIGNATURE_CHARS].strip()


def has_words(text: str) -> bool:
    """Whether ``text`` says anything once its values are set aside: some word of its normalised
    form is not a placeholder (``42 / 3.1`` is ``<n> <n>``: no words)."""
    return any(not (w.startswith("<") and w.endswith(">")) for w in normalize_situation(text).split())


def trigger_signature(goal: str, context: str = "") -> str:
    """The signature of an episode: its normalised goal, then `` | `` and its normalised context if any."""
    head = normalize_situation(goal)
    tail = normalize_situation(context)
    return f"{head} | {tail}" if tail else head


def normalize_approach(text: str) -> str:
    """An approach name as compared: NFKC, case-folded, whitespace collapsed (``→`` separates tools)."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text or "").casefold()).strip()


def approach_of(tools_or_actions: list[str]) -> str:
    """The approach a trace followed when none was named: its distinct tools (or first words) in order."""
    names = [normalize_approach(t).split(" ")[0] for t in tools_or_actions if normalize_approach(t)]
    return " → ".join(dict.fromkeys(names))
