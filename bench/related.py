"""Do kg's RELATED_TO edges connect papers that belong together?

    python bench/related.py ../shared/data/corpora/iclr2026_accepted.jsonl [-n N] [--graph out/graph.json]

For every paper, the share of its 5 strongest neighbours that have the same ``primary_area``
(a field kg never reads), for three neighbour sources side by side: kg's ``RELATED_TO`` edges, a
bag-of-words TF-IDF cosine over the abstracts (scikit-learn), and random papers. Builds the graph
(rules + shipped model) unless ``--graph`` gives one built from the same file.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections import defaultdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("-n", type=int, default=None, help="first N papers only")
    parser.add_argument("-k", type=int, default=5, help="neighbours per paper (default 5)")
    parser.add_argument("--graph", help="a graph.json already built from CORPUS")
    parser.add_argument("--rules-only", action="store_true")
    args = parser.parse_args()

    with open(args.corpus, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in itertools.islice(handle, args.n)]
    area = {r["id"]: r.get("primary_area") for r in rows}
    ids = [r["id"] for r in rows]

    from kg import KnowledgeGraph
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

    kg_neighbours: dict[str, list[str]] = {}
    for pid in ids:
        node = f"paper:{pid}"
        if node in graph.nx:
            kg_neighbours[pid] = [other.removeprefix("paper:") for other, _, _ in graph.related_papers(node, k=args.k)]

    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.neighbors import NearestNeighbors

    matrix = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(r["abstract"] for r in rows)
    index = NearestNeighbors(n_neighbors=args.k + 1, metric="cosine").fit(matrix)
    _, found = index.kneighbors(matrix)
    tfidf_neighbours = {ids[i]: [ids[j] for j in row if j != i][: args.k] for i, row in enumerate(found)}

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
    print(f"{'neighbours':<22} {'same area @' + str(args.k):>14} {'papers with any':>16} {'coverage':>9}")
    for name, neighbours in (("kg RELATED_TO", kg_neighbours), ("TF-IDF cosine", tfidf_neighbours),
                             ("random", random_neighbours)):
        p, covered, coverage = precision(neighbours)
        print(f"{name:<22} {p:>14.3f} {covered:>16} {coverage:>9.1%}")
    shared = defaultdict(int)
    for u, v, key, data in graph.nx.edges(keys=True, data=True):
        if key == "RELATED_TO":
            shared[len(data.get("shared", []))] += 1
    print("RELATED_TO edges by number of shared entities:", dict(sorted(shared.items())))


if __name__ == "__main__":
    main()
