"""``hlmem maintain`` and ``hlmem revive`` through the console script's entry function
(tests/support/cli.py), at fixed instants.

Set-up that is not under test is written through ``Memory`` (a store with a plan, a temporary
fact, a name and a low-importance claim).
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, run_cli  # noqa: E402

from hlmem import Memory  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")

T0 = datetime(2026, 3, 2, 1, 0, tzinfo=timezone.utc)


def iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    db = tmp_path / "m.db"
    with Memory(db, embedder="none", now=T0) as mem:
        ids = {
            "plan": mem.storage.claims_citing(mem.add("明天下午三点开会").id)[0],
            "temp": mem.storage.claims_citing(mem.add("我暂时用浅色主题").id)[0],
            "name": mem.storage.claims_citing(mem.add("My name is Alice Chen").id)[0],
            "snack": mem.remember("user", "favorite_snack", "pretzels", importance=0.2).id,
        }
    return db, ids


def test_maintain_dry_run_then_once_then_revive(store: tuple[Path, dict[str, str]]) -> None:
    db, ids = store
    at = iso(T0 + timedelta(days=120))

    dry = run_cli(db, ["--embedder", "none", "maintain", "--dry-run", "--now", at, "--json"]).json()
    assert (dry["expired"], dry["archived"], dry["dry_run"]) == (2, 3, True)
    assert dry["reasons"] == {"ttl.plan_passed": 1, "ttl.temporal_ttl": 1, "decay.below_floor": 3}

    bounded = run_cli(db, ["--embedder", "none", "maintain", "--once", "--now", at, "--max-rows", "3", "--json"])
    first = bounded.json()
    assert (first["expired"], first["archived"], first["examined"], first["complete"]) == (2, 1, 3, False)

    done = run_cli(db, ["--embedder", "none", "--now", at, "maintain"])  # repeats passes until complete
    assert done.code == 0, done
    assert "changed: expired 0, archived 2 (decay.below_floor 2), pruned 3 jobs" in done.out
    assert done.out.rstrip().endswith("complete")

    hist = run_cli(db, ["--embedder", "none", "history", "--subject", "user", "--predicate", "favorite_snack",
                        "--json"]).json()
    assert [(i["id"], i["status"], i["archived"]) for i in hist["items"]] == [(ids["snack"], "active", True)]
    explained = run_cli(db, ["--embedder", "none", "explain", ids["plan"], "--json"]).json()
    assert (explained["claim"]["status"], explained["claim"]["archived"]) == ("expired", True)

    wide = run_cli(db, ["--embedder", "none", "--now", at, "recall", "favorite snack pretzels", "--kind", "claim",
                        "--include-archived", "--json"]).json()
    assert [(i["id"], i["archived"]) for i in wide["items"]] == [(ids["snack"], True)]

    revived = run_cli(db, ["--embedder", "none", "--now", at, "revive", ids["snack"], "--reason", "asked"])
    assert revived.code == 0 and f"revived {ids['snack']}" in revived.out
    again = run_cli(db, ["--embedder", "none", "--now", at, "revive", ids["snack"]])
    assert again.code == 1 and "not archived" in again.err and "Traceback" not in again.err
    with Memory(db, embedder="none", now=at) as mem:
        assert [i.id for i in mem.recall("favorite snack pretzels", kinds=("claim",)).items] == [ids["snack"]]
        assert not mem.explain(ids["name"]).claim.archived  # identity never decays


def test_maintain_refuses_bad_options_in_one_line(store: tuple[Path, dict[str, str]]) -> None:
    db, _ = store
    bad = run_cli(db, ["maintain", "--once", "--max-rows", "0"])
    assert bad.code == 2 and "--max-rows" in bad.err
    missing = run_cli(db, ["--embedder", "none", "revive", "cl_nope"])
    assert missing.code == 1 and "cl_nope" in missing.err and "Traceback" not in missing.err
