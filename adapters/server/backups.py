"""Backups made over the network go into one directory the server owns, named by the server (ADR 0059).

``POST /v1/backup`` once wrote a full copy of the store wherever the caller said
(``/etc/cron.d/…``, ``../../x.db``): a file write anywhere the server's user may write, holding
every memory. Now the caller gives at most a plain file name (:func:`backup_file_name` refuses
NUL bytes, path separators, ``..``, a leading dot, anything but letters, digits, ``.``, ``-``
and ``_``), or nothing (the backup then names the file after the store and the time), and the
file goes into :func:`backup_directory`: ``[server] backup_dir``, by default ``backups`` in the
user data directory, made private (0700) when the server makes it. A name that exists is
refused, a symbolic link included (the server never writes through one). The CLI's
``hlmem backup PATH`` is unchanged: there the path comes from the machine's own user.

The copy itself is :meth:`Memory.backup <hlmem.adapters.operations_api.Operations.backup>`,
called here with a path this module built.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from hlmem.domain.errors import ValidationError

#: The default folder's name inside the user data directory.
FOLDER = "backups"
#: Backups made over the network end in this (added when the name lacks it).
SUFFIX = ".db"
MAX_NAME = 120
_ALLOWED = re.compile(r"[\w.-]+")


class UnsafeName(ValidationError):
    """A backup name that is not a plain file name (a path, ``..``, a NUL byte, a link…)."""


class BackupExists(ValidationError):
    """A backup name already taken in the backup directory (a file or a link)."""


def default_backup_directory() -> Path:
    """``backups`` in the user data directory (``~/.local/share/hlmem/backups`` on Linux)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("hlmem", appauthor=False)) / FOLDER


def backup_directory(configured: str | None) -> Path:
    """The backup directory: ``configured`` (``~`` expanded; the config file made a relative one
    absolute), else :func:`default_backup_directory`; absolute and with links resolved, because
    the operator chose it (a link *inside* it is still refused)."""
    folder = Path(configured).expanduser() if configured else default_backup_directory()
    return folder.resolve()


def backup_file_name(name: str | None) -> str | None:
    """The file name a caller asked for, checked, with :data:`SUFFIX` added when it lacks it;
    None when no name was given (the backup names the file).

    :raises UnsafeName: a NUL byte, a path separator, ``..``, a leading dot or another
        character, or more than :data:`MAX_NAME` characters; each with its reason.
    """
    if name is None:
        return None
    if "\x00" in name:
        problem = "contains a NUL byte"
    elif "/" in name or "\\" in name:
        problem = "contains a path separator"
    elif ".." in name:
        problem = "contains '..'"
    elif name.startswith("."):
        problem = "starts with '.' (hidden and temporary files)"
    elif not name or not _ALLOWED.fullmatch(name) or name != name.strip():
        problem = "may hold only letters, digits, '.', '-' and '_'"
    elif len(name) > MAX_NAME:
        problem = f"is longer than {MAX_NAME} characters"
    else:
        return name if name.endswith(SUFFIX) else name + SUFFIX
    raise UnsafeName(f"backup name {_shown(name)} {problem}: give a plain file name such as 'nightly.db', or none "
                     "(the server chooses the folder, [server] backup_dir, and names the file when none is given)",
                     field="name")


def _shown(name: str) -> str:
    return repr(name if len(name) <= 60 else name[:57] + "…")


def backup_into(memory: Any, folder: Path, name: str | None) -> Any:
    """Back ``memory`` up into ``folder`` as ``name`` (checked by :func:`backup_file_name`), or
    under a name the backup chooses; the ``BackupInfo``.

    :raises UnsafeName: the name is not a plain file name, or is a symbolic link in the folder.
    :raises BackupExists: a file of that name is already there.
    """
    file_name = backup_file_name(name)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not file_name:
        return memory.backup(folder, overwrite=False)
    target = folder / file_name
    if target.is_symlink():
        raise UnsafeName(f"backup name {_shown(file_name)} is a symbolic link in the backup directory; the server "
                         "never writes through a link: choose another name", field="name")
    if os.path.lexists(target):
        raise BackupExists(f"a backup named {_shown(file_name)} already exists in the backup directory; choose "
                           "another name (backups over the network never overwrite)", field="name")
    return memory.backup(target, overwrite=False)
