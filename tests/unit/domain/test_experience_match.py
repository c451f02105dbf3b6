"""Matching how-to tasks to stored situations (ADR 0067): the domain's contrasts and the
application's matcher with the hashing embedder and with none."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.application.experience_match import LEXICAL_FLOOR, SituationMatcher
from hlmem.domain.experience_match import actions, contrasts, decide, main_action, members


@pytest.mark.parametrize(("situation", "task"), [
    ("Deploy the docs site to production", "Delete the docs site from production"),
    ("Add an index to the orders table", "Drop the unused index on the orders table"),
    ("导出 MySQL 数据到 CSV", "把 CSV 文件导入 MySQL"),
    ("Book a meeting room for Thursday", "Cancel the meeting room booking for Thursday"),
    ("Install Docker on Ubuntu 22.04", "Install Docker on macOS"),
    ("请三天年假", "请三天病假"),
    ("Set up log rotation for nginx", "Set up log shipping from nginx to Elasticsearch"),
])
def test_a_different_task_contrasts(situation: str, task: str) -> None:
    assert contrasts(situation, task)


@pytest.mark.parametrize(("situation", "task"), [
    ("Deploy the docs site to production", "push the documentation website live"),
    ("Upgrade PostgreSQL from 13 to 15", "move our Postgres cluster up to version 15 from 13"),
    ("清理 Docker 无用镜像", "docker 里没用的 image 怎么删干净"),
    ("Set up log rotation for nginx", "configure logrotate for the nginx access and error logs"),
    ("Install Docker on Ubuntu 22.04", "get docker running on ubuntu jammy"),
    ("Calibrate the zebraquartz sensor", "something nobody wrote a word list for"),  # unknown words never contrast
])
def test_a_paraphrase_does_not(situation: str, task: str) -> None:
    assert contrasts(situation, task) == []


def test_the_main_action_skips_a_light_verb() -> None:
    assert main_action("Set up log rotation for nginx") == "rotate"
    assert main_action("Set up a Python virtual environment") == "create"
    assert actions("部署文档站") == frozenset({"deploy"}) and members("Install on Ubuntu") == {"platform": frozenset({3})}
    assert decide(0.9, "deploy the site", "delete the site", 0.8)[0] is False
    assert decide(0.79, "deploy the site", "ship the site", 0.8)[0] is False
    assert decide(0.81, "deploy the site", "ship the site", 0.8) == (True, [])


def test_the_matcher_with_the_hash_embedder_and_without_one() -> None:
    hashed = SituationMatcher(HashEmbedder())
    same, other = hashed.match("deploy the billing service", ["deploy the billing service", "delete the billing service"])
    assert same.matched and same.similarity > 0.99 and not other.matched and other.contrasts
    assert hashed.match("deploy the billing service from <path>", ["deploy the billing service from <path>"])[0].matched
    lexical = SituationMatcher(None)
    assert lexical.floor == LEXICAL_FLOOR
    assert [m.matched for m in lexical.match("deploy billing service", ["deploy the billing service", "lint docs"])] == [
        True, False]
    assert hashed.similarities("x", []) == []


def test_the_matching_benchmark_scores_a_set(tmp_path: Path, capsys) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
    import experience_matching

    pairs = [{"id": "a", "lang": "en", "goal": "Deploy the docs site", "query": "how do I deploy the docs site?",
              "same": True}, {"id": "b", "lang": "en", "goal": "Deploy the docs site",
                              "query": "Delete the docs site", "same": False}]
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in pairs), encoding="utf-8")
    assert experience_matching.main([str(path), "--embedders", "hash,none", "--quiet"]) == 0
    out = capsys.readouterr().out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["pairs"] == 2 and summary["results"][0]["all"]["paraphrases_matched"] == 1.0
    assert summary["results"][0]["all"]["near_misses_matched"] == 0.0 and "Delete the docs" not in out
