"""The learned extractor: the shipped CRF model tags a statement, spans become candidate claims.

Decoding (ADR 0078): a ``B-slot`` … ``I-slot`` run is a value of the user's; ``slot@o`` a value of
someone else's, whose subject is the nearest mention before it in its clause (then in the
statement, then after it): a ``SUBJ`` span (妈妈, "my mom", Maya) or a value of a relation slot
(``my husband Carlos`` → Carlos). A kin mention is written as the rules write it (用户的妈妈,
user's mom); a name as itself. A ``slot@o`` value with no mention is dropped, never given to the
user. A span is kept when the mean marginal probability of its tags reaches the threshold chosen
by cross-validation (stored beside the model). A negation cue earlier in the clause (不, 没, not,
don't, no longer…) makes the claim negative. A value of the user's is dropped when someone else is
named before it in its sentence with no first-person word between ("我婆婆七十了，有糖尿病"), or
when its clause opens with a name as subject ("Biscuit is down to 31 lbs"). The tagger reads
sentence by sentence and leaves pastes and long sentences to the rules.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from attrs import frozen

from hlmem.adapters.extraction.features import FIRST_PERSON, KIN, featurize, norm
from hlmem.adapters.extraction.tokens import PosTagger, Token, tokenize
from hlmem.application.extraction.lexicon import KIN_CANON
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.slots import SlotRegistry

MODEL_PACKAGE = "hlmem.adapters.extraction.model"
MODEL_FILE = "extractor.crfsuite"
META_FILE = "extractor.json"
_USER_ROLES = frozenset({"user", "human"})
_NEG_ZH = ("不", "没", "无", "别", "戒")
_NEG_EN = frozenset({"not", "no", "never", "'t", "’t", "without", "anymore", "longer"})
_STRIP = " \t\n,.;:!?，。；：！？、\"'“”‘’()（）"
_MAX_VALUE = 40
#: Longer texts are pastes and longer sentences prose or data: the tagger leaves them to the rules.
MAX_TEXT_CHARS = 2000
MAX_SENTENCE_CHARS = 300
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?\n]*|[。！？!?\n]+")
#: jieba tags of words that are never a value alone: adverbs, adjectives, pronouns, particles, punctuation.
_NOT_VALUE_TAGS = frozenset({"d", "a", "ad", "ag", "an", "r", "rr", "rz", "u", "ug", "uj", "ul", "uv", "uz", "ud",
                             "c", "p", "y", "e", "o", "x", "zg"})
_EN_FUNCTION = frozenset({"a", "an", "the", "it", "this", "that", "so", "too", "very", "really", "just", "now", "here",
                          "there", "lot", "much", "some", "any", "thing", "stuff", "one", "today", "again"})
#: A token Viterbi tags O still starts or continues a span when the value labels together reach this.
SOFT_FLOOR = 0.25


class ModelError(RuntimeError):
    """The model file or its metadata is missing, unreadable or does not match this code."""


@frozen
class Span:
    """A decoded value: its slot, whether it is someone else's, offsets, tokens and probability."""

    slot: str
    other: bool
    start: int
    end: int
    first: int
    last: int
    prob: float


def default_model() -> tuple[Path, Path]:
    """The model and metadata files shipped inside the package."""
    folder = resources.files(MODEL_PACKAGE)
    return Path(str(folder.joinpath(MODEL_FILE))), Path(str(folder.joinpath(META_FILE)))


