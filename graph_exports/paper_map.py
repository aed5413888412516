"""The paper map: one origin paper and the papers most related to it, and why.

``paper_map(G, paper, size=30)`` ranks the papers around ``paper``: first its ``RELATED_TO``
neighbours (strongest first), then, if fewer than ``size``, their own ``RELATED_TO`` neighbours
(second order, scored by the product of the two weights on the best path). Each related paper
comes with what it shares with the origin: the entities both link to, and for first-order
neighbours the words ``RELATED_TO`` weighed.

The page (``assets/kg_page.js``, ``paperMap``) ranks the same way from the data it holds, so the
map of ``kg html GRAPH --paper ID`` and "map around this paper" in any page agree.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> for p in "abcd":
...     G.add_node(f"paper:{p}", label="Paper", name=p.upper())
>>> G.add_node("dataset:x", label="Dataset", name="X")
>>> _ = G.add_edge("paper:a", "dataset:x", key="EVALUATES_ON")
>>> _ = G.add_edge("paper:b", "dataset:x", key="EVALUATES_ON")
>>> _ = G.add_edge("paper:a", "paper:b", key="RELATED_TO", weight=0.5, shared=["dataset:x"])
>>> _ = G.add_edge("paper:b", "paper:c", key="RELATED_TO", weight=0.4, shared=[])
>>> [(r.paper, r.order, round(r.score, 2), r.via, r.shared) for r in paper_map(G, "paper:a")]
[('paper:b', 1, 0.5, None, ['dataset:x']), ('paper:c', 2, 0.2, 'paper:b', [])]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from kg import traverse
from kg.errors import ExportError, NodeNotFound

__all__ = ["MAP_SIZE", "MAX_MAP_SIZE", "Related", "find_paper", "paper_map"]

#: Papers around the origin on a map, by default and at most.
MAP_SIZE = 30
MAX_MAP_SIZE = 50


@dataclass(frozen=True)
class Related:
    """One paper on the map of an origin paper.

    Attributes:
        paper: the related paper's node id.
        score: the RELATED_TO weight (first order) or the product of the two weights (second).
        order: 1 for a RELATED_TO neighbour of the origin, 2 for a neighbour of one.
        via: for second order, the first-order paper on the best path; else ``None``.
        shared: entity ids both papers link to, sorted.
        terms: for first order, the words RELATED_TO weighed (``shared_terms``); else empty.
    """

    paper: str
    score: float
    order: int
    via: str | None = None
    shared: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)


def find_paper(G: nx.MultiDiGraph, name: str) -> str:
    """The paper node an id (with or without ``paper:``), title or name refers to.

    Raises:
        NodeNotFound: no paper has that id, title or name.
    """
    try:
        return traverse.find(G, name, label="Paper")
    except NodeNotFound:
        raise NodeNotFound(f"--paper {name!r}: no paper has this id, title or name") from None


def _related(G: nx.MultiDiGraph, paper: str) -> dict[str, tuple[float, dict]]:
    """RELATED_TO neighbours of ``paper``: id -> (weight, edge data)."""
    out: dict[str, tuple[float, dict]] = {}
    for u, v, key, data in (
        *G.out_edges(paper, keys=True, data=True),
        *G.in_edges(paper, keys=True, data=True),
    ):
        if key != "RELATED_TO" and data.get("type") != "RELATED_TO":
            continue
        other = v if u == paper else u
        if other == paper:
            continue
        w = float(data.get("weight") or 0.0)
        if other not in out or w > out[other][0]:
            out[other] = (w, data)
    return out


def _entities(G: nx.MultiDiGraph, paper: str) -> set[str]:
    return {
        v
        for _u, v, k in G.out_edges(paper, keys=True)
        if k != "RELATED_TO" and G.nodes[v].get("label") != "Paper"
    }


def paper_map(G: nx.MultiDiGraph, paper: str, *, size: int = MAP_SIZE) -> list[Related]:
    """The ``size`` papers most related to ``paper``, first order before second, each strongest
    first (ties by id). See the module docstring.

    Raises:
        ExportError: ``size`` is not between 1 and ``MAX_MAP_SIZE``.
        NodeNotFound: ``paper`` is not a paper of ``G``.
    """
    if not 1 <= size <= MAX_MAP_SIZE:
        raise ExportError(f"a paper map holds 1 to {MAX_MAP_SIZE} papers, not {size}")
    if paper not in G or G.nodes[paper].get("label") != "Paper":
        raise NodeNotFound(f"{paper!r} is not a paper of this graph")
    first = _related(G, paper)
    ranked = sorted(first.items(), key=lambda item: (-item[1][0], item[0]))[:size]
    out = []
    mine = _entities(G, paper)
    for other, (w, data) in ranked:
        shared = sorted({str(s) for s in data.get("shared") or ()} | (mine & _entities(G, other)))
        out.append(
            Related(other, w, 1, None, shared, [str(t) for t in data.get("shared_terms") or ()])
        )
    if len(out) < size:
        second: dict[str, tuple[float, str]] = {}
        for n, (w1, _data) in first.items():
            for p, (w2, _d2) in _related(G, n).items():
                if p == paper or p in first:
                    continue
                score = w1 * w2
                best = second.get(p)
                if best is None or score > best[0] or (score == best[0] and n < best[1]):
                    second[p] = (score, n)
        for other, (score, via) in sorted(second.items(), key=lambda item: (-item[1][0], item[0]))[
            : size - len(out)
        ]:
            out.append(Related(other, score, 2, via, sorted(mine & _entities(G, other)), []))
    return out
