"""Secrets come only from the environment: which config keys look like one, and which key values are placeholders (ADR 0033).

Two checks, each at its own edge. A config file key that names a secret (``api_key``,
``*_key``, ``token``, ``password``, ``secret``…) is refused when the file is read
(:mod:`hlmem.adapters.config_file`); an API key variable holding a placeholder (``sk-xxx``,
``changeme``, ``<your key>``…) is refused where the key is read
(:func:`hlmem.adapters.http.common.read_key`). Neither message ever contains the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["is_placeholder", "key_status", "looks_like_secret_key"]

#: Words that, as one part of a key's name (split at ``_``, ``-`` and ``.``), make it a secret.
_SECRET_PARTS = frozenset({"key", "apikey", "token", "password", "passwd", "pwd", "secret", "credential",
                           "credentials", "authorization", "auth", "bearer"})

#: Whole values that are placeholders, compared in lower case after trimming.
_PLACEHOLDER_WORDS = frozenset({"changeme", "change-me", "change_me", "todo", "tbd", "fixme", "placeholder",
                                "replaceme", "replace-me", "replace_me", "none", "null", "undefined", "secret",
                                "password", "key", "apikey", "api-key", "api_key", "your-key", "yourkey", "test",
                                "dummy", "example", "xxx"})

_PLACEHOLDER_PATTERNS = (
    re.compile(r"^<.*>$"),                           # <your key>, <...>
    re.compile(r"^\{.*\}$|^\$\{.*\}$|^\$[a-z_]+$"),  # {api_key}, ${OPENAI_API_KEY}, $OPENAI_API_KEY (unexpanded)
    re.compile(r"^([a-z]{1,4}-)?([x*.#]|…)+$"),      # sk-xxx, sk-..., sk-***, xxxx, ...
    re.compile(r"^(your|my|insert|put|enter|add)[-_ ].*(key|token|secret)([-_ ]here)?$"),  # your-api-key(-here)
    re.compile(r"^(sk|rk|key)[-_](your|example|placeholder|changeme)([-_].*)?$"),  # sk-your-key
)


def looks_like_secret_key(name: str) -> bool:
    """Whether a config key names a secret: any part is ``key``, ``token``, ``password``… .

    ``tokens_per_day`` is not one (``tokens`` is a count), nor is a key ending in ``_env``: it names
    the variable that holds a secret (``api_key_env = "MY_API_KEY"``), which is the way to give one.
    """
    parts = [p for p in re.split(r"[-_.]", name.lower()) if p]
    if parts and parts[-1] == "env":
        return False
    return any(p in _SECRET_PARTS for p in parts) or name.lower().endswith(("apikey", "password", "secret"))


def is_placeholder(value: str) -> bool:
    """Whether an API key value is a placeholder (``sk-xxx``, ``changeme``, ``<...>``, blank…), not a key."""
    text = value.strip().lower()
    if not text:
        return True
    return text in _PLACEHOLDER_WORDS or any(p.match(text) for p in _PLACEHOLDER_PATTERNS)


def key_status(variable: str, environ: Mapping[str, str]) -> str:
    """``present``, ``absent`` or ``placeholder``: what ``hlmem config show`` says of a key (never the value)."""
    value = environ.get(variable, "")
    if not value.strip():
        return "absent"
    return "placeholder" if is_placeholder(value) else "present"
