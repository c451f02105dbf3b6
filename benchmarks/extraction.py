"""Rule-extractor benchmark: our statement set (dev or sealed), MemDaily dev coverage, throughput.

Three measurements, each printed as a table, then one JSON summary line:

- **statements** (``benchmarks/extraction/dev.jsonl``; ``--sealed`` scores the held-back split
  once): a *fact* item passes when every expected claim is among the extractor's candidates
  (subject, one of the accepted predicates, the expected value as a substring, the polarity) and
  no forbidden predicate appears; a *non-fact* passes when it yields no candidate at all; a
  *sequence* is added statement by statement to a real ``Memory(":memory:")`` (the write pipeline:
  provenance, extractor, admission, dedup, supersede), one day apart, and passes when every
  expected value is current and every retired value (``absent``) was once extracted and is no longer
  current; a ``never`` value (another person's, said with a pronoun) is not current at the end;
- **MemDaily** (first ``--trajectories`` of each of the 26 dev files): the share of messages that
  produce any claim, the share of questions whose gold answer is in claim values of its
  trajectory, the ceiling (the answer verbatim in messages), and how long values are. An answer
  of several parts (``广东深圳; 四个周``: MemDaily joins them with ``;``) counts when every part
  is a substring of some value (of some message, for the ceiling); the whole joined string in one
  value is reported too (``…_whole``), though no single statement can hold it;
- **throughput**: sentences per second through the extractor (no storage), dev and MemDaily texts.

The extractor runs as the product wires it: with jieba's part-of-speech tagger in the precision
guard (``--no-pos`` without it). Sequences go through ``Memory``, which wires it itself.

Subjects compare without the possessive (``用户的表哥`` = ``表哥`` = ``my cousin``'s ``cousin``;
``用户`` = ``user``); values compare NFKC-casefolded without spaces.

    python benchmarks/extraction.py
    python benchmarks/extraction.py --sealed          # the held-back split: score once, report
    python benchmarks/extraction.py --memdaily ../shared/datasets/memsim_memdaily --trajectories 10
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hlmem import Memory
from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

HERE = Path(__file__).resolve().parent
DEV = HERE / "extraction" / "dev.jsonl"
SEALED = HERE / "extraction" / "sealed.jsonl"
MEMDAILY = HERE.parent.parent / "shared" / "datasets" / "memsim_memdaily"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
#: The extractor's part-of-speech tagger, as the product wires it (``--no-pos``: none).
TAGGER: list[Any] = [None]
#: The offline extractor under test (``--extractor``): None is the rule function itself.
EXTRACTOR: list[Any] = [None]
#: The extractor sequences go through ``Memory`` with (None: the one under test, else Memory's own).
SEQUENCE_EXTRACTOR: list[Any] = [None]
_POSSESSIVE = re.compile(r"^(?:用户的|用户|我的|我|user's\s+|user\s+|my\s+)", re.I)


def norm(text: str) -> str:
    """NFKC, casefold, no spaces."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


