"""State-corpus benchmark of the write pipeline's rule extractor (HL-Mem v0.30 state corpora).

For every bundle: a fresh ``Memory(":memory:", embedder="none")`` whose clock stands at each
event's ``occurred_at``; each event is added verbatim, run through the rule extractor, and every
candidate is written with ``Memory.remember`` (so supersede decisions are the domain's). Then the
memory is scored against the bundle's gold:

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
"""

from __future__ import annotations

import argparse
import json
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
from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.commands import MAX_TEXT_CHARS
from hlmem.domain.errors import HlmemError
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
                found += extract([source], DEFAULT_REGISTRY)
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
    }


COLUMNS = ("group", "bundles", "events", "claims", "slots", "current_state_accuracy", "gold_edges", "our_edges",
           "tp_edges", "edge_precision", "edge_recall", "false_supersedes")
HEADERS = ("group", "bundles", "events", "claims", "slots", "state_acc", "gold_e", "our_e", "tp_e", "edge_P",
           "edge_R", "false_sup")


def print_table(title: str, groups: Mapping[str, dict[str, Any]]) -> None:
    """A fixed-width table, one row per group."""
    print(f"\n{title}")
    widths = [max(len(c), 6) for c in HEADERS]
    widths[0] = max([len(name) for name in groups] + [5])
    print("  ".join(c.ljust(w) for c, w in zip(HEADERS, widths)))
    for name, s in groups.items():
        cells = [name, *(s.get(c) for c in COLUMNS[1:])]
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
    extract(sources[:10], DEFAULT_REGISTRY)  # warm the regex caches
    start = time.perf_counter()
    for _ in range(repeats):
        for source in sources:
            extract([source], DEFAULT_REGISTRY)
    return round(len(sources) * repeats / (time.perf_counter() - start), 1)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=sorted(SPLITS), default="dev", help="which corpus/gold pair (default dev)")
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--corpus", type=Path, help="corpus JSONL (overrides --split)")
    parser.add_argument("--gold", type=Path, help="gold JSONL (overrides --split)")
    parser.add_argument("--repeats", type=int, default=5, help="passes over the corpus for the throughput figure")
    parser.add_argument("--show", action="store_true", help="print each bundle's score (dev only: do not read sealed)")
    args = parser.parse_args(argv)
    corpus_name, gold_name = SPLITS[args.split]
    corpus, gold = args.corpus or args.data_dir / corpus_name, args.gold or args.data_dir / gold_name
    bundles, unmatched = load(corpus, gold)

    start = time.perf_counter()
    rows = []
    for bundle, record in bundles:
        row = run_bundle(bundle, record) | {"category": bundle["category"], "subtype": bundle.get("subtype", "")}
        rows.append(row)
        if args.show:
            print(bundle["bundle_id"], {k: row[k] for k in ("slots", "slots_right", "gold_edges", "our_edges",
                                                              "tp_edges", "false_supersedes")})
    wall = time.perf_counter() - start

    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_subtype: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_category[row["category"]].append(row)
        by_subtype[f"{row['category']}/{row['subtype']}"].append(row)
    categories = {name: summarise(group) for name, group in sorted(by_category.items())}
    categories["ALL"] = summarise(rows)
    print_table(f"state corpus: split={args.split} extractor=rules ({corpus.name})", categories)
    print_table("by subtype", {name: summarise(group) for name, group in sorted(by_subtype.items())})

    extract_s = sum(r["extract_s"] for r in rows)
    summary = {
        "benchmark": "state_corpus", "split": args.split, "extractor": "rules", **categories["ALL"],
        "bundles_without_gold": unmatched,
        "per_category": {k: v for k, v in categories.items() if k != "ALL"},
        "rule_events_per_s": throughput(bundles, args.repeats),
        "rule_events_per_s_plain": throughput(bundles, args.repeats, plain_only=True),
        "mean_event_chars": round(sum(len(e["content"]["text"]) for b, _ in bundles for e in b["events"])
                                  / max(1, categories["ALL"]["events"])),
        "rule_events_per_s_in_pipeline": _ratio(categories["ALL"]["events"], extract_s),
        "ingest_wall_s": round(wall, 2), "python": platform.python_version(),
    }
    print("\n" + json.dumps(summary, ensure_ascii=False))
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
