"""The interactive HTML page: one self-contained file, generated through pyvis, that opens offline.

``to_html(graph, ...)`` returns the page as a string; ``write_html(graph, path, ...)`` writes it.
The page is pyvis's ``Network`` rendered with kg's own Jinja template (``assets/kg_page.html``):
pyvis's template links Bootstrap and tom-select from CDNs even with ``cdn_resources="in_line"``,
so kg replaces it. vis-network's script and style are read from the installed pyvis package and
inlined; a Content-Security-Policy with a per-page nonce forbids every other script and every
request, so text from abstracts can never run or load anything.

What happens, in order (each step a pure function over the networkx graph):

1. ``select`` (:mod:`graph_exports.view`) picks the nodes and edges of the view (whole knowledge
   graph, or the papers), applies the filters (labels, minimum support, years), the focus
   neighbourhood and ``max_nodes``, and records what was left out and why; with ``paper`` the
   page is a paper map (:mod:`graph_exports.paper_map`).
2. ``communities`` and ``layout`` (:mod:`graph_exports.layout`) compute Louvain communities and
   positions in Python with a bounded number of iterations, so the page draws once and never
   simulates; large pages open on an overview of the communities (:mod:`graph_exports.overview`).
3. ``page_nodes``/``page_edges`` (this module) turn nodes and edges into records that carry what
   the side panel shows; :mod:`graph_exports.page_data` stores them once and compactly.

Every option travels in one :class:`PageOptions`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import networkx as nx

from kg.atomic import AtomicFiles, write_text
from kg.errors import ExportError
from kg.schema import NODE_LABELS, RESULT_LABEL, as_nx

from .layout import communities, layout, undirected
from .overview import overview as community_overview
from .page_data import compress_if_large, pack
from .paper_map import MAP_SIZE, MAX_MAP_SIZE, find_paper, paper_map
from .view import (
    SIZE_BY,
    VIEWS,
    Selection,
    _edge_type,
    _label,
    _norm_labels,
    _support,
    _year_text,
    check_options,
    resolve_focus,
    select,
)

_undirected = undirected  # the name earlier callers import

__all__ = [
    "VIEWS",
    "SIZE_BY",
    "LABEL_COLORS",
    "LABEL_SHAPES",
    "PageOptions",
    "Selection",
    "resolve_focus",
    "select",
    "communities",
    "layout",
    "page_nodes",
    "page_edges",
    "to_html",
    "write_html",
]

#: One colour per node label (Tableau 10: distinct, readable on white, colour-blind friendlier).
LABEL_COLORS: dict[str, str] = {
    "Paper": "#4e79a7",
    "Method": "#f28e2b",
    "Dataset": "#59a14f",
    "Task": "#e15759",
    "Metric": "#b07aa1",
}
#: One vis-network shape per node label, so labels stay apart when colour shows communities.
LABEL_SHAPES: dict[str, str] = {
    "Paper": "square",
    "Method": "dot",
    "Dataset": "diamond",
    "Task": "triangle",
    "Metric": "star",
}
_OTHER_COLOR = "#9c9c9c"
#: Community colours, largest community first; communities past the palette are grey.
_COMMUNITY_COLORS: tuple[str, ...] = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#ff9896",
    "#c5b0d5",
    "#c49c94",
    "#f7b6d2",
    "#9edae5",
    "#dbdb8d",
    "#393b79",
)

#: Above this many nodes the page colours by community, draws no arrows, hides edges while
#: dragging and does not animate (each frame of thousands of nodes is slow).
LARGE_GRAPH = 1000
#: Above this many nodes the page opens on its overview (communities as named meta-nodes).
OVERVIEW_ABOVE = 3000
#: Caps on what one node or edge carries to the page (the panel says when a list was cut).
_MAX_PAPERS_PER_ENTITY = 100
_MAX_EVIDENCE_PER_EDGE = 3
_MAX_SHARED_PER_EDGE = 12
_MAX_TERMS_PER_EDGE = 6
_LABEL_CHARS = 30
_TEMPLATE = "kg_page.html"
_NONCE_SLOT = "kg-nonce-slot"


# ---------------------------------------------------------------------------------------------
# page records


def _short(text: str, limit: int = _LABEL_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _display_name(node: str, data: dict[str, Any]) -> str:
    return str(data.get("name") or data.get("title") or node)


def _plain(value: Any) -> Any:
    """JSON-safe copy of an attribute (tuples, sets and numpy scalars become plain values)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _node_size(value: float, top: float, *, paper: bool) -> float:
    base = 10.0 if paper else 8.0
    if top <= 0:
        return base
    return round(base + 20.0 * math.sqrt(max(value, 0.0) / top), 2)


