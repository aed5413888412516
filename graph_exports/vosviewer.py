"""VOSviewer map and network JSON: the entities as items, co-occurrence in papers as links.

The format is VOSviewer's JSON file type (https://app.vosviewer.com/docs/file-types/json-file-type):
``{"network": {"items": [...], "links": [...]}, "config": {...}}``. Each item has ``id``, ``label``,
``cluster`` (the Louvain community of the co-occurrence network, from 1), ``description``,
``weights`` (``Occurrences``: papers naming the entity; ``Links`` and ``Total link strength``, as
VOSviewer computes them) and ``scores`` (``Avg. pub. year``: the mean year of its papers, for the
overlay visualisation, when papers have years). A link's ``strength`` is the number of papers that
name both entities. Items are the ``max_items`` best-supported entities with at least
``min_support`` papers, so a large corpus still gives a map VOSviewer can draw.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import networkx as nx

from kg.atomic import AtomicFiles, write_text
from kg.graph import KnowledgeGraph

__all__ = ["to_vosviewer", "write_vosviewer"]

PAPER_EDGE_TYPES = ("PROPOSES", "USES", "EVALUATES_ON", "ADDRESSES", "REPORTS")
ENTITY_KINDS = ("Method", "Dataset", "Task", "Metric")


def to_vosviewer(
    graph: KnowledgeGraph | nx.MultiDiGraph,
    *,
    min_support: int = 2,
    max_items: int = 1000,
    labels: tuple[str, ...] = ENTITY_KINDS,
    seed: int = 0,
) -> dict[str, Any]:
    """The VOSviewer JSON document of ``graph``'s entity co-occurrence network."""
    G = graph.nx if isinstance(graph, KnowledgeGraph) else graph
    papers_of: dict[str, set[str]] = {}
    for paper, d in G.nodes(data=True):
        if d.get("label") != "Paper":
            continue
        for _, e, key in G.out_edges(paper, keys=True):
            if key in PAPER_EDGE_TYPES and G.nodes[e].get("label") in labels:
                papers_of.setdefault(e, set()).add(paper)
    ranked = sorted(
        (e for e, ps in papers_of.items() if len(ps) >= min_support),
        key=lambda e: (-len(papers_of[e]), e),
    )[:max_items]
    pairs: Counter[tuple[str, str]] = Counter()
    per_paper: dict[str, list[str]] = {}
    for e in ranked:
        for p in papers_of[e]:
            per_paper.setdefault(p, []).append(e)
    for ents in per_paper.values():
        for a, b in combinations(sorted(ents), 2):
            pairs[(a, b)] += 1
    co = nx.Graph()
    co.add_nodes_from(ranked)
    co.add_weighted_edges_from((a, b, w) for (a, b), w in pairs.items())
    communities = (
        sorted(
            nx.community.louvain_communities(co, weight="weight", seed=seed),
            key=lambda c: (-len(c), min(c)),
        )
        if co.number_of_nodes()
        else []
    )
    cluster = {e: i + 1 for i, c in enumerate(communities) for e in c}
    ids = {e: i + 1 for i, e in enumerate(ranked)}
    items = []
    for e in ranked:
        d = G.nodes[e]
        years = [
            G.nodes[p]["year"] for p in papers_of[e] if isinstance(G.nodes[p].get("year"), int)
        ]
        item: dict[str, Any] = {
            "id": ids[e],
            "label": str(d.get("name", e)),
            "cluster": cluster.get(e, 1),
            "description": f"{d.get('label')} · {e}",
            "weights": {
                "Occurrences": len(papers_of[e]),
                "Links": co.degree(e),
                "Total link strength": int(co.degree(e, weight="weight")),
            },
        }
        if years:
            item["scores"] = {"Avg. pub. year": round(sum(years) / len(years), 2)}
        items.append(item)
    links = [
        {"source_id": ids[a], "target_id": ids[b], "strength": w}
        for (a, b), w in sorted(pairs.items())
    ]
    return {
        "network": {"items": items, "links": links},
        "config": {
            "terminology": {
                "item": "entity",
                "items": "entities",
                "link": "co-occurrence link",
                "links": "co-occurrence links",
                "link_strength": "papers naming both",
                "total_link_strength": "total papers shared",
            }
        },
    }


def write_vosviewer(
    graph: KnowledgeGraph | nx.MultiDiGraph,
    path: str | Path,
    *,
    files: AtomicFiles | None = None,
    **options: Any,
) -> Path:
    """Write :func:`to_vosviewer` as JSON, whole or not at all."""
    return write_text(
        Path(path), json.dumps(to_vosviewer(graph, **options), ensure_ascii=False), files=files
    )
