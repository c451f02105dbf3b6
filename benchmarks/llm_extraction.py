"""LLM extraction against a real local model, beside the rules (issue 34, item 4).

The model is served by llama-cpp-python on 127.0.0.1 from a package (``pip install
'hlmem[llm-local]'``; ``hlmem.adapters.llm.llamacpp``), or any OpenAI-compatible server given
with ``--base-url``. hlmem's ``local`` provider calls it exactly as the product does
(``OpenAICompatLLM``, the extraction prompt, the strict parser; ``max_retries`` adapter retries).
Two sets:

- **statements** (``benchmarks/extraction/dev.jsonl`` format): each fact or non-fact item is one
  extraction call; scored as ``benchmarks/extraction.py`` scores the rules (a fact passes when
  every expected claim is among the candidates and nothing forbidden is; a non-fact when it
  yields none), on the candidates admission lets through (``admit_candidate``: what would land).
  A sequence goes through ``Memory(llm=…)``, a day between statements, as the rules' do.
- **current truth** (``benchmarks/current_truth/dev.jsonl``; its format in that folder): each
  sequence's turns through ``Memory(llm=…)`` at their times, a day per session, then its questions
  (current, before, as of a middle day as text and with ``valid_at``). An answer is the first
  recalled item that mentions a value (NFKC, case-folded, ASCII words whole), as
  ``benchmarks/current_truth.py`` reads it; the rules answer the same sequences beside it, with the
  same embedder and scorer.

Robustness is the point, not quality: every call's outcome is counted (ok, malformed, translated,
timeout, rejected …), with adapter retries, job attempts, latency per call and the tokens the
server reported. Prints tables and one JSON line.

    python benchmarks/llm_extraction.py --limit 60 --ct-limit 12
    python benchmarks/llm_extraction.py --model gemma3-270m --response-format json_object
    python benchmarks/llm_extraction.py --base-url http://127.0.0.1:8080/v1 --model-name qwen2.5-0.5b
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import unicodedata
import statistics
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, time as clock_time, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import extraction as rules_bench  # noqa: E402
from _common import machine_facts  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.llm.ledger import InMemoryLedger  # noqa: E402
from hlmem.adapters.llm.llamacpp import DEFAULT_MODEL, PACKAGED_MODELS, LlamaCppServer  # noqa: E402
from hlmem.adapters.llm.openai_compat import OpenAICompatLLM  # noqa: E402
from hlmem.adapters.llm.presets import LLMConfig  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.application.extraction.extractors import LLMExtractor  # noqa: E402
from hlmem.domain.admission import admit_candidate  # noqa: E402
from hlmem.domain.candidates import Verdict  # noqa: E402
from hlmem.domain.errors import ProviderError  # noqa: E402
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY  # noqa: E402

STATEMENTS = HERE / "extraction" / "dev.jsonl"
CURRENT_TRUTH = HERE / "current_truth" / "dev.jsonl"


def outcome(exc: BaseException | None) -> str:
    """The class of a call's outcome: ``ok``, ``translated`` (a value in another language), or the error's class."""
    if exc is None:
        return "ok"
    if "not in the language of event" in str(exc):
        return "translated"
    if "cut off at the token limit" in str(exc):
        return "truncated"
    return type(exc).__name__


class Run:
    """One model's settings and what its calls did."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = dict(settings)
        self.ledger = InMemoryLedger()
        self.llm = OpenAICompatLLM(LLMConfig.from_mapping(settings), ledger=self.ledger)
        self.extractor = LLMExtractor(self.llm, DEFAULT_REGISTRY)
        self.outcomes: Counter[str] = Counter()

    def extract(self, item: Mapping[str, Any]) -> tuple[list[Any], str]:
        event = rules_bench.source(item["text"])
        try:
            cands = self.extractor.extract([event])
        except ProviderError as exc:
            self.outcomes[outcome(exc)] += 1
            return [], outcome(exc)
        self.outcomes["ok"] += 1
        return [c for c in cands if admit_candidate(c, {event.event_id: event}).verdict is Verdict.ACCEPT], "ok"

    def memory(self, *, now: datetime, embedder: str = "none") -> Memory:
        return Memory(":memory:", embedder=embedder, now=now, llm=self.settings, settings=Settings())