def load_meta(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read the extractor's metadata {path}: {exc}") from exc
    if not isinstance(meta, dict) or not isinstance(meta.get("threshold"), (int, float)):
        raise ModelError(f"{path} is not an extractor metadata file (no numeric 'threshold')")
    return meta


class LearnedExtractor:
    """Candidate claims from the CRF tagger (``extract`` is the pipeline's Extractor port)."""

    name = "learned"

    def __init__(self, registry: SlotRegistry, pos_tagger: PosTagger, *, model: Path | None = None,
                 meta: Path | None = None, threshold: float | None = None, mode: str | None = None) -> None:
        """:param model: a crfsuite model file (default: the shipped one); ``meta`` its metadata
        (thresholds, relation slots); ``threshold`` overrides the stored one (benchmarks, tests);
        ``mode`` picks the stored threshold of a combination (``union``, ``fallback``) or of the
        tagger alone (``learned``); the default one is the union's."""
        import pycrfsuite

        from hlmem.adapters.extraction.training import slots_path

        default_model_path, default_meta_path = default_model()
        model = Path(model or default_model_path)
        self._meta = load_meta(meta or (default_meta_path if model == default_model_path
                                        else model.with_suffix(".json")))
        stored = self._meta.get("thresholds", {}).get(mode, self._meta["threshold"]) if mode else self._meta["threshold"]
        self.threshold = float(stored if threshold is None else threshold)
        self._relations = frozenset(self._meta.get("relation_slots", ()))
        self._registry = registry
        self._pos = pos_tagger
        self._detector = pycrfsuite.Tagger()
        self._slotter = pycrfsuite.Tagger()
        for crf, path in ((self._detector, model), (self._slotter, slots_path(model))):
            if not path.is_file():
                raise ModelError(f"no extractor model at {path}")
            try:
                crf.open(str(path))
            except (OSError, ValueError) as exc:
                raise ModelError(f"cannot open the extractor model {path}: {exc}") from exc
        self._det_labels = frozenset(self._detector.labels())
        self._slot_labels = frozenset(self._slotter.labels())
        self._slots = frozenset(label[2:] for label in self._slot_labels if label != "O")
        self._slot_pairs = tuple(sorted((label, label[2:]) for label in self._slot_labels if label != "O"))
        self._lock = threading.Lock()  # a crfsuite Tagger holds the last sequence: one at a time

    def spans(self, tokens: Sequence[Token]) -> tuple[list[Span], list[str]]:
        """Every decoded span (before the threshold) and the detector's tags.

        The detector finds values (``V``: the user's, ``VO``: someone else's) and mentions (``S``);
        a token it tags ``O`` still joins a value when ``V`` and ``VO`` together reach
        :data:`SOFT_FLOOR`. Each value's slot is the slot model's likeliest one over its tokens.
        """
        if not tokens:
            return [], []
        feats = featurize(list(tokens))
        with self._lock:
            tags = list(self._detector.tag(feats))
            probs = []
            for i, tag in enumerate(tags):
                kind = tag[2:] if tag != "O" else ""
                if kind in ("V", "VO"):
                    probs.append(self._mass(kind, i))
                    continue
                mass = {k: self._mass(k, i) for k in ("V", "VO")}
                best = max(mass, key=lambda k: (mass[k], k))
                if tag == "O" and mass[best] >= SOFT_FLOOR:
                    prev = tags[i - 1][2:] if i and tags[i - 1] != "O" else ""
                    tags[i] = ("I-" if prev == best else "B-") + best
                    probs.append(mass[best])
                else:
                    probs.append(1.0)
            self._slotter.set(feats)
            spans = []
            for span in decode(tokens, tags, probs):
                scores: dict[str, float] = {}
                for i in range(span.first, span.last + 1):
                    for label, slot in self._slot_pairs:
                        scores[slot] = scores.get(slot, 0.0) + self._slotter.marginal(label, i)
                best_slot = max(scores, key=lambda k: (scores[k], k)) if scores else ""
                spans.append(Span(best_slot, span.other, span.start, span.end, span.first, span.last, span.prob))
        return spans, tags

    def _mass(self, kind: str, i: int) -> float:
        """A token's probability of a detector label, B- and I- together."""
        return sum(self._detector.marginal(f"{bio}{kind}", i) for bio in ("B-", "I-") if f"{bio}{kind}" in self._det_labels)

    def extract(self, events: Sequence[SourceEvent], *, job_id: str | None = None) -> list[CandidateClaim]:
        out: list[CandidateClaim] = []
        for event in events:
            if event.role.strip().lower() not in _USER_ROLES:
                continue  # the rules read other speakers; the tagger learned the user's first person only
            out.extend(self.extract_text(event.text, event.event_id))
        return out

    def extract_text(self, text: str, event_id: str = "", threshold: float | None = None) -> list[CandidateClaim]:
        """Candidates of one text (``threshold``: instead of the stored one)."""
        return self.claims_of(self.tag_text(text), event_id, threshold)

    def tag_text(self, text: str) -> list[tuple[str, list[Token], list[Span], list[str]]]:
        """Each sentence tagged: (sentence, tokens, spans, tags). A text over :data:`MAX_TEXT_CHARS`
        is a paste (a document, a log), not a turn about oneself: the tagger leaves it to the rules;
        so is a sentence over :data:`MAX_SENTENCE_CHARS`."""
        if len(text) > MAX_TEXT_CHARS:
            return []
        out = []
        for m in _SENTENCE.finditer(text):
            sentence = m.group()
            if len(sentence) > MAX_SENTENCE_CHARS or not sentence.strip():
                continue
            tokens = tokenize(sentence, self._pos)
            spans, tags = self.spans(tokens)
            out.append((sentence, tokens, spans, tags))
        return out

    def claims_of(self, tagged: Sequence[tuple[str, list[Token], list[Span], list[str]]], event_id: str = "",
                  threshold: float | None = None) -> list[CandidateClaim]:
        """The claims of :meth:`tag_text`'s sentences at a threshold (cross-validation tags once)."""
        out: list[CandidateClaim] = []
        for sentence, tokens, spans, tags in tagged:
            out.extend(self.claims(sentence, tokens, spans, tags, event_id, threshold))
        return out

    def claims(self, text: str, tokens: Sequence[Token], spans: Sequence[Span], tags: Sequence[str],
               event_id: str = "", threshold: float | None = None) -> list[CandidateClaim]:
        """The spans at or above the threshold as candidate claims (a separate step, so
        cross-validation can try thresholds on one tagging)."""
        floor = self.threshold if threshold is None else threshold
        zh = any("\u4e00" <= ch <= "\u9fff" for ch in text)
        mentions = _mentions(tokens, spans, tags, self._relations)
        out: list[CandidateClaim] = []
        seen: set[tuple[str, str, str]] = set()
        for span in spans:
            if span.prob < floor or span.slot not in self._slots:
                continue
            value = text[span.start:span.end].strip(_STRIP)
            inside = tokens[span.first:span.last + 1]
            if not value or len(value) > _MAX_VALUE or all(norm(t.text) in KIN for t in inside) \
                    or all(t.pos in _NOT_VALUE_TAGS or norm(t.text) in _EN_FUNCTION for t in inside):
                continue  # a kin word, or only adverbs, adjectives, pronouns and particles: not a value
            if span.other:
                subject = _subject_of(span, tokens, mentions, zh)
                if subject is None or norm(subject).endswith(norm(value)):
                    continue
            elif span.slot not in self._relations and (_third_party_before(span, tokens, mentions)
                                                        or _named_subject(span, tokens)):
                continue  # "我婆婆七十了，有糖尿病", "Biscuit is down to 31 lbs": not the user's; say nothing
            else:
                subject = "用户" if zh else "user"
            key = (subject, span.slot, value)
            if key in seen:
                continue
            seen.add(key)
            c_start, c_end = _clause_bounds(tokens, span)
            out.append(CandidateClaim(
                subject=subject, predicate=self._registry.canonical(span.slot), value=value,
                polarity=not _negated(tokens, span), importance=0.5,
                cardinality=self._registry.cardinality(span.slot), evidence_quote=text[c_start:c_end].strip(),
                evidence=(event_id,) if event_id else (), extractor="learned", rule=f"crf.{span.slot}"))
        return out


def decode(tokens: Sequence[Token], tags: Sequence[str], probs: Sequence[float]) -> list[Span]:
    """BIO runs as spans (an ``I-`` without its ``B-`` starts one); ``SUBJ`` runs are not values."""
    out: list[Span] = []
    i, n = 0, len(tags)
    while i < n:
        tag = tags[i]
        if tag == "O" or tag.endswith(("-S", "SUBJ")):
            i += 1
            continue
        label = tag[2:]
        j = i + 1
        while j < n and tags[j] == f"I-{label}" and tokens[j].clause == tokens[i].clause:
            j += 1
        if label in ("V", "VO"):
            slot, other = "", label == "VO"
        else:
            slot, other = (label[:-2], True) if label.endswith("@o") else (label, False)
        prob = sum(probs[i:j]) / (j - i)
        out.append(Span(slot, other, tokens[i].start, tokens[j - 1].end, i, j - 1, prob))
        i = j
    return out


def _mentions(tokens: Sequence[Token], spans: Sequence[Span], tags: Sequence[str],
              relations: frozenset[str]) -> list[tuple[int, int, str]]:
    """(first token, last token, text) of every mention of a third party, in order."""
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tags):
        if tags[i] == "B-S" or (tags[i] == "I-S" and (i == 0 or not tags[i - 1].endswith("-S"))):
            j = i + 1
            while j < len(tags) and tags[j] == "I-S":
                j += 1
            found.append((i, j - 1, "".join(_join(tokens[i:j]))))
            i = j
        else:
            i += 1
    for span in spans:
        if span.slot in relations and not span.other:
            found.append((span.first, span.last, "".join(_join(tokens[span.first:span.last + 1]))))
    for k, tok in enumerate(tokens):  # "my mom", 我老公: a kin word the tagger left untagged still names someone
        if norm(tok.text) in KIN and _possessed(tokens, k) and not any(a <= k <= b for a, b, _ in found):
            found.append((k, k, tok.text))
    return sorted(found)


