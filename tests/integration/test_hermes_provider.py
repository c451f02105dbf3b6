"""The Hermes provider end to end on a real SQLite store (hash embedder): lifecycle, prefetch, provenance, tools, shutdown."""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path

import pytest

from hlmem.adapters.hermes import HlmemMemoryProvider, install, session_kind
from hlmem.adapters.settings import Settings
from hlmem.domain.errors import ConfigurationError

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

THEME = "我现在主要用深色模式。"


def _threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "hlmem-hermes"]


@pytest.fixture
def make(tmp_path):
    made = []

    def build(agent_context="primary", platform="cli", session="s1", **config):
        p = HlmemMemoryProvider({"embedder": "hash", **config}, settings=Settings())
        p.initialize(session, hermes_home=str(tmp_path / "home"), platform=platform, agent_context=agent_context)
        made.append(p)
        return p

    yield build
    for p in made:
        p.shutdown()
    assert _threads() == []


def _theme_claims(p: HlmemMemoryProvider) -> list:
    return p._memory.history("用户", "preferred_ui_theme")


def test_full_lifecycle(make, tmp_path):
    p = make()
    assert p.is_available() and p.name == "hlmem"
    assert p.db_path == str(tmp_path / "home" / "hlmem" / "memory.db")
    assert "hlmem_recall" in p.system_prompt_block()
    p.sync_turn(THEME, "好的，记住了。")
    p.sync_turn("I moved to Seattle in May.", "Noted.", messages=[{"role": "user", "content": "x"}])
    p.sync_turn("", "only the assistant spoke")
    p.queue_prefetch("用户现在用什么主题？")
    p.flush()
    text = p.prefetch("用户现在用什么主题？")
    assert "深色模式" in text and text.startswith("## Relevant long-term memory (hlmem)")
    # the agent names an item of the context it read by its handle (ADR 0092): <tag>.<n>, the tag in line 2
    tag = re.search(r"named ([a-z]{7})\.n\)", text).group(1)
    first = json.loads(p.handle_tool_call("hlmem_explain", {"id": f"{tag}.1"}))
    assert first["kind"] in ("claim", "event") and "深色" in json.dumps(first, ensure_ascii=False)
    events = p._memory.recall("Seattle", kinds=("event",)).items
    said = {(i.text, i.role, i.session_id) for i in events}
    assert ("I moved to Seattle in May.", "user", "s1") in said and ("Noted.", "assistant", "s1") in said
    schemas = p.get_tool_schemas()
    assert {s["name"] for s in schemas} == {"hlmem_recall", "hlmem_remember", "hlmem_forget", "hlmem_explain",
                                            "hlmem_history", "hlmem_feedback"}
    assert all(s["parameters"]["type"] == "object" for s in schemas)
    made = json.loads(p.handle_tool_call("hlmem_remember", {"subject": "Alice", "predicate": "works_in",
                                                            "value": "Boston"}))
    assert made["id"].startswith("cl_")
    found = json.loads(p.handle_tool_call("hlmem_recall", {"query": "where does Alice work?", "k": 3}))
    assert found["items"][0]["value"] == "Boston"
    explained = json.loads(p.handle_tool_call("hlmem_explain", {"id": made["id"]}))
    assert explained["kind"] == "claim" and explained["claim"]["value"] == "Boston"
    hist = json.loads(p.handle_tool_call("hlmem_history", {"subject": "Alice", "predicate": "works_in"}))
    assert [c["value"] for c in hist["claims"]] == ["Boston"]
    assert json.loads(p.handle_tool_call("hlmem_feedback", {"id": made["id"], "verdict": "helpful"}))["id"]
    plan = json.loads(p.handle_tool_call("hlmem_forget", {"subject": "Alice", "dry_run": True}))
    assert plan["dry_run"] is True and sum(plan["counts"].values()) > 0
    json.loads(p.handle_tool_call("hlmem_forget", {"subject": "Alice"}))
    assert json.loads(p.handle_tool_call("hlmem_recall", {"query": "where does Alice work?"}))["items"] == [] or \
        all(i.get("value") != "Boston" for i in json.loads(
            p.handle_tool_call("hlmem_recall", {"query": "where does Alice work?"}))["items"])
    p.on_session_end([{"role": "user", "content": THEME}])
    assert p.background_errors == []
    p.shutdown()
    assert _threads() == [] and p._memory is None
    p.shutdown()  # idempotent
    again = make()  # the store persisted under hermes_home
    assert [c.value for c in _theme_claims(again)] == ["深色模式"]


