"""State-corpus benchmark of the write pipeline's extractors (HL-Mem v0.30 state corpora).

For every bundle, a fresh ``Memory(":memory:", embedder="none")`` whose clock stands at each
event's ``occurred_at``. Two paths:

- **rules, direct** (the default): each event is added verbatim, run through the rule extractor,
  and every candidate is written with ``Memory.remember`` (so supersede decisions are the
  domain's; admission, provenance and dedup are not in this path);
- **pipeline** (``--llm PRESET``, or ``--pipeline`` for the rule extractor): the bundle's events
  are added with ``--defer`` semantics and one ``worker --once`` drains them, so they go through
  the real write pipeline — provenance, the extractor (one LLM call per window of up to 8
  events, i.e. one per bundle), admission, dedup, conflicts and supersede. The LLM is configured
  like the product's: a preset (``dashscope``, ``zhipu``, ``openai``, ``local``), optionally a
  base URL and a model, and the key from the preset's environment variable
  (``DASHSCOPE_API_KEY``…); ``HLMEM_LLM``, ``HLMEM_LLM_MODEL`` and ``HLMEM_LLM_BASE_URL`` are the
  defaults, as for ``hlmem``. Calls and tokens come from the LLM ledger.

Then the memory is scored against the bundle's gold:

- **current-state accuracy** per gold (subject, slot, coordinate qualifiers): our positive claims
  holding at the last event's time must name exactly the gold current values (none, when the gold
  has no current assertion — historical narrative, for example);
- **supersede edges**: our ``superseded_by`` links, with each claim matched to a gold assertion by
  (subject, slot, coordinates, value) — and, when a value repeats in a slot (a rollback), by the
  event it came from; precision over all our edges, recall over the gold's;
- **false supersedes** on counterexample bundles (``counterexample_zero_supersede``): any edge.

Gold slot names differ from our predicates; :data:`SLOT_MAP` and :data:`QUALIFIER_KEY_MAP` are the
whole naming map (no other adjustment is made). Dev is the development split; the sealed splits
are held out — do not tune on them.

    python benchmarks/state_corpus.py                 # dev
    python benchmarks/state_corpus.py --split sealed  # held out: report only
    DASHSCOPE_API_KEY=… python benchmarks/state_corpus.py --llm dashscope --llm-model qwen-plus
    python benchmarks/state_corpus.py --llm local --llm-base-url http://127.0.0.1:8000/v1 --llm-model M --limit 40
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from hlmem import Memory
from hlmem.adapters.llm.ledger import InMemoryLedger
from hlmem.adapters.llm.openai_compat import OpenAICompatLLM
from hlmem.adapters.llm.presets import PRESETS, LLMConfig
from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.commands import MAX_TEXT_CHARS
from hlmem.domain.errors import HlmemError
from hlmem.domain.events import ExtractionRecorded
from hlmem.domain.queries import holds
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.slots import normalize_key
from hlmem.domain.time import parse_timestamp

DATA = Path("/work/shared/datasets/hl_mem")
SPLITS = {
    "dev": ("v0300_state_dev_corpus.jsonl", "v0300_state_dev_gold.jsonl"),
    "sealed": ("v0300_state_sealed_corpus.jsonl", "v0300_state_sealed_gold.jsonl"),
    "sealed_r2": ("v0300_state_sealed_r2_corpus.jsonl", "v0300_state_sealed_r2_gold.jsonl"),
}

#: Gold ``canonical_slot`` → our predicate. A naming map only: the extractor knows nothing of it.
SLOT_MAP: Mapping[str, str] = {
    "config.version": "version",
    "config.port": "port",
    "config.model": "model",
    "config.path": "path",
    "state.service_health": "status",
    "state.process": "status",
    "state.deployment": "status",
    "state.connectivity": "status",
    "state.job": "status",
}
#: (gold slot, gold qualifier key) → our coordinate key. The extractor keys a part of a subject by
#: its kind noun (``API 连接`` → ``connection=API``); the gold files connectivity under ``service``.
QUALIFIER_KEY_MAP: Mapping[tuple[str, str], str] = {("state.connectivity", "service"): "connection"}

SlotKey = tuple[str, str, frozenset[tuple[str, str]]]


def load(corpus: Path, gold: Path) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], int]:
    """Bundles joined with their gold records on ``bundle_id``, in corpus order, and how many
    bundles had no gold record (skipped: the sealed r2 files do not join completely)."""
    golds = {}
    for line in gold.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            golds[record["bundle_id"]] = record
    out, unmatched = [], 0
    for line in corpus.read_text(encoding="utf-8").splitlines():
        if line.strip():
            bundle = json.loads(line)
            if bundle["bundle_id"] in golds:
                out.append((bundle, golds[bundle["bundle_id"]]))
            else:
                unmatched += 1
    return out, unmatched


def gold_key(coordinate: Mapping[str, Any]) -> SlotKey | None:
    """Our slot key for a gold coordinate, or None when the gold slot has no mapped predicate."""
    slot = coordinate["canonical_slot"]
    predicate = SLOT_MAP.get(slot)
    if predicate is None:
        return None
    quals = frozenset((QUALIFIER_KEY_MAP.get((slot, k), k), normalize_key(str(v)))
                      for k, v in (coordinate.get("coordinate_qualifiers") or {}).items())
    return normalize_key(coordinate["canonical_subject"]), predicate, quals


def claim_key(subject: str, predicate: str, coordinates: Iterable[tuple[str, str]]) -> SlotKey:
    """The same key for one of our claims."""
    return normalize_key(subject), predicate, frozenset((k, normalize_key(v)) for k, v in coordinates)


def pieces(text: str, limit: int = MAX_TEXT_CHARS) -> list[str]:
    """An event's text in observations hlmem accepts: whole, or cut at line ends under the size limit.

    (One dev event is 50,233 characters of redacted context; the pipeline's own chunking is not
    what this benchmark measures.)
    """
    out: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line) > limit:
            out, line = out + [line[:limit]], line[limit:]
        if len(current) + len(line) > limit:
            out.append(current)
            current = ""
        current += line
    return [p for p in (*out, current) if p.strip()]


def run_bundle(bundle: Mapping[str, Any], gold: Mapping[str, Any]) -> dict[str, Any]:
    """Ingest one bundle through the rule extractor and score it against its gold."""
    events = bundle["events"]
    first = parse_timestamp(events[0]["occurred_at"])
    mem = Memory(":memory:", embedder="none", now=first)
    origin: dict[str, int] = {}  # our claim id → index of the event that created it
    extract_s, candidates, refused = 0.0, 0, 0
    last = first
    try:
        for event in events:
            at = parse_timestamp(event["occurred_at"])
            last = max(last, at)
            mem.clock.set(at)  # type: ignore[attr-defined]
            found = []
            for text in pieces(event["content"]["text"]):
                # extract=False: this script runs the extractor itself and writes what it proposes.
                added = mem.add(text, occurred_at=at, session=bundle["bundle_id"], role=event["role"], extract=False)
                source = SourceEvent(event_id=added.id, text=text, role=event["role"],
                                     session_id=bundle["bundle_id"], origin_class="direct_user",
                                     session_kind="interactive", occurred_at=at)
                start = time.perf_counter()
                found += _extract([source])
                extract_s += time.perf_counter() - start
            candidates += len(found)
            for cand in found:
                try:
                    result = _write(mem, cand)
                except (HlmemError, ValueError):
                    refused += 1
                    continue
                if result.outcome in ("created", "superseded", "inserted"):
                    origin[result.id] = event["event_index"]
        claims = mem.storage.get_claims(list(origin))
    finally:
        mem.close()
    return _score(gold, claims, origin, last) | {
        "events": len(events), "candidates": candidates, "claims": len(claims), "refused": refused,
        "extract_s": extract_s,
    }


def _write(mem: Memory, c: CandidateClaim) -> Any:
    return mem.remember(c.subject, c.predicate, c.value, qualifiers=dict(c.qualifiers),
                        coordinates=dict(c.coordinates), valid_from=c.valid_from, valid_to=c.valid_to,
                        importance=c.importance, scope=c.scope, polarity=c.polarity, cardinality=c.cardinality,
                        evidence=list(c.evidence))


def make_llm(preset: str, *, base_url: str | None = None, model: str | None = None,
             **settings: Any) -> tuple[OpenAICompatLLM, InMemoryLedger]:
    """The product's OpenAI-compatible adapter for ``preset``, with a ledger this script reads.

    One client serves every bundle (one connection pool); the key comes from the preset's
    environment variable, as everywhere in hlmem.

    :raises ConfigurationError: unknown preset, missing base URL or model, or a missing key.
    """
    values = {"provider": preset, "base_url": base_url, "model": model, **settings}
    config = LLMConfig.from_mapping({k: v for k, v in values.items() if v is not None})
    ledger = InMemoryLedger()
    return OpenAICompatLLM(config, ledger=ledger), ledger


def run_bundle_pipeline(bundle: Mapping[str, Any], gold: Mapping[str, Any],
                        llm: OpenAICompatLLM | None = None) -> dict[str, Any]:
    """Ingest one bundle through the real write pipeline (the LLM extractor when ``llm`` is given,
    else the rule extractor) and score it against its gold.

    Events are deferred, then one worker drain runs at the last event's time: the bundle is one
    session, so its events go to the extractor together (windows of up to 8 events).
    """
    events = bundle["events"]
    first = parse_timestamp(events[0]["occurred_at"])
    mem = Memory(":memory:", embedder="none", now=first, llm=llm)
    if llm is None:  # the offline extractor under test (--extractor), not Memory's own default
        mem._container.extractor.override(_offline())  # noqa: SLF001 - the benchmark picks the extractor
    index_of: dict[str, int] = {}  # observation id → index of the bundle event it holds (a piece of)
    last = first
    try:
        for event in events:
            at = parse_timestamp(event["occurred_at"])
            last = max(last, at)
            mem.clock.set(at)  # type: ignore[attr-defined]
            for text in pieces(event["content"]["text"]):
                added = mem.add(text, occurred_at=at, session=bundle["bundle_id"], role=event["role"],
                                process=False)
                index_of[added.id] = event["event_index"]
        mem.clock.set(last)  # type: ignore[attr-defined]
        start = time.perf_counter()
        mem.run_worker(once=True)
        extract_s = time.perf_counter() - start
        records = [s.event for s in mem.storage.read() if isinstance(s.event, ExtractionRecorded)]
        claim_ids = list(dict.fromkeys(c for r in records for c in r.claims))
        claims = mem.storage.get_claims(claim_ids)
        origin = {cid: min((index_of[e] for e in c.evidence if e in index_of), default=-1)
                  for cid, c in claims.items()}
        jobs = mem.jobs.job_counts().get("extract", {})
        extractor = mem._container.extractor().name
    finally:
        mem.close()
    return _score(gold, claims, origin, last) | {
        "events": len(events),
        "candidates": sum(len(r.claims) + len(r.rejected) + len(r.conflicts) for r in records),
        "claims": len(claims), "refused": sum(len(r.rejected) for r in records),
        "blocked": sum(1 for r in records for _, verdict, _ in r.provenance if verdict == "reject"),
        "conflicts": sum(len(r.conflicts) for r in records), "windows": len(records),
        "jobs_failed": sum(n for state, n in jobs.items() if state in ("failed", "dead")),
        "extract_s": extract_s, "extractor": extractor,
    }


def ledger_summary(ledger: InMemoryLedger) -> dict[str, Any]:
    """LLM calls (logical calls and HTTP attempts), their outcomes, tokens and latency."""
    calls = ledger.calls()
    statuses = Counter(c.status for c in calls)
    return {
        "llm_calls": len({c.call_id for c in calls}), "llm_attempts": len(calls),
        "llm_attempts_failed": len(calls) - statuses.get("ok", 0), "llm_statuses": dict(sorted(statuses.items())),
        "prompt_tokens": sum(c.prompt_tokens or 0 for c in calls),
        "completion_tokens": sum(c.completion_tokens or 0 for c in calls),
        "llm_latency_ms_mean": round(sum(c.latency_ms for c in calls) / len(calls)) if calls else None,
    }


#: Counterexample gold values are placeholders (``counter-multi_instance-0``): the corpus does not
#: carry the real value, so for those only "one current value" vs "none" is compared.
PLACEHOLDER = re.compile(r"^(?:counter|non-state)-[a-z_]+-\d+$")


def _same_state(ours: set[str], gold: set[str]) -> bool:
    if gold and all(PLACEHOLDER.match(v) for v in gold):
        return len(ours) == len(gold)
    return ours == gold


def _score(gold: Mapping[str, Any], claims: Mapping[str, Any], origin: Mapping[str, int],
           now: datetime) -> dict[str, Any]:
    assertions = {a["assertion_id"]: a for a in gold["atomic_claims"]}
    keyed = {aid: gold_key(a["coordinate"]) for aid, a in assertions.items() if a.get("coordinate")}
    current_gold: dict[SlotKey, set[str]] = {k: set() for k in keyed.values() if k is not None}
    for aid in gold["current_assertion_ids"]:
        key = keyed.get(aid)
        if key is not None:
            current_gold[key].add(normalize_key(assertions[aid]["state_value"]))
    current_ours: dict[SlotKey, set[str]] = defaultdict(set)
    for claim in claims.values():
        if claim.polarity and holds(claim, now, now):
            current_ours[claim_key(claim.subject, claim.predicate, claim.coordinates)].add(normalize_key(claim.value))
    slots_right = sum(_same_state(current_ours.get(k, set()), v) for k, v in current_gold.items())

    def match(claim_id: str) -> str | None:
        claim = claims[claim_id]
        key = claim_key(claim.subject, claim.predicate, claim.coordinates)
        options = [aid for aid, k in keyed.items()
                   if k == key and normalize_key(assertions[aid]["state_value"]) == normalize_key(claim.value)]
        by_event = [aid for aid in options if origin.get(claim_id) in assertions[aid]["source_event_indices"]]
        return (by_event or options or [None])[0] if len(by_event) == 1 or len(options) == 1 else None

    ours = [(cid, c.superseded_by) for cid, c in claims.items() if c.superseded_by in claims]
    mapped = {(match(a), match(b)) for a, b in ours}
    expected = {tuple(edge) for edge in gold["expected_supersede_edges"]}
    tp = len(mapped & expected)
    return {
        "slots": len(current_gold), "slots_right": slots_right, "gold_edges": len(expected), "our_edges": len(ours),
        "tp_edges": tp, "zero_supersede": bool(gold.get("counterexample_zero_supersede")),
        "false_supersedes": len(ours) if gold.get("counterexample_zero_supersede") else 0,
    }


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Totals and ratios over scored bundles."""
    total = Counter()
    for row in rows:
        total.update({k: v for k, v in row.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
    zero = [r for r in rows if r["zero_supersede"]]
    return {
        "bundles": len(rows), "events": total["events"], "claims": total["claims"], "refused": total["refused"],
        "slots": total["slots"], "current_state_accuracy": _ratio(total["slots_right"], total["slots"]),
        "gold_edges": total["gold_edges"], "our_edges": total["our_edges"], "tp_edges": total["tp_edges"],
        "edge_precision": _ratio(total["tp_edges"], total["our_edges"]),
        "edge_recall": _ratio(total["tp_edges"], total["gold_edges"]),
        "counterexample_bundles": len(zero), "false_supersedes": total["false_supersedes"],
        "counterexample_bundles_with_false_supersede": sum(r["false_supersedes"] > 0 for r in zero),
        **{k: total[k] for k in LLM_COLUMNS if any(k in r for r in rows)},
    }


COLUMNS = ("group", "bundles", "events", "claims", "slots", "current_state_accuracy", "gold_edges", "our_edges",
           "tp_edges", "edge_precision", "edge_recall", "false_supersedes")
HEADERS = ("group", "bundles", "events", "claims", "slots", "state_acc", "gold_e", "our_e", "tp_e", "edge_P",
           "edge_R", "false_sup")
#: Per-bundle LLM figures (HTTP attempts, tokens), summed per group when an LLM extracted.
LLM_COLUMNS = ("llm_attempts", "prompt_tokens", "completion_tokens")
LLM_HEADERS = ("llm_att", "prompt_tok", "compl_tok")


def print_table(title: str, groups: Mapping[str, dict[str, Any]]) -> None:
    """A fixed-width table, one row per group."""
    print(f"\n{title}")
    llm = any(LLM_COLUMNS[0] in s for s in groups.values())
    columns, headers = (COLUMNS + LLM_COLUMNS, HEADERS + LLM_HEADERS) if llm else (COLUMNS, HEADERS)
    widths = [max(len(c), 6) for c in headers]
    widths[0] = max([len(name) for name in groups] + [5])
    print("  ".join(c.ljust(w) for c, w in zip(headers, widths)))
    for name, s in groups.items():
        cells = [name, *(s.get(c) for c in columns[1:])]
        print("  ".join(("-" if v is None else str(v)).ljust(w) for v, w in zip(cells, widths)))


def throughput(bundles: Sequence[tuple[dict[str, Any], dict[str, Any]]], repeats: int, *,
               plain_only: bool = False) -> float:
    """Rule-extractor events per second (extraction only, no writes), on every event of the corpus
    or only on the plain ones (no redacted context before the statement: chat-sized turns)."""
    from datetime import timezone

    at = datetime(2026, 6, 1, tzinfo=timezone.utc)
    events = [ev for b, _ in bundles for ev in b["events"] if not (plain_only and ev.get("context_only"))]
    sources = [SourceEvent(event_id=f"ev_{i}", text=e["content"]["text"], role=e["role"], session_id="s",
                           origin_class="direct_user", session_kind="interactive", occurred_at=at)
               for i, e in enumerate(events)]
    _extract(sources[:10])  # warm the regex caches
    start = time.perf_counter()
    for _ in range(repeats):
        for source in sources:
            _extract([source])
    return round(len(sources) * repeats / (time.perf_counter() - start), 1)


#: The offline extractor under test (``--extractor``; None: the rule function itself).
EXTRACTOR: list[Any] = [None]


def _offline() -> Any:
    from hlmem.application.extraction.extractors import RuleExtractor

    return EXTRACTOR[0] or RuleExtractor(DEFAULT_REGISTRY)


def _extract(sources: Sequence[SourceEvent]) -> list[Any]:
    return extract(sources, DEFAULT_REGISTRY) if EXTRACTOR[0] is None else EXTRACTOR[0].extract(sources)


def sample(bundles: Sequence[Any], limit: int | None) -> list[Any]:
    """``limit`` bundles spread evenly over the corpus (it is ordered by category), or all."""
    if not limit or limit >= len(bundles):
        return list(bundles)
    return [bundles[i * len(bundles) // limit] for i in range(limit)]


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=sorted(SPLITS), default="dev", help="which corpus/gold pair (default dev)")
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--corpus", type=Path, help="corpus JSONL (overrides --split)")
    parser.add_argument("--gold", type=Path, help="gold JSONL (overrides --split)")
    parser.add_argument("--repeats", type=int, default=5, help="passes over the corpus for the throughput figure")
    parser.add_argument("--show", action="store_true", help="print each bundle's score (dev only: do not read sealed)")
    parser.add_argument("--llm", default=_env("HLMEM_LLM"), choices=[*PRESETS, "none"], metavar="PRESET",
                        help=f"extract with an LLM through the pipeline: {', '.join(PRESETS)} (default $HLMEM_LLM; "
                             "the key comes from the preset's environment variable)")
    parser.add_argument("--llm-base-url", default=_env("HLMEM_LLM_BASE_URL"), help="default $HLMEM_LLM_BASE_URL")
    parser.add_argument("--llm-model", default=_env("HLMEM_LLM_MODEL"), help="default $HLMEM_LLM_MODEL")
    parser.add_argument("--pipeline", action="store_true",
                        help="run the rule extractor through the real pipeline too (admission, provenance, dedup)")
    parser.add_argument("--limit", type=int, default=None, help="score only N bundles, spread over the categories")
    parser.add_argument("--extractor", choices=("rules", "learned", "union", "fallback"), default="rules",
                        help="the offline extractor: rules alone (default), the learned tagger, or both (ADR 0078)")
    args = parser.parse_args(argv)
    if args.extractor != "rules":
        from hlmem.adapters.extraction.wiring import offline_extractor
        from hlmem.adapters.text.pos import jieba_tagger

        EXTRACTOR[0] = offline_extractor(DEFAULT_REGISTRY, jieba_tagger(), args.extractor)
    corpus_name, gold_name = SPLITS[args.split]
    corpus, gold = args.corpus or args.data_dir / corpus_name, args.gold or args.data_dir / gold_name
    bundles, unmatched = load(corpus, gold)
    bundles = sample(bundles, args.limit)

    llm, ledger = None, None
    if args.llm and args.llm != "none":
        try:
            llm, ledger = make_llm(args.llm, base_url=args.llm_base_url, model=args.llm_model)
        except HlmemError as exc:
            raise SystemExit(f"error: {exc}") from None
    pipeline = llm is not None or args.pipeline

    start = time.perf_counter()
    rows = []
    try:
        for bundle, record in bundles:
            before = len(ledger.calls()) if ledger else 0
            row = run_bundle_pipeline(bundle, record, llm) if pipeline else run_bundle(bundle, record)
            row |= {"category": bundle["category"], "subtype": bundle.get("subtype", "")}
            if ledger is not None:
                calls = ledger.calls()[before:]
                row |= {"llm_attempts": len(calls), "prompt_tokens": sum(c.prompt_tokens or 0 for c in calls),
                        "completion_tokens": sum(c.completion_tokens or 0 for c in calls)}
                _stop_if_every_call_fails(ledger, rows)
            rows.append(row)
            if args.show:
                print(bundle["bundle_id"], {k: row[k] for k in ("slots", "slots_right", "gold_edges", "our_edges",
                                                                  "tp_edges", "false_supersedes")})
    finally:
        if llm is not None:
            llm.close()
    wall = time.perf_counter() - start

    extractor = rows[0].get("extractor", "rules") if rows and llm is not None else args.extractor
    model = llm.config.model if llm is not None else None
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_subtype: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_category[row["category"]].append(row)
        by_subtype[f"{row['category']}/{row['subtype']}"].append(row)
    categories = {name: summarise(group) for name, group in sorted(by_category.items())}
    categories["ALL"] = summarise(rows)
    path = "pipeline" if pipeline else "direct"
    print_table(f"state corpus: split={args.split} extractor={extractor} model={model or '-'} path={path} "
                f"({corpus.name})", categories)
    print_table("by subtype", {name: summarise(group) for name, group in sorted(by_subtype.items())})

    extract_s = sum(r["extract_s"] for r in rows)
    summary = {
        "benchmark": "state_corpus", "split": args.split, "extractor": extractor, "model": model, "path": path,
        **categories["ALL"], "bundles_without_gold": unmatched,
        "per_category": {k: v for k, v in categories.items() if k != "ALL"},
        "mean_event_chars": round(sum(len(e["content"]["text"]) for b, _ in bundles for e in b["events"])
                                  / max(1, categories["ALL"]["events"])),
        "ingest_wall_s": round(wall, 2), "python": platform.python_version(),
    }
    if pipeline:
        summary |= {k: sum(r[k] for r in rows) for k in ("windows", "blocked", "conflicts", "jobs_failed")}
        summary["pipeline_events_per_s"] = _ratio(categories["ALL"]["events"], extract_s)  # the worker drains
    if ledger is not None:
        summary |= ledger_summary(ledger)
        print(f"\nLLM {llm.model_id}: {summary['llm_calls']} calls ({summary['llm_attempts']} attempts, "
              f"{summary['llm_attempts_failed']} failed), {summary['prompt_tokens']} prompt + "
              f"{summary['completion_tokens']} completion tokens")
    else:
        summary |= {
            "rule_events_per_s": throughput(bundles, args.repeats),
            "rule_events_per_s_plain": throughput(bundles, args.repeats, plain_only=True),
        }
        if not pipeline:
            summary["rule_events_per_s_in_pipeline"] = _ratio(categories["ALL"]["events"], extract_s)
    print("\n" + json.dumps(summary, ensure_ascii=False))
    return summary


def _stop_if_every_call_fails(ledger: InMemoryLedger, rows: Sequence[dict[str, Any]]) -> None:
    """A wrong key or model fails every call: stop after three bundles instead of paying for 280."""
    calls = ledger.calls()
    if len(rows) >= 2 and calls and not any(c.status == "ok" for c in calls):
        last = calls[-1]
        raise SystemExit(f"error: every LLM call failed so far ({last.status}, {last.error_class}, "
                         f"HTTP {last.http_status}); check the preset, model, base URL and key")


if __name__ == "__main__":
    main(sys.argv[1:])
