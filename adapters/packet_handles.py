"""The handles of the context packets a process served: ``<tag>.<n>`` → the id of item n (ADR 0092).

A v2 packet (docs/packet.md) writes no ids: each line opens with ``[n]``, and the header names the
packet's tag, so an agent names item 3 as ``fxqwtzk.3``. :class:`PacketHandles` remembers the id
tables (``Packet.included``) of the last :data:`KEPT` packets a ``Memory`` served, and every entry
point that takes an item id (feedback, forget, explain, retract, correct, get: Python, CLI, REST,
MCP, Hermes) resolves a handle through it before anything else. It is safe by construction:

- a handle never looks like an id (ids are ``prefix_`` + an upper-case ULID, a tag is seven
  lower-case consonants), so an id is never taken for a handle, nor the other way round;
- a handle resolves to exactly the id its packet showed: the tag is a digest of the packet's ids,
  and when two different id tables share a tag (about one chance in 10⁹ per pair) the tag is
  refused as ambiguous, never resolved to either;
- a handle this process did not serve (another process's, or one older than the last
  :data:`KEPT` packets) is refused with :class:`NotFound`, naming the way out: the id, which every
  structured answer carries (``packet.included``).

Only ids are kept, in memory, never text: a forget has nothing to erase here, and a forgotten
item's handle resolves to its id, which then answers as that id does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from hlmem.application.packet import FORMAT_VERSION, FORMAT_VERSIONS, Packet
from hlmem.application.packet_v2 import parse_handle
from hlmem.domain.errors import NotFound, ValidationError

#: How many packets' handles a process keeps (the oldest are forgotten first).
KEPT = 1024
_AMBIGUOUS: tuple[str, ...] = ("\0ambiguous",)  # a sentinel: compared by identity


class PacketHandles:
    """The id tables of the last ``kept`` packets served, by tag; thread-safe."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._tables: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, packet: Packet | None) -> None:
        """Keep ``packet``'s handles (a v2 packet with items; anything else is ignored)."""
        if packet is None or not packet.tag or not packet.included:
            return
        with self._lock:
            known = self._tables.get(packet.tag)
            if known is not None and known != packet.included:
                self._tables[packet.tag] = _AMBIGUOUS  # two tables, one tag: resolve neither
            else:
                self._tables[packet.tag] = packet.included
            self._tables.move_to_end(packet.tag)
            while len(self._tables) > self._kept:
                self._tables.popitem(last=False)

    def resolve(self, item_id: str) -> str:
        """The id a handle names; any other string unchanged (it is an id, or not a handle).

        :raises NotFound: a handle of a packet this process did not serve (or no longer keeps), or
            past the packet's last item.
        :raises ValidationError: a tag two different packets share.
        """
        parsed = parse_handle(item_id) if isinstance(item_id, str) else None
        if parsed is None:
            return item_id
        tag, n = parsed
        with self._lock:
            table = self._tables.get(tag)
        if table is None:
            raise NotFound(f"{item_id.strip()} is a packet handle this process did not serve or no longer keeps "
                           f"(handles live in the process that built the packet, for its last {self._kept:,} "
                           "packets): use the item's id, listed in the recall's packet.included")
        if table is _AMBIGUOUS:
            raise ValidationError(f"packet handle {item_id.strip()} is ambiguous (two packets share the tag {tag}): "
                                  "use the item's id, listed in the recall's packet.included", field="item_id")
        if n > len(table):
            raise NotFound(f"packet {tag} shows {len(table)} item(s): there is no item {n}")
        return table[n - 1]


def packet_format(version: object) -> int:
    """The packet format a caller asked for: None is the default (:data:`FORMAT_VERSION`), else 1 or 2.

    :raises ValidationError: anything else (``True`` and ``"2"`` included).
    """
    if version is None:
        return FORMAT_VERSION
    if isinstance(version, bool) or version not in FORMAT_VERSIONS:
        raise ValidationError(f"packet_version must be one of {', '.join(map(str, FORMAT_VERSIONS))}, "
                              f"not {version!r}", field="packet_version")
    return int(version)  # type: ignore[call-overload]
