"""``benchmarks/state_corpus.py --llm``: bundles go through the real pipeline with the LLM extractor.

The LLM is the scripted OpenAI-compatible server on 127.0.0.1 (``tests/support/llm_server.py``),
so everything runs offline. It answers each bundle's one extraction call with claims built from
that bundle's event text, the way a capable model would read these templates. The checks are that
the score follows what the model answered: a right answer scores 1.0, a misread rollback loses
exactly that slot and that edge, and an empty answer scores nothing. The calls and tokens reported
are the ledger's.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.llm_server import ScriptedLLMServer, completion  # noqa: E402

_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "state_corpus.py"
_spec = importlib.util.spec_from_file_location("state_corpus_benchmark", _SCRIPT)
state_corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(state_corpus)

DEV = Path("/work/shared/datasets/hl_mem")
MODEL = "scripted-extractor"

# Three dev bundles and their gold, verbatim from HL-Mem v0.30 (github.com/lohr13/hl_mem,
# evaluation/datasets, Apache-2.0): a rollback (v1.0 → v1.1 → v1.0), a compound claim (two
# slots per event) and a counterexample (two instances: no supersede allowed).
CORPUS = [
    '{"bundle_id":"dev-version-002","category":"software_version","events":[{"content":{"text":"component-01 当前版本是 v1.0"},"event_id":"dev-version-002:e0","event_index":0,"occurred_at":"2026-06-01T00:00:00Z","role":"user"},{"content":{"text":"component-01 已升级，当前版本是 v1.1"},"event_id":"dev-version-002:e1","event_index":1,"occurred_at":"2026-06-02T00:00:00Z","role":"user"},{"content":{"text":"component-01 已回滚，当前版本是 v1.0"},"event_id":"dev-version-002:e2","event_index":2,"occurred_at":"2026-06-03T00:00:00Z","role":"user"}],"provenance":{"generator":"adversarial_templates_v1","seed_id":"synthetic-001","source_kind":"synthetic_adversarial"},"schema_version":1,"source_kind":"synthetic_adversarial","split":"dev","subtype":"rollback"}',  # noqa: E501
    '{"bundle_id":"dev-compound-002","category":"compound_claim","events":[{"content":{"text":"compound-01 的 blue 部署 当前 ready；API 连接 当前 reachable"},"event_id":"dev-compound-002:e0","event_index":0,"occurred_at":"2026-06-01T00:00:00Z","role":"user"},{"content":{"text":"compound-01 的 blue 部署 当前 failed；API 连接 当前 unreachable"},"event_id":"dev-compound-002:e1","event_index":1,"occurred_at":"2026-06-02T00:00:00Z","role":"user"}],"provenance":{"generator":"adversarial_templates_v1","seed_id":"synthetic-141","source_kind":"synthetic_adversarial"},"schema_version":1,"source_kind":"synthetic_adversarial","split":"dev","subtype":"deployment_connectivity"}',  # noqa: E501
    '{"bundle_id":"dev-counter-014","category":"counterexample","events":[{"content":{"text":"counter-17 实例 node-a 当前版本是 v2.0"},"event_id":"dev-counter-014:e0","event_index":0,"occurred_at":"2026-06-01T00:00:00Z","role":"user"},{"content":{"text":"counter-17 实例 node-b 当前版本是 v1.9"},"event_id":"dev-counter-014:e1","event_index":1,"occurred_at":"2026-06-02T00:00:00Z","role":"user"}],"provenance":{"generator":"adversarial_templates_v1","seed_id":"synthetic-209","source_kind":"synthetic_adversarial"},"schema_version":1,"source_kind":"synthetic_adversarial","split":"dev","subtype":"multi_instance"}',  # noqa: E501
]
GOLD = [
    '{"atomic_claims":[{"assertion_id":"dev-version-002:c0:a0","atomic_index":0,"atomicity":"atomic","coordinate":{"canonical_slot":"config.version","canonical_subject":"component-01","coordinate_qualifiers":{},"namespace":"default"},"source_claim_index":0,"source_event_indices":[0],"state_value":"v1.0"},{"assertion_id":"dev-version-002:c1:a0","atomic_index":0,"atomicity":"atomic","coordinate":{"canonical_slot":"config.version","canonical_subject":"component-01","coordinate_qualifiers":{},"namespace":"default"},"source_claim_index":1,"source_event_indices":[1],"state_value":"v1.1"},{"assertion_id":"dev-version-002:c2:a0","atomic_index":0,"atomicity":"atomic","coordinate":{"canonical_slot":"config.version","canonical_subject":"component-01","coordinate_qualifiers":{},"namespace":"default"},"source_claim_index":2,"source_event_indices":[2],"state_value":"v1.0"}],"bundle_id":"dev-version-002","category":"software_version","counterexample_zero_supersede":false,"current_assertion_ids":["dev-version-002:c2:a0"],"expected_supersede_edges":[["dev-version-002:c0:a0","dev-version-002:c1:a0"],["dev-version-002:c1:a0","dev-version-002:c2:a0"]],"historical_assertion_ids":["dev-version-002:c0:a0","dev-version-002:c1:a0"],"schema_version":1,"split":"dev"}',  # noqa: E501
    '{"atomic_claims":[{"assertion_id":"dev-compound-002:c0:a0","atomic_index":0,"atomicity":"atomic","coordinate":{"canonical_slot":"state.deployment","canonical_subject":"compound-01","coordinate_qualifiers":{"deployment":"blue"},"namespace":"default"},"source_claim_index":0,"source_event_indices":[0],"state_value":"ready"},{"assertion_id":"dev-compound-002:c0:a1","atomic_index":1,"atomicity":"atomic","coordinate":{"canonical_slot":"state.connectivity","canonical_subject":"compound-01","coordinate_qualifiers":{"service":"api"},"namespace":"default"},"source_claim_index":0,"source_event_indices":[0],"state_value":"reachable"},{"assertion_id":"dev-compound-002:c1:a0","atomic_index":0,"atomicity":"atomic","coordinate":{"canonical_slot":"state.deployment","canonical_subject":"compound-01","coordinate_qualifiers":{"deployment":"blue"},"namespace":"default"},"source_claim_index":1,"source_event_indices":[1],"state_value":"failed"},{"assertion_id":"dev-compound-002:c1:a1","atomic_index":1,"atomicity":"atomic","coordinate":{"canonical_slot":"state.connectivity","canonical_subject":"compound-01","coordinate_qualifiers":{"service":"api"},"namespace":"default"},"source_claim_index":1,"source_event_indices":[1],"state_value":"unreachable"}],"bundle_id":"dev-compound-002","category":"compound_claim","counterexample_zero_supersede":false,"current_assertion_ids":["dev-compound-002:c1:a0","dev-compound-002:c1:a1"],"expected_supersede_edges":[["dev-compound-002:c0:a0","dev-compound-002:c1:a0"],["dev-compound-002:c0:a1","dev-compound-002:c1:a1"]],"historical_assertion_ids":["dev-compound-002:c0:a0","dev-compound-002:c0:a1"],"schema_version":1,"split":"dev"}',  # noqa: E501
    '{"atomic_claims":[{"assertion_id":"dev-counter-014:c0:a0","atomic_index":0,"atomicity":"atomic","coordinate":{"canonical_slot":"config.version","canonical_subject":"counter-17","coordinate_qualifiers":{"instance":"node-a"},"namespace":"default"},"source_claim_index":0,"source_event_indices":[0],"state_value":"counter-multi_instance-0"},{"assertion_id":"dev-counter-014:c1:a0","atomic_index":0,"atomicity":"atomic","coordinate":{"canonical_slot":"config.version","canonical_subject":"counter-17","coordinate_qualifiers":{"instance":"node-b"},"namespace":"default"},"source_claim_index":1,"source_event_indices":[1],"state_value":"counter-multi_instance-1"}],"bundle_id":"dev-counter-014","category":"counterexample","counterexample_zero_supersede":true,"current_assertion_ids":["dev-counter-014:c0:a0","dev-counter-014:c1:a0"],"expected_supersede_edges":[],"historical_assertion_ids":[],"schema_version":1,"split":"dev"}',  # noqa: E501
]
BUNDLES = [json.loads(line) for line in CORPUS]

_VERSION = re.compile(r"(?:实例 (?P<instance>\S+) )?当前版本是 (?P<value>v[\d.]+)")
_STATE = re.compile(r"(?P<name>\S+) (?P<kind>部署|连接) 当前 (?P<value>\w+)")
_KIND = {"部署": "deployment", "连接": "connection"}


def claim(number: int, subject: str, predicate: str, value: str, quote: str,
          qualifiers: dict[str, str]) -> dict[str, Any]:
    return {"event": number, "subject": subject, "predicate": predicate, "value": value,
            "qualifiers": [{"key": k, "value": v} for k, v in qualifiers.items()], "polarity": True,
            "importance": 0.8, "scope": "permanent", "valid_from": None, "valid_to": None, "evidence_quote": quote}


def read_event(number: int, text: str) -> list[dict[str, Any]]:
    """What a model extracts from one event of these templates: each clause's state, quoted as is."""
    subject = text.split()[0]
    out = []
    for clause in text.split("；"):
        if found := _VERSION.search(clause):
            where = {"instance": found["instance"]} if found["instance"] else {}
            out.append(claim(number, subject, "version", found["value"], clause, where))
        elif found := _STATE.search(clause):
            out.append(claim(number, subject, "status", found["value"], clause, {_KIND[found["kind"]]: found["name"]}))
    return out


