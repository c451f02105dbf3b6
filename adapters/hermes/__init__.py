"""hlmem as a Hermes Agent memory provider (``hlmem[hermes]``, docs/hermes.md, ADR 0038).

Importing this package needs no hermes-agent: :class:`HlmemMemoryProvider` is plain Python and
:func:`~hlmem.adapters.hermes.plugin.provider_class` makes it a subclass of Hermes' own ABC.
"""

from __future__ import annotations

from hlmem.adapters.hermes.plugin import hermes_base, install, provider_class, register
from hlmem.adapters.hermes.provider import HlmemMemoryProvider, session_kind

__all__ = ["HlmemMemoryProvider", "hermes_base", "install", "provider_class", "register", "session_kind"]
