"""Names imported on first use, so a command imports only the modules it runs (issue 36 item 1)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def deferred(path: str) -> Callable[..., Any]:
    """A callable standing for ``"package.module:Name"`` (a class or function): its first call
    imports the module, and every call is a call of ``Name`` with the same arguments.

    The composition root names every service this way: building a container then imports no
    service module, and a command that never asks for one (``hlmem stats`` needs no extraction
    rules) never pays for its import.
    """
    module, _, name = path.partition(":")
    target: list[Any] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not target:
            target.append(getattr(importlib.import_module(module), name))
        return target[0](*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{path}, imported on first call."
    return call


def value_of(path: str) -> Any:
    """The object ``"package.module:NAME"`` names, its module imported now (for a provider)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)
