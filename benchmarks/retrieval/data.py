"""Dataset loaders: LoCoMo, MemDaily and the HL-Mem smoke set as haystacks of documents and gold-labelled queries.

A *haystack* is what one memory store holds: a LoCoMo conversation, a MemDaily file, a smoke
case. Every query is asked of its own haystack only. Document ids are the dataset's own ids
(LoCoMo ``dia_id``, MemDaily ``<tid>:<mid>``, smoke memory ids), so gold labels are compared as
they are written in the data.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from attrs import field, frozen

#: MemDaily times are local times in China (the data set is Chinese and names Chinese cities).
CHINA = timezone(timedelta(hours=8), "Asia/Shanghai")
#: LoCoMo's categories 1-4 (5 is adversarial, without evidence).
LOCOMO_CATEGORIES = (1, 2, 3, 4)
#: The names follow-up evaluations commonly give LoCoMo's category numbers (SOURCE.md says to verify).
LOCOMO_CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@frozen
class Doc:
    """One memory: a dialogue turn, a user message or a smoke-set memory."""

    id: str
    text: str
    session: str = "default"
    speaker: str = "user"
    occurred_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None


@frozen
class Query:
    """One question with its gold document ids; ``no_match`` queries expect nothing back."""

    id: str
    text: str
    gold: tuple[str, ...]
    category: str
    as_of: datetime | None = None
    #: When the question is asked (``Memory.recall(now=…)``): LoCoMo's last session, MemDaily's own time.
    reference: datetime | None = None
    no_match: bool = False
    max_rank: int | None = None
    extra: dict[str, Any] = field(factory=dict)


@frozen
class Haystack:
    """The documents one store holds and the queries asked of them."""

    name: str
    docs: tuple[Doc, ...]
    queries: tuple[Query, ...]


@frozen
class Dataset:
    """A named list of haystacks and the sha256 of the files they came from (keys the store cache)."""

    name: str
    haystacks: tuple[Haystack, ...]
    source_sha: str
    note: str = ""

    @property
    def docs(self) -> int:
        """Documents over all haystacks."""
        return sum(len(h.docs) for h in self.haystacks)

    @property
    def queries(self) -> int:
        """Queries over all haystacks."""
        return sum(len(h.queries) for h in self.haystacks)


def sha256_files(paths: Iterable[Path]) -> str:
    """sha256 over the bytes of ``paths`` in the given order (names included)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\x00" + path.read_bytes())
    return digest.hexdigest()


# --- LoCoMo ------------------------------------------------------------------------------------

_SESSION = re.compile(r"session_(\d+)")
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")


def parse_locomo_time(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware datetime (UTC: the data gives no zone)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def split_evidence(items: Iterable[str], known: set[str]) -> tuple[str, ...]:
    """Gold ids from LoCoMo ``evidence``: ``;``/space-joined lists are split; ids that match no turn are dropped."""
    out: list[str] = []
    for item in items:
        for part in _EVIDENCE_SPLIT.split(str(item)):
            if part in known and part not in out:
                out.append(part)
    return tuple(out)


def locomo_haystack(sample: dict[str, Any], categories: Sequence[int] = LOCOMO_CATEGORIES, *,
                    speaker_in_text: bool = True) -> Haystack:
    """One conversation: a document per turn (id = ``dia_id``), its session's date as ``occurred_at``.

    Questions of ``categories`` with at least one resolvable evidence id become queries.

    :param speaker_in_text: a turn's text is ``"<speaker>: <text>"`` (the questions name the
        speaker, the turns rarely do); else the bare text, the speaker only in ``Doc.speaker``.
    """
    conv = sample["conversation"]
    docs: list[Doc] = []
    sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.fullmatch(key)))
    for number, key in sessions:
        when = conv.get(f"{key}_date_time")
        at = parse_locomo_time(when) if when else None
        for turn in conv[key]:
            text = f"{turn['speaker']}: {turn['text']}" if speaker_in_text else turn["text"]
            docs.append(Doc(id=turn["dia_id"], text=text, session=key, speaker=turn["speaker"], occurred_at=at))
    known = {d.id for d in docs}
    # Questions are asked after the conversation: at its last session's date (the data gives none of its own).
    reference = max((d.occurred_at for d in docs if d.occurred_at is not None), default=None)
    queries: list[Query] = []
    for i, qa in enumerate(sample["qa"]):
        if qa.get("category") not in categories:
            continue
        gold = split_evidence(qa.get("evidence") or (), known)
        if gold:
            queries.append(Query(id=f"{sample['sample_id']}:q{i}", text=qa["question"], gold=gold,
                                 category=str(qa["category"]), reference=reference))
    return Haystack(sample["sample_id"], tuple(docs), tuple(queries))


def load_locomo(path: Path, *, limit: int | None = None, questions: int | None = None,
                speaker_in_text: bool = True) -> Dataset:
    """LoCoMo conversations (``limit`` first ones), categories 1-4 (``questions`` per conversation at most)."""
    samples = json.loads(path.read_text(encoding="utf-8"))
    haystacks = [locomo_haystack(s, speaker_in_text=speaker_in_text) for s in samples[:limit]]
    if questions is not None:
        haystacks = [Haystack(h.name, h.docs, h.queries[:questions]) for h in haystacks]
    return Dataset("locomo" if speaker_in_text else "locomo-plain", tuple(haystacks), sha256_files([path]))