def _font_size(size: float) -> int:
    """Bigger nodes get bigger names, so the names of hubs show first when zoomed out."""
    return round(8 + 0.8 * size)


def page_nodes(
    graph: Any,
    selection: Selection,
    positions: dict[str, tuple[float, float]],
    groups: Sequence[set[str]],
    *,
    size_by: str = "degree",
    colour_by: str = "label",
    results: dict[str, list[list[Any]]] | None = None,
) -> list[dict[str, Any]]:
    """vis-network node records with what the side panel shows.

    Fields vis-network reads: ``id``, ``label`` (the short name drawn on the canvas), ``shape``,
    ``color``, ``size``, ``x``, ``y``. Fields the page reads: ``kind`` (the node label),
    ``name``, ``deg``/``sup`` (the two size measures), ``comm``, ``lc``/``cc`` (label and
    community colours); papers: ``paperTitle``, ``titleDerived``, ``year``, ``venue``, ``authors``,
    ``keywords``, ``abstract``, ``mentions``, ``source``; entities: ``aliases``, ``support``,
    ``mentionCount``, ``papers`` (``[id, name]``, at most 100) and ``papersTotal``.
    No ``title`` field: vis-network would render it as a tooltip, and the page draws its own.
    """
    g = as_nx(graph, ExportError, "to_html needs")
    shown = set(selection.nodes)
    h_degree: dict[str, int] = {n: 0 for n in selection.nodes}
    for u, v, _k in selection.edges:
        h_degree[u] += 1
        h_degree[v] += 1
    comm = {n: i for i, c in enumerate(groups) for n in c}

    def support_measure(n: str, data: dict[str, Any]) -> int:
        if _label(data) == "Paper":
            return sum(1 for m in g.successors(n) if _label(g.nodes[m]) != "Paper")
        return _support(data)

    sup = {n: support_measure(n, g.nodes[n]) for n in selection.nodes}
    top_deg = max(h_degree.values(), default=0)
    top_sup = max(sup.values(), default=0)

    out = []
    for n in selection.nodes:
        data = g.nodes[n]
        kind = _label(data) or "Other"
        name = _display_name(n, data)
        paper = kind == "Paper"
        lc = LABEL_COLORS.get(kind, _OTHER_COLOR)
        ci = comm.get(n, -1)
        cc = _COMMUNITY_COLORS[ci] if 0 <= ci < len(_COMMUNITY_COLORS) else "#b8b8b8"
        x, y = positions.get(n, (0.0, 0.0))
        size = (
            _node_size(h_degree[n], top_deg, paper=paper)
            if size_by == "degree"
            else _node_size(sup[n], top_sup, paper=paper)
        )
        rec: dict[str, Any] = {
            "id": n,
            "label": _short(name),
            "shape": LABEL_SHAPES.get(kind, "dot"),
            "color": _colour(lc, cc, colour_by),
            "size": size,
            "font": {"size": _font_size(size)},
            "x": round(x, 1),
            "y": round(y, 1),
            "kind": kind,
            "name": name,
            "deg": h_degree[n],
            "sup": sup[n],
            "comm": ci,
            "lc": lc,
            "cc": cc,
        }
        if paper:
            rec["yr"] = data["year"] if isinstance(data.get("year"), int) else None
            rec.update(
                paperTitle=_plain(data.get("title")),
                titleDerived=bool(data.get("title_derived", False)),
                year=_plain(data.get("year")),
                venue=_plain(data.get("venue")),
                authors=_plain(list(data.get("authors") or [])),
                keywords=_plain(list(data.get("keywords") or [])),
                abstract=str(data.get("abstract") or ""),
                mentions=_plain(list(data.get("mentions") or [])),
                source=_plain(data.get("source")),
                results=(results or {}).get(n, []),
            )
        else:
            papers = sorted(
                {m for m in nx.all_neighbors(g, n) if _label(g.nodes[m]) == "Paper"},
                key=lambda m: (m not in shown, m),
            )
            dated = [g.nodes[m]["year"] for m in papers if isinstance(g.nodes[m].get("year"), int)]
            rec["yr"] = round(sum(dated) / len(dated), 1) if dated else None
            rec.update(
                aliases=_plain(sorted(set(data.get("aliases") or ()))),
                support=_support(data),
                mentionCount=_plain(data.get("mention_count")),
                papers=[[m, _display_name(m, g.nodes[m])] for m in papers[:_MAX_PAPERS_PER_ENTITY]],
                papersTotal=len(papers),
            )
        out.append(rec)
    return out


