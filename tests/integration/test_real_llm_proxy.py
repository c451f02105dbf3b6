"""A recording proxy in front of a real OpenAI-compatible server, for the real-model tests (no tests here).

It forwards every request to the real server and records each exchange (the request body, the
server's JSON reply and its ``usage``), so a test can compare what hlmem counted with what the
server reported. A test may also make the next replies misbehave the way real servers and models
do: a rewritten answer (cut off, translated), or a reply that trickles out slower than the
client's timeout. Everything stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

#: Rewrites one reply's JSON (a chat completion); None passes it through unchanged.
Rewrite = Callable[[dict[str, Any]], dict[str, Any]] | None


class Exchange:
    """One forwarded request and what the real server answered (before any rewrite)."""

    def __init__(self, request: dict[str, Any], status: int, reply: Any, upstream_s: float) -> None:
        self.request = request
        self.status = status
        self.reply = reply
        self.upstream_s = upstream_s  # how long the real server took

    @property
    def usage(self) -> tuple[int | None, int | None]:
        usage = self.reply.get("usage") if isinstance(self.reply, dict) else None
        if not isinstance(usage, dict):
            return None, None
        return usage.get("prompt_tokens"), usage.get("completion_tokens")

    @property
    def content(self) -> str | None:
        try:
            return self.reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return None

    @property
    def finish_reason(self) -> str | None:
        try:
            return self.reply["choices"][0]["finish_reason"]
        except (KeyError, IndexError, TypeError):
            return None


class RecordingProxy:
    """``with RecordingProxy(upstream_base_url) as proxy: ... proxy.base_url ...``."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.exchanges: list[Exchange] = []
        self._rewrites: deque[Rewrite] = deque()
        self._request_rewrites: deque[Rewrite] = deque()
        self._trickle: deque[float] = deque()
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=httpx.Timeout(900.0))
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                proxy._forward(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def rewrite(self, *rewrites: Rewrite) -> None:
        """The next replies, one each, go through these (None: unchanged); later ones pass as they are."""
        with self._lock:
            self._rewrites.extend(rewrites)

    def rewrite_request(self, *rewrites: Rewrite) -> None:
        """The next requests' JSON bodies, one each, go through these before the real server sees them."""
        with self._lock:
            self._request_rewrites.extend(rewrites)

    def trickle(self, seconds_per_chunk: float) -> None:
        """The next reply: headers at once, then its body in 16-byte chunks this far apart."""
        with self._lock:
            self._trickle.append(seconds_per_chunk)

    def chat_exchanges(self) -> list[Exchange]:
        with self._lock:
            return list(self.exchanges)

    def _forward(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        path = handler.path[len("/v1"):] if handler.path.startswith("/v1") else handler.path
        request = json.loads(body or b"null")
        with self._lock:
            change = self._request_rewrites.popleft() if self._request_rewrites else None
        if change is not None:
            request = change(request)
            body = json.dumps(request, ensure_ascii=False).encode()
        started = time.monotonic()
        upstream = self._client.post(f"{self.upstream}{path}", content=body,
                                     headers={"Content-Type": "application/json"})
        try:
            reply: Any = upstream.json()
        except ValueError:
            reply = None
        with self._lock:
            self.exchanges.append(Exchange(request, upstream.status_code, reply, time.monotonic() - started))
            rewrite = self._rewrites.popleft() if self._rewrites else None
            trickle = self._trickle.popleft() if self._trickle else None
        out = upstream.content
        if rewrite is not None and isinstance(reply, dict):
            out = json.dumps(rewrite(json.loads(json.dumps(reply))), ensure_ascii=False).encode()
        try:
            handler.send_response(upstream.status_code)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(out)))
            handler.end_headers()
            if trickle is None:
                handler.wfile.write(out)
                return
            for start in range(0, len(out), 16):
                handler.wfile.write(out[start:start + 16])
                handler.wfile.flush()
                time.sleep(trickle)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): nothing more to send

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()


