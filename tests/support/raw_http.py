"""HTTP requests sent byte for byte, for attacks a client library would tidy up (a forged or
missing ``Host``, two ``Host`` headers): curl's ``-H 'Host: …'`` without curl."""

from __future__ import annotations

import socket


def raw(base_url: str, request: bytes) -> tuple[int, bytes]:
    """Send ``request`` to ``base_url`` (``http://HOST:PORT``) as is; the status and the body.
    The request should say ``Connection: close`` (the answer is read to the end)."""
    host, port = base_url.removeprefix("http://").split("/")[0].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body


def request(method: str, path: str, *headers: bytes, body: bytes = b"") -> bytes:
    """A request with these header lines (``b"Host: x"``), ``Connection: close`` and ``body``."""
    lines = [f"{method} {path} HTTP/1.1".encode(), *headers, b"Connection: close"]
    if body:
        lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
