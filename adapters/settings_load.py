"""Loading the effective settings: defaults < config file < environment < explicit arguments, each value's source recorded (ADR 0033).

:func:`load_settings` is the one entry point: the ``hlmem`` command calls it with its flags,
``Memory(...)`` with nothing when no ``Settings`` is given. Every layer is validated by the
same code (:meth:`Settings.from_mapping`, :meth:`Settings.from_env`) and every problem in any
layer is reported at once. A layer replaces a field as a whole: ``HLMEM_RANKING`` replaces
the file's whole ``[ranking]`` table.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import evolve, fields, frozen

from hlmem.adapters.config_file import ConfigLocation, find_config_file, read_config_file
from hlmem.adapters.settings import ENV, Settings
from hlmem.domain.errors import ConfigurationError

__all__ = ["LoadedSettings", "Source", "load_settings"]


@frozen
class Source:
    """Where one effective value came from.

    :param kind: ``default``, ``file``, ``env`` or ``argument``.
    :param where: the file's path, the variable's name or the argument's label (``--db``).
    :param key: the key in the file (``llm.model``); empty for the other kinds.
    """

    kind: str
    where: str = ""
    key: str = ""

    def __str__(self) -> str:
        if self.kind == "file":
            return f"{self.where}:{self.key}"
        if self.kind == "env":
            return f"env {self.where}"
        if self.kind == "argument":
            return f"argument {self.where}"
        return "default"


@frozen
class LoadedSettings:
    """The effective :class:`Settings`, each field's :class:`Source`, and the config file read (or None)."""

    settings: Settings
    sources: Mapping[str, Source]
    location: ConfigLocation

    @property
    def config_file(self) -> Path | None:
        """The config file whose values were read, or None."""
        return self.location.path


def load_settings(config: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None,
                  arguments: Mapping[str, Any] | None = None,
                  labels: Mapping[str, str] | None = None) -> LoadedSettings:
    """The effective settings: defaults, then the config file, then ``HLMEM_*``, then ``arguments``.

    :param config: the config file named explicitly (the CLI's ``--config``); else
        ``$HLMEM_CONFIG``, else ``hlmem.toml`` in the user config directory, if there is one.
    :param environ: the environment (``os.environ`` unless given): the ``HLMEM_*`` settings and
        ``HLMEM_CONFIG``.
    :param arguments: explicit values by field name (None: not given), validated like the rest.
    :param labels: how sources name each argument (``{"db": "--db"}``); default its field name.
    :raises ConfigurationError: one problem; an ``ExceptionGroup`` of every problem in every layer.
    """
    environ = os.environ if environ is None else environ
    location = find_config_file(config, environ)
    problems: list[ConfigurationError] = []
    layers: list[tuple[Settings, dict[str, Source]]] = []

    if location.path is not None:
        file = _collect(problems, read_config_file, location.path)
        if file is not None:
            problems.extend(file.problems)
            from_file = _collect(problems, Settings.from_mapping, file.values, source=str(file.path), keys=file.keys)
            if from_file is not None:
                layers.append((from_file, {f: Source("file", str(file.path), file.keys[f])
                                           for f, v in file.values.items() if not _blank(v)}))
    from_env = _collect(problems, Settings.from_env, environ)
    if from_env is not None:
        layers.append((from_env, {f: Source("env", var) for f, var in ENV.items() if environ.get(var, "").strip()}))
    given = {k: v for k, v in (arguments or {}).items() if v is not None}
    from_args = _collect(problems, Settings.from_mapping, given, source="arguments")
    if from_args is not None:
        layers.append((from_args, {f: Source("argument", (labels or {}).get(f, f))
                                   for f, v in given.items() if not _blank(v)}))
    if problems:
        raise problems[0] if len(problems) == 1 else ExceptionGroup(f"{len(problems)} bad settings", problems)

    effective, sources = Settings(), {a.name: Source("default") for a in fields(Settings)}
    for layer, set_here in layers:
        effective = evolve(effective, **{f: getattr(layer, f) for f in set_here})
        sources.update(set_here)
    return LoadedSettings(effective, sources, location)


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def _collect(problems: list[ConfigurationError], read: Any, *args: Any, **kwargs: Any) -> Any:
    """``read(*args, **kwargs)``, or None with its problems added to ``problems``."""
    try:
        return read(*args, **kwargs)
    except ConfigurationError as exc:
        problems.append(exc)
    except ExceptionGroup as group:
        matched, rest = group.split(ConfigurationError)
        if rest is not None:
            raise
        problems.extend(_leaves(matched))
    return None


def _leaves(group: BaseException) -> list[ConfigurationError]:
    if isinstance(group, BaseExceptionGroup):
        return [leaf for e in group.exceptions for leaf in _leaves(e)]
    return [group]  # type: ignore[list-item]
