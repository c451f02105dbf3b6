"""The CLI through a running ``hlmem serve``: its commands run in the server's warm process (ADR 0079).

A fresh ``hlmem recall`` spends most of its time starting: imports, the segmenter, the vectors
read into memory, the embedding model. ``hlmem serve`` has all of that loaded already. So the
server also listens on a Unix socket, private to its user (a 0700 folder, a 0600 socket, the
peer's uid checked), named after the store's real path; ``recall``, ``add`` and ``stats`` look
for it first and, when a server of the same store with the same settings answers, send it their
arguments. The server runs the very same command with its open ``Memory`` and sends back what it
printed and its exit code, so the output is the same byte for byte; anything else (no socket, a
stale one, another store, other settings, ``--now``, ``--no-server``) runs in-process as before.

The protocol is private to hlmem and versioned: a 4-byte big-endian length, then UTF-8 JSON, one
request and one reply per connection. The client uses the standard library only (no HTTP client
to import: it costs more than the whole exchange).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import struct
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: Bump when a request or reply changes shape: a client never talks to a server of another version.
PROTOCOL = 1
#: The commands a server runs for the CLI: they open the store and print; nothing reads stdin.
SERVED = frozenset({"recall", "add", "stats"})
#: Environment variables that change what a command prints (terminal size, colour): sent along.
OUTPUT_ENV = ("COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE",
              "TTY_INTERACTIVE")
#: How long a client waits to connect, and a server for a request to arrive.
CONNECT_TIMEOUT_S = 1.0
_LENGTH = struct.Struct(">I")
_MAX_MESSAGE = 64 << 20


def runtime_folder() -> Path | None:
    """Where the sockets live: ``$XDG_RUNTIME_DIR/hlmem``, else ``hlmem-<uid>`` in the temporary
    folder; made private (0700) when missing, and only used when it is a real folder owned by
    this user and private to it. None when neither is."""
    uid = os.getuid()
    candidates = []
    if runtime := os.environ.get("XDG_RUNTIME_DIR"):
        candidates.append(Path(runtime) / "hlmem")
    candidates.append(Path(tempfile.gettempdir()) / f"hlmem-{uid}")
    for folder in candidates:
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            st = folder.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o077:
            return folder
    return None


def store_key(db: str) -> str | None:
    """The store a path names, as the socket is keyed: its real path (None: not a file store)."""
    if not db or db == ":memory:" or "://" in db:
        return None
    return os.path.realpath(os.path.expanduser(db))


def socket_path(real_db: str, folder: Path | None = None) -> Path | None:
    """The socket of the server of the store at ``real_db`` (None: no private folder to put it)."""
    folder = folder or runtime_folder()
    if folder is None:
        return None
    return folder / f"{hashlib.sha256(real_db.encode('utf-8', 'surrogatepass')).hexdigest()[:24]}.sock"


def settings_key(settings: Any) -> str:
    """What must be equal between a client and a server for a command to give the same answer
    in either: every effective setting but the store's name (compared by its real path)."""
    import attrs

    return hashlib.sha256(repr(_canonical(attrs.evolve(settings, db=None))).encode()).hexdigest()


