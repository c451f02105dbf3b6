"""``hlmem recall``, ``add`` and ``stats`` run in a running ``hlmem serve`` of their store (ADR 0079).

A real server (``hlmem serve``, uvicorn, its Unix socket in a private runtime folder of the
test's own) shared by the module. Whether a command ran in the server is read from what the CLI
process imported (``-X importtime``): run there, it never opens the store itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from hlmem.adapters.cli import server_link  # noqa: E402


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _short_folder() -> Path:
    """A private runtime folder with a short name (a Unix socket's path is at most 107 bytes)."""
    return Path(tempfile.mkdtemp(prefix="hl", dir="/tmp" if os.path.isdir("/tmp") else None))


def _env(runtime: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLMEM_")}
    env.update(XDG_RUNTIME_DIR=str(runtime), PYTHONIOENCODING="utf-8", HLMEM_EMBEDDER="hash")
    return env


def hlmem(db: Path, runtime: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str], bool]:
    """Run ``hlmem --db DB ARGS``: the result, and whether the CLI process opened the store itself."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "hlmem", "--db", str(db), *args],
                          capture_output=True, text=True, env={**_env(runtime), **env}, timeout=180)
    lines = done.stderr.splitlines()
    local = any(line.startswith("import time:") and line.rstrip().endswith("hlmem.adapters.memory_api")
                for line in lines)
    stderr = "\n".join(line for line in lines if not line.startswith("import time:"))
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, stderr), local


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("served")
    runtime = _short_folder()
    db = root / "store.db"
    from hlmem import Memory

    with Memory(str(db), embedder="hash") as mem:  # seeded here: one process, not three
        for text in ("我现在住在杭州。", "I moved to Seattle in May.", "张伟喜欢打羽毛球。"):
            mem.add(text)
    proc = subprocess.Popen([sys.executable, "-m", "hlmem", "--db", str(db), "serve", "--port", str(_free_port())],
                            env=_env(runtime), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    path = server_link.socket_path(server_link.store_key(str(db)), runtime / "hlmem")
    deadline = time.monotonic() + 120
    while not path.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"hlmem serve did not listen on {path}: {proc.stderr.read()}")
        time.sleep(0.1)
    yield db, runtime, path
    proc.terminate()
    proc.wait(timeout=30)
    try:
        assert not path.exists()  # removed on the way out
    finally:
        shutil.rmtree(runtime)


def test_the_socket_is_private(served) -> None:
    _, runtime, path = served
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_recall_runs_in_the_server_with_the_same_results(served) -> None:
    db, runtime, _ = served
    there, local = hlmem(db, runtime, "recall", "住在哪里", "--json")
    assert there.returncode == 0 and not local, there.stderr
    here, local = hlmem(db, runtime, "--no-server", "recall", "住在哪里", "--json")
    assert here.returncode == 0 and local
    assert json.loads(there.stdout)["items"] == json.loads(here.stdout)["items"]
    assert any("Seattle" in item["text"] for item in json.loads(there.stdout)["items"])
    assert there.stderr == here.stderr


def _untimed(text: str) -> str:
    return re.sub(r"\d{2}:\d{2}(:\d{2})?", "hh:mm:ss", text)


@pytest.mark.parametrize("columns", ["", "60", "140"])
def test_the_recall_table_is_drawn_the_same_both_ways(served, columns: str) -> None:
    db, runtime, _ = served
    env = {"COLUMNS": columns} if columns else {}
    there, local = hlmem(db, runtime, "recall", "羽毛球", **env)
    assert not local
    here, _ = hlmem(db, runtime, "--no-server", "recall", "羽毛球", **env)
    # The title names the instant asked about (now): equal but for the seconds between the runs.
    assert _untimed(there.stdout) == _untimed(here.stdout)
    assert "羽毛" in there.stdout and len(there.stdout.splitlines()) > 4  # a table with rows
    assert there.stderr == here.stderr


def test_stats_prints_the_same_both_ways(served) -> None:
    db, runtime, _ = served
    there, local = hlmem(db, runtime, "stats")
    assert not local
    here, local = hlmem(db, runtime, "--no-server", "stats")
    assert local
    assert (there.returncode, there.stdout, there.stderr) == (here.returncode, here.stdout, here.stderr)
    assert f"db: {db}" in there.stdout


def test_add_in_the_server_is_recalled_by_both(served) -> None:
    db, runtime, _ = served
    added, local = hlmem(db, runtime, "add", "--defer", "我的猫叫团子。", "--json")
    assert added.returncode == 0 and not local, added.stderr
    event = json.loads(added.stdout)["id"]
    for flags in ((), ("--no-server",)):
        found, _ = hlmem(db, runtime, *flags, "recall", "猫叫什么", "--json")
        assert event in [item["id"] for item in json.loads(found.stdout)["items"]]


def test_errors_and_exit_codes_come_back_as_they_would_here(served) -> None:
    db, runtime, _ = served
    there, local = hlmem(db, runtime, "recall", "x", "--valid-at", "not a time")
    here, _ = hlmem(db, runtime, "--no-server", "recall", "x", "--valid-at", "not a time")
    assert not local
    assert there.returncode == here.returncode == 2  # a usage error, as click prints it
    assert (there.stdout, there.stderr) == (here.stdout, here.stderr)
    missing_there, local = hlmem(db, runtime, "recall", "")
    missing_here, _ = hlmem(db, runtime, "--no-server", "recall", "")
    assert not local
    assert (missing_there.returncode, missing_there.stdout, missing_there.stderr) == \
        (missing_here.returncode, missing_here.stdout, missing_here.stderr)


def test_other_settings_or_a_fixed_clock_run_here(served) -> None:
    db, runtime, _ = served
    _, local = hlmem(db, runtime, "--embedder", "none", "stats")
    assert local  # another embedder than the server's: its answers could differ
    _, local = hlmem(db, runtime, "--now", "2026-01-01T00:00:00Z", "recall", "杭州")
    assert local


def test_a_server_of_another_store_is_never_used(served, tmp_path: Path) -> None:
    db, runtime, path = served
    other = tmp_path / "other.db"
    done, _ = hlmem(other, runtime, "add", "only in the other store")
    assert done.returncode == 0
    # The other store's socket name leads to the served store's server (a moved or copied file).
    decoy = server_link.socket_path(server_link.store_key(str(other)), runtime / "hlmem")
    decoy.symlink_to(path)
    try:
        stats, local = hlmem(other, runtime, "stats", "--json")
    finally:
        decoy.unlink()
    assert stats.returncode == 0 and local
    here, _ = hlmem(other, runtime, "--no-server", "stats", "--json")
    served_stats, _ = hlmem(db, runtime, "--no-server", "stats", "--json")
    assert stats.stdout == here.stdout != served_stats.stdout
    assert json.loads(stats.stdout)["db"] == str(other)


def test_a_stale_socket_is_ignored_then_replaced(tmp_path: Path) -> None:
    runtime = _short_folder()
    try:
        _stale_socket(tmp_path / "stale.db", runtime)
    finally:
        shutil.rmtree(runtime)


def _stale_socket(db: Path, runtime: Path) -> None:
    folder = runtime / "hlmem"
    folder.mkdir(mode=0o700)
    path = server_link.socket_path(server_link.store_key(str(db)), folder)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # a socket file whose server is gone (killed: never removed)
    dead.close()
    done, local = hlmem(db, runtime, "add", "still works")
    assert done.returncode == 0 and local and done.stdout.startswith("recorded ")
    listener = server_link.CommandListener(server_link.store_key(str(db)), "key", lambda *a: ("", "", 0), folder)
    assert listener.start() is None  # the stale file is replaced
    try:
        again = server_link.CommandListener(server_link.store_key(str(db)), "key", lambda *a: ("", "", 0), folder)
        assert "another hlmem serve" in (again.start() or "")  # a live one is not
    finally:
        listener.close()
    assert not path.exists()


def test_a_server_that_takes_a_command_and_dies_is_reported_never_rerun(tmp_path: Path) -> None:
    import threading

    runtime = _short_folder()
    try:
        db = tmp_path / "dies.db"
        folder = runtime / "hlmem"
        folder.mkdir(mode=0o700)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(server_link.socket_path(server_link.store_key(str(db)), folder)))
        listener.listen(1)

        def take_and_die() -> None:
            conn, _ = listener.accept()
            with conn:
                server_link._receive(conn)  # the whole request, then gone without a reply

        taker = threading.Thread(target=take_and_die, daemon=True)
        taker.start()
        done, local = hlmem(db, runtime, "add", "maybe written")
        taker.join(timeout=30)
        listener.close()
    finally:
        shutil.rmtree(runtime)
    assert done.returncode == 1 and not local
    assert "stopped answering" in done.stderr and "may have run" in done.stderr
    assert not db.exists()  # not run here as well
