"""Does a class satisfy a port? Every member the port's Protocol declares must exist on the class."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hlmem.application.ports import LLM, Embedder, Reranker, Storage

__all__ = ["PORTS", "missing_members", "protocol_members"]

#: The port each kind of plugin implements.
PORTS: Mapping[str, type] = MappingProxyType({"storage": Storage, "embedder": Embedder, "llm": LLM,
                                              "reranker": Reranker})

#: What every Protocol class carries and no adapter needs to define.
_IGNORED = frozenset({
    "__abstractmethods__", "__annotations__", "__dict__", "__doc__", "__init__", "__module__", "__new__",
    "__slots__", "__subclasshook__", "__weakref__", "__class_getitem__", "__init_subclass__", "__parameters__",
    "__orig_bases__", "__protocol_attrs__", "__non_callable_proto_members__", "__type_params__",
    "__static_attributes__", "__firstlineno__", "_is_protocol", "_is_runtime_protocol", "__callable_proto_members_only__",
    "__qualname__",
})


def protocol_members(protocol: type) -> frozenset[str]:
    """The names ``protocol`` declares (methods, properties, annotated attributes), with its bases'.

    Works the same on every supported Python (``typing.get_protocol_members`` is 3.13+).
    """
    names: set[str] = set()
    for base in protocol.__mro__:
        if base is object or not getattr(base, "_is_protocol", False) or base.__name__ in {"Protocol", "Generic"}:
            continue
        names.update(n for n in vars(base) if n not in _IGNORED and not n.startswith("_abc_"))
        names.update(getattr(base, "__annotations__", {}))
    return frozenset(names - _IGNORED)


def missing_members(cls: type, kind: str) -> list[str]:
    """The members of ``kind``'s port that ``cls`` lacks, sorted (empty: it satisfies the port).

    Only presence is checked, on the class, before any instance exists: an attribute set in
    ``__init__`` counts when the class annotates it.
    """
    have = set(dir(cls)) | {n for k in getattr(cls, "__mro__", ()) for n in getattr(k, "__annotations__", {})}
    return sorted(protocol_members(PORTS[kind]) - have)
