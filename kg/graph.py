"""The knowledge graph: DESIGN.md's schema in a ``networkx.MultiDiGraph``.

Node ids: ``paper:<paper id>`` for papers, ``<label>:<canonical key>`` for entities
(``method:large language model``). Every node has ``label`` (Paper, Method, Dataset, Task, Metric)
and ``name``. Paper nodes add ``title`` (when given), ``title_derived``, ``abstract``, ``year``,
``venue``, ``authors``, ``keywords``, ``source`` and ``mentions`` ([start, end, label, entity id]
into the abstract). Entity nodes add ``aliases``, ``key``, ``support`` (papers) and
``mention_count``.

Edges are keyed by their type, so a paper has one ``USES`` edge per method however often it names
it. Paper -> entity edges carry ``role``, ``count``, ``weight`` and ``evidence`` (sentence, char
offsets, text, extractor, score, paper id). ``RELATED_TO`` (paper -> paper, smaller id first)
carries ``weight`` (cosine of the papers' IDF-weighted entity sets) and ``shared`` (entity ids,
rarest first). Entity -> entity edges (``USED_FOR``, ``EVALUATES``, ``EVALUATED_ON``, ``IS_A``,
``PART_OF``, ``COMPARED_WITH``) carry ``papers``, ``support``, ``count`` and ``evidence``.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import networkx as nx

from . import traverse
from .errors import GraphError
from .model import LABEL_TO_NODE, NODE_LABELS, PAPER_EDGE_FOR_LABEL, Paper, Relation
from .resolve import Resolution

__all__ = ["SCHEMA_VERSION", "KnowledgeGraph", "paper_node_id", "build_graph", "related_edges"]

SCHEMA_VERSION = 1
MAX_EVIDENCE = 5


def paper_node_id(paper_id: str) -> str:
    """Node id of a paper: ``paper:<id>``."""
    return f"paper:{paper_id}"


def build_graph(papers: Iterable[Paper], resolution: Resolution, relations: Iterable[Relation] = (), *,
                related_k: int = 10, max_df: float = 0.2, min_df_for_related: int = 2) -> nx.MultiDiGraph:
    """Assemble papers and resolved entities into the schema's graph.

    Args:
        papers: every paper of the corpus (papers without mentions become lone nodes).
        resolution: entities and each mention's entity, from :func:`kg.resolve.resolve`.
        relations: entity-level relations (:func:`kg.resolve.resolve_relations`); one edge per
            (source, type, target) with the supporting papers, their count and evidence sentences.
        related_k: keep each paper's ``related_k`` strongest ``RELATED_TO`` neighbours.
        max_df: entities in more than this share of papers (and more than 50) add nothing to
            ``RELATED_TO``: "deep learning" says little about how two papers relate.
        min_df_for_related: entities must be shared by at least this many papers to count.
    """
    G = nx.MultiDiGraph(kg_schema=SCHEMA_VERSION)
    by_paper: dict[str, list] = defaultdict(list)
    for mention, eid in resolution.assignments:
        by_paper[mention.paper_id].append((mention, eid))
    for entity in sorted(resolution.entities.values(), key=lambda e: e.id):
        G.add_node(entity.id, label=LABEL_TO_NODE[entity.label], name=entity.name, key=entity.key,
                   aliases=sorted(entity.aliases), support=entity.support, mention_count=entity.mention_count)
    for paper in papers:
        pid = paper_node_id(paper.id)
        pairs = sorted(by_paper.get(paper.id, []), key=lambda p: p[0].start)
        attrs: dict[str, Any] = {
            "label": "Paper", "name": paper.label, "title_derived": paper.title_derived,
            "abstract": paper.abstract, "authors": list(paper.authors), "keywords": list(paper.keywords),
            "source": paper.source, "mentions": [[m.start, m.end, m.label, eid] for m, eid in pairs],
        }
        for optional in ("title", "year", "venue"):
            value = getattr(paper, optional)
            if value is not None:
                attrs[optional] = value
        G.add_node(pid, **attrs)
        _add_paper_edges(G, pid, paper.id, pairs, resolution)
    _add_relation_edges(G, relations)
    for a, b, weight, shared in related_edges(G, k=related_k, max_df=max_df, min_df=min_df_for_related):
        G.add_edge(a, b, key="RELATED_TO", type="RELATED_TO", weight=weight, shared=shared)
    return G


def _add_paper_edges(G: nx.MultiDiGraph, pid: str, paper_id: str, pairs: list, resolution: Resolution) -> None:
    """One edge per (paper, entity), typed by the entity's label; methods the paper introduces
    get ``PROPOSES``, and every edge keeps up to ``MAX_EVIDENCE`` sentences."""
    grouped: dict[str, list] = defaultdict(list)
    for mention, eid in pairs:
        grouped[eid].append(mention)
    for eid, mentions in grouped.items():
        label = resolution.entities[eid].label
        is_proposed = (paper_id, eid) in resolution.proposed
        rel = "PROPOSES" if is_proposed and label == "METHOD" else PAPER_EDGE_FOR_LABEL[label]
        evidence = [
            {"sentence": m.sentence, "start": m.start, "end": m.end, "text": m.text,
             "extractor": m.extractor, "score": round(m.score, 4), "paper_id": paper_id}
            for m in mentions[:MAX_EVIDENCE]
        ]
        G.add_edge(pid, eid, key=rel, type=rel, role="proposed" if is_proposed else "used",
                   count=len(mentions), weight=round(max(m.score for m in mentions), 4), evidence=evidence)


def _add_relation_edges(G: nx.MultiDiGraph, relations: Iterable[Relation]) -> None:
    grouped: dict[tuple[str, str, str], list[Relation]] = defaultdict(list)
    for r in relations:
        grouped[(r.source, r.target, r.type)].append(r)
    for (source, target, rel_type), found in sorted(grouped.items()):
        papers = sorted({r.paper_id for r in found})
        evidence = [{"sentence": r.sentence, "paper_id": r.paper_id, "extractor": r.extractor,
                     "score": round(r.score, 4)} for r in found[:MAX_EVIDENCE]]
        G.add_edge(source, target, key=rel_type, type=rel_type, papers=papers, support=len(papers),
                   count=len(found), weight=round(max(r.score for r in found), 4), evidence=evidence)


def related_edges(G: nx.MultiDiGraph, *, k: int = 10, max_df: float = 0.2,
                  min_df: int = 2) -> list[tuple[str, str, float, list[str]]]:
    """``(paper a, paper b, weight, shared entity ids)`` for each paper's ``k`` strongest neighbours.

    The weight is the cosine between the two papers' entity sets, each entity weighted by its IDF,
    so sharing a rare dataset counts for far more than sharing "large language model".
    """
    papers = [n for n, d in G.nodes(data=True) if d.get("label") == "Paper"]
    n_papers = len(papers)
    if n_papers < 2:
        return []
    entity_papers: dict[str, set[str]] = defaultdict(set)
    for pid in papers:
        for _, eid, rel in G.out_edges(pid, keys=True):
            if rel != "RELATED_TO":
                entity_papers[eid].add(pid)
    df_cap = max(50, int(max_df * n_papers))
    idf = {eid: math.log(n_papers / len(ps)) + 1.0 for eid, ps in entity_papers.items()}
    norms: Counter[str] = Counter()
    for eid, ps in entity_papers.items():
        for pid in ps:
            norms[pid] += idf[eid] ** 2
    scores: dict[tuple[str, str], float] = defaultdict(float)
    shared: dict[tuple[str, str], list[str]] = defaultdict(list)
    for eid in sorted(entity_papers, key=lambda e: -idf[e]):
        ps = sorted(entity_papers[eid])
        if not min_df <= len(ps) <= df_cap:
            continue
        w = idf[eid] ** 2
        for i, a in enumerate(ps):
            for b in ps[i + 1:]:
                scores[(a, b)] += w
                shared[(a, b)].append(eid)
    best: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    for (a, b), s in scores.items():
        weight = s / math.sqrt(norms[a] * norms[b])
        best[a].append((weight, a, b))
        best[b].append((weight, a, b))
    keep: set[tuple[str, str]] = set()
    weights: dict[tuple[str, str], float] = {}
    for pid, items in best.items():
        for weight, a, b in sorted(items, key=lambda t: (-t[0], t[1], t[2]))[:k]:
            keep.add((a, b))
            weights[(a, b)] = weight
    return [(a, b, round(weights[(a, b)], 6), shared[(a, b)]) for a, b in sorted(keep)]


class KnowledgeGraph:
    """A kg graph with its traversal API; ``.nx`` is the underlying ``networkx.MultiDiGraph``.

    Methods take node ids or names/aliases (``"LLMs"`` finds ``method:large language model``).
    """

    def __init__(self, graph: nx.MultiDiGraph | None = None):
        self.nx: nx.MultiDiGraph = graph if graph is not None else nx.MultiDiGraph(kg_schema=SCHEMA_VERSION)

    # -- files -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Node-link data (networkx's format, edges under ``links``), ready for ``json.dump``."""
        return nx.node_link_data(self.nx, edges="links")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnowledgeGraph:
        """Inverse of :meth:`to_dict`."""
        try:
            graph = nx.node_link_graph(data, directed=True, multigraph=True, edges="links")
        except (KeyError, TypeError, nx.NetworkXError) as exc:
            raise GraphError(f"not node-link graph data: {exc}") from exc
        return cls(nx.MultiDiGraph(graph))

    def save(self, path: str | Path) -> Path:
        """Write node-link JSON; :meth:`load` reads it back to an equal graph."""
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8") as handle:
                json.dump(self.to_dict(), handle, ensure_ascii=False)
        except OSError as exc:
            raise GraphError(f"{path}: cannot write graph ({exc.strerror or exc})") from exc
        return path

    @classmethod
    def load(cls, path: str | Path) -> KnowledgeGraph:
        """Read a graph written by :meth:`save` (or ``kg build``'s ``graph.json``)."""
        path = Path(path)
        try:
            with path.open(encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            raise GraphError(f"{path}: no such graph file; build one with `kg build INPUT -o OUTDIR`") from None
        except json.JSONDecodeError as exc:
            raise GraphError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from exc
        except OSError as exc:
            raise GraphError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        if not isinstance(data, dict) or "nodes" not in data:
            raise GraphError(f"{path}: not a kg graph (no 'nodes'); expected kg build's graph.json")
        return cls.from_dict(data)

    # -- counts ----------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Counts: nodes per label, edges per type, mentions."""
        nodes = Counter(d.get("label", "?") for _, d in self.nx.nodes(data=True))
        edges = Counter(k for _, _, k in self.nx.edges(keys=True))
        mentions = sum(len(d.get("mentions", [])) for _, d in self.nx.nodes(data=True) if d.get("label") == "Paper")
        return {
            "papers": nodes.get("Paper", 0),
            "mentions": mentions,
            "entities": {label: nodes.get(label, 0) for label in NODE_LABELS if label != "Paper"},
            "edges": dict(sorted(edges.items())),
            "nodes_total": self.nx.number_of_nodes(),
            "edges_total": self.nx.number_of_edges(),
        }

    # -- traversal (thin wrappers over kg.traverse) -----------------------------------------
    def find(self, name: str, label: str | None = None) -> str:
        return traverse.find(self.nx, name, label=label)

    def papers(self) -> list[str]:
        return traverse.nodes_with_label(self.nx, "Paper")

    def entities(self, label: str | None = None) -> list[str]:
        return traverse.entities(self.nx, label=label)

    def papers_with(self, label: str, name: str) -> list[str]:
        return traverse.papers_with(self.nx, self.find(name, label=label))

    def entities_of(self, paper: str, label: str | None = None) -> list[str]:
        return traverse.entities_of(self.nx, self.find(paper, label="Paper"), label=label)

    def related_papers(self, paper: str, k: int = 5) -> list[tuple[str, float, list[str]]]:
        return traverse.related_papers(self.nx, self.find(paper, label="Paper"), k=k)

    def path(self, a: str, b: str) -> list[str]:
        return traverse.path(self.nx, self.find(a), self.find(b))

    def ego(self, node: str, radius: int = 1) -> KnowledgeGraph:
        return KnowledgeGraph(traverse.ego(self.nx, self.find(node), radius=radius))

    def top(self, label: str, n: int = 20) -> list[tuple[str, int]]:
        return traverse.top(self.nx, label, n=n)

    def __contains__(self, node: str) -> bool:
        return node in self.nx

    def __len__(self) -> int:
        return self.nx.number_of_nodes()

    def __repr__(self) -> str:
        s = self.stats()
        return f"KnowledgeGraph(papers={s['papers']}, entities={sum(s['entities'].values())}, edges={s['edges_total']})"