def _colour(lc: str, cc: str, colour_by: str) -> dict[str, Any]:
    # Selected and hovered looks come from the page's ``chosen`` functions, not from here.
    return {"background": cc if colour_by == "community" else lc, "border": lc}


def page_edges(
    graph: Any, selection: Selection, *, view: str = "knowledge"
) -> list[dict[str, Any]]:
    """vis-network edge records, one per MultiDiGraph edge, with their evidence.

    Fields: ``id`` (``e<n>``), ``from``, ``to``, ``type``, ``weight``, ``count``, ``evidence``
    (at most three ``{sentence, start, end, text, extractor, score, paper_id}``) with
    ``evidenceTotal``; RELATED_TO edges carry ``shared`` (``[id, name]``), ``sharedTerms`` (the
    words and keywords that weigh most) and, in the paper map, a ``label`` naming what the two
    papers share (their entities, else their words).
    """
    g = as_nx(graph, ExportError, "to_html needs")
    top_weight = 0.0
    for u, v, k in selection.edges:
        top_weight = max(top_weight, _float(g.edges[u, v, k].get("weight"), 1.0))
    out = []
    for i, (u, v, k) in enumerate(selection.edges):
        data = g.edges[u, v, k]
        etype = _edge_type(k, data)
        weight = _float(data.get("weight"), 1.0)
        evidence = [_plain(e) for e in list(data.get("evidence") or [])[:_MAX_EVIDENCE_PER_EDGE]]
        rec: dict[str, Any] = {
            "id": f"e{i}",
            "from": u,
            "to": v,
            "type": etype,
            "weight": weight,
            "count": _plain(data.get("count")),
            "evidence": evidence,
            "evidenceTotal": len(data.get("evidence") or []),
            "width": round(1.0 + 3.0 * (weight / top_weight if top_weight > 0 else 0.0), 2),
        }
        if etype == "RELATED_TO":
            shared_ids = [str(s) for s in list(data.get("shared") or [])]
            shared = [[s, _display_name(s, g.nodes[s]) if s in g else s] for s in shared_ids]
            rec["shared"] = shared[:_MAX_SHARED_PER_EDGE]
            rec["sharedTotal"] = len(shared)
            rec["sharedTerms"] = [str(t) for t in list(data.get("shared_terms") or [])][
                :_MAX_TERMS_PER_EDGE
            ]
            rec["color"] = {"color": "#7b9cc4", "opacity": 0.8}
            rec["dashes"] = view == "knowledge"
            rec["arrows"] = {"to": {"enabled": False}}  # symmetric: stored once, source < target
            rec["hidden"] = view == "knowledge"
            names = [name for _id, name in shared] or rec[
                "sharedTerms"
            ]  # no shared entity: the words
            if view == "papers" and names:
                more = f" +{len(names) - 2}" if len(names) > 2 else ""
                rec["label"] = _short(", ".join(names[:2]), 32) + more
        else:
            rec["color"] = {"color": "#b5b5b5", "opacity": 0.9}
        out.append(rec)
    return out


