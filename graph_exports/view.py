"""Which nodes and edges a page shows: the view, the filters, the focus and ``max_nodes``.

Pure functions over the networkx graph (``select`` returns a :class:`Selection`); names are looked
up with :func:`kg.traverse.matches`, the same lookup as ``KnowledgeGraph.find``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from kg import traverse
from kg.errors import ExportError, NodeNotFound
from kg.schema import NODE_LABELS, as_nx

__all__ = ["VIEWS", "SIZE_BY", "Selection", "resolve_focus", "select", "check_options"]

VIEWS: tuple[str, ...] = ("knowledge", "papers")
SIZE_BY: tuple[str, ...] = ("degree", "support")


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


def resolve_focus(graph: Any, focus: str) -> str:
    """The node id ``focus`` names: a node id, or a name, title or alias (case, plural and dashes
    ignored, as :func:`kg.traverse.find`).

    Raises:
        NodeNotFound: nothing matches, or several nodes match (the message lists them).
    """
    g = as_nx(graph, ExportError, "to_html needs")
    if focus in g:
        return focus
    hits = traverse.matches(g, focus)
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise NodeNotFound(f"focus {focus!r}: no node has this id, name or alias")
    shown = ", ".join(hits[:8]) + (" ..." if len(hits) > 8 else "")
    raise NodeNotFound(f"focus {focus!r} is ambiguous: {shown}; pass a node id")


def check_options(
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
    g = as_nx(graph, ExportError, "to_html needs")
    check_options(view, radius, min_support, years, max_nodes, "degree")
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
        1
        for u, v, k, d in g.edges(keys=True, data=True)
        if u in nodes and v in nodes and edge_ok(k, d)
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
            n for n in nodes if _label(g.nodes[n]) != "Paper" and _support(g.nodes[n]) < min_support
        }
        drop(f"entities with support below {min_support}", gone)
    if years is not None and (years[0] is not None or years[1] is not None):
        papers_out = {
            n for n in nodes if _label(g.nodes[n]) == "Paper" and not _in_years(g.nodes[n], years)
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
        ranked_papers = sorted((n for n in nodes if _label(g.nodes[n]) == "Paper"), key=rank)
        others = sorted((n for n in nodes if _label(g.nodes[n]) != "Paper"), key=rank)
        want = round(max_nodes * len(ranked_papers) / len(nodes))
        want = max(want, min(len(ranked_papers), max_nodes // 4))
        want = min(want, len(ranked_papers), max_nodes - min(len(others), max_nodes // 4))
        keep = set(ranked_papers[:want]) | set(others[: max_nodes - want])
        if focus_id is not None and focus_id not in keep:
            keep.add(focus_id)
            worst = max((n for n in keep if n != focus_id), key=rank)
            keep.discard(worst)
        gone = nodes - keep
        for n in gone:
            label = _label(g.nodes[n]) or "other"
            by_label[label] = by_label.get(label, 0) + 1
        drop(
            f"max {max_nodes} nodes: papers and entities in their shares, the least supported of each",
            gone,
        )
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
        nxt: set[str] = set()
        for n in frontier:
            nxt.update(m for m in nx.all_neighbors(g, n) if m not in seen)
        if not nxt:
            break
        seen |= nxt
        frontier = nxt
    return seen
