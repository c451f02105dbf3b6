"""Policy induction on a synthetic tool-use workload (docs/experience.md, ADR 0045).

``--task-types`` situations (default 30), of which ``--noise-types`` (default 5) are noise only:
every approach there succeeds with the same probability. Each other type has ``--approaches``
approaches (default 3) with one known best (success ``--best-low``..``--best-high``, others
``--other-low``..``--other-high``). ``--episodes`` episodes (default 1,000) pick a type at random
and an approach — ``--agent explore``: at random, what is learnt never used; ``--agent follow``:
what recall answers to "how do I <goal>" for this situation, except with probability
``--epsilon`` — with goals worded differently each time (file names, numbers, case, punctuation:
what the trigger signature must set aside), 1–4 steps with costs and occasional failed steps,
and outcome labels flipped with probability ``--flip`` (noise in the feedback). Every episode
goes through ``Memory.start_episode`` / ``record_step`` / ``end_episode``, so induction runs as it
does in use, at each end.

Afterwards: for each type with a best approach, is there exactly one active policy and does it
name the best approach? For each noise-only type, is there no live policy? Target: >= 90 % and
none. The log is replayed and compared (the projection must rebuild exactly). As a yardstick of
what the evidence allows at all, a one-shot two-proportion z test on the final counts is
reported at several thresholds (``one_shot_test``: types it would name right, noise-only types
it would give a policy), and so is the Bayes oracle of ``experience_ceiling.py`` (``oracle``): the
posterior, under the world's own parameters, that a type is real with its best-looking approach
best, at several thresholds — on the same final counts no rule names more types for as few noise
policies. ``--seeds 1,2,3`` runs several seeds and prints one row each.

    python benchmarks/experience_policies.py                      # 1,000 episodes, seed 17
    python benchmarks/experience_policies.py --seeds 1,2,3,4,5,17 --episodes 3000
    python benchmarks/experience_policies.py --agent follow --store sqlite
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from pathlib import Path

from _common import emit, machine_facts, print_table
from experience_ceiling import THRESHOLDS, World, posterior

from hlmem import Memory
from hlmem.domain.experience_bayes import standing
from hlmem.domain.experience_counts import Counts
from hlmem.domain.experience_policy import PolicyThresholds, reliability
from hlmem.domain import experience_prior
from hlmem.domain.experience_prior import fit_prior
from hlmem.domain.experience_signature import trigger_signature

VERBS = ("deploy", "migrate", "index", "backup", "compile", "lint", "profile", "restore", "upgrade", "package")
OBJECTS = ("billing service", "search cluster", "user database", "docs site", "mobile app", "payment worker")
TOOLS = ("docker", "helm", "ansible", "make", "bazel", "npm", "pip", "terraform", "kubectl", "rsync", "cargo", "gradle")
ERRORS = ("E_TIMEOUT", "E_PERM", "E_OOM", "E_CONFLICT")


def make_types(rng: random.Random, args) -> list[dict]:
    """The task types: a goal template (a distinct verb-object pair), approaches, success rates."""
    pairs = [(v, o) for v in VERBS for o in OBJECTS]
    rng.shuffle(pairs)
    types = []
    for k in range(args.task_types):
        verb, obj = pairs[k % len(pairs)]
        approaches = rng.sample(TOOLS, args.approaches)
        noise = k >= args.task_types - args.noise_types
        if noise:
            p = rng.uniform(args.noise_low, args.noise_high)
            rates = {a: p for a in approaches}
            best = None
        else:
            best = approaches[0]
            rates = {a: rng.uniform(args.other_low, args.other_high) for a in approaches[1:]}
            rates[best] = rng.uniform(args.best_low, args.best_high)
        types.append({"id": k, "verb": verb, "object": obj, "approaches": approaches, "rates": rates, "best": best,
                      "noise": noise})
    return types


def goal_of(t: dict, rng: random.Random) -> str:
    """A wording of the type's goal that differs between runs only in what the signature sets aside."""
    verb = t["verb"].upper() if rng.random() < 0.2 else t["verb"].capitalize() if rng.random() < 0.5 else t["verb"]
    where = rng.choice((f"src/{t['object'].split()[0]}_{rng.randrange(100)}.py", f"deploy/{rng.randrange(9)}/x.yaml",
                        f"artifacts/lib-{rng.randrange(1, 9)}.{rng.randrange(20)}.tar"))
    tail = rng.choice(("", "!", ".", " ?"))
    return f"{verb} the {t['object']} from {where} for ticket {rng.randrange(10_000)}{tail}"