def _float(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


# ---------------------------------------------------------------------------------------------
# the page


class _IdList(list):
    """pyvis keeps node ids in a list and scans it on every add_node/add_edge (quadratic on
    thousands of nodes); this list answers ``in`` from a set and is otherwise a plain list."""

    def __init__(self) -> None:
        super().__init__()
        self._ids: set[Any] = set()

    def append(self, item: Any) -> None:
        super().append(item)
        self._ids.add(item)

    def __contains__(self, item: object) -> bool:
        return item in self._ids


def _asset(name: str) -> str:
    """A file of ``graph_exports/assets`` (shipped as package data beside this module)."""
    path = Path(__file__).with_name("assets") / name
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise ExportError(f"{path}: the page asset is missing; reinstall kg") from err


def _vis_assets() -> tuple[str, str]:
    """vis-network's minified script and its stylesheet, read from the installed pyvis."""
    import pyvis

    lib = Path(pyvis.__file__).with_name("templates") / "lib"
    versions = sorted(
        (p for p in lib.iterdir() if p.name.startswith("vis-")),
        key=lambda p: tuple(int(x) for x in p.name[4:].split(".") if x.isdigit()),
    )
    if not versions:
        raise ExportError("the installed pyvis has no vis-network under pyvis/templates/lib")
    folder = versions[-1]
    js = folder.joinpath("vis-network.min.js").read_text(encoding="utf-8")
    css = folder.joinpath("vis-network.css").read_text(encoding="utf-8")
    for name, text, end in (("script", js, "</script"), ("style", css, "</style")):
        if end in text.lower():
            raise ExportError(f"vis-network {name} from pyvis contains {end}>; cannot inline it")
    return js, css


def _options(large: bool, view: str, edge_count: int) -> dict[str, Any]:
    return {
        "nodes": {
            "borderWidth": 1.5,
            "borderWidthSelected": 3,
            "font": {"size": 14, "face": "Liberation Sans, Arial, sans-serif", "color": "#222222"},
            # names smaller than this on screen (px) are not drawn: only hubs when zoomed out
            "scaling": {"label": {"drawThreshold": 8}},
        },
        "edges": {
            "smooth": False,
            "arrows": {"to": {"scaleFactor": 0.45}},
            "selectionWidth": 1.5,
            "font": {
                "size": 11,
                "color": "#3a4f6b",
                "strokeWidth": 3,
                "align": "middle",
                "face": "Liberation Sans, Arial, sans-serif",
            },
            "scaling": {"label": {"enabled": True, "drawThreshold": 7}},
        },
        "physics": {"enabled": False, "stabilization": {"enabled": False}},
        "layout": {"improvedLayout": False, "randomSeed": 0},
        "interaction": {
            "hover": not large,  # hover redraws the whole canvas; too slow for thousands
            "tooltipDelay": 150,
            "hideEdgesOnDrag": large or edge_count > 2000,
            "hideEdgesOnZoom": large or edge_count > 2000,
            "navigationButtons": False,
            "keyboard": False,
            "multiselect": False,
        },
    }


@dataclass(frozen=True)
class PageOptions:
    """Every option of a page, in one place (``kg html``'s options; see docs/html.md).

    Attributes:
        view: "knowledge" (papers, entities, every edge) or "papers" (papers and RELATED_TO).
        focus, radius: only the nodes within ``radius`` hops of this node (id, name or alias).
        labels: node labels to keep (default: all).
        min_support: entities supported by fewer papers are left out.
        years: ``(from, to)``, either end ``None``.
        max_nodes: keep this many nodes (papers and entities in their shares).
        size_by: "degree" or "support".
        title: the page title (default: from the view).
        paper: make the page the paper map of this paper (id, title or name).
        map_size: papers around the origin of a paper map (1-50).
        overview: open on the communities (default: above ``OVERVIEW_ABOVE`` nodes).
    """

    view: str = "knowledge"
    focus: str | None = None
    radius: int = 1
    labels: Iterable[str] | str | None = None
    min_support: int = 1
    years: tuple[int | None, int | None] | None = None
    max_nodes: int | None = None
    size_by: str = "degree"
    title: str | None = None
    paper: str | None = None
    map_size: int = MAP_SIZE
    overview: bool | None = None

    def check(self) -> None:
        """Raise ``ExportError`` for an option out of range."""
        check_options(
            self.view, self.radius, self.min_support, self.years, self.max_nodes, self.size_by
        )
        if not 1 <= self.map_size <= MAX_MAP_SIZE:
            raise ExportError(f"a paper map holds 1 to {MAX_MAP_SIZE} papers, not {self.map_size}")

    def selection(self) -> dict[str, Any]:
        """The keyword arguments of :func:`select`."""
        return {
            "view": self.view,
            "focus": self.focus,
            "radius": self.radius,
            "labels": self.labels,
            "min_support": self.min_support,
            "years": self.years,
            "max_nodes": self.max_nodes,
        }


def page_options(options: PageOptions | None = None, **kwargs: Any) -> PageOptions:
    """``options`` with ``kwargs`` applied (each a field of :class:`PageOptions`)."""
    known = {f.name for f in fields(PageOptions)}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ExportError(
            f"unknown page option {unknown[0]!r}; use one of {', '.join(sorted(known))}"
        )
    base = options or PageOptions()
    return PageOptions(**{**{f.name: getattr(base, f.name) for f in fields(PageOptions)}, **kwargs})


def _split_results(g: nx.MultiDiGraph) -> tuple[nx.MultiDiGraph, dict[str, list[list[Any]]]]:
    """The graph without its Result nodes (a view: the page draws papers and entities; a paper's
    results are shown in its panel), and each paper's results as page rows
    ``[value start, value end, sentence start, sentence end, name, method, baseline]``."""
    found = [n for n, d in g.nodes(data=True) if d.get("label") == RESULT_LABEL]
    if not found:
        return g, {}
    rows: dict[str, list[list[Any]]] = {}
    for r in found:
        d = g.nodes[r]
        for paper, _, key in g.in_edges(r, keys=True):
            if key != "REPORTS_RESULT":
                continue
            sentence_start = int(d.get("sent_start", 0))
            method = d.get("method") or ("this paper" if d.get("own") else "")
            rows.setdefault(paper, []).append(
                [
                    int(d.get("start", 0)),
                    int(d.get("end", 0)),
                    sentence_start,
                    sentence_start + len(str(d.get("sentence", ""))),
                    str(d.get("name", "")),
                    str(method),
                    str(d.get("baseline") or ""),
                ]
            )
    for paper_rows in rows.values():
        paper_rows.sort()
    gone = set(found)
    return nx.subgraph_view(g, filter_node=lambda n: n not in gone), rows


def to_html(graph: Any, options: PageOptions | None = None, **kwargs: Any) -> str:
    """The interactive page for ``graph`` as one self-contained HTML string.

    ``options`` (a :class:`PageOptions`), or its fields as keywords: the parameters of
    :func:`select`, plus ``size_by`` ("degree": connections on the page; "support": papers for
    an entity, entities for a paper) and an optional page title. With ``paper`` (an id, title or
    name) the page is the paper map of that paper: it and its ``map_size`` most related papers
    (:func:`graph_exports.paper_map.paper_map`), opened on the map; the filters of
    :func:`select` do not apply. ``overview`` (default: above ``OVERVIEW_ABOVE`` nodes, never
    for a focus or a paper map) opens the page on its communities
    (:func:`graph_exports.overview.overview`), each opening into its members on click. The same
    graph and options give the same bytes.

    Raises
    ------
    ExportError : an option is out of range, or pyvis lacks vis-network.
    NodeNotFound : the focus names no node.
    """
    from pyvis.network import Network  # imported here: pyvis is only needed for the page

    opts = page_options(options, **kwargs)
    opts.check()
    g, results = _split_results(as_nx(graph, ExportError, "to_html needs"))
    view = opts.view
    map_meta: dict[str, Any] = {"mapSize": opts.map_size}
    if opts.paper is not None:
        view = "papers"
        sel, map_meta = _map_selection(g, opts.paper, opts.map_size)
    else:
        sel = select(g, **opts.selection())
    h = _undirected(g, sel.nodes, sel.edges)
    rank = {label: i for i, label in enumerate(NODE_LABELS)}
    for n in h:  # isolated nodes are gridded by label, then name
        data = g.nodes[n]
        h.nodes[n]["order"] = f"{rank.get(_label(data), 9)}|{_display_name(n, data).lower()}"
    large = len(sel.nodes) > LARGE_GRAPH
    groups = communities(h) if len(sel.nodes) > 1 else [set(sel.nodes)] if sel.nodes else []
    positions = layout(h, groups)
    colour_by = "community" if large else "label"
    nodes = page_nodes(
        g, sel, positions, groups, size_by=opts.size_by, colour_by=colour_by, results=results
    )
    edges = page_edges(g, sel, view=view)

    meta = _meta(
        g, sel, nodes, edges, opts, view=view, groups=groups, colour_by=colour_by, large=large
    )
    meta.update(map_meta)
    overview = opts.overview
    paper, title = opts.paper, opts.title
    if overview is None:
        overview = len(sel.nodes) > OVERVIEW_ABOVE and sel.focus is None
    if overview and len(sel.nodes) > 1:
        meta["overview"] = community_overview(g, sel.nodes, groups, positions)
    if paper is not None:
        meta["options"] = [f"paper map of {sel.focus}, {len(sel.nodes) - 1} related papers"]
        if title is None:
            meta["title"] = "kg paper map: " + _short(
                _display_name(str(sel.focus), g.nodes[sel.focus]), 60
            )

    # pyvis carries what vis-network draws of each node; the rest of the data (panels, edges) is
    # stored once, compactly, beside it (graph_exports.page_data) and unpacked by the page.
    vis_nodes, store = pack(nodes, edges)
    packed = compress_if_large(vis_nodes, store)
    blob = details = ""
    if packed is not None:  # large pages: nodes and store travel gzip'd, decoded by the page
        # (in script elements that never run: the browser does not parse them as JavaScript);
        # the details (abstracts, evidence, aliases) are inflated after the first drawing
        vis_nodes, store = [], {"gzIn": "kg-blob", "detailsIn": "kg-details"}
        blob, details = packed["gz"], packed["details"]
    net = Network(directed=True, cdn_resources="in_line", height="100%", width="100%")
    net.node_ids = _IdList()
    for rec in vis_nodes:
        rec = dict(rec)
        node_id = rec.pop("id")
        net.add_node(
            node_id, label=rec.pop("label"), shape=rec.pop("shape"), color=rec.pop("color"), **rec
        )
    net.options = _options(large, view, len(edges))

    from jinja2 import DictLoader, Environment

    vis_js, vis_css = _vis_assets()
    env = Environment(loader=DictLoader({_TEMPLATE: _asset(_TEMPLATE)}), autoescape=True)
    env.globals.update(
        kg=meta,
        kg_nonce=_NONCE_SLOT,
        kg_vis_js=vis_js,
        kg_vis_css=vis_css,
        kg_page_js=_asset("kg_page.js"),
        kg_page_css=_asset("kg_page.css"),
        kg_store=store,
        kg_blob=blob,
        kg_details=details,
    )
    # pyvis renders its Network through ``templateEnv.get_template(path)``: swap in kg's page.
    net.templateEnv = env
    net.path = _TEMPLATE
    page = net.generate_html(name="graph.html")
    # The CSP nonce is a hash of the page itself, so the same graph gives the same bytes.
    nonce = hashlib.sha256(page.encode("utf-8")).hexdigest()[:32]
    return page.replace(f'nonce="{_NONCE_SLOT}"', f'nonce="{nonce}"').replace(
        f"'nonce-{_NONCE_SLOT}'", f"'nonce-{nonce}'"
    )


def _map_selection(g: nx.MultiDiGraph, paper: str, size: int) -> tuple[Selection, dict[str, Any]]:
    """The page of one paper map: the origin, its related papers and the RELATED_TO edges
    among them, and the page facts the map needs (origin, size, names of shared entities)."""
    origin = find_paper(g, paper)
    ranked = paper_map(g, origin, size=size)
    keep = {origin, *(r.paper for r in ranked)}
    edges = sorted(
        (u, v, str(k))
        for u, v, k, d in g.edges(keys=True, data=True)
        if u in keep and v in keep and _edge_type(k, d) == "RELATED_TO"
    )
    papers = sum(1 for _n, d in g.nodes(data=True) if _label(d) == "Paper")
    related = sum(
        1 for _u, _v, k, d in g.edges(keys=True, data=True) if _edge_type(k, d) == "RELATED_TO"
    )
    sel = Selection(
        nodes=sorted(keep),
        edges=edges,
        focus=origin,
        total_nodes=papers,
        total_edges=related,
        left_out=[(f"papers not among the {size} most related to {origin}", papers - len(keep))]
        if papers > len(keep)
        else [],
    )
    names = {s: _display_name(s, g.nodes[s]) for r in ranked for s in r.shared if s in g}
    meta = {
        "mapOrigin": origin,
        "mapSize": size,
        "entityNames": dict(sorted(names.items())),
        "paperMap": [[r.paper, r.order] for r in ranked],
    }
    return sel, meta


def _meta(
    g, sel: Selection, nodes, edges, opts: PageOptions, *, view, groups, colour_by, large
) -> dict[str, Any]:
    """Page-level facts: counts, legend, edge types, what was left out, the options used."""
    radius, size_by, title = opts.radius, opts.size_by, opts.title
    labels, min_support, years, max_nodes = (
        opts.labels,
        opts.min_support,
        opts.years,
        opts.max_nodes,
    )
    label_counts: dict[str, int] = {}
    for rec in nodes:
        label_counts[rec["kind"]] = label_counts.get(rec["kind"], 0) + 1
    order = [label for label in NODE_LABELS if label in label_counts]
    order += sorted(label for label in label_counts if label not in NODE_LABELS)
    type_counts: dict[str, int] = {}
    for rec in edges:
        type_counts[rec["type"]] = type_counts.get(rec["type"], 0) + 1
    options: list[str] = []
    if sel.focus:
        options.append(f"focus {sel.focus}, radius {radius}")
    if labels is not None:
        options.append("labels " + ", ".join(sorted(_norm_labels(labels) or [])))
    if min_support > 1:
        options.append(f"min support {min_support}")
    if years is not None and (years[0] is not None or years[1] is not None):
        options.append("years " + _year_text(years))
    if max_nodes is not None:
        options.append(f"max {max_nodes} nodes")
    default_title = "kg paper map" if view == "papers" else "kg knowledge graph"
    return {
        "title": title or default_title,
        "view": view,
        "focus": sel.focus,
        "radius": radius,
        "options": options,
        "counts": {
            "nodes": len(nodes),
            "edges": len(edges),
            "totalNodes": sel.total_nodes,
            "totalEdges": sel.total_edges,
        },
        "leftOut": [[reason, count] for reason, count in sel.left_out],
        "leftOutByLabel": sel.left_out_by_label,
        "labels": [
            {
                "name": label,
                "color": LABEL_COLORS.get(label, _OTHER_COLOR),
                "shape": LABEL_SHAPES.get(label, "dot"),
                "count": label_counts[label],
            }
            for label in order
        ],
        "edgeTypes": [
            {"name": t, "count": c, "hidden": view == "knowledge" and t == "RELATED_TO"}
            for t, c in sorted(type_counts.items())
        ],
        "labelColors": LABEL_COLORS,
        "labelShapes": LABEL_SHAPES,
        "communities": sum(1 for c in groups if len(c) > 1),
        "colourBy": colour_by,
        "communityColors": list(_COMMUNITY_COLORS),
        "sizeBy": size_by,
        "large": large,
    }


def write_html(
    graph: Any,
    path: str | Path,
    options: PageOptions | None = None,
    *,
    files: AtomicFiles | None = None,
    **kwargs: Any,
) -> Path:
    """Write :func:`to_html` to ``path`` (which must end in ``.html``), whole or not at all (with
    ``files``, together with its other files), and return the path.

    Raises
    ------
    ExportError : the name does not end in .html, or the file cannot be written.
    """
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ExportError(f"{path}: an HTML page needs a name ending in .html")
    page = to_html(graph, options, **kwargs)
    return write_text(path, page, files=files)
