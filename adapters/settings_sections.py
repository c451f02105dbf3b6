"""Four tables of the settings: ``plugins`` (the allowlist, what is enabled, per-plugin options),
``budget``, ``server`` (``hlmem serve``: docs/rest.md) and ``experience`` (policy induction's
thresholds: docs/experience.md).

Both are frozen values validated when made, like every other setting (ADR 0029): a config
file's ``[plugins]`` and ``[budget]`` tables load into them through
:meth:`hlmem.adapters.settings.Settings.from_mapping`. What the registry does with the
allowlist is docs/plugins.md; how the budget is enforced is docs/budget.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from attrs import fields, frozen

from hlmem.adapters.listen_guard import host_name, public_name_problem
from hlmem.domain.errors import ConfigurationError
from hlmem.domain.experience_policy import PolicyThresholds, threshold_problems

__all__ = ["ENTRY_POINT_GROUPS", "AllowedPlugin", "BudgetSettings", "PluginSettings", "ServerSettings",
           "budget_settings", "experience_thresholds", "plugin_settings", "RelationSettings", "relation_settings",
           "server_settings"]

#: The entry-point group of each port a plugin may implement (docs/plugins.md).
ENTRY_POINT_GROUPS: Mapping[str, str] = MappingProxyType({
    "storage": "hlmem.storage",
    "embedder": "hlmem.embedders",
    "llm": "hlmem.llm",
    "reranker": "hlmem.rerankers",
})

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@frozen
class AllowedPlugin:
    """One allowlist entry: the entry point ``name`` in ``group``, from the distribution ``distribution``.

    All three must match for the registry to import the entry point: a package that ships an
    entry point of the same name from another distribution stays unimported.
    """

    group: str
    name: str
    distribution: str

    def __str__(self) -> str:
        return f"{self.group}:{self.name} from {self.distribution}"


@frozen(kw_only=True)
class PluginSettings:
    """The ``[plugins]`` table.

    :param allow: third-party entry points that may be imported (built-ins, distribution
        ``hlmem``, are allowed without an entry).
    :param enabled: plugins to load at start-up, each ``name`` or ``group:name`` (``group`` as
        in :data:`ENTRY_POINT_GROUPS`' values, or its short key: ``reranker:echo``).
    :param options: per-plugin options, by the same names as ``enabled``; options for a plugin
        that is not enabled are an error.
    """

    allow: tuple[AllowedPlugin, ...] = ()
    enabled: tuple[str, ...] = ()
    options: Mapping[str, Mapping[str, Any]] = MappingProxyType({})


@frozen(kw_only=True)
class BudgetSettings:
    """The ``[budget]`` table: daily limits on provider calls (None: no limit), and the price book.

    :param requests_per_day: logical provider calls (not attempts) per UTC day.
    :param tokens_per_day: prompt plus completion tokens per UTC day.
    :param cost_per_day: money per UTC day, in the price book's currency. With a finite limit, a
        call whose cost cannot be estimated is refused (the budget fails closed).
    :param price_book: a JSON file of rates per provider, model and capability (docs/budget.md).
    :param reservation_ttl_s: a reservation a crashed process never settled stops counting
        after this many seconds.
    """

    requests_per_day: int | None = None
    tokens_per_day: int | None = None
    cost_per_day: float | None = None
    price_book: str | None = None
    reservation_ttl_s: float = 900.0

    @property
    def limited(self) -> bool:
        """Whether any limit is set (without one, calls are still accounted)."""
        return any(v is not None for v in (self.requests_per_day, self.tokens_per_day, self.cost_per_day))


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"{where} must be a table (mapping), not {type(value).__name__}")
    return value


def _unknown(values: Mapping[str, Any], known: set[str], where: str) -> None:
    if unknown := sorted(set(values) - known):
        raise ConfigurationError(f"unknown key(s) {', '.join(map(str, unknown))} in {where}; "
                                 f"known: {', '.join(sorted(known))}")


def _allowed(entry: Any, where: str) -> AllowedPlugin:
    if isinstance(entry, AllowedPlugin):
        return entry
    entry = _table(entry, where)
    _unknown(entry, {"group", "name", "distribution"}, where)
    values = {}
    for key in ("group", "name", "distribution"):
        text = entry.get(key)
        if not isinstance(text, str) or not _NAME.match(text.strip()):
            raise ConfigurationError(f"{where}.{key} must be a non-empty name, not {text!r}")
        values[key] = text.strip()
    group = ENTRY_POINT_GROUPS.get(values["group"], values["group"])  # "reranker" or "hlmem.rerankers"
    if group not in ENTRY_POINT_GROUPS.values():
        raise ConfigurationError(f"{where}.group {values['group']!r} is not a plugin group; "
                                 f"known: {', '.join(ENTRY_POINT_GROUPS.values())}")
    return AllowedPlugin(group, values["name"], values["distribution"])


def _plugin_name(text: Any, where: str) -> str:
    if not isinstance(text, str):
        raise ConfigurationError(f"{where} must be a plugin name, not {text!r}")
    name = text.strip()
    group, sep, bare = name.rpartition(":")
    if not _NAME.match(bare) or (sep and ENTRY_POINT_GROUPS.get(group, group) not in ENTRY_POINT_GROUPS.values()):
        raise ConfigurationError(f"{where} {text!r} is not a plugin name (name, or group:name with a group of "
                                 f"{', '.join(ENTRY_POINT_GROUPS)})")
    return name


def plugin_settings(value: PluginSettings | Mapping[str, Any] | None, where: str = "plugins") -> PluginSettings:
    """The ``[plugins]`` table as a :class:`PluginSettings` (validated now).

    :raises ConfigurationError: an unknown key, a malformed entry, a duplicate, or options for
        a plugin that is not enabled.
    """
    if value is None or isinstance(value, PluginSettings):
        return value or PluginSettings()
    value = _table(value, where)
    _unknown(value, {"allow", "enabled", "options"}, where)
    allow_in, enabled_in = value.get("allow", ()), value.get("enabled", ())
    for key, items in (("allow", allow_in), ("enabled", enabled_in)):
        if isinstance(items, (str, Mapping)) or not isinstance(items, (list, tuple)):
            raise ConfigurationError(f"{where}.{key} must be a list, not {type(items).__name__}")
    allow = tuple(_allowed(e, f"{where}.allow[{i}]") for i, e in enumerate(allow_in))
    enabled = tuple(_plugin_name(e, f"{where}.enabled[{i}]") for i, e in enumerate(enabled_in))
    for label, seq in (("allow", [(a.group, a.name) for a in allow]), ("enabled", list(enabled))):
        if dupes := sorted({str(x) for x in seq if seq.count(x) > 1}):
            raise ConfigurationError(f"{where}.{label} names {', '.join(dupes)} more than once")
    options_in = _table(value.get("options", {}), f"{where}.options")
    options: dict[str, Mapping[str, Any]] = {}
    for name, table in options_in.items():
        name = _plugin_name(name, f"{where}.options key")
        if name not in enabled:
            raise ConfigurationError(f"{where}.options.{name} is given but {name!r} is not enabled; "
                                     f"add it to {where}.enabled or remove its options")
        options[name] = MappingProxyType(dict(_table(table, f"{where}.options.{name}")))
    return PluginSettings(allow=allow, enabled=enabled, options=MappingProxyType(options))


def _limit(value: Any, where: str, *, whole: bool) -> int | float | None:
    if value is None:
        return None
    ok = (type(value) is int) if whole else (isinstance(value, (int, float)) and not isinstance(value, bool))
    if not ok or not math.isfinite(value) or value < 0:
        kind = "a whole number" if whole else "a number"
        raise ConfigurationError(f"{where} must be {kind} >= 0 (or absent for no limit), not {value!r}")
    return value if whole else float(value)


def budget_settings(value: BudgetSettings | Mapping[str, Any] | None, where: str = "budget") -> BudgetSettings:
    """The ``[budget]`` table as a :class:`BudgetSettings` (validated now).

    :raises ConfigurationError: an unknown key or a bad limit.
    """
    if value is None or isinstance(value, BudgetSettings):
        return value or BudgetSettings()
    value = _table(value, where)
    _unknown(value, {"requests_per_day", "tokens_per_day", "cost_per_day", "price_book", "reservation_ttl_s"},
             where)
    book = value.get("price_book")
    if book is not None and (not isinstance(book, str) or not book.strip()):
        raise ConfigurationError(f"{where}.price_book must be a file path, not {book!r}")
    ttl = value.get("reservation_ttl_s", 900.0)
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not math.isfinite(ttl) or ttl <= 0:
        raise ConfigurationError(f"{where}.reservation_ttl_s must be a positive number, not {ttl!r}")
    return BudgetSettings(
        requests_per_day=_limit(value.get("requests_per_day"), f"{where}.requests_per_day", whole=True),
        tokens_per_day=_limit(value.get("tokens_per_day"), f"{where}.tokens_per_day", whole=True),
        cost_per_day=_limit(value.get("cost_per_day"), f"{where}.cost_per_day", whole=False),
        price_book=None if book is None else book.strip(), reservation_ttl_s=float(ttl))


@frozen(kw_only=True)
class ServerSettings:
    """The ``[server]`` table of ``hlmem serve`` (docs/rest.md); its flags win over it.

    :param host: the address to bind; anything but loopback needs a token (the server refuses
        to start without one).
    :param port: the TCP port.
    :param token_env: the environment variable holding the bearer token: the file names the
        variable, never the token itself.
    :param max_body_bytes: larger request bodies are refused with 413 before they are read.
    :param backup_dir: where ``POST /v1/backup`` writes (None: ``backups`` in the user data
        directory); a caller names at most the file (ADR 0059).
    :param public_names: host names (or addresses) clients reach the server by beyond loopback and
        the bound address; a request with any other ``Host`` is refused (DNS rebinding, ADR 0059).
        ``hlmem mcp --transport http`` honours them too.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    token_env: str = "HLMEM_SERVER_TOKEN"
    max_body_bytes: int = 1 << 20
    backup_dir: str | None = None
    public_names: tuple[str, ...] = ()


_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def server_settings(value: ServerSettings | Mapping[str, Any] | None, where: str = "server") -> ServerSettings:
    """The ``[server]`` table as a :class:`ServerSettings` (validated now).

    :raises ConfigurationError: an unknown key, a blank host, a port outside 1..65535, a
        ``token_env`` that is not a variable name, a non-positive ``max_body_bytes``, a blank
        ``backup_dir``, or a public name that is not a bare host name or address.
    """
    if value is None or isinstance(value, ServerSettings):
        return value or ServerSettings()
    value = _table(value, where)
    _unknown(value, {"host", "port", "token_env", "max_body_bytes", "backup_dir", "public_names"}, where)
    default = ServerSettings()
    host = value.get("host", default.host)
    if not isinstance(host, str) or not host.strip():
        raise ConfigurationError(f"{where}.host must be an address such as 127.0.0.1, not {host!r}")
    port = value.get("port", default.port)
    if type(port) is not int or not 1 <= port <= 65535:
        raise ConfigurationError(f"{where}.port must be a whole number 1..65535, not {port!r}")
    token_env = value.get("token_env", default.token_env)
    if not isinstance(token_env, str) or not _VARIABLE.match(token_env):
        raise ConfigurationError(f"{where}.token_env must name an environment variable (the token itself "
                                 f"stays in the environment), not {token_env!r}")
    size = value.get("max_body_bytes", default.max_body_bytes)
    if type(size) is not int or size <= 0:
        raise ConfigurationError(f"{where}.max_body_bytes must be a whole number of bytes > 0, not {size!r}")
    backup_dir = value.get("backup_dir")
    if backup_dir is not None and (not isinstance(backup_dir, str) or not backup_dir.strip() or "\x00" in backup_dir):
        raise ConfigurationError(f"{where}.backup_dir must be a folder path, not {backup_dir!r}")
    return ServerSettings(host=host.strip(), port=port, token_env=token_env, max_body_bytes=size,
                          backup_dir=None if backup_dir is None else backup_dir.strip(),
                          public_names=_public_names(value.get("public_names", ()), f"{where}.public_names"))


def _public_names(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigurationError(f"{where} must be a list of host names, not {type(value).__name__}")
    names = []
    for i, name in enumerate(value):
        if problem := public_name_problem(name):
            raise ConfigurationError(f"{where}[{i}] {name!r} cannot be a public name: {problem}")
        names.append(str(host_name(name)))
    return tuple(dict.fromkeys(names))


def experience_thresholds(value: PolicyThresholds | Mapping[str, Any] | None,
                          where: str = "experience") -> PolicyThresholds:
    """The ``[experience]`` table (any of :class:`PolicyThresholds`' fields; the rest keep their
    defaults) as a :class:`PolicyThresholds`, validated now by the domain's own rule.

    :raises ConfigurationError: an unknown key, or every bad value at once, each named by its key.
    """
    if value is None or isinstance(value, PolicyThresholds):
        return value or PolicyThresholds()
    value = _table(value, where)
    names = [f.name for f in fields(PolicyThresholds)]
    messages = []
    try:
        _unknown(value, set(names), where)
    except ConfigurationError as exc:
        messages.append(str(exc))
    default = PolicyThresholds()
    merged = {name: value.get(name, getattr(default, name)) for name in names}
    messages += [f"{where}.{name} {text}" for name, text in threshold_problems(merged)]
    if messages:
        raise ConfigurationError("; ".join(messages))
    return PolicyThresholds(**merged)


@frozen(kw_only=True)
class RelationSettings:
    """The ``[relations]`` table (docs/relations.md, ADR 0081).

    :param enabled: propose relations between people and things by deterministic rules after each
        write (off by default: a wrong edge spreads, so candidates wait for review). Edges already
        accepted follow their evidence whether this is on or not.
    """

    enabled: bool = False


def relation_settings(value: RelationSettings | Mapping[str, Any] | bool | None,
                      where: str = "relations") -> RelationSettings:
    """The ``[relations]`` table as a :class:`RelationSettings` (``true``/``false`` alone: ``enabled``).

    :raises ConfigurationError: an unknown key, or ``enabled`` that is not true or false.
    """
    if value is None or isinstance(value, RelationSettings):
        return value or RelationSettings()
    if isinstance(value, bool):
        return RelationSettings(enabled=value)
    value = _table(value, where)
    _unknown(value, {"enabled"}, where)
    enabled = value.get("enabled", False)
    if not isinstance(enabled, bool):
        raise ConfigurationError(f"{where}.enabled must be true or false, not {enabled!r}")
    return RelationSettings(enabled=enabled)
