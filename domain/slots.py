"""The slot registry: which predicates hold one value at a time, their labels, and qualifier keys.

A slot is ``(namespace, subject, predicate, coordinate qualifiers)``. Which predicates are
single-valued is *data*: a :class:`SlotRegistry` value, not code. A predicate the registry does
not know is single-valued unless the caller declares it multi-valued.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from attrs import field, frozen

from hlmem.domain.events import Cardinality


@functools.lru_cache(maxsize=65_536)
def normalize_key(text: str) -> str:
    """Canonical form for comparing subjects, predicates and values: NFKC, casefold, one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split())


@functools.lru_cache(maxsize=8_192)
def normalize_predicate(text: str) -> str:
    """Canonical predicate: normalised, spaces and dashes become underscores."""
    return re.sub(r"[\s\-]+", "_", normalize_key(text))


@frozen
class SlotSpec:
    """What the registry knows about one predicate."""

    predicate: str
    cardinality: Cardinality = Cardinality.SINGLE
    labels: tuple[str, ...] = ()
    coordinate_keys: frozenset[str] = frozenset()


#: Descriptive qualifiers: they describe an assertion but do not pick out a different slot.
DESCRIPTIVE_QUALIFIERS = frozenset(
    {"temporary", "condition", "frequency", "confidence", "reason", "note", "source", "context",
     "since", "until", "degree", "manner", "with", "location", "time"}
)

#: Coordinate qualifiers every predicate accepts: they pick out a different slot.
COMMON_COORDINATES = frozenset(
    {"component", "environment", "project", "device", "service", "app", "tool", "target", "topic",
     "language", "account", "role", "process", "job", "deployment", "instance", "connection", "cluster",
     "branch", "container", "database", "client", "module", "plugin"}
)


@frozen(eq=False)
class SlotRegistry:
    """Immutable mapping from canonical predicate to :class:`SlotSpec`, plus aliases.

    Compared and hashed by identity: a registry is configuration, and identity hashing lets
    pure functions cache results per registry.
    """

    specs: Mapping[str, SlotSpec] = field(factory=lambda: MappingProxyType({}))
    aliases: Mapping[str, str] = field(factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, specs: Iterable[SlotSpec], aliases: Mapping[str, str] | None = None) -> SlotRegistry:
        """Build a registry from specs and ``alias -> predicate`` pairs."""
        spec_map = {normalize_predicate(s.predicate): s for s in specs}
        alias_map = {normalize_predicate(a): normalize_predicate(p) for a, p in (aliases or {}).items()}
        return cls(MappingProxyType(spec_map), MappingProxyType(alias_map))

    def canonical(self, predicate: str) -> str:
        """The canonical predicate for ``predicate`` (resolving aliases; unknown ones pass)."""
        key = normalize_predicate(predicate)
        return self.aliases.get(key, key)

    def spec(self, predicate: str) -> SlotSpec | None:
        """The spec of a known predicate, else None."""
        return self.specs.get(self.canonical(predicate))

    def cardinality(self, predicate: str, declared: Cardinality | None = None) -> Cardinality:
        """The caller's declaration wins; else the registry; else single-valued."""
        if declared is not None:
            return declared
        spec = self.spec(predicate)
        return spec.cardinality if spec else Cardinality.SINGLE

    def labels(self, predicate: str) -> tuple[str, ...]:
        """Human labels (Chinese and English) used when indexing a claim's text."""
        spec = self.spec(predicate)
        return spec.labels if spec else ()

    def is_coordinate(self, predicate: str, key: str) -> bool:
        """Whether qualifier ``key`` picks out a different slot for ``predicate``."""
        spec = self.spec(predicate)
        return key in COMMON_COORDINATES or (spec is not None and key in spec.coordinate_keys)

    def is_known_qualifier(self, predicate: str, key: str) -> bool:
        """Whether ``key`` is a qualifier hlmem understands for ``predicate``."""
        return key in DESCRIPTIVE_QUALIFIERS or self.is_coordinate(predicate, key)
