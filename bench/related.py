"""Do kg's RELATED_TO edges connect papers that belong together?

    python bench/related.py $KG_SHARED_DATA/corpora/iclr2026_accepted.jsonl [-n N] [--graph out/graph.json]
                            [--save-graph FILE] [--variants]

For every paper, the share of its 5 strongest neighbours that have the same ``primary_area``
(a field kg never reads), for three neighbour sources side by side: kg's ``RELATED_TO`` edges, a
bag-of-words TF-IDF cosine over the abstracts (scikit-learn), and random papers. Builds the graph
(rules + shipped model) unless ``--graph`` gives one built from the same file.

``--variants`` recomputes ``RELATED_TO`` on the same graph from less: entities only; entities and
the abstract's words; entities and the words of title and abstract (no keywords).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections import defaultdict


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus")
    parser.add_argument("-n", type=int, default=None, help="first N papers only")
    parser.add_argument("-k", type=int, default=5, help="neighbours per paper (default 5)")
    parser.add_argument("--graph", help="a graph.json already built from CORPUS")
    parser.add_argument("--rules-only", action="store_true")
    parser.add_argument("--save-graph", help="write the built graph here (reuse it with --graph)")
    parser.add_argument(
        "--variants", action="store_true", help="also score RELATED_TO built from less"
    )
    parser.add_argument(
        "--max-postings",
        help="also recompute RELATED_TO with these candidate caps (comma-separated), timed",
    )
    args = parser.parse_args()

    with open(args.corpus, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in itertools.islice(handle, args.n)]
    area = {r["id"]: r.get("primary_area") for r in rows}
    ids = [r["id"] for r in rows]

    from kg import KnowledgeGraph
    from kg.schema import paper_id_of, paper_node_id

    if args.graph:
        graph = KnowledgeGraph.load(args.graph)
        seconds = float("nan")
    else:
        from extractors import load_pipeline
        from kg.build import build_from_papers
        from kg.corpus import read_corpus

        nlp = load_pipeline(statistical=not args.rules_only)
        start = time.perf_counter()
        graph = build_from_papers(itertools.islice(read_corpus([args.corpus]), args.n), nlp).graph
        seconds = time.perf_counter() - start
        if args.save_graph:
            graph.save(args.save_graph)

    def neighbours_of(g) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for pid in ids:
            node = paper_node_id(pid)
            if node in g.nx:
                found[pid] = [
                    paper_id_of(other) for other, _, _ in g.related_papers(node, k=args.k)
                ]
        return found

    kg_neighbours = neighbours_of(graph)
    variants: list[tuple[str, dict[str, list[str]]]] = []
    if args.variants:
        from kg.graph import related_edges

        def recomputed(*, terms: bool, title: bool) -> dict[str, list[str]]:
            g = graph.nx.copy()
            g.remove_edges_from(
                [(u, v, key) for u, v, key in g.edges(keys=True) if key == "RELATED_TO"]
            )
            for _node, data in g.nodes(data=True):
                if data.get("label") == "Paper":
                    data["keywords"] = []
                    if not title:
                        data.pop("title", None)
            for a, b, weight, shared, shared_terms in related_edges(g, terms=terms):
                g.add_edge(
                    a, b, key="RELATED_TO", weight=weight, shared=shared, shared_terms=shared_terms
                )
            return neighbours_of(KnowledgeGraph(g))

        variants = [
            ("kg entities only", recomputed(terms=False, title=False)),
            ("kg + abstract words", recomputed(terms=True, title=False)),
            ("kg + title, abstract", recomputed(terms=True, title=True)),
        ]

    if args.max_postings:
        from kg.graph import related_edges

        for cap in (int(c) for c in args.max_postings.split(",")):
            g = graph.nx.copy()
            g.remove_edges_from(
                [(u, v, key) for u, v, key in g.edges(keys=True) if key == "RELATED_TO"]
            )
            start = time.perf_counter()
            edges = related_edges(g, max_postings=cap)
            took = time.perf_counter() - start
            for a, b, weight, ids, words in edges:
                g.add_edge(a, b, key="RELATED_TO", weight=weight, shared=ids, shared_terms=words)
            variants.append(
                (f"max_postings {cap} ({took:.1f} s)", neighbours_of(KnowledgeGraph(g)))
            )

    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.neighbors import NearestNeighbors

    matrix = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(
        r["abstract"] for r in rows
    )
    index = NearestNeighbors(n_neighbors=args.k + 1, metric="cosine").fit(matrix)
    _, found = index.kneighbors(matrix)
    tfidf_neighbours = {
        ids[i]: [ids[j] for j in row if j != i][: args.k] for i, row in enumerate(found)
    }

    rng = random.Random(0)
    random_neighbours = {pid: rng.sample([o for o in ids if o != pid], args.k) for pid in ids}

    def precision(neighbours: dict[str, list[str]]) -> tuple[float, int, float]:
        hits = total = 0
        covered = 0
        for pid, others in neighbours.items():
            if not others:
                continue
            covered += 1
            hits += sum(area[o] == area[pid] for o in others)
            total += len(others)
        return hits / max(total, 1), covered, covered / len(ids)

    print(f"papers: {len(ids)}   graph build seconds: {seconds:.1f}")
    print(
        f"{'neighbours':<22} {'same area @' + str(args.k):>14} {'papers with any':>16} {'coverage':>9}"
    )
    for name, neighbours in (
        ("kg RELATED_TO", kg_neighbours),
        *variants,
        ("TF-IDF cosine", tfidf_neighbours),
        ("random", random_neighbours),
    ):
        p, covered, coverage = precision(neighbours)
        print(f"{name:<22} {p:>14.3f} {covered:>16} {coverage:>9.1%}")
    shared: defaultdict[int, int] = defaultdict(int)
    with_terms = 0
    for _u, _v, key, data in graph.nx.edges(keys=True, data=True):
        if key == "RELATED_TO":
            shared[min(len(data.get("shared", [])), 10)] += 1
            with_terms += bool(data.get("shared_terms"))
    print(
        "RELATED_TO edges by number of shared entities (10 = 10 or more):",
        dict(sorted(shared.items())),
    )
    print(f"RELATED_TO edges listing shared terms: {with_terms} of {sum(shared.values())}")


if __name__ == "__main__":
    main()