def test_prefetch_runs_in_the_background_and_is_cached(make):
    p = make(prefetch_wait=0)
    p.sync_turn(THEME, "好的。")
    p.flush()
    query = "用户现在用什么主题？"
    with p._lock:  # the store is busy: the recall cannot finish, prefetch must not block on it
        p.queue_prefetch(query)
        assert p.prefetch(query) == ""
        assert not p._prefetch.ready(query, "s1")
    assert p._background.drain(30)
    assert p._prefetch.ready(query, "s1")
    with p._lock:  # cached: answered without touching the store, even while it is busy
        assert "深色模式" in p.prefetch(query)
    assert p.prefetch(query, session_id="other") == ""  # cached per session: another one starts its own
    assert p._background.drain(30) and "深色模式" in p.prefetch(query, session_id="other")


def test_a_write_drops_cached_prefetches(make):
    p = make(prefetch_wait=30)
    assert p.prefetch("Seattle") == ""
    p.sync_turn("I moved to Seattle in May.", "Noted.")
    assert p._background.drain(30)
    assert "Seattle" in p.prefetch("Seattle")


@pytest.mark.parametrize(("context", "platform", "kind"), [
    ("subagent", "cli", "subagent"), ("cron", "cron", "cron"), (None, "cron", "cron")])
def test_cron_and_subagent_turns_yield_no_claim_but_are_kept(make, context, platform, kind):
    p = make(agent_context=context, platform=platform)
    assert p.session_kind == kind
    p.sync_turn(THEME, "好的。")
    p.on_session_end([])
    assert _theme_claims(p) == []
    events = p._memory.recall("深色模式", kinds=("event",)).items
    assert THEME in {i.text for i in events}


def test_an_interactive_turn_yields_a_claim(make):
    p = make(agent_context="primary")
    p.sync_turn(THEME, "好的。")
    p.on_session_end([])
    assert [c.value for c in _theme_claims(p)] == ["深色模式"]


def test_session_kind_mapping():
    assert session_kind("primary") == "interactive" and session_kind(None, "telegram") == "interactive"
    assert session_kind("subagent") == "subagent" and session_kind("flush") == "heartbeat"
    assert session_kind("something-new") == "unknown"


def test_recall_can_keep_to_one_session(make):
    p = make(session="trip")
    p.sync_turn("我们订了去京都的机票", "好的")
    p.flush()
    p._memory.add("京都的酒店还没订", session="other", extract=False)
    both = json.loads(p.handle_tool_call("hlmem_recall", {"query": "京都", "k": 10}))["items"]
    assert {i["session"] for i in both if i["kind"] == "event"} >= {"trip", "other"}
    one = json.loads(p.handle_tool_call("hlmem_recall", {"query": "京都", "k": 10, "session": "trip"}))["items"]
    events = [i for i in one if i["kind"] == "event"]
    assert events and {i["session"] for i in events} == {"trip"}


def test_errors_come_back_as_tool_results(make):
    idle = HlmemMemoryProvider({"embedder": "hash"}, settings=Settings())
    assert "not initialized" in json.loads(idle.handle_tool_call("hlmem_recall", {"query": "x"}))["error"]
    p = make()
    cases = {
        ("nope", "{}"): "unknown tool 'nope'",
        ("hlmem_recall", "[]"): "arguments must be a JSON object",
        ("hlmem_recall", '{"query": "x", "k": 0}'): "'k' must be an integer from 1 to 50",
        ("hlmem_recall", '{"query": "x", "session": 7}'): "'session' is required and must be a non-empty string",
        ("hlmem_remember", '{"subject": "A", "predicate": "p"}'): "'value' is required",
        ("hlmem_remember", '{"subject": "A", "predicate": "p", "value": "v", "valid_from": "soon"}'): "valid_from",
        ("hlmem_explain", '{"id": "cl_missing"}'): "hlmem_explain:",
        ("hlmem_forget", '{"id": "a", "subject": "b"}'): "hlmem_forget:",
        ("hlmem_forget", '{"subject": "b", "dry_run": "yes"}'): "'dry_run' must be true or false",
        ("hlmem_feedback", '{"id": "cl_missing", "verdict": "great"}'): "hlmem_feedback:",
    }
    for (tool, args), message in cases.items():
        out = json.loads(p.handle_tool_call(tool, json.loads(args)))
        assert set(out) == {"error"} and message in out["error"], (tool, out)
    assert p._memory.stats()  # the store is untouched and usable


