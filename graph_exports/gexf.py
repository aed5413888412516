"""GEXF for Gephi, with years for its timeline.

Gephi reads a node's ``start`` as the time it appears: a paper's year, an entity's first year, a
result's paper's year; a paper's edges start with the paper. The node label Gephi shows is the
name, and kg's label (Paper, Method, ...) travels as the attribute ``kind``. Lists and dicts become
JSON strings, as in GraphML (:func:`graph_exports.files.to_graphml_graph`); a result's character
offsets ``start``/``end`` are ``text_start``/``text_end`` (GEXF reserves the names for time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx

from kg.atomic import AtomicFiles, atomic_open
from kg.graph import KnowledgeGraph

from .files import to_graphml_graph

__all__ = ["to_gexf_graph", "write_gexf"]


def _year(attrs: dict[str, Any]) -> int | None:
    for name in ("year", "first_year"):
        if isinstance(attrs.get(name), int):
            return int(attrs[name])
    return None


def to_gexf_graph(graph: KnowledgeGraph | nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy ready for ``networkx.write_gexf``: names as labels, ``kind``, ``start`` years."""
    G = graph.nx if isinstance(graph, KnowledgeGraph) else graph
    flat = to_graphml_graph(G)
    out = nx.MultiDiGraph()
    starts: dict[str, int] = {}
    for node, attrs in G.nodes(data=True):
        year = _year(attrs)
        if year is None and attrs.get("label") == "Result":
            paper = G.nodes.get(f"paper:{attrs.get('paper_id')}", {})
            year = _year(paper)
        if year is not None:
            starts[node] = year
    for node, attrs in flat.nodes(data=True):
        # GEXF reads start/end as times: a result's character offsets keep other names
        data = {
            (f"text_{k}" if k in ("start", "end") else k): v
            for k, v in attrs.items()
            if k not in ("label", "name")
        }
        data["kind"] = attrs.get("label", "")
        data["label"] = str(attrs.get("name") or attrs.get("title") or node)
        if node in starts:
            data["start"] = starts[node]
        out.add_node(node, **data)
    for u, v, key, attrs in flat.edges(keys=True, data=True):
        data = {
            (f"text_{k}" if k in ("start", "end") else k): v for k, v in attrs.items() if k != "id"
        }
        if G.nodes[u].get("label") == "Paper" and u in starts:
            data["start"] = starts[u]
        out.add_edge(u, v, key=key, **data)
    return out


def write_gexf(
    graph: KnowledgeGraph | nx.MultiDiGraph, path: str | Path, *, files: AtomicFiles | None = None
) -> Path:
    """Write GEXF 1.2 (dynamic when any node has a year), whole or not at all."""
    path = Path(path)
    data = to_gexf_graph(graph)
    if any("start" in d for _, d in data.nodes(data=True)):
        data.graph["mode"] = "dynamic"
    with atomic_open(path, "wb", files=files) as handle:
        nx.write_gexf(data, handle)
    return path