_POSSESSORS = frozenset({"my", "our", "his", "her", "their", "我", "我的", "我们", "我们的", "咱", "咱们", "咱家", "我家", "的",
                         "他", "她", "他的", "她的"})


def _possessed(tokens: Sequence[Token], k: int) -> bool:
    """A kin word names a relative when a possessive comes just before it (my older brother, 我的老板),
    not when it is a job ("works as a manager")."""
    return any(j >= 0 and norm(tokens[j].text) in _POSSESSORS for j in (k - 1, k - 2))


def _join(tokens: Sequence[Token]) -> list[str]:
    out = []
    for k, tok in enumerate(tokens):
        if k and tok.start > tokens[k - 1].end:
            out.append(" ")
        out.append(tok.text)
    return out


def _subject_of(span: Span, tokens: Sequence[Token], mentions: Sequence[tuple[int, int, str]], zh: bool) -> str | None:
    clause = tokens[span.first].clause
    before = [m for m in mentions if m[1] < span.first]
    same = [m for m in before if tokens[m[0]].clause == clause]
    after = [m for m in mentions if m[0] > span.last and tokens[m[0]].clause == clause]
    pick = (same or before or after or [None])[-1 if (same or before) else 0]
    return None if pick is None else _subject_text(pick[2], zh)