def _canonical(value: Any) -> Any:
    """``value`` with its sets sorted and its mappings ordered: the same in every process (a
    set's order follows the process's string hashing)."""
    import attrs

    if attrs.has(type(value)):
        return (type(value).__name__, [(f.name, _canonical(getattr(value, f.name))) for f in attrs.fields(type(value))])
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(repr(_canonical(item)) for item in value))
    if isinstance(value, Mapping):
        return ("map", sorted((repr(_canonical(k)), _canonical(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    return repr(value)


def _send(sock: socket.socket, message: Mapping[str, Any]) -> None:
    data = json.dumps(message, ensure_ascii=False).encode()
    sock.sendall(_LENGTH.pack(len(data)) + data)


def _receive(sock: socket.socket) -> dict[str, Any] | None:
    head = _exactly(sock, _LENGTH.size)
    if head is None:
        return None
    (size,) = _LENGTH.unpack(head)
    if size > _MAX_MESSAGE:
        raise ValueError(f"message of {size} bytes")
    body = _exactly(sock, size)
    return None if body is None else json.loads(body)


def _exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


# --- the client -----------------------------------------------------------------------------------


class ServerStopped(Exception):
    """The server took the command and stopped answering before it replied: it may have run."""


def forward(real_db: str, key: str, args: Sequence[str], db_shown: str, *, is_tty: tuple[bool, bool],
            environ: Mapping[str, str] = os.environ, folder: Path | None = None) -> dict[str, Any] | None:
    """Run ``hlmem <args>`` in the server of ``real_db``: its reply (``stdout``, ``stderr``,
    ``exit``), or None when no server of that store with settings ``key`` takes it (nothing
    was run: run it here).

    :raises ServerStopped: the server took the command but did not reply.
    """
    path = socket_path(real_db, folder)
    if path is None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(str(path))
        except OSError:  # none there, or a stale socket file of a server that is gone
            return None
        sock.settimeout(None)
        env = {name: environ[name] for name in OUTPUT_ENV if name in environ}
        if is_tty[0] and "COLUMNS" not in env:
            import shutil

            size = shutil.get_terminal_size()
            env.update(COLUMNS=str(size.columns), LINES=str(size.lines))
        request = {"protocol": PROTOCOL, "store": real_db, "settings": key, "args": list(args), "db": db_shown,
                   "env": env, "tty": list(is_tty)}
        try:
            _send(sock, request)
        except OSError:  # the request never arrived whole: the server cannot have run it
            return None
        try:
            reply = _receive(sock)
        except (OSError, ValueError) as exc:
            raise ServerStopped(str(exc)) from None
        if reply is None:
            raise ServerStopped("the connection closed before a reply")
        return reply if reply.get("ran") else None
    finally:
        sock.close()


# --- the server -----------------------------------------------------------------------------------


Runner = Callable[[Sequence[str], str, Mapping[str, str], tuple[bool, bool]], tuple[str, str, int]]


class CommandListener:
    """Listens on the store's socket in a thread and runs what clients send with ``run``.

    ``run(args, db_shown, env, tty)`` runs one command and returns (stdout, stderr, exit code);
    commands run one at a time.
    """

    def __init__(self, real_db: str, key: str, run: Runner, folder: Path | None = None) -> None:
        self.real_db, self.key, self._run = real_db, key, run
        self.path = socket_path(real_db, folder)
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()

    def start(self) -> str | None:
        """Bind and listen; None when listening, else why not (one line for the operator)."""
        if self.path is None:
            return "no private runtime folder for the CLI's socket"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._bind(sock)
        except OSError as exc:
            sock.close()
            return f"the CLI's socket {self.path} cannot be used ({exc.strerror or exc})"
        sock.listen(16)
        self._sock = sock
        threading.Thread(target=self._accept, name="hlmem-cli-socket", daemon=True).start()
        return None

    def _bind(self, sock: socket.socket) -> None:
        assert self.path is not None
        if self.path.exists() or self.path.is_symlink():
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(CONNECT_TIMEOUT_S)
            try:
                probe.connect(str(self.path))
            except OSError:
                self.path.unlink()  # stale: its server is gone
            else:
                raise OSError(0, "another hlmem serve of this store answers on it")
            finally:
                probe.close()
        old = os.umask(0o177)
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), name="hlmem-cli-request", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                if not _same_user(conn):
                    return
                conn.settimeout(10.0)
                request = _receive(conn)
                conn.settimeout(None)
                if request is None:
                    return
                if (request.get("protocol") != PROTOCOL or request.get("store") != self.real_db
                        or request.get("settings") != self.key or not request.get("args")
                        or request["args"][0] not in SERVED):
                    _send(conn, {"ran": False})
                    return
                with self._lock:
                    out, err, code = self._run(request["args"], request.get("db") or self.real_db,
                                               request.get("env") or {}, tuple(request.get("tty") or (False, False)))
                _send(conn, {"ran": True, "stdout": out, "stderr": err, "exit": code})
            except (OSError, ValueError):
                return  # the client went away, or sent garbage: nothing to answer

    def close(self) -> None:
        """Stop listening and remove the socket file; wait for a command being run to finish."""
        self._closed.set()
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            try:
                if self.path is not None:
                    self.path.unlink()
            except OSError:
                pass
        with self._lock:
            pass


def _same_user(conn: socket.socket) -> bool:
    """Whether the peer runs as this user (Linux's SO_PEERCRED; elsewhere the 0600 socket decides)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    creds = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid == os.getuid()

