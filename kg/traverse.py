"""Traversal of a kg graph: plain functions ``f(G, node, *, options)`` returning plain data.

``G`` is the ``networkx.MultiDiGraph`` of :mod:`kg.graph`. Node arguments are node ids; use
:func:`find` to turn a name or alias into one.

Examples
--------
>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("paper:a", label="Paper", name="A")
>>> G.add_node("paper:b", label="Paper", name="B")
>>> G.add_node("dataset:imagenet", label="Dataset", name="ImageNet", aliases=["ImageNet", "ILSVRC"], support=2)
>>> _ = G.add_edge("paper:a", "dataset:imagenet", key="EVALUATES_ON", type="EVALUATES_ON")
>>> _ = G.add_edge("paper:b", "dataset:imagenet", key="EVALUATES_ON", type="EVALUATES_ON")
>>> find(G, "ILSVRC")
'dataset:imagenet'
>>> papers_with(G, "dataset:imagenet")
['paper:a', 'paper:b']
>>> path(G, "paper:a", "paper:b")
['paper:a', 'dataset:imagenet', 'paper:b']
"""

from __future__ import annotations

import networkx as nx

from .errors import NodeNotFound
from .resolve import canonical_key
from .schema import ENTITY_NODE_LABELS, paper_node_id

__all__ = [
    "find",
    "matches",
    "nodes_with_label",
    "entities",
    "papers_with",
    "entities_of",
    "related_papers",
    "path",
    "ego",
    "top",
]


def _check(G: nx.MultiDiGraph, node: str) -> None:
    if node not in G:
        raise NodeNotFound(f"node {node!r} is not in the graph")


def find(G: nx.MultiDiGraph, name: str, *, label: str | None = None) -> str:
    """The node id for an id, a name or an alias (case, plural and dashes ignored).

    Raises
    ------
    NodeNotFound
        No node has that id, name or alias (with ``label``, none of that label).
    """
    label = _node_label(label)
    if name in G and (label is None or G.nodes[name].get("label") == label):
        return name
    if label == "Paper" and paper_node_id(name) in G:
        return paper_node_id(name)
    found = matches(G, name, label=label)
    if not found:
        where = f" with label {label}" if label else ""
        raise NodeNotFound(
            f"no node{where} named {name!r}; try `kg stats` or KnowledgeGraph.top() for names"
        )
    return max(found, key=lambda n: (G.nodes[n].get("support", 0), n))


def matches(G: nx.MultiDiGraph, name: str, *, label: str | None = None) -> list[str]:
    """Every node whose name, title, alias or key is ``name`` (case, plural and dashes ignored),
    sorted: the one lookup behind :func:`find` and the page's ``--focus``."""
    label = _node_label(label)
    key = canonical_key(name)
    out = []
    for node, data in G.nodes(data=True):
        if label is not None and data.get("label") != label:
            continue
        names = [data.get("name", ""), data.get("title") or "", *data.get("aliases", [])]
        if data.get("key") == key or any(n and canonical_key(n) == key for n in names):
            out.append(node)
    return sorted(out)


def _node_label(label: str | None) -> str | None:
    if label is None:
        return None
    for known in ("Paper", *ENTITY_NODE_LABELS):
        if label.lower() == known.lower():
            return known
    raise ValueError(
        f"label not supported: {label!r}; use one of Paper, {', '.join(ENTITY_NODE_LABELS)}"
    )


def nodes_with_label(G: nx.MultiDiGraph, label: str) -> list[str]:
    """Node ids with ``label``, sorted."""
    wanted = _node_label(label)
    return sorted(n for n, d in G.nodes(data=True) if d.get("label") == wanted)


def entities(G: nx.MultiDiGraph, *, label: str | None = None) -> list[str]:
    """Entity node ids (of one label, or all), sorted."""
    labels = (_node_label(label),) if label else ENTITY_NODE_LABELS
    return sorted(n for n, d in G.nodes(data=True) if d.get("label") in labels)


def papers_with(G: nx.MultiDiGraph, entity: str) -> list[str]:
    """Papers linked to ``entity`` by any paper -> entity edge, sorted."""
    _check(G, entity)
    return sorted({u for u, _ in G.in_edges(entity) if G.nodes[u].get("label") == "Paper"})


def entities_of(G: nx.MultiDiGraph, paper: str, *, label: str | None = None) -> list[str]:
    """Entities a paper is linked to (optionally of one label), sorted."""
    _check(G, paper)
    wanted = (_node_label(label),) if label else ENTITY_NODE_LABELS
    return sorted(
        {
            v
            for _, v, k in G.out_edges(paper, keys=True)
            if k != "RELATED_TO" and G.nodes[v].get("label") in wanted
        }
    )


def related_papers(
    G: nx.MultiDiGraph, paper: str, *, k: int = 5
) -> list[tuple[str, float, list[str]]]:
    """The ``k`` papers most related to ``paper``: ``(paper id, weight, shared entity ids)``,
    strongest first."""
    _check(G, paper)
    found = []
    for u, v, key, data in [
        *G.out_edges(paper, keys=True, data=True),
        *G.in_edges(paper, keys=True, data=True),
    ]:
        if key == "RELATED_TO":
            other = v if u == paper else u
            found.append((other, float(data.get("weight", 0.0)), list(data.get("shared", []))))
    return sorted(found, key=lambda t: (-t[1], t[0]))[:k]


def path(G: nx.MultiDiGraph, source: str, target: str, *, via_related: bool = False) -> list[str]:
    """A shortest path between two nodes, following edges in either direction.

    ``RELATED_TO`` edges are skipped unless ``via_related``, so the path shows the entities that
    connect two papers. Raises ``networkx.NetworkXNoPath`` when none exists.
    """
    _check(G, source)
    _check(G, target)
    view = G if via_related else nx.subgraph_view(G, filter_edge=lambda u, v, k: k != "RELATED_TO")
    return nx.shortest_path(view.to_undirected(as_view=True), source, target)


def ego(G: nx.MultiDiGraph, node: str, *, radius: int = 1) -> nx.MultiDiGraph:
    """A copy of the subgraph within ``radius`` hops of ``node`` (edges in either direction)."""
    _check(G, node)
    return nx.ego_graph(G, node, radius=radius, undirected=True).copy()


def top(G: nx.MultiDiGraph, label: str, *, n: int = 20) -> list[tuple[str, int]]:
    """The ``n`` entities of ``label`` with the most supporting papers: ``(entity id, support)``.
    Ties go to the entity mentioned most often, then to the id."""
    wanted = _node_label(label)
    ranked = sorted(
        (
            (node, int(d.get("support", 0)), int(d.get("mention_count", 0)))
            for node, d in G.nodes(data=True)
            if d.get("label") == wanted
        ),
        key=lambda t: (-t[1], -t[2], t[0]),
    )
    return [(node, support) for node, support, _count in ranked[:n]]
