// hlmem inspector: a thin page over the REST API (docs/ui.md, ADR 0039). It holds no policy:
// every answer comes from /v1 routes. Data from the API only ever reaches the page as text
// (textContent, setAttribute, createTextNode); nothing here builds HTML from strings.
"use strict";
(() => {
  const TOKEN_KEY = "hlmem.token";
  const SVG_NS = "http://www.w3.org/2000/svg";
  const CJK = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/;
  const view = document.getElementById("view");
  const COUNT_LABELS = {
    events: "raw events", claims: "claims", evidence_links: "evidence links", conflicts: "conflicts",
    extraction_records: "extraction records", payloads: "stored payloads", fts_rows: "full-text index rows",
    vectors: "vectors", cache_entries: "embedding cache entries", jobs: "queued jobs",
  };

  // ---- DOM helpers: text only -------------------------------------------------------------
  function txt(value) {
    const s = value === null || value === undefined ? "" : String(value);
    if (!CJK.test(s)) return document.createTextNode(s);
    const span = document.createElement("span");
    span.lang = "zh";
    span.textContent = s;
    return span;
  }
  function add(node, kids) {
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.append(kid instanceof Node ? kid : txt(kid));
    }
    return node;
  }
  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    return add(node, kids);
  }
  function svg(tag, attrs, ...kids) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    for (const kid of kids) node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    return node;
  }
  const link = (hash, ...kids) => el("a", { href: hash }, ...kids);
  const claimLink = (id, ...kids) => link("#/claim/" + encodeURIComponent(id), ...(kids.length ? kids : [id]));
  const timelineLink = (subject, ns) =>
    link("#/timeline/" + encodeURIComponent(subject) + (ns ? "?namespace=" + encodeURIComponent(ns) : ""), subject);
  const when = (ts) => (ts ? String(ts).replace(/\.\d+/, "").replace("T", " ").replace("Z", " UTC") : "open");
  const span = (ts1, ts2) => when(ts1) + " → " + when(ts2);
  const status = (s) => el("span", { class: "status " + s }, s);
  // replaceChildren would print null as "null": drop absent parts first.
  function put(node, ...kids) {
    node.replaceChildren(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false));
  }
  const show = (...kids) => put(view, ...kids);
  function table(head, rows) {
    return el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))),
      el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c))))));
  }
  function errorBox(err) {
    const e = err && err.body && err.body.error;
    const text = e ? `${e.code}: ${e.message}` : String(err && err.message ? err.message : err);
    return el("p", { class: "error", role: "alert" }, text);
  }

  // ---- the API, with the bearer token asked for on a 401 ----------------------------------
  class ApiError extends Error {
    constructor(status, body) { super(`HTTP ${status}`); this.status = status; this.body = body; }
  }
  let asking = null;
  function askToken(problem) {
    if (asking) return asking;
    const dialog = document.getElementById("token-dialog");
    const input = document.getElementById("token-input");
    const note = document.getElementById("token-error");
    note.hidden = !problem;
    note.textContent = problem || "";
    input.value = "";
    asking = new Promise((resolve) => {
      document.getElementById("token-form").addEventListener("submit", () => {
        sessionStorage.setItem(TOKEN_KEY, input.value.trim());
        asking = null;
        resolve();
      }, { once: true });
    });
    dialog.showModal();
    return asking;
  }
  async function api(method, path, body) {
    for (;;) {
      const headers = { Accept: "application/json" };
      const token = sessionStorage.getItem(TOKEN_KEY);
      if (token) headers.Authorization = "Bearer " + token;
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const res = await fetch(new URL("../v1/" + path, location.href), {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
      const data = await res.json().catch(() => null);
      if (res.status === 401) {
        const why = data && data.error ? data.error.message : "the server asked for a token";
        await askToken(token ? "That token was refused: " + why : null);
        continue;
      }
      if (!res.ok) throw new ApiError(res.status, data);
      return data;
    }
  }
  const query = (params) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") q.set(k, v);
    return q.toString();
  };

  // ---- search: recall on both clocks -------------------------------------------------------
  async function searchView(_parts, params) {
    const field = (name, label, extra) => el("label", {}, label,
      el("input", { name, value: params.get(name) || "", ...extra }));
    const form = el("form", { class: "inline", id: "search-form" },
      field("q", "query", { class: "wide", required: true, autofocus: true }),
      field("valid_at", "valid at (true in the world then)", { placeholder: "2024-01-01T00:00:00Z" }),
      field("known_at", "known at (as recorded then)", { placeholder: "now" }),
      field("k", "results", { type: "number", min: 1, max: 100, placeholder: "10" }),
      el("button", { type: "submit" }, "Recall"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const data = Object.fromEntries(new FormData(form));
      location.hash = "#/search?" + query(data);
    });
    show(el("h1", {}, "Search memory"), form, el("div", { id: "results" }));
    if (!params.get("q")) return;
    const body = { query: params.get("q") };
    for (const key of ["valid_at", "known_at"]) if (params.get(key)) body[key] = params.get(key);
    if (params.get("k")) body.k = Number(params.get("k"));
    const res = await api("POST", "recall", body);
    const derived = { mental_model: "profile", observation_summary: "summary" };  // ADR 0084
    const rows = res.items.map((item, n) => derived[item.kind]
      ? [String(n + 1), derived[item.kind], claimLink(item.id, item.text), "current", when(item.built_at),
        item.score.toFixed(3)]
      : item.kind === "claim"
      ? [String(n + 1), "claim", el("span", {}, timelineLink(item.subject), " · ", item.predicate, " = ",
        claimLink(item.id, item.polarity === false ? "NOT " + item.value : item.value)),
        span(item.valid_from, item.valid_to), when(item.recorded_from), item.score.toFixed(3)]
      : [String(n + 1), "event", claimLink(item.id, item.text), when(item.occurred_at), when(item.recorded_at),
        item.score.toFixed(3)]);
    document.getElementById("results").replaceChildren(
      el("p", { class: "muted" }, `${res.items.length} result(s), valid at ${when(res.valid_at)}, known at ${when(res.known_at)}`),
      rows.length ? table(["#", "kind", "what", "valid", "recorded", "score"], rows) : el("p", {}, "Nothing recalled."));
  }

  // ---- a claim (or event): explain + history ----------------------------------------------
  function claimRows(claims) {
    return claims.map((c) => [claimLink(c.id, c.polarity === false ? "NOT " + c.value : c.value), status(c.status),
      span(c.valid_from, c.valid_to), when(c.recorded_from), c.id]);
  }
  function eventBlock(ev) {
    return el("div", { class: "evidence", "data-event": ev.id },
      el("pre", { class: "verbatim" }, txt(ev.text)),
      el("p", { class: "muted" }, `${ev.id} · ${ev.role} in session `, ev.session,
        ` · occurred ${when(ev.occurred_at)} · recorded ${when(ev.recorded_at)} · origin ${ev.origin}`));
  }
  async function claimView(parts) {
    const id = parts[0];
    const exp = await api("GET", "explain/" + encodeURIComponent(id));
    if (exp.kind === "forgotten") {
      show(el("h1", {}, "Forgotten"), el("p", {}, `${exp.id} was forgotten at ${when(exp.forgotten_at)}.`));
      return;
    }
    if (exp.kind === "derived") {  // a profile or summary: its text and the claims it was built from
      const d = exp.derived;
      show(el("h1", {}, d.kind === "mental_model" ? "Profile" : "Summary", " of ", timelineLink(d.subject, d.namespace)),
        el("pre", { class: "verbatim", id: "derived-text" }, txt(d.text)),
        el("p", { class: "muted" }, `${d.id} · ${d.status}${d.stale_reason ? " (" + d.stale_reason + ")" : ""}` +
          ` · built ${when(d.built_at)} by ${d.builder}`),
        el("h2", {}, "Built from"),
        el("div", { id: "sources" }, table(["claim", "status", "id"], d.sources.map((c) => [
          claimLink(c.claim_id, `${c.subject} · ${c.predicate} · `, txt(c.value)), status(c.status),
          claimLink(c.claim_id)]))));
      return;
    }
    if (exp.kind === "event") {
      const e = exp.event;
      show(el("h1", {}, "Event ", e.id), eventBlock(e), el("h2", {}, "Claims citing it"),
        exp.cited_by.length ? el("div", { id: "cited-by" }, table(["claim", "status", "valid", "recorded", "id"],
          exp.cited_by.map((c) => [claimLink(c.id, `${c.subject} · ${c.predicate} · `,
            txt(c.polarity === false ? "NOT " + c.value : c.value)), status(c.status),
          span(c.valid_from, c.valid_to), when(c.recorded_from), claimLink(c.id)])))
          : el("p", {}, "None."),
        el("p", {}, link("#/forget?" + query({ id: e.id }), "Forget this event…")));
      return;
    }
    const c = exp.claim;
    const quals = Object.entries(c.qualifiers);
    const fields = [["subject", timelineLink(c.subject, c.namespace)], ["slot (predicate)", c.predicate],
      ["status", status(c.status)], ["polarity", c.polarity ? "true" : "false (NOT)"], ["namespace", c.namespace],
      ["valid", span(c.valid_from, c.valid_to)], ["recorded", span(c.recorded_from, c.recorded_to)],
      ["scope / cardinality", `${c.scope} / ${c.cardinality}`], ["importance", String(c.importance)],
      ["id", c.id]];
    const hist = await api("GET", "history?" + query({ subject: c.subject, predicate: c.predicate, namespace: c.namespace }));
    show(el("h1", {}, "Claim"),
      el("p", { class: "value", id: "claim-value" }, c.polarity === false ? "NOT " : "", txt(c.value)),
      el("dl", { class: "fields" }, fields.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
      el("h2", {}, "Qualifiers"),
      quals.length ? table(["key", "value"], quals) : el("p", { class: "muted" }, "None."),
      el("h2", {}, "Evidence (verbatim)"),
      exp.evidence.length ? exp.evidence.map(eventBlock) : el("p", { class: "muted" }, "No evidence events."),
      exp.missing_evidence.length ? el("p", { class: "muted" }, "Missing (forgotten) evidence: " + exp.missing_evidence.join(", ")) : null,
      el("h2", {}, "Supersede chain (oldest first)"),
      el("div", { id: "chain" }, table(["value", "status", "valid", "recorded", "id"], claimRows(exp.chain))),
      el("h2", {}, "Slot history: ", c.subject, " · ", c.predicate),
      table(["value", "status", "valid", "recorded", "id"], claimRows(hist.items)),
      el("h2", {}, "Bitemporal rows"),
      table(["valid from", "valid to", "recorded from", "recorded to"],
        c.versions.map((v) => [when(v.valid_from), when(v.valid_to), when(v.recorded_from), when(v.recorded_to)])),
      c.status === "active" ? changeForms(c) : null,
      el("p", {}, link("#/forget?" + query({ id: c.id }), "Forget this claim…")));
  }
  // Correct (a new value supersedes this one) or retract (no longer believed); history keeps both.
  function changeForms(c) {
    const out = el("div", { id: "change-result" });
    const fix = el("form", { class: "inline", id: "correct-form" },
      el("label", {}, "new value", el("input", { name: "value", class: "wide", required: true })),
      el("label", {}, "valid from (optional)", el("input", { name: "valid_from", placeholder: "now" })),
      el("label", {}, "reason", el("input", { name: "reason" })),
      el("button", { type: "submit" }, "Correct"));
    const drop = el("form", { class: "inline", id: "retract-form" },
      el("label", {}, "reason", el("input", { name: "reason", class: "wide" })),
      el("button", { type: "submit", class: "danger" }, "Retract"));
    async function send(form, path, body, after) {
      const button = form.querySelector("button");
      button.disabled = true;
      try {
        const done = await api("POST", "memories/" + encodeURIComponent(c.id) + "/" + path, body);
        after(done);
      } catch (err) {
        put(out, errorBox(err));
        button.disabled = false;
      }
    }
    fix.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const d = Object.fromEntries(new FormData(fix));
      const body = { value: d.value, reason: d.reason || "" };
      if (d.valid_from.trim()) body.valid_from = d.valid_from.trim();
      send(fix, "correct", body, (done) => { location.hash = "#/claim/" + encodeURIComponent(done.id); });
    });
    drop.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const d = Object.fromEntries(new FormData(drop));
      send(drop, "retract", { reason: d.reason || "" }, () => route());
    });
    return [el("h2", {}, "Change this claim"),
      el("p", { class: "muted" }, "Correcting records a new claim that supersedes this one; retracting stops " +
        "believing it from now on. Both keep this claim in history and the audit log; neither erases anything."),
      fix, drop, out];
  }

  // ---- a subject's timeline: slots as rows, values as bars along valid time ---------------
  async function allClaims(subject, namespace) {
    const out = [];
    let cursor = null;
    do {
      const page = await api("GET", "memories?" + query({ subject, namespace, limit: 1000, cursor }));
      out.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  }
  const ms = (ts) => Date.parse(String(ts).replace(/(\.\d{3})\d+/, "$1"));
  function drawTimeline(claims) {
    const now = Date.now();
    const start = (c) => ms(c.valid_from || c.recorded_from);
    const end = (c) => (c.valid_to ? ms(c.valid_to) : null);
    let t0 = Math.min(...claims.map(start));
    let t1 = Math.max(now, ...claims.map((c) => end(c) || start(c)));
    const pad = Math.max((t1 - t0) * 0.04, 86400000);
    t0 -= pad; t1 += pad;
    const W = 980, X0 = 170, X1 = W - 20, LANE = 46, TOP = 30;
    const x = (t) => X0 + ((t - t0) / (t1 - t0)) * (X1 - X0);
    const rows = new Map();
    for (const c of claims) {
      const key = c.namespace + "\u0000" + c.predicate;
      if (!rows.has(key)) rows.set(key, { predicate: c.predicate, namespace: c.namespace, claims: [] });
      rows.get(key).claims.push(c);
    }
    const namespaces = new Set(claims.map((c) => c.namespace));
    const place = new Map();
    let y = TOP;
    const body = [];
    for (const row of [...rows.values()].sort((a, b) => a.predicate.localeCompare(b.predicate))) {
      const laneEnds = [], lanes = [];
      row.claims.sort((a, b) => start(a) - start(b) || a.id.localeCompare(b.id));
      for (const c of row.claims) {
        // A bar starting where another ends takes the next lane, so the supersede arrow shows.
        let lane = laneEnds.findIndex((e) => e !== null && e < start(c));
        if (lane < 0) { lane = laneEnds.length; laneEnds.push(null); lanes.push([]); }
        laneEnds[lane] = end(c) === null ? Infinity : end(c);
        lanes[lane].push(c);
        place.set(c.id, { y: y + lane * LANE, c });
      }
      // A bar's labels may run until the next bar of its lane begins (fitLabels shortens them).
      for (const lane of lanes) {
        lane.forEach((c, i) => {
          place.get(c.id).room = (i + 1 < lane.length ? x(start(lane[i + 1])) : W) - x(start(c)) - 8;
        });
      }
      const h = Math.max(1, laneEnds.length) * LANE;
      body.push(svg("line", { class: "grid", x1: 0, x2: W, y1: y + h, y2: y + h }));
      body.push(svg("g", {}, svg("title", {}, row.predicate),
        svg("text", { class: "slot", x: 8, y: y + 26, "data-room": X0 - 16 }, row.predicate)));
      if (namespaces.size > 1) {
        body.push(svg("text", { class: "rec", x: 8, y: y + 40, "data-room": X0 - 16 }, row.namespace));
      }
      y += h;
    }
    const H = y + 10;
    const axis = [];
    for (let i = 0; i <= 6; i++) {
      const t = t0 + ((t1 - t0) * i) / 6, px = x(t);
      axis.push(svg("line", { class: "grid", x1: px, x2: px, y1: TOP - 6, y2: H }),
        svg("text", { class: "axis", x: px, y: TOP - 10, "text-anchor": i === 0 ? "start" : i === 6 ? "end" : "middle" },
          new Date(t).toISOString().slice(0, 10)));
    }
    axis.push(svg("line", { class: "grid", x1: x(now), x2: x(now), y1: TOP - 6, y2: H, "stroke-dasharray": "3 3" }),
      svg("text", { class: "axis", x: x(now) + 3, y: H - 2 }, "now"));
    const bars = [];
    for (const { y: by, c, room } of place.values()) {
      const xa = x(start(c)), xb = end(c) === null ? X1 : x(end(c));
      const value = (c.polarity === false ? "NOT " : "") + c.value;
      const tip = `${c.predicate} = ${value}\nvalid ${span(c.valid_from, c.valid_to)}\nrecorded ${when(c.recorded_from)}` +
        (c.recorded_to ? ` (until ${when(c.recorded_to)})` : "") + `\nstatus ${c.status}`;
      const group = svg("a", { href: "#/claim/" + encodeURIComponent(c.id), class: "bar-link" },
        svg("title", {}, tip),
        svg("text", { class: "label", x: xa + 2, y: by + 14, "data-room": room }, value),
        svg("rect", { class: "bar " + c.status, x: xa, y: by + 18, width: Math.max(3, xb - xa), height: 12, rx: 2,
          "data-claim": c.id }),
        svg("text", { class: "rec", x: xa + 2, y: by + 41, "data-room": room }, "recorded " + when(c.recorded_from)));
      if (end(c) === null) {
        group.append(svg("path", { class: "open-end", d: `M${X1} ${by + 15} l8 9 l-8 9 z` }));
      }
      bars.push(group);
    }
    const arrows = [];
    for (const { y: by, c } of place.values()) {
      const next = c.superseded_by && place.get(c.superseded_by);
      if (!next) continue;
      const x1 = end(c) === null ? X1 : x(end(c)), y1 = by + 24;
      const x2 = x(start(next.c)), y2 = next.y + 24;
      arrows.push(svg("path", { class: "supersede", d: `M${x1} ${y1} C${x1 + 26} ${y1}, ${x2 - 26} ${y2}, ${x2} ${y2}`,
        "marker-end": "url(#arrow)", "data-from": c.id, "data-to": next.c.id },
      svg("title", {}, `superseded by ${next.c.value}, recorded ${when(next.c.recorded_from)}`)));
    }
    const defs = svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
      markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0 0 L10 5 L0 10 z" })));
    return svg("svg", { class: "timeline", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": "valid-time timeline" }, defs, ...axis, ...body, ...bars, ...arrows);
  }
  // Shorten each label to the room it has (data-room, in px) with an ellipsis, or hide it when
  // not even one character fits: in a dense row labels never overlap. The bar's tooltip and the
  // table below the timeline keep every value whole. Needs the SVG in the page (text is measured).
  function fitLabels(chart) {
    for (const label of chart.querySelectorAll("text[data-room]")) {
      const room = Number(label.getAttribute("data-room"));
      const full = label.textContent;
      if (label.getComputedTextLength() <= room) continue;
      label.setAttribute("data-full", full);
      let lo = 0, hi = full.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        label.textContent = full.slice(0, mid) + "…";
        if (label.getComputedTextLength() <= room) lo = mid; else hi = mid - 1;
      }
      label.textContent = full.slice(0, lo) + "…";
      if (lo === 0 || label.getComputedTextLength() > room) {
        label.textContent = "";
        label.setAttribute("visibility", "hidden");
      }
    }
  }
  async function timelineView(parts, params) {
    const subject = parts[0] || "";
    const namespace = params.get("namespace") || "";
    const form = el("form", { class: "inline", id: "timeline-form" },
      el("label", {}, "subject", el("input", { name: "subject", value: subject, required: true })),
      el("label", {}, "namespace", el("input", { name: "namespace", value: namespace, placeholder: "all" })),
      el("button", { type: "submit" }, "Show"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const d = Object.fromEntries(new FormData(form));
      location.hash = "#/timeline/" + encodeURIComponent(d.subject) + (d.namespace ? "?" + query({ namespace: d.namespace }) : "");
    });
    show(el("h1", {}, "Timeline", subject ? [": ", txt(subject)] : ""), form, el("div", { id: "timeline" }));
    if (!subject) return;
    const claims = (await allClaims(subject, namespace || null)).filter((c) => c.status !== "forgotten");
    const out = document.getElementById("timeline");
    if (!claims.length) { put(out, el("p", {}, "No claims about this subject.")); return; }
    const chart = drawTimeline(claims);
    put(out, 
      el("p", { class: "muted" }, "Each row is a slot; each bar a value along valid time (open bars run on). " +
        "Arrows go from a value to the one that superseded it; the recorded time is under each bar. " +
        "Labels too long for their room end in …; hover a bar for its whole value."),
      el("div", { class: "timeline-wrap" }, chart),
      el("h2", {}, "All values"),
      table(["slot", "value", "status", "valid", "recorded", "id"],
        claims.map((c) => [c.predicate, ...claimRows([c])[0]])));
    fitLabels(chart);
  }

  // ---- forget: dry run, then confirm ------------------------------------------------------
  async function describe(id) {
    try {
      const e = await api("GET", "explain/" + encodeURIComponent(id));
      if (e.kind === "claim") return ["claim", claimLink(id), `${e.claim.subject} · ${e.claim.predicate} = ${e.claim.value}`];
      if (e.kind === "event") return ["event", claimLink(id), e.event.text];
      return [e.kind, id, "already forgotten"];
    } catch (err) {
      return ["?", id, errorBox(err)];
    }
  }
  function countsTable(counts) {
    return el("table", { class: "counts" }, el("tbody", {},
      Object.entries(counts).map(([k, n]) => el("tr", {}, el("td", {}, COUNT_LABELS[k] || k), el("td", {}, String(n))))));
  }
  async function forgetView(_parts, params) {
    const kind = ["id", "session", "subject"].find((k) => params.get(k)) || "id";
    const form = el("form", { class: "inline", id: "forget-form" },
      el("label", {}, "forget by", el("select", { name: "by" },
        ["id", "session", "subject"].map((k) => el("option", { value: k, selected: k === kind }, k)))),
      el("label", {}, "target", el("input", { name: "target", class: "wide", value: params.get(kind) || "", required: true })),
      el("label", {}, "namespace", el("input", { name: "namespace", value: params.get("namespace") || "", placeholder: "default" })),
      el("label", {}, "reason", el("input", { name: "reason", value: "" })),
      el("button", { type: "submit" }, "Dry run"));
    const out = el("div", { id: "forget-result" });
    show(el("h1", {}, "Forget"), el("p", { class: "muted" },
      "A dry run lists exactly what would go. Nothing is removed until you confirm."), form, out);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const d = Object.fromEntries(new FormData(form));
      const target = { [d.by]: d.target.trim(), reason: d.reason || "" };
      if (d.namespace) target.namespace = d.namespace;
      put(out, el("p", {}, "Dry run…"));
      try {
        await dryRun(target, out);
      } catch (err) {
        put(out, errorBox(err));
      }
    });
  }
  async function dryRun(target, out) {
    const plan = await api("POST", "forget", { ...target, dry_run: true });
    if (plan.already_forgotten) {
      put(out, el("p", {}, `${plan.target_kind} ${plan.target} was already forgotten at ${when(plan.forgotten_at)}.`));
      return;
    }
    const shown = plan.items.slice(0, 200);
    const described = [];
    for (const id of shown) described.push(await describe(id));
    const confirm = el("button", { type: "button", class: "danger", id: "forget-confirm" },
      `Forget these ${plan.items.length} item(s) now`);
    put(out, 
      el("h2", {}, `Dry run: would forget ${plan.target_kind} `, txt(plan.target), ` (namespace ${plan.namespace})`),
      el("div", { id: "forget-items" }, table(["kind", "id", "what"], described)),
      plan.items.length > shown.length ? el("p", { class: "muted" }, `…and ${plan.items.length - shown.length} more.`) : null,
      el("h2", {}, "Everything that goes"), countsTable(plan.counts),
      plan.notes.map((n) => el("p", { class: "muted" }, "note: ", n)),
      el("p", {}, "Forgetting erases the text of these items; it cannot be undone. ", confirm,
        " ", el("button", { type: "button", class: "plain", onclick: () => put(out) }, "Cancel")));
    confirm.addEventListener("click", async () => {
      confirm.disabled = true;
      try {
        const done = await api("POST", "forget", { ...target, dry_run: false });
        const same = JSON.stringify([...done.items].sort()) === JSON.stringify([...plan.items].sort());
        put(out, el("h2", { id: "forget-done" }, `Forgotten: ${done.items.length} item(s) (${done.forget_id || "nothing new"})`),
          el("p", {}, `at ${when(done.forgotten_at)}. `, link("#/audit", "See the audit log.")),
          same ? null : el("p", { class: "error" }, "The store changed since the dry run; this is what was forgotten:"),
          same ? null : el("p", {}, done.items.join(", ")),
          countsTable(done.counts),
          done.erasure_pending ? el("p", { class: "muted" }, "Erasure pending: the text leaves the store's files once other readers finish.") : null);
      } catch (err) {
        out.append(errorBox(err));
        confirm.disabled = false;
      }
    });
  }

  // ---- audit log --------------------------------------------------------------------------
  async function auditView(_parts, params) {
    const res = await api("GET", "audit?" + query({ limit: params.get("limit") || 200, kind: params.get("kind") }));
    // Wrapping columns, and the extra fields as "key: value" lines, never one long line of JSON.
    const extra = (fields) => Object.keys(fields).length ? el("dl", { class: "extra" },
      Object.entries(fields).map(([k, v]) => [el("dt", {}, k),
        el("dd", {}, typeof v === "string" ? v : JSON.stringify(v, null, 1).replace(/\s*\n\s*/g, " "))])) : "";
    const cols = ["at", "kind", "actor", "target", "namespace", "detail", "extra"];
    show(el("h1", {}, "Audit log (newest first)"),
      res.items.length ? el("div", { id: "audit" }, el("table", { class: "wrapping" },
        el("colgroup", {}, cols.map((c) => el("col", { class: "col-" + c }))),
        el("thead", {}, el("tr", {}, cols.map((h) => el("th", {}, h)))),
        el("tbody", {}, res.items.map((e) => el("tr", {}, [when(e.at), e.kind, e.actor, e.target, e.namespace,
          e.detail, extra(e.extra)].map((c) => el("td", {}, c)))))))
        : el("p", {}, "No governance actions yet."));
  }

  // ---- routing ----------------------------------------------------------------------------
  const VIEWS = { search: searchView, claim: claimView, timeline: timelineView, forget: forgetView, audit: auditView };
  async function route() {
    const [path, qs] = (location.hash.slice(1) || "/search").split("?");
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    const name = VIEWS[parts[0]] ? parts.shift() : "search";
    for (const a of document.querySelectorAll("nav a")) a.classList.toggle("current", a.dataset.view === (name === "entity" ? "relations" : name));
    try {
      await VIEWS[name](parts, new URLSearchParams(qs || ""));
    } catch (err) {
      view.append(errorBox(err));
    }
  }
  window.addEventListener("hashchange", route);
  // The helpers for the views in other files (relations.js), which add themselves to VIEWS; deferred
  // scripts all run before DOMContentLoaded, so the first route sees every view.
  window.hlmemInspector = Object.freeze({ views: VIEWS, route, el, svg, add, txt, put, show, table, errorBox, api, query,
    link, claimLink, when, span, status });
  document.addEventListener("DOMContentLoaded", route);
})();
