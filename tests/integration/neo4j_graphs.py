"""Small graphs in kg's exact schema (kg/graph.py) for the Neo4j tests, and a database dump helper.

Corpus A: two papers about a method "Graph Transformer" (GT) evaluated on Cora; corpus B: one more
paper that reuses the Transformer and adds its own dataset. Names, aliases and the abstract carry
quotes, braces, backticks and Cypher so a test can show text never becomes a query.
"""

from __future__ import annotations

import json

import networkx as nx

INJECTION = 'x\'}) MATCH (n) DETACH DELETE n //` ]->(:Evil {id: "$rows"})'


def _evidence(paper: str, sentence: str, text: str, start: int = 0, score: float = 0.9) -> dict:
    return {
        "sentence": sentence,
        "start": start,
        "end": start + len(text),
        "text": text,
        "extractor": "rules",
        "score": score,
        "paper_id": paper,
    }


def _entity(
    G: nx.MultiDiGraph,
    node_id: str,
    label: str,
    name: str,
    aliases: list[str],
    support: int,
    mentions: int,
) -> None:
    G.add_node(
        node_id,
        label=label,
        name=name,
        key=node_id.split(":", 1)[1],
        aliases=aliases,
        support=support,
        mention_count=mentions,
    )


def _paper(G: nx.MultiDiGraph, pid: str, name: str, abstract: str, **extra) -> None:
    attrs = {
        "label": "Paper",
        "name": name,
        "title_derived": "title" not in extra,
        "abstract": abstract,
        "authors": extra.pop("authors", []),
        "keywords": extra.pop("keywords", []),
        "source": extra.pop("source", "test.txt:1"),
        "mentions": extra.pop("mentions", []),
    }
    attrs.update(extra)
    G.add_node(f"paper:{pid}", **attrs)


def _edge(G: nx.MultiDiGraph, u: str, v: str, rel: str, **attrs) -> None:
    G.add_edge(u, v, key=rel, type=rel, **attrs)


def corpus_a() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph(kg_schema=1)
    _entity(
        G,
        "method:graph transformer",
        "Method",
        "Graph Transformer",
        ["GT", "Graph Transformer"],
        2,
        3,
    )
    _entity(G, "method:transformer", "Method", "Transformer", ["Transformer", "Transformers"], 1, 1)
    _entity(G, "dataset:cora", "Dataset", "Cora", ["Cora"], 2, 2)
    _entity(
        G, "task:node classification", "Task", "node classification", ["node classification"], 2, 2
    )
    _entity(G, "metric:accuracy", "Metric", "accuracy", ["accuracy", "acc."], 1, 1)
    _entity(G, "method:evil", "Method", INJECTION, [INJECTION, "naïve “quoted” {braces}"], 1, 1)

    s1 = "We propose the Graph Transformer (GT) for node classification."
    s2 = "GT reaches 91% accuracy on Cora."
    _paper(
        G,
        "a1",
        "Graph Transformers",
        f"{s1} {s2}",
        title="Graph Transformers",
        year=2024,
        venue="ICLR",
        authors=["Ada Lovelace", "Alan Turing"],
        keywords=["graphs"],
        mentions=[
            [18, 35, "METHOD", "method:graph transformer"],
            [46, 65, "TASK", "node classification"],
        ],
    )
    _edge(
        G,
        "paper:a1",
        "method:graph transformer",
        "PROPOSES",
        role="proposed",
        count=2,
        weight=0.95,
        evidence=[_evidence("a1", s1, "Graph Transformer", 8), _evidence("a1", s2, "GT", 0, 0.8)],
    )
    _edge(
        G,
        "paper:a1",
        "task:node classification",
        "ADDRESSES",
        role="used",
        count=1,
        weight=0.9,
        evidence=[_evidence("a1", s1, "node classification", 45)],
    )
    _edge(
        G,
        "paper:a1",
        "dataset:cora",
        "EVALUATES_ON",
        role="used",
        count=1,
        weight=0.9,
        evidence=[_evidence("a1", s2, "Cora", 28)],
    )
    _edge(
        G,
        "paper:a1",
        "metric:accuracy",
        "REPORTS",
        role="used",
        count=1,
        weight=0.7,
        evidence=[_evidence("a1", s2, "accuracy", 15)],
    )

    s3 = f"We apply the Graph Transformer and the Transformer to Cora. {INJECTION}"
    _paper(
        G,
        "a2",
        "Applying GT",
        s3,
        year=2025,
        source="test.txt:3",
        mentions=[[13, 30, "METHOD", "method:graph transformer"]],
    )
    _edge(
        G,
        "paper:a2",
        "method:graph transformer",
        "USES",
        role="used",
        count=1,
        weight=0.9,
        evidence=[_evidence("a2", s3, "Graph Transformer", 13)],
    )
    _edge(
        G,
        "paper:a2",
        "method:transformer",
        "USES",
        role="used",
        count=1,
        weight=0.8,
        evidence=[_evidence("a2", s3, "Transformer", 39)],
    )
    _edge(
        G,
        "paper:a2",
        "dataset:cora",
        "EVALUATES_ON",
        role="used",
        count=1,
        weight=0.9,
        evidence=[_evidence("a2", s3, "Cora", 54)],
    )
    _edge(
        G,
        "paper:a2",
        "task:node classification",
        "ADDRESSES",
        role="used",
        count=1,
        weight=0.6,
        evidence=[_evidence("a2", s3, "node classification", 0)],
    )
    _edge(
        G,
        "paper:a2",
        "method:evil",
        "USES",
        role="used",
        count=1,
        weight=0.5,
        evidence=[_evidence("a2", s3, INJECTION, 60)],
    )

    # entity -> entity, with the papers that support them
    _edge(
        G,
        "method:graph transformer",
        "task:node classification",
        "USED_FOR",
        count=2,
        weight=0.9,
        papers=["a1", "a2"],
        evidence=[
            _evidence("a1", s1, "Graph Transformer for node classification"),
            _evidence("a2", s3, "Graph Transformer"),
        ],
    )
    _edge(
        G,
        "method:graph transformer",
        "dataset:cora",
        "EVALUATED_ON",
        count=1,
        weight=0.8,
        papers=["a1"],
        evidence=[_evidence("a1", s2, "GT reaches 91% accuracy on Cora")],
    )
    _edge(
        G,
        "metric:accuracy",
        "method:graph transformer",
        "EVALUATES",
        count=1,
        weight=0.7,
        papers=["a1"],
        evidence=[_evidence("a1", s2, "accuracy")],
    )
    _edge(
        G,
        "method:graph transformer",
        "method:transformer",
        "IS_A",
        count=1,
        weight=0.6,
        papers=["a2"],
        evidence=[_evidence("a2", s3, "Graph Transformer and the Transformer")],
    )
    _edge(
        G,
        "paper:a1",
        "paper:a2",
        "RELATED_TO",
        weight=0.82,
        shared=["dataset:cora", "method:graph transformer", "task:node classification"],
    )
    return G


