"""The config file ``hlmem.toml``: where it is, and its layout turned into :class:`Settings` field names (ADR 0033).

Found by :func:`find_config_file`: the CLI's ``--config PATH``, else ``$HLMEM_CONFIG``, else
``hlmem.toml`` in the user config directory (``platformdirs.user_config_dir("hlmem")``). A file
named explicitly must exist; the default one may be missing. :func:`read_config_file` parses it
with ``tomllib`` and maps its layout (:data:`FILE_KEYS`, docs/config.md) to field names, so
:meth:`Settings.from_mapping <hlmem.adapters.settings.Settings.from_mapping>` validates it like
every other source. Relative paths (``db``, ``[budget] price_book``, ``[server] backup_dir``) are taken from the file's
directory. Secrets are never read from the file: a key that looks like one is refused.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from hlmem.adapters.secrets import looks_like_secret_key
from hlmem.domain.errors import ConfigurationError

__all__ = ["CONFIG_ENV", "FILE_KEYS", "ConfigFile", "ConfigLocation", "default_config_path", "find_config_file",
           "read_config_file"]

#: The variable naming the config file (``--config`` wins; not a setting itself).
CONFIG_ENV = "HLMEM_CONFIG"
FILE_NAME = "hlmem.toml"

#: Each settings field and its key in the file: a top-level key, or ``table.key``. The fields
#: ``ranking``, ``lifecycle``, ``maintenance``, ``plugins``, ``budget``, ``server``, ``experience`` and ``relations`` are
#: whole tables.
FILE_KEYS: Mapping[str, str] = {
    "db": "db",
    "embedder": "embedder",
    "llm": "llm.provider",
    "llm_model": "llm.model",
    "llm_base_url": "llm.base_url",
    "rerank": "rerank.provider",
    "rerank_model": "rerank.model",
    "rerank_base_url": "rerank.base_url",
    "provenance": "provenance",
    "extractor": "extraction.kind",
    "block_reingest": "block_reingest",
    "vectors": "vectors",
    "ranking": "ranking",
    "recall_parallel": "recall.parallel",
    "numba": "numba",
    "debug": "debug",
    "lifecycle": "lifecycle",
    "maintenance": "maintenance",
    "plugins": "plugins",
    "budget": "budget",
    "server": "server",
    "experience": "experience",
    "relations": "relations",
}
_FIELD_OF = {key: field for field, key in FILE_KEYS.items()}
#: Tables whose keys are separate fields (``[llm] model`` is ``llm_model``).
_GROUPS = frozenset(key.partition(".")[0] for key in FILE_KEYS.values() if "." in key)
_TOP = frozenset(key for key in FILE_KEYS.values() if "." not in key) | _GROUPS


@frozen
class ConfigLocation:
    """Where the config file is looked for: ``path`` (None: no file), and how it was chosen.

    :param origin: ``--config``, ``HLMEM_CONFIG`` or ``default``.
    :param default: the user config directory's ``hlmem.toml`` (looked at only when nothing is named).
    """

    path: Path | None
    origin: str
    default: Path


@frozen
class ConfigFile:
    """A read config file: ``values`` by settings field name, ``keys`` naming each one's key in the file.

    :param problems: unknown keys and keys that look like secrets (left out of ``values``), to be
        reported together with the problems of the values themselves.
    """

    path: Path
    values: Mapping[str, Any]
    keys: Mapping[str, str]
    problems: tuple[ConfigurationError, ...] = ()


def default_config_path() -> Path:
    """``hlmem.toml`` in the user config directory (``$XDG_CONFIG_HOME/hlmem`` on Linux)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("hlmem", appauthor=False)) / FILE_NAME


def find_config_file(config: str | os.PathLike[str] | None = None,
                     environ: Mapping[str, str] | None = None) -> ConfigLocation:
    """The config file to read: ``config`` (``--config``), else ``$HLMEM_CONFIG``, else the default.

    :raises ConfigurationError: a file named by ``config`` or ``HLMEM_CONFIG`` does not exist.
    """
    environ = os.environ if environ is None else environ
    default = default_config_path()
    named = os.fspath(config).strip() if config is not None else ""
    origin = "--config"
    if not named:
        named, origin = environ.get(CONFIG_ENV, "").strip(), CONFIG_ENV
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            what = "is a directory, not a file" if path.is_dir() else "does not exist"
            raise ConfigurationError(f"the config file {path} (named by {origin}) {what}: "
                                     f"create it or name another one")
        return ConfigLocation(path.resolve(), origin, default)
    return ConfigLocation(default if default.is_file() else None, "default", default)


