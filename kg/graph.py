"""The knowledge graph: the schema of :mod:`kg.schema` in a ``networkx.MultiDiGraph``.

Node ids: ``paper:<paper id>`` for papers, ``<label>:<canonical key>`` for entities
(``method:large language model``). Every node has ``label`` (Paper, Method, Dataset, Task, Metric)
and ``name``. Paper nodes add ``title`` (when given), ``title_derived``, ``abstract``, ``year``,
``venue``, ``authors``, ``keywords``, ``source`` and ``mentions`` ([start, end, label, entity id]
into the abstract). Entity nodes add ``aliases``, ``key``, ``support`` (papers) and
``mention_count``.

Edges are keyed by their type, so a paper has one ``USES`` edge per method however often it names
it. Paper -> entity edges carry ``role``, ``count``, ``weight`` and ``evidence`` (sentence, char
offsets, text, extractor, score, paper id). ``RELATED_TO`` (paper -> paper, smaller id first)
carries ``weight`` (cosine of the papers' IDF-weighted entities and terms), ``shared`` (entity ids,
rarest first) and ``shared_terms`` (the words and keywords that add most to the weight).
``Result`` nodes (``result:<paper id>:<n>``, see :mod:`kg.results`) hang off their paper by
``REPORTS_RESULT`` and link to entities by ``ON``, ``MEASURED_BY`` and ``OF``. Entity -> entity edges (``USED_FOR``, ``EVALUATES``, ``EVALUATED_ON``, ``IS_A``,
``PART_OF``, ``COMPARED_WITH``) carry ``papers``, ``support``, ``count`` and ``evidence``.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import networkx as nx

from . import traverse
from .atomic import AtomicFiles, atomic_open
from .errors import GraphError
from .fastjson import JSONDecodeError, dumps, loads
from .forked import fork_map, split
from .model import NumberPool, Paper, Relation
from .resolve import Resolution
from .schema import (
    ENTITY_NODE_LABELS,
    LABEL_TO_NODE,
    PAPER_EDGE_FOR_LABEL,
    RESULT_LABEL,
    paper_node_id,
)

__all__ = [
    "SCHEMA_VERSION",
    "KnowledgeGraph",
    "paper_node_id",
    "build_graph",
    "add_related_edges",
    "related_edges",
    "iter_related_edges",
    "paper_terms",
    "TermTable",
    "term_table",
]

SCHEMA_VERSION = 1
#: What a command that reads a graph was given instead, and what to do.
_GRAPH_HINT = (
    "expected the graph.json that kg build writes; a corpus file is an input of "
    "`kg build INPUT -o OUTDIR`, which writes OUTDIR/graph.json"
)
MAX_EVIDENCE = 5


def build_graph(
    papers: Iterable[Paper],
    resolution: Resolution,
    relations: Iterable[Relation] = (),
    *,
    related_k: int = 10,
    related_terms: bool = True,
) -> nx.MultiDiGraph:
    """Assemble papers and resolved entities into the schema's graph.

    Args:
        papers: every paper of the corpus (papers without mentions become lone nodes).
        resolution: entities and each mention's entity, from :func:`kg.resolve.resolve`.
        relations: entity-level relations (:func:`kg.resolve.resolve_relations`); one edge per
            (source, type, target) with the supporting papers, their count and evidence sentences.
        related_k: keep each paper's ``related_k`` strongest ``RELATED_TO`` neighbours.
        related_terms: compare the papers' words and keywords too, not only their entities
            (see :func:`related_edges`).
    """
    G = nx.MultiDiGraph(kg_schema=SCHEMA_VERSION)
    # the resolution's own (mention, entity) tuples, not a second tuple per mention (about 40 MB
    # less held while the graph is built at 74,000 papers)
    by_paper: dict[str, list] = defaultdict(list)
    for pair in resolution.assignments:
        by_paper[pair[0].paper_id].append(pair)
    for entity in sorted(resolution.entities.values(), key=lambda e: e.id):
        G.add_node(
            entity.id,
            label=LABEL_TO_NODE[entity.label],
            name=entity.name,
            key=entity.key,
            aliases=sorted(entity.aliases),
            support=entity.support,
            mention_count=entity.mention_count,
        )
    numbers = NumberPool()
    for paper in papers:
        pid = paper_node_id(paper.id)
        pairs = sorted(by_paper.get(paper.id, ()), key=lambda p: p[0].start)
        attrs: dict[str, Any] = {
            "label": "Paper",
            "name": paper.label,
            "title_derived": paper.title_derived,
            "abstract": paper.abstract,
            "authors": list(paper.authors),
            "keywords": list(paper.keywords),
            "source": paper.source,
            "mentions": [[numbers(m.start), numbers(m.end), m.label, eid] for m, eid in pairs],
        }
        for optional in ("title", "year", "venue"):
            value = getattr(paper, optional)
            if value is not None:
                attrs[optional] = value
        G.add_node(pid, **attrs)
        _add_paper_edges(G, pid, paper.id, pairs, resolution, numbers)
    _add_relation_edges(G, relations)
    add_related_edges(G, k=related_k, terms=related_terms)
    return G


def add_related_edges(
    G: nx.MultiDiGraph,
    *,
    k: int = 10,
    terms: bool = True,
    processes: int = 1,
    table: TermTable | None = None,
) -> int:
    """Add each paper's ``k`` strongest ``RELATED_TO`` edges (:func:`related_edges`) to ``G``;
    returns how many were added. A separate step of :func:`build_graph` so that a build can free
    the resolution's mentions before it (``kg.build``); ``processes`` and ``table``: see
    :func:`iter_related_edges`."""
    added = 0
    related = iter_related_edges(G, k=k, terms=terms, processes=processes, table=table)
    for a, b, weight, shared, shared_terms in related:
        attrs = _RelatedEdge("RELATED_TO", weight, shared, shared_terms)
        _add_edge(G, a, b, "RELATED_TO", attrs.__dict__)
        added += 1
    nx._clear_cache(G)  # what networkx's add_edge does: drop backend conversions of the old graph
    return added


# The attributes of the graph's most numerous edges and evidence sentences are the ``__dict__``
# of an instance of one of these dataclasses: in CPython the dicts made by one class's ``__init__``
# share a single key table, about half the memory of a dict literal (a paper -> entity edge and its
# evidence: about 300 MB less at 80,000 papers). They are plain dicts to everything that reads them,
# their keys in field order.


@dataclass
class _PaperEdge:
    type: str
    role: str
    count: int
    weight: float
    evidence: list[dict[str, Any]]


@dataclass
class _Evidence:
    sentence: str
    start: int
    end: int
    text: str
    extractor: str
    score: float
    paper_id: str


@dataclass
class _RelatedEdge:
    type: str
    weight: float
    shared: list[str]
    shared_terms: list[str]


def _add_edge(G: nx.MultiDiGraph, u: str, v: str, key: str, attrs: dict[str, Any]) -> None:
    """``G.add_edge(u, v, key=key, **attrs)`` for two nodes already in ``G``, with ``attrs`` itself
    as the edge's dict (networkx would copy it into a new one) and without networkx's checks
    (about 2 of the graph's 7.5 s at 20,000 papers). A multigraph's key dict is shared by both
    ends' adjacency, as networkx's own ``add_edge`` makes it."""
    keys = G._succ[u].get(v)
    if keys is None:
        if v not in G._succ:
            raise KeyError(v)
        G._succ[u][v] = G._pred[v][u] = {key: attrs}
    else:
        keys[key] = attrs


def _add_paper_edges(
    G: nx.MultiDiGraph,
    pid: str,
    paper_id: str,
    pairs: list,
    resolution: Resolution,
    numbers: NumberPool,
) -> None:
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
            _Evidence(
                m.sentence,
                numbers(m.start),
                numbers(m.end),
                m.text,
                m.extractor,
                numbers(round(m.score, 4)),
                paper_id,
            ).__dict__
            for m in mentions[:MAX_EVIDENCE]
        ]
        attrs = _PaperEdge(
            rel,
            "proposed" if is_proposed else "used",
            len(mentions),
            numbers(round(max(m.score for m in mentions), 4)),
            evidence,
        )
        _add_edge(G, pid, eid, rel, attrs.__dict__)


def _add_relation_edges(G: nx.MultiDiGraph, relations: Iterable[Relation]) -> None:
    grouped: dict[tuple[str, str, str], list[Relation]] = defaultdict(list)
    for r in relations:
        grouped[(r.source, r.target, r.type)].append(r)
    for (source, target, rel_type), found in sorted(grouped.items()):
        papers = sorted({r.paper_id for r in found})
        evidence = [
            {
                "sentence": r.sentence,
                "paper_id": r.paper_id,
                "extractor": r.extractor,
                "score": round(r.score, 4),
            }
            for r in found[:MAX_EVIDENCE]
        ]
        # each paper's own count and best score, so that corpora merged later (Neo4j) add up per paper
        counts = [sum(1 for r in found if r.paper_id == p) for p in papers]
        weights = [round(max(r.score for r in found if r.paper_id == p), 4) for p in papers]
        G.add_edge(
            source,
            target,
            key=rel_type,
            type=rel_type,
            papers=papers,
            support=len(papers),
            count=len(found),
            weight=round(max(r.score for r in found), 4),
            evidence=evidence,
            paper_counts=counts,
            paper_weights=weights,
        )


#: A word of two or more characters; terms are the words that are not on spaCy's English stop list.
_TERM = re.compile(r"(?u)\b\w\w+\b")
MAX_SHARED_TERMS = 10


def paper_terms(attrs: dict[str, Any]) -> Counter[str]:
    """The words of a paper node's title, abstract and keywords (lowercased, stop words and bare
    numbers left out), and each keyword as one term: what ``RELATED_TO`` compares besides entities.

    >>> sorted(paper_terms({"title": "Tracking with GOT-10k", "keywords": ["visual tracking"]}).items())
    [('10k', 1), ('got', 1), ('tracking', 2), ('visual', 1), ('visual tracking', 1)]
    """
    from spacy.lang.en.stop_words import STOP_WORDS

    keywords = [str(k) for k in attrs.get("keywords") or []]
    # one pass over all the text (a newline joins no two words), then the stop words out of the
    # distinct words only
    text = "\n".join((attrs.get("title") or "", attrs.get("abstract") or "", *keywords))
    terms = Counter(_TERM.findall(text.lower()))
    for word in [w for w in terms if w in STOP_WORDS or w.isdigit()]:
        del terms[word]
    for keyword in keywords:
        key = " ".join(_TERM.findall(keyword.lower()))
        if " " in key:
            terms[key] += 1
    return terms


@dataclass
class TermTable:
    """Every paper's :func:`paper_terms` in one table, made ahead of the graph: ``kg.build``
    computes it in a forked child while resolution runs (it needs only the papers' text), and
    :func:`iter_related_edges` reads it instead of computing the terms itself."""

    papers: list[str]  #: paper node ids, sorted
    names: list[str]  #: the terms, numbered as first met
    ids: Any  #: int32: each paper's term numbers in turn, in paper_terms' order
    counts: Any  #: int32: their counts
    starts: Any  #: int64: where each paper's terms start in ``ids`` (and the end)


def term_table(papers: Iterable[tuple[str, dict[str, Any]]]) -> TermTable:
    """The :class:`TermTable` of ``(paper node id, attributes)`` pairs, sorted by id."""
    import numpy as np

    vocabulary: dict[str, int] = {}
    ids, counts, starts = array("i"), array("i"), [0]
    pids = []
    for pid, attrs in papers:
        terms = paper_terms(attrs)
        ids.extend([vocabulary.setdefault(t, len(vocabulary)) for t in terms])
        counts.extend(terms.values())
        starts.append(len(ids))
        pids.append(pid)
    return TermTable(
        pids,
        list(vocabulary),
        np.frombuffer(ids, dtype=np.int32),
        np.frombuffer(counts, dtype=np.int32),
        np.asarray(starts, dtype=np.int64),
    )


def related_edges(
    G: nx.MultiDiGraph,
    *,
    k: int = 10,
    max_postings: int = 500,
    min_df: int = 2,
    terms: bool = True,
    processes: int = 1,
) -> list[tuple[str, str, float, list[str], list[str]]]:
    """The edges of :func:`iter_related_edges`, as a list."""
    return list(
        iter_related_edges(
            G, k=k, max_postings=max_postings, min_df=min_df, terms=terms, processes=processes
        )
    )


def iter_related_edges(
    G: nx.MultiDiGraph,
    *,
    k: int = 10,
    max_postings: int = 500,
    min_df: int = 2,
    terms: bool = True,
    processes: int = 1,
    table: TermTable | None = None,
) -> Iterator[tuple[str, str, float, list[str], list[str]]]:
    """``(paper a, paper b, weight, shared entity ids, shared terms)`` for each paper's ``k``
    strongest neighbours (a < b; each pair once).

    Each paper is a vector over the entities it links to and (``terms``) the words of its title,
    abstract and keywords plus its keyword phrases (:func:`paper_terms`). A feature's weight is
    ``(1 + ln count) * idf`` with ``idf = ln((1 + n) / (1 + df)) + 1``, so sharing "deep learning"
    (in thousands of papers) counts for little and sharing "GOT-10k" for a lot; ``weight`` is the
    cosine of the two vectors. Features of one paper only are left out.

    Explainable: ``shared`` lists the entities both papers link to (rarest first), ``shared_terms``
    the ``MAX_SHARED_TERMS`` terms that add most to the weight.

    Sparse and linear in the papers: the papers' vectors are one ``scipy.sparse`` matrix. A paper's
    candidate neighbours come from its product with the other rows over the features in at most
    ``max_postings`` papers only, a block of rows at a time (a paper reaches at most
    ``f * max_postings`` others for ``f`` such features, never all n); each candidate pair's weight
    is then the exact cosine over every feature (:func:`_strongest`). On 5,358 ICLR 2026 papers,
    capping at 500 rather than 5,000 keeps the same share of same-area neighbours (0.420 vs 0.421,
    ``bench/related.py --max-postings``) at a fraction of the products.

    ``processes`` above 1: the features, the candidates, the weights and the explanations are each
    computed over that many slices of the papers (or pairs) at once, in forked children
    (:mod:`kg.forked`); every slice gives what it would give in one process, so the edges are the
    same. ``table``: the papers' terms made ahead (:func:`term_table`); used when it is of
    exactly the graph's papers.
    """
    import numpy as np

    papers = sorted(n for n, d in G.nodes(data=True) if d.get("label") == "Paper")
    n_papers = len(papers)
    if n_papers < 2 or k < 1:
        return
    if table is not None and (not terms or table.papers != papers):
        table = None
    slices = fork_map(
        lambda rows: _features(G, papers, rows, terms, table),
        split(n_papers, processes),
        processes=processes,
    )
    # each slice numbers its features as first met; the first slice's numbers stand and the
    # others' are renumbered in slice order, so they are numbered as first met over all papers
    names = slices[0][0]
    vocabulary = {f: i for i, f in enumerate(names)}
    columns, counts, lengths = [slices[0][1]], [slices[0][2]], [slices[0][3]]
    for more, cols, values, sizes in slices[1:]:
        renumber = np.fromiter(
            (vocabulary.setdefault(f, len(vocabulary)) for f in more), np.int32, len(more)
        )
        columns.append(renumber[cols])
        counts.append(values)
        lengths.append(sizes)
    del slices
    names = list(vocabulary)
    del vocabulary
    # one slice (one process): its arrays as they are, no copy (10 million entries at 80,000 papers)
    join = np.concatenate if len(columns) > 1 else (lambda parts: parts[0])
    X, df = _normalised_rows(join(columns), join(counts), join(lengths), len(names), min_df)
    del columns, counts
    followed = np.flatnonzero((df <= max_postings) & (df >= min_df))
    pairs = _strongest(X, followed, k, processes=processes)
    explained = _explained(X, pairs, names, df, papers, processes=processes)
    del X  # the explanations are made: the matrix is freed before any edge is added
    yield from explained


def _features(
    G: nx.MultiDiGraph, papers: list[str], rows: range, terms: bool, table: TermTable | None
) -> tuple[list[str], Any, Any, Any]:
    """The feature counts of the vectors of ``papers[rows]``: the features (entity ids, which
    always have a colon, and terms, which never do) numbered as first met, then each paper's
    feature numbers, counts and its number of features, as flat arrays (compact to send from a
    child). Terms from ``table`` when given (the same, in the same order)."""
    import numpy as np

    vocabulary: dict[str, int] = {}
    columns = array("i")  # flat machine integers: a Python list of ints costs 36 bytes an entry
    counts = array("i")
    lengths = np.zeros(len(rows), dtype=np.int64)
    if table is not None:
        lo, hi = int(table.starts[rows.start]), int(table.starts[rows.stop])
        term_names, starts = table.names, (table.starts[rows.start : rows.stop + 1] - lo).tolist()
        term_ids, term_counts = table.ids[lo:hi].tolist(), table.counts[lo:hi].tolist()
    for i, pid in enumerate(papers[rows.start : rows.stop]):
        feats: dict[str, int] = {}
        for eid, keyed in G.succ[pid].items():
            for rel, data in keyed.items():
                if rel != "RELATED_TO":
                    feats[eid] = feats.get(eid, 0) + int(data.get("count", 1) or 1)
        if table is not None:
            at, end = starts[i], starts[i + 1]
            feats.update(zip([term_names[t] for t in term_ids[at:end]], term_counts[at:end]))
        elif terms:
            feats.update(paper_terms(G.nodes[pid]))
        # a new feature's number is the vocabulary's size before setdefault adds it
        columns.extend([vocabulary.setdefault(f, len(vocabulary)) for f in feats])
        counts.extend(feats.values())
        lengths[i] = len(feats)
    return (
        list(vocabulary),
        np.frombuffer(columns, dtype=np.int32),
        np.frombuffer(counts, dtype=np.int32),
        lengths,
    )


#: Pairs weighed or explained at a time: the products of their two vectors are held at once
#: (20,000 held about 80 MB more at 20,000 papers than 5,000, for no gain in speed).
_EXPLAIN_CHUNK = 5_000


def _explained(
    X: Any, pairs: Any, features: list[str], df: Any, papers: list[str], *, processes: int = 1
) -> Iterator[tuple[str, str, float, list[str], list[str]]]:
    """Each pair with its explanation: the entities both papers have, rarest first (then by id),
    and the ``MAX_SHARED_TERMS`` terms whose product of weights is largest (then by the term).

    Vectorised: the features two papers share are the non-zeros of the elementwise product of
    their rows, taken for a chunk of pairs at once and ordered with one ``lexsort``; the chunks
    are shared among ``processes``, which send back only the arrays of feature numbers. Every
    chunk's arrays are made before this returns and the iterator it returns holds no reference
    to ``X``: a caller that drops its own has the matrix freed before the edges are added (about
    70 MB less at the peak of a 74,000-paper build).
    """
    import numpy as np

    is_entity = np.fromiter((":" in f for f in features), bool, len(features))
    # one global rank per ordering, so that sorting by it within a pair is a sort of numbers
    entity_ids = np.flatnonzero(is_entity).tolist()
    term_ids = np.flatnonzero(~is_entity).tolist()
    df_of = df.tolist()
    entity_rank = np.zeros(len(features), dtype=np.int64)
    entity_rank[sorted(entity_ids, key=lambda f: (df_of[f], features[f]))] = np.arange(
        len(entity_ids)
    )
    term_rank = np.zeros(len(features), dtype=np.int64)
    term_rank[sorted(term_ids, key=features.__getitem__)] = np.arange(len(term_ids))
    a_all, b_all, w_all = pairs

    def shared(lo: int) -> tuple[Any, Any, Any, Any]:
        """For the chunk of pairs from ``lo``: the shared entities and top terms of all its pairs
        (feature numbers, in order) and where each pair's start in them."""
        a, b = a_all[lo : lo + _EXPLAIN_CHUNK], b_all[lo : lo + _EXPLAIN_CHUNK]
        n = len(a)
        P = X[a].multiply(X[b]).tocsr()
        row = np.repeat(np.arange(n), np.diff(P.indptr))
        feat, product = P.indices, P.data
        del P
        ent = is_entity[feat]
        e_row, e_feat = row[ent], feat[ent]
        order = np.lexsort((entity_rank[e_feat], e_row))
        e_row, e_feat = e_row[order], e_feat[order]
        t_row, t_feat, t_product = row[~ent], feat[~ent], product[~ent]
        order = np.lexsort((term_rank[t_feat], -t_product, t_row))
        t_row, t_feat = t_row[order], t_feat[order]
        top = np.arange(len(t_row)) - np.searchsorted(t_row, t_row) < MAX_SHARED_TERMS
        t_row, t_feat = t_row[top], t_feat[top]
        bounds = np.arange(n + 1)
        return e_feat, np.searchsorted(e_row, bounds), t_feat, np.searchsorted(t_row, bounds)

    starts = range(0, len(a_all), _EXPLAIN_CHUNK)
    slices = [starts[s.start : s.stop] for s in split(len(starts), processes)]
    found = [
        chunk
        for piece in fork_map(lambda los: [shared(lo) for lo in los], slices, processes=processes)
        for chunk in piece
    ]
    return _named_pairs(found, pairs, features, papers)


def _named_pairs(
    found: list[tuple[Any, Any, Any, Any]], pairs: Any, features: list[str], papers: list[str]
) -> Iterator[tuple[str, str, float, list[str], list[str]]]:
    """The pairs of :func:`_explained` with the papers' ids and the features' names."""
    a_all, b_all, w_all = pairs
    for lo, (e_feat, e_at, t_feat, t_at) in zip(
        range(0, len(a_all), _EXPLAIN_CHUNK), found, strict=True
    ):
        a, b = a_all[lo : lo + _EXPLAIN_CHUNK], b_all[lo : lo + _EXPLAIN_CHUNK]
        e_at, t_at = e_at.tolist(), t_at.tolist()
        e_names = [features[f] for f in e_feat.tolist()]
        t_names = [features[f] for f in t_feat.tolist()]
        weights = w_all[lo : lo + _EXPLAIN_CHUNK].tolist()
        for i, (pa, pb) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
            yield (
                papers[pa],
                papers[pb],
                round(min(weights[i], 1.0), 6),
                e_names[e_at[i] : e_at[i + 1]],
                t_names[t_at[i] : t_at[i + 1]],
            )


def _normalised_rows(
    columns: Any, counts: Any, lengths: Any, n_features: int, min_df: int
) -> tuple[Any, Any]:
    """The papers' L2-normalised ``(1 + ln count) * idf`` vectors as one CSR matrix, and each
    feature's document frequency. Made in place, a block of rows at a time: the vectors are the
    stage's largest arrays (about ten million entries at 80,000 papers), and a whole-array
    expression would add a temporary of the same size for every operation."""
    import numpy as np
    from scipy import sparse

    n_papers = len(lengths)
    col = np.asarray(columns, dtype=np.int32)  # the matrix's indices, not a copy
    df = np.bincount(col, minlength=n_features)
    # idf, zero for features of one paper (they say nothing about neighbours)
    idf = np.log((1 + n_papers) / (1 + df)) + 1.0
    idf[df < min_df] = 0.0
    values = np.asarray(counts).astype(np.float64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    for first in range(0, n_papers, _VECTOR_ROWS):
        last = min(first + _VECTOR_ROWS, n_papers)
        lo, hi = indptr[first], indptr[last]
        block = values[lo:hi]
        np.log(block, out=block)
        block += 1.0
        block *= idf[col[lo:hi]]
        row_of = np.repeat(np.arange(last - first), lengths[first:last])
        norms = np.sqrt(np.bincount(row_of, weights=block * block, minlength=last - first))
        norms[norms == 0.0] = 1.0
        block /= norms[row_of]
    X = sparse.csr_matrix((values, col, indptr), shape=(n_papers, n_features))
    X.eliminate_zeros()
    X.sort_indices()
    return X, df


#: Papers whose vectors are weighted and normalised at a time in :func:`_normalised_rows`.
_VECTOR_ROWS = 4096


def _strongest(
    X: Any, followed: Any, k: int, *, spare: int = 2, processes: int = 1
) -> tuple[Any, Any, Any]:
    """Arrays ``a, b, cosine`` (a < b, sorted) of each row's ``k`` nearest other rows of the
    L2-normalised sparse matrix ``X`` (ties: the smaller index).

    Two steps, so that the cost grows with the papers, not with their square:

    1. candidates: each row's ``spare * k`` largest dot products over the columns ``followed``
       only (the features in few papers, where almost all of a cosine's weight is), from the sparse
       product of a block of rows with all rows (all values from the ``spare * k``-th largest
       up are kept, so ties never depend on the order of a selection);
    2. the exact cosine over every feature for each candidate pair, and each row's ``k`` best of
       the pairs it is in.

    Both steps over ``processes`` slices (of the rows, then of the pairs) at once.
    """
    import numpy as np

    Xf = X[:, followed].tocsr()
    n = Xf.shape[0]
    XfT = Xf.T.tocsr()
    keep = spare * k

    def candidates(rows: range) -> tuple[Any, Any]:
        """Each row's number of candidates, and the candidates of all of them in row order."""
        found: list[Any] = []
        for first in range(rows.start, rows.stop, _BLOCK_ROWS):
            C = (Xf[first : min(first + _BLOCK_ROWS, rows.stop)] @ XfT).tocsr()
            indptr, indices, data = C.indptr, C.indices, C.data
            for i in range(C.shape[0]):
                lo, hi = indptr[i], indptr[i + 1]
                cols, values = indices[lo:hi], data[lo:hi]
                mine = (cols != first + i) & (values > 0.0)  # not its own neighbour
                cols, values = cols[mine], values[mine]
                if len(values) > keep:
                    cut = np.partition(values, len(values) - keep)[len(values) - keep]
                    cols = cols[values >= cut]
                found.append(cols.astype(np.int32, copy=False))
            del C
        sizes = np.fromiter(map(len, found), np.int64, len(found))
        return sizes, np.concatenate(found) if found else np.zeros(0, np.int32)

    pieces = fork_map(candidates, split(n, processes), processes=processes)
    Xf = XfT = None  # (the closure's: del would not free them)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.concatenate([p[0] for p in pieces]))
    others = np.concatenate([p[1] for p in pieces]).astype(np.int64)
    del pieces
    pair = np.unique(np.minimum(rows, others) * n + np.maximum(rows, others))
    del rows, others
    if not len(pair):
        return pair, pair, np.zeros(0)
    a, b = (pair // n).astype(np.int32), (pair % n).astype(np.int32)
    del pair

    def cosines(at: range) -> Any:
        return np.concatenate(
            [
                np.asarray(
                    X[a[lo : min(lo + _EXPLAIN_CHUNK, at.stop)]]
                    .multiply(X[b[lo : min(lo + _EXPLAIN_CHUNK, at.stop)]])
                    .sum(axis=1)
                ).ravel()
                for lo in range(at.start, at.stop, _EXPLAIN_CHUNK)
            ]
        )

    w = np.concatenate(fork_map(cosines, split(len(a), processes), processes=processes))
    # each row's k best among the pairs it is in (both ends), ties to the smaller other index
    ends, others = np.concatenate([a, b]), np.concatenate([b, a])
    order = np.lexsort((others, -np.concatenate([w, w]), ends))
    del others
    ends = ends[order]
    which = order % len(a)  # the pair each sorted entry is of
    del order
    rank = np.arange(len(ends)) - np.searchsorted(ends, ends)
    chosen = np.unique(which[rank < k])  # pair order is (a, b) order
    return a[chosen], b[chosen], w[chosen]


#: Rows of the product taken at a time in :func:`_strongest`: a block's product with all rows can
#: be nearly dense (128 rows: about 50 MB less at 20,000 papers than 512, as fast).
_BLOCK_ROWS = 128


#: Nodes or edges encoded by one call in :meth:`KnowledgeGraph.iter_json_bytes` (about 1 MB).
_JSON_ROWS = 1_000


def _json_rows(rows: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """The rows as the elements of a JSON array (commas between, no brackets), in pieces."""
    batch: list[dict[str, Any]] = []
    separator = b""
    for row in rows:
        batch.append(row)
        if len(batch) >= _JSON_ROWS:
            yield separator + dumps(batch)[1:-1]
            separator = b","
            batch.clear()
    if batch:
        yield separator + dumps(batch)[1:-1]


class KnowledgeGraph:
    """A kg graph with its traversal API; ``.nx`` is the underlying ``networkx.MultiDiGraph``.

    Methods take node ids or names/aliases (``"LLMs"`` finds ``method:large language model``).
    """

    def __init__(self, graph: nx.MultiDiGraph | None = None):
        self.nx: nx.MultiDiGraph = (
            graph if graph is not None else nx.MultiDiGraph(kg_schema=SCHEMA_VERSION)
        )

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

    def save(self, path: str | Path, *, files: AtomicFiles | None = None) -> Path:
        """Write node-link JSON; :meth:`load` reads it back to an equal graph.

        The file is replaced whole or not at all (with ``files``, together with its other files).
        """
        path = Path(path)
        with atomic_open(path, "wb", files=files, encoding=None) as handle:
            for chunk in self.iter_json_bytes():
                handle.write(chunk)
        return path

    def iter_json(self) -> Iterator[str]:
        """:meth:`iter_json_bytes` as text."""
        for chunk in self.iter_json_bytes():
            yield chunk.decode("utf-8")

    def iter_json_bytes(self) -> Iterator[bytes]:
        """The UTF-8 text of :meth:`to_dict` as compact JSON (:mod:`kg.fastjson`), in pieces of
        ``_JSON_ROWS`` nodes or edges: each piece is one encoder call over a list of rows, its
        brackets cut off, so no copy of the whole graph is made to write it, and the encoder is
        not called once per row (1.13 s against 1.64 s for the 351,725 edges and 117,182 nodes of
        21,000 papers). (Bytes: decoding each piece to a ``str`` left about 120 MB of freed but
        fragmented memory behind at 20,000 papers.)"""
        G = self.nx
        head = {"directed": G.is_directed(), "multigraph": G.is_multigraph(), "graph": G.graph}
        yield dumps(head)[:-1] + b',"nodes":['
        yield from _json_rows({**attrs, "id": node} for node, attrs in G.nodes(data=True))
        yield b'],"links":['
        edges = (
            (
                {**attrs, "source": u, "target": v, "key": key}
                for u, v, key, attrs in G.edges(keys=True, data=True)
            )
            if G.is_multigraph()
            else ({**attrs, "source": u, "target": v} for u, v, attrs in G.edges(data=True))
        )
        yield from _json_rows(edges)
        yield b"]}"

    @classmethod
    def load(cls, path: str | Path) -> KnowledgeGraph:
        """Read a graph written by :meth:`save` (or ``kg build``'s ``graph.json``)."""
        path = Path(path)
        try:
            data = loads(path.read_bytes())
        except FileNotFoundError:
            raise GraphError(
                f"{path}: no such graph file; build one with `kg build INPUT -o OUTDIR`"
            ) from None
        except JSONDecodeError as exc:
            raise GraphError(
                f"{path}:{exc.lineno}: not a kg graph (not one JSON document: {exc.msg}); "
                f"{_GRAPH_HINT}"
            ) from exc
        except OSError as exc:
            raise GraphError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        if not isinstance(data, dict) or "nodes" not in data:
            raise GraphError(f"{path}: not a kg graph (no 'nodes'); {_GRAPH_HINT}")
        return cls.from_dict(data)

    # -- counts ----------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Counts: nodes per label, edges per type, mentions."""
        nodes = Counter(d.get("label", "?") for _, d in self.nx.nodes(data=True))
        # the keys of every (u, v) key dict, counted in C (a generator over edges(keys=True): 1.3 s
        # of an update at 21,000 papers)
        edges = Counter(
            chain.from_iterable(k for nbrs in self.nx._succ.values() for k in nbrs.values())
        )
        mentions = sum(
            len(d.get("mentions", []))
            for _, d in self.nx.nodes(data=True)
            if d.get("label") == "Paper"
        )
        return {
            "papers": nodes.get("Paper", 0),
            "mentions": mentions,
            "entities": {label: nodes.get(label, 0) for label in ENTITY_NODE_LABELS},
            "results": nodes.get(RESULT_LABEL, 0),
            "edges": dict(sorted(edges.items())),
            "nodes_total": self.nx.number_of_nodes(),
            "edges_total": sum(edges.values()),  # (number_of_edges walks a degree view: 0.6 s)
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
