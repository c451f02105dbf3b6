"""hlmem's driver: ``hlmem.Memory`` on a SQLite file, one synchronous ``add`` per turn.

Runs in hlmem's interpreter (``run.py``'s own, or ``--hlmem-python``), so the same harness can
measure another checkout. Each turn is one ``Memory.add(text, session=…, role=<speaker>,
occurred_at=<session date>, extract=…)`` on a store opened with ``synchronous="FULL"`` (the
default) and hlmem's default settings (not the machine's config file or ``HLMEM_*`` variables);
extraction is off unless ``run.py --hlmem-extract`` asks for the rules extractor, since the peers
store verbatim too (Mem0 ``infer=False``, HL-Mem explicit memories). Each question is one
``Memory.recall(query, k=k, now=<date of the last session>)``; returned claims and events map to
turns through their evidence events.

No model runs: the embedder handed to ``Memory(embedder=…)`` is :class:`GivenVectors`, which
satisfies hlmem's ``Embedder`` port and answers every passage of an add with that turn's vector
and every query of a recall with the question's.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from peers_protocol import Stopwatch, decode_vector, run_driver


def make_handler() -> Any:
    """Import hlmem and build the handler."""
    import os

    import numpy as np

    import hlmem
    from hlmem import Memory
    from hlmem.adapters.settings import Settings

    extract = os.environ.get("HLMEM_PEERS_EXTRACT", "0") == "1"

    def source() -> str:
        """Where this hlmem comes from, and its commit when that is a git checkout (``+dirty``: changed files)."""
        folder = Path(hlmem.__file__).resolve().parent

        def git(*args: str) -> str:
            done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=False)
            return done.stdout.strip() if done.returncode == 0 else ""

        head = git("rev-parse", "--short", "HEAD")
        dirty = "+dirty" if head and git("status", "--porcelain", "--untracked-files=no") else ""
        return f"at {head}{dirty} ({folder})" if head else f"({folder})"

    class GivenVectors:
        """hlmem's ``Embedder`` port answering with the vector of the call in progress."""

        def __init__(self, dim: int, model: str) -> None:
            self._dim = dim
            self._model = model
            self.current: np.ndarray | None = None
            self.expected = ""
            self.calls = 0
            self.other_texts = 0

        @property
        def model_id(self) -> str:
            return self._model

        @property
        def dim(self) -> int:
            return self._dim

        def _rows(self, texts: Any) -> np.ndarray:
            texts = list(texts)
            if not texts:
                return np.empty((0, self._dim), dtype=np.float32)
            if self.current is None:
                raise RuntimeError(f"hlmem asked for a vector outside an add or a recall: {texts[0][:80]!r}")
            self.calls += 1
            self.other_texts += sum(text != self.expected for text in texts)
            return np.repeat(self.current[None, :], len(texts), axis=0)

        def embed_passages(self, texts: Any) -> np.ndarray:
            return self._rows(texts)

        def embed_queries(self, texts: Any) -> np.ndarray:
            return self._rows(texts)

    class HlmemHandler:
        name = "hlmem"

        def __init__(self) -> None:
            self.version = f"hlmem {hlmem.__version__} {source()}" + (", rules extraction" if extract else "")
            self.mem: Any = None
            self.embedder: GivenVectors | None = None
            self.dim = 0
            self.ids: dict[str, str] = {}

        def _open(self, folder: Path, dim: int, model: str) -> None:
            folder.mkdir(parents=True, exist_ok=True)
            self.embedder = GivenVectors(dim, model)
            self.mem = Memory(folder / "hlmem.db", embedder=self.embedder, synchronous="FULL", settings=Settings())
            self.dim, self.ids = dim, {}

        def _vector(self, text: str) -> np.ndarray:
            vector = np.asarray(decode_vector(text, self.dim), dtype=np.float32)
            return vector / (np.linalg.norm(vector) or 1.0)

        def _add(self, msg: dict[str, Any], watch: Stopwatch) -> str:
            assert self.embedder is not None
            self.embedder.current = self._vector(msg["vector"])
            self.embedder.expected = msg["text"]
            try:
                with watch:
                    result = self.mem.add(msg["text"], session=msg.get("session") or "default",
                                          role=msg.get("speaker") or "user", occurred_at=msg.get("occurred_at"),
                                          extract=extract)
            finally:
                self.embedder.current = None
            return str(result.id)

        def _recall(self, msg: dict[str, Any], watch: Stopwatch) -> Any:
            assert self.embedder is not None
            self.embedder.current = self._vector(msg["vector"])
            self.embedder.expected = msg["text"]
            try:
                with watch:
                    return self.mem.recall(msg["text"], k=int(msg["k"]), now=msg.get("now"))
            finally:
                self.embedder.current = None

        def _close(self) -> None:
            if self.mem is not None:
                self.mem.close()
                self.mem = None

        # -- the protocol's operations ---------------------------------------------------------

        def op_warm(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            scratch = Path(tempfile.mkdtemp(prefix="warm-", dir=msg["dir"]))
            try:
                self._open(scratch, int(msg["dim"]), msg["model"])
                for text, vector in zip(msg["texts"], msg["vectors"]):
                    self._add({"text": text, "vector": vector}, Stopwatch())
                self._recall({"text": msg["query"], "vector": msg["query_vector"], "k": 10}, watch)
            finally:
                self._close()
                shutil.rmtree(scratch, ignore_errors=True)
            return {}

        def op_open(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            self._open(Path(msg["dir"]), int(msg["dim"]), msg["model"])
            return {}

        def op_add(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            ref = self._add(msg, watch)
            self.ids[ref] = msg["id"]
            return {"ref": ref}

        def op_recall(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            result = self._recall(msg, watch)
            ids: list[str] = []
            for item in result.items:
                # An event stands for itself (and the near-duplicates folded into it); a claim for its evidence.
                evidence = tuple(getattr(item, "evidence", ()) or ())
                for source in ((item.id, *evidence) if item.kind == "event" else evidence):
                    doc = self.ids.get(source)
                    if doc is not None and doc not in ids:
                        ids.append(doc)
            return {"ids": ids, "returned": len(result.items)}

        def op_close(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            assert self.embedder is not None
            stats = {"memories": len(self.ids), "embed_calls": self.embedder.calls,
                     "embed_other_texts": self.embedder.other_texts}
            self._close()
            return {"stats": stats}

    return HlmemHandler()


if __name__ == "__main__":
    run_driver(make_handler)
