"""dependency-injector's ``containers`` and ``providers``, imported without the web frameworks it probes for.

``dependency_injector.containers`` imports ``dependency_injector.wiring``, which imports FastAPI,
fast-depends, Starlette and Werkzeug when they are installed, to recognise their markers while
wiring; ``dependency_injector.providers`` imports PyYAML and pydantic(-settings), for
``Configuration.from_yaml`` and ``from_pydantic``. hlmem uses none of that (it never wires and
fills its configuration from a dict), but with the ``server`` extra installed the probes cost
every ``hlmem`` command about 0.3–0.6 s, most of the CLI's import time (issue 36 item 1). So the
probes are shown those packages as absent, for the one import of dependency-injector; they stay
importable as before for everything else (``hlmem serve`` imports FastAPI and pydantic itself,
later). When dependency-injector is already loaded this changes nothing.
"""

from __future__ import annotations

import sys

#: The optional packages ``dependency_injector.wiring`` and ``.providers`` try at import time.
PROBED = ("fastapi", "fast_depends", "starlette", "werkzeug", "yaml", "pydantic", "pydantic_settings")


class _Absent:
    """A meta path finder before all others that reports the probed packages as not installed."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in PROBED:
            raise ModuleNotFoundError(f"No module named {name!r} (hidden from dependency-injector)", name=name)


def _import_without_probes():
    if "dependency_injector.containers" in sys.modules:  # and with it .wiring and .providers
        from dependency_injector import containers, providers

        return containers, providers
    finder = _Absent()
    sys.meta_path.insert(0, finder)
    try:
        from dependency_injector import containers, providers
    finally:
        sys.meta_path.remove(finder)
    return containers, providers


containers, providers = _import_without_probes()

__all__ = ["PROBED", "containers", "providers"]