def corpus_b() -> nx.MultiDiGraph:
    """A second corpus: reuses the Transformer and the Graph Transformer, adds PubMed."""
    G = nx.MultiDiGraph(kg_schema=1)
    _entity(G, "method:transformer", "Method", "Transformer", ["Transformer", "TF"], 1, 2)
    _entity(
        G,
        "method:graph transformer",
        "Method",
        "Graph Transformer",
        ["Graph Transformer", "GraphTF"],
        1,
        1,
    )
    _entity(G, "dataset:pubmed", "Dataset", "PubMed", ["PubMed"], 1, 1)
    _entity(
        G, "task:node classification", "Task", "node classification", ["node classification"], 1, 1
    )
    s = "We compare the Transformer (TF) with GraphTF for node classification on PubMed."
    _paper(G, "b1", "Comparing Transformers", s, title="Comparing Transformers", year=2026)
    _edge(
        G,
        "paper:b1",
        "method:transformer",
        "USES",
        role="used",
        count=2,
        weight=0.9,
        evidence=[_evidence("b1", s, "Transformer", 15), _evidence("b1", s, "TF", 28)],
    )
    _edge(
        G,
        "paper:b1",
        "method:graph transformer",
        "USES",
        role="used",
        count=1,
        weight=0.8,
        evidence=[_evidence("b1", s, "GraphTF", 37)],
    )
    _edge(
        G,
        "paper:b1",
        "dataset:pubmed",
        "EVALUATES_ON",
        role="used",
        count=1,
        weight=0.9,
        evidence=[_evidence("b1", s, "PubMed", 73)],
    )
    _edge(
        G,
        "paper:b1",
        "task:node classification",
        "ADDRESSES",
        role="used",
        count=1,
        weight=0.9,
        evidence=[_evidence("b1", s, "node classification", 49)],
    )
    _edge(
        G,
        "method:graph transformer",
        "task:node classification",
        "USED_FOR",
        count=1,
        weight=0.7,
        papers=["b1"],
        evidence=[_evidence("b1", s, "GraphTF for node classification")],
    )
    _edge(
        G,
        "method:transformer",
        "method:graph transformer",
        "COMPARED_WITH",
        count=1,
        weight=0.8,
        papers=["b1"],
        evidence=[_evidence("b1", s, "Transformer (TF) with GraphTF")],
    )
    return G


def dump(driver, database: str) -> dict:
    """Every node and relationship with labels, type and properties, in a stable order."""
    nodes, _, _ = driver.execute_query(
        "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props ORDER BY n.id",
        database_=database,
    )
    rels, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS type, b.id AS b, properties(r) AS props "
        "ORDER BY a, type, b",
        database_=database,
    )
    return {
        "nodes": [(sorted(r["labels"]), json.dumps(r["props"], sort_keys=True)) for r in nodes],
        "relationships": [
            (r["a"], r["type"], r["b"], json.dumps(r["props"], sort_keys=True)) for r in rels
        ],
    }


def counts(driver, database: str) -> tuple[int, int]:
    n, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS n", database_=database)
    r, _, _ = driver.execute_query("MATCH ()-[r]->() RETURN count(r) AS n", database_=database)
    return n[0]["n"], r[0]["n"]


def synthetic_graph(n_papers: int, n_entities: int = 500, per_paper: int = 8) -> nx.MultiDiGraph:
    """A larger graph in the same shape (deterministic), for pushes that take a while."""
    G = nx.MultiDiGraph(kg_schema=1)
    labels = [
        ("Method", "USES"),
        ("Dataset", "EVALUATES_ON"),
        ("Task", "ADDRESSES"),
        ("Metric", "REPORTS"),
    ]
    for i in range(n_entities):
        label, _ = labels[i % 4]
        _entity(G, f"{label.lower()}:thing {i}", label, f"Thing {i}", [f"Thing {i}", f"T{i}"], 0, 0)
    for p in range(n_papers):
        s = f"Paper {p} studies things."
        _paper(G, f"s{p:06d}", f"Paper {p}", s, year=2000 + p % 25)
        for j in range(per_paper):
            i = (p * 7 + j * 13) % n_entities
            label, rel = labels[i % 4]
            _edge(
                G,
                f"paper:s{p:06d}",
                f"{label.lower()}:thing {i}",
                rel,
                role="used",
                count=1,
                weight=0.5,
                evidence=[_evidence(f"s{p:06d}", s, "things", 17)],
            )
    return G
