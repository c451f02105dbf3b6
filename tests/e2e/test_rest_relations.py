"""The relation routes through httpx against a real uvicorn on 127.0.0.1 (docs/rest.md, docs/relations.md):
the queue listed and paged, an edge shown, accepted and rejected, a scan; bad input refused with a
clear 4xx that writes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")
import httpx  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from support.rest_server import serving  # noqa: E402


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[httpx.Client]:
    path = tmp_path_factory.mktemp("rest-relations") / "m.db"
    with Memory(path, embedder="none", settings=Settings()) as mem:  # relations off: the scan proposes
        mem.add("My coworker Tom works at Acme.")
        mem.add("我表哥张伟住在杭州。")
        with serving(mem) as url, httpx.Client(base_url=url, timeout=30) as http:
            yield http


def _ok(response: httpx.Response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    return error["message"]


def test_scan_list_show_accept_reject(client: httpx.Client) -> None:
    assert _ok(client.get("/v1/relations"))["items"] == []
    scanned = _ok(client.post("/v1/relations/scan", json={}))
    assert len(scanned["proposed"]) == 5 and scanned["claims"] >= 5
    assert _ok(client.post("/v1/relations/scan", json={}))["proposed"] == []
    queue = _ok(client.get("/v1/relations"))["items"]
    edges = {f"{r['source']['name']}>{r['relation']}>{r['target']['name']}": r["id"] for r in queue}
    # The extractor also read "张伟住" as a name: a wrong edge, which is what the review is for.
    assert set(edges) == {"user>colleague>Tom", "Tom>works_at>Acme", "user>cousin>张伟", "user>cousin>张伟住",
                          "张伟>lives_in>杭州"}
    first = _ok(client.get("/v1/relations", params={"limit": 1}))
    assert len(first["items"]) == 1 and first["next_cursor"] == first["items"][0]["id"]
    rest = _ok(client.get("/v1/relations", params={"after": first["next_cursor"]}))
    assert len(rest["items"]) == 4 and rest["next_cursor"] is None
    shown = _ok(client.get(f"/v1/relations/{edges['Tom>works_at>Acme']}"))
    assert shown["live"] and [e["status"] for e in shown["evidence_items"]] == ["active", "recorded"]
    accepted = _ok(client.post(f"/v1/relations/{edges['Tom>works_at>Acme']}/accept", json={"reason": "yes"}))
    assert (accepted["status"], accepted["reviewed_by"], accepted["review_reason"]) == ("accepted", "api", "yes")
    rejected = _ok(client.post(f"/v1/relations/{edges['user>cousin>张伟住']}/reject", json={"actor": "ana"}))
    assert (rejected["status"], rejected["reviewed_by"]) == ("rejected", "ana")
    about = _ok(client.get("/v1/relations", params={"status": "all", "entity": "Tom"}))["items"]
    assert sorted(r["status"] for r in about) == ["accepted", "proposed"]
    assert len(_ok(client.get("/v1/relations"))["items"]) == 3


def test_bad_input_is_a_clear_4xx(client: httpx.Client) -> None:
    _error(client.get("/v1/relations/rl_nothing"), 404, "not_found")
    assert "rl_" in _error(client.get("/v1/relations/cl_1"), 400, "validation_error")
    _error(client.post("/v1/relations/rl_nothing/accept", json={}), 404, "not_found")
    assert client.get("/v1/relations", params={"status": "maybe"}).status_code == 422
    assert client.post("/v1/relations/rl_x/accept", json={"unknown": 1}).status_code == 422
    assert client.get("/v1/relations", params={"limit": 0}).status_code == 422
