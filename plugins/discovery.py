"""Finding entry points without importing them: each one with its distribution and version."""

from __future__ import annotations

import importlib.metadata as md
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from hlmem.plugins.builtin import BUILTIN_DISTRIBUTION, BUILTIN_ENTRY_POINTS

__all__ = ["Found", "canonical", "installed"]


def canonical(distribution: str) -> str:
    """A distribution name as PEP 503 compares them (``Hlmem_Echo.reranker`` -> ``hlmem-echo-reranker``)."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


@dataclass(frozen=True)
class Found:
    """One entry point found in a plugin group; nothing of it has been imported.

    :param kind: the port (``reranker``) its group stands for.
    :param entry_point: the ``importlib.metadata.EntryPoint`` (``load()`` imports it).
    """

    group: str
    kind: str
    name: str
    distribution: str
    version: str
    entry_point: md.EntryPoint

    @property
    def label(self) -> str:
        """``reranker:echo`` (what ``[plugins] enabled`` may say)."""
        return f"{self.kind}:{self.name}"


def installed(groups: Mapping[str, str], path: Sequence[str] | None = None) -> list[Found]:
    """Every entry point of ``groups`` (kind -> group) in the distributions on ``path`` (default ``sys.path``).

    Reads metadata only. A distribution found twice on the path counts once, the first (as
    import would pick it). When no ``hlmem`` distribution is installed (a source tree), the
    built-ins come from :data:`~hlmem.plugins.builtin.BUILTIN_ENTRY_POINTS`.
    """
    kinds = {group: kind for kind, group in groups.items()}
    seen: set[str] = set()
    out: list[Found] = []
    dists: Iterable[md.Distribution] = md.distributions() if path is None else md.distributions(path=list(path))
    for dist in dists:
        name = dist.metadata["Name"] if dist.metadata else None
        if not name or canonical(name) in seen:
            continue
        seen.add(canonical(name))
        for ep in dist.entry_points:
            if ep.group in kinds:
                out.append(Found(ep.group, kinds[ep.group], ep.name, name, dist.version or "", ep))
    if canonical(BUILTIN_DISTRIBUTION) not in seen:
        for group, table in BUILTIN_ENTRY_POINTS.items():
            if group in kinds:
                out.extend(Found(group, kinds[group], name, BUILTIN_DISTRIBUTION, "source",
                                 md.EntryPoint(name=name, value=value, group=group))
                           for name, value in table.items())
    return sorted(out, key=lambda f: (list(groups.values()).index(f.group), f.name, canonical(f.distribution)))
