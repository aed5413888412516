/* kg page: legend and toggles, search, neighbour highlight, side panel.
 *
 * Safety rule for this file: no innerHTML, outerHTML, insertAdjacentHTML or document.write.
 * Every text from the graph reaches the page through textContent, createTextNode, append(string)
 * or setAttribute, so markup inside an abstract shows as text and never runs.
 */
(async function () {
  "use strict";

  /* A large page carries its nodes and store gzip'd (graph_exports/page_data.py): inflate them
     here, in the page, with no request (DecompressionStream reads a Blob made from the text). */
  const scriptStart = performance.now();
  /* The JSON in a script element of type application/octet-stream, base64 of gzip. */
  async function inflate(id) {
    const text64 = atob(document.getElementById(id).textContent.trim());
    const bytes = new Uint8Array(text64.length);
    for (let i = 0; i < text64.length; i++) bytes[i] = text64.charCodeAt(i);
    const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
    return JSON.parse(text);
  }
  const detailsIn = window.KG_DATA.store && window.KG_DATA.store.detailsIn;
  if (window.KG_DATA.store && window.KG_DATA.store.gzIn) {
    const t = performance.now();
    const inflated = await inflate(window.KG_DATA.store.gzIn);
    window.KG_DATA.nodes = inflated.nodes;
    window.KG_DATA.store = inflated.store;
    window.KG_DATA.inflateMs = performance.now() - t;
  }

  /* The page's data is stored once and compactly (graph_exports/page_data.py, which documents the
     layout and mirrors this function): pyvis's node records plus a store of arrays. This rebuilds
     the node and edge records the rest of the page reads; evidence sentences are cut out of the
     abstracts by offset, an entity's papers are read off the edges. */
  function shortText(text, limit) {
    const t = String(text || "").split(/\s+/).filter(Boolean).join(" ");
    const cps = Array.from(t);
    return cps.length <= limit ? t : cps.slice(0, limit - 1).join("").trimEnd() + "…";
  }

  function unpackData(raw) {
    const st = raw.store, meta = raw.meta;
    const palette = meta.communityColors || [];
    const large = Boolean(meta.large);
    const nodes = raw.nodes.map((v, i) => {
      const comm = st.comm[i];
      const cc = comm >= 0 && comm < palette.length ? palette[comm] : "#b8b8b8";
      const yr = st.yr ? st.yr[i] : null;
      return {
        id: v.id, label: v.label, shape: v.shape, size: v.size, x: v.x, y: v.y, lc: v.color, cc: cc,
        kind: st.kinds[st.kind[i]], name: st.name[i] !== null ? st.name[i] : v.label,
        deg: st.deg[i], sup: st.sup[i], comm: comm, yr: yr,
        color: { background: meta.colourBy === "community" ? cc : v.color, border: v.color },
      };
    });
    const marks = { nodes: performance.now() };
    const ext = st.ext || [];
    const entityId = (r) => (r >= 0 ? nodes[r].id : ext[-1 - r][0]);
    const entityName = (r) => (r >= 0 ? nodes[r].name : ext[-1 - r][1] || ext[-1 - r][0]);
    for (const p of st.papers) {
      const n = nodes[p[0]];
      const flat = p[8], mentions = [];
      for (let j = 0; j < flat.length; j += 4) {
        const eid = entityId(flat[j + 3]);
        mentions.push(eid ? [flat[j], flat[j + 1], st.strings[flat[j + 2]], eid] : [flat[j], flat[j + 1], st.strings[flat[j + 2]]]);
      }
      Object.assign(n, {
        paperTitle: p[1] === 1 ? n.name : p[1], titleDerived: Boolean(p[2]), year: p[3],
        venue: p[4] >= 0 ? st.strings[p[4]] : null, authors: p[5], keywords: p[6], abstract: p[7],
        mentions: mentions, source: p[9], results: p[10] || [],
      });
    }
    marks.papers = performance.now();
    for (const e of st.entities) {
      const n = nodes[e[0]];
      Object.assign(n, { aliases: e[1] !== null ? e[1] : [n.name], support: e[2], mentionCount: e[3], papersTotal: e[4], papers: [] });
    }
    marks.entities = performance.now();
    const es = st.edges;
    let topWeight = 0;
    for (const w of es.weight) topWeight = Math.max(topWeight, Number(w) || 0);
    const abstractPoints = new Map(); // paper index -> its code points, cut once
    const points = (i) => {
      if (!abstractPoints.has(i)) abstractPoints.set(i, Array.from(String(nodes[i].abstract || "")));
      return abstractPoints.get(i);
    };
    const edges = new Array(es.from.length);
    class EdgeRecord {
      constructor(j, from, to, type, weight, count, evTotal, evRows, width, color, dashed, arrows, rel) {
        this.id = "e" + j; this.from = from; this.to = to; this.type = type; this.weight = weight;
        this.count = count; this.evidenceTotal = evTotal; this.evRows = evRows; this.width = width;
        this.color = color; this.dashes = dashed; this.arrows = arrows; this.hidden = dashed;
        this.label = undefined; this.sharedTotal = rel ? rel[1] : 0; this.rel = rel || null;
        this.sharedCache = null; this.termsCache = null;
      }
      /* [[entity id, name]] both papers link to (RELATED_TO), else null. */
      get shared() {
        if (!this.rel) return null;
        if (this.sharedCache === null) this.sharedCache = this.rel[0].map((r) => [entityId(r), entityName(r)]);
        return this.sharedCache;
      }
      /* The words RELATED_TO weighed, else null. */
      get sharedTerms() {
        if (!this.rel) return null;
        if (this.termsCache === null) this.termsCache = this.rel[2].map((t) => st.strings[t]);
        return this.termsCache;
      }
    }
    // shared, read-only looks: one object for every edge of a kind (fewer allocations)
    const RELATED_LOOK = { color: "#7b9cc4", opacity: 0.8 }, OTHER_LOOK = { color: "#b5b5b5", opacity: 0.9 };
    const NO_ARROW = { to: { enabled: false } };
    const knowledge = meta.view === "knowledge", papersView = meta.view === "papers";
    for (let j = 0; j < es.from.length; j++) {
      const a = nodes[es.from[j]], b = nodes[es.to[j]];
      const weight = es.weight[j];
      const rel = es.rel[j];
      // every record has the same fields, in the same order (one shape for the engine); what
      // RELATED_TO edges share is decoded when first read (see EdgeRecord)
      const rec = new EdgeRecord(j, a.id, b.id, st.types[es.type[j]], weight, es.count[j], es.evTotal[j], es.ev[j],
        Math.round((1 + 3 * (topWeight > 0 ? (Number(weight) || 0) / topWeight : 0)) * 100) / 100,
        rel ? RELATED_LOOK : OTHER_LOOK, Boolean(rel) && knowledge, rel ? NO_ARROW : (large ? "" : "to"), rel);
      if (rel) {
        if (papersView) {
          const names = rec.shared.length ? rec.shared.map((x) => x[1]) : rec.sharedTerms;
          if (names.length) rec.label = shortText(names.slice(0, 2).join(", "), 32) + (names.length > 2 ? " +" + (names.length - 2) : "");
        }
      } else if (a.kind === "Paper" && b.kind !== "Paper") b.papers.push(a.id);
      edges[j] = rec;
    }
    marks.edges = performance.now();
    const nameOf = new Map(nodes.map((n) => [n.id, n.name]));
    for (const n of nodes) {
      if (n.kind !== "Paper") n.papers = n.papers.sort().filter((p, k, all) => k === 0 || all[k - 1] !== p).slice(0, 100).map((p) => [p, nameOf.get(p)]);
    }
    /* An edge's evidence, cut out of the abstracts when a panel asks for it:
       {sentence, start, end, text, extractor, score, paper_id}. */
    function evidence(e) {
      return (e.evRows || []).map((row) => {
        const paper = row[0] >= 0 ? nodes[row[0]] : null;
        const cps = paper ? points(row[0]) : [];
        let sentence, rest;
        if (typeof row[3] === "string") { sentence = row[3]; rest = row.slice(4); }
        else { sentence = cps.slice(row[3], row[4]).join(""); rest = row.slice(5); }
        const ev = { sentence: sentence, extractor: st.strings[rest[0]], score: rest[1], paper_id: paper ? paper.id.replace(/^paper:/, "") : null };
        if (row[1] >= 0) Object.assign(ev, { start: row[1], end: row[2], text: cps.slice(row[1], row[2]).join("") });
        return ev;
      });
    }
    /* The second part of a large page (graph_exports/page_data.split_details): each paper's
       authors, keywords, abstract, mentions and source, entity aliases, evidence rows. */
    function mergeDetails(d) {
      st.papers.forEach((p, k) => {
        const n = nodes[p[0]];
        const [authors, keywords, abstract, flat, source, results] = d.papers[k];
        const mentions = [];
        for (let j = 0; j < flat.length; j += 4) {
          const eid = entityId(flat[j + 3]);
          mentions.push(eid ? [flat[j], flat[j + 1], st.strings[flat[j + 2]], eid] : [flat[j], flat[j + 1], st.strings[flat[j + 2]]]);
        }
        Object.assign(n, { authors: authors, keywords: keywords, abstract: abstract, mentions: mentions, source: source, results: results || [] });
      });
      st.entities.forEach((e, k) => {
        const n = nodes[e[0]];
        n.aliases = d.aliases[k] !== null ? d.aliases[k] : [n.name];
      });
      d.ev.forEach((rows, j) => { edges[j].evRows = rows; });
      abstractPoints.clear();
    }
    marks.lists = performance.now();
    return { nodes: nodes, edges: edges, options: raw.options, meta: meta, ext: ext, evidence: evidence, mergeDetails: mergeDetails, marks: marks };
  }

  const unpackStart = performance.now();
  const DATA = unpackData(window.KG_DATA);
  const unpackMs = performance.now() - unpackStart;
  const META = DATA.meta;
  /* [first, last] (mean) year of the nodes, for colouring by year; null when nothing is dated. */
  const YEARS = (() => {
    const ys = DATA.nodes.map((n) => n.yr).filter((y) => y !== null && y !== undefined);
    return ys.length ? [Math.min(...ys), Math.max(...ys)] : null;
  })();
  const LABEL_COLORS = META.labelColors || {};
  const LABEL_SHAPES = META.labelShapes || {};

  const byId = new Map(DATA.nodes.map((n) => [n.id, n]));
  const edgeById = new Map(DATA.edges.map((e) => [e.id, e]));
  const topDeg = Math.max(0, ...DATA.nodes.map((n) => n.deg || 0));
  const topSup = Math.max(0, ...DATA.nodes.map((n) => n.sup || 0));

  const t0 = performance.now();
  // vis-network draws no names (the page draws them, see drawLabels): its records carry no label.
  // A large page opens on its overview (META.overview): one meta-node per community, and only
  // the members of the communities the user opens are added to vis (see openCommunity).
  const OV = META.overview || null;
  const present = new Set(); // ids of the graph's nodes now in the vis data set
  const metaById = new Map(); // "community:<i>" -> {i, name, label, ...} (overview only)
  const openCommunities = new Set();
  const pooledSet = new Set(OV ? OV.pooled : []);
  const communityOf = (n) => (pooledSet.has(n.comm) || n.comm < 0 ? -2 : n.comm);
  function visNode(n) {
    return Object.assign({}, n, { label: undefined });
  }
  function metaNodes() {
    const out = [];
    const top = Math.max(1, ...OV.communities.map((c) => c.size));
    // sizes in proportion to how far apart the communities sit (their centres come from the
    // layout of every node): the biggest is 0.45 of the median distance to the nearest centre
    const near = OV.communities.map((c) => Math.min(...OV.communities.filter((d) => d !== c).map((d) => Math.hypot(c.x - d.x, c.y - d.y))));
    near.sort((a, b) => a - b);
    const unit = near.length > 1 && Number.isFinite(near[near.length >> 1]) ? near[near.length >> 1] : 200;
    const ys = OV.communities.map((c) => c.year).filter((y) => y !== null);
    const lo = ys.length ? Math.min(...ys) : null, hi = ys.length ? Math.max(...ys) : null;
    for (const c of OV.communities) {
      const id = "community:" + c.i;
      const fill = hi !== null && hi > lo && c.year !== null ? yearColour(c.year, lo, hi) : (c.i >= 0 && c.i < (META.communityColors || []).length ? META.communityColors[c.i] : "#bdbdbd");
      metaById.set(id, Object.assign({}, c, { id: id, label: shortText(c.name, 48), kind: "Community" }));
      if (openCommunities.has(c.i)) continue;
      out.push({ id: id, x: c.x, y: c.y, shape: "dot", size: Math.round(unit * (0.08 + 0.37 * Math.sqrt(c.size / top))), color: { background: fill, border: "#4a4a4a" }, borderWidth: 1.5 });
    }
    return out;
  }
  function metaEdges() {
    const top = Math.max(1, ...OV.links.map((l) => l[2]));
    return OV.links.filter((l) => !openCommunities.has(l[0]) && !openCommunities.has(l[1])).map((l) => ({
      id: "link:" + l[0] + ":" + l[1], from: "community:" + l[0], to: "community:" + l[1],
      width: Math.round((0.8 + 5 * Math.sqrt(l[2] / top)) * 10) / 10, color: { color: "#c3ccd8", opacity: 0.7 }, arrows: "", smooth: false,
    }));
  }
  if (!OV) for (const n of DATA.nodes) present.add(n.id);
  const nodes = new vis.DataSet(OV ? metaNodes() : DATA.nodes.map(visNode));
  // vis holds only the edges on show: hidden types (RELATED_TO in the knowledge view) are added
  // when switched on, which keeps building the network fast on large pages.
  const edges = new vis.DataSet(OV ? metaEdges() : DATA.edges.filter((e) => !e.hidden).map((e) => Object.assign({}, e, { label: undefined })));
  const container = document.getElementById("mynetwork");
  const options = DATA.options;
  // Selected and hovered items keep their colours and get a dark outline.
  options.nodes.chosen = {
    label: false,
    node: (values) => {
      values.borderColor = "#111111";
      values.borderWidth = Math.max(values.borderWidth, 3);
    },
  };
  options.edges.chosen = {
    label: false,
    edge: (values) => {
      values.color = "#333333";
      values.opacity = 1;
      values.width = Math.max(values.width, 2);
    },
  };
  const t1 = performance.now();
  const network = new vis.Network(container, { nodes: nodes, edges: edges }, options);
  const t2 = performance.now();

  const state = {
    colourBy: META.colourBy,
    sizeBy: META.sizeBy,
    hiddenLabels: new Set(),
    hiddenTypes: new Set(META.edgeTypes.filter((t) => t.hidden).map((t) => t.name)),
    selected: null,
    selectedEdge: null,
    showAll: false, // "show all" neighbours of the selected node, not only the strongest N
    shownNeighbours: [],
    shownEdges: [],
    neighbourTotal: 0,
    moved: new Map(), // node id -> its own position, while the spread has moved it
  };
  // vis animates frame by frame; on thousands of nodes each frame is slow, so jump instead.
  const animation = DATA.nodes.length <= 1000 ? { duration: 400, easingFunction: "easeInOutQuad" } : false;
  const painted = new Map(); // node or edge id -> key of what it was last painted with

  const kg = {
    network: network,
    data: DATA,
    nodes: nodes,
    edges: edges,
    meta: META,
    ready: false,
    readyAt: null,
    timing: { scriptStart: scriptStart, inflate: window.KG_DATA.inflateMs || 0, unpack: unpackMs, data: t1 - t0, network: t2 - t1 },
    selected: () => state.selected,
    selectNode: (id) => selectNode(id, true),
    labelBoxes: () => lastBoxes.map((b) => ({ id: b.id, text: b.text, kind: b.kind, x: b.x, y: b.y, w: b.w, h: b.h })),
    shownNeighbours: () => state.shownNeighbours.slice(),
    showAll: () => showAll(),
    search: (q) => search(q).map((h) => h.id),
  };
  window.kg = kg;

  // ------------------------------------------------------------------------------------------
  // small DOM helpers (text only)

  function el(tag, props, children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = String(v);
      else if (k === "style") Object.assign(e.style, v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, String(v));
    }
    for (const c of children || []) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  const SVG = "http://www.w3.org/2000/svg";
  function shapeIcon(shape, fill, border) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("width", "14");
    svg.setAttribute("height", "14");
    svg.setAttribute("viewBox", "0 0 14 14");
    svg.setAttribute("aria-hidden", "true");
    let s;
    if (shape === "square") {
      s = document.createElementNS(SVG, "rect");
      s.setAttribute("x", "2"); s.setAttribute("y", "2");
      s.setAttribute("width", "10"); s.setAttribute("height", "10");
    } else if (shape === "dot" || !shape) {
      s = document.createElementNS(SVG, "circle");
      s.setAttribute("cx", "7"); s.setAttribute("cy", "7"); s.setAttribute("r", "5.5");
    } else {
      const pts = {
        diamond: "7,1 13,7 7,13 1,7",
        triangle: "7,1.5 13,12.5 1,12.5",
        star: "7,0.8 8.8,5 13.3,5.3 9.8,8.2 11,12.8 7,10.3 3,12.8 4.2,8.2 0.7,5.3 5.2,5",
      }[shape] || "7,1 13,7 7,13 1,7";
      s = document.createElementNS(SVG, "polygon");
      s.setAttribute("points", pts);
    }
    s.setAttribute("fill", fill);
    s.setAttribute("stroke", border || fill);
    s.setAttribute("stroke-width", "1.2");
    svg.append(s);
    return svg;
  }

  function lineIcon(colour, dashed) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("width", "18");
    svg.setAttribute("height", "10");
    svg.setAttribute("aria-hidden", "true");
    const l = document.createElementNS(SVG, "line");
    l.setAttribute("x1", "1"); l.setAttribute("y1", "5"); l.setAttribute("x2", "17"); l.setAttribute("y2", "5");
    l.setAttribute("stroke", colour);
    l.setAttribute("stroke-width", "2");
    if (dashed) l.setAttribute("stroke-dasharray", "3,2");
    svg.append(l);
    return svg;
  }

  function hexAlpha(hex, alpha) {
    const m = /^#?([0-9a-f]{6})$/i.exec(hex || "");
    if (!m) return "rgba(150,150,150," + alpha + ")";
    const v = parseInt(m[1], 16);
    return "rgba(" + ((v >> 16) & 255) + "," + ((v >> 8) & 255) + "," + (v & 255) + "," + alpha + ")";
  }

  function normLabel(label) {
    const s = String(label || "");
    return s ? s.charAt(0).toUpperCase() + s.slice(1).toLowerCase() : "Other";
  }

  function fmt(n) {
    return Number(n).toLocaleString("en-US");
  }

  // ------------------------------------------------------------------------------------------
  // painting: colours, sizes, hidden, highlight (only what changed is sent to vis)

  function sizeOf(n) {
    const base = n.kind === "Paper" ? 10 : 8;
    const v = state.sizeBy === "support" ? n.sup || 0 : n.deg || 0;
    const top = state.sizeBy === "support" ? topSup : topDeg;
    return top > 0 ? Math.round((base + 20 * Math.sqrt(v / top)) * 100) / 100 : base;
  }

  function neighbourhood(id) {
    const near = new Set([id]);
    for (const m of network.getConnectedNodes(id)) near.add(m);
    return near;
  }

  /* Colours, sizes and hidden flags; only nodes and edges whose look changed go to vis. */
  function repaint() {
    const nodeUpdates = [];
    for (const n of DATA.nodes) {
      if (!present.has(n.id)) continue;
      const hidden = state.hiddenLabels.has(n.kind);
      const fill = fillOf(n);
      const size = sizeOf(n);
      const key = fill + "|" + hidden + "|" + size;
      if (painted.get(n.id) === key) continue;
      painted.set(n.id, key);
      nodeUpdates.push({ id: n.id, hidden: hidden, size: size, font: { size: Math.round(8 + 0.8 * size) }, color: { background: fill, border: n.lc } });
    }
    if (nodeUpdates.length) nodes.update(nodeUpdates);

    const add = [], remove = [];
    for (const e of DATA.edges) {
      const hidden = !present.has(e.from) || !present.has(e.to) || state.hiddenTypes.has(e.type) || state.hiddenLabels.has(byId.get(e.from).kind) || state.hiddenLabels.has(byId.get(e.to).kind);
      const shown = edges.get(e.id) !== null;
      if (hidden && shown) remove.push(e.id);
      else if (!hidden && !shown) add.push(Object.assign({}, e, { hidden: false, label: undefined }));
    }
    if (remove.length) edges.remove(remove);
    if (add.length) edges.add(add);
  }

  /* Names on the canvas. vis-network draws no label (the data sets carry none); the page draws
     every name itself after each frame, at a fixed screen size, in order of priority: the
     selected node, its shown neighbours (strongest first), then the rest by size. A name is only
     drawn where its box meets no box already drawn, so no two names ever overlap; the boxes of
     the last frame are kept (in page pixels) for kg.labelBoxes(). */
  const LABEL_FONT = "Liberation Sans, Arial, sans-serif";
  const LABEL_PX = 12, LABEL_H = 15, LABEL_PAD = 3;
  const MAX_LABELS = 160, MAX_CANDIDATES = 6000;
  let lastBoxes = [];
  let byPriority = null; // node ids, biggest first: candidates for a name when nothing is selected
  const labelSide = new Map(); // node id -> "left" | "right" (spread columns); default below

  let metaPriority = null;
  function priorityOrder() {
    if (metaPriority === null) metaPriority = [...metaById.values()].sort((a, b) => b.size - a.size || a.i - b.i).map((c) => c.id);
    if (!present.size) return metaPriority; // the overview with nothing open: only meta-nodes
    if (byPriority === null) {
      const size = new Map(DATA.nodes.map((n) => [n.id, sizeOf(n)]));
      byPriority = metaPriority.concat(DATA.nodes.slice()
        .sort((a, b) => size.get(b.id) - size.get(a.id) || (b.sup || 0) - (a.sup || 0) || (a.id < b.id ? -1 : 1))
        .map((n) => n.id));
    }
    return byPriority;
  }

  function canvasRatio() {
    const cv = container.querySelector("canvas");
    return cv && cv.clientWidth ? cv.width / cv.clientWidth : (window.devicePixelRatio || 1);
  }

  /* Draw names for `items` ({id, text, bold, x, y, r, side} in container pixels) where they fit. */
  function placeLabels(ctx, items, width, height) {
    const placed = [];
    const cell = 64;
    const grid = new Map();
    const hits = (b) => {
      for (let gx = Math.floor(b.x / cell); gx <= Math.floor((b.x + b.w) / cell); gx++) {
        for (let gy = Math.floor(b.y / cell); gy <= Math.floor((b.y + b.h) / cell); gy++) {
          for (const o of grid.get(gx + "," + gy) || []) {
            if (b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h) return true;
          }
        }
      }
      return false;
    };
    const add = (b) => {
      for (let gx = Math.floor(b.x / cell); gx <= Math.floor((b.x + b.w) / cell); gx++) {
        for (let gy = Math.floor(b.y / cell); gy <= Math.floor((b.y + b.h) / cell); gy++) {
          const k = gx + "," + gy;
          if (!grid.has(k)) grid.set(k, []);
          grid.get(k).push(b);
        }
      }
      placed.push(b);
    };
    ctx.save();
    ctx.setTransform(canvasRatio(), 0, 0, canvasRatio(), 0, 0);
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    for (const it of items) {
      if (placed.length >= MAX_LABELS) break;
      if (!it.text) continue;
      ctx.font = (it.bold ? "700 " : "") + (it.bold ? LABEL_PX + 1 : LABEL_PX) + "px " + LABEL_FONT;
      const w = ctx.measureText(it.text).width + 2 * LABEL_PAD;
      const mid = it.y - LABEL_H / 2;
      let spots; // where the name may go, best first
      if (it.side === "left") spots = [[it.x - it.r - 3 - w, mid]];
      else if (it.side === "right") spots = [[it.x + it.r + 3, mid]];
      else if (it.side === "mid") spots = [[it.x - w / 2, mid], [it.x - w / 2, mid - LABEL_H + 4], [it.x - w / 2, mid + LABEL_H - 4]];
      else spots = [[it.x - w / 2, it.y + it.r + 2], [it.x - w / 2, it.y - it.r - 2 - LABEL_H], [it.x + it.r + 3, mid], [it.x - it.r - 3 - w, mid]];
      let b = null;
      for (const [x, y] of spots) {
        const c = { id: it.id, text: it.text, kind: it.kind || "node", x: x, y: y, w: w, h: LABEL_H };
        if (c.x < 0 || c.y < 0 || c.x + c.w > width || c.y + c.h > height || hits(c)) continue;
        b = c;
        break;
      }
      if (!b) continue;
      add(b);
      ctx.fillStyle = it.kind === "edge" ? "rgba(255,255,255,0.92)" : "rgba(255,255,255,0.85)";
      ctx.fillRect(b.x, b.y, b.w, b.h);
      ctx.fillStyle = it.kind === "edge" ? "#3a4f6b" : "#1a1a1a";
      ctx.fillText(it.text, b.x + LABEL_PAD, b.y + LABEL_H / 2 + 0.5);
    }
    ctx.restore();
    return placed;
  }

  function nodeItem(id, bold) {
    const body = network.body;
    const n = body.nodes[id];
    const rec = byId.get(id) || metaById.get(id);
    if (!n || !rec || n.options.hidden) return null;
    const p = network.canvasToDOM({ x: n.x, y: n.y });
    return { id: id, text: rec.label, bold: bold, x: p.x, y: p.y, r: (n.options.size || 10) * network.getScale(), side: labelSide.get(id) };
  }

  function edgeItem(eid) {
    const e = network.body.edges[eid];
    const rec = edgeById.get(eid);
    if (!e || !rec || !rec.label || e.options.hidden || !e.from || !e.to) return null;
    const p = network.canvasToDOM({ x: (e.from.x + e.to.x) / 2, y: (e.from.y + e.to.y) / 2 });
    return { id: eid, text: rec.label, kind: "edge", x: p.x, y: p.y, r: 0, side: "mid" };
  }

  function drawLabels(ctx) {
    const w = container.clientWidth, h = container.clientHeight;
    const items = [];
    if (state.selected) {
      const me = nodeItem(state.selected, true);
      if (me) items.push(me);
      for (const id of state.shownNeighbours) {
        const it = nodeItem(id, false);
        if (it) items.push(it);
      }
      for (const eid of state.shownEdges) {
        const it = edgeItem(eid);
        if (it) items.push(it);
      }
    } else {
      const a = network.DOMtoCanvas({ x: 0, y: 0 }), b = network.DOMtoCanvas({ x: w, y: h });
      let seen = 0;
      for (const id of priorityOrder()) {
        const n = network.body.nodes[id];
        if (!n || n.x < a.x || n.x > b.x || n.y < a.y || n.y > b.y) continue;
        const it = nodeItem(id, false);
        if (it) items.push(it);
        if (++seen >= MAX_CANDIDATES) break;
      }
      if (edges.length <= 60) for (const eid of edges.getIds()) { // a few edges: name them too (more would clutter)
        const it = edgeItem(eid);
        if (it) items.push(it);
      }
    }
    const rect = container.getBoundingClientRect();
    lastBoxes = placeLabels(ctx, items, w, h).map((b) => Object.assign(b, { x: b.x + rect.left, y: b.y + rect.top }));
  }

  /* Neighbour highlight drawn over the canvas: everything else is veiled, then the selected
     node's shown edges and neighbours (the strongest N, or all after "show all") are drawn again
     on top. Nothing in the data sets changes, so a redraw stays cheap on large pages. */
  function drawHighlight(ctx) {
    if (!network.body) return;
    if (state.selected) {
      const body = network.body;
      const w = container.clientWidth, h = container.clientHeight;
      const a = network.DOMtoCanvas({ x: 0, y: 0 }), b = network.DOMtoCanvas({ x: w, y: h });
      ctx.save();
      ctx.fillStyle = "rgba(255,255,255,0.86)";
      ctx.fillRect(a.x, a.y, b.x - a.x, b.y - a.y);
      ctx.restore();
      for (const eid of state.shownEdges) {
        const e = body.edges[eid];
        if (e && !e.options.hidden && body.nodes[e.fromId] && body.nodes[e.toId]) {
          e.draw(ctx);
          if (e.drawArrows) e.drawArrows(ctx);
        }
      }
      for (const id of [...state.shownNeighbours, state.selected]) {
        const n = body.nodes[id];
        if (n && !n.options.hidden) n.draw(ctx);
      }
    }
    drawLabels(ctx);
  }
  network.on("afterDrawing", drawHighlight);

  // ------------------------------------------------------------------------------------------
  // spreading the neighbourhood of the selected node

  /* Neighbours of `id` on show, strongest first: by the weight of the strongest edge between
     them, then by their size, then by id. Returns [{id, edges: [edge ids]}]. */
  function rankedNeighbours(id) {
    const found = new Map();
    for (const eid of network.getConnectedEdges(id)) {
      const e = edgeById.get(eid);
      if (!e || edges.get(eid) === null) continue;
      const other = e.from === id ? e.to : e.from;
      const o = byId.get(other);
      if (!o || state.hiddenLabels.has(o.kind) || other === id) continue;
      const w = Number(e.weight) || 0;
      const got = found.get(other);
      if (got) { got.edges.push(eid); got.w = Math.max(got.w, w); }
      else found.set(other, { id: other, edges: [eid], w: w, size: sizeOf(o) });
    }
    return [...found.values()].sort((p, q) => q.w - p.w || q.size - p.size || (p.id < q.id ? -1 : 1));
  }

  function restoreSpread() {
    if (state.moved.size) {
      nodes.update([...state.moved.entries()].map(([id, p]) => ({ id: id, x: p.x, y: p.y })));
      state.moved.clear();
    }
    labelSide.clear();
    state.shownNeighbours = [];
    state.shownEdges = [];
  }

  /* Lay the shown neighbours out around the selected node so every name fits: up to
     SPREAD_COLUMN per column, columns to the left and right (names outward), each neighbour on
     the side it was on; with "show all", rings around the node. Returns the area to frame. */
  const SPREAD_N = META.spreadN || 24;
  const SPREAD_COLUMN = 14;
  function spread(id) {
    restoreSpread();
    const centre = network.getPosition(id);
    const ranked = rankedNeighbours(id);
    const shown = state.showAll ? ranked : ranked.slice(0, SPREAD_N);
    state.neighbourTotal = ranked.length;
    state.shownNeighbours = shown.map((r) => r.id);
    state.shownEdges = shown.flatMap((r) => r.edges);
    if (!shown.length) return { x: centre.x, y: centre.y, w: 200, h: 120 };
    const orig = new Map(shown.map((r) => [r.id, network.getPosition(r.id)]));
    const maxSize = Math.max(10, ...shown.map((r) => sizeOf(byId.get(r.id))));
    const updates = [];
    let box;
    if (shown.length <= 2 * SPREAD_COLUMN * 2) {
      // columns: left and right halves by where the neighbours were, then by their height
      const byX = shown.slice().sort((p, q) => orig.get(p.id).x - orig.get(q.id).x || (p.id < q.id ? -1 : 1));
      const half = Math.ceil(byX.length / 2);
      const sides = [byX.slice(0, half), byX.slice(half)];
      if (sides[1].length > sides[0].length) sides.reverse();
      const row = Math.max(26, 2 * maxSize + 6);
      const colGap = 300;
      let rows = 0;
      sides.forEach((list, s) => {
        list.sort((p, q) => orig.get(p.id).y - orig.get(q.id).y || (p.id < q.id ? -1 : 1));
        const perCol = Math.min(SPREAD_COLUMN, Math.max(1, Math.ceil(list.length / Math.ceil(list.length / SPREAD_COLUMN))));
        list.forEach((r, i) => {
          const col = Math.floor(i / perCol), k = i % perCol;
          const inCol = Math.min(perCol, list.length - col * perCol);
          const dir = s === 0 ? -1 : 1;
          const x = centre.x + dir * (170 + col * colGap);
          const y = centre.y + (k - (inCol - 1) / 2) * row;
          updates.push({ id: r.id, x: x, y: y });
          labelSide.set(r.id, dir < 0 ? "left" : "right");
          rows = Math.max(rows, inCol);
        });
      });
      const cols = Math.ceil(Math.max(sides[0].length, sides[1].length) / SPREAD_COLUMN);
      box = { x: centre.x, y: centre.y, w: 2 * (170 + (cols - 1) * colGap + 230), h: rows * row + 60 };
    } else {
      // show all of a hub: rings around it, most related innermost
      const gap = Math.max(40, 2 * maxSize + 10);
      let ring = 1, placed = 0, reach = 0;
      while (placed < shown.length) {
        const radius = 120 + ring * gap;
        const fits = Math.max(6, Math.floor((2 * Math.PI * radius) / gap));
        const take = shown.slice(placed, placed + fits);
        take.forEach((r, i) => {
          const t = (2 * Math.PI * i) / take.length + ring * 0.37;
          updates.push({ id: r.id, x: centre.x + radius * Math.cos(t), y: centre.y + radius * Math.sin(t) });
        });
        placed += take.length;
        reach = radius;
        ring += 1;
      }
      box = { x: centre.x, y: centre.y, w: 2 * reach + 200, h: 2 * reach + 60 };
    }
    for (const r of shown) state.moved.set(r.id, orig.get(r.id));
    nodes.update(updates);
    return box;
  }

  /* Frame `box` (canvas units) in the part of the canvas the side panel leaves free. */
  function frame(box) {
    const free = container.clientWidth - (panel.hidden ? 0 : Math.min(panel.offsetWidth, container.clientWidth / 2));
    const scale = Math.min(1.0, (free - 20) / box.w, (container.clientHeight - 20) / box.h);
    const offsetX = -(container.clientWidth - free) / 2;
    network.moveTo({ position: { x: box.x, y: box.y }, scale: scale, offset: { x: offsetX, y: 0 }, animation: false });
  }

  // ------------------------------------------------------------------------------------------
  // selection and the side panel

  const panel = document.getElementById("kg-panel");
  const panelBody = document.getElementById("kg-panel-body");

  let panelBuilder = null; // how the open panel was built, to build it again when details arrive
  function openPanel(children, builder) {
    panelBuilder = builder || null;
    panelBody.replaceChildren(...children);
    panel.hidden = false;
    panel.scrollTop = 0;
  }

  function closePanel() {
    panel.hidden = true;
    panelBody.replaceChildren();
  }

  function nodeLink(id, text) {
    const known = byId.has(id);
    const a = el("span", { class: known ? "kg-link" : "kg-link kg-off", "data-node": id, text: text || id });
    if (known) a.addEventListener("click", () => selectNode(id, true));
    else a.title = "not on this page";
    return a;
  }

  function kindChip(kind, colour) {
    return el("span", { class: "kg-kind", style: { backgroundColor: colour || LABEL_COLORS[kind] || "#888" }, text: kind });
  }

  function codePoints(text) {
    return Array.from(String(text || ""));
  }

  /* The abstract with its mentions marked. Offsets are Python character (code point) offsets. */
  function markedAbstract(text, mentions) {
    const cps = codePoints(text);
    const spans = (mentions || [])
      .filter((m) => Array.isArray(m) && Number.isInteger(m[0]) && Number.isInteger(m[1]) && m[0] >= 0 && m[0] < m[1] && m[1] <= cps.length)
      .slice()
      .sort((x, y) => x[0] - y[0] || y[1] - x[1]);
    const out = el("p", { class: "kg-abstract" });
    let pos = 0;
    for (const m of spans) {
      if (m[0] < pos) continue; // overlapping mention: the first one wins
      if (m[0] > pos) out.append(cps.slice(pos, m[0]).join(""));
      const label = normLabel(m[2]);
      const colour = LABEL_COLORS[label] || "#999999";
      const entity = m.length > 3 && m[3] ? String(m[3]) : "";
      const mark = el("mark", {
        title: label + (entity ? " · " + entity : ""),
        "data-entity": entity,
        "data-label": label,
        style: { backgroundColor: hexAlpha(colour, 0.25), borderBottom: "2px solid " + colour },
      }, [cps.slice(m[0], m[1]).join("")]);
      if (entity && byId.has(entity)) mark.addEventListener("click", () => selectNode(entity, true));
      out.append(mark);
      pos = m[1];
    }
    if (pos < cps.length) out.append(cps.slice(pos).join(""));
    return out;
  }

  /* An evidence sentence with the evidence text marked (found in the sentence, not by offset). */
  function markedSentence(ev) {
    const sentence = String(ev.sentence || ev.text || "");
    const text = String(ev.text || "");
    const q = el("blockquote");
    const at = text ? sentence.indexOf(text) : -1;
    if (at < 0) q.append(sentence);
    else q.append(sentence.slice(0, at), el("mark", { style: { backgroundColor: "#fde9a8" } }, [text]), sentence.slice(at + text.length));
    return q;
  }

  function neighboursByType(id) {
    const groups = new Map();
    for (const eid of network.getConnectedEdges(id)) {
      const e = edgeById.get(eid);
      if (!e) continue;
      const other = e.from === id ? e.to : e.from;
      const arrow = e.from === id ? e.type + " →" : "← " + e.type;
      if (!groups.has(arrow)) groups.set(arrow, []);
      groups.get(arrow).push(other);
    }
    return groups;
  }

  function linksSection(id) {
    const out = [];
    const groups = neighboursByType(id);
    for (const [arrow, ids] of [...groups.entries()].sort()) {
      out.push(el("h4", { text: arrow + " (" + ids.length + ")" }));
      const ul = el("ul");
      for (const other of ids.slice(0, 60)) {
        const o = byId.get(other);
        ul.append(el("li", {}, [nodeLink(other, o ? o.name : other)]));
      }
      if (ids.length > 60) ul.append(el("li", { class: "kg-muted", text: "and " + (ids.length - 60) + " more" }));
      out.push(ul);
    }
    return out;
  }

  /* The numeric results the paper states (kg results): what, whose, over what, and the sentence
     with the value marked. Rows: [value s, value e, sentence s, sentence e, name, method, baseline]. */
  function resultsSection(n) {
    const cps = Array.from(String(n.abstract || ""));
    const cut = (a, b) => cps.slice(a, b).join("");
    const items = n.results.map((r) => {
      const [vs, ve, ss, se, name, method, baseline] = r;
      const head = [el("b", { text: name })];
      if (method) head.push(el("span", { text: " · " + method }));
      if (baseline) head.push(el("span", { class: "kg-muted", text: " · over " + baseline }));
      const sentence = el("div", { class: "kg-result-evidence kg-muted" }, [
        cut(ss, vs), el("mark", { text: cut(vs, ve) }), cut(ve, se),
      ]);
      return el("li", { class: "kg-result" }, [el("div", {}, head), sentence]);
    });
    return [el("h4", { text: "Results (" + fmt(n.results.length) + ")" }), el("ul", { class: "kg-results" }, items)];
  }

  function paperPanel(n) {
    const parts = [kindChip("Paper"), el("h3", { text: n.paperTitle || n.name })];
    if (n.titleDerived || !n.paperTitle) parts.push(el("div", { class: "kg-meta kg-muted", text: "title derived from the abstract" }));
    const bits = [n.year, n.venue].filter((x) => x !== null && x !== undefined && x !== "");
    if (bits.length) parts.push(el("div", { class: "kg-meta", text: bits.join(" · ") }));
    if (n.authors && n.authors.length) parts.push(el("div", { class: "kg-meta", text: n.authors.join(", ") }));
    if (n.keywords && n.keywords.length) parts.push(el("div", {}, n.keywords.map((k) => el("span", { class: "kg-chip", text: k }))));
    parts.push(el("h4", { text: "Abstract" }));
    parts.push(kg.detailsReady ? markedAbstract(n.abstract, n.mentions) : el("p", { class: "kg-muted", text: "loading the abstract…" }));
    if (related(n.id).size) {
      parts.splice(2, 0, el("div", { class: "kg-buttons" }, [
        el("button", { type: "button", id: "kg-map-open", onclick: () => openMap(n.id) }, ["Map around this paper (" + fmt(related(n.id).size) + " related)"]),
      ]));
    }
    if (kg.detailsReady && n.results && n.results.length) parts.push(...resultsSection(n));
    parts.push(...linksSection(n.id));
    parts.push(el("div", { class: "kg-meta kg-muted", text: n.id + (n.source ? " · " + n.source : "") }));
    return parts;
  }

  function entityPanel(n) {
    const parts = [kindChip(n.kind), el("h3", { text: n.name })];
    const bits = ["support " + fmt(n.support || 0) + " paper" + (n.support === 1 ? "" : "s")];
    if (n.mentionCount !== null && n.mentionCount !== undefined) bits.push(fmt(n.mentionCount) + " mentions");
    parts.push(el("div", { class: "kg-meta", text: bits.join(" · ") }));
    const aliases = (n.aliases || []).filter((a) => a !== n.name);
    if (aliases.length) {
      parts.push(el("h4", { text: "Aliases" }));
      parts.push(el("div", { class: "kg-aliases" }, aliases.map((a) => el("span", { class: "kg-chip", text: a }))));
    }
    parts.push(el("h4", { text: "Papers (" + fmt(n.papersTotal || 0) + ")" }));
    const ul = el("ul", { class: "kg-papers" });
    for (const [pid, pname] of n.papers || []) ul.append(el("li", {}, [nodeLink(pid, pname)]));
    if ((n.papersTotal || 0) > (n.papers || []).length) ul.append(el("li", { class: "kg-muted", text: "and " + fmt(n.papersTotal - n.papers.length) + " more" }));
    parts.push(ul);
    parts.push(...linksSection(n.id).filter((x) => true));
    parts.push(el("div", { class: "kg-meta kg-muted", text: n.id }));
    return parts;
  }

  function edgePanel(e) {
    const a = byId.get(e.from), b = byId.get(e.to);
    const parts = [kindChip(e.type, e.type === "RELATED_TO" ? "#4e79a7" : "#666666")];
    parts.push(el("h3", {}, [nodeLink(e.from, a ? a.name : e.from), " → ", nodeLink(e.to, b ? b.name : e.to)]));
    const bits = ["weight " + (Math.round((e.weight || 0) * 1000) / 1000)];
    if (e.count !== null && e.count !== undefined) bits.push("count " + e.count);
    parts.push(el("div", { class: "kg-meta", text: bits.join(" · ") }));
    if (e.shared && e.shared.length) {
      parts.push(el("h4", { text: "Shared (" + fmt(e.sharedTotal || e.shared.length) + ")" }));
      parts.push(el("div", {}, e.shared.map(([sid, sname]) => {
        const chip = el("span", { class: "kg-chip" }, [nodeLink(sid, sname)]);
        return chip;
      })));
    }
    if (e.sharedTerms && e.sharedTerms.length) {
      parts.push(el("h4", { text: "Shared words" }));
      parts.push(el("div", {}, e.sharedTerms.map((t) => el("span", { class: "kg-chip", text: t }))));
    }
    const evidence = DATA.evidence(e);
    if (evidence.length) {
      parts.push(el("h4", { text: "Evidence (" + evidence.length + (e.evidenceTotal > evidence.length ? " of " + fmt(e.evidenceTotal) : "") + ")" }));
      for (const ev of evidence) {
        parts.push(markedSentence(ev));
        const src = [];
        if (ev.paper_id) src.push(nodeLink("paper:" + ev.paper_id, ev.paper_id));
        const how = [ev.extractor, ev.score !== undefined && ev.score !== null ? "score " + ev.score : null].filter(Boolean).join(", ");
        if (how) src.push(" · " + how);
        parts.push(el("div", { class: "kg-meta kg-muted" }, src));
      }
    } else if (!kg.detailsReady && e.evidenceTotal) {
      parts.push(el("div", { class: "kg-meta kg-muted", text: "loading the evidence…" }));
    } else if (e.type !== "RELATED_TO") {
      parts.push(el("div", { class: "kg-meta kg-muted", text: "no evidence sentence recorded" }));
    }
    return parts;
  }

  /* The note above a panel on what the canvas shows: the strongest N neighbours, or all. */
  function spreadNote() {
    const total = state.neighbourTotal, shownCount = state.shownNeighbours.length;
    if (total <= SPREAD_N) return null;
    const box = el("div", { class: "kg-spread-note", id: "kg-spread-note" });
    if (shownCount < total) {
      box.append("Showing the " + fmt(shownCount) + " strongest of " + fmt(total) + " connections on show. ");
      box.append(el("button", { type: "button", id: "kg-show-all", onclick: () => showAll() }, ["Show all " + fmt(total)]));
    } else {
      box.append("Showing all " + fmt(total) + " connections on show. ");
      box.append(el("button", { type: "button", id: "kg-show-strongest", onclick: () => showAll(false) }, ["Only the strongest " + fmt(SPREAD_N)]));
    }
    return box;
  }

  function selectNode(id, zoom, keepShowAll) {
    const n = byId.get(id);
    if (!n) return false;
    if (!present.has(id)) openCommunity(communityOf(n), false, false, n);
    if (state.hiddenLabels.has(n.kind)) setLabelHidden(n.kind, false);
    if (state.selected !== id || !keepShowAll) state.showAll = Boolean(keepShowAll) && state.showAll;
    restoreSpread();
    state.selected = id;
    state.selectedEdge = null;
    network.selectNodes([id], true);
    const build = () => {
      const parts = n.kind === "Paper" ? paperPanel(n) : entityPanel(n);
      const note = spreadNote();
      if (note) parts.splice(2, 0, note);
      return parts;
    };
    const box = spread(id);
    openPanel(build(), build);
    panel.dataset.node = id;
    delete panel.dataset.edge;
    frame(box);
    network.redraw();
    return true;
  }

  function showAll(on) {
    if (!state.selected) return false;
    state.showAll = on !== false;
    return selectNode(state.selected, true, true);
  }

  function selectEdge(eid) {
    const e = edgeById.get(eid);
    if (!e) return;
    restoreSpread();
    state.selected = null;
    state.selectedEdge = eid;
    network.selectEdges([eid]);
    network.redraw();
    openPanel(edgePanel(e), () => edgePanel(e));
    panel.dataset.edge = eid;
    delete panel.dataset.node;
  }

  function clearSelection() {
    restoreSpread();
    state.selected = null;
    state.selectedEdge = null;
    state.showAll = false;
    network.unselectAll();
    network.redraw();
    closePanel();
    delete panel.dataset.community;
  }

  // ------------------------------------------------------------------------------------------
  // the overview: communities open into their members on click

  let members = null; // community index -> its nodes, built on first use
  function membersOf(i) {
    if (members === null) {
      members = new Map();
      for (const n of DATA.nodes) {
        const c = communityOf(n);
        if (!members.has(c)) members.set(c, []);
        members.get(c).push(n);
      }
    }
    return members.get(i) || [];
  }

  let edgesOf = null; // node id -> its edges, built on first use
  /* Put on show the edges of `ids` whose other end is on show (and whose type and labels are not
     hidden): opening a community touches its members' edges, not every edge of the page. */
  function addEdgesOf(ids) {
    if (edgesOf === null) {
      edgesOf = new Map();
      for (const e of DATA.edges) {
        for (const end of [e.from, e.to]) {
          if (!edgesOf.has(end)) edgesOf.set(end, []);
          edgesOf.get(end).push(e);
        }
      }
    }
    const add = [], seen = new Set();
    for (const id of ids) {
      for (const e of edgesOf.get(id) || []) {
        if (seen.has(e.id) || !present.has(e.from) || !present.has(e.to)) continue;
        seen.add(e.id);
        if (state.hiddenTypes.has(e.type) || state.hiddenLabels.has(byId.get(e.from).kind) || state.hiddenLabels.has(byId.get(e.to).kind)) continue;
        if (edges.get(e.id) === null) add.push(Object.assign({}, e, { hidden: false, label: undefined }));
      }
    }
    if (add.length) edges.add(add);
  }

  /* Opening a community adds its OPEN_CAP most connected members (papers and entities alike, by
     degree, then support); "Show all members" adds the rest. Thousands of nodes at once would
     make the click slow and the view a hairball. */
  const OPEN_CAP = 400;
  const fullyOpen = new Set();
  function shownMembers(i) {
    const all = membersOf(i);
    if (fullyOpen.has(i) || all.length <= OPEN_CAP) return all;
    return all.slice().sort((a, b) => (b.deg || 0) - (a.deg || 0) || (b.sup || 0) - (a.sup || 0) || (a.id < b.id ? -1 : 1)).slice(0, OPEN_CAP);
  }

  /* Add the members of community `i` (and the edges among the nodes on show), drop its meta-node;
     with `show`, frame them and open the community's panel. */
  function openCommunity(i, show, all, must) {
    if (!OV) return false;
    const c = metaById.get("community:" + i);
    if (!c) return false;
    if (all) fullyOpen.add(i);
    if (!openCommunities.has(i) || all || (must && !present.has(must.id))) {
      openCommunities.add(i);
      restoreSpread();
      if (nodes.get("community:" + i) !== null) nodes.remove("community:" + i);
      edges.remove(edges.getIds({ filter: (e) => e.from === "community:" + i || e.to === "community:" + i }));
      const add = shownMembers(i).concat(must ? [must] : []).filter((n, k, list) => !present.has(n.id) && list.findIndex((m) => m.id === n.id) === k);
      for (const n of add) {
        present.add(n.id);
        painted.set(n.id, fillOf(n) + "|false|" + sizeOf(n));
      }
      nodes.add(add.map((n) => Object.assign(visNode(n), { size: sizeOf(n), hidden: state.hiddenLabels.has(n.kind), color: { background: fillOf(n), border: n.lc } })));
      addEdgesOf(add.map((n) => n.id));
    }
    if (show) {
      state.selected = null;
      network.unselectAll();
      openPanel(communityPanel(c));
      panel.dataset.community = String(i);
      delete panel.dataset.node;
      const ids = membersOf(i).filter((n) => present.has(n.id)).map((n) => n.id);
      network.fit({ nodes: ids, animation: false });
      const side = panel.hidden ? 0 : Math.min(panel.offsetWidth, container.clientWidth / 2);
      const free = container.clientWidth - side;
      network.moveTo({ position: network.getViewPosition(), scale: network.getScale() * 0.9 * free / container.clientWidth,
        offset: { x: -side / 2, y: 0 }, animation: false });
    }
    updateOverviewNote();
    return true;
  }

  /* Back to the overview: every community closed again. */
  function showOverview() {
    if (!OV) return;
    clearSelection();
    nodes.clear();
    present.clear();
    openCommunities.clear();
    fullyOpen.clear();
    edges.clear();
    nodes.add(metaNodes());
    edges.add(metaEdges());
    network.fit({ animation: false });
    updateOverviewNote();
  }

  function communityPanel(c) {
    const parts = [kindChip("Community", "#555555"), el("h3", { text: c.name })];
    const bits = [fmt(c.papers) + " papers", fmt(c.size - c.papers) + " entities"];
    const onShow = membersOf(c.i).filter((n) => present.has(n.id)).length;
    if (c.year !== null) bits.push("mean year " + c.year + (c.yearMin !== c.yearMax ? " (" + c.yearMin + "–" + c.yearMax + ")" : ""));
    parts.push(el("div", { class: "kg-meta", text: bits.join(" · ") }));
    if (onShow < c.size) {
      parts.push(el("div", { class: "kg-spread-note" }, [
        "Showing the " + fmt(onShow) + " most connected of " + fmt(c.size) + " members. ",
        el("button", { type: "button", id: "kg-community-all", onclick: () => openCommunity(c.i, true, true) }, ["Show all members"]),
      ]));
    }
    if (c.top && c.top.length) {
      parts.push(el("h4", { text: "Distinctive entities (papers here)" }));
      parts.push(el("div", {}, c.top.map(([eid, name, count]) => el("span", { class: "kg-chip" }, [nodeLink(eid, name), " " + fmt(count)]))));
    }
    if (c.periods && c.periods.length) {
      parts.push(el("h4", { text: "By period (distinctive entities, papers)" }));
      for (const [lo, hi, n, top] of c.periods) {
        const chips = top.map(([eid, name, count]) => el("span", { class: "kg-chip" }, [nodeLink(eid, name), " " + fmt(count)]));
        parts.push(el("div", { class: "kg-period" }, [el("b", { text: (lo === hi ? String(lo) : lo + "–" + hi) + " (" + fmt(n) + "): " }), ...chips]));
      }
    }
    const papers = membersOf(c.i).filter((n) => n.kind === "Paper").sort((a, b) => (b.deg || 0) - (a.deg || 0) || (a.id < b.id ? -1 : 1));
    parts.push(el("h4", { text: "Papers (" + fmt(papers.length) + "), most connected first" }));
    const ul = el("ul");
    for (const n of papers.slice(0, 40)) ul.append(el("li", {}, [nodeLink(n.id, n.name)]));
    if (papers.length > 40) ul.append(el("li", { class: "kg-muted", text: "and " + fmt(papers.length - 40) + " more" }));
    parts.push(ul);
    parts.push(el("div", { class: "kg-buttons" }, [el("button", { type: "button", id: "kg-back-overview", onclick: showOverview }, ["Back to the overview"])]));
    return parts;
  }

  function updateOverviewNote() {
    const note = document.getElementById("kg-overview-note");
    if (!OV || !note) return;
    note.hidden = false;
    const opened = openCommunities.size;
    note.replaceChildren(
      el("span", { text: "Overview: " + fmt(OV.communities.length) + " communities, named by their most distinctive entities" + (opened ? "; " + fmt(opened) + " open (" + fmt(present.size) + " nodes on show)" : "; click one to open it") + ". " }),
      el("button", { type: "button", id: "kg-overview", onclick: showOverview, disabled: opened ? null : "disabled" }, ["Back to the overview"]),
    );
  }
  kg.openCommunity = (i) => openCommunity(i, true);
  kg.showOverview = () => showOverview();
  kg.present = () => [...present];
  kg.communities = () => (OV ? OV.communities.map((c) => ({ i: c.i, name: c.name, size: c.size, open: openCommunities.has(c.i) })) : []);

  network.on("click", (p) => {
    if (p.nodes && p.nodes.length && metaById.has(p.nodes[0])) openCommunity(metaById.get(p.nodes[0]).i, true);
    else if (p.nodes && p.nodes.length) selectNode(p.nodes[0], false);
    else if (p.edges && p.edges.length) selectEdge(p.edges[0]);
    else clearSelection();
  });
  document.getElementById("kg-panel-close").addEventListener("click", clearSelection);
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && document.activeElement !== searchInput) clearSelection();
  });

  // hover tooltip, built from text (vis-network's own tooltip would render HTML strings)
  const tooltip = document.getElementById("kg-tooltip");
  function showTip(text, p) {
    const rect = container.getBoundingClientRect();
    const dom = p && p.pointer && p.pointer.DOM ? p.pointer.DOM : { x: 0, y: 0 };
    tooltip.textContent = text;
    tooltip.style.left = Math.round(rect.left + dom.x + 14) + "px";
    tooltip.style.top = Math.round(rect.top + dom.y + 14) + "px";
    tooltip.hidden = false;
  }
  network.on("hoverNode", (p) => {
    const n = byId.get(p.node);
    if (!n) return;
    const extra = n.kind === "Paper" ? (n.year ? " · " + n.year : "") : " · support " + (n.support || 0);
    showTip(n.name + " (" + n.kind + extra + ")", p);
  });
  network.on("hoverEdge", (p) => {
    const e = edgeById.get(p.edge);
    if (!e) return;
    const names = e.shared && e.shared.length ? e.shared.map((s) => s[1]) : (e.sharedTerms || []);
    const shared = names.length ? ": " + names.slice(0, 4).join(", ") + (names.length > 4 ? "…" : "") : "";
    showTip(e.type + shared, p);
  });
  network.on("blurNode", () => { tooltip.hidden = true; });
  network.on("blurEdge", () => { tooltip.hidden = true; });
  network.on("dragStart", () => { tooltip.hidden = true; });
  network.on("zoom", () => { tooltip.hidden = true; });

  // ------------------------------------------------------------------------------------------
  // legend, toggles, display controls, what was left out

  const labelBoxes = new Map();
  function setLabelHidden(label, hidden) {
    if (hidden) state.hiddenLabels.add(label);
    else state.hiddenLabels.delete(label);
    const box = labelBoxes.get(label);
    if (box) box.checked = !hidden;
    if (hidden && state.selected && byId.get(state.selected).kind === label) clearSelection();
    repaint();
  }

  function buildLegend() {
    const ul = document.getElementById("kg-legend");
    for (const l of META.labels) {
      const box = el("input", { type: "checkbox", "data-label": l.name });
      box.checked = true;
      box.addEventListener("change", () => setLabelHidden(l.name, !box.checked));
      labelBoxes.set(l.name, box);
      ul.append(el("li", { "data-label": l.name }, [
        el("label", {}, [box, shapeIcon(l.shape, l.color), el("span", { text: l.name }), el("span", { class: "kg-count", text: fmt(l.count) })]),
      ]));
    }
    const types = document.getElementById("kg-edge-types");
    for (const t of META.edgeTypes) {
      const box = el("input", { type: "checkbox", "data-type": t.name });
      box.checked = !t.hidden;
      box.addEventListener("change", () => {
        if (box.checked) state.hiddenTypes.delete(t.name);
        else state.hiddenTypes.add(t.name);
        repaint();
      });
      types.append(el("li", { "data-type": t.name }, [
        el("label", {}, [box, lineIcon(t.name === "RELATED_TO" ? "#7b9cc4" : "#9a9a9a", t.name === "RELATED_TO" && META.view === "knowledge"), el("span", { text: t.name }), el("span", { class: "kg-count", text: fmt(t.count) })]),
      ]));
    }
    if (!META.edgeTypes.length) types.append(el("li", { class: "kg-muted", text: "none" }));
    updateCommunityNote();
  }

  /* Fill colour of a node: its label, its community, or its (mean) year on the ramp the overview
     uses (light: early, dark: late; grey when undated). */
  function fillOf(n) {
    if (state.colourBy === "community") return n.cc;
    if (state.colourBy !== "year") return n.lc;
    if (n.yr === null || n.yr === undefined || !YEARS) return "#d0d0d0";
    return yearColour(n.yr, YEARS[0], YEARS[1]);
  }

  function updateCommunityNote() {
    const note = document.getElementById("kg-community-note");
    if (state.colourBy === "community") {
      let text = "Fill colour: community (" + fmt(META.communities) + " found by Louvain). Shape and border: label.";
      if (OV) {
        const ys = OV.communities.map((c) => c.year).filter((y) => y !== null);
        if (ys.length && Math.max(...ys) > Math.min(...ys)) {
          text = "Circles: communities, coloured by the mean year of their papers (light " + Math.min(...ys).toFixed(1) +
            ", dark " + Math.max(...ys).toFixed(1) + "). Opened members: fill by community, shape and border by label.";
        }
      }
      note.textContent = text;
      note.hidden = false;
    } else if (state.colourBy === "year") {
      note.textContent = YEARS ? "Fill colour: a paper's year, an entity's mean year of its papers, from " +
        YEARS[0].toFixed(0) + " (light) to " + YEARS[1].toFixed(0) + " (dark); grey: no year. Shape and border: label."
        : "No paper on the page has a year: every node is grey.";
      note.hidden = false;
    } else {
      note.hidden = true;
    }
  }

  function buildSummary() {
    const c = META.counts;
    let text = fmt(c.nodes) + " nodes · " + fmt(c.edges) + " edges";
    if (c.nodes < c.totalNodes || c.edges < c.totalEdges) text += " (of " + fmt(c.totalNodes) + " nodes · " + fmt(c.totalEdges) + " edges)";
    if (META.options && META.options.length) text += " · " + META.options.join(" · ");
    document.getElementById("kg-summary").textContent = text;

    if (META.leftOut && META.leftOut.length) {
      const box = document.getElementById("kg-left-out");
      document.getElementById("kg-left-out-summary").textContent =
        "Showing " + fmt(c.nodes) + " of " + fmt(c.totalNodes) + " nodes and " + fmt(c.edges) + " of " + fmt(c.totalEdges) + " edges. Left out:";
      const ul = document.getElementById("kg-left-out-list");
      for (const [reason, count] of META.leftOut) ul.append(el("li", { text: fmt(count) + " — " + reason }));
      const by = Object.entries(META.leftOutByLabel || {});
      if (by.length) ul.append(el("li", { text: "cut by max nodes: " + by.map(([l, n]) => fmt(n) + " " + l).join(", ") }));
      box.hidden = false;
    }
  }

  function buildControls() {
    const colour = document.getElementById("kg-colour-by");
    colour.value = state.colourBy;
    colour.addEventListener("change", () => { state.colourBy = colour.value; updateCommunityNote(); repaint(); });
    const size = document.getElementById("kg-size-by");
    size.value = state.sizeBy;
    size.addEventListener("change", () => { state.sizeBy = size.value; byPriority = null; repaint(); });
    document.getElementById("kg-fit").addEventListener("click", () => network.fit({ animation: animation }));
    const relax = document.getElementById("kg-relax");
    relax.addEventListener("click", () => {
      relax.disabled = true;
      const stop = () => { network.setOptions({ physics: { enabled: false } }); relax.disabled = false; };
      network.once("stabilized", stop);
      network.setOptions({ physics: { enabled: true, solver: "barnesHut", barnesHut: { gravitationalConstant: -3000, springLength: 60, avoidOverlap: 0.3 }, stabilization: { enabled: false } } });
      network.stabilize(DATA.nodes.length > 1000 ? 50 : 150);
      setTimeout(stop, 15000);
    });
  }

  // ------------------------------------------------------------------------------------------
  // search by name, title, alias or id

  const searchInput = document.getElementById("kg-search");
  const results = document.getElementById("kg-search-results");
  /* What a node is found by: its name, title, aliases and id; a paper also by the names of
     the entities its abstract mentions (in every view, so the papers view finds "GSM8K"). */
  function mentionNames(n) {
    if (n.kind !== "Paper" || !n.mentions || !n.mentions.length) return [];
    const cps = codePoints(n.abstract);
    const names = new Set();
    for (const m of n.mentions) {
      const ent = m[3] && byId.get(m[3]);
      if (ent) names.add(ent.name);
      if (Number.isInteger(m[0]) && Number.isInteger(m[1])) names.add(cps.slice(m[0], m[1]).join(""));
    }
    names.delete(n.name);
    return [...names];
  }
  let index = null; // built on the first search: on 100,000 nodes it costs a moment
  const buildIndex = () => DATA.nodes.map((n) => ({
    id: n.id,
    name: n.name,
    kind: n.kind,
    weight: (n.sup || 0) + (n.deg || 0),
    terms: [n.name, n.paperTitle, ...(n.aliases || []), n.id]
      .filter((t) => t !== undefined && t !== null && t !== "")
      .map((t) => [String(t), String(t).toLowerCase(), "alias"]),
    mentioned: null, // filled on the first search: [name, lower] of what the paper mentions
    source: n,
  }));

  function search(query, limit) {
    const q = String(query || "").trim().toLowerCase();
    if (!q) return [];
    const hits = [];
    if (index === null) index = buildIndex();
    for (const it of index) {
      if (it.mentioned === null) it.mentioned = mentionNames(it.source).map((t) => [t, t.toLowerCase(), "mentions"]);
      let best = null;
      for (const [term, low, how] of it.terms.concat(it.mentioned)) {
        let score;
        if (low === q) score = 0;
        else if (low.startsWith(q)) score = 1;
        else {
          const at = low.indexOf(q);
          if (at < 0) continue;
          score = /[\s\-_(/:]/.test(low.charAt(at - 1)) ? 2 : 3;
        }
        if (how === "mentions") score += 4; // a paper that mentions it comes after the thing itself
        if (best === null || score < best.score) best = { score: score, term: term, how: how };
      }
      if (best) hits.push({ id: it.id, name: it.name, kind: it.kind, score: best.score, term: best.term, how: best.how, weight: it.weight });
    }
    hits.sort((a, b) => a.score - b.score || b.weight - a.weight || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return hits.slice(0, limit || 12);
  }

  let shown = [];
  let active = -1;
  function renderResults() {
    const items = shown.map((h, i) => {
      const n = byId.get(h.id);
      const why = h.term === h.name || h.term === h.id ? h.kind : (h.how === "mentions" ? "mentions: " : "alias: ") + h.term;
      const li = el("li", { role: "option", "data-node": h.id, "aria-selected": i === active ? "true" : "false" }, [
        shapeIcon(LABEL_SHAPES[n.kind] || "dot", LABEL_COLORS[n.kind] || "#999"),
        el("span", { class: "kg-hit-name", text: h.name }),
        el("span", { class: "kg-hit-why", text: why }),
      ]);
      li.addEventListener("mousedown", (ev) => { ev.preventDefault(); pick(h.id); });
      return li;
    });
    if (!items.length && searchInput.value.trim()) items.push(el("li", { class: "kg-empty", text: "no node matches" }));
    results.replaceChildren(...items);
    results.hidden = !items.length;
  }

  function pick(id) {
    const n = byId.get(id);
    if (!n) return;
    searchInput.value = n.name;
    shown = [];
    active = -1;
    results.replaceChildren(); // the pick is made: close the list (no "no node matches")
    results.hidden = true;
    selectNode(id, true);
  }

  searchInput.addEventListener("input", () => {
    shown = search(searchInput.value);
    active = shown.length ? 0 : -1;
    renderResults();
  });
  searchInput.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown" && shown.length) { active = (active + 1) % shown.length; renderResults(); ev.preventDefault(); }
    else if (ev.key === "ArrowUp" && shown.length) { active = (active - 1 + shown.length) % shown.length; renderResults(); ev.preventDefault(); }
    else if (ev.key === "Enter") {
      if (!shown.length) shown = search(searchInput.value);
      if (shown.length) pick(shown[Math.max(active, 0)].id);
      ev.preventDefault();
    } else if (ev.key === "Escape") { shown = []; active = -1; renderResults(); searchInput.blur(); }
  });
  searchInput.addEventListener("blur", () => { results.hidden = true; });
  searchInput.addEventListener("focus", () => { if (shown.length) results.hidden = false; });

  // ------------------------------------------------------------------------------------------
  // the paper map: an origin paper and its most related papers, in a view of their own

  /* RELATED_TO neighbours per paper, from every RELATED_TO edge the page holds (shown or not). */
  let relAdj = null;
  function related(id) {
    if (relAdj === null) {
      relAdj = new Map();
      for (const e of DATA.edges) {
        if (e.type !== "RELATED_TO" || e.from === e.to) continue;
        for (const [a, b] of [[e.from, e.to], [e.to, e.from]]) {
          if (!relAdj.has(a)) relAdj.set(a, new Map());
          const got = relAdj.get(a).get(b);
          if (!got || (Number(e.weight) || 0) > (Number(got.weight) || 0)) relAdj.get(a).set(b, e);
        }
      }
    }
    return relAdj.get(id) || new Map();
  }

  let entityEdges = null;
  /* Entity ids a paper links to: its paper -> entity edges, else the entities its mentions name. */
  function entitiesOf(id) {
    if (entityEdges === null) {
      entityEdges = new Map();
      for (const e of DATA.edges) {
        if (e.type === "RELATED_TO") continue;
        const a = byId.get(e.from), b = byId.get(e.to);
        if (!a || !b || a.kind !== "Paper" || b.kind === "Paper") continue;
        if (!entityEdges.has(e.from)) entityEdges.set(e.from, new Set());
        entityEdges.get(e.from).add(e.to);
      }
    }
    const out = new Set(entityEdges.get(id) || []);
    const n = byId.get(id);
    for (const m of (n && n.mentions) || []) if (m[3]) out.add(String(m[3]));
    return out;
  }

  function entityName(id) {
    const n = byId.get(id);
    if (n) return n.name;
    const names = META.entityNames || {};
    if (names[id]) return names[id];
    const known = (DATA.ext || []).find((x) => x[0] === id && x[1]);
    if (known) return known[1];
    const at = id.indexOf(":");
    return at >= 0 ? id.slice(at + 1) : id;
  }

  /* The `size` papers most related to `origin`, ranked as graph_exports/paper_map.py does:
     RELATED_TO neighbours by weight, then their neighbours by the product of the weights. */
  function mapRank(origin, size) {
    const first = related(origin);
    const byWeight = (p, q) => q.score - p.score || (p.id < q.id ? -1 : p.id > q.id ? 1 : 0);
    const mine = entitiesOf(origin);
    const out = [...first.entries()]
      .map(([id, e]) => ({ id: id, score: Number(e.weight) || 0, order: 1, via: null, edge: e }))
      .sort(byWeight).slice(0, size);
    for (const r of out) {
      const theirs = entitiesOf(r.id);
      const shared = new Set((r.edge.shared || []).map((s) => s[0]));
      for (const x of mine) if (theirs.has(x)) shared.add(x);
      r.shared = [...shared].sort();
      r.terms = r.edge.sharedTerms || [];
    }
    if (out.length < size) {
      const second = new Map();
      for (const [n, e1] of first) {
        const w1 = Number(e1.weight) || 0;
        for (const [p, e2] of related(n)) {
          if (p === origin || first.has(p)) continue;
          const score = w1 * (Number(e2.weight) || 0);
          const best = second.get(p);
          if (!best || score > best.score || (score === best.score && n < best.via)) second.set(p, { id: p, score: score, order: 2, via: n });
        }
      }
      for (const r of [...second.values()].sort(byWeight).slice(0, size - out.length)) {
        const theirs = entitiesOf(r.id);
        r.shared = [...mine].filter((x) => theirs.has(x)).sort();
        r.terms = [];
        out.push(r);
      }
    }
    return out;
  }

  /* Positions for the map, the same for the same data: similar papers sit together. The target
     distance of two papers falls with their similarity (their RELATED_TO weight, else the overlap
     of their entities); a fixed number of stress-descent sweeps over the pairs in a fixed order,
     from a spiral in rank order, with the origin in the middle. */
  function mapLayout(ids) {
    const k = ids.length;
    const ents = ids.map((id) => entitiesOf(id));
    let top = 0;
    for (const id of ids) for (const [, e] of related(id)) top = Math.max(top, Number(e.weight) || 0);
    const sim = [];
    for (let i = 0; i < k; i++) {
      sim.push([]);
      for (let j = 0; j < k; j++) {
        if (i === j) { sim[i].push(1); continue; }
        const e = related(ids[i]).get(ids[j]);
        let s;
        if (e && top > 0) s = 0.35 + 0.65 * (Number(e.weight) || 0) / top;
        else {
          let both = 0;
          for (const x of ents[i]) if (ents[j].has(x)) both++;
          const any = ents[i].size + ents[j].size - both;
          s = any ? 0.4 * both / any : 0;
        }
        sim[i].push(s);
      }
    }
    const pos = ids.map((_id, i) => i === 0 ? [0, 0] : [
      (60 + 40 * Math.sqrt(i)) * Math.cos(i * 2.399963), (60 + 40 * Math.sqrt(i)) * Math.sin(i * 2.399963)]);
    const target = (i, j) => 130 + 320 * (1 - sim[i][j]);
    const sweeps = 250;
    for (let t = 0; t < sweeps; t++) {
      const eta = 0.4 * Math.pow(0.02 / 0.4, t / (sweeps - 1));
      for (let i = 0; i < k; i++) {
        for (let j = i + 1; j < k; j++) {
          const dx = pos[i][0] - pos[j][0], dy = pos[i][1] - pos[j][1];
          const d = Math.hypot(dx, dy) || 1e-6;
          const want = target(i, j);
          const r = (Math.min(1, eta) * (d - want)) / (2 * d);
          const mx = r * dx, my = r * dy;
          if (i === 0) { pos[j][0] += 2 * mx; pos[j][1] += 2 * my; continue; } // the origin stays put
          pos[i][0] -= mx; pos[i][1] -= my;
          pos[j][0] += mx; pos[j][1] += my;
        }
      }
      // keep the origin in the middle of the others: shift them so their centre is the origin
      if (k > 2) {
        let cx = 0, cy = 0;
        for (let i = 1; i < k; i++) { cx += pos[i][0]; cy += pos[i][1]; }
        cx /= k - 1; cy /= k - 1;
        for (let i = 1; i < k; i++) { pos[i][0] -= cx - pos[0][0]; pos[i][1] -= cy - pos[0][1]; }
      }
    }
    // then push apart any two closer than a name's height plus their dots
    for (let t = 0; t < 60; t++) {
      let moved = false;
      for (let i = 0; i < k; i++) {
        for (let j = i + 1; j < k; j++) {
          const dx = pos[i][0] - pos[j][0], dy = pos[i][1] - pos[j][1];
          const d = Math.hypot(dx, dy) || 1e-6;
          if (d >= 95) continue;
          moved = true;
          const r = (95 - d) / (2 * d);
          if (i === 0) { pos[j][0] -= 2 * r * dx; pos[j][1] -= 2 * r * dy; continue; }
          pos[i][0] += r * dx; pos[i][1] += r * dy;
          pos[j][0] -= r * dx; pos[j][1] -= r * dy;
        }
      }
      if (!moved) break;
    }
    const out = new Map();
    ids.forEach((id, i) => out.set(id, { x: Math.round((pos[i][0] - pos[0][0]) * 10) / 10, y: Math.round((pos[i][1] - pos[0][1]) * 10) / 10 }));
    return out;
  }

  function yearColour(year, lo, hi) {
    const YEAR_RAMP = ["#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"];
    const y = Number(year);
    if (!Number.isFinite(y) || lo === null) return "#bdbdbd";
    const t = hi > lo ? (y - lo) / (hi - lo) : 1;
    return YEAR_RAMP[Math.max(0, Math.min(YEAR_RAMP.length - 1, Math.round(t * (YEAR_RAMP.length - 1))))];
  }

  const mapBox = document.getElementById("kg-map");
  const mapState = { network: null, origin: null, ranked: [], ids: [], positions: null, selected: null, boxes: [] };

  function mapItems(net) {
    const items = [];
    const order = mapState.selected && mapState.selected !== mapState.origin
      ? [mapState.origin, mapState.selected, ...mapState.ids.filter((i) => i !== mapState.origin && i !== mapState.selected)]
      : mapState.ids;
    for (const id of order) {
      const n = net.body.nodes[id];
      const rec = byId.get(id);
      if (!n || !rec) continue;
      const p = net.canvasToDOM({ x: n.x, y: n.y });
      items.push({ id: id, text: rec.label, bold: id === mapState.origin || id === mapState.selected, x: p.x, y: p.y, r: (n.options.size || 10) * net.getScale() });
    }
    return items;
  }

  function selectInMap(id, scroll) {
    mapState.selected = id;
    const net = mapState.network;
    if (!net) return;
    if (id) net.selectNodes([id], true); else net.unselectAll();
    for (const li of document.querySelectorAll("#kg-map-list li[data-node]")) {
      const on = li.dataset.node === id;
      li.setAttribute("aria-selected", on ? "true" : "false");
      if (on && scroll) li.scrollIntoView({ block: "nearest" });
    }
    net.redraw();
  }

  function mapRow(r, i) {
    const n = byId.get(r.id);
    const head = el("div", { class: "kg-map-row-head" }, [
      el("span", { class: "kg-map-rank", text: String(i + 1) }),
      el("span", { class: "kg-link kg-map-name", text: n.paperTitle || n.name, onclick: () => selectInMap(r.id, false) }),
    ]);
    const bits = [];
    if (n.year) bits.push(String(n.year));
    bits.push(r.order === 1 ? "related, weight " + (Math.round(r.score * 1000) / 1000) : "second order, via " + (byId.get(r.via) ? byId.get(r.via).name : r.via));
    const why = [];
    if (r.shared.length) why.push(el("div", { class: "kg-map-why" }, ["shares ", ...r.shared.slice(0, 6).map((s) => el("span", { class: "kg-chip", text: entityName(s) })), r.shared.length > 6 ? "+" + (r.shared.length - 6) : ""]));
    if (r.terms.length) why.push(el("div", { class: "kg-map-why kg-muted" }, ["words: " + r.terms.slice(0, 6).join(", ")]));
    if (!why.length) why.push(el("div", { class: "kg-map-why kg-muted", text: "no shared entity recorded" }));
    const actions = el("div", { class: "kg-map-actions" }, [
      el("button", { type: "button", class: "kg-map-recentre", onclick: () => openMap(r.id) }, ["Map around this paper"]),
      el("button", { type: "button", onclick: () => { closeMap(); selectNode(r.id, true); } }, ["Show in the graph"]),
    ]);
    return el("li", { "data-node": r.id, "aria-selected": "false" }, [head, el("div", { class: "kg-meta kg-muted", text: bits.join(" · ") }), ...why, actions]);
  }

  /* Open the map around `origin` (a paper id); returns false when it is no paper of this page. */
  function openMap(origin, size) {
    const o = byId.get(origin);
    if (!o || o.kind !== "Paper") return false;
    const ranked = mapRank(origin, size || META.mapSize || 30);
    const ids = [origin, ...ranked.map((r) => r.id)];
    const positions = mapLayout(ids);
    const years = ids.map((id) => parseInt(byId.get(id).year, 10)).filter(Number.isFinite);
    const lo = years.length ? Math.min(...years) : null, hi = years.length ? Math.max(...years) : null;
    const inMap = new Set(ids);
    const mapEdges = [];
    for (const id of ids) for (const [other, e] of related(id)) {
      if (inMap.has(other) && id < other) mapEdges.push({ id: "m" + mapEdges.length, from: id, to: other, width: 0.6 + 2.4 * Math.min(1, (Number(e.weight) || 0) / Math.max(1e-9, ranked.length ? ranked[0].score : 1)), color: { color: other === origin || id === origin ? "#8aa6c8" : "#c9d3df", opacity: 0.9 } });
    }
    const deg = new Map(ids.map((id) => [id, 0]));
    for (const e of mapEdges) { deg.set(e.from, deg.get(e.from) + 1); deg.set(e.to, deg.get(e.to) + 1); }
    const topDegree = Math.max(1, ...deg.values());
    const mapNodes = ids.map((id) => {
      const n = byId.get(id), p = positions.get(id);
      const fill = yearColour(n.year, lo, hi);
      return { id: id, x: p.x, y: p.y, shape: "dot", size: id === origin ? 16 : Math.round(7 + 8 * Math.sqrt(deg.get(id) / topDegree)),
        color: { background: fill, border: id === origin ? "#b22222" : "#2b4a6f", highlight: { background: fill, border: "#111" } },
        borderWidth: id === origin ? 4 : 1.2 };
    });
    mapState.origin = origin;
    mapState.ranked = ranked;
    mapState.ids = ids;
    mapState.positions = positions;
    mapState.selected = null;
    mapBox.hidden = false;
    document.getElementById("kg-map-title").textContent = "Map around: " + (o.paperTitle || o.name);
    document.getElementById("kg-map-years").textContent = lo === null ? "no years" : "colour: year " + lo + (hi > lo ? " (light) – " + hi + " (dark)" : "");
    document.getElementById("kg-map-count").textContent = fmt(ranked.length) + " related papers" +
      (ranked.some((r) => r.order === 2) ? " (" + ranked.filter((r) => r.order === 1).length + " directly, the rest through them)" : "");
    const list = document.getElementById("kg-map-list");
    list.replaceChildren(...ranked.map(mapRow));
    if (!ranked.length) list.append(el("li", { class: "kg-muted", text: "This paper has no RELATED_TO edge on this page." }));
    const canvasBox = document.getElementById("kg-map-canvas");
    if (mapState.network) mapState.network.destroy();
    const net = new vis.Network(canvasBox, { nodes: new vis.DataSet(mapNodes), edges: new vis.DataSet(mapEdges) }, {
      physics: { enabled: false }, layout: { improvedLayout: false },
      edges: { smooth: false, arrows: { to: { enabled: false } } },
      nodes: { borderWidthSelected: 3 },
      interaction: { hover: false, keyboard: false, multiselect: false, tooltipDelay: 200 },
    });
    net.on("afterDrawing", (ctx) => {
      const rect = canvasBox.getBoundingClientRect();
      mapState.boxes = placeLabels(ctx, mapItems(net), canvasBox.clientWidth, canvasBox.clientHeight)
        .map((b) => Object.assign(b, { x: b.x + rect.left, y: b.y + rect.top }));
    });
    net.on("click", (p) => selectInMap(p.nodes && p.nodes.length ? p.nodes[0] : null, true));
    net.on("doubleClick", (p) => { if (p.nodes && p.nodes.length && p.nodes[0] !== mapState.origin) openMap(p.nodes[0]); });
    mapState.network = net;
    // the origin in the middle, every paper in view
    let reach = 60;
    for (const p of positions.values()) reach = Math.max(reach, Math.hypot(p.x, p.y));
    const half = Math.min(canvasBox.clientWidth, canvasBox.clientHeight) / 2;
    net.moveTo({ position: { x: 0, y: 0 }, scale: Math.min(1.3, (0.92 * half) / (reach + 70)), animation: false });
    mapBox.dataset.origin = origin;
    return true;
  }

  function closeMap() {
    if (mapState.network) { mapState.network.destroy(); mapState.network = null; }
    mapState.boxes = [];
    mapBox.hidden = true;
    delete mapBox.dataset.origin;
  }
  document.getElementById("kg-map-close").addEventListener("click", closeMap);
  kg.openMap = (id, size) => openMap(id, size);
  kg.closeMap = closeMap;
  kg.map = () => mapState.network ? {
    origin: mapState.origin,
    ranked: mapState.ranked.map((r) => ({ id: r.id, score: r.score, order: r.order, via: r.via, shared: r.shared.slice(), terms: r.terms.slice() })),
    positions: Object.fromEntries([...mapState.positions.entries()]),
    labelBoxes: mapState.boxes.map((b) => ({ id: b.id, text: b.text, x: b.x, y: b.y, w: b.w, h: b.h })),
  } : null;

  // ------------------------------------------------------------------------------------------
  // start

  // what vis-network was given, so the first repaint sends nothing
  for (const n of DATA.nodes) painted.set(n.id, fillOf(n) + "|false|" + sizeOf(n));
  buildLegend();
  buildSummary();
  updateOverviewNote();
  buildControls();
  repaint();
  /* A large page's details (abstracts, evidence, aliases) are inflated after the first drawing;
     until then panels say so, and the panel on show is built again when they arrive. */
  kg.detailsReady = !detailsIn;
  async function loadDetails() {
    const t = performance.now();
    DATA.mergeDetails(await inflate(detailsIn));
    kg.timing.details = performance.now() - t;
    kg.detailsReady = true;
    index = null; // search by aliases and mentions from now on
    entityEdges = null;
    if (!panel.hidden && panelBuilder) {
      const top = panel.scrollTop;
      panelBody.replaceChildren(...panelBuilder());
      panel.scrollTop = top;
    }
  }

  network.once("afterDrawing", () => {
    if (detailsIn) setTimeout(() => { loadDetails().catch((err) => console.error(err)); }, 0);
    kg.ready = true;
    kg.readyAt = performance.now();
    kg.timing.firstDraw = kg.readyAt - t2;
    // fit() frames the nodes' centres; leave room for the names at the edges.
    network.moveTo({ scale: network.getScale() * 0.92 });
    document.documentElement.setAttribute("data-kg-ready", "1");
    if (META.focus && byId.has(META.focus)) selectNode(META.focus, false);
    if (META.mapOrigin && byId.has(META.mapOrigin)) openMap(META.mapOrigin);
  });
})();
