"""The request body limit: a body over ``max_body_bytes`` is answered 413 before any route sees it."""

from __future__ import annotations

import json
from typing import Any

from hlmem.adapters.server.errors import body


class BodyLimit:
    """ASGI middleware: 413 for a declared ``Content-Length`` or a streamed body over the limit.

    The body (at most ``limit`` bytes) is read here and handed on whole, so a route never sees
    a truncated one.
    """

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope.get("headers", ()):
            if key == b"content-length" and value.isdigit() and int(value) > self.limit:
                await self._refuse(send, int(value))
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break  # the client went away: hand the disconnect on
            size += len(message.get("body", b""))
            if size > self.limit:
                await self._refuse(send, size)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        sent = False

        async def replay() -> dict:
            nonlocal sent
            if not sent:
                sent = True
                return whole
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Any, size: int) -> None:
        payload = json.dumps(body("too_large", f"the request body ({size} bytes or more) is over the limit of "
                                               f"{self.limit} bytes (server.max_body_bytes); send less, "
                                               "or split a batch")).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})
