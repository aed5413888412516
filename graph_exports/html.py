"""The interactive HTML page: one self-contained file, generated through pyvis, that opens offline.

``to_html(graph, ...)`` returns the page as a string; ``write_html(graph, path, ...)`` writes it.
The page is pyvis's ``Network`` rendered with kg's own Jinja template (``assets/kg_page.html``):
pyvis's template links Bootstrap and tom-select from CDNs even with ``cdn_resources="in_line"``,
so kg replaces it. vis-network's script and style are read from the installed pyvis package and
inlined; a Content-Security-Policy with a per-page nonce forbids every other script and every
request, so text from abstracts can never run or load anything.

What happens, in order (each step a pure function over the networkx graph):

1. ``select`` picks the nodes and edges of the view (whole knowledge graph, or the paper map),
   applies the filters (labels, minimum support, years), the focus neighbourhood and
   ``max_nodes``, and records what was left out and why.
2. ``communities`` colours large graphs by Louvain community; ``layout`` computes positions in
   Python with a bounded number of iterations, so the page draws once and never simulates.
3. ``page_nodes``/``page_edges`` turn nodes and edges into vis-network records that carry what the
   side panel shows (abstract and mentions, aliases, supporting papers, evidence sentences).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import networkx as nx
import numpy as np

from kg.errors import ExportError, NodeNotFound
from kg.model import NODE_LABELS

from .overview import overview as community_overview
from .page_data import compress_if_large, pack
from .paper_map import MAP_SIZE, MAX_MAP_SIZE, find_paper, paper_map

__all__ = [
    "VIEWS",
    "SIZE_BY",
    "LABEL_COLORS",
    "LABEL_SHAPES",
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

VIEWS: tuple[str, ...] = ("knowledge", "papers")
SIZE_BY: tuple[str, ...] = ("degree", "support")

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
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#7f7f7f", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
    "#f7b6d2", "#9edae5", "#dbdb8d", "#393b79",
)

#: Above this many nodes the page colours by community, draws no arrows, hides edges while
#: dragging and does not animate (each frame of thousands of nodes is slow).
LARGE_GRAPH = 1000
#: Above this many nodes the page opens on its overview (communities as named meta-nodes).
OVERVIEW_ABOVE = 3000
#: Graphs up to this size are laid out in one piece; larger ones community by community.
_ONE_PIECE = 350
#: Caps on what one node or edge carries to the page (the panel says when a list was cut).
_MAX_PAPERS_PER_ENTITY = 100
_MAX_EVIDENCE_PER_EDGE = 5
_MAX_SHARED_PER_EDGE = 50
_LABEL_CHARS = 30
_TEMPLATE = "kg_page.html"
_NONCE_SLOT = "kg-nonce-slot"


# ---------------------------------------------------------------------------------------------
# selection


@dataclass(frozen=True)
class Selection:
    """The nodes and edges a page shows, and what it leaves out.

    Attributes:
        nodes: node ids, sorted.
        edges: ``(u, v, key)`` triples of the MultiDiGraph, sorted.
        focus: the resolved focus node id, or ``None``.
        total_nodes: nodes of the view before filters, focus and ``max_nodes``.
        total_edges: edges of the view before filters, focus and ``max_nodes``.
        left_out: ``(reason, nodes removed)`` for each step that removed nodes, in order.
        left_out_by_label: nodes removed by ``max_nodes``, per label.
    """

    nodes: list[str]
    edges: list[tuple[str, str, str]]
    focus: str | None = None
    total_nodes: int = 0
    total_edges: int = 0
    left_out: list[tuple[str, int]] = field(default_factory=list)
    left_out_by_label: dict[str, int] = field(default_factory=dict)


def _as_nx(graph: Any) -> nx.MultiDiGraph:
    """The networkx graph inside a ``KnowledgeGraph``, or the graph itself."""
    g = getattr(graph, "nx", graph)
    if not isinstance(g, nx.Graph):
        raise ExportError(
            f"to_html needs a KnowledgeGraph or a networkx graph, not {type(graph).__name__}"
        )
    return g


def _label(data: dict[str, Any]) -> str:
    return str(data.get("label") or "")


def _support(data: dict[str, Any]) -> int:
    try:
        return int(data.get("support") or 0)
    except (TypeError, ValueError):
        return 0


def _edge_type(key: Any, data: dict[str, Any]) -> str:
    return str(data.get("type") or key)


def _norm_labels(labels: Iterable[str] | str | None) -> set[str] | None:
    if labels is None:
        return None
    if isinstance(labels, str):
        labels = [part for part in labels.split(",")]
    by_lower = {label.lower(): label for label in NODE_LABELS}
    out: set[str] = set()
    for raw in labels:
        name = raw.strip()
        if not name:
            continue
        if name.lower() not in by_lower:
            raise ExportError(f"unknown label {name!r}; use one of {', '.join(NODE_LABELS)}")
        out.add(by_lower[name.lower()])
    return out


def _names_of(g: nx.MultiDiGraph, node: str) -> list[str]:
    data = g.nodes[node]
    names = [str(data.get("name") or ""), str(data.get("title") or "")]
    names += [str(a) for a in data.get("aliases") or ()]
    return [n for n in names if n]


def resolve_focus(graph: Any, focus: str) -> str:
    """The node id ``focus`` names: a node id, or a name, title or alias (case-insensitive).

    Raises:
        NodeNotFound: nothing matches, or several nodes match (the message lists them).
    """
    g = _as_nx(graph)
    if focus in g:
        return focus
    wanted = focus.strip().lower()
    hits = sorted(n for n in g if any(name.lower() == wanted for name in _names_of(g, n)))
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise NodeNotFound(f"focus {focus!r}: no node has this id, name or alias")
    shown = ", ".join(hits[:8]) + (" ..." if len(hits) > 8 else "")
    raise NodeNotFound(f"focus {focus!r} is ambiguous: {shown}; pass a node id")


def _check_options(
    view: str,
    radius: int,
    min_support: int,
    years: tuple[int | None, int | None] | None,
    max_nodes: int | None,
    size_by: str,
) -> None:
    if view not in VIEWS:
        raise ExportError(f"unknown view {view!r}; use one of {', '.join(VIEWS)}")
    if size_by not in SIZE_BY:
        raise ExportError(f"unknown size_by {size_by!r}; use one of {', '.join(SIZE_BY)}")
    if radius < 0:
        raise ExportError(f"radius must be 0 or more, not {radius}")
    if min_support < 0:
        raise ExportError(f"min_support must be 0 or more, not {min_support}")
    if max_nodes is not None and max_nodes < 1:
        raise ExportError(f"max_nodes must be 1 or more, not {max_nodes}")
    if years is not None:
        if len(years) != 2:
            raise ExportError(f"years must be (from, to), not {years!r}")
        lo, hi = years
        if lo is not None and hi is not None and lo > hi:
            raise ExportError(f"years: {lo} is after {hi}")


def _year_text(years: tuple[int | None, int | None]) -> str:
    lo, hi = years
    if lo is not None and hi is not None:
        return f"{lo}–{hi}"
    return f"from {lo}" if lo is not None else f"up to {hi}"


def _in_years(data: dict[str, Any], years: tuple[int | None, int | None]) -> bool:
    year = data.get("year")
    if year is None or year == "":
        return False
    try:
        year = int(year)
    except (TypeError, ValueError):
        return False
    lo, hi = years
    return (lo is None or year >= lo) and (hi is None or year <= hi)


def select(
    graph: Any,
    *,
    view: str = "knowledge",
    focus: str | None = None,
    radius: int = 1,
    labels: Iterable[str] | str | None = None,
    min_support: int = 1,
    years: tuple[int | None, int | None] | None = None,
    max_nodes: int | None = None,
) -> Selection:
    """The nodes and edges one page shows, and what it leaves out.

    Parameters
    ----------
    graph : KnowledgeGraph or networkx.MultiDiGraph
    view : "knowledge" (papers, entities and every edge) or "papers" (papers and RELATED_TO).
    focus : a node id, name or alias; only nodes within ``radius`` hops (either direction) stay.
        In the paper map an entity may be the focus: its papers are the centre.
    labels : node labels to keep (default: all).
    min_support : entities supported by fewer papers are left out (papers are not).
    years : ``(from, to)``, either end ``None``; papers outside it, or without a year, are left
        out, and so are entities that only those papers mention.
    max_nodes : keep this many nodes: papers and entities each in their share of the view (at
        least a quarter each where there are that many), the most supported of each first
        (entities by ``support``, papers by their number of connections); the focus node is
        always kept.

    Returns
    -------
    Selection

    Raises
    ------
    ExportError : an option is out of range.
    NodeNotFound : the focus names no node, or is ambiguous.
    """
    g = _as_nx(graph)
    _check_options(view, radius, min_support, years, max_nodes, "degree")
    keep_labels = _norm_labels(labels)
    left_out: list[tuple[str, int]] = []

    # 1. the view
    if view == "papers":
        nodes = {n for n, d in g.nodes(data=True) if _label(d) == "Paper"}
        edge_ok = lambda k, d: _edge_type(k, d) == "RELATED_TO"  # noqa: E731
    else:
        nodes = set(g.nodes)
        edge_ok = lambda k, d: True  # noqa: E731
    total_nodes = len(nodes)
    total_edges = sum(
        1 for u, v, k, d in g.edges(keys=True, data=True) if u in nodes and v in nodes and edge_ok(k, d)
    )

    def drop(reason: str, gone: set[str]) -> None:
        if gone:
            nodes.difference_update(gone)
            left_out.append((reason, len(gone)))

    # 2. filters
    if keep_labels is not None:
        gone = {n for n in nodes if _label(g.nodes[n]) not in keep_labels}
        drop(f"labels other than {', '.join(sorted(keep_labels))}", gone)
    if min_support > 1:
        gone = {
            n for n in nodes
            if _label(g.nodes[n]) != "Paper" and _support(g.nodes[n]) < min_support
        }
        drop(f"entities with support below {min_support}", gone)
    if years is not None and (years[0] is not None or years[1] is not None):
        papers_out = {
            n for n in nodes
            if _label(g.nodes[n]) == "Paper" and not _in_years(g.nodes[n], years)
        }
        drop(f"papers outside {_year_text(years)} or without a year", papers_out)
        orphans = set()
        if papers_out:
            for n in nodes:
                if _label(g.nodes[n]) == "Paper":
                    continue
                papers = {m for m in nx.all_neighbors(g, n) if _label(g.nodes[m]) == "Paper"}
                if papers and papers <= papers_out:
                    orphans.add(n)
        drop(f"entities only in papers outside {_year_text(years)}", orphans)

    sub = _view_graph(g, nodes, edge_ok)

    # 3. focus
    focus_id = None
    if focus is not None:
        focus_id = resolve_focus(g, focus)
        if view == "papers" and _label(g.nodes[focus_id]) != "Paper":
            seeds = {m for m in nx.all_neighbors(g, focus_id) if m in nodes}
            hops = max(radius - 1, 0)
        else:
            seeds = {focus_id}
            hops = radius
        if not seeds <= nodes or not seeds:
            raise NodeNotFound(
                f"focus {focus!r} ({focus_id}) is not in this view after the filters"
            )
        near = _within(sub, seeds, hops)
        drop(f"farther than {radius} hop{'s' if radius != 1 else ''} from {focus_id}", nodes - near)
        sub = sub.subgraph(nodes).copy()

    # 4. max_nodes
    by_label: dict[str, int] = {}
    if max_nodes is not None and len(nodes) > max_nodes:
        degree = dict(sub.degree())

        def rank(n: str) -> tuple[int, int, int, str]:
            data = g.nodes[n]
            score = degree.get(n, 0) if _label(data) == "Paper" else _support(data)
            return (0 if n == focus_id else 1, -score, -degree.get(n, 0), n)

        # papers and entities each keep their share of the view (at least a quarter each, when
        # there are that many), the best ranked of each; the focus is always kept
        papers = sorted((n for n in nodes if _label(g.nodes[n]) == "Paper"), key=rank)
        others = sorted((n for n in nodes if _label(g.nodes[n]) != "Paper"), key=rank)
        want = round(max_nodes * len(papers) / len(nodes))
        want = max(want, min(len(papers), max_nodes // 4))
        want = min(want, len(papers), max_nodes - min(len(others), max_nodes // 4))
        keep = set(papers[:want]) | set(others[: max_nodes - want])
        if focus_id is not None and focus_id not in keep:
            keep.add(focus_id)
            worst = max((n for n in keep if n != focus_id), key=rank)
            keep.discard(worst)
        gone = nodes - keep
        for n in gone:
            label = _label(g.nodes[n]) or "other"
            by_label[label] = by_label.get(label, 0) + 1
        drop(f"max {max_nodes} nodes: papers and entities in their shares, the least supported of each", gone)
        sub = sub.subgraph(nodes).copy()

    edges = sorted((u, v, str(k)) for u, v, k in sub.edges(keys=True))
    return Selection(
        nodes=sorted(nodes),
        edges=edges,
        focus=focus_id,
        total_nodes=total_nodes,
        total_edges=total_edges,
        left_out=left_out,
        left_out_by_label=dict(sorted(by_label.items())),
    )


def _view_graph(g: nx.MultiDiGraph, nodes: set[str], edge_ok) -> nx.MultiDiGraph:
    sub = nx.MultiDiGraph()
    sub.add_nodes_from(nodes)
    sub.add_edges_from(
        (u, v, k)
        for u, v, k, d in g.edges(keys=True, data=True)
        if u in nodes and v in nodes and edge_ok(k, d)
    )
    return sub


def _within(g: nx.MultiDiGraph, seeds: set[str], hops: int) -> set[str]:
    """Nodes at most ``hops`` edges (either direction) from any seed."""
    seen = set(seeds)
    frontier = set(seeds)
    for _ in range(hops):
        nxt = set()
        for n in frontier:
            nxt.update(m for m in nx.all_neighbors(g, n) if m not in seen)
        if not nxt:
            break
        seen |= nxt
        frontier = nxt
    return seen


# ---------------------------------------------------------------------------------------------
# communities and layout


def _undirected(g: nx.MultiDiGraph, nodes: Sequence[str], edges: Sequence[tuple[str, str, str]]) -> nx.Graph:
    """A simple weighted graph: one edge per connected pair, weight = number of edges."""
    h = nx.Graph()
    h.add_nodes_from(nodes)
    for u, v, _k in edges:
        if u == v:
            continue
        if h.has_edge(u, v):
            h[u][v]["weight"] += 1
        else:
            h.add_edge(u, v, weight=1)
    return h


def communities(h: nx.Graph, *, seed: int = 0) -> list[set[str]]:
    """Louvain communities of ``h``, largest first (ties by smallest node id)."""
    if h.number_of_nodes() == 0:
        return []
    if h.number_of_edges() == 0:
        return [{n} for n in sorted(h)]
    found = nx.community.louvain_communities(h, weight="weight", seed=seed)
    return sorted((set(c) for c in found), key=lambda c: (-len(c), min(c)))


def _sunflower(count: int) -> np.ndarray:
    """``count`` points spread evenly over the unit disk (first point in the centre)."""
    k = np.arange(count, dtype=float)
    r = np.sqrt(k + 0.5) / math.sqrt(max(count, 1))
    theta = k * math.pi * (3 - math.sqrt(5))
    return np.column_stack([r * np.cos(theta), r * np.sin(theta)])


def _spaced(pos: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Centre ``pos`` and scale it so that the median distance to the nearest node is 1."""
    if not pos:
        return {}
    arr = np.array(list(pos.values()), dtype=float)
    arr -= arr.mean(axis=0)
    if len(arr) > 1:
        d = np.sqrt(((arr[:, None, :] - arr[None, :, :]) ** 2).sum(axis=2))
        np.fill_diagonal(d, np.inf)
        unit = float(np.median(d.min(axis=1)))
        if unit > 1e-9:
            arr /= unit
    return {n: arr[i] for i, n in enumerate(pos)}


