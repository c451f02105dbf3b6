"""Input checks and package facts shared by the embedder adapters."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from hlmem.application.errors import ConfigurationError, EmbedderError


def as_texts(texts: Sequence[str], *, strip_nul: bool = False) -> list[str]:
    """The texts as a list of str; a bare str (a common slip) or a non-str item is refused.

    :param strip_nul: replace NUL with a space (engines taking C strings would cut the text there).
    :raises EmbedderError: on a bare str or a non-str item.
    """
    if isinstance(texts, str):
        raise EmbedderError("expected a sequence of texts, got a single str")
    out = list(texts)
    for text in out:
        if not isinstance(text, str):
            raise EmbedderError(f"expected str, got {type(text).__name__}")
    return [text.replace("\x00", " ") for text in out] if strip_nul else out


def int_at_least(minimum: int, what: str):
    """An attrs validator: an int (not a bool) of at least ``minimum``."""

    def check(instance: Any, attribute: Any, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ConfigurationError(f"{what} must be an int >= {minimum}, got {value!r}")

    return check


@functools.lru_cache(maxsize=8)
def installed_version(distribution: str, unavailable: str) -> str:
    """The installed ``distribution``'s version, read once per process (recall asks an embedder for
    its ``model_id`` on every call, and reading package metadata took 2 ms).

    :raises EmbedderError: with ``unavailable`` when the distribution is not installed.
    """
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError as exc:
        raise EmbedderError(unavailable) from exc