_EN_NUM = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                                       "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                                       "eighteen", "nineteen"))}
_EN_TENS = {w: 10 * i for i, w in enumerate(("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                                              "ninety")) if w}
_CN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_CN_RUN = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
_EN_WORDS = re.compile(rf"\b(?:(?:{'|'.join(_EN_TENS)})(?:[\s\-](?:{'|'.join(list(_EN_NUM)[1:10])}))?|{'|'.join(_EN_NUM)})\b")


def _cn_number(run: str) -> str:
    """一百零五 → 105, 六千五 → 6500, 两千四 → 2400, 六二 → 62 (digits read one by one)."""
    if not any(ch in _CN_UNIT for ch in run):
        return "".join(str(_CN_DIGIT[ch]) for ch in run)
    total, section, number, last_unit = 0, 0, 0, 1
    for ch in run:
        if ch in _CN_DIGIT:
            number = _CN_DIGIT[ch]
        elif ch == "万":
            total += (section + number) * 10000
            section, number, last_unit = 0, 0, 10000
        else:
            section += (number or 1) * _CN_UNIT[ch]
            number, last_unit = 0, _CN_UNIT[ch]
    if number and last_unit >= 100 and run[-2:-1] not in ("零", "〇"):
        number *= last_unit // 10  # 六千五: the digit after a unit is the next place
    return str(total + section + number)


def _en_number(m: re.Match[str]) -> str:
    words = m.group().lower().replace("-", " ").split()
    return str(sum(_EN_NUM.get(w, _EN_TENS.get(w, 0)) for w in words))


def norm_value(text: str) -> str:
    """A value compared as :func:`norm`, with numbers in words or Chinese numerals as digits
    (two = 2, 一百零五 = 105), so a value is the same however the number is written."""
    text = _EN_WORDS.sub(_en_number, unicodedata.normalize("NFKC", text).casefold())
    return norm(_CN_RUN.sub(lambda m: _cn_number(m.group()), text))


#: Words for one relation, compared as one subject (我妈 = 妈妈 = 母亲 = mom).
_KIN_SAME = [
    ("妈", "妈妈", "母亲", "老妈", "mom", "mother", "mum", "mommy"), ("爸", "爸爸", "父亲", "老爸", "dad", "father", "daddy"),
    ("哥", "哥哥"), ("姐", "姐姐"), ("弟", "弟弟"), ("妹", "妹妹"), ("老公", "丈夫", "husband", "hubby"),
    ("老婆", "妻子", "太太", "媳妇", "wife"), ("女儿", "闺女", "daughter"), ("儿子", "son"),
    ("孩子", "小孩", "kid", "kids", "child", "children"), ("叔", "叔叔"), ("舅", "舅舅"), ("姑", "姑姑"), ("婶", "婶婶"),
]
_KIN_KEY = {w: group[0] for group in _KIN_SAME for w in group}


def same_subject(expected: str, got: str) -> bool:
    """``user`` = ``用户``; a kin subject compares without its possessive (用户的表哥 = 表哥), and
    words for one relation are one subject (我妈 = 用户的妈妈 = mom)."""
    e, g = norm(expected), norm(got)
    if e in ("user", "用户"):
        return g in ("user", "用户")
    e = _POSSESSIVE.sub("", unicodedata.normalize("NFKC", expected).casefold().strip()).replace(" ", "")
    g = _POSSESSIVE.sub("", unicodedata.normalize("NFKC", got).casefold().strip()).replace(" ", "")
    return e == g or (e in _KIN_KEY and _KIN_KEY[e] == _KIN_KEY.get(g))


def matches(exp: dict[str, Any], subject: str, predicate: str, value: str, polarity: bool) -> bool:
    """Whether one claim is the expected one (subject, an accepted predicate, value substring, polarity)."""
    preds = exp["predicate"] if isinstance(exp["predicate"], list) else [exp["predicate"]]
    return (same_subject(exp["subject"], subject) and DEFAULT_REGISTRY.canonical(predicate) in
            {DEFAULT_REGISTRY.canonical(p) for p in preds}
            and norm_value(exp["value"]) in norm_value(value) and polarity == exp.get("polarity", True))


def source(text: str, i: int = 0, at: datetime = T0) -> SourceEvent:
    return SourceEvent(event_id=f"ev_{i}", text=text, role="user", session_id="s", origin_class="direct_user",
                       session_kind="interactive", occurred_at=at)


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# -- statements ---------------------------------------------------------------------------------


def run_extractor(events: Sequence[SourceEvent]) -> list[CandidateClaim]:
    """The extractor under test on a window: the rules unless ``--extractor`` named another."""
    if EXTRACTOR[0] is None:
        return extract(events, DEFAULT_REGISTRY, tagger=TAGGER[0])
    return EXTRACTOR[0].extract(events)


def score_item(item: dict[str, Any]) -> tuple[bool, list[CandidateClaim]]:
    """One fact or non-fact item: (passed, candidates)."""
    cands = run_extractor([source(item["text"])])
    if item["kind"] == "nonfact":
        return not cands, cands
    found = all(any(matches(e, c.subject, c.predicate, c.value, c.polarity) for c in cands) for e in item["expect"])
    return found and not forbidden_hits(item, cands), cands


def violates(rule: dict[str, Any], subject: str, predicate: str, value: str, polarity: bool = True) -> bool:
    """Whether a claim is one a ``forbid`` entry rules out: every field the entry gives must match
    (``subject``; ``predicate``, one name or a list; ``value`` as a substring; ``polarity``, true
    unless the entry says false — "forbid user · likes · 香菜" rules out that the user likes it,
    not the claim that they do not)."""
    if polarity != rule.get("polarity", True):
        return False
    if "subject" in rule and not same_subject(rule["subject"], subject):
        return False
    if "predicate" in rule:
        preds = rule["predicate"] if isinstance(rule["predicate"], list) else [rule["predicate"]]
        if DEFAULT_REGISTRY.canonical(predicate) not in {DEFAULT_REGISTRY.canonical(p) for p in preds}:
            return False
    return "value" not in rule or norm(rule["value"]) in norm(value)


def forbidden_hits(item: dict[str, Any], cands: Sequence[CandidateClaim]) -> list[tuple[dict[str, Any], CandidateClaim]]:
    """The (rule, claim) pairs where a candidate is one the item forbids."""
    return [(f, c) for f in item.get("forbid", ()) for c in cands
            if violates(f, c.subject, c.predicate, c.value, c.polarity)]


def score_sequence(item: dict[str, Any], extractor: Any = None) -> tuple[bool, list[str]]:
    """One sequence through the real write pipeline: (passed, the final current claims as text).

    :param extractor: the pipeline's extractor (default: ``--extractor``'s, else the product's own).
    """
    extractor = extractor or SEQUENCE_EXTRACTOR[0] or EXTRACTOR[0]
    with Memory(":memory:", embedder="none", now=T0) as mem:
        if extractor is not None:
            mem._container.extractor.override(extractor)  # noqa: SLF001 - the benchmark picks the extractor
        for i, text in enumerate(item["texts"]):
            at = T0 + timedelta(days=i)
            mem.clock.set(at)  # type: ignore[attr-defined]
            mem.add(text, session="s", occurred_at=at)
        everything = list(_all_claims(mem))
    live = [c for c in everything if c.status.value == "active" and c.polarity]
    ok = all(any(matches(e, c.subject, c.predicate, c.value, True) for c in live) for e in item.get("current", ()))
    wanted = [norm(e["value"]) for e in item.get("current", ())]
    for e in item.get("absent", ()):
        # A retired value must have been extracted once, and no live claim may hold it — unless that
        # claim is an expected current value containing it (一万五 contains 一万).
        seen = any(matches(e, c.subject, c.predicate, c.value, True) for c in everything)
        still = any(matches(e, c.subject, c.predicate, c.value, True) and not any(w in norm(c.value) for w in wanted)
                    for c in live)
        ok = ok and seen and not still
    for e in item.get("never", ()):
        # A value that must not be current at the end and need not ever have been (another person's
        # value given to the user through a pronoun): no live claim holds it.
        ok = ok and not any(matches(e, c.subject, c.predicate, c.value, True) for c in live)
    return ok, [f"{c.subject}·{c.predicate}·{c.value}{'' if c.polarity else ' (not)'}" for c in everything
                if c.status.value == "active"]


def _all_claims(mem: Memory) -> Iterable[Any]:
    after = None
    while True:
        page = mem.claims(limit=200, after=after)
        yield from page.items
        if page.next_cursor is None:
            return
        after = page.next_cursor


def statements(items: Sequence[dict[str, Any]], *, verbose: bool, quiet: bool = False) -> dict[str, Any]:
    per_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    totals = {"fact": [0, 0], "nonfact": [0, 0], "sequence": [0, 0]}
    failures = []
    #: items with a forbidden claim, those where it is a wrong subject, and claims no expectation names.
    wrong = {"forbidden": 0, "wrong_subject": 0, "extra_claims": 0}
    for item in items:
        if item["kind"] == "sequence":
            ok, got = score_sequence(item)
        else:
            ok, cands = score_item(item)
            got = [f"{c.subject}·{c.predicate}·{c.value}{'' if c.polarity else ' (not)'}" for c in cands]
            hits = forbidden_hits(item, cands)
            wrong["forbidden"] += bool(hits)
            wrong["wrong_subject"] += any("subject" in f for f, _ in hits)
            if item["kind"] == "fact":
                wrong["extra_claims"] += sum(
                    not any(matches(e, c.subject, c.predicate, c.value, c.polarity) for e in item["expect"]) for c in cands)
        key = f"{item['class']}/{item['lang']}"
        per_class[key][0] += ok
        per_class[key][1] += 1
        totals[item["kind"]][0] += ok
        totals[item["kind"]][1] += 1
        if not ok:
            failures.append({"id": item["id"], "text": item.get("text") or " | ".join(item["texts"]), "got": got})
    if verbose:
        for f in failures:
            print(f"  FAIL {f['id']}: {f['text']}\n        got {f['got']}")
    for key in () if quiet else sorted(per_class):
        if key == min(per_class):
            print(f"{'class/lang':<22}{'pass':>6}{'n':>5}{'rate':>8}")
        ok, n = per_class[key]
        print(f"{key:<22}{ok:>6}{n:>5}{ok / n:>8.2f}")
    rates = {k: (round(v[0] / v[1], 3) if v[1] else None) for k, v in totals.items()}
    print(f"fact recall {rates['fact']}  non-fact precision {rates['nonfact']}  sequence accuracy {rates['sequence']}")
    print(f"items with a forbidden claim {wrong['forbidden']} (a wrong subject: {wrong['wrong_subject']}); "
          f"claims on fact items that no expectation names: {wrong['extra_claims']}")
    return {"fact_recall": rates["fact"], "nonfact_precision": rates["nonfact"], "sequence_accuracy": rates["sequence"],
            "forbidden_items": wrong["forbidden"], "wrong_subject_items": wrong["wrong_subject"],
            "extra_claims": wrong["extra_claims"],
            "counts": {k: {"pass": v[0], "n": v[1]} for k, v in totals.items()},
            "per_class": {k: {"pass": v[0], "n": v[1]} for k, v in sorted(per_class.items())},
            "failures": [f["id"] for f in failures]}


# -- MemDaily -----------------------------------------------------------------------------------


def memdaily(folder: Path, trajectories: int) -> tuple[dict[str, Any], list[str]]:
    files = sorted(folder.glob("[0-9][0-9]_*.json"))
    messages = with_claim = questions = answered = ceiling = answered_whole = ceiling_whole = 0
    lengths: list[int] = []
    whole = 0
    texts: list[str] = []
    for path in files:
        for traj in json.loads(path.read_text(encoding="utf-8"))[:trajectories]:
            values: list[str] = []
            msgs = [m["message"] for m in traj["message_list"]]
            for i, text in enumerate(msgs):
                cands = run_extractor([source(text, i)])
                messages += 1
                with_claim += bool(cands)
                texts.append(text)
                for c in cands:
                    values.append(c.value)
                    lengths.append(len(c.value))
                    whole += norm(c.value) == norm(text.rstrip("。！!.")) and len(c.value) > 12
            for q in traj["question_list"]:
                whole_answer = norm(str(q["answer"]).rstrip("。"))
                parts = [norm(p.rstrip("。")) for p in str(q["answer"]).split(";")]
                parts = [p for p in parts if p]
                questions += 1
                answered += bool(parts) and all(any(p in norm(v) for v in values) for p in parts)
                ceiling += bool(parts) and all(any(p in norm(m) for m in msgs) for p in parts)
                answered_whole += bool(whole_answer) and any(whole_answer in norm(v) for v in values)
                ceiling_whole += bool(whole_answer) and any(whole_answer in norm(m) for m in msgs)
    lengths.sort()
    out = {
        "files": len(files), "messages": messages, "questions": questions,
        "messages_with_claim": round(with_claim / messages, 3) if messages else None,
        "answer_in_claim_value": round(answered / questions, 3) if questions else None,
        "answer_in_message_ceiling": round(ceiling / questions, 3) if questions else None,
        "answer_in_claim_value_whole": round(answered_whole / questions, 3) if questions else None,
        "answer_in_message_ceiling_whole": round(ceiling_whole / questions, 3) if questions else None,
        "claims": len(lengths), "value_chars_median": lengths[len(lengths) // 2] if lengths else None,
        "value_chars_p95": lengths[int(len(lengths) * 0.95)] if lengths else None,
        "value_chars_max": lengths[-1] if lengths else None, "values_equal_to_whole_message": whole,
    }
    print(f"MemDaily: {messages} messages, {questions} questions from {len(files)} files")
    for key in ("messages_with_claim", "answer_in_claim_value", "answer_in_message_ceiling",
                "answer_in_claim_value_whole", "answer_in_message_ceiling_whole", "claims",
                "value_chars_median", "value_chars_p95", "value_chars_max", "values_equal_to_whole_message"):
        print(f"  {key:<34}{out[key]}")
    return out, texts


def throughput(texts: Sequence[str], min_seconds: float = 1.0) -> tuple[float, float]:
    """Sentences per second through the extractor alone (after one warm-up pass), and the mean CPU
    time per statement in microseconds (process time, so other processes' load counts less)."""
    events = [source(t, i) for i, t in enumerate(texts)]
    run_extractor(events[:50])
    done, start, cpu = 0, time.perf_counter(), time.process_time()
    while True:
        for ev in events:
            run_extractor([ev])
        done += len(events)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return round(done / elapsed, 1), round((time.process_time() - cpu) / done * 1e6, 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev", "--set", dest="dev", type=Path, default=DEV,
                        help="statement set (JSONL); a fresh set is scored with --set PATH --quiet")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only the totals and the JSON summary (scoring a fresh set once without reading it)")
    parser.add_argument("--sealed", action="store_true", help=f"score the held-back split ({SEALED.name}) instead")
    parser.add_argument("--memdaily", type=Path, default=MEMDAILY, help="MemDaily folder (26 JSON files)")
    parser.add_argument("--trajectories", type=int, default=10, help="trajectories per MemDaily file")
    parser.add_argument("--verbose", "-v", action="store_true", help="list every failing item")
    parser.add_argument("--no-pos", action="store_true", help="no jieba part-of-speech tagger in the guard")
    parser.add_argument("--extractor", choices=("rules", "learned", "union", "fallback"), default="rules",
                        help="rules alone (default), the learned tagger alone, or both combined (ADR 0078)")
    parser.add_argument("--learned-threshold", type=float, default=None,
                        help="the learned tagger's threshold instead of the stored one (exploring; ships nothing)")
    args = parser.parse_args(argv)
    if not args.no_pos:
        from hlmem.adapters.text.pos import jieba_tagger

        TAGGER[0] = jieba_tagger()
        t_load = time.perf_counter()
        TAGGER[0]("成都")
        print(f"jieba part-of-speech tagger loaded in {time.perf_counter() - t_load:.2f} s")
    if args.extractor != "rules":
        from hlmem.adapters.extraction.wiring import offline_extractor
        from hlmem.adapters.text.pos import jieba_tagger

        EXTRACTOR[0] = offline_extractor(DEFAULT_REGISTRY, TAGGER[0] or jieba_tagger(), args.extractor)
        if args.learned_threshold is not None:
            from hlmem.adapters.extraction.tagger import LearnedExtractor
            from hlmem.adapters.extraction.wiring import combined_extractor

            tagger = LearnedExtractor(DEFAULT_REGISTRY, TAGGER[0] or jieba_tagger(), threshold=args.learned_threshold)
            EXTRACTOR[0] = tagger if args.extractor == "learned" else combined_extractor(
                DEFAULT_REGISTRY, TAGGER[0] or jieba_tagger(), learned=tagger, mode=args.extractor)
    else:  # sequences too: Memory's own default is not the rules alone
        from hlmem.application.extraction.extractors import RuleExtractor

        SEQUENCE_EXTRACTOR[0] = RuleExtractor(DEFAULT_REGISTRY, tagger=TAGGER[0])
    path = SEALED if args.sealed else args.dev
    t = time.perf_counter()
    items = load(path)
    print(f"statements: {path.name}, {len(items)} items")
    summary: dict[str, Any] = {"benchmark": "extraction", "set": path.name, "items": len(items),
                               "pos_tagger": not args.no_pos, "extractor": args.extractor}
    summary["statements"] = statements(items, verbose=args.verbose and not args.quiet, quiet=args.quiet)
    texts = [i["text"] for i in items if "text" in i] + [t for i in items for t in i.get("texts", ())]
    if args.quiet:
        md_texts = []
    elif args.memdaily.is_dir():
        summary["memdaily"], md_texts = memdaily(args.memdaily, args.trajectories)
    else:
        print(f"MemDaily folder {args.memdaily} not found: skipped (pass --memdaily PATH)", file=sys.stderr)
        md_texts = []
    summary["sentences_per_s"], summary["cpu_us_per_statement"] = throughput(texts + md_texts)
    summary["wall_s"] = round(time.perf_counter() - t, 1)
    print(f"throughput: {summary['sentences_per_s']} sentences/s, {summary['cpu_us_per_statement']} µs CPU per statement")
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
