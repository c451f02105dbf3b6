"""/docs without the Swagger UI package: a page that says what to install, never a CDN (docs/rest.md)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="needs the extra: pip install 'hlmem[server]'")
from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from hlmem.adapters.server import api_docs  # noqa: E402


def test_without_the_bundle_docs_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api_docs, "bundled_swagger_ui", lambda: None)
    app = FastAPI(docs_url=None, redoc_url=None)
    api_docs.mount_api_docs(app)
    answer = TestClient(app).get("/docs")
    assert answer.status_code == 200
    assert "swagger-ui-bundle-v2" in answer.text and "/openapi.json" in answer.text
    assert "cdn" not in answer.text.lower()


def test_a_folder_missing_a_file_counts_as_no_bundle(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    (tmp_path / "swagger-ui-bundle.js").write_text("x")
    fake = types.ModuleType("swagger_ui_bundle")
    fake.swagger_ui_path = tmp_path  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "swagger_ui_bundle", fake)
    assert api_docs.bundled_swagger_ui() is None
