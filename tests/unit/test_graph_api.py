"""The Python traversal API and exact save/load round trips."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from graph_exports.files import read_graphml, to_node_link, write_graphml
from kg import KnowledgeGraph
from kg.errors import GraphError, NodeNotFound


def test_save_and_load_round_trip_exactly(example_graph, tmp_path):
    path = example_graph.save(tmp_path / "graph.json")
    loaded = KnowledgeGraph.load(path)
    assert to_node_link(loaded) == to_node_link(example_graph)
    assert json.loads(path.read_text(encoding="utf-8"))["graph"]["kg_schema"] == 1


def test_graphml_reads_back_in_networkx_with_lists_restored(example_graph, tmp_path):
    path = write_graphml(example_graph, tmp_path / "graph.graphml")
    back = read_graphml(path)
    assert nx.utils.graphs_equal(back, example_graph.nx) or (
        sorted(back.nodes(data=True)) == sorted(example_graph.nx.nodes(data=True))
        and sorted(back.edges(keys=True, data=True))
        == sorted(example_graph.nx.edges(keys=True, data=True))
    )
    plain = nx.read_graphml(path)  # what Gephi-like readers see: strings, no errors
    some_entity = next(n for n, d in plain.nodes(data=True) if d.get("label") == "Method")
    assert json.loads(plain.nodes[some_entity]["aliases"])


def test_traversal_answers_a_researchers_questions(example_graph):
    g = example_graph
    paper = g.papers_with("Dataset", "GOT-10k")[0]
    methods = g.entities_of(paper, label="Method")
    assert methods and all(g.nx.nodes[m]["label"] == "Method" for m in methods)
    assert all(g.nx.nodes[d]["label"] == "Dataset" for d in g.entities_of(paper, label="dataset"))
    top = g.top("Method", n=3)
    assert top[0] == (
        "method:large language model",
        g.nx.nodes["method:large language model"]["support"],
    )
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)
    ties = g.top("Method", n=100)
    for (a, support_a), (b, support_b) in zip(
        ties, ties[1:]
    ):  # equal support: most mentioned first
        if support_a == support_b:
            assert g.nx.nodes[a]["mention_count"] >= g.nx.nodes[b]["mention_count"]


def test_related_papers_path_and_ego(example_graph):
    g = example_graph
    llm_papers = g.papers_with("Method", "LLMs")
    a, b = llm_papers[0], llm_papers[1]
    route = g.path(a, b)
    assert len(route) == 3 and route[1] in set(g.entities_of(a)) & set(g.entities_of(b))
    related = g.related_papers(a, k=5)
    assert len(related) <= 5 and all(w > 0 for _, w, _ in related)
    assert [w for _, w, _ in related] == sorted((w for _, w, _ in related), reverse=True)
    got = g.find("GOT-10k")
    sub = g.ego("GOT-10k", radius=1)
    assert got in sub and len(sub) >= 2
    assert all(n == got or sub.nx.has_edge(n, got) or sub.nx.has_edge(got, n) for n in sub.nx)


def test_unknown_nodes_and_labels_raise_named_errors(example_graph):
    with pytest.raises(NodeNotFound, match="no node with label Dataset named 'NoSuchBench'"):
        example_graph.papers_with("Dataset", "NoSuchBench")
    with pytest.raises(ValueError, match="label not supported"):
        example_graph.top("Author")


def test_loading_a_non_graph_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(GraphError, match="not a kg graph"):
        KnowledgeGraph.load(bad)
    with pytest.raises(GraphError, match="no such graph file"):
        KnowledgeGraph.load(tmp_path / "missing.json")


def _papers_graph(papers: dict[str, tuple[list[str], str, list[str]]]) -> nx.MultiDiGraph:
    """Paper id -> (entity ids, abstract, keywords), as build_graph lays them out."""
    G = nx.MultiDiGraph()
    for pid, (entities, abstract, keywords) in papers.items():
        G.add_node(f"paper:{pid}", label="Paper", abstract=abstract, keywords=keywords)
        for eid in entities:
            G.add_node(eid, label="Method")
            G.add_edge(f"paper:{pid}", eid, key="USES", count=1)
    return G


def test_related_edges_weigh_rare_shared_things_more_and_say_why():
    from kg.graph import related_edges

    common = "method:deep learning"
    G = _papers_graph(
        {
            "a": (
                [common, "dataset:got 10k", "method:autoregressive tracking"],
                "Visual object tracking.",
                [],
            ),
            "b": (
                [common, "dataset:got 10k", "method:autoregressive tracking"],
                "Tracking objects in video.",
                [],
            ),
            "c": ([common], "Protein folding.", ["protein structure"]),
            "d": ([common], "Protein design.", ["protein structure"]),
            "e": ([common], "Speech.", []),
            "f": ([common], "Graphs.", []),
        }
    )
    edges = {(a, b): (w, shared, terms) for a, b, w, shared, terms in related_edges(G, k=1)}
    weight, shared, terms = edges[("paper:a", "paper:b")]
    assert (
        shared[:2] == ["dataset:got 10k", "method:autoregressive tracking"] and shared[-1] == common
    )
    assert "tracking" in terms and 0 < weight <= 1
    weight_cd, shared_cd, terms_cd = edges[("paper:c", "paper:d")]
    assert shared_cd == [common] and {"protein", "protein structure"} <= set(terms_cd)
    assert ("paper:c", "paper:e") not in edges  # "protein structure" beats "deep learning"
    # without terms only entities count: c cannot tell d from e
    entity_only = {(a, b) for a, b, _w, _s, _t in related_edges(G, k=1, terms=False)}
    assert ("paper:a", "paper:b") in entity_only and ("paper:c", "paper:e") in entity_only


def test_related_edges_follow_no_overfull_posting_list():
    from kg.graph import related_edges

    G = _papers_graph({p: (["method:deep learning"], "", []) for p in "abcd"})
    assert related_edges(G, k=2, max_postings=3, terms=False) == []
    assert len(related_edges(G, k=2, max_postings=4, terms=False)) >= 2


def test_related_edges_are_each_papers_k_nearest_by_the_full_cosine():
    """Against a brute-force reference: every paper keeps its k best neighbours by the cosine
    over all its features, with the weight that cosine, however few features are followed."""
    import math
    import random

    from kg.graph import related_edges

    rng = random.Random(5)
    pool = [f"method:m{i}" for i in range(30)]
    G = _papers_graph(
        {f"p{i:02d}": (rng.sample(pool, rng.randint(2, 8)), "", []) for i in range(40)}
    )
    papers = sorted(n for n in G if n.startswith("paper:"))
    feats = {p: {e for _, e in G.out_edges(p)} for p in papers}
    df = {e: sum(e in f for f in feats.values()) for e in pool}
    idf = {e: math.log((1 + len(papers)) / (1 + df[e])) + 1 for e in pool if df[e] >= 2}
    norm = {p: math.sqrt(sum(idf.get(e, 0) ** 2 for e in feats[p])) for p in papers}

    def cosine(a: str, b: str) -> float:
        return sum(idf.get(e, 0) ** 2 for e in feats[a] & feats[b]) / (norm[a] * norm[b])

    k = 3
    expected = set()
    for p in papers:
        ranked = sorted((o for o in papers if o != p), key=lambda o: (-cosine(p, o), o))
        expected |= {tuple(sorted((p, o))) for o in ranked[:k] if cosine(p, o) > 0}
    for cap in (40, 12):  # every feature followed; only the rarer ones
        edges = related_edges(G, k=k, max_postings=cap, terms=False)
        got = {(a, b): w for a, b, w, _, _ in edges}
        assert all(w == pytest.approx(cosine(a, b), abs=1e-6) for (a, b), w in got.items())
        if cap == 40:
            assert set(got) == expected
        else:  # candidates from rare features only: most of the same neighbours still
            assert len(set(got) & expected) >= 0.8 * len(expected)


def test_related_edges_are_the_same_computed_in_several_processes(example_graph, monkeypatch):
    """Features, candidates, weights and explanations over slices in forked children (what
    ``kg build --workers 2`` does) give the one-process edges, in the same order."""
    import random

    import kg.graph
    from kg.graph import iter_related_edges, related_edges, term_table

    # small blocks and chunks, so that every slice holds several of them
    monkeypatch.setattr(kg.graph, "_BLOCK_ROWS", 8)
    monkeypatch.setattr(kg.graph, "_EXPLAIN_CHUNK", 16)

    rng = random.Random(11)
    pool = [f"method:m{i}" for i in range(60)]
    words = ["graph", "neural", "tracking", "sparse", "token", "vision", "robot", "speech"]
    G = _papers_graph(
        {
            f"p{i:03d}": (
                rng.sample(pool, rng.randint(1, 9)),
                " ".join(rng.choices(words, k=12)),
                rng.sample(["visual tracking", "graph learning", "speech"], 1),
            )
            for i in range(150)
        }
    )
    for graph in (G, example_graph.nx):
        one = related_edges(graph, k=4)
        assert one and related_edges(graph, k=4, processes=2) == one
        assert related_edges(graph, k=4, processes=3) == one
        # the terms made ahead (kg build makes them while resolving), or a table of other papers
        papers = sorted(n for n, d in graph.nodes(data=True) if d.get("label") == "Paper")
        table = term_table((p, graph.nodes[p]) for p in papers)
        assert list(iter_related_edges(graph, k=4, processes=2, table=table)) == one
        other = term_table((p, graph.nodes[p]) for p in papers[1:])
        assert list(iter_related_edges(graph, k=4, table=other)) == one


def test_a_built_graph_reads_the_same_edges_from_either_end(example_graph):
    # paper -> entity and RELATED_TO edges go straight into networkx's adjacency (kg.graph._add_edge):
    # in-edge views, which traverse and the paper map read, must see them as out-edge views do
    G = example_graph.nx
    out_edges = sorted((u, v, k, repr(d)) for u, v, k, d in G.out_edges(keys=True, data=True))
    in_edges = sorted((u, v, k, repr(d)) for u, v, k, d in G.in_edges(keys=True, data=True))
    assert out_edges == in_edges
    kinds = {k for _, _, k in G.edges(keys=True)}
    assert {"RELATED_TO", "USES"} <= kinds
    paper = next(p for p, _, k in G.edges(keys=True) if k == "RELATED_TO")
    assert example_graph.related_papers(paper)  # found through the in-edges of the other end too
    assert G.number_of_edges() == sum(
        len(keys) for nbrs in G.pred.values() for keys in nbrs.values()
    )
