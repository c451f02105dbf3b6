"""HL-Mem's driver: explicit memories through HL-Mem's own services, in process, without an LLM.

Runs in HL-Mem's venv (``install_peers.py``; hl-mem 1.1.7 needs Python 3.12 or later). It wires
the pieces as HL-Mem's REST server does (``hl_mem.api.server.create_app``), minus HTTP:

- a store is ``hl_mem.storage.database.Database`` on its own SQLite file, with the settings of
  ``Settings.for_test()`` (no LLM, no reranker, no query expansion: the modes HL-Mem runs without
  keys) and the embedding dimension of the given vectors;
- each turn is ``IngestService.save_explicit_memory(text, namespace=<conversation>,
  session_id=<session>)`` (what ``POST /v1/memories`` and ``hlmem remember`` call) followed by one
  ``Worker.run_once()``, which turns the queued event into its claim with the explicit extractor
  (no LLM) and embeds it: the memory is searchable when the add returns, as in hlmem and Mem0;
- each question is ``RecallService.recall(query, limit=k, namespace=<conversation>)`` built as the
  server builds it (no reranker, relation expansion as configured, no query expander). Without the
  server's side-effect thread, recall records accesses inline, as HL-Mem does in process.

No model runs: the embedder handed to the worker and to recall is :class:`GivenVectors`, which
satisfies HL-Mem's ``EmbedderProtocol`` (``dim``, ``model``, ``embed_one``, ``embed_batch``,
``embed_query``) and answers every call of an add with that turn's vector and of a recall with the
question's (HL-Mem embeds the claim text ``user：<text>``, which is the turn's text with a prefix).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path
from typing import Any

from peers_protocol import Stopwatch, decode_vector, run_driver


def make_handler() -> Any:
    """Import HL-Mem (slow: jieba and friends) and build the handler."""
    from hl_mem import components
    from hl_mem.application.ingest import IngestService
    from hl_mem.application.recall import RecallService
    from hl_mem.core.vector import pack_vector
    from hl_mem.recall.relation_expansion import RelationExpansionConfig
    from hl_mem.settings import Settings
    from hl_mem.storage.database import Database
    from hl_mem.workers.worker import Worker

    class GivenVectors:
        """HL-Mem's embedder protocol answering with the vector of the call in progress."""

        def __init__(self, dim: int, model: str) -> None:
            self.dim = dim
            self.model = model
            self.current: bytes | None = None
            self.expected = ""
            self.calls = 0
            self.other_texts = 0

        def embed_one(self, text: str) -> bytes:
            if self.current is None:
                raise RuntimeError(f"HL-Mem asked for a vector outside an add or a recall: {text[:80]!r}")
            self.calls += 1
            self.other_texts += self.expected not in text
            return self.current

        def embed_batch(self, texts: list[str]) -> list[bytes]:
            return [self.embed_one(text) for text in texts]

        def embed_query(self, text: str) -> bytes:
            return self.embed_one(text)

        def embed_query_batch(self, texts: list[str]) -> list[bytes]:
            return [self.embed_one(text) for text in texts]

    class HlMemHandler:
        name = "hl-mem"

        def __init__(self) -> None:
            self.version = f"hl-mem {version('hl-mem')}"
            self.database: Any = None
            self.connection: Any = None
            self.worker: Any = None
            self.recaller: Any = None
            self.embedder: GivenVectors | None = None
            self.scope = ""
            self.dim = 0
            self.ids: dict[str, str] = {}
            self.extra_jobs = 0

        def _open(self, folder: Path, dim: int, model: str, scope: str) -> None:
            folder.mkdir(parents=True, exist_ok=True)
            settings = replace(Settings.for_test(), database_path=str(folder / "hl_mem.db"), embedding_dim=dim)
            components.initialize_process(settings)
            self.database = Database(settings=settings)
            self.connection = self.database.open()
            self.embedder = GivenVectors(dim, model)
            self.worker = Worker(settings, embedder=self.embedder, connection=self.connection)
            relations = RelationExpansionConfig(enabled=settings.relation_expansion_mode == "on",
                                                max_depth=settings.relation_expansion_max_depth)
            self.recaller = RecallService(self.connection, self.embedder, None, relations, settings, None)
            self.scope, self.dim, self.ids, self.extra_jobs = scope, dim, {}, 0

        def _add(self, msg: dict[str, Any], watch: Stopwatch) -> str:
            assert self.embedder is not None
            self.embedder.current = pack_vector(decode_vector(msg["vector"], self.dim))
            self.embedder.expected = msg["text"]
            try:
                with watch:
                    saved = IngestService(self.connection).save_explicit_memory(
                        msg["text"], namespace=self.scope, session_id=msg.get("session") or None)
                    done = self.worker.run_once()
                # A second job would be work the timed add left undone: count it, run it untimed.
                while self.worker.run_once()["status"] != "idle":
                    self.extra_jobs += 1
            finally:
                self.embedder.current = None
            if done.get("status") != "succeeded":
                raise RuntimeError(f"HL-Mem's worker did not store the memory: {done}")
            return str(saved["id"])

        def _recall(self, msg: dict[str, Any], watch: Stopwatch) -> list[dict[str, Any]]:
            assert self.embedder is not None
            self.embedder.current = pack_vector(decode_vector(msg["vector"], self.dim))
            self.embedder.expected = msg["text"]
            try:
                with watch:
                    out = self.recaller.recall(msg["text"], limit=int(msg["k"]), namespace=self.scope)
            finally:
                self.embedder.current = None
            return list(out.get("results") or [])

        def _close(self) -> None:
            if self.worker is not None:
                self.worker.close()
            if self.database is not None:
                self.database.close()
            self.database = self.connection = self.worker = self.recaller = None

        # -- the protocol's operations ---------------------------------------------------------

        def op_warm(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            scratch = Path(tempfile.mkdtemp(prefix="warm-", dir=msg["dir"]))
            try:
                self._open(scratch, int(msg["dim"]), msg["model"], "warm")
                for text, vector in zip(msg["texts"], msg["vectors"]):
                    self._add({"text": text, "vector": vector}, Stopwatch())
                self._recall({"text": msg["query"], "vector": msg["query_vector"], "k": 10}, watch)
            finally:
                self._close()
                shutil.rmtree(scratch, ignore_errors=True)
            return {}

        def op_open(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            self._open(Path(msg["dir"]), int(msg["dim"]), msg["model"], msg["scope"])
            return {}

        def op_add(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            ref = self._add(msg, watch)
            self.ids[ref] = msg["id"]
            return {"ref": ref}

        def op_recall(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            results = self._recall(msg, watch)
            ids: list[str] = []
            for item in results:
                for evidence in item.get("evidence") or ():
                    doc = self.ids.get(str(evidence.get("id")))
                    if evidence.get("type") == "event" and doc is not None and doc not in ids:
                        ids.append(doc)
            return {"ids": ids, "returned": len(results)}

        def op_close(self, msg: dict[str, Any], watch: Stopwatch) -> dict[str, Any]:
            assert self.embedder is not None
            stats = {"memories": len(self.ids), "embed_calls": self.embedder.calls,
                     "embed_other_texts": self.embedder.other_texts, "extra_jobs": self.extra_jobs}
            self._close()
            return {"stats": stats}

    return HlMemHandler()


if __name__ == "__main__":
    run_driver(make_handler)
