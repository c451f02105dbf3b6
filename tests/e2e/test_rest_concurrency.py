"""Clients sending mixed requests at once to one real server: zero errors, zero lost writes (ADR 0036).

4 clients × 50 requests by default, 8 × 200 under the thorough profile (tests/support/profile.py)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")
import httpx  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from support.profile import sized  # noqa: E402
from support.rest_server import serving  # noqa: E402

CLIENTS, REQUESTS = sized(4, 8), sized(50, 200)


def _client_run(url: str, n: int) -> dict[str, list]:
    events, claims, errors = [], [], []
    with httpx.Client(base_url=url, timeout=60) as http:
        for i in range(REQUESTS):
            step = i % 5
            if step == 0:
                r = http.post("/v1/events", json={"text": f"client {n} note {i} about tea", "session": f"s{n}"})
                if r.status_code == 201:
                    events.append(r.json()["id"])
                    claims += [c["id"] for c in r.json()["claims"]]
            elif step == 1:
                r = http.post("/v1/memories", json={"subject": f"client{n}", "predicate": f"fact_{i}", "value": f"v{i}"})
                if r.status_code == 201:
                    claims.append(r.json()["id"])
            elif step == 2:
                r = http.post("/v1/recall", json={"query": f"client{n} fact", "k": 5})
            elif step == 3:
                r = http.get(f"/v1/memories/{claims[-1]}") if claims else http.get("/v1/stats")
            else:
                r = http.post("/v1/events:batch", json={"events": [
                    {"text": f"client {n} batch {i} a", "session": f"b{n}", "extract": False},
                    {"text": f"client {n} batch {i} b", "session": f"b{n}", "extract": False}]})
                if r.status_code == 201:
                    events += [e["id"] for e in r.json()["items"]]
            if r.status_code >= 300:
                errors.append((i, r.status_code, r.text[:200]))
    return {"events": events, "claims": claims, "errors": errors}


def test_clients_sending_mixed_requests_at_once_lose_nothing(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hash", settings=Settings()) as mem, serving(mem) as url:
        with ThreadPoolExecutor(CLIENTS) as pool:
            results = list(pool.map(lambda n: _client_run(url, n), range(CLIENTS)))
        assert [r["errors"] for r in results] == [[]] * CLIENTS
        events = [e for r in results for e in r["events"]]
        claims = [c for r in results for c in r["claims"]]
        assert len(events) == len(set(events)) == CLIENTS * (REQUESTS // 5) * 3
        assert mem.stats()["observations"] == len(events)
        assert set(mem.storage.get_observations(events)) == set(events)
        assert set(mem.storage.get_claims(claims)) == set(claims)
        remembered = mem.claims(limit=1000).items
        assert sum(1 for c in remembered if c.subject.startswith("client")) >= CLIENTS * (REQUESTS // 5)
        assert mem.replay().equal
