"""Finding entry points without importing them: each one with its distribution and version."""

from __future__ import annotations

import functools
import importlib.metadata as md
import os
import re
import sys
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

    Scanning every distribution costs tens of milliseconds, so the answer is kept per
    (groups, path, modification time of each path entry): installing or removing a
    distribution changes its folder's time, and the next call scans again.
    """
    entries = tuple(sys.path if path is None else path)
    return list(_scan(tuple(groups.items()), entries, tuple(_mtime(e) for e in entries), path is None))


def _mtime(entry: str) -> int:
    try:
        return os.stat(entry or ".").st_mtime_ns
    except OSError:
        return -1


@functools.lru_cache(maxsize=32)
def _scan(group_items: tuple[tuple[str, str], ...], entries: tuple[str, ...], _mtimes: tuple[int, ...],
          default_path: bool) -> tuple[Found, ...]:
    groups = dict(group_items)
    path = None if default_path else list(entries)
    kinds = {group: kind for kind, group in groups.items()}
    seen: set[str] = set()
    out: list[Found] = []
    dists: Iterable[md.Distribution] = md.distributions() if path is None else md.distributions(path=list(path))
    for dist in dists:
        # The folder's name (``foo_bar-1.0.dist-info``) names the distribution without parsing its
        # metadata, which costs about 0.2 ms a distribution: only those with plugins are parsed.
        quick = getattr(dist, "_normalized_name", None)
        name = None if quick else (dist.metadata["Name"] if dist.metadata else None)
        key = canonical(quick or name or "")
        if not key or key in seen:
            continue
        seen.add(key)
        found = [ep for ep in dist.entry_points if ep.group in kinds]
        if found and name is None:
            name = dist.metadata["Name"] if dist.metadata else None
        for ep in found if name else ():
            out.append(Found(ep.group, kinds[ep.group], ep.name, name, dist.version or "", ep))
    if canonical(BUILTIN_DISTRIBUTION) not in seen:
        for group, table in BUILTIN_ENTRY_POINTS.items():
            if group in kinds:
                out.extend(Found(group, kinds[group], name, BUILTIN_DISTRIBUTION, "source",
                                 md.EntryPoint(name=name, value=value, group=group))
                           for name, value in table.items())
    order = list(groups.values())
    return tuple(sorted(out, key=lambda f: (order.index(f.group), f.name, canonical(f.distribution))))
