"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for tests that need a real socket.

Each test queues the replies it wants (``server.script(...)``); every request is recorded, and a
request that finds the queue empty gets ``fallback`` (by default a 500 that the test can see in
``server.unscripted``). Nothing leaves the machine.

    with ScriptedLLMServer() as server:
        server.script(rate_limited(retry_after=0), completion({"claims": []}))
        llm = OpenAICompatLLM(LLMConfig.from_preset("local", base_url=server.base_url, model="m"), ...)
"""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from attrs import field, frozen


@frozen
class Reply:
    """One scripted reply: status, body, extra headers, and a delay before answering."""

    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0


@frozen
class Request:
    """What the server received."""

    method: str
    path: str
    headers: dict[str, str] = field(eq=False)
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def completion(content: str | dict[str, Any], *, prompt_tokens: int = 120, completion_tokens: int = 30,
               finish_reason: str = "stop", delay_s: float = 0.0) -> Reply:
    """A chat completion whose message content is ``content`` (a dict is sent as JSON text)."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    payload = {
        "id": "chatcmpl-test", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    return json_reply(payload, delay_s=delay_s)


def json_reply(payload: Any, *, status: int = 200, headers: tuple[tuple[str, str], ...] = (),
               delay_s: float = 0.0) -> Reply:
    """Any JSON body."""
    body = json.dumps(payload, ensure_ascii=False).encode()
    return Reply(status, body, (("Content-Type", "application/json"), *headers), delay_s)


def error(status: int, message: str, *, retry_after: str | None = None) -> Reply:
    """An OpenAI-style error body ``{"error": {"message": ...}}``."""
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    return json_reply({"error": {"message": message, "type": "test_error", "code": str(status)}}, status=status,
                      headers=headers)


def rate_limited(*, retry_after: str | None = "0") -> Reply:
    """HTTP 429, with a ``Retry-After`` header unless ``retry_after`` is None."""
    return error(429, "Rate limit reached for requests", retry_after=retry_after)


def raw(body: str | bytes, *, status: int = 200, content_type: str = "text/plain") -> Reply:
    """A body sent as is (for bodies that are not JSON at all)."""
    data = body.encode() if isinstance(body, str) else body
    return Reply(status, data, (("Content-Type", content_type),))


class _Handler(BaseHTTPRequestHandler):
    # Headers and body go out in separate writes; without this, Nagle + delayed ACK add ~40 ms.
    disable_nagle_algorithm = True

    protocol_version = "HTTP/1.1"
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        owner = self.server.owner
        reply = owner._take(Request("POST", self.path, dict(self.headers.items()), body))
        if reply.delay_s and owner._stopping.wait(reply.delay_s):
            return
        try:
            self.send_response(reply.status)
            for name, value in reply.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
        except OSError:
            pass  # the client gave up (a timeout test): nothing to answer

    do_GET = do_POST

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, owner: ScriptedLLMServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner = owner

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # connections cut by a client that timed out are expected


class ScriptedLLMServer:
    """Serves queued :class:`Reply` objects in order on an ephemeral port; records each request."""

    def __init__(self, fallback: Reply | None = None) -> None:
        self.fallback = fallback or error(500, "no scripted reply left")
        self.requests: list[Request] = []
        self.unscripted = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1`` (the server answers any path)."""
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies, served in order to the next requests."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not yet served."""
        with self._lock:
            return len(self._queue)

    def _take(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
            self.unscripted += 1
            return self.fallback

    def start(self) -> ScriptedLLMServer:
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # cuts scripted delays short
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()
