"""Which offline extractor the composition root builds: rules, the learned tagger, or both (ADR 0078)."""

from __future__ import annotations

import logging

from hlmem.adapters.extraction.tokens import PosTagger
from hlmem.application.extraction.combine import CombinedExtractor
from hlmem.application.extraction.extractors import RuleExtractor
from hlmem.application.pipeline import Extractor
from hlmem.domain.slots import SlotRegistry

#: ``rules``; ``learned`` (the tagger alone); ``union`` (the default) and ``fallback`` combine them.
KINDS = ("rules", "learned", "union", "fallback")
DEFAULT_KIND = "union"
_log = logging.getLogger(__name__)


def combined_extractor(registry: SlotRegistry, pos: PosTagger, *, learned: Extractor | None = None,
                       mode: str = DEFAULT_KIND) -> Extractor:
    from hlmem.adapters.extraction.tagger import LearnedExtractor

    return CombinedExtractor(RuleExtractor(registry, tagger=pos),
                             learned if learned is not None else LearnedExtractor(registry, pos, mode=mode), mode)


def offline_extractor(registry: SlotRegistry, pos: PosTagger, kind: str | None = None) -> Extractor:
    """The extractor of ``kind`` (None: the default). An unknown kind is an error; so is a named
    learned kind whose model or library is missing. The default falls back to the rules then, with
    a warning: a store must still take writes."""
    if kind is None:
        try:
            return combined_extractor(registry, pos, mode=DEFAULT_KIND)
        except (ImportError, RuntimeError) as exc:
            _log.warning("the learned extractor is unavailable (%s): extracting with the rules alone", exc)
            return RuleExtractor(registry, tagger=pos)
    if kind not in KINDS:
        raise ValueError(f"unknown offline extractor {kind!r} (one of {', '.join(KINDS)})")
    if kind == "rules":
        return RuleExtractor(registry, tagger=pos)
    if kind == "learned":
        from hlmem.adapters.extraction.tagger import LearnedExtractor

        return LearnedExtractor(registry, pos, mode="learned")
    return combined_extractor(registry, pos, mode=kind)