def _piece(h: nx.Graph, *, seed: int) -> tuple[dict[str, np.ndarray], float]:
    """Lay out one connected-ish piece with a bounded number of iterations.

    Returns positions in units of the node spacing (median nearest-neighbour distance 1) and
    the radius of the disk they fill, in the same units.
    """
    n = h.number_of_nodes()
    if n == 1:
        return {next(iter(h)): np.zeros(2)}, 0.5
    if n <= _ONE_PIECE:
        iterations = 100 if n <= 60 else 40 if n <= 200 else 25
        pos = _spaced(nx.spring_layout(h, seed=seed, iterations=iterations, weight=None))
    else:
        # Too big for a dense spring layout: hubs in the middle, their neighbours around them.
        order = sorted(h, key=lambda x: (-h.degree(x), x))
        points = _sunflower(n)
        points *= math.sqrt(n / math.pi)  # n points in the unit disk sit about sqrt(pi / n) apart
        pos = {node: points[i] for i, node in enumerate(order)}
    radius = max(float(np.hypot(p[0], p[1])) for p in pos.values()) + 0.5
    return pos, radius


def layout(
    h: nx.Graph, groups: Sequence[set[str]] | None = None, *, seed: int = 0, spacing: float | None = None
) -> dict[str, tuple[float, float]]:
    """Positions for every node of ``h``, in pixels, computed once with bounded iterations.

    Each connected component is laid out on its own, in a disk whose area grows with its size:
    small ones by a spring layout, large ones (with ``groups``, their communities) community by
    community, the community disks placed by a spring layout of the community graph. Isolated
    nodes share one grid, sorted by ``order`` then id. The blocks are then packed, largest in
    the middle, and pushed apart until none overlap.
    """
    if h.number_of_nodes() == 0:
        return {}
    if spacing is None:  # small graphs have room for bigger nodes and their names
        spacing = 85.0 if h.number_of_nodes() <= _ONE_PIECE else 55.0
    comps = sorted((set(c) for c in nx.connected_components(h)), key=lambda c: (-len(c), min(c)))
    blocks: list[tuple[dict[str, np.ndarray], float]] = []
    singles: list[str] = []
    for comp in comps:
        if len(comp) == 1:
            singles.extend(comp)
        elif len(comp) <= _ONE_PIECE or not groups:
            local, radius = _piece(h.subgraph(comp), seed=seed)
            blocks.append(({n: p * spacing for n, p in local.items()}, radius * spacing))
        else:
            inside = [c & comp for c in groups if c & comp]
            blocks.append(_communities_block(h.subgraph(comp), inside, seed=seed, spacing=spacing))
    if singles:
        blocks.append(_grid(sorted(singles, key=lambda n: (h.nodes[n].get("order", ""), n))))
    return _pack(blocks)