def test_memory_writes_and_delegations_are_recorded(make):
    p = make()
    p.on_memory_write("add", "user", "User prefers tea over coffee", {"session_id": "s1", "tool_name": "memory"})
    p.on_memory_write("remove", "memory", "old note about the build")
    p.on_delegation("find the build log", "the build log is in ci/out.txt", child_session_id="child-1")
    p.flush()
    items = {i.text: i for i in p._memory.recall("tea coffee build log", kinds=("event",), k=10).items}
    assert items["[hermes user add] User prefers tea over coffee"].role == "assistant"
    assert "[hermes memory remove] old note about the build" in items
    assert items["the build log is in ci/out.txt"].session_id == "child-1"
    assert p.on_pre_compress([{"role": "user", "content": "do I prefer tea over coffee?"}]).startswith("## Relevant")
    assert p.on_pre_compress([]) == ""


def test_session_switch_moves_later_turns(make):
    p = make()
    p.on_session_switch("s2", parent_session_id="s1", reset=True)
    p.sync_turn("I moved to Seattle in May.", "Noted.")
    p.flush()
    assert {i.session_id for i in p._memory.recall("Seattle", kinds=("event",)).items} == {"s2"}


def test_configuration_errors_are_clear(tmp_path):
    with pytest.raises(ConfigurationError, match=r"unknown hlmem Hermes provider option\(s\) \['dbb'\]"):
        HlmemMemoryProvider({"dbb": "x"})
    p = HlmemMemoryProvider({"embedder": "hash"}, settings=Settings())
    with pytest.raises(ConfigurationError, match="Hermes passed no hermes_home"):
        p.initialize("s1", platform="cli")
    assert _threads() == []
    q = HlmemMemoryProvider({"embedder": "hash", "db": str(tmp_path / "x.db")}, settings=Settings())
    assert q.backup_paths() == [str(tmp_path / "x.db")]
    with pytest.raises(RuntimeError, match="not initialized"):
        q.sync_turn("a", "b")


def test_install_writes_the_plugin_folder(tmp_path):
    folder = install(tmp_path)
    assert (folder / "__init__.py").read_text().count("register") >= 1 and (folder / "plugin.yaml").exists()
    assert install(tmp_path) == folder  # same content: fine
    (folder / "__init__.py").write_text("mine")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        install(tmp_path)


def test_shutdown_right_after_a_turn_keeps_the_turn(make):
    p = make()
    p.sync_turn(THEME, "好的。")
    p.shutdown()  # no flush first: the queued write must still land
    again = make()
    assert THEME in {i.text for i in again._memory.recall("深色模式", kinds=("event",)).items}


def test_content_parts_and_bad_content(make):
    p = make()
    p.sync_turn([{"type": "text", "text": "I moved to Seattle in May."}, {"type": "image_url", "image_url": {}}],
                None)
    p.flush()
    assert "I moved to Seattle in May." in {i.text for i in p._memory.recall("Seattle", kinds=("event",)).items}
    with pytest.raises(TypeError, match="must be a string or a list of content parts, got int"):
        p.sync_turn(3, "x")


def test_a_failed_background_write_is_reported_and_the_next_ones_still_run(make):
    p = make()
    p.sync_turn("My locker code is 4711.", "")
    p.flush()
    event = next(i for i in p._memory.recall("locker code", kinds=("event",)).items)
    assert "error" not in json.loads(p.handle_tool_call("hlmem_forget", {"id": event.id}))
    p.sync_turn("My locker code is 4711.", "")  # forgotten content: re-ingest is refused (ADR 0014)
    p.sync_turn("I moved to Seattle in May.", "")
    p.flush()
    assert len(p.background_errors) == 1 and "forgotten" in str(p.background_errors[0]).lower()
    assert "I moved to Seattle in May." in {i.text for i in p._memory.recall("Seattle", kinds=("event",)).items}


def test_the_cli_installs_the_plugin_folder(tmp_path):
    from support.cli import cli_env, run_cli

    home = tmp_path / "hermes-home"
    done = run_cli(tmp_path / "m.db", ["hermes", "install", "--json"], env=cli_env(tmp_path / "m.db",
                                                                                    HERMES_HOME=str(home)))
    assert done.code == 0, done.err
    assert done.json()["plugin"] == str(home / "plugins" / "hlmem")
    assert (home / "plugins" / "hlmem" / "__init__.py").read_text().startswith('"""hlmem as a Hermes')
    (home / "plugins" / "hlmem" / "__init__.py").write_text("someone else's")
    refused = run_cli(tmp_path / "m.db", ["hermes", "install", "--hermes-home", str(home)])
    assert refused.code == 1 and "overwrite" in refused.err
    assert (home / "plugins" / "hlmem" / "__init__.py").read_text() == "someone else's"