def choose(mem: Memory, t: dict, goal: str, rng: random.Random, args) -> str:
    """The approach the agent takes. ``explore``: one at random, what is learnt never used.
    ``follow``: ask recall "how do I <goal>" and, with probability 1 - ``epsilon``, take the first
    recalled procedure's or *active* policy's approach that is advice for this very situation (the
    item's subject is the goal's trigger signature) and one the agent has; else one at random.
    Candidates, which recall also offers (marked), are not followed: with the Wilson rule that
    starved the comparison of the other approaches (ADR 0050), and the tuning runs here kept it so."""
    if args.agent == "follow" and rng.random() >= args.epsilon:
        own = trigger_signature(goal)
        for item in mem.recall(f"how do I {goal}", k=5, kinds=("event",)).items:
            if item.kind in ("procedure", "policy") and item.status == "active" and item.subject == own \
                    and item.value in t["approaches"]:
                return item.value
    return rng.choice(t["approaches"])


def run(args) -> dict:
    rng = random.Random(args.seed)
    types = make_types(rng, args)
    thresholds = PolicyThresholds(min_support=args.min_support, min_reliability=args.min_reliability,
                                  min_lead=args.min_lead, z=args.z, probation=args.probation,
                                  retire_after=args.retire_after, retire_z=args.retire_z, rule=args.rule,
                                  min_confidence=args.min_confidence, retire_confidence=args.retire_confidence)
    with tempfile.TemporaryDirectory(prefix="hlmem-exp-bench-") as tmp:
        path = ":memory:" if args.store == "memory" else Path(tmp) / "exp.db"
        return _run(args, rng, types, thresholds, path)


def _run(args, rng: random.Random, types: list[dict], thresholds: PolicyThresholds, path) -> dict:
    started = time.perf_counter()
    counts: dict[int, dict[str, list[int]]] = {t["id"]: {a: [0, 0] for a in t["approaches"]} for t in types}
    with Memory(path, embedder="none", synchronous="NORMAL", now="2026-03-01T09:00:00Z") as mem:
        mem.set_experience_thresholds(thresholds)
        signatures: dict[int, set[str]] = {t["id"]: set() for t in types}
        steps = 0
        for _ in range(args.episodes):
            t = rng.choice(types)
            goal = goal_of(t, rng)
            approach = choose(mem, t, goal, rng, args)
            ep = mem.start_episode(goal, approach=approach)
            signatures[t["id"]].add(ep.signature)
            for i in range(rng.randint(1, 4)):
                failed = rng.random() < 0.15
                mem.record_step(ep.episode_id, f"{approach} step {i + 1}", tool=approach, cost=round(rng.random(), 3),
                                error=rng.choice(ERRORS) if failed else "", observation="ok" if not failed else "")
                steps += 1
            ok = rng.random() < t["rates"][approach]
            if rng.random() < args.flip:
                ok = not ok
            mem.end_episode(ep.episode_id, "succeeded" if ok else "failed", reward=1.0 if ok else 0.0)
            counts[t["id"]][approach][0] += ok
            counts[t["id"]][approach][1] += 1
        elapsed = time.perf_counter() - started
        policies = mem.policies()
        rows, right, noisy_live = [], 0, 0
        for t in types:
            sigs = signatures[t["id"]]
            live = [p for p in policies if p.signature in sigs and p.status in ("candidate", "active")]
            active = [p for p in live if p.status == "active"]
            if t["noise"]:
                ok = not live
                noisy_live += bool(live)
            else:
                ok = len(active) == 1 and active[0].approach == t["best"]
                right += ok
            shown = active[0] if active else (live[0] if live else None)
            rows.append({"type": t["id"], "kind": "noise" if t["noise"] else "best", "best": t["best"] or "-",
                         "best_rate": None if t["noise"] else round(t["rates"][t["best"]], 2),
                         "policy": shown.approach if shown else "-", "status": shown.status if shown else "-",
                         "support": f"{shown.successes}/{shown.support}" if shown else "-",
                         "reliability": round(reliability(shown, thresholds), 2) if shown else None,
                         "tried": " ".join(f"{a}:{c[0]}/{c[1]}" for a, c in counts[t["id"]].items()),
                         "ok": "yes" if ok else "NO"})
        replay = mem.replay()
        procedures = mem.procedures(status="active")
        posterior_picks = own_posterior(mem, types, signatures)
    scored = sum(1 for t in types if not t["noise"])
    return {"rows": rows, "summary": {
        "benchmark": "experience_policies", "seed": args.seed, "episodes": args.episodes, "steps": steps,
        "task_types": args.task_types, "noise_types": args.noise_types, "approaches": args.approaches,
        "flip": args.flip, "store": args.store, "agent": args.agent,
        "epsilon": args.epsilon if args.agent == "follow" else None,
        "thresholds": {"rule": thresholds.rule, "min_support": thresholds.min_support,
                       "min_reliability": thresholds.min_reliability, "min_lead": thresholds.min_lead, "z": thresholds.z,
                       "probation": thresholds.probation, "retire_after": thresholds.retire_after,
                       "retire_z": thresholds.retire_z, "min_confidence": thresholds.min_confidence,
                       "retire_confidence": thresholds.retire_confidence},
        "best_named": right, "best_types": scored, "best_named_share": round(right / scored, 4) if scored else None,
        "noise_types_with_policy": noisy_live, "active_policies": sum(1 for p in policies if p.status == "active"),
        "active_procedures": len(procedures), "signatures_per_type_max": max(len(s) for s in signatures.values()),
        "seconds": round(elapsed, 2), "episodes_per_s": round(args.episodes / elapsed, 1),
        "replay_equal": replay.equal,
        "one_shot_test": one_shot(types, counts, args.min_support),
        "oracle": oracle(types, counts, world_of(args)),
        "oracle_picks": oracle_picks(types, counts, world_of(args)),
        "posterior_picks": posterior_picks,
        "own_posterior": [{"threshold": th, "best_named": sum(1 for _, right, p in posterior_picks if right and p >= th),
                           "noise_flagged": sum(1 for noise, _, p in posterior_picks if noise and p >= th)}
                          for th in (0.5, 0.6, 0.7, 0.8, *THRESHOLDS[2:])],
        "target_met": bool(scored) and right / scored >= 0.9 and noisy_live == 0, "machine": machine_facts()}}


