"""The three systems: what each peer installs, where its venv lives, how its driver starts.

hlmem's driver runs in the interpreter given to ``run.py`` (its own by default). Each peer runs
in a virtual environment under ``<cache>/venvs/<name>`` that ``install_peers.py`` made from the
package registry; ``<venv>/peer.json`` records what was installed (or why it failed).
Standard library only: ``install_peers.py`` runs on any Python 3.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: Venvs, vectors, stores and driver logs: outside the checkout, whose tools and tests walk every
#: .py file under it (a venv holds thousands, some in a newer Python's syntax); shared by worktrees.
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hlmem-peers"
#: The order of the tables; run.py alternates the order of the runs.
SYSTEMS = ("hlmem", "mem0", "hl-mem")


@dataclass(frozen=True)
class Peer:
    """A peer installed from the registry into its own venv."""

    name: str
    #: ``pip install`` arguments (pinned: the figures name the versions measured).
    packages: tuple[str, ...]
    #: The oldest Python its packages install on.
    min_python: tuple[int, int]
    #: Modules that must import once installed.
    imports: tuple[str, ...]
    #: Distributions whose versions are recorded.
    distributions: tuple[str, ...]
    driver: str


PEERS: dict[str, Peer] = {
    "mem0": Peer("mem0", ("mem0ai==2.2.1", "qdrant-client==1.20.0"), (3, 10), ("mem0", "qdrant_client"),
                 ("mem0ai", "qdrant-client", "numpy"), "driver_mem0.py"),
    "hl-mem": Peer("hl-mem", ("hl-mem==1.1.7",), (3, 12), ("hl_mem",), ("hl-mem", "numpy", "jieba"),
                   "driver_hl_mem.py"),
}


def venv_dir(cache: Path, name: str) -> Path:
    """Where a peer's venv lives."""
    return cache / "venvs" / name


def venv_python(cache: Path, name: str) -> Path:
    """A peer venv's interpreter."""
    return venv_dir(cache, name) / "bin" / "python"


def read_marker(cache: Path, name: str) -> dict[str, Any] | None:
    """``peer.json`` of a peer's venv, or None when it was never installed."""
    path = venv_dir(cache, name) / "peer.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def peer_state(cache: Path, name: str) -> tuple[bool, str]:
    """``(ready, why)``: a peer is ready when its venv installed the packages asked for now."""
    peer = PEERS[name]
    marker = read_marker(cache, name)
    if marker is None:
        return False, f"not installed: run python benchmarks/peers/install_peers.py --cache-dir {cache}"
    if marker.get("status") != "ok":
        return False, f"install failed ({marker.get('error', 'see peer.json')}); see {venv_dir(cache, name)}/peer.json"
    if tuple(marker.get("packages", ())) != peer.packages:
        return False, (f"venv holds {' '.join(marker.get('packages', ()))}, expected {' '.join(peer.packages)}: "
                       f"run install_peers.py --force")
    if not venv_python(cache, name).exists():
        return False, f"{venv_python(cache, name)} is missing: run install_peers.py --force"
    return True, "ok"


def driver_command(name: str, cache: Path, hlmem_python: str | None = None) -> list[str]:
    """The command that starts a system's driver."""
    if name == "hlmem":
        return [hlmem_python or sys.executable, str(HERE / "driver_hlmem.py")]
    return [str(venv_python(cache, name)), str(HERE / PEERS[name].driver)]


def driver_env(name: str, cache: Path, *, hlmem_extract: bool = False) -> dict[str, str]:
    """The driver's environment: this one without Python path overrides, plus the system's settings."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    if name == "hlmem":
        env["HLMEM_PEERS_EXTRACT"] = "1" if hlmem_extract else "0"
    elif name == "mem0":
        env["MEM0_DIR"] = str(cache / "mem0-home")
        env["MEM0_TELEMETRY"] = "False"
    return env