def _grid(nodes: list[str], *, column: float = 240.0, row: float = 70.0) -> tuple[dict[str, np.ndarray], float]:
    """Isolated nodes in rows wide enough for their names, about as wide as tall."""
    cols = max(1, round(math.sqrt(len(nodes) * row / column)))
    rows = math.ceil(len(nodes) / cols)
    out = {}
    for i, node in enumerate(nodes):
        r, c = divmod(i, cols)
        out[node] = np.array([(c - (cols - 1) / 2) * column, (r - (rows - 1) / 2) * row])
    return out, math.hypot(cols * column, rows * row) / 2


def _communities_block(
    h: nx.Graph, groups: list[set[str]], *, seed: int, spacing: float
) -> tuple[dict[str, np.ndarray], float]:
    """One large component, community by community (see :func:`layout`)."""
    groups = sorted(groups, key=lambda c: (-len(c), min(c)))
    if len(groups) > 200:
        # Hundreds of tiny communities: keep the big ones, pool the rest.
        groups = groups[:199] + [set().union(*groups[199:])]
    member = {node: i for i, c in enumerate(groups) for node in c}
    q = nx.Graph()
    q.add_nodes_from(range(len(groups)))
    for u, v in h.edges():
        a, b = member[u], member[v]
        if a != b:
            q.add_edge(a, b, weight=q[a][b]["weight"] + 1 if q.has_edge(a, b) else 1)
    pieces = [_piece(h.subgraph(c), seed=seed) for c in groups]
    radii = np.array([r * spacing for _pos, r in pieces])
    centres = nx.spring_layout(q, seed=seed, iterations=100, weight="weight")
    pts = np.array([centres[i] for i in range(len(groups))], dtype=float)
    pts -= pts.mean(axis=0)
    reach = float(np.sqrt((pts**2).sum(axis=1)).max()) or 1.0
    # Spread the centres over a disk about as large as the communities packed together.
    pts *= 1.15 * float(np.sqrt((radii**2).sum())) / reach
    pts = _separate(pts, radii)
    out: dict[str, np.ndarray] = {}
    for i, (local, _r) in enumerate(pieces):
        for node, p in local.items():
            out[node] = pts[i] + p * spacing
    extent = max(float(np.hypot(*(pts[i]))) + radii[i] for i in range(len(groups)))
    return out, extent


