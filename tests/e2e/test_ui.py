"""The web inspector's files over HTTP: served at /ui without a token, API routes still guarded (docs/ui.md)."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")
import httpx  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.server.ui import HEADERS, STATIC  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from support.rest_server import serving  # noqa: E402

TOKEN = "ui-test-token"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with Memory(tmp_path_factory.mktemp("ui") / "m.db", embedder="hash", settings=Settings()) as mem, \
            serving(mem, token=TOKEN) as base:
        mem.remember("user", "lives_in", "上海")
        yield base


@pytest.mark.parametrize(("path", "kind"), [
    ("/ui/", "text/html; charset=utf-8"), ("/ui/index.html", "text/html; charset=utf-8"),
    ("/ui/app.js", "text/javascript; charset=utf-8"), ("/ui/relations.js", "text/javascript; charset=utf-8"),
    ("/ui/style.css", "text/css; charset=utf-8"),
])
def test_the_page_and_its_assets_are_served_without_a_token(url: str, path: str, kind: str) -> None:
    got = httpx.get(url + path, timeout=30)
    assert got.status_code == 200, got.text
    assert got.headers["content-type"] == kind
    for name, value in HEADERS.items():
        assert got.headers[name] == value
    assert got.content == (STATIC / (path.removeprefix("/ui/") or "index.html")).read_bytes()


def test_ui_without_the_slash_redirects_to_the_page(url: str) -> None:
    got = httpx.get(url + "/ui", timeout=30)
    assert got.status_code == 307 and got.headers["location"] == "/ui/"
    assert httpx.get(url + "/ui", timeout=30, follow_redirects=True).headers["content-type"].startswith("text/html")


def test_api_routes_still_need_the_token(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/v1/memories").status_code == 401
        assert http.post("/v1/recall", json={"query": "上海"}).status_code == 401
        allowed = http.post("/v1/recall", json={"query": "上海"}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert allowed.status_code == 200 and allowed.json()["items"]


@pytest.mark.parametrize("raw", [b"/ui/../v1/memories", b"/ui/%2e%2e/v1/memories", b"/ui/..%2fv1/memories",
                                 b"/ui/../../etc/passwd"])
def test_a_path_under_ui_never_reaches_an_api_route_or_a_file_outside(url: str, raw: bytes) -> None:
    # Sent raw, as a client that does not normalise paths would (httpx would resolve the dots).
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"GET " + raw + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status = int(answer.split(b" ", 2)[1])
    assert status == 404, answer[:300]
    assert b'"items"' not in answer and b"root:" not in answer


def test_a_missing_asset_is_404_and_the_ui_is_not_in_the_schema(url: str) -> None:
    assert httpx.get(url + "/ui/nothing.js", timeout=30).status_code == 404
    schema = httpx.get(url + "/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30).json()
    assert not [p for p in schema["paths"] if p.startswith("/ui")]


def test_the_page_loads_nothing_from_elsewhere_and_builds_no_html_from_strings() -> None:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    script = "\n".join(p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js")))
    assert '<script src="relations.js" defer>' in html
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    assert '<meta charset="utf-8">' in html and '<html lang="en">' in html
    for text in (html, script, css):
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), "no CDN, no remote font"
        assert "@import" not in text and "@font-face" not in text
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, f"{sink} would turn data into markup"
    assert "localStorage" not in script, "the token lives in sessionStorage only"