def statements(run: Run, items: Sequence[Mapping[str, Any]], *, verbose: bool) -> dict[str, Any]:
    totals = {k: [0, 0, 0] for k in ("fact", "nonfact", "sequence")}  # llm pass, rules pass, n
    jobs: Counter[str] = Counter()
    for n, item in enumerate(items, 1):
        kind = item["kind"]
        if kind == "sequence":
            ok, got = sequence(run, item, jobs)
            rules_ok = rules_bench.score_sequence(item)[0]
        else:
            cands, _ = run.extract(item)
            if kind == "nonfact":
                ok = not cands
            else:
                ok = all(any(rules_bench.matches(e, c.subject, c.predicate, c.value, c.polarity) for c in cands)
                         for e in item["expect"]) and not rules_bench.forbidden_hits(item, cands)
            got = [f"{c.subject}·{c.predicate}·{c.value}" for c in cands]
            rules_ok = rules_bench.score_item(item)[0]
        totals[kind][0] += ok
        totals[kind][1] += rules_ok
        totals[kind][2] += 1
        if verbose:
            print(f"  {n:>3} {item['id']:<10} llm {'ok ' if ok else 'no '} rules {'ok ' if rules_ok else 'no '} {got}",
                  flush=True)
    return {kind: {"llm": v[0], "rules": v[1], "n": v[2]} for kind, v in totals.items() if v[2]} | \
        {"sequence_jobs": dict(jobs)}


def sequence(run: Run, item: Mapping[str, Any], jobs: Counter[str]) -> tuple[bool, list[str]]:
    """A statement sequence through the pipeline with the LLM, one day apart (as the rules' benchmark)."""
    with run.memory(now=rules_bench.T0) as mem:
        for i, text in enumerate(item["texts"]):
            at = rules_bench.T0 + timedelta(days=i)
            mem.clock.set(at)  # type: ignore[attr-defined]
            mem.add(text, session="s", occurred_at=at)
        for job in mem.jobs.jobs(limit=1000):
            jobs[f"{job.state}:{job.last_error_class or '-'}"] += 1
        claims = list(rules_bench._all_claims(mem))
    live = [c for c in claims if c.status.value == "active" and c.polarity]
    ok = all(any(rules_bench.matches(e, c.subject, c.predicate, c.value, True) for c in live)
             for e in item.get("current", ()))
    for e in item.get("absent", ()):
        ok = ok and any(rules_bench.matches(e, c.subject, c.predicate, c.value, True) for c in claims) and not any(
            rules_bench.matches(e, c.subject, c.predicate, c.value, True) for c in live)
    return ok, [f"{c.subject}·{c.predicate}·{c.value}" for c in live]


