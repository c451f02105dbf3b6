"""Entities a query names: stored subjects and aliases, kinship and role words, names, places,
products and versions, each with the confidence of the way it was found (pure)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from attrs import field, frozen

from hlmem.domain.atoms import protected_atoms
from hlmem.domain.query_lexicon import _EN_NAME, _EN_STOP, _FIRST_PERSON, _HAN, _NAME_END, _NAME_TAIL, _NOT_NAME, _ROLE
from hlmem.domain.state import SELF_SUBJECTS

if TYPE_CHECKING:
    from hlmem.domain.time_intent import Hit

#: Confidence of each way an entity is found. An entity constraint should act only on entities at
#: or above :data:`HIGH_CONFIDENCE`: matches against stored subjects, aliases and literal versions.
KNOWN, ALIAS, VERSION, ROLE, PLACE, PRODUCT, NAME, NAME_AT_START = 0.95, 0.9, 0.9, 0.8, 0.7, 0.7, 0.6, 0.5
HIGH_CONFIDENCE = 0.85


@frozen
class Entity:
    """An entity named in the query: surface ``text``, canonical ``key`` (the stored subject when known)."""

    text: str
    key: str
    kind: str  # subject | role | person | place | product | version
    confidence: float
    source: str  # known_subject | alias | role | name_zh | name_en | place | identifier | version
    start: int = -1
    end: int = -1



@frozen
class SubjectIndex:
    """Known subjects and aliases, normalised once: build it with :func:`index_subjects` and reuse it.

    ``by_start`` maps the first two characters of each folded surface to its ``(surface, key,
    confidence, source)`` entries, longest surface first.
    """

    by_start: Mapping[str, tuple[tuple[str, str, float, str], ...]] = field(factory=lambda: MappingProxyType({}))
    size: int = 0


def index_subjects(known_subjects: Iterable[str] = (), aliases: Mapping[str, str] | None = None) -> SubjectIndex:
    """Index stored subjects (matched with :data:`KNOWN` confidence) and ``alias -> subject`` names (:data:`ALIAS`).

    Names of the user (用户, user, 我…) and one-character names are left out: they would match everywhere.
    """
    names: dict[str, tuple[str, float, str]] = {}
    for subject in known_subjects:
        names.setdefault(_fold(" ".join(unicodedata.normalize("NFKC", subject).split())), (subject, KNOWN, "known_subject"))
    for alias, subject in (aliases or {}).items():
        names.setdefault(_fold(" ".join(unicodedata.normalize("NFKC", alias).split())), (subject, ALIAS, "alias"))
    grouped: dict[str, list[tuple[str, str, float, str]]] = {}
    for surface, (key, conf, source) in names.items():
        if len(surface) >= 2 and surface not in SELF_SUBJECTS:
            grouped.setdefault(surface[:2], []).append((surface, key, conf, source))
    by_start = {c: tuple(sorted(v, key=lambda e: (-len(e[0]), e[0]))) for c, v in grouped.items()}
    return SubjectIndex(MappingProxyType(by_start), sum(len(v) for v in by_start.values()))


#: The index of no subjects (understand's default).
NO_SUBJECTS = SubjectIndex()


def _fold(text: str) -> str:
    """Lower-case without changing the length (positions in the folded text are positions in ``text``)."""
    if text.isascii():  # ASCII letters lower-case one to one
        return text.lower()
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def find_entities(text: str, hits: Sequence[Hit], index: SubjectIndex) -> list[Entity]:
    folded = _fold(text)
    taken = [(h.start, h.end) for h in hits if h.kind == "date" and h.confidence >= 0.6]
    found: list[Entity] = []

    def add(span: tuple[int, int], key: str, kind: str, conf: float, source: str) -> None:
        start, end = span
        if start < end and all(e <= start or end <= s for s, e in taken):
            taken.append((start, end))
            found.append(Entity(text[start:end], key, kind, conf, source, start, end))

    atoms = protected_atoms(text)
    # Chinese name shapes, trimmed of the verb they swallowed; a known subject that one of them
    # extends (张伟 in 张伟华) is another person.
    zh_names = [(span, name) for raw in atoms.names if (name := _trim_name(raw))
                and re.fullmatch(f"{_HAN}{{2,4}}", name) and not _NOT_NAME.search(name)
                for span in _occurrences(text, name)]
    by_start = index.by_start
    starts = {folded[i:i + 2] for i in range(len(folded) - 1)} if by_start else ()
    candidates = [e for pair in starts for e in by_start.get(pair, ())]
    for surface, key, conf, source in sorted(candidates, key=lambda e: (-len(e[0]), e[0])):
        for start, end in _occurrences(folded, surface):
            if not any(s == start and e > end for (s, e), _ in zh_names):
                add((start, end), key, "subject", conf, source)
    for m in _ROLE.finditer(text):
        word = m["zh"] or m["en"]
        owned = bool(m["own"] or m["own2"])
        add(m.span("zh") if m["zh"] else m.span("en"), word.lower(), "role", ROLE if owned else NAME, "role")
    for version in atoms.versions:
        hit = re.search(rf"(?i)(?<![A-Za-z0-9_.])(?:v|version\s*|版本号?\s*)?{re.escape(version)}(?![A-Za-z0-9_]|\.\d)", text)
        if hit is not None:
            add(hit.span(), version, "version", VERSION, "version")
    for kind, source, conf, values in (("place", "place", PLACE, atoms.places),
                                       ("product", "identifier", PRODUCT, atoms.entities)):
        for value in values:
            for span in _occurrences(folded, value):
                add(span, value, kind, conf, source)
    for m in _EN_NAME.finditer(text):
        words = m[0].split()
        while words and words[0].lower() in _EN_STOP:
            words.pop(0)
        if words:
            start = m.start() + m[0].index(words[0])
            at_start = not text[:start].strip() or text[:start].rstrip()[-1:] in ".?!。？！"
            add((start, start + len(" ".join(words))), " ".join(words), "person",
                NAME_AT_START if at_start else NAME, "name_en")
    for span, name in zh_names:
        add(span, name, "person", NAME, "name_zh")
    return sorted(found, key=lambda e: e.start)


def _occurrences(haystack: str, needle: str, most: int = 8) -> Iterable[tuple[int, int]]:
    """The first ``most`` non-overlapping spans of ``needle``; an ASCII letter or digit at an edge must be a word edge."""
    start = haystack.find(needle)
    while needle and start >= 0 and most > 0:
        end = start + len(needle)
        head_ok = not (needle[0].isascii() and needle[0].isalnum() and start and haystack[start - 1].isascii()
                       and haystack[start - 1].isalnum())
        tail_ok = not (needle[-1].isascii() and needle[-1].isalnum() and end < len(haystack)
                       and haystack[end].isascii() and haystack[end].isalnum())
        if head_ok and tail_ok:
            yield start, end
            most -= 1
        start = haystack.find(needle, end if head_ok and tail_ok else start + 1)


def _trim_name(name: str) -> str:
    """A Chinese name candidate without the verb or particle the name heuristic swallowed (张伟住 → 张伟)."""
    while len(name) > 2 and name[-1] in _NAME_TAIL:
        name = name[:-1]
    return "" if len(name) >= 2 and name[1] in _NAME_END else name


def about_user(text: str, entities: Sequence[Entity]) -> bool:
    """First person is present and is not only the owner of a named role (我表弟, my sister)."""
    owners = {e.start for e in entities if e.kind == "role"}
    for m in _FIRST_PERSON.finditer(text):
        rest = m.end() + (1 if text[m.end():m.end() + 1] == "的" else 0)
        rest += len(text[rest:]) - len(text[rest:].lstrip())
        if rest not in owners:
            return True
    return False
