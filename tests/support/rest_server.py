"""A real uvicorn serving ``create_app`` on 127.0.0.1 in a thread, for the REST tests.

    with serving(memory, token="s3cret") as base_url:
        httpx.get(f"{base_url}/health")

The socket is bound before the thread starts (port 0: the OS picks a free one), so there is no
race for the port; leaving the block stops the server and joins its thread, even after a failure.
:func:`serve_process` runs the ``hlmem serve`` command itself, for what only the command wires
(the config file, the token variable).
"""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from hlmem.adapters.server.app import create_app
from hlmem.adapters.settings_sections import ServerSettings
from support.cli import end_process

START_TIMEOUT_S = 30.0


@contextmanager
def serving(memory: Any, *, token: str | None = None, settings: ServerSettings | None = None) -> Iterator[str]:
    """Serve ``memory``; yields the base URL (``http://127.0.0.1:PORT``)."""
    app = create_app(memory, settings, token=token)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="uvicorn-test")
    thread.start()
    try:
        started = threading.Event()
        for _ in range(int(START_TIMEOUT_S / 0.01)):
            if server.started or not thread.is_alive():
                started.set()
                break
            started.wait(0.01)
        if not server.started:
            raise RuntimeError("the test server did not start (see its log above)")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for a server started as a process)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve_process(hlmem: str, port: int, env: Mapping[str, str], cwd: Path) -> Iterator[str]:
    """``hlmem serve`` as a process listening on ``port``; yields its base URL once ``/health``
    answers (up to a minute for a cold start on a loaded machine), terminates it on leaving."""
    proc = subprocess.Popen([hlmem, "serve"], env=dict(env), cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if proc.poll() is not None:
                raise AssertionError(f"hlmem serve exited {proc.returncode}: {proc.stderr.read().decode()}")
            try:
                if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            raise AssertionError("hlmem serve never answered /health")
        yield base
    finally:
        end_process(proc)