def with_content(reply: dict[str, Any], content: str) -> dict[str, Any]:
    """``reply`` with its first choice's message content replaced."""
    reply["choices"][0]["message"]["content"] = content
    return reply


def cut_in_half(reply: dict[str, Any]) -> dict[str, Any]:
    """A real answer cut in the middle, as a dropped stream or a buggy server leaves it."""
    content = reply["choices"][0]["message"]["content"]
    return with_content(reply, content[: max(1, len(content) // 2)])


def map_values(mapping: Callable[[str], str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A rewrite that passes every claim's value of a real answer through ``mapping``."""

    def rewrite(reply: dict[str, Any]) -> dict[str, Any]:
        answer = json.loads(reply["choices"][0]["message"]["content"])
        for claim in answer.get("claims", []):
            claim["value"] = mapping(claim["value"])
        return with_content(reply, json.dumps(answer, ensure_ascii=False))

    return rewrite


# --- the proxy's own tests, in the default run: a scripted server behind it -----------------------------
# (The real-model tests are in test_real_llm.py.) What they pin down does not need a model: a reply
# that trickles in past the timeout ends the attempt at the timeout, and json_object_schema sends
# the schema with json_object.


def _scripted() -> Any:
    import sys
    from pathlib import Path

    tests = str(Path(__file__).resolve().parents[1])
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from support import llm_server

    return llm_server


def _llm(base_url: str, ledger: Any, **overrides: Any) -> Any:
    from hlmem.adapters.llm.openai_compat import OpenAICompatLLM
    from hlmem.adapters.llm.presets import LLMConfig

    settings = {"base_url": base_url, "model": "m", "max_retries": 0, "timeout_s": 5.0, **overrides}
    return OpenAICompatLLM(LLMConfig.from_preset("local", **settings), ledger=ledger)


def test_a_reply_that_trickles_in_past_the_timeout_ends_the_attempt_at_the_timeout() -> None:
    import pytest

    from hlmem.adapters.llm.ledger import InMemoryLedger
    from hlmem.domain.errors import ProviderTimeout

    llm_server = _scripted()
    answer = {"claims": [], "note": "x" * 600}  # about 700 bytes: 44 pieces, 11 s at a quarter second each
    with llm_server.ScriptedLLMServer() as upstream, RecordingProxy(upstream.base_url) as proxy:
        upstream.script(llm_server.completion(answer))
        proxy.trickle(0.25)
        ledger = InMemoryLedger()
        started = time.monotonic()
        with pytest.raises(ProviderTimeout, match="no answer within 1 s"):
            _llm(proxy.base_url, ledger, timeout_s=1.0).complete_json("s", "u", {"type": "object"}, operation="op")
        assert time.monotonic() - started < 4.0  # each piece came within the read timeout: only the deadline ends it
        assert [c.status for c in ledger.calls()] == ["timeout"]
        upstream.script(llm_server.completion(answer))  # the same reply, at once, is read whole
        assert _llm(proxy.base_url, ledger).complete_json("s", "u", {"type": "object"}, operation="op") == answer


def test_json_object_schema_sends_the_schema_with_json_object_and_in_the_prompt() -> None:
    from hlmem.adapters.llm.ledger import InMemoryLedger
    from hlmem.application.extraction.prompt import EXTRACTION_SCHEMA

    llm_server = _scripted()
    with llm_server.ScriptedLLMServer() as upstream:
        upstream.script(llm_server.completion({"claims": []}))
        llm = _llm(upstream.base_url, InMemoryLedger(), response_format="json_object_schema")
        assert llm.complete_json("sys", "u", EXTRACTION_SCHEMA, operation="extract") == {"claims": []}
        body = upstream.requests[0].json()
        assert body["response_format"] == {"type": "json_object", "schema": EXTRACTION_SCHEMA}
        assert "conforms to this JSON Schema" in body["messages"][0]["content"]
