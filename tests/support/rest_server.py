"""A real uvicorn serving ``create_app`` on 127.0.0.1 in a thread, for the REST tests.

    with serving(memory, token="s3cret") as base_url:
        httpx.get(f"{base_url}/health")

The socket is bound before the thread starts (port 0: the OS picks a free one), so there is no
race for the port; leaving the block stops the server and joins its thread, even after a failure.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from hlmem.adapters.server.app import create_app
from hlmem.adapters.settings_sections import ServerSettings

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