def one_shot(types: list[dict], counts: dict[int, dict[str, list[int]]], min_support: int) -> list[dict]:
    """How much the workload's evidence allows at all: once, on the final counts, per type, the
    approach with the best success rate (of those tried ``min_support`` times) against the others
    pooled, a two-proportion z test at several thresholds. Reports, per threshold, the types it
    would name the best approach for and the noise-only types it would give a policy."""
    out = []
    for zc in (1.0, 1.5, 2.0, 2.5, 3.0):
        named = flagged = 0
        for t in types:
            c = counts[t["id"]]
            tried = [a for a in c if c[a][1] >= min_support]
            if not tried:
                continue
            a = max(tried, key=lambda x: (c[x][0] / c[x][1], c[x][1], x))
            s, n = c[a]
            os_, on = sum(c[b][0] for b in c if b != a), sum(c[b][1] for b in c if b != a)
            if not on:
                continue
            pooled = (s + os_) / (n + on)
            se = math.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / n + 1 / on))
            if (s / n - os_ / on) / se < zc:
                continue
            if t["noise"]:
                flagged += 1
            else:
                named += a == t["best"]
        out.append({"z": zc, "best_named": named, "noise_flagged": flagged})
    return out


def world_of(args) -> World:
    """The generator's parameters as the oracle knows them."""
    return World(args.approaches, (args.best_low, args.best_high), (args.other_low, args.other_high),
                 (args.noise_low, args.noise_high), args.flip, args.noise_types / args.task_types)


def own_posterior(mem: Memory, types: list[dict], signatures: dict[int, set[str]]) -> list[list]:
    """Per type, what hlmem's own posterior says on the final counts, under a prior fitted on the
    store's final counts (what ``rule = "bayes"`` would conclude if it judged once, at the end):
    ``[noise_only, its likely best is the best, confidence]``. Beside the oracle's, it separates
    what the learnt prior loses (this against the oracle) from what deciding as the episodes come
    loses (the lifecycle against this)."""
    reader = mem.storage.experience
    prior = fit_prior(reader.situation_counts(mem.namespace).values())
    out = []
    for t in types:
        counts = {}
        for sig in signatures[t["id"]]:
            for a, c in reader.approach_counts(mem.namespace, sig).items():
                old = counts.get(a, Counts(0, 0))
                counts[a] = Counts(old.successes + c.successes, old.failures + c.failures)
        st = standing(counts, prior)
        leader = st.leader
        out.append([t["noise"], not t["noise"] and leader == t["best"], round(st.confidence(leader), 6) if leader else 0.0])
    return out


