"""hlmem: local-first, event-sourced long-term memory for LLM agents.

This file is the ``hlmem`` package itself (see adr/0001). It only re-exports, lazily, so that
``import hlmem`` stays cheap and ``import hlmem.domain`` never pulls in SQLite or a model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Memory", "__version__"]

if TYPE_CHECKING:
    from hlmem.adapters.memory_api import Memory


def __getattr__(name: str) -> Any:
    if name == "Memory":
        from hlmem.adapters.memory_api import Memory

        return Memory
    raise AttributeError(f"module 'hlmem' has no attribute {name!r}")
