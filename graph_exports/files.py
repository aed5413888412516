"""File exports: node-link JSON and GraphML (read back by networkx and Gephi).

Data first, files last: ``to_*`` functions return data, ``write_*`` put it on disk.
GraphML has no list or dict type, so list and dict attributes travel as JSON strings and their
names are recorded in the graph attribute ``kg_json_attributes``; :func:`read_graphml` restores them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from kg.atomic import AtomicFiles, atomic_open
from kg.errors import ExportError, KgError
from kg.graph import KnowledgeGraph
from kg.schema import as_nx

__all__ = ["to_node_link", "write_json", "to_graphml_graph", "write_graphml", "read_graphml"]

JSON_ATTRS_KEY = "kg_json_attributes"


def to_node_link(graph: KnowledgeGraph | nx.MultiDiGraph) -> dict[str, Any]:
    """networkx node-link data (edges under ``links``)."""
    return nx.node_link_data(as_nx(graph, ExportError), edges="links")


def write_json(graph: KnowledgeGraph | nx.MultiDiGraph, path: str | Path, *,
               files: AtomicFiles | None = None) -> Path:
    """Write node-link JSON (whole or not at all); ``KnowledgeGraph.load`` reads it back."""
    g = graph if isinstance(graph, KnowledgeGraph) else KnowledgeGraph(graph)
    try:
        return g.save(path, files=files)
    except KgError:  # already names the path
        raise
    except Exception as exc:
        raise ExportError(f"{path}: cannot write graph JSON ({exc})") from exc


def _encode(value: Any) -> Any:
    if isinstance(value, (list, tuple, dict, set)):
        return json.dumps(sorted(value) if isinstance(value, set) else value, ensure_ascii=False)
    return value


def to_graphml_graph(graph: KnowledgeGraph | nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy whose list/dict attributes are JSON strings and whose ``None`` values are dropped."""
    G = as_nx(graph, ExportError)
    out = nx.MultiDiGraph()
    json_attrs: set[str] = set()

    def clean(attrs: dict[str, Any]) -> dict[str, Any]:
        result = {}
        for name, value in attrs.items():
            if value is None:
                continue
            if isinstance(value, (list, tuple, dict, set)):
                json_attrs.add(name)
            result[name] = _encode(value)
        return result

    for node, attrs in G.nodes(data=True):
        out.add_node(node, **clean(attrs))
    for u, v, key, attrs in G.edges(keys=True, data=True):
        out.add_edge(u, v, key=key, **clean(attrs))
    out.graph.update(clean(dict(G.graph)))
    out.graph[JSON_ATTRS_KEY] = ",".join(sorted(json_attrs))
    return out


def write_graphml(graph: KnowledgeGraph | nx.MultiDiGraph, path: str | Path, *,
                  files: AtomicFiles | None = None) -> Path:
    """Write GraphML (networkx's writer, ``edge_id_from_attribute`` keeps the relationship type),
    whole or not at all."""
    path = Path(path)
    data = to_graphml_graph(graph)
    with atomic_open(path, "wb", files=files) as handle:
        nx.write_graphml(data, handle, named_key_ids=True)
    return path


def read_graphml(path: str | Path) -> nx.MultiDiGraph:
    """Read a GraphML file written by :func:`write_graphml`, restoring list and dict attributes."""
    G = nx.read_graphml(path, force_multigraph=True)
    names = set(filter(None, str(G.graph.pop(JSON_ATTRS_KEY, "")).split(",")))

    def restore(attrs: dict[str, Any]) -> None:
        for name in names & attrs.keys():
            if isinstance(attrs[name], str):
                attrs[name] = json.loads(attrs[name])

    for _, attrs in G.nodes(data=True):
        restore(attrs)
    for _, _, attrs in G.edges(data=True):
        restore(attrs)
    restore(G.graph)
    for reader_default in ("node_default", "edge_default"):
        G.graph.pop(reader_default, None)
    return nx.MultiDiGraph(G)