def oracle_picks(types: list[dict], counts: dict[int, dict[str, list[int]]], world: World) -> list[list]:
    """Per type, what the Bayes oracle says on the final counts: ``[noise_only, picks_the_best, posterior]``."""
    out = []
    for t in types:
        c = counts[t["id"]]
        pick, prob = posterior([(c[a][0], c[a][1]) for a in t["approaches"]], world)
        out.append([t["noise"], not t["noise"] and t["approaches"][pick] == t["best"], round(prob, 6)])
    return out


def oracle(types: list[dict], counts: dict[int, dict[str, list[int]]], world: World) -> list[dict]:
    """The Bayes oracle on the final counts (``experience_ceiling.posterior``): per threshold, the
    types whose most probable best approach is the real best with a posterior at least that high,
    and the noise-only types it would give a policy."""
    picks = oracle_picks(types, counts, world)
    return [{"threshold": th, "best_named": sum(1 for _, right, p in picks if right and p >= th),
             "noise_flagged": sum(1 for noise, _, p in picks if noise and p >= th)} for th in THRESHOLDS]


def oracle_frontier(picks: list[list]) -> dict[int, int]:
    """Over runs' pooled oracle picks, for each number of noise-only types given a policy, the most
    real types the oracle names right at one threshold that gives no more noise policies than that
    (every distinct posterior tried as the threshold: the frontier, not a few points of it)."""
    out: dict[int, int] = {}
    for th in sorted({p for _, _, p in picks}):
        named = sum(1 for _, right, p in picks if right and p >= th)
        flagged = sum(1 for noise, _, p in picks if noise and p >= th)
        out[flagged] = max(out.get(flagged, 0), named)
    best, frontier = 0, {}
    for flagged in range(sum(1 for noise, _, _ in picks if noise) + 1):
        best = max(best, out.get(flagged, 0))
        frontier[flagged] = best
    return frontier