def read_config_file(path: Path) -> ConfigFile:
    """Parse ``path`` and map its layout to settings field names (values still unvalidated).

    Unknown keys and tables and keys that look like secrets are left out and listed in
    :attr:`ConfigFile.problems` (the loader reports them with every other problem at once).

    :raises ConfigurationError: the file is unreadable, not UTF-8 or not TOML (with line and column).
    """
    try:
        with open(path, "rb") as stream:
            document = tomllib.load(stream)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{path}: not valid TOML: {_where(str(exc))}") from None
    except UnicodeDecodeError as exc:
        raise ConfigurationError(f"{path}: not UTF-8 text (byte {exc.start}): save the file as UTF-8") from None
    except OSError as exc:
        raise ConfigurationError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    problems: list[ConfigurationError] = []
    document = _without_secrets(document, "", path, problems)
    values: dict[str, Any] = {}
    for key, value in document.items():
        if key in _GROUPS:
            if not isinstance(value, Mapping):
                problems.append(ConfigurationError(f"{key} in {path} must be a table [{key}] of "
                                                   f"{_known_in(key)}, not {type(value).__name__}"))
                continue
            for sub, item in value.items():
                if f"{key}.{sub}" in _FIELD_OF:
                    values[_FIELD_OF[f"{key}.{sub}"]] = item
                else:
                    problems.append(ConfigurationError(f"unknown key {sub!r} in table [{key}] of {path}; "
                                                       f"known: {_known_in(key)}"))
        elif key in _FIELD_OF:
            values[_FIELD_OF[key]] = value
        else:
            problems.append(ConfigurationError(f"unknown key {key!r} in {path}; known: {', '.join(sorted(_TOP))}"))
    _resolve_paths(values, path.parent)
    return ConfigFile(path, values, {field: FILE_KEYS[field] for field in values}, tuple(problems))


def _where(message: str) -> str:
    """tomllib's ``… (at line 3, column 7)`` as ``line 3, column 7: …``."""
    found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if found:
        return f"line {found.group(1)}, column {found.group(2)}: {message[:found.start()]}"
    return message


def _known_in(table: str) -> str:
    return ", ".join(key.partition(".")[2] for key in FILE_KEYS.values() if key.startswith(f"{table}."))


def _without_secrets(table: Mapping[str, Any], prefix: str, path: Path,
                     problems: list[ConfigurationError]) -> dict[str, Any]:
    """``table`` with every key that looks like a secret removed and reported (tables and arrays of tables too)."""
    kept: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if looks_like_secret_key(key):
            problems.append(ConfigurationError(
                f"{dotted} in {path} looks like a secret; secrets are never read from the config file: remove "
                f"it and set the provider's *_API_KEY environment variable instead ({_variable_hint(dotted)})"))
            continue
        if isinstance(value, Mapping):
            value = _without_secrets(value, f"{dotted}.", path, problems)
        elif isinstance(value, list):
            value = [_without_secrets(v, f"{dotted}[{i}].", path, problems) if isinstance(v, Mapping) else v
                     for i, v in enumerate(value)]
        kept[key] = value
    return kept


def _variable_hint(dotted: str) -> str:
    """The variables the table's presets read (``OPENAI_API_KEY``…), so the message says which to set."""
    table = dotted.partition(".")[0]
    if table in ("llm", "rerank"):
        if table == "llm":
            from hlmem.adapters.llm.presets import PRESETS
        else:
            from hlmem.adapters.rerank.config import PRESETS
        names = sorted({p.api_key_env for p in PRESETS.values() if p.api_key_env})
        return f"the one the [{table}] provider names: {', '.join(names)}"
    return "see docs/config.md, Secrets"


def _resolve_paths(values: dict[str, Any], base: Path) -> None:
    """Relative paths in the file mean relative to the file, not to wherever the command runs."""
    def resolved(value: Any) -> Any:
        if not isinstance(value, str) or not value.strip() or value.strip() == ":memory:":
            return value
        path = Path(value.strip()).expanduser()
        return str(path if path.is_absolute() else base / path)

    if "db" in values:
        values["db"] = resolved(values["db"])
    budget = values.get("budget")
    if isinstance(budget, Mapping) and "price_book" in budget:
        values["budget"] = {**budget, "price_book": resolved(budget["price_book"])}
    server = values.get("server")
    if isinstance(server, Mapping) and "backup_dir" in server:
        values["server"] = {**server, "backup_dir": resolved(server["backup_dir"])}
