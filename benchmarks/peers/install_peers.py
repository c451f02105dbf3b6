"""Install the peers from the package registry, each into its own virtual environment.

    python benchmarks/peers/install_peers.py                 # both, into ~/.cache/hlmem-peers/venvs/
    python benchmarks/peers/install_peers.py --only mem0 --force
    python benchmarks/peers/install_peers.py --python-hl-mem /usr/bin/python3.13

Each peer gets ``<cache>/venvs/<name>``, made with the first interpreter found that is new enough
for its packages (``--python-<name>``, then this one, then ``python3.N`` on PATH, then pyenv's
versions), and ``pip install`` of its pinned packages (peers_systems.PEERS: ``mem0ai`` and
``qdrant-client`` for Mem0, ``hl-mem`` for HL-Mem). ``<venv>/peer.json`` records the packages,
the interpreter and the versions installed, or, when no interpreter fits or pip fails, every
command tried and the end of its output. A venv that already holds the same packages is kept
(``--force`` makes it anew). Nothing here downloads a model: the drivers are fed vectors.
Exit status: 0 when every peer asked for is ready, 1 otherwise (the others are still installed).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from peers_systems import DEFAULT_CACHE, PEERS, Peer, peer_state, venv_dir, venv_python

_VERSION = re.compile(r"(\d+)\.(\d+)")
#: Prints the venv's Python and the versions of the distributions named as arguments, as JSON.
_VERSIONS = ("import json, platform, sys, importlib.metadata as m; "
             "print(json.dumps({'python': platform.python_version(), **{d: m.version(d) for d in sys.argv[1:]}}))")


def python_version(executable: str) -> tuple[int, int] | None:
    """``(major, minor)`` of an interpreter that has venv, or None when it does not run or lacks venv."""
    try:
        out = subprocess.run([executable, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.fullmatch(out.stdout.strip())
    return (int(match.group(1)), int(match.group(2))) if out.returncode == 0 and match else None


def candidates(explicit: str | None) -> list[str]:
    """Interpreters to try, in order: the one named, this one, python3.N on PATH (newest first), pyenv's."""
    found: list[str] = [explicit] if explicit else []
    found.append(sys.executable)
    for minor in range(20, 9, -1):
        path = shutil.which(f"python3.{minor}")
        if path:
            found.append(path)
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    versions = pyenv_root / "versions"
    if versions.is_dir():
        def key(p: Path) -> tuple[int, ...]:
            return tuple(int(x) for x in re.findall(r"\d+", p.name)[:3])
        for folder in sorted((p for p in versions.iterdir() if re.fullmatch(r"3\.\d+\.\d+", p.name)),
                             key=key, reverse=True):
            found.append(str(folder / "bin" / "python"))
    return list(dict.fromkeys(found))


def run(cmd: list[str], tried: list[dict], timeout: float = 1800) -> subprocess.CompletedProcess:
    """Run a command, noting it and the end of its output in ``tried``."""
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        tried.append({"command": cmd, "returncode": None, "output": f"timed out after {timeout:.0f} s"})
        raise
    tried.append({"command": cmd, "returncode": done.returncode, "output": (done.stdout + done.stderr)[-2000:]})
    return done


def install(peer: Peer, cache: Path, explicit_python: str | None, force: bool) -> dict:
    """Make ``peer``'s venv and install its packages; the marker written (status ok or failed)."""
    ready, _ = peer_state(cache, peer.name)
    folder = venv_dir(cache, peer.name)
    if ready and not force:
        marker = json.loads((folder / "peer.json").read_text(encoding="utf-8"))
        print(f"{peer.name}: ready ({marker.get('versions')}), kept", file=sys.stderr)
        return marker
    tried: list[dict] = []
    marker: dict = {"name": peer.name, "packages": list(peer.packages), "status": "failed",
                    "installed_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
    interpreter = None
    for candidate in candidates(explicit_python):
        version = python_version(candidate)
        tried.append({"interpreter": candidate, "version": ".".join(map(str, version)) if version else None})
        if version is not None and version >= peer.min_python:
            interpreter = candidate
            break
    if interpreter is None:
        marker.update(error=f"no interpreter with venv of Python {_dotted(peer.min_python)} or later "
                            f"(pass --python-{peer.name})", tried=tried)
        return _write(folder, marker)
    if folder.exists():
        shutil.rmtree(folder)
    try:
        steps = [
            [interpreter, "-m", "venv", str(folder)],
            [str(venv_python(cache, peer.name)), "-m", "pip", "install", "--disable-pip-version-check", *peer.packages],
            [str(venv_python(cache, peer.name)), "-c", "import " + ", ".join(peer.imports)],
        ]
        for step in steps:
            if run(step, tried).returncode != 0:
                marker.update(error=f"{' '.join(step[:4])} … failed", tried=tried)
                return _write(folder, marker)
        versions = run([str(venv_python(cache, peer.name)), "-c", _VERSIONS, *peer.distributions], tried)
    except subprocess.TimeoutExpired:
        marker.update(error="a step timed out", tried=tried)
        return _write(folder, marker)
    marker.update(status="ok", interpreter=interpreter, versions=json.loads(versions.stdout.strip().splitlines()[-1]))
    return _write(folder, marker)


def _write(folder: Path, marker: dict) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "peer.json").write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    status = marker["status"] if marker["status"] == "ok" else f"FAILED: {marker.get('error')}"
    print(f"{marker['name']}: {status} ({folder / 'peer.json'})", file=sys.stderr)
    return marker


def _dotted(version: tuple[int, int]) -> str:
    return ".".join(map(str, version))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="venvs go to CACHE/venvs/<peer>")
    parser.add_argument("--only", default=",".join(PEERS), help="comma-separated peers (default: all)")
    parser.add_argument("--force", action="store_true", help="make the venvs anew")
    for name in PEERS:
        parser.add_argument(f"--python-{name}", dest=f"python_{name.replace('-', '_')}", default=None,
                            help=f"interpreter for {name}'s venv (Python {_dotted(PEERS[name].min_python)}+)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in PEERS]
    if unknown:
        parser.error(f"unknown peer(s) {', '.join(unknown)}: one of {', '.join(PEERS)}")
    markers = [install(PEERS[n], args.cache_dir.resolve(), getattr(args, f"python_{n.replace('-', '_')}"), args.force)
               for n in names]
    print(json.dumps({m["name"]: {"status": m["status"], "versions": m.get("versions"), "error": m.get("error")}
                      for m in markers}))
    return 0 if all(m["status"] == "ok" for m in markers) else 1


if __name__ == "__main__":
    sys.exit(main())
