// hlmem inspector: relations between people and things (docs/ui.md, docs/relations.md): the review
// queue and a subject's neighbourhood as a small SVG graph. Like app.js, whose helpers it uses, it
// holds no policy and puts data from the API on the page only as text, never as HTML.
"use strict";
(() => {
  const { views, route, el, svg, add, txt, put, show, table, errorBox, api, query, link, claimLink, when, span, status } =
    window.hlmemInspector;

  // ---- relations: the review queue and a subject's neighbourhood (docs/relations.md) -------
  const REL_STATUSES = ["proposed", "accepted", "rejected", "retired", "forgotten", "all"];
  const endName = (end) => (end && end.name) || "(forgotten)";
  const entityHash = (ref, ns, edge) => {
    const q = query({ namespace: ns, edge });
    return "#/entity/" + encodeURIComponent(ref) + (q ? "?" + q : "");
  };
  const entityLink = (end, ns) => (end && end.name ? link(entityHash(end.id, ns), txt(end.name)) : "(forgotten)");
  function edgeLine(r, ns) {
    return el("span", { class: "edge-text" }, entityLink(r.source, ns), " —", r.relation, "→ ", entityLink(r.target, ns));
  }
  // Accept (a proposed or rejected edge) or reject (a proposed or accepted one), as the API allows;
  // the server has the last word: a refused decision shows its error and changes nothing here.
  function reviewControls(r, done) {
    const out = el("div", { class: "review" });
    const reason = el("input", { name: "reason", placeholder: "reason (optional)", "aria-label": "reason" });
    const note = el("span", { class: "review-result" });
    const buttons = [];
    async function decide(action) {
      for (const b of buttons) b.disabled = true;
      put(note);
      try {
        const edge = await api("POST", "relations/" + encodeURIComponent(r.id) + "/" + action, { reason: reason.value });
        done(edge);
      } catch (err) {
        put(note, errorBox(err));
        for (const b of buttons) b.disabled = false;
      }
    }
    if (["proposed", "rejected"].includes(r.status)) {
      buttons.push(el("button", { type: "button", class: "accept", onclick: () => decide("accept") }, "Accept"));
    }
    if (["proposed", "accepted"].includes(r.status)) {
      buttons.push(el("button", { type: "button", class: "danger reject", onclick: () => decide("reject") }, "Reject"));
    }
    if (!buttons.length) return el("span", { class: "muted" }, r.status === "retired" ? "retired: cannot be reviewed" : "—");
    return add(out, [reason, " ", buttons.map((b) => [b, " "]), note]);
  }
  async function relationsView(_parts, params) {
    const st = REL_STATUSES.includes(params.get("status")) ? params.get("status") : "proposed";
    const namespace = params.get("namespace") || "";
    const after = params.get("after") || "";
    const form = el("form", { class: "inline", id: "relations-form" },
      el("label", {}, "status", el("select", { name: "status" },
        REL_STATUSES.map((s) => el("option", { value: s, selected: s === st }, s)))),
      el("label", {}, "namespace", el("input", { name: "namespace", value: namespace, placeholder: "default" })),
      el("button", { type: "submit" }, "Show"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      location.hash = "#/relations?" + query(Object.fromEntries(new FormData(form)));
    });
    const who = el("form", { class: "inline", id: "entity-form" },
      el("label", {}, "entity (a name or an en_ id)", el("input", { name: "entity", required: true })),
      el("button", { type: "submit" }, "Neighbourhood"));
    who.addEventListener("submit", (ev) => {
      ev.preventDefault();
      location.hash = entityHash(new FormData(who).get("entity").trim(), namespace);
    });
    const decided = el("div", { id: "relations-decided", "aria-live": "polite" });
    show(el("h1", {}, st === "proposed" ? "Relations: the review queue" : "Relations: " + st), form, who, decided,
      el("div", { id: "relations" }));
    const res = await api("GET", "relations?" + query({ status: st, namespace, after, limit: 50 }));
    const out = document.getElementById("relations");
    if (!res.items.length) {
      put(out, el("p", {}, st === "proposed" ? "Nothing waits for review." : "No relations with this status."),
        after ? el("p", {}, link("#/relations?" + query({ status: st, namespace }), "First page")) : null);
      return;
    }
    const rows = res.items.map((r) => {
      const row = el("tr", { "data-relation": r.id });
      const cells = () => [edgeLine(r, namespace), status(r.status),
        link(entityHash(r.source.id, namespace, r.id), `${r.evidence.length} item(s)`), when(r.proposed_at),
        reviewControls(r, (edge) => {
          put(decided, el("p", { class: "decided" }, edge.status === "accepted" ? "Accepted: " : "Rejected: ",
            edgeLine(edge, namespace)));
          if (st === "all" || st === edge.status) { r = edge; put(row, cells().map((c) => el("td", {}, c))); }
          else row.remove();
        })];
      put(row, cells().map((c) => el("td", {}, c)));
      return row;
    });
    put(out, el("table", { class: "relations" },
      el("thead", {}, el("tr", {}, ["edge", "status", "evidence", "proposed", "review"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows)),
    el("p", { class: "pager" }, after ? link("#/relations?" + query({ status: st, namespace }), "First page") : null,
      after && res.next_cursor ? " · " : null,
      res.next_cursor ? link("#/relations?" + query({ status: st, namespace, after: res.next_cursor }), "Next page →") : null));
  }

  // A subject's neighbourhood: the entity in the middle, each neighbour on a circle around it,
  // one line per edge (curved apart when a neighbour has several), styled by status.
  async function allRelations(entity, namespace) {
    const out = [];
    let after = null;
    do {
      const page = await api("GET", "relations?" + query({ status: "all", entity, namespace, limit: 1000, after }));
      out.push(...page.items);
      after = page.next_cursor;
    } while (after && out.length < 5000);
    return out;
  }
  const MAX_NEIGHBOURS = 24;
  function drawNeighbourhood(entity, namespace, edges, onEdge) {
    // The middle: the entity asked for by id, else the ends named as asked (one per kind), else the
    // end found in every edge (the user asked as "me" is named "user"), else the first edge's source.
    const ends = edges.flatMap((r) => [r.source, r.target]);
    const asked = entity.trim().toLowerCase();
    let centre = ends.filter((e) => e.id === entity);
    if (!centre.length) centre = ends.filter((e) => (e.name || "").trim().toLowerCase() === asked);
    if (!centre.length) centre = ends.filter((e) => e.kind === "user");  // asked as "我" or "me"
    if (!centre.length) {
      const count = new Map();
      for (const r of edges) for (const id of new Set([r.source.id, r.target.id])) count.set(id, (count.get(id) || 0) + 1);
      centre = ends.filter((e) => count.get(e.id) === edges.length).slice(0, 1);
    }
    const centreIds = new Set((centre.length ? centre : [edges[0].source]).map((e) => e.id));
    const isCentre = (end) => centreIds.has(end.id);
    const centreName = (edges.map((r) => (isCentre(r.source) ? r.source : isCentre(r.target) ? r.target : null))
      .find((e) => e && e.name) || {}).name || entity;
    const neighbours = new Map();
    for (const r of edges) {
      const other = isCentre(r.source) ? r.target : r.source;
      if (!neighbours.has(other.id)) neighbours.set(other.id, { end: other, edges: [] });
      neighbours.get(other.id).edges.push(r);
    }
    const shown = [...neighbours.values()].slice(0, MAX_NEIGHBOURS);
    const W = 820, H = 560, CX = W / 2, CY = H / 2, R = Math.min(W, H) / 2 - 70;
    const nodes = [], lines = [];
    shown.forEach((n, i) => {
      const a = -Math.PI / 2 + (2 * Math.PI * i) / shown.length;
      const x = CX + R * Math.cos(a), y = CY + R * Math.sin(a);
      n.edges.forEach((r, j) => {
        const out = !isCentre(r.target) || isCentre(r.source);  // drawn from the source to the target
        const [x1, y1, x2, y2] = out ? [CX, CY, x, y] : [x, y, CX, CY];
        const bend = (j - (n.edges.length - 1) / 2) * 46 * (out ? 1 : -1);
        const len = Math.hypot(x2 - x1, y2 - y1) || 1;
        const mx = (x1 + x2) / 2 - ((y2 - y1) / len) * bend, my = (y1 + y2) / 2 + ((x2 - x1) / len) * bend;
        // Stop the line at the node's edge so the arrowhead shows.
        const k = 1 - 24 / Math.hypot(x2 - mx, y2 - my);
        const ex = mx + (x2 - mx) * k, ey = my + (y2 - my) * k;
        const d = `M${x1} ${y1} Q${mx} ${my} ${ex} ${ey}`;
        const tx = (x1 + 2 * mx + ex) / 4, ty = (y1 + 2 * my + ey) / 4;
        const g = svg("g", { class: "edge " + r.status, "data-relation": r.id, tabindex: 0, role: "button",
          "aria-label": `${endName(r.source)} ${r.relation} ${endName(r.target)} (${r.status}): show evidence` },
        svg("title", {}, `${endName(r.source)} —${r.relation}→ ${endName(r.target)} (${r.status})`),
        svg("path", { class: "hit", d }),
        svg("path", { class: "line", d, "marker-end": "url(#rel-arrow)" }),
        svg("text", { class: "rel", x: tx, y: ty - 4, "text-anchor": "middle" }, r.relation));
        g.addEventListener("click", () => onEdge(r.id, g));
        g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onEdge(r.id, g); } });
        lines.push(g);
      });
      const label = n.end.name || "(forgotten)";
      const anchor = Math.abs(x - CX) < 30 ? "middle" : x > CX ? "start" : "end";
      const lx = anchor === "middle" ? x : x + (x > CX ? 26 : -26), ly = anchor === "middle" ? (y > CY ? y + 38 : y - 28) : y + 5;
      nodes.push(svg("a", { href: entityHash(n.end.id, namespace), class: "node", "data-entity": n.end.id },
        svg("title", {}, `${label} (${n.end.kind || "?"}): open its neighbourhood`),
        svg("circle", { cx: x, cy: y, r: 20, class: "node " + (n.end.kind || "") }),
        svg("text", { class: "kind", x, y: y + 4, "text-anchor": "middle" }, (n.end.kind || "?").slice(0, 3)),
        svg("text", { class: "name", x: lx, y: ly, "text-anchor": anchor }, label)));
    });
    const middle = svg("g", { class: "centre" },
      svg("circle", { cx: CX, cy: CY, r: 24, class: "node centre" }),
      svg("text", { class: "name centre", x: CX, y: CY + 44, "text-anchor": "middle" }, centreName));
    const defs = svg("defs", {}, svg("marker", { id: "rel-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0 0 L10 5 L0 10 z" })));
    const chart = svg("svg", { class: "relgraph", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": "relations around " + centreName }, defs, ...lines, middle, ...nodes);
    return { chart, hidden: neighbours.size - shown.length, centreName };
  }
  async function edgeDetail(id, out, namespace, refresh) {
    put(out, el("p", {}, "Loading evidence…"));
    const r = await api("GET", "relations/" + encodeURIComponent(id));
    const fields = [["edge", edgeLine(r, namespace)], ["status", status(r.status)],
      ["evidence live", r.live ? "yes: every item is current" : "no: some evidence is no longer current"],
      ["valid", span(r.valid_from, r.valid_to)], ["proposed", when(r.proposed_at)],
      ["found by", r.rules.join(", ") || "—"],
      r.reviewed_at ? ["reviewed", `${when(r.reviewed_at)} by ${r.reviewed_by || "?"}` + (r.review_reason ? `: ${r.review_reason}` : "")] : null,
      r.retired_reason ? ["retired because", r.retired_reason] : null, ["namespace", r.namespace], ["id", r.id]]
      .filter(Boolean);
    put(out, el("h2", {}, "Edge: ", edgeLine(r, namespace)),
      el("dl", { class: "fields" }, fields.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
      el("h2", {}, "Evidence (verbatim)"),
      r.evidence_items.length ? r.evidence_items.map((e) => el("div", { class: "evidence", "data-evidence": e.id },
        el("pre", { class: "verbatim" }, txt(e.text)),
        el("p", { class: "muted" }, claimLink(e.id, e.id.startsWith("ev_") ? "event " + e.id : "claim " + e.id), " · ", status(e.status))))
        : el("p", { class: "muted" }, "No evidence left (forgotten)."),
      el("h2", {}, "Review"), reviewControls(r, () => refresh(r.id)));
  }
  async function entityView(parts, params) {
    const entity = parts[0] || "";
    const namespace = params.get("namespace") || "";
    const form = el("form", { class: "inline", id: "entity-form" },
      el("label", {}, "entity (a name or an en_ id)", el("input", { name: "entity", value: entity, required: true })),
      el("label", {}, "namespace", el("input", { name: "namespace", value: namespace, placeholder: "default" })),
      el("button", { type: "submit" }, "Show"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const d = Object.fromEntries(new FormData(form));
      location.hash = entityHash(d.entity.trim(), d.namespace);
    });
    show(el("h1", {}, "Neighbourhood"), form, el("div", { id: "neighbourhood" }));
    if (!entity) return;
    const out = document.getElementById("neighbourhood");
    const edges = (await allRelations(entity, namespace)).filter((r) => r.status !== "forgotten");
    if (!edges.length) { put(out, el("p", {}, "No relations of this entity.")); return; }
    const detail = el("div", { id: "edge-detail" });
    async function open(id, g) {
      for (const other of out.querySelectorAll("g.edge.selected")) other.classList.remove("selected");
      if (g) g.classList.add("selected");
      try {
        await edgeDetail(id, detail, namespace, (rid) => {
          const next = entityHash(entity, namespace, rid);
          if (location.hash === next) route(); else location.hash = next;
        });
      } catch (err) { put(detail, errorBox(err)); }
    }
    const { chart, hidden, centreName } = drawNeighbourhood(entity, namespace, edges, open);
    document.querySelector("main h1").replaceChildren(txt("Neighbourhood: "), txt(centreName));
    put(out, el("p", { class: "muted" }, "Accepted edges are solid, proposed ones dashed, rejected and retired ones " +
      "faint; each arrow goes from source to target. Click an edge for its evidence, a neighbour for its own neighbourhood."),
    el("div", { class: "graph-wrap" }, chart),
    hidden ? el("p", { class: "muted" }, `${hidden} more neighbour(s) are only in the table below.`) : null,
    detail,
    el("h2", {}, "Every edge"),
    el("div", { id: "entity-edges" }, table(["edge", "status", "evidence", "reviewed"], edges.map((r) => [edgeLine(r, namespace),
      status(r.status), el("button", { type: "button", class: "plain", onclick: () => open(r.id, out.querySelector(`g.edge[data-relation="${CSS.escape(r.id)}"]`)) }, "evidence"),
      r.reviewed_at ? when(r.reviewed_at) : "—"]))));
    const wanted = params.get("edge");
    if (wanted) await open(wanted, out.querySelector(`g.edge[data-relation="${CSS.escape(wanted)}"]`));
  }

  Object.assign(views, { relations: relationsView, entity: entityView });
})();