# --- MemDaily ----------------------------------------------------------------------------------

_CN_TIME = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日(?:\s*周.)?\s*(\d{1,2}):(\d{2})")


def parse_memdaily_time(text: str) -> datetime | None:
    """``"2024年04月01日 周一 08:36"`` as an aware datetime in China time, or None if it does not parse."""
    m = _CN_TIME.search(text or "")
    if not m:
        return None
    year, month, day, hour, minute = map(int, m.groups())
    return datetime(year, month, day, hour, minute, tzinfo=CHINA)


def memdaily_question_type(stem: str) -> str:
    """``"05_post_processing_events"`` -> ``"post_processing"`` (``<NN>_<question type>_<entity type>``)."""
    parts = stem.split("_")
    return "_".join(parts[1:-1]) if len(parts) > 2 else stem


#: How MemDaily's simulated users meet one store: ``mixed`` (default) keeps a file's users in one
#: haystack, each message's session its day (``d2024-04-01``), which says nothing of who wrote it;
#: ``file`` uses the trajectory id as the session, which reveals the user (the old protocol, kept
#: to compare). One store per user is not offered: 72% of the 2,400 trajectories have at most 10
#: messages, so R@10 would be 1.0 for any method that ranks them all.
MEMDAILY_PROTOCOLS = ("mixed", "file")


def memdaily_haystack(name: str, trajectories: Sequence[dict[str, Any]], protocol: str = "mixed") -> Haystack:
    """One file: every message of every trajectory (id ``<tid>:<mid>``); a question's gold is its
    ``target_step_id``; sessions as ``protocol`` says (:data:`MEMDAILY_PROTOCOLS`)."""
    if protocol not in MEMDAILY_PROTOCOLS:
        raise ValueError(f"MemDaily protocol {protocol!r}: one of {', '.join(MEMDAILY_PROTOCOLS)}")
    docs: list[Doc] = []
    queries: list[Query] = []
    for traj in trajectories:
        tid = traj["tid"]
        for msg in traj["message_list"]:
            at = parse_memdaily_time(msg.get("time", ""))
            session = f"t{tid}" if protocol == "file" else (f"d{at:%Y-%m-%d}" if at is not None else "undated")
            docs.append(Doc(id=f"{tid}:{msg['mid']}", text=msg["message"], session=session, occurred_at=at))
        for q in traj["question_list"]:
            gold = tuple(f"{tid}:{mid}" for mid in q.get("target_step_id") or ())
            if gold:
                queries.append(Query(id=f"{name}:{tid}:{q['qid']}", text=q["question"], gold=gold,
                                     category=memdaily_question_type(name),
                                     reference=parse_memdaily_time(q.get("time", "")),
                                     extra={"file": name}))
    return Haystack(name, tuple(docs), tuple(queries))


def load_memdaily(folder: Path, *, files: Sequence[str] = (), limit: int | None = None,
                  questions: int | None = None, trajectories: int | None = None,
                  protocol: str = "mixed") -> Dataset:
    """MemDaily files in name order (those whose stem contains one of ``files``, the first ``limit``).

    :param questions: keep at most this many questions per file (the haystack stays whole).
    :param trajectories: keep only the first N trajectories of each file (haystack and questions).
    """
    paths = sorted(p for p in folder.glob("[0-9][0-9]_*.json") if not files or any(f in p.stem for f in files))
    paths = paths[:limit]
    haystacks = []
    for path in paths:
        hay = memdaily_haystack(path.stem, json.loads(path.read_text(encoding="utf-8"))[:trajectories], protocol)
        if questions is not None:
            hay = Haystack(hay.name, hay.docs, hay.queries[:questions])
        haystacks.append(hay)
    return Dataset("memdaily", tuple(haystacks), sha256_files(paths))


# --- the HL-Mem smoke set ----------------------------------------------------------------------

def _instant(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def smoke_haystack(case: dict[str, Any]) -> Haystack:
    """One smoke case: its memories, and its query (none for the relation cases, which have no query)."""
    inp, exp = case["input"], case.get("expected", {})
    docs = tuple(
        Doc(id=m["id"], text=m["text"], session=case["id"],
            occurred_at=_instant(m.get("occurred_at")) or _instant(m.get("valid_from")),
            valid_from=_instant(m.get("valid_from")), valid_to=_instant(m.get("valid_to")))
        for m in inp.get("memories", ())
    )
    queries: tuple[Query, ...] = ()
    if "query" in inp:
        extra = {k: exp[k] for k in ("winner_event_id", "superseded_event_id") if k in exp}
        queries = (Query(id=case["id"], text=inp["query"], gold=tuple(exp.get("event_ids", ())),
                         category=case["type"], as_of=_instant(inp.get("as_of")),
                         no_match=bool(exp.get("no_match")), max_rank=exp.get("max_rank"), extra=extra),)
    return Haystack(case["id"], docs, queries)


def load_smoke(path: Path, *, limit: int | None = None) -> tuple[Dataset, list[dict[str, Any]]]:
    """The smoke set's haystacks and its raw cases (the relation cases are reported, not run)."""
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases = cases[:limit]
    return Dataset("smoke", tuple(smoke_haystack(c) for c in cases), sha256_files([path])), cases
