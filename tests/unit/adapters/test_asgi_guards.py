"""The ASGI middleware both servers share: the Host allowlist's refusal and closing at shutdown."""

from __future__ import annotations

import json
from typing import Any

import anyio

from hlmem.adapters.asgi_guards import MISDIRECTED, CloseOnShutdown, HostGuard

ALLOWED = frozenset({"localhost", "127.0.0.1", "::1"})


async def _ok(scope: dict, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"secret"})


def call(app: Any, headers: list[tuple[bytes, bytes]], kind: str = "http") -> list[dict]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    anyio.run(app, {"type": kind, "path": "/", "headers": headers}, receive, send)
    return sent


def test_a_foreign_host_gets_421_in_the_servers_own_shape_and_never_reaches_the_app() -> None:
    guard = HostGuard(_ok, ALLOWED, lambda code, message: {"error": {"code": code, "message": message}})
    refused = call(guard, [(b"host", b"evil.example:8765")])
    assert refused[0]["status"] == MISDIRECTED and (b"connection", b"close") in refused[0]["headers"]
    body = json.loads(refused[1]["body"])
    assert body["error"]["code"] == "host_not_allowed" and "'evil.example:8765'" in body["error"]["message"]
    assert b"secret" not in refused[1]["body"]
    assert call(guard, [(b"host", b"localhost:8765")])[1]["body"] == b"secret"
    assert call(guard, [(b"host", b"evil.example")], kind="websocket") == [{"type": "websocket.close", "code": 1008}]


def test_a_page_on_another_site_gets_403_and_never_reaches_the_app() -> None:
    guard = HostGuard(_ok, ALLOWED, lambda code, message: {"code": code, "message": message})
    here = [(b"host", b"127.0.0.1:8765")]
    for origin in (b"http://evil.example", b"null", b"http://localhost.evil.example:8765", b"file://",
                   b"ftp://localhost", b"http://localhost/path"):
        refused = call(guard, [*here, (b"origin", origin)])
        assert refused[0]["status"] == 403 and json.loads(refused[1]["body"])["code"] == "origin_not_allowed"
    assert call(guard, [*here, (b"origin", b"http://a"), (b"origin", b"http://b")])[0]["status"] == 403
    for origin in (b"http://127.0.0.1:8765", b"https://localhost", b"http://[::1]:9"):
        assert call(guard, [*here, (b"origin", origin)])[1]["body"] == b"secret", origin
    assert call(guard, [(b"host", b"evil.example"), (b"origin", b"http://127.0.0.1")])[0]["status"] == 421


def test_close_runs_once_after_the_apps_shutdown_and_before_the_server_hears_of_it() -> None:
    order: list[str] = []

    async def app(scope: dict, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                order.append("app shut down")
                await send({"type": "lifespan.shutdown.complete"})
                return

    inbox = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])

    async def receive() -> dict:
        return next(inbox)

    async def send(message: dict) -> None:
        order.append(message["type"])

    wrapped = CloseOnShutdown(app, lambda: order.append("closed"))
    anyio.run(wrapped, {"type": "lifespan"}, receive, send)
    assert order == ["lifespan.startup.complete", "app shut down", "closed", "lifespan.shutdown.complete"]
    assert call(CloseOnShutdown(_ok, lambda: order.append("again")), [])[1]["body"] == b"secret"  # http passes
    assert order.count("closed") == 1 and "again" not in order
