"""Property-based fuzz of the REST API from its own OpenAPI schema (schemathesis): never a 5xx.

Every operation gets generated bodies, paths and parameters, sent to a real uvicorn on 127.0.0.1
over a store with a few memories; ``/v1/backup`` writes only into the server's backup directory
(a temporary one here), whatever name is generated. A 4xx must be the JSON error body; nothing
the client sends may cause a 5xx.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")
schemathesis = pytest.importorskip("schemathesis", reason="the fuzz needs schemathesis (the test extra)")
from hypothesis import HealthCheck, settings  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.server.app import create_app  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.adapters.settings_sections import ServerSettings  # noqa: E402
from support.rest_server import serving  # noqa: E402

SCHEMA = schemathesis.openapi.from_dict(create_app(None).state_app.openapi())


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("fuzz")
    with Memory(folder / "m.db", embedder="hash", settings=Settings()) as mem:
        mem.remember("user", "city", "Paris")
        mem.add("I live in Hangzhou", session="chat")
        mem.add("I live in Beijing", session="notes", origin="agent")  # an open conflict
        with serving(mem, settings=ServerSettings(backup_dir=str(folder / "backups"))) as url:
            yield url
        written = [p for p in folder.rglob("*") if p.is_file()]
        assert all(p.parent == folder or p.parent == folder / "backups" for p in written), written


@SCHEMA.parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_makes_the_server_fail(case, base_url: str) -> None:
    response = case.call(base_url=base_url, timeout=60)
    assert response.status_code < 500, (case.method, case.formatted_path, response.text[:500])
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["code"] and error["message"], response.text
