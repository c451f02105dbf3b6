"""Which offline extractor the composition root builds: rules, the learned tagger, or both (ADR 0078)."""

from __future__ import annotations

from hlmem.adapters.extraction.tokens import PosTagger
from hlmem.application.extraction.combine import CombinedExtractor
from hlmem.application.extraction.extractors import RuleExtractor
from hlmem.application.pipeline import Extractor
from hlmem.domain.slots import SlotRegistry

#: ``rules`` (the default); ``learned`` (the tagger alone); ``union`` and ``fallback`` combine them.
KINDS = ("rules", "learned", "union", "fallback")
#: The product's default: the rules alone. The tagger finds more facts on fresh speech but breaks
#: the precision limits there (ADR 0078, "Opt-in"), so it is chosen, not imposed.
DEFAULT_KIND = "rules"
#: How the tagger is combined with the rules when a learned kind is asked for without a mode.
COMBINED_KIND = "union"


def combined_extractor(registry: SlotRegistry, pos: PosTagger, *, learned: Extractor | None = None,
                       mode: str = COMBINED_KIND) -> Extractor:
    from hlmem.adapters.extraction.tagger import LearnedExtractor

    return CombinedExtractor(RuleExtractor(registry, tagger=pos),
                             learned if learned is not None else LearnedExtractor(registry, pos, mode=mode), mode)


def offline_extractor(registry: SlotRegistry, pos: PosTagger, kind: str | None = None) -> Extractor:
    """The extractor of ``kind`` (None: :data:`DEFAULT_KIND`, the rules). An unknown kind is an
    error; so is a learned kind whose model or library is missing (``pip install 'hlmem[learned]'``)."""
    kind = DEFAULT_KIND if kind is None else kind
    if kind not in KINDS:
        raise ValueError(f"unknown offline extractor {kind!r} (one of {', '.join(KINDS)})")
    if kind == "rules":
        return RuleExtractor(registry, tagger=pos)
    if kind == "learned":
        from hlmem.adapters.extraction.tagger import LearnedExtractor

        return LearnedExtractor(registry, pos, mode="learned")
    return combined_extractor(registry, pos, mode=kind)
