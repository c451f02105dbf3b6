"""Mem0's driver: ``mem0.Memory`` on embedded Qdrant (a local path, no server), ``infer=False``.

Runs in Mem0's venv (``install_peers.py``). Each turn is one ``Memory.add(messages,
user_id=<conversation>, infer=False)``: Mem0 stores the message verbatim, without an LLM. Each
question is one ``Memory.search(query, filters={"user_id": …}, top_k=k)`` with Mem0's defaults
otherwise (threshold 0.1 on the cosine, no reranker).

No model runs: Mem0's embedder is replaced, after ``Memory.from_config``, by
:class:`GivenVectors`, a subclass of Mem0's own ``EmbeddingBase`` that answers every ``embed``
call of an add with that turn's vector and of a search with the question's (both computed once by
``run.py``). The configured ``openai`` embedder and LLM only satisfy the config's validation:
their clients get a placeholder key and an address on this machine where nothing listens, and
are never called (``infer=False``, no reranker). Telemetry is off (``MEM0_TELEMETRY=False``).
With the plain ``pip install mem0ai qdrant-client`` neither spaCy nor fastembed is installed, so
Mem0 searches by vector only: its BM25 channel (fastembed's ``Qdrant/bm25``) and its entity boost
(spaCy's ``en_core_web_sm``) are off, as they are for any user of the plain install; both would
download a model at run time.
"""

from __future__ import annotations

import os

# Before Mem0 is imported: it reads both at import time.
os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "hlmem-peers-mem0"))

import shutil  # noqa: E402
import tempfile  # noqa: E402
from importlib.metadata import version  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from peers_protocol import Stopwatch, decode_vector, run_driver  # noqa: E402

#: Where the never-called OpenAI clients would connect: the discard port on loopback.
NOWHERE = "http://127.0.0.1:9/v1"


def make_handler() -> Any:
    """Import Mem0 (slow) and build the handler."""
    from mem0 import Memory
    from mem0.embeddings.base import EmbeddingBase

    class GivenVectors(EmbeddingBase):
        """Mem0's embedder port answering with the vector of the call in progress."""

        def __init__(self) -> None:
            super().__init__(None)
            self.current: list[float] | None = None
            self.expected = ""
            self.calls = 0
            self.other_texts = 0

        def embed(self, text: Any, memory_action: Any = None) -> list[float]:
            if self.current is None:
                raise RuntimeError(f"Mem0 asked for a vector outside an add or a search: {str(text)[:80]!r}")
            self.calls += 1
            self.other_texts += text != self.expected
            return self.current

    class Mem0Handler:
        name = "mem0"

        def __init__(self) -> None:
            self.version = f"mem0ai {version('mem0ai')}, qdrant-client {version('qdrant-client')}"
            self.mem: Any = None
            self.embedder: GivenVectors | None = None
            self.scope = ""
            self.dim = 0
            self.ids: dict[str, str] = {}

        def _open(self, folder: Path, dim: int, scope: str) -> None:
            folder.mkdir(parents=True, exist_ok=True)
            config = {
                "vector_store": {"provider": "qdrant", "config": {
                    "collection_name": "peers", "embedding_model_dims": dim, "path": str(folder / "qdrant")}},
                "embedder": {"provider": "openai", "config": {
                    "api_key": "unused", "embedding_dims": dim, "openai_base_url": NOWHERE}},
                "llm": {"provider": "openai", "config": {"api_key": "unused", "openai_base_url": NOWHERE}},
                "history_db_path": str(folder / "history.db"),
            }
            self.mem = Memory.from_config(config)
            self.embedder = GivenVectors()
            self.mem.embedding_model = self.embedder
            self.scope, self.dim, self.ids = scope, dim, {}

        def _add(self, msg: dict[str, Any], watch: Stopwatch) -> str:
            assert self.embedder is not None
            self.embedder.current = list(decode_vector(msg["vector"], self.dim))
            self.embedder.expected = msg["text"]
            message = {"role": "user", "content": msg["text"], "name": msg.get("speaker") or "user"}
            metadata = {"session": msg.get("session") or "default"}
            if msg.get("occurred_at"):
                metadata["occurred_at"] = msg["occurred_at"]
            try:
                with watch:
                    out = self.mem.add([message], user_id=self.scope, infer=False, metadata=metadata)
            finally:
                self.embedder.current = None
            results = out.get("results") or []
            if len(results) != 1:
                raise RuntimeError(f"Mem0 answered {len(results)} memories for one message: {out}")
            return str(results[0]["id"])

        def _search(self, msg: dict[str, Any], watch: Stopwatch) -> list[dict[str, Any]]:
            assert self.embedder is not None
            self.embedder.current = list(decode_vector(msg["vector"], self.dim))
            self.embedder.expected = msg["text"]
            try:
                with watch:
                    out = self.mem.search(msg["text"], filters={"user_id": self.scope}, top_k=int(msg["k"]))
            finally:
                self.embedder.current = None
            return out.get("results") or []

        def _close(self) -> None:
            if self.mem is not None:
                self.mem.close()
                # The embedded Qdrant holds its folder's lock until its client is closed.
                client = getattr(self.mem.vector_store, "client", None)
                if client is not None:
                    client.close()
                self.mem = None

        # -- the protocol's operations ---------------------------------------------------------

        def op_warm(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            scratch = Path(tempfile.mkdtemp(prefix="warm-", dir=msg["dir"]))
            try:
                self._open(scratch, int(msg["dim"]), "warm")
                for text, vector in zip(msg["texts"], msg["vectors"]):
                    self._add({"text": text, "vector": vector}, Stopwatch())
                self._search({"text": msg["query"], "vector": msg["query_vector"], "k": 10}, watch)
            finally:
                self._close()
                shutil.rmtree(scratch, ignore_errors=True)
            return {}

        def op_open(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            self._open(Path(msg["dir"]), int(msg["dim"]), msg["scope"])
            return {}

        def op_add(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            ref = self._add(msg, watch)
            self.ids[ref] = msg["id"]
            return {"ref": ref}

        def op_recall(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            results = self._search(msg, watch)
            ids = [self.ids[str(r["id"])] for r in results if str(r["id"]) in self.ids]
            return {"ids": ids, "returned": len(results)}

        def op_close(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            assert self.embedder is not None
            stats = {"memories": len(self.ids), "embed_calls": self.embedder.calls,
                     "embed_other_texts": self.embedder.other_texts}
            self._close()
            return {"stats": stats}

    return Mem0Handler()


if __name__ == "__main__":
    run_driver(make_handler)