def answer(bundle: dict[str, Any], misread: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The claims for one bundle's window (events numbered from 1). ``misread`` maps
    ``"<bundle id>:<event number>"`` to fields that replace what the model says about that event."""
    claims = [c for n, e in enumerate(bundle["events"], start=1) for c in read_event(n, e["content"]["text"])]
    return [c | (misread or {}).get(f"{bundle['bundle_id']}:{c['event']}", {}) for c in claims]


def prompt_events(request: Any) -> list[dict[str, Any]]:
    user = request.json()["messages"][1]["content"]
    return json.loads(user.split("\n", 1)[1])["events"]


@pytest.fixture
def corpus_files(tmp_path: Path) -> tuple[Path, Path]:
    corpus, gold = tmp_path / "corpus.jsonl", tmp_path / "gold.jsonl"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    gold.write_text("\n".join(GOLD) + "\n", encoding="utf-8")
    return corpus, gold


@pytest.fixture(autouse=True)
def no_llm_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HLMEM_LLM", "HLMEM_LLM_MODEL", "HLMEM_LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def run_with(server: ScriptedLLMServer, corpus_files: tuple[Path, Path], *replies: list[dict[str, Any]]):
    """Script one reply per bundle (usage: 100 prompt tokens per event, 7 per claim), run the script."""
    for bundle, claims in zip(BUNDLES, replies):
        server.script(completion({"claims": claims}, prompt_tokens=100 * len(bundle["events"]),
                                 completion_tokens=7 * len(claims)))
    corpus, gold = corpus_files
    summary = state_corpus.main(["--corpus", str(corpus), "--gold", str(gold), "--llm", "local",
                                 "--llm-base-url", server.base_url, "--llm-model", MODEL])
    assert server.unscripted == 0 and server.pending == 0
    # One window per bundle, in corpus order, carrying that bundle's events verbatim.
    assert [[e["text"] for e in prompt_events(r)] for r in server.requests] == [
        [e["content"]["text"] for e in b["events"]] for b in BUNDLES]
    return summary


def test_a_right_answer_scores_every_slot_and_edge_and_reports_the_ledger(corpus_files, capsys) -> None:
    replies = [answer(b) for b in BUNDLES]
    with ScriptedLLMServer() as server:
        summary = run_with(server, corpus_files, *replies)
    assert (summary["extractor"], summary["model"], summary["path"]) == (f"llm:local:{MODEL}", MODEL, "pipeline")
    assert (summary["bundles"], summary["events"], summary["claims"], summary["refused"]) == (3, 7, 9, 0)
    assert (summary["slots"], summary["current_state_accuracy"]) == (5, 1.0)
    assert (summary["gold_edges"], summary["our_edges"], summary["tp_edges"]) == (4, 4, 4)
    assert (summary["edge_precision"], summary["edge_recall"], summary["false_supersedes"]) == (1.0, 1.0, 0)
    assert (summary["windows"], summary["jobs_failed"], summary["blocked"], summary["conflicts"]) == (3, 0, 0, 0)
    assert (summary["llm_calls"], summary["llm_attempts"], summary["llm_attempts_failed"]) == (3, 3, 0)
    assert (summary["prompt_tokens"], summary["completion_tokens"]) == (700, 63)  # 100 × 7 events, 7 × 9 claims
    assert summary["per_category"]["compound_claim"]["prompt_tokens"] == 200
    assert "rule_events_per_s" not in summary  # the rule extractor did not run
    out = capsys.readouterr().out
    assert f"extractor=llm:local:{MODEL} model={MODEL} path=pipeline" in out
    assert "llm_att" in out and "3 calls (3 attempts, 0 failed), 700 prompt + 63 completion tokens" in out


@pytest.mark.parametrize(("misread", "refused"), [
    # The model takes the rollback (event 3) for a status change, quoting it correctly.
    ({"predicate": "status", "value": "已回滚", "evidence_quote": "已回滚"}, 0),
    # The model keeps v1.1 for event 3, whose text says v1.0: admission refuses the claim.
    ({"value": "v1.1"}, 1),
], ids=["read-as-status", "wrong-version-refused"])
def test_a_misread_rollback_loses_that_slot_and_that_edge(corpus_files, misread: dict[str, Any],
                                                           refused: int) -> None:
    replies = [answer(b, misread={"dev-version-002:3": misread}) for b in BUNDLES]
    with ScriptedLLMServer() as server:
        summary = run_with(server, corpus_files, *replies)
    assert summary["refused"] == refused
    assert (summary["slots"], summary["current_state_accuracy"]) == (5, 0.8)  # v1.1 stays current
    assert (summary["gold_edges"], summary["our_edges"], summary["tp_edges"]) == (4, 3, 3)
    assert summary["per_category"]["software_version"]["current_state_accuracy"] == 0.0
    assert summary["per_category"]["compound_claim"]["current_state_accuracy"] == 1.0


def test_an_empty_answer_scores_nothing(corpus_files) -> None:
    with ScriptedLLMServer() as server:
        summary = run_with(server, corpus_files, [], [], [])
    assert (summary["claims"], summary["current_state_accuracy"], summary["our_edges"]) == (0, 0.0, 0)
    assert summary["edge_recall"] == 0.0 and summary["completion_tokens"] == 0


def test_a_missing_key_stops_before_any_bundle(corpus_files, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZHIPUAI_API_KEY", raising=False)
    corpus, gold = corpus_files
    with pytest.raises(SystemExit, match="ZHIPUAI_API_KEY"):
        state_corpus.main(["--corpus", str(corpus), "--gold", str(gold), "--llm", "zhipu"])


@pytest.mark.skipif(not DEV.is_dir(), reason="the HL-Mem datasets are not on this machine")
def test_the_bundles_here_are_the_dev_corpus_records() -> None:
    wanted = {b["bundle_id"] for b in BUNDLES}
    for name, ours in (("v0300_state_dev_corpus.jsonl", CORPUS), ("v0300_state_dev_gold.jsonl", GOLD)):
        records = {r["bundle_id"]: r for r in map(json.loads, (DEV / name).read_text(encoding="utf-8").splitlines())
                   if r["bundle_id"] in wanted}
        assert [records[json.loads(line)["bundle_id"]] for line in ours] == [json.loads(line) for line in ours]