def _pack(blocks: list[tuple[dict[str, np.ndarray], float]]) -> dict[str, tuple[float, float]]:
    """Place blocks (positions around 0, radius) without overlaps, largest in the middle."""
    blocks = sorted(blocks, key=lambda b: -b[1])
    radii = np.array([r for _, r in blocks], dtype=float)
    if len(blocks) == 1:
        centres = np.zeros((1, 2))
    else:
        centres = _sunflower(len(blocks)) * 1.1 * float(np.sqrt((radii**2).sum()))
        centres -= centres[0]
        centres = _separate(centres, radii)
    out: dict[str, tuple[float, float]] = {}
    for (pos, _r), c in zip(blocks, centres):
        for node, p in pos.items():
            out[node] = (round(float(c[0] + p[0]), 1), round(float(c[1] + p[1]), 1))
    return out


def _separate(pts: np.ndarray, radii: np.ndarray, *, iterations: int = 200) -> np.ndarray:
    """Push disks apart until none overlap (or ``iterations`` run out)."""
    pts = pts.copy()
    if len(pts) < 2:
        return pts
    rng = np.random.default_rng(0)
    need = radii[:, None] + radii[None, :] + 10.0
    np.fill_diagonal(need, 0.0)
    for _ in range(iterations):
        diff = pts[:, None, :] - pts[None, :, :]
        dist = np.sqrt((diff**2).sum(axis=2))
        overlap = need - dist
        np.fill_diagonal(overlap, 0.0)
        if (overlap <= 0.5).all():
            break
        same = dist < 1e-6
        np.fill_diagonal(same, False)
        if same.any():
            pts += rng.normal(scale=1.0, size=pts.shape) * same.any(axis=1)[:, None]
            continue
        np.fill_diagonal(dist, 1.0)
        push = np.clip(overlap, 0.0, None) / dist / 2
        pts += (diff * push[:, :, None]).sum(axis=1)
    return pts


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
    g = _as_nx(graph)
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
            )
        else:
            papers = sorted(
                {m for m in nx.all_neighbors(g, n) if _label(g.nodes[m]) == "Paper"},
                key=lambda m: (m not in shown, m),
            )
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


