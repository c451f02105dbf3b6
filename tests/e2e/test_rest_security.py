"""The attacks of issue 33 on ``hlmem serve``, each against a real uvicorn on 127.0.0.1 (docs/rest.md,
Security; ADR 0059): forged Host headers sent as raw bytes, backups aimed outside the backup
directory, a weak token off loopback, a body that is not UTF-8, a made-up cursor, a forget's
time, and a SIGTERM that must leave no ``-wal`` behind.

One server is shared by the module (``url``); the command-level attacks run ``hlmem serve``
itself (``serve_process``), since only the command reads the token and owns the store.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")
import httpx  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.adapters.settings_sections import ServerSettings  # noqa: E402
from support.cli import HLMEM, cli_env, end_process, run_cli  # noqa: E402
from support.raw_http import raw, request  # noqa: E402
from support.rest_server import free_port, serving  # noqa: E402

SECRET = "the door code is 4711"
PUBLIC = "memory.example.org"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("security")


@pytest.fixture(scope="module")
def store(folder: Path) -> Iterator[Memory]:
    with Memory(folder / "m.db", embedder="hash", settings=Settings()) as mem:
        mem.add(SECRET, session="s", extract=False)
        mem.remember("user", "city", "Paris")
        yield mem


@pytest.fixture(scope="module")
def url(store: Memory, folder: Path) -> Iterator[str]:
    settings = ServerSettings(backup_dir=str(folder / "backups"), public_names=(PUBLIC,))
    with serving(store, settings=settings) as base:
        yield base


def get(path: str, *headers: bytes) -> bytes:
    return request("GET", path, *headers)


def recall_request(host: bytes) -> bytes:
    return request("POST", "/v1/recall", b"Host: " + host, b"Content-Type: application/json",
                   body=b'{"query": "door code"}')


# -- DNS rebinding: the Host header ---------------------------------------------------------------

@pytest.mark.parametrize("host", [b"evil.example", b"evil.example:8765", b"127.0.0.1.evil.example",
                                  b"localhost.evil.example", b"localhost:1@evil.example", b"localhost:notaport",
                                  b"[::2]", b"0.0.0.0", b"127.0.0.2", b"", b"*"])
def test_a_forged_host_reads_nothing(url: str, host: bytes) -> None:
    for request in (get("/v1/memories", b"Host: " + host), recall_request(host), get("/health", b"Host: " + host),
                    get("/ui/", b"Host: " + host)):
        status, body = raw(url, request)
        assert status == 421, (host, body)
        assert b'"host_not_allowed"' in body and b"DNS rebinding" in body
        assert b"4711" not in body and b"Paris" not in body


def test_no_host_or_two_hosts_are_refused(url: str) -> None:
    status, body = raw(url, b"GET /v1/memories HTTP/1.0\r\n\r\n")
    assert status == 421 and b"without a Host header" in body
    status, body = raw(url, get("/v1/memories", b"Host: localhost", b"Host: evil.example"))
    assert status == 421 and b"several Host headers" in body


@pytest.mark.parametrize("host", [b"localhost", b"localhost:8765", b"LOCALHOST", b"localhost.", b"127.0.0.1",
                                  b"127.0.0.1:1", b"[::1]", b"[::1]:8765", PUBLIC.encode(),
                                  PUBLIC.upper().encode() + b":443"])
def test_the_servers_own_names_are_answered(url: str, host: bytes) -> None:
    status, body = raw(url, recall_request(host))
    assert status == 200, (host, body)
    assert b"4711" in body


def test_the_refusal_comes_before_the_token(store: Memory, folder: Path) -> None:
    with serving(store, token="t" * 8, settings=ServerSettings(backup_dir=str(folder / "b2"))) as base:
        status, body = raw(base, get("/v1/stats", b"Host: evil.example", b"Authorization: Bearer " + b"t" * 8))
        assert status == 421
        status, _ = raw(base, get("/v1/stats", b"Host: localhost"))
        assert status == 401


def test_a_page_on_another_site_cannot_make_the_browser_post(url: str, folder: Path) -> None:
    """A form on evil.example posting to 127.0.0.1 (cross-site request forgery): the Host is right,
    the Origin is not. A simple form needs no preflight, so only the Origin says where it came from."""
    before = sorted(folder.rglob("*"))
    for origin in (b"http://evil.example", b"null", b"http://127.0.0.1.evil.example:8765"):
        for kind, body in ((b"application/x-www-form-urlencoded", b""), (b"text/plain", b'{"name": "csrf"}')):
            status, answer = raw(url, request("POST", "/v1/backup", b"Host: 127.0.0.1", b"Origin: " + origin,
                                              b"Content-Type: " + kind, body=body))
            assert status == 403 and b'"origin_not_allowed"' in answer, answer
        status, answer = raw(url, request("POST", "/v1/forget", b"Host: localhost", b"Origin: " + origin,
                                          b"Content-Type: text/plain", body=b'{"subject": "user"}'))
        assert status == 403, answer
    assert sorted(folder.rglob("*")) == before
    port = url.rsplit(":", 1)[1].encode()
    status, _ = raw(url, request("GET", "/v1/stats", b"Host: localhost", b"Origin: http://localhost:" + port))
    assert status == 200  # the inspector's own page


# -- backups: only into the backup directory ------------------------------------------------------

@pytest.mark.parametrize("name", ["/etc/cron.d/hlmem", "/root/.ssh/authorized_keys2", "../../../../tmp/x.db",
                                  "..", "a/../b.db", "sub/dir.db", "..\\x.db", "C:\\x.db", "x\x00y.db",
                                  "\x00", ".hidden.db", "a\nb.db", "nightly.db\n", " spaced.db", "tab\t.db",
                                  "x" * 200, "", "a:b.db"])
def test_a_backup_name_that_is_not_a_plain_file_name_is_refused(url: str, folder: Path, name: str) -> None:
    before = sorted(folder.rglob("*"))
    answer = httpx.post(f"{url}/v1/backup", json={"name": name}, timeout=60)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "unsafe_name" and error["field"] == "name" and "\n" not in error["message"]
    assert sorted(folder.rglob("*")) == before  # nothing written in the server's folders
    if "\x00" not in name and name:
        aimed = folder / "backups" / name  # where a naive join would have written (absolute names: themselves)
        assert not os.path.lexists(aimed) and not os.path.lexists(f"{aimed}.db"), aimed


def test_the_old_path_key_is_refused_and_writes_nothing(url: str, tmp_path: Path) -> None:
    for path in ("/etc/cron.d/hlmem", str(tmp_path / "x.db"), "../../x.db"):
        answer = httpx.post(f"{url}/v1/backup", json={"path": path}, timeout=60)
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["code"] == "invalid_body" and "backup directory" in answer.text
    assert not (tmp_path / "x.db").exists()


def test_a_backup_goes_into_the_directory_and_says_where(url: str, folder: Path) -> None:
    made = httpx.post(f"{url}/v1/backup", json={"name": "nightly"}, timeout=60)
    assert made.status_code == 201, made.text
    where = Path(made.json()["path"])
    assert where == (folder / "backups" / "nightly.db").resolve() and where.is_file()
    assert SECRET.encode() in where.read_bytes()  # it is a full copy: that is why it stays in this folder
    again = httpx.post(f"{url}/v1/backup", json={"name": "nightly.db"}, timeout=60)
    assert again.status_code == 409 and again.json()["error"]["code"] == "backup_exists"
    unnamed = httpx.post(f"{url}/v1/backup", timeout=60)
    assert unnamed.status_code == 201 and Path(unnamed.json()["path"]).parent == where.parent


def test_a_symlink_in_the_backup_directory_is_never_written_through(url: str, folder: Path,
                                                                     tmp_path: Path) -> None:
    httpx.post(f"{url}/v1/backup", json={"name": "first.db"}, timeout=60)  # the directory exists now
    outside = tmp_path / "victim"
    outside.write_text("untouched")
    for name, target in (("linked.db", outside), ("dangling.db", tmp_path / "would-be-created")):
        (folder / "backups" / name).symlink_to(target)
        answer = httpx.post(f"{url}/v1/backup", json={"name": name}, timeout=60)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "unsafe_name", answer.text
        assert "symbolic link" in answer.json()["error"]["message"]
    assert outside.read_text() == "untouched" and not (tmp_path / "would-be-created").exists()


# -- smaller things ----------------------------------------------------------------------------------

def test_a_body_that_is_not_utf8_has_a_documented_code(url: str) -> None:
    for body in (b'{"text": "\xff\xfe"}', b'\xc3\x28', b'{"query": "caf\xe9"}'):
        answer = httpx.post(f"{url}/v1/recall", content=body, headers={"content-type": "application/json"},
                            timeout=60)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["code"] == "invalid_encoding" and "UTF-8" in answer.json()["error"]["message"]


@pytest.mark.parametrize("cursor", ["garbage", "cl_", "ep_01ABC", "cl_01ABC'--", "cl_x/../y", "\u4e2d\u6587"])
def test_a_made_up_cursor_is_refused_not_an_empty_page(url: str, cursor: str) -> None:
    answer = httpx.get(f"{url}/v1/memories", params={"cursor": cursor}, timeout=60)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "invalid_cursor" and answer.json()["error"]["field"] == "cursor"
    episodes = httpx.get(f"{url}/v1/episodes", params={"cursor": cursor.replace("ep_", "cl_")}, timeout=60)
    assert episodes.status_code == 400 and episodes.json()["error"]["code"] == "invalid_cursor"


def test_a_real_cursor_still_pages(url: str, store: Memory) -> None:
    for n in range(3):
        store.remember("pager", f"p{n}", "v")
    first = httpx.get(f"{url}/v1/memories", params={"subject": "pager", "limit": 2}, timeout=60).json()
    rest = httpx.get(f"{url}/v1/memories", params={"subject": "pager", "cursor": first["next_cursor"]},
                     timeout=60).json()
    assert len(first["items"]) == 2 and len(rest["items"]) == 1 and rest["next_cursor"] is None


def test_a_forget_answers_when_it_happened(url: str) -> None:
    made = httpx.post(f"{url}/v1/memories", json={"subject": "temp", "predicate": "pin", "value": "1234"},
                      timeout=60).json()
    plan = httpx.post(f"{url}/v1/forget", json={"id": made["id"], "dry_run": True}, timeout=60).json()
    assert plan["forgotten_at"] is None  # a dry run forgets nothing
    done = httpx.post(f"{url}/v1/forget", json={"id": made["id"]}, timeout=60).json()
    assert done["forgotten_at"] and done["forgotten_at"].endswith("Z")
    again = httpx.post(f"{url}/v1/forget", json={"id": made["id"]}, timeout=60).json()
    assert again["already_forgotten"] and again["forgotten_at"] == done["forgotten_at"]


# -- the command: a weak token off loopback, SIGTERM ------------------------------------------------

@pytest.mark.parametrize("token", ["abc", "s3cret-token-for-tests", "0123456789abcdef" * 3, "a" * 100,
                                   "correct horse battery staple"])
def test_a_weak_token_off_loopback_is_refused(tmp_path: Path, token: str) -> None:
    db = tmp_path / "m.db"
    run = run_cli(db, ["serve", "--host", "0.0.0.0", "--port", "1"], env=cli_env(db, HLMEM_SERVER_TOKEN=token))
    assert run.code == 1, run
    assert "refusing to serve on 0.0.0.0" in run.err and "secrets.token_urlsafe(32)" in run.err, run.err
    assert token not in run.err and not db.exists()


@pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")
def test_sigterm_leaves_no_wal_behind(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "m.db"
    env = cli_env(db, HLMEM_EMBEDDER="hash", XDG_DATA_HOME=str(tmp_path / "data"))
    proc = subprocess.Popen([HLMEM, "serve", "--port", str(port)], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = wait_for_health(proc, port)
        batch = [{"text": f"note {n}: the weather in Hangzhou and a long line of text {n}", "session": f"s{n}"}
                 for n in range(200)]
        assert httpx.post(f"{base}/v1/events:batch", json={"events": batch}, timeout=120).status_code == 201
        assert Path(f"{db}-wal").stat().st_size > 0  # what SIGTERM used to leave behind
    finally:
        end_process(proc)  # SIGTERM, and a wait
    assert proc.returncode == -signal.SIGTERM  # uvicorn re-raises the signal once it has stopped
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    with Memory(db, embedder="hash", settings=Settings()) as mem:
        assert mem.stats()["observations"] == 200


def wait_for_health(proc: subprocess.Popen, port: int) -> str:
    """The base URL once ``/health`` answers (bounded by tries, not by a timed assertion)."""
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if proc.poll() is not None:
            raise AssertionError(f"hlmem serve exited {proc.returncode}: {proc.stderr.read().decode()}")
        try:
            if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                return base
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("hlmem serve never answered /health")
