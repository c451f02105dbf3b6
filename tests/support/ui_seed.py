"""A small store for the inspector's browser test (docs/ui.md; the screenshots have their own store,
scripts/ui_screenshots.py).

Chinese and English claims about ``user``, one supersede (北京 → 上海, with its evidence event
verbatim), a value that is HTML (the escaping check), a claim to forget and one to correct and retract.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

#: A claim value that would run script if the page ever built HTML from data.
XSS_VALUE = '<img src=x onerror="window.__xss=1">'
#: The evidence event's text, shown verbatim on the claim page.
EVIDENCE_TEXT = "我以前住在北京，2023 年夏天搬到了上海。"


@frozen
class Seeded:
    """The ids the test looks for."""

    evidence: str
    beijing: str
    shanghai: str
    employer: str
    xss: str
    doomed: str
    standup: str
    relations: RelSeeded | None = None


def seed(mem: Any) -> Seeded:
    """Write the fixture claims into ``mem`` (a ``Memory``); returns their ids."""
    event = mem.add(EVIDENCE_TEXT, session="s1", occurred_at="2023-07-01T09:00:00Z", extract=False)
    beijing = mem.remember("user", "lives_in", "北京", valid_from="2019-03-01T00:00:00Z", evidence=[event.id],
                           qualifiers={"location": "海淀区"})
    shanghai = mem.correct(beijing.id, "上海", valid_from="2023-06-15T00:00:00Z", evidence=[event.id],
                           reason="moved").write
    employer = mem.remember("user", "employer", "Acme Robotics", valid_from="2021-01-10T00:00:00Z",
                            valid_to="2024-05-31T00:00:00Z", scope="temporal")
    mem.remember("user", "favourite_food", "小笼包", valid_from="2020-01-01T00:00:00Z")
    xss = mem.remember("user", "nickname", XSS_VALUE, valid_from="2022-02-02T00:00:00Z")
    doomed = mem.remember("project", "codename", "Bluebird launch plan", valid_from="2024-01-01T00:00:00Z")
    standup = mem.remember("team", "standup_time", "09:30", valid_from="2024-02-01T00:00:00Z")
    return Seeded(event.id, beijing.id, shanghai.id, employer.id, xss.id, doomed.id, standup.id)


#: The subject of a dense timeline row: one slot whose value changed every day for two weeks.
DENSE_SUBJECT = "deploy-bot"


def seed_dense(mem: Any) -> list[str]:
    """A slot with fourteen long values a day apart (each supersedes the last), years before now:
    on the timeline their bars and labels crowd one row. Returns their ids, oldest first."""
    return [mem.remember(DENSE_SUBJECT, "pipeline_status", f"waiting for review round {n} of the release candidate",
                         valid_from=f"2024-01-{n:02d}T00:00:00Z").id for n in range(1, 15)]


#: An entity name that would run script if the page ever built HTML from data (Tom owns it).
XSS_ENTITY = '<img src=x onerror="window.__xss=2">'
#: The turn the relation claims cite, shown verbatim as an edge's evidence.
RELATION_TEXT = "Tom works at Acme; his manager is Sarah, and he moved from Berlin to Munich."


@frozen
class RelSeeded:
    """The edges around ``Tom`` (relations are reviewed whether or not ``[relations] enabled``)."""

    works_at: str  # accepted
    manager: str  # proposed: the test accepts it
    friend: str  # proposed: the test rejects it
    hometown: str  # proposed: the test retracts its claim behind the page's back, then accept is refused
    hometown_claim: str
    owns: str  # proposed: its target is XSS_ENTITY
    berlin: str  # retired: its claim was corrected (Berlin -> Munich)
    munich: str  # proposed


def seed_relations(mem: Any) -> RelSeeded:
    """Claims about Tom, scanned into edges: one accepted, one retired, the rest in the queue."""
    event = mem.add(RELATION_TEXT, session="rel", extract=False)
    mem.remember("Tom", "employer", "Acme", evidence=[event.id])
    mem.remember("Tom", "boss", "Sarah", evidence=[event.id])
    mem.remember("Tom", "friend", "Priya")
    hometown = mem.remember("Tom", "hometown", "Graz")
    mem.remember("Tom", "owns", XSS_ENTITY)
    berlin = mem.remember("Tom", "lives_in", "Berlin", evidence=[event.id])
    mem.relations.scan()
    mem.correct(berlin.id, "Munich", evidence=[event.id], reason="moved")
    mem.relations.scan()
    edges = {(r.relation, r.target_name): r.relation_id for r in mem.relations.list(entity="Tom")}
    mem.relations.accept(edges["works_at", "Acme"], reason="he said so")
    return RelSeeded(edges["works_at", "Acme"], edges["manager", "Sarah"], edges["friend", "Priya"],
                     edges["hometown", "Graz"], hometown.id, edges["owns", XSS_ENTITY], edges["lives_in", "Berlin"],
                     edges["lives_in", "Munich"])