_SENTENCE_END = frozenset("。.!！?？\n")
#: Pronouns of someone else: a value after one (before any first-person word) is not the user's.
_THIRD_PARTY = frozenset({"he", "she", "they", "him", "her", "his", "their", "them", "he's", "she's", "他", "她", "它",
                          "他们", "她们", "它们", "他的", "她的", "人家"})
_ANIMALS = frozenset({"cat", "dog", "puppy", "kitten", "pup", "bird", "rabbit", "bunny", "hamster", "猫", "狗", "猫咪",
                      "狗狗", "小猫", "小狗"})
_ARTICLES = frozenset({"the", "a", "an", "那", "这", "那只", "这只", "只"})


def _third_party_before(span: Span, tokens: Sequence[Token], mentions: Sequence[tuple[int, int, str]]) -> bool:
    """Whether, walking back from a value of the user's to its sentence's start, a mention of
    someone else comes before any first-person word."""
    k = span.first - 1
    while k >= 0 and tokens[k].text not in _SENTENCE_END:
        if any(a <= k <= b for a, b, _ in mentions):
            return True
        word = norm(tokens[k].text)
        if word in FIRST_PERSON or (tokens[k].han and word.startswith("我") and norm(word) not in KIN):
            return False
        if word in _THIRD_PARTY or (word in _ANIMALS and k > 0 and norm(tokens[k - 1].text) in _POSSESSORS | _ARTICLES):
            return True
        k -= 1
    return False