def page_edges(graph: Any, selection: Selection, *, view: str = "knowledge") -> list[dict[str, Any]]:
    """vis-network edge records, one per MultiDiGraph edge, with their evidence.

    Fields: ``id`` (``e<n>``), ``from``, ``to``, ``type``, ``weight``, ``count``, ``evidence``
    (at most five ``{sentence, start, end, text, extractor, score, paper_id}``) with
    ``evidenceTotal``; RELATED_TO edges carry ``shared`` (``[id, name]``), ``sharedTerms`` (the
    words and keywords that weigh most) and, in the paper map, a ``label`` naming what the two
    papers share (their entities, else their words).
    """
    g = _as_nx(graph)
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
            rec["sharedTerms"] = [str(t) for t in list(data.get("shared_terms") or [])]
            rec["color"] = {"color": "#7b9cc4", "opacity": 0.8}
            rec["dashes"] = view == "knowledge"
            rec["arrows"] = {"to": {"enabled": False}}  # symmetric: stored once, source < target
            rec["hidden"] = view == "knowledge"
            names = [name for _id, name in shared] or rec["sharedTerms"]  # no shared entity: the words
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


def to_html(
    graph: Any,
    *,
    view: str = "knowledge",
    focus: str | None = None,
    radius: int = 1,
    labels: Iterable[str] | str | None = None,
    min_support: int = 1,
    years: tuple[int | None, int | None] | None = None,
    max_nodes: int | None = None,
    size_by: str = "degree",
    title: str | None = None,
    paper: str | None = None,
    map_size: int = MAP_SIZE,
    overview: bool | None = None,
) -> str:
    """The interactive page for ``graph`` as one self-contained HTML string.

    Parameters are those of :func:`select`, plus ``size_by`` ("degree": connections on the
    page; "support": papers for an entity, entities for a paper) and an optional page title.
    With ``paper`` (an id, title or name) the page is the paper map of that paper: it and its
    ``map_size`` most related papers (:func:`graph_exports.paper_map.paper_map`), opened on the
    map; the filters of :func:`select` do not apply. ``overview`` (default: above
    ``OVERVIEW_ABOVE`` nodes, never for a focus or a paper map) opens the page on its communities
    (:func:`graph_exports.overview.overview`), each opening into its members on click. The same
    graph and options give the same bytes.

    Raises
    ------
    ExportError : an option is out of range, or pyvis lacks vis-network.
    NodeNotFound : the focus names no node.
    """
    from pyvis.network import Network  # imported here: pyvis is only needed for the page

    _check_options(view, radius, min_support, years, max_nodes, size_by)
    g = _as_nx(graph)
    map_meta: dict[str, Any] = {"mapSize": map_size}
    if paper is not None:
        view = "papers"
        sel, map_meta = _map_selection(g, paper, map_size)
    else:
        if not 1 <= map_size <= MAX_MAP_SIZE:
            raise ExportError(f"a paper map holds 1 to {MAX_MAP_SIZE} papers, not {map_size}")
        sel = select(
            g,
            view=view,
            focus=focus,
            radius=radius,
            labels=labels,
            min_support=min_support,
            years=years,
            max_nodes=max_nodes,
        )
    h = _undirected(g, sel.nodes, sel.edges)
    rank = {label: i for i, label in enumerate(NODE_LABELS)}
    for n in h:  # isolated nodes are gridded by label, then name
        data = g.nodes[n]
        h.nodes[n]["order"] = f"{rank.get(_label(data), 9)}|{_display_name(n, data).lower()}"
    large = len(sel.nodes) > LARGE_GRAPH
    groups = communities(h) if len(sel.nodes) > 1 else [set(sel.nodes)] if sel.nodes else []
    positions = layout(h, groups)
    colour_by = "community" if large else "label"
    nodes = page_nodes(g, sel, positions, groups, size_by=size_by, colour_by=colour_by)
    edges = page_edges(g, sel, view=view)

    meta = _meta(g, sel, nodes, edges, view=view, radius=radius, groups=groups,
                 colour_by=colour_by, size_by=size_by, large=large, title=title,
                 labels=labels, min_support=min_support, years=years, max_nodes=max_nodes)
    meta.update(map_meta)
    if overview is None:
        overview = len(sel.nodes) > OVERVIEW_ABOVE and sel.focus is None
    if overview and len(sel.nodes) > 1:
        meta["overview"] = community_overview(g, sel.nodes, groups, positions)
    if paper is not None:
        meta["options"] = [f"paper map of {sel.focus}, {len(sel.nodes) - 1} related papers"]
        if title is None:
            meta["title"] = "kg paper map: " + _short(_display_name(sel.focus, g.nodes[sel.focus]), 60)

    # pyvis carries what vis-network draws of each node; the rest of the data (panels, edges) is
    # stored once, compactly, beside it (graph_exports.page_data) and unpacked by the page.
    vis_nodes, store = pack(nodes, edges)
    packed = compress_if_large(vis_nodes, store)
    blob = ""
    if packed is not None:  # large pages: nodes and store travel gzip'd, decoded by the page
        # (in a script element that never runs: the browser does not parse it as JavaScript)
        vis_nodes, store, blob = [], {"gzIn": "kg-blob"}, packed["gz"]
    net = Network(directed=True, cdn_resources="in_line", height="100%", width="100%")
    net.node_ids = _IdList()
    for rec in vis_nodes:
        rec = dict(rec)
        node_id = rec.pop("id")
        net.add_node(node_id, label=rec.pop("label"), shape=rec.pop("shape"), color=rec.pop("color"), **rec)
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
        (u, v, str(k)) for u, v, k, d in g.edges(keys=True, data=True)
        if u in keep and v in keep and _edge_type(k, d) == "RELATED_TO"
    )
    papers = sum(1 for _n, d in g.nodes(data=True) if _label(d) == "Paper")
    related = sum(1 for _u, _v, k, d in g.edges(keys=True, data=True) if _edge_type(k, d) == "RELATED_TO")
    sel = Selection(
        nodes=sorted(keep),
        edges=edges,
        focus=origin,
        total_nodes=papers,
        total_edges=related,
        left_out=[(f"papers not among the {size} most related to {origin}", papers - len(keep))]
        if papers > len(keep) else [],
    )
    names = {s: _display_name(s, g.nodes[s]) for r in ranked for s in r.shared if s in g}
    meta = {
        "mapOrigin": origin,
        "mapSize": size,
        "entityNames": dict(sorted(names.items())),
        "paperMap": [[r.paper, r.order] for r in ranked],
    }
    return sel, meta


def _meta(g, sel: Selection, nodes, edges, *, view, radius, groups, colour_by, size_by, large,
          title, labels, min_support, years, max_nodes) -> dict[str, Any]:
    """Page-level facts: counts, legend, edge types, what was left out, the options used."""
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


def write_html(graph: Any, path: str | Path, **options: Any) -> Path:
    """Write :func:`to_html` to ``path`` (which must end in ``.html``) and return the path.

    Raises
    ------
    ExportError : the name does not end in .html, or the file cannot be written.
    """
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ExportError(f"{path}: an HTML page needs a name ending in .html")
    page = to_html(graph, **options)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
    except OSError as err:
        raise ExportError(f"{path}: cannot write the page: {err.strerror or err}") from err
    return path
