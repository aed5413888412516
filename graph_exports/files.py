"""File exports: node-link JSON and GraphML (read back by networkx and Gephi).

Data first, files last: ``to_*`` functions return data, ``write_*`` put it on disk.
GraphML has no list or dict type, so list and dict attributes travel as JSON strings and their
names are recorded in the graph attribute ``kg_json_attributes``; :func:`read_graphml` restores them.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from itertools import accumulate
from pathlib import Path
from typing import Any

import networkx as nx

from kg.atomic import AtomicFiles, atomic_open
from kg.errors import ExportError, KgError
from kg.fastjson import dumps_text
from kg.graph import KnowledgeGraph
from kg.schema import as_nx

__all__ = [
    "to_node_link",
    "write_json",
    "to_graphml_graph",
    "write_graphml",
    "iter_graphml",
    "iter_graphml_elements",
    "graphml_ends",
    "graphml_parts",
    "GraphmlKeys",
    "read_graphml",
]

JSON_ATTRS_KEY = "kg_json_attributes"


def to_node_link(graph: KnowledgeGraph | nx.MultiDiGraph) -> dict[str, Any]:
    """networkx node-link data (edges under ``links``)."""
    return nx.node_link_data(as_nx(graph, ExportError), edges="links")


def write_json(
    graph: KnowledgeGraph | nx.MultiDiGraph, path: str | Path, *, files: AtomicFiles | None = None
) -> Path:
    """Write node-link JSON (whole or not at all); ``KnowledgeGraph.load`` reads it back."""
    g = graph if isinstance(graph, KnowledgeGraph) else KnowledgeGraph(graph)
    try:
        return g.save(path, files=files)
    except KgError:  # already names the path
        raise
    except Exception as exc:
        raise ExportError(f"{path}: cannot write graph JSON ({exc})") from exc


#: List and dict attributes as compact JSON text (:mod:`kg.fastjson`).
_to_json = dumps_text


def _encode(value: Any) -> Any:
    if isinstance(value, (list, tuple, dict, set)):
        return _to_json(sorted(value) if isinstance(value, set) else value)
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


def write_graphml(
    graph: KnowledgeGraph | nx.MultiDiGraph, path: str | Path, *, files: AtomicFiles | None = None
) -> Path:
    """Write GraphML, whole or not at all: the bytes networkx's writer makes of
    :func:`to_graphml_graph` (the relationship type as each edge's id), streamed element by
    element, so that no second copy of the graph (networkx builds the whole XML tree: 3.6 GB at
    20,000 papers) is ever in memory."""
    path = Path(path)
    with atomic_open(path, "w", files=files, newline="") as handle:
        for chunk in iter_graphml(graph):
            handle.write(chunk)
    return path


_GRAPHML_HEAD = (
    "<?xml version='1.0' encoding='utf-8'?>\n"
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
    'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
)
_XML_TYPES = {bool: "boolean", int: "long", float: "double", str: "string"}
_CONTAINERS = (list, tuple, dict, set)


def _text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(value: str) -> str:
    return (
        _text(value)
        .replace('"', "&quot;")
        .replace("\r", "&#13;")
        .replace("\n", "&#10;")
        .replace("\t", "&#09;")
    )


def _data(name: Any, value: Any, indent: str) -> str:
    text = _text(str(_encode(value)))
    key = _attr(str(name))
    return (
        f'{indent}<data key="{key}">{text}</data>\n' if text else f'{indent}<data key="{key}" />\n'
    )


class GraphmlKeys:
    """The attribute keys met in writing GraphML's elements, in the order met: what the header
    declares (:func:`graphml_ends`). A writer of one part of the elements fills one
    (:func:`iter_graphml_elements`); parts' keys merged in file order are the whole file's."""

    def __init__(self) -> None:
        #: (name, GraphML type, scope), in the order met
        self.keys: dict[tuple[str, str, str], None] = {}
        #: attributes with list, tuple, dict or set values (written as JSON text)
        self.json_attrs: set[str] = set()

    def meet(self, name: Any, value: Any, scope: str) -> None:
        """Note a (non-None) value of attribute ``name`` in ``scope``.

        Raises:
            ExportError: GraphML has no type for the value.
        """
        if isinstance(value, _CONTAINERS):
            self.json_attrs.add(str(name))
            kind = "string"
        else:
            found = _XML_TYPES.get(type(value))
            if found is None:
                raise ExportError(f"GraphML has no type for attribute {name!r} = {value!r}")
            kind = found
        self.keys.setdefault((str(name), kind, scope), None)

    def merge(self, later: GraphmlKeys) -> None:
        """Add the keys of the part of the file after this one."""
        self.keys.update(later.keys)
        self.json_attrs |= later.json_attrs


def graphml_ends(
    graph: KnowledgeGraph | nx.MultiDiGraph, keys: GraphmlKeys | None = None
) -> tuple[str, str]:
    """GraphML's text before the first element and after the last: the header declares every
    key (name, type and scope, in networkx's order). ``keys``: those the writers of the elements
    met (all of them, merged in file order); without, a pass over every attribute finds them.

    Raises:
        ExportError: an attribute has a type GraphML cannot hold.
    """
    G = as_nx(graph, ExportError)
    if keys is None:
        keys = GraphmlKeys()

        def scan(scope: str, items: Iterable[dict[str, Any]]) -> None:
            seen: set[tuple[Any, type]] = set()  # (name, Python type): met once for each
            for attrs in items:
                for name, value in attrs.items():
                    if value is not None and (name, type(value)) not in seen:
                        seen.add((name, type(value)))
                        keys.meet(name, value, scope)

        scan("node", (attrs for _, attrs in G.nodes(data=True)))
        scan("edge", (attrs for _, _, attrs in G.edges(data=True)))
    graph_attrs = {
        k: v
        for k, v in G.graph.items()
        if v is not None and k not in ("node_default", "edge_default")
    }
    graph_keys = GraphmlKeys()  # after the nodes and edges, so that json_attrs is complete
    for name, value in graph_attrs.items():
        graph_keys.meet(name, value, "graph")
    graph_attrs[JSON_ATTRS_KEY] = ",".join(sorted(keys.json_attrs | graph_keys.json_attrs))
    # networkx meets the graph's keys first and puts each new key in front of the earlier ones
    order = (
        list(graph_keys.keys)
        + [(JSON_ATTRS_KEY, "string", "graph")]
        + [k for k in keys.keys if k[2] == "node"]
        + [k for k in keys.keys if k[2] == "edge"]
    )
    head = [_GRAPHML_HEAD]
    for name, kind, scope in reversed(list(dict.fromkeys(order))):
        head.append(
            f'  <key id="{_attr(name)}" for="{scope}" attr.name="{_attr(name)}" attr.type="{kind}" />\n'
        )
    head.append('  <graph edgedefault="directed">\n')
    tail = [_data(name, value, "    ") for name, value in graph_attrs.items()]
    tail.append("  </graph>\n</graphml>\n")
    return "".join(head), "".join(tail)


def iter_graphml(graph: KnowledgeGraph | nx.MultiDiGraph) -> Iterator[str]:
    """GraphML text in pieces: a first pass over the attributes finds the keys (names and types,
    :func:`graphml_ends`), the second writes each node and edge as it comes
    (:func:`iter_graphml_elements`)."""
    G = as_nx(graph, ExportError)
    head, tail = graphml_ends(G)
    yield head
    yield from iter_graphml_elements(G)
    yield tail


def iter_graphml_elements(
    graph: KnowledgeGraph | nx.MultiDiGraph,
    *,
    part: tuple[list[Any], list[Any]] | None = None,
    keys: GraphmlKeys | None = None,
) -> Iterator[str]:
    """The node and edge elements of GraphML's text, in pieces.

    ``part``: only the elements of one of :func:`graphml_parts` (the consecutive parts
    concatenate to all of them, so that several processes can write one file:
    ``graph_exports.outputs``). ``keys``: filled with the keys the elements have, as they are
    met, so that a writer of all parts at once needs no pass of its own for the header.

    Hot: a 20,000-paper graph has about two million attribute values, so each key's opening tag
    is made once per type and a value's text is escaped only when it holds a character XML needs
    escaped.

    Raises:
        ExportError: an attribute has a type GraphML cannot hold.
    """
    G = as_nx(graph, ExportError)
    containers = _CONTAINERS
    nodes, sources = part if part is not None else (list(G._node),) * 2
    met = keys if keys is not None else GraphmlKeys()
    to_json = _to_json

    def element(
        open_tag: str, close_tag: str, attrs: dict[str, Any], tags: dict[Any, str], scope: str
    ) -> str:
        data = []
        for name, value in attrs.items():
            if value is None:
                continue
            opening = tags.get((name, type(value)))
            if opening is None:  # a new key, or a new type of one
                met.meet(name, value, scope)
                opening = tags[(name, type(value))] = f'      <data key="{_attr(str(name))}"'
            if isinstance(value, str):
                text = value
            elif isinstance(value, containers):
                text = to_json(sorted(value) if isinstance(value, set) else value)
            else:
                text = str(value)
            if "&" in text or "<" in text or ">" in text:
                text = _text(text)
            data.append(f"{opening}>{text}</data>\n" if text else f"{opening} />\n")
        if not data:
            return f"    <{open_tag} />\n"
        return f"    <{open_tag}>\n{''.join(data)}    </{close_tag}>\n"

    pieces: list[str] = []
    node_attrs = G._node
    tags: dict[Any, str] = {}  # (name, Python type) -> the opening tag of its data, per scope
    for node in nodes:
        pieces.append(
            element(f'node id="{_attr(str(node))}"', "node", node_attrs[node], tags, "node")
        )
        if len(pieces) >= 512:
            yield "".join(pieces)
            pieces.clear()
    adjacency = G._succ
    tags = {}
    for u in sources:  # G.edges(keys=True, data=True)'s order
        for v, keyed in adjacency[u].items():
            for key, attrs in keyed.items():
                pieces.append(
                    element(
                        f'edge source="{_attr(str(u))}" target="{_attr(str(v))}" id="{_attr(str(key))}"',
                        "edge",
                        attrs,
                        tags,
                        "edge",
                    )
                )
        if len(pieces) >= 512:
            yield "".join(pieces)
            pieces.clear()
    yield "".join(pieces)


def graphml_parts(
    graph: KnowledgeGraph | nx.MultiDiGraph, shares: list[tuple[float, float]]
) -> list[tuple[list[Any], list[Any]]]:
    """For each ``(start, stop)`` of consecutive ``shares`` of the work (fractions from 0 to 1),
    the nodes whose elements and the nodes whose out-edges' elements it writes: the file's node
    elements then its edge elements (by source), a node's element counting as much as two edges'
    (measured at 20,000 papers). Made once, before the processes that write the parts start."""
    G = as_nx(graph, ExportError)
    nodes = list(G._node)
    adjacency = G._succ
    weights = [2] * len(nodes) + [sum(map(len, adjacency[u].values())) for u in nodes]
    starts = list(accumulate(weights, initial=0))[:-1]  # where each element's work begins
    total = sum(weights)
    n = len(nodes)
    parts = []
    for start, stop in shares:
        if not 0.0 <= start <= stop <= 1.0:
            raise ValueError(f"share {(start, stop)} is not a stretch of [0, 1]")
        lo = bisect_left(starts, total * start) if start > 0.0 else 0
        hi = bisect_left(starts, total * stop) if stop < 1.0 else len(starts)
        parts.append((nodes[min(lo, n) : min(hi, n)], nodes[max(lo - n, 0) : max(hi - n, 0)]))
    return parts


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
