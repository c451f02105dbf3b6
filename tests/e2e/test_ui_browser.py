"""The inspector in a real headless Chromium against a real uvicorn (docs/ui.md, ADR 0039).

One server over a seeded store and one browser for the module; each test opens a fresh tab,
which asks for the bearer token on its first 401. The forget, change and review tests write (each\nto its own claims and edges).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs
import pytest

pytest.importorskip("fastapi", reason="the REST tests need the extra: pip install 'hlmem[server]'")

from support.browser import missing  # noqa: E402

if (why := missing()) is not None:
    pytest.skip(why, allow_module_level=True)

from hlmem import Memory  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from support.browser import chromium  # noqa: E402
from support.rest_server import serving  # noqa: E402
from support.ui_seed import (  # noqa: E402
    DENSE_SUBJECT,
    EVIDENCE_TEXT,
    RELATION_TEXT,
    XSS_ENTITY,
    XSS_VALUE,
    Seeded,
    seed,
    seed_dense,
    seed_relations,
)

TOKEN = "browser-test-token"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Seeded, Any]]:
    with Memory(tmp_path_factory.mktemp("ui") / "m.db", embedder="hash", settings=Settings()) as mem:
        ids = attrs.evolve(seed(mem), relations=seed_relations(mem))
        seed_dense(mem)
        with serving(mem, token=TOKEN) as base, chromium() as browser:
            yield base, ids, browser


@pytest.fixture
def page(site: tuple[str, Seeded, Any]) -> Iterator[Any]:
    base, _, browser = site
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    requests: list[Any] = []
    tab.on("request", lambda request: requests.append(request))
    tab.goto(base + "/ui/#/audit")
    tab.fill("#token-input", TOKEN)  # the dialog opens on the first 401
    tab.click("#token-form button")
    tab.wait_for_selector("h1:has-text('Audit log')")
    tab.requests = requests
    try:
        yield tab
        assert errors == [], errors
    finally:
        context.close()


def test_the_token_is_asked_for_kept_in_the_tab_and_never_in_a_url(page: Any, site: tuple[str, Seeded, Any]) -> None:
    assert page.evaluate("sessionStorage.getItem('hlmem.token')") == TOKEN
    api = [r for r in page.requests if "/v1/" in r.url]
    assert api and all(TOKEN not in r.url for r in page.requests)
    assert api[-1].headers["authorization"] == f"Bearer {TOKEN}"
    page.evaluate("sessionStorage.setItem('hlmem.token', 'wrong')")
    page.goto(site[0] + "/ui/#/search?q=上海")
    page.wait_for_selector("#token-error:has-text('That token was refused')")
    page.fill("#token-input", TOKEN)
    page.click("#token-form button")
    page.wait_for_selector("#results table")


def test_search_on_both_clocks(page: Any) -> None:
    page.click("nav a[data-view=search]")
    page.fill("#search-form input[name=q]", "住在哪里 北京 上海")
    page.click("#search-form button")
    results = page.wait_for_selector("#results table")
    assert "上海" in results.inner_text() and EVIDENCE_TEXT in results.inner_text()
    page.fill("#search-form input[name=valid_at]", "2020-06-01T00:00:00Z")
    page.click("#search-form button")
    page.wait_for_selector("#results p:has-text('valid at 2020-06-01')")
    text = page.inner_text("#results")
    assert "北京" in text and "上海" not in text.split("result(s)")[1]
    page.fill("#search-form input[name=valid_at]", "")
    page.fill("#search-form input[name=known_at]", "2000-01-01T00:00:00Z")
    page.click("#search-form button")
    page.wait_for_selector("#results p:has-text('known at 2000-01-01')")
    assert "Nothing recalled." in page.inner_text("#results")


def test_a_claim_page_shows_evidence_verbatim_qualifiers_and_the_chain(page: Any, site: tuple[str, Seeded, Any]) -> None:
    ids = site[1]
    page.goto(site[0] + "/ui/#/search?q=上海")
    page.click(f"#results a[href='#/claim/{ids.shanghai}']")
    assert page.wait_for_selector("#claim-value").inner_text() == "上海"
    assert page.inner_text(f".evidence[data-event='{ids.evidence}'] pre") == EVIDENCE_TEXT
    assert page.get_attribute(".evidence pre span", "lang") == "zh"
    assert "海淀区" in page.inner_text("main table")
    chain = page.inner_text("#chain")
    assert chain.index("北京") < chain.index("上海") and "superseded" in chain


def test_a_timeline_draws_bars_and_the_supersede_arrow(page: Any, site: tuple[str, Seeded, Any]) -> None:
    ids = site[1]
    page.goto(site[0] + "/ui/#/timeline/user")
    page.wait_for_selector("svg.timeline")
    assert page.locator("svg.timeline rect.bar").count() == 5
    arrow = page.locator("svg.timeline path.supersede")
    assert arrow.count() == 1
    assert (arrow.get_attribute("data-from"), arrow.get_attribute("data-to")) == (ids.beijing, ids.shanghai)
    old = page.locator(f"rect.bar[data-claim='{ids.beijing}']").bounding_box()
    new = page.locator(f"rect.bar[data-claim='{ids.shanghai}']").bounding_box()
    assert old["x"] + old["width"] == pytest.approx(new["x"], abs=1.0)  # 北京 ends where 上海 begins
    assert "recorded 20" in page.text_content("svg.timeline")
    assert "recorded 20" in page.locator(f"a:has(rect[data-claim='{ids.beijing}']) > title").text_content()
    page.click(f"rect.bar[data-claim='{ids.beijing}']")
    assert page.wait_for_selector("#claim-value").inner_text() == "北京"


def test_values_from_the_api_are_text_never_markup(page: Any, site: tuple[str, Seeded, Any]) -> None:
    ids = site[1]
    page.goto(site[0] + f"/ui/#/claim/{ids.xss}")
    assert page.wait_for_selector("#claim-value").inner_text() == XSS_VALUE
    for where in (f"#/claim/{ids.xss}", "#/timeline/user", "#/search?q=nickname"):
        page.goto(site[0] + "/ui/" + where)
        page.wait_for_function("v => document.querySelector('main').textContent.includes(v)", arg=XSS_VALUE)
        assert page.locator("main img").count() == 0
        assert page.evaluate("window.__xss") is None


def test_forget_dry_run_then_confirm_then_it_is_gone_and_audited(page: Any, site: tuple[str, Seeded, Any]) -> None:
    base, ids, _ = site
    page.goto(base + "/ui/#/search?q=Bluebird")
    page.wait_for_selector(f"#results a[href='#/claim/{ids.doomed}']")
    page.goto(base + f"/ui/#/claim/{ids.doomed}")
    page.click("text=Forget this claim…")
    assert page.input_value("#forget-form input[name=target]") == ids.doomed
    page.fill("#forget-form input[name=reason]", "browser test")
    page.click("#forget-form button")
    items = page.wait_for_selector("#forget-items").inner_text()
    assert ids.doomed in items and "Bluebird launch plan" in items
    counts = page.inner_text("table.counts")
    assert "claims\t1" in counts and "vectors" in counts
    assert "null" not in page.inner_text("#forget-result") and "undefined" not in page.inner_text("#forget-result")
    page.goto(base + "/ui/#/search?q=Bluebird")  # the dry run removed nothing
    page.wait_for_selector(f"#results a[href='#/claim/{ids.doomed}']")
    page.go_back()
    page.fill("#forget-form input[name=reason]", "browser test")
    page.click("#forget-form button")
    page.click("#forget-confirm")
    assert "Forgotten: 1 item(s)" in page.wait_for_selector("#forget-done").inner_text()
    page.goto(base + "/ui/#/search?q=Bluebird")
    page.wait_for_selector("#results p.muted")
    assert "Bluebird launch plan" not in page.inner_text("#results")
    assert page.locator(f"#results a[href='#/claim/{ids.doomed}']").count() == 0
    page.click("nav a[data-view=audit]")
    audit = page.wait_for_selector("#audit").inner_text()
    assert "forget" in audit and ids.doomed in audit and "rest" in audit


def test_swagger_ui_renders_the_schema_with_no_other_host(site: tuple[str, Seeded, Any]) -> None:
    """/docs works offline: every request the page makes goes to this server (docs/rest.md)."""
    base, _, browser = site
    context = browser.new_context(extra_http_headers={"Authorization": f"Bearer {TOKEN}"})
    elsewhere: list[str] = []

    def only_here(route: Any) -> None:
        if route.request.url.startswith(base):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    context.route("**/*", only_here)
    try:
        tab = context.new_page()
        tab.set_default_timeout(10_000)
        tab.goto(base + "/docs")
        tab.wait_for_selector(".opblock-summary-path:has-text('/v1/recall')")
        assert "hlmem" in tab.inner_text(".info .title")
        assert elsewhere == []
    finally:
        context.close()


def test_correct_then_retract_from_the_claim_page(page: Any, site: tuple[str, Seeded, Any]) -> None:
    base, ids, _ = site
    page.goto(base + f"/ui/#/claim/{ids.standup}")
    page.wait_for_selector("#correct-form")
    page.fill("#correct-form input[name=value]", "10:00")
    page.fill("#correct-form input[name=reason]", "moved later")
    page.click("#correct-form button")
    page.wait_for_function("() => document.querySelector('#claim-value')?.textContent === '10:00'")
    new_id = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
    assert new_id != ids.standup
    chain = page.inner_text("#chain")
    assert chain.index("09:30") < chain.index("10:00") and "superseded" in chain
    page.fill("#retract-form input[name=reason]", "no standups any more")
    page.click("#retract-form button")
    page.wait_for_selector("dd .status.retracted")
    assert page.locator("#correct-form").count() == 0  # only an active claim can change
    page.goto(base + f"/ui/#/claim/{ids.standup}")  # the old value: superseded, nothing to change
    page.wait_for_selector("dd .status.superseded")
    assert page.locator("#retract-form").count() == 0
    page.click("nav a[data-view=audit]")
    audit = page.wait_for_selector("#audit").inner_text()
    assert "retract" in audit and new_id in audit


def test_a_refused_change_shows_the_error_and_keeps_the_form(page: Any, site: tuple[str, Seeded, Any]) -> None:
    base, ids, _ = site
    page.goto(base + f"/ui/#/claim/{ids.employer}")
    page.wait_for_selector("#correct-form")
    page.fill("#correct-form input[name=value]", "Globex")
    page.fill("#correct-form input[name=valid_from]", "not a time")
    page.click("#correct-form button")
    error = page.wait_for_selector("#change-result .error").inner_text()
    assert "valid_from" in error or "time" in error.lower(), error
    assert page.input_value("#correct-form input[name=value]") == "Globex"
    assert page.is_enabled("#correct-form button")


#: The bounding boxes of the timeline's visible labels (value, recorded time, slot).
LABEL_BOXES = """() => [...document.querySelectorAll('svg.timeline text:not(.axis)')]
  .filter((t) => t.getAttribute('visibility') !== 'hidden' && t.textContent)
  .map((t) => { const b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom, t.textContent]; })"""


def test_labels_in_a_dense_timeline_row_never_overlap(page: Any, site: tuple[str, Seeded, Any]) -> None:
    page.goto(site[0] + f"/ui/#/timeline/{DENSE_SUBJECT}")
    page.wait_for_selector("svg.timeline")
    assert page.locator("svg.timeline rect.bar").count() == 14
    boxes = page.evaluate(LABEL_BOXES)
    assert len(boxes) >= 3  # at least the slot and the newest value with its recorded time
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a[2] <= b[0] + 0.5 or b[2] <= a[0] + 0.5 or a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5
            assert apart, (a, b)
    newest = "waiting for review round 14 of the release candidate"
    assert any(box[4] == newest for box in boxes)  # the last bar has the room to the right edge
    assert any(box[4].endswith("…") for box in boxes) or len(boxes) < 30  # crowded ones are shortened
    assert newest.replace("14", "3") in page.inner_text("main table")  # every value whole in the table


def test_the_audit_log_wraps_instead_of_scrolling_sideways(page: Any, site: tuple[str, Seeded, Any]) -> None:
    import httpx

    base, ids, _ = site
    auth = {"Authorization": f"Bearer {TOKEN}"}
    made = httpx.post(f"{base}/v1/memories", json={"subject": "audit", "predicate": "note", "value": "v"},
                      headers=auth, timeout=30).json()
    httpx.post(f"{base}/v1/memories/{made['id']}/retract", json={"reason": "r" * 400}, headers=auth, timeout=30)
    httpx.post(f"{base}/v1/forget", json={"id": made["id"], "reason": "x" * 300}, headers=auth, timeout=30)
    page.goto(base + "/ui/#/search")
    page.click("nav a[data-view=audit]")
    page.wait_for_selector(f"#audit td:has-text('{made['id']}')")
    sideways = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth, "
                             "document.querySelector('#audit').scrollWidth, document.querySelector('#audit').clientWidth]")
    assert sideways[0] <= sideways[1] and sideways[2] <= sideways[3], sideways
    assert page.locator("#audit dl.extra").count() > 0 and "{" not in page.inner_text("#audit dl.extra dt")


def test_an_event_page_names_each_citing_claim(page: Any, site: tuple[str, Seeded, Any]) -> None:
    base, ids, _ = site
    page.goto(base + f"/ui/#/claim/{ids.evidence}")
    page.wait_for_selector("#cited-by table")
    link = page.locator(f"#cited-by td:first-child a[href='#/claim/{ids.shanghai}']")
    assert link.inner_text() == "user · lives_in · 上海"
    link.click()
    assert page.wait_for_selector("#claim-value").inner_text() == "上海"


def test_the_relation_queue_accepts_rejects_and_keeps_a_refused_row(page: Any, site: tuple[str, Seeded, Any]) -> None:
    import httpx

    base, ids, _ = site
    rel = ids.relations
    page.click("nav a[data-view=relations]")
    row = lambda rid: f"#relations tr[data-relation='{rid}']"  # noqa: E731
    page.wait_for_selector(row(rel.manager))
    queue = page.inner_text("#relations")
    assert "Tom —manager→ Sarah" in queue and "Tom —works_at→ Acme" not in queue  # accepted: not in the queue
    assert page.locator(row(rel.berlin)).count() == 0  # retired: not in the queue
    page.fill(row(rel.manager) + " input[name=reason]", "Tom told me")
    page.click(row(rel.manager) + " button.accept")
    page.wait_for_selector("#relations-decided:has-text('Accepted: Tom —manager→ Sarah')")
    assert page.locator(row(rel.manager)).count() == 0
    page.click(row(rel.friend) + " button.reject")
    page.wait_for_selector("#relations-decided:has-text('Rejected: Tom —friend→ Priya')")
    assert page.locator(row(rel.friend)).count() == 0
    # The evidence of a queued edge is retracted behind the page's back: accept is refused, the row stays.
    auth = {"Authorization": f"Bearer {TOKEN}"}
    httpx.post(f"{base}/v1/memories/{rel.hometown_claim}/retract", json={"reason": "not true"}, headers=auth,
               timeout=30).raise_for_status()
    page.click(row(rel.hometown) + " button.accept")
    error = page.wait_for_selector(row(rel.hometown) + " .error").inner_text()
    assert "retired" in error or "evidence" in error, error
    assert page.is_enabled(row(rel.hometown) + " button.accept")
    page.select_option("#relations-form select[name=status]", "accepted")
    page.click("#relations-form button")
    page.wait_for_selector(row(rel.manager))
    assert page.locator(f"{row(rel.manager)} .status.accepted").count() == 1
    assert page.locator(row(rel.works_at)).count() == 1 and page.locator(row(rel.friend)).count() == 0
    page.select_option("#relations-form select[name=status]", "retired")
    page.click("#relations-form button")
    page.wait_for_selector(row(rel.hometown))
    assert page.locator(row(rel.berlin)).count() == 1 and page.locator(row(rel.munich)).count() == 0
    shown = httpx.get(f"{base}/v1/relations/{rel.manager}", headers=auth, timeout=30).json()
    assert (shown["status"], shown["review_reason"]) == ("accepted", "Tom told me")


def test_a_neighbourhood_draws_edges_by_status_and_opens_their_evidence(page: Any, site: tuple[str, Seeded, Any]) -> None:
    base, ids, _ = site
    rel = ids.relations
    page.goto(base + "/ui/#/relations?status=all")
    page.click(f"#relations tr[data-relation='{rel.works_at}'] .edge-text a >> nth=0")  # Tom
    page.wait_for_selector("svg.relgraph")
    assert page.inner_text("main h1") == "Neighbourhood: Tom"
    edge = lambda rid: f"svg.relgraph g.edge[data-relation='{rid}']"  # noqa: E731
    assert page.locator("svg.relgraph g.edge").count() == 7
    assert page.locator("svg.relgraph a.node").count() == 7  # one node per neighbour
    dashes = lambda rid: page.eval_on_selector(edge(rid) + " path.line", "p => getComputedStyle(p).strokeDasharray")  # noqa: E731
    faint = lambda rid: float(page.eval_on_selector(edge(rid), "g => getComputedStyle(g).opacity"))  # noqa: E731
    assert "accepted" in page.get_attribute(edge(rel.works_at), "class") and dashes(rel.works_at) == "none"
    assert dashes(rel.munich) != "none" and faint(rel.munich) == 1.0  # proposed: dashed
    assert faint(rel.berlin) < 0.5  # retired: faint
    page.click(edge(rel.works_at) + " text.rel")
    evidence = page.wait_for_selector("#edge-detail .evidence pre:has-text('Acme')").inner_text()
    assert page.locator("#edge-detail .evidence pre").all_inner_texts() == ["Tom · employer · Acme", RELATION_TEXT]
    assert evidence == "Tom · employer · Acme" and "he said so" in page.inner_text("#edge-detail dl")
    assert "selected" in page.get_attribute(edge(rel.works_at), "class")
    page.click("#edge-detail .evidence a[href^='#/claim/ev_']")
    page.wait_for_selector("#cited-by")
    assert page.inner_text("main pre.verbatim") == RELATION_TEXT
    page.go_back()
    page.wait_for_selector("svg.relgraph")
    page.click("svg.relgraph a.node:has(text:has-text('Munich')) circle")
    page.wait_for_function("() => document.querySelector('main h1')?.textContent === 'Neighbourhood: Munich'")
    assert page.locator("svg.relgraph g.edge").count() == 1


def test_a_hostile_entity_name_is_text(page: Any, site: tuple[str, Seeded, Any]) -> None:
    base, ids, _ = site
    page.goto(base + "/ui/#/relations")
    page.fill("#entity-form input[name=entity]", XSS_ENTITY)
    page.click("#entity-form button")
    page.wait_for_selector("svg.relgraph")
    assert page.inner_text("main h1") == "Neighbourhood: " + XSS_ENTITY
    for where in (f"#/entity/Tom?edge={ids.relations.owns}", "#/relations?status=all"):
        page.goto(base + "/ui/" + where)
        page.wait_for_function("v => document.querySelector('main').textContent.includes(v)", arg=XSS_ENTITY)
        assert page.locator("main img").count() == 0
    assert page.evaluate("window.__xss") is None