def main(argv: list[str] | None = None) -> int:
    d = PolicyThresholds()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=1000)
    ap.add_argument("--task-types", type=int, default=30)
    ap.add_argument("--noise-types", type=int, default=5)
    ap.add_argument("--approaches", type=int, default=3)
    ap.add_argument("--best-low", type=float, default=0.8)
    ap.add_argument("--best-high", type=float, default=0.95)
    ap.add_argument("--other-low", type=float, default=0.2)
    ap.add_argument("--other-high", type=float, default=0.5)
    ap.add_argument("--noise-low", type=float, default=0.35)
    ap.add_argument("--noise-high", type=float, default=0.65)
    ap.add_argument("--flip", type=float, default=0.05, help="Probability an outcome label is flipped.")
    ap.add_argument("--agent", choices=("explore", "follow"), default="explore",
                    help="explore: approaches at random; follow: take what recall advises (see --epsilon).")
    ap.add_argument("--epsilon", type=float, default=0.2, help="follow: probability of exploring anyway.")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--store", choices=("memory", "sqlite"), default="memory")
    ap.add_argument("--min-support", type=int, default=d.min_support)
    ap.add_argument("--min-reliability", type=float, default=d.min_reliability)
    ap.add_argument("--min-lead", type=float, default=d.min_lead)
    ap.add_argument("--z", type=float, default=d.z)
    ap.add_argument("--probation", type=int, default=d.probation)
    ap.add_argument("--retire-after", type=int, default=d.retire_after)
    ap.add_argument("--retire-z", type=float, default=d.retire_z)
    ap.add_argument("--rule", choices=("bayes", "wilson"), default=d.rule)
    ap.add_argument("--min-confidence", type=float, default=d.min_confidence)
    ap.add_argument("--retire-confidence", type=float, default=d.retire_confidence)
    ap.add_argument("--prior-shape", choices=experience_prior.SHAPES, default=experience_prior.SHAPE,
                    help="How the learnt prior's distributions are shaped (ADR 0095).")
    ap.add_argument("--prior-strength", type=float, default=experience_prior.STRENGTH,
                    help="Pseudo-situations of a uniform rate that widen the learnt prior.")
    ap.add_argument("--seeds", default="", help="Comma-separated seeds: one summary row each (overrides --seed).")
    args = ap.parse_args(argv)
    experience_prior.SHAPE, experience_prior.STRENGTH = args.prior_shape, args.prior_strength
    if not 0 <= args.noise_types <= args.task_types <= len(VERBS) * len(OBJECTS) or args.episodes < 1 \
            or not 1 <= args.approaches <= len(TOOLS) or not 0.0 <= args.epsilon <= 1.0:
        ap.error(f"need 0 <= --noise-types <= --task-types <= {len(VERBS) * len(OBJECTS)}, "
                 f"1 <= --approaches <= {len(TOOLS)}, --episodes >= 1, 0 <= --epsilon <= 1")
    try:
        seeds = [int(x) for x in args.seeds.split(",") if x.strip()] or [args.seed]
    except ValueError:
        ap.error(f"--seeds must be whole numbers separated by commas, not {args.seeds!r}")
    results = [run(argparse.Namespace(**{**vars(args), "seed": seed})) for seed in seeds]
    if len(results) == 1:
        s = results[0]["summary"]
        print_table(f"experience policies: {s['episodes']} episodes, {s['task_types']} task types "
                    f"({s['noise_types']} noise only), agent {s['agent']}, seed {s['seed']}", results[0]["rows"],
                    ("type", "kind", "best", "best_rate", "policy", "status", "support", "reliability", "tried", "ok"))
        print(f"\nbest approach named for {s['best_named']}/{s['best_types']} types ({s['best_named_share']:.0%}); "
              f"noise-only types with a policy: {s['noise_types_with_policy']}; {s['active_procedures']} active "
              f"procedures; {s['episodes_per_s']} episodes/s; replay equal: {s['replay_equal']}")
        print("one-shot z test on the final counts (named / noise given a policy): "
              + ", ".join(f"z {o['z']}: {o['best_named']}/{o['noise_flagged']}" for o in s["one_shot_test"]))
        print("Bayes oracle on the final counts (named / noise given a policy): "
              + ", ".join(f"p {o['threshold']}: {o['best_named']}/{o['noise_flagged']}" for o in s["oracle"]))
        emit({k: v for k, v in s.items() if k not in ("oracle_picks", "posterior_picks")})
        return 0 if s["target_met"] and s["replay_equal"] else 1
    summaries = [r["summary"] for r in results]
    rows = [{"seed": s["seed"], "best_named": f"{s['best_named']}/{s['best_types']}",
             "noise_with_policy": s["noise_types_with_policy"], "procedures": s["active_procedures"],
             "episodes_per_s": s["episodes_per_s"], "replay_equal": s["replay_equal"],
             **{f"one_shot_z{o['z']}": f"{o['best_named']}/{o['noise_flagged']}" for o in s["one_shot_test"]},
             **{f"oracle_p{o['threshold']}": f"{o['best_named']}/{o['noise_flagged']}" for o in s["oracle"]}}
            for s in summaries]
    first = summaries[0]
    print_table(f"experience policies: {first['episodes']} episodes, {first['task_types']} task types "
                f"({first['noise_types']} noise only), agent {first['agent']}, seeds {','.join(map(str, seeds))}",
                rows, tuple(rows[0]))
    share = sum(s["best_named"] for s in summaries) / max(1, sum(s["best_types"] for s in summaries))
    noisy = sum(s["noise_types_with_policy"] for s in summaries)
    print(f"\nover {len(seeds)} seeds: best approach named for {share:.1%} of types; "
          f"noise-only types with a policy: {noisy} in all")
    for i, th in enumerate(THRESHOLDS):
        o_named = sum(s["oracle"][i]["best_named"] for s in summaries)
        o_noise = sum(s["oracle"][i]["noise_flagged"] for s in summaries)
        print(f"  Bayes oracle at p >= {th}: {o_named / max(1, sum(s['best_types'] for s in summaries)):.1%} named, "
              f"{o_noise} noise-only types given a policy")
    met = all(s["target_met"] and s["replay_equal"] for s in summaries)
    real = sum(s["best_types"] for s in summaries)
    frontier = oracle_frontier([p for s in summaries for p in s["oracle_picks"]])
    own = oracle_frontier([p for s in summaries for p in s["posterior_picks"]])
    at_same = frontier[noisy] / max(1, real)
    print(f"  Bayes oracle at the lifecycle's {noisy} noise-only policies (its frontier over these seeds): "
          f"{at_same:.1%} named; the lifecycle is {100 * (at_same - share):+.1f} points from it")
    emit({"benchmark": "experience_policies", "seeds": seeds, "best_named_share": round(share, 4),
          "noise_types_with_policy": noisy, "target_met_every_seed": met,
          "oracle_at_same_noise": round(at_same, 4), "gap_to_oracle_points": round(100 * (at_same - share), 1),
          "oracle_frontier": {k: round(v / max(1, real), 4) for k, v in frontier.items() if k <= 10},
          "own_posterior_frontier": {k: round(v / max(1, real), 4) for k, v in own.items() if k <= 10},
          "runs": [{k: v for k, v in s.items() if k not in ("machine", "oracle_picks", "posterior_picks")}
                   for s in summaries],
          "machine": first["machine"]})
    return 0 if met else 1

if __name__ == "__main__":
    sys.exit(main())