_DISCOURSE = frozenset({"so", "and", "but", "well", "oh", "also", "btw", "anyway", "plus", "now", "then", "ok", "okay",
                        "yeah", "lol", "haha", "like", "um", "uh"})
_THIRD_PERSON_VERBS = frozenset({"is", "'s", "’s", "has", "was", "got", "gets", "works", "lives", "just", "turned",
                                 "turns", "started", "will", "'ll", "does", "can", "loves", "likes", "hates", "eats",
                                 "goes", "went", "needs", "moved", "weighs", "takes", "plays", "studies", "teaches"})


def _named_subject(span: Span, tokens: Sequence[Token]) -> bool:
    """Whether the value's clause opens with someone's name as its subject ("Biscuit is down to
    31 lbs", "Priya works at Google", 张伟在腾讯上班) rather than the user."""
    clause = tokens[span.first].clause
    k = next(i for i in range(span.first + 1) if tokens[i].clause == clause)
    while k < span.first and norm(tokens[k].text) in _DISCOURSE:
        k += 1
    if k >= span.first:
        return False
    head = tokens[k]
    if head.han:
        return head.pos == "nr" and norm(head.text) not in KIN and not head.text.startswith("我")
    nxt = norm(tokens[k + 1].text) if k + 1 < len(tokens) else ""
    return (head.text[:1].isupper() and norm(head.text) not in FIRST_PERSON and norm(head.text) not in KIN
            and nxt in _THIRD_PERSON_VERBS)


def _subject_text(mention: str, zh: bool) -> str:
    """妈妈/我妈 → 用户的妈妈, mom → user's mom, Maya → Maya."""
    word = mention.strip()
    bare = word[1:] if word.startswith("我") and len(word) > 1 else word
    bare = bare[1:] if bare.startswith("的") else bare
    if norm(bare) in KIN:
        if zh and any("\u4e00" <= ch <= "\u9fff" for ch in bare):
            return f"用户的{KIN_CANON.get(bare, bare)}"  # as the rules write it (妈 → 用户的妈妈), so supersedes meet
        return f"user's {KIN_CANON.get(bare.lower(), bare.lower())}"
    return word


def _negated(tokens: Sequence[Token], span: Span) -> bool:
    """A negation word earlier in the value's clause (or "anymore" / "no longer" right after it)."""
    clause = tokens[span.first].clause
    k = span.first - 1
    while k >= 0 and tokens[k].clause == clause and span.first - k <= 6:
        w = norm(tokens[k].text)
        if w in _NEG_EN or (tokens[k].han and w.startswith(_NEG_ZH) and w not in ("不错", "无论", "没事")):
            return True
        k -= 1
    after = [norm(t.text) for t in tokens[span.last + 1:span.last + 4] if t.clause == clause]
    return "anymore" in after or "不用了" in after


def _clause_bounds(tokens: Sequence[Token], span: Span) -> tuple[int, int]:
    clause = tokens[span.first].clause
    inside = [t for t in tokens if t.clause == clause]
    return inside[0].start, inside[-1].end