def mentioned(text: str, values: Sequence[Mapping[str, Any]]) -> set[str]:
    """The keys of the values whose mentions ``text`` holds (NFKC, case-folded; ASCII words whole)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    hits = set()
    for v in values:
        for m in v["mentions"]:
            word = unicodedata.normalize("NFKC", m).casefold()
            if word.isascii() and re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", folded):
                hits.add(v["key"])
            elif not word.isascii() and word in folded:
                hits.add(v["key"])
    return hits


def first_answer(items: Sequence[Any], values: Sequence[Mapping[str, Any]]) -> str | None:
    """The value the first recalled item mentioning any value names (``ambiguous`` for two or more)."""
    for item in items:
        keys = mentioned(item.text or "", values)
        if keys:
            return next(iter(keys)) if len(keys) == 1 else "ambiguous"
    return None


def current_truth(llm: Any, seqs: Sequence[Mapping[str, Any]], embedder: str, verbose: bool,
                  label: str) -> dict[str, Any]:
    """Each sequence told to a fresh store (``llm`` extracting, or the rules when it is None),
    then its three questions (and the as-of one with ``valid_at``); the share answered right per kind."""
    right: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    jobs: Counter[str] = Counter()
    for n, seq in enumerate(seqs, 1):
        got = ct_sequence(llm, seq, embedder, jobs)
        for kind, ok in got:
            asked[kind] += 1
            right[kind] += ok
        if verbose:
            print(f"  {label} {n:>3} {seq['id']:<10} " + " ".join(f"{k}={'ok' if ok else 'no'}" for k, ok in got),
                  flush=True)
    return {"sequences": len(seqs), "embedder": embedder,
            "accuracy": {k: round(right[k] / asked[k], 3) for k in asked}, "right": dict(right),
            "jobs": dict(jobs)}


def ct_sequence(llm: Any, seq: Mapping[str, Any], embedder: str, jobs: Counter[str]) -> list[tuple[str, bool]]:
    """One current-truth sequence: its turns at their times (each day its own session), then the questions."""
    turns = sorted(seq["turns"], key=lambda t: datetime.fromisoformat(t["at"]))
    first = datetime.fromisoformat(turns[0]["at"])
    out = []
    with Memory(":memory:", embedder=embedder, now=first, llm=llm, settings=Settings()) as mem:
        for t in turns:
            at = datetime.fromisoformat(t["at"])
            mem.clock.set(at)  # type: ignore[attr-defined]
            mem.add(t["text"], role=t.get("role", "user"), session=f"{seq['id']}-{at.date()}", occurred_at=at)
        for job in mem.jobs.jobs(limit=1000):
            jobs[f"{job.state}:{job.last_error_class or '-'}"] += 1
        last = datetime.fromisoformat(turns[-1]["at"])
        asked_at = datetime.combine(last.date() + timedelta(days=1), clock_time(10, 0), tzinfo=last.tzinfo)
        mem.clock.set(asked_at)  # type: ignore[attr-defined]
        qs = seq["questions"]
        asks = [("current", qs["current"], {}), ("before", qs["before"], {}), ("as_of", qs["as_of"], {})]
        if qs["as_of"].get("date"):
            day = datetime.fromisoformat(qs["as_of"]["date"]).date()
            asks.append(("as_of_valid_at", qs["as_of"],
                         {"valid_at": datetime.combine(day, clock_time(12, 0), tzinfo=first.tzinfo)}))
        for kind, q, extra in asks:
            result = mem.recall(q["text"], k=10, now=asked_at, **extra)
            out.append((kind, first_answer(result.items, seq["values"]) == q["answer"]))
    return out


def calls(ledger: InMemoryLedger) -> dict[str, Any]:
    """Per-call figures from the ledger: attempts by status, retries, latency, tokens the server reported."""
    attempts = ledger.calls()
    by_call: dict[str, list[Any]] = {}
    for a in attempts:
        by_call.setdefault(a.call_id, []).append(a)
    ok = [a for a in attempts if a.status == "ok"]
    lat = sorted(a.latency_ms for a in attempts)
    prompt = [a.prompt_tokens for a in attempts if a.prompt_tokens is not None]
    completion = [a.completion_tokens for a in attempts if a.completion_tokens is not None]
    return {
        "calls": len(by_call), "attempts": len(attempts), "retried_calls": sum(len(v) > 1 for v in by_call.values()),
        "attempts_by_status": dict(Counter(a.status for a in attempts)),
        "latency_ms_p50": lat[len(lat) // 2] if lat else None,
        "latency_ms_p95": lat[int(len(lat) * 0.95)] if lat else None,
        "latency_ms_mean_ok": round(statistics.mean(a.latency_ms for a in ok)) if ok else None,
        "prompt_tokens": sum(prompt), "completion_tokens": sum(completion),
        "prompt_tokens_mean": round(statistics.mean(prompt)) if prompt else None,
        "completion_tokens_mean": round(statistics.mean(completion)) if completion else None,
        "attempts_without_usage": sum(a.prompt_tokens is None for a in attempts),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=DEFAULT_MODEL, choices=sorted(PACKAGED_MODELS),
                        help="packaged model to serve (ignored with --base-url)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server already running (then --model-name)")
    parser.add_argument("--model-name", help="model name to send with --base-url")
    parser.add_argument("--response-format", default="json_object_schema",
                        choices=("json_object_schema", "json_object", "json_schema", "prompt"))
    parser.add_argument("--max-tokens", type=int, default=384)
    parser.add_argument("--timeout", type=float, default=180.0, help="llm.timeout_s per attempt")
    parser.add_argument("--retries", type=int, default=1, help="llm.max_retries (adapter retries per call)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--statements", type=Path, default=STATEMENTS)
    parser.add_argument("--limit", type=int, default=60, help="statement items (spread over the set), 0: none")
    parser.add_argument("--current-truth", type=Path, default=CURRENT_TRUTH)
    parser.add_argument("--ct-limit", type=int, default=12, help="current-truth sequences, 0: none")
    parser.add_argument("--embedder", default="hash", help="embedder for the current-truth stores")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args(argv)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the model server on the way out
    server = None
    if args.base_url:
        base_url, model = args.base_url, args.model_name or "local-model"
    else:
        t = time.perf_counter()
        server = LlamaCppServer(args.model, threads=args.threads).start()
        base_url, model = server.base_url, args.model
        print(f"{model} served by llama-cpp-python at {base_url} in {time.perf_counter() - t:.1f} s", flush=True)
    settings = {"provider": "local", "base_url": base_url, "model": model, "response_format": args.response_format,
                "max_tokens": args.max_tokens, "timeout_s": args.timeout, "max_retries": args.retries}
    summary: dict[str, Any] = {"benchmark": "llm_extraction", "model": model, "settings": settings,
                               "machine": machine_facts()}
    started = time.perf_counter()
    try:
        run = Run(settings)
        if args.limit:
            items = rules_bench.load(args.statements)
            step = max(1, len(items) // args.limit)
            picked = items[::step][:args.limit]
            print(f"statements: {len(picked)} of {len(items)} items of {args.statements.name} (every {step}th)", flush=True)
            summary["statements"] = statements(run, picked, verbose=args.verbose)
            summary["statement_outcomes"] = dict(run.outcomes)
            summary["statement_calls"] = calls(run.ledger)
        if args.ct_limit and args.current_truth.exists():
            seqs = rules_bench.load(args.current_truth)
            step = max(1, len(seqs) // args.ct_limit)
            picked = seqs[::step][:args.ct_limit]
            print(f"current truth: {len(picked)} of {len(seqs)} sequences of {args.current_truth} (every {step}th)",
                  flush=True)
            ledger = InMemoryLedger()  # one client for every store, so one ledger counts all their calls
            with OpenAICompatLLM(LLMConfig.from_mapping(settings), ledger=ledger) as llm:
                summary["current_truth"] = {
                    "llm": current_truth(llm, picked, args.embedder, args.verbose, "llm"),
                    "rules": current_truth(None, picked, args.embedder, args.verbose, "rules")}
            summary["current_truth_calls"] = calls(ledger)
        elif args.ct_limit:
            print(f"{args.current_truth} not found: current truth skipped", file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
    summary["wall_s"] = round(time.perf_counter() - started, 1)
    for key in ("statements", "statement_outcomes", "statement_calls", "current_truth", "current_truth_calls"):
        if key in summary:
            print(f"{key}: {json.dumps(summary[key], ensure_ascii=False)}")
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
