"""kg push against a real Neo4j: schema, idempotence, incremental loads, removal, injection."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from neo4j_graphs import INJECTION, corpus_a, corpus_b, counts, dump
from neo4j_server import clear_database

from graph_exports import neo4j as kg_neo4j
from kg.graph import KnowledgeGraph

pytestmark = pytest.mark.neo4j


def _value(driver, database, query, **params):
    records, _, _ = driver.execute_query(query, parameters_=params, database_=database)
    return [r.data() for r in records]


def test_push_sets_up_constraints_and_fulltext_index_first(bare_neo4j):
    driver, db = bare_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db)
    constraints = _value(
        driver, db, "SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type RETURN *"
    )
    unique = {
        (c["labelsOrTypes"][0], c["properties"][0])
        for c in constraints
        if c["type"] == "UNIQUENESS"
    }
    assert unique == {
        (label, "id")
        for label in ("Paper", "Method", "Dataset", "Task", "Metric", "Entity", "Result")
    }
    fulltext = _value(
        driver, db, "SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes, properties RETURN *"
    )
    assert fulltext == [
        {"name": "entity_names", "labelsOrTypes": ["Entity"], "properties": ["name", "aliases"]}
    ]


def test_push_writes_schema_labels_types_and_properties(empty_neo4j):
    driver, db = empty_neo4j
    stats = kg_neo4j.push(KnowledgeGraph(corpus_a()), driver, database=db, batch_size=2)
    assert counts(driver, db) == (8, 14)
    assert stats.node_count == 8 and stats.relationship_count == 14
    assert stats.nodes_created == 8 and stats.relationships_created == 14
    labels = _value(driver, db, "MATCH (n) RETURN n.id AS id, labels(n) AS labels ORDER BY id")
    assert {r["id"]: sorted(r["labels"]) for r in labels}["method:graph transformer"] == [
        "Entity",
        "Method",
    ]
    assert {r["id"]: r["labels"] for r in labels}["paper:a1"] == ["Paper"]
    paper = _value(driver, db, "MATCH (p:Paper {id: 'paper:a1'}) RETURN properties(p) AS p")[0]["p"]
    assert (
        paper["title"] == "Graph Transformers"
        and paper["year"] == 2024
        and paper["venue"] == "ICLR"
    )
    assert paper["authors"] == ["Ada Lovelace", "Alan Turing"] and paper["title_derived"] is False
    assert json.loads(paper["mentions"])[0] == [18, 35, "METHOD", "method:graph transformer"]
    types = _value(driver, db, "MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS n ORDER BY t")
    assert {r["t"]: r["n"] for r in types} == {
        "ADDRESSES": 2,
        "EVALUATED_ON": 1,
        "EVALUATES": 1,
        "EVALUATES_ON": 2,
        "IS_A": 1,
        "PROPOSES": 1,
        "RELATED_TO": 1,
        "REPORTS": 1,
        "USED_FOR": 1,
        "USES": 3,
    }


def test_evidence_is_stored_as_json_items_with_flat_sentences(empty_neo4j):
    driver, db = empty_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db)
    rel = _value(
        driver, db, "MATCH (:Paper {id: 'paper:a1'})-[r:PROPOSES]->() RETURN properties(r) AS r"
    )[0]["r"]
    assert rel["evidence_count"] == 2 and rel["count"] == 2 and rel["role"] == "proposed"
    assert [json.loads(e)["text"] for e in rel["evidence"]] == ["Graph Transformer", "GT"]
    assert rel["sentences"] == [
        "We propose the Graph Transformer (GT) for node classification.",
        "GT reaches 91% accuracy on Cora.",
    ]
    used_for = _value(
        driver, db, "MATCH (:Method)-[r:USED_FOR]->(:Task) RETURN properties(r) AS r"
    )[0]["r"]
    assert used_for["papers"] == ["paper:a1", "paper:a2"] and used_for["support"] == 2
    assert used_for["evidence_papers"] == ["paper:a1", "paper:a2"]
    related = _value(
        driver, db, "MATCH (:Paper)-[r:RELATED_TO]->(:Paper) RETURN properties(r) AS r"
    )[0]["r"]
    assert related == {
        "weight": 0.82,
        "shared": ["dataset:cora", "method:graph transformer", "task:node classification"],
    }


def test_push_twice_leaves_identical_counts_and_properties(empty_neo4j):
    driver, db = empty_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db)
    first = dump(driver, db)
    stats = kg_neo4j.push(corpus_a(), driver, database=db, batch_size=3)
    assert dump(driver, db) == first
    assert (
        stats.nodes_created == 0
        and stats.relationships_created == 0
        and stats.relationships_deleted == 0
    )


def test_row_by_row_push_gives_the_same_database_as_batched(empty_neo4j):
    driver, db = empty_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db, batch_size=1000)
    batched = dump(driver, db)
    clear_database(driver, db)
    stats = kg_neo4j.push(corpus_a(), driver, database=db, batch_size=1)
    assert dump(driver, db) == batched
    assert stats.batches >= 8 + 14


def test_second_corpus_adds_papers_merges_entities_and_updates_support(empty_neo4j):
    driver, db = empty_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db)
    kg_neo4j.push(corpus_b(), driver, database=db)
    assert _value(driver, db, "MATCH (p:Paper) RETURN p.id AS id ORDER BY id") == [
        {"id": "paper:a1"},
        {"id": "paper:a2"},
        {"id": "paper:b1"},
    ]
    assert _value(
        driver, db, "MATCH (m:Method {id: 'method:transformer'}) RETURN count(m) AS n"
    ) == [{"n": 1}]
    entities = {
        r["id"]: r
        for r in _value(
            driver,
            db,
            "MATCH (e:Entity) RETURN e.id AS id, e.support AS support, e.mention_count AS mentions, "
            "e.aliases AS aliases",
        )
    }
    assert entities["method:transformer"]["support"] == 2  # a2 + b1
    assert entities["method:transformer"]["mentions"] == 3  # 1 in a2, 2 in b1
    assert sorted(entities["method:transformer"]["aliases"]) == [
        "TF",
        "Transformer",
        "Transformers",
    ]
    assert entities["method:graph transformer"]["support"] == 3
    assert entities["task:node classification"]["support"] == 3
    assert entities["dataset:cora"]["support"] == 2 and entities["dataset:pubmed"]["support"] == 1
    used_for = _value(
        driver,
        db,
        "MATCH (:Method {id: 'method:graph transformer'})-[r:USED_FOR]->() "
        "RETURN r.papers AS papers, r.support AS support, r.evidence_count AS n",
    )
    assert used_for == [{"papers": ["paper:a1", "paper:a2", "paper:b1"], "support": 3, "n": 3}]
    # pushing the second corpus again changes nothing
    before = dump(driver, db)
    kg_neo4j.push(corpus_b(), driver, database=db)
    assert dump(driver, db) == before


def test_remove_paper_removes_what_only_it_supported(empty_neo4j):
    driver, db = empty_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db)
    kg_neo4j.push(corpus_b(), driver, database=db)
    removed = kg_neo4j.remove_paper(driver, "a2", database=db)
    assert removed.papers == 1
    ids = [r["id"] for r in _value(driver, db, "MATCH (n) RETURN n.id AS id ORDER BY id")]
    assert "paper:a2" not in ids and "method:evil" not in ids  # only a2 used it
    assert "method:transformer" in ids  # b1 still uses it
    assert removed.entities == 1
    support = {
        r["id"]: r["s"]
        for r in _value(driver, db, "MATCH (e:Entity) RETURN e.id AS id, e.support AS s")
    }
    assert support["method:transformer"] == 1 and support["method:graph transformer"] == 2
    assert support["dataset:cora"] == 1
    # IS_A was supported by a2 alone: gone; USED_FOR keeps a1's and b1's evidence
    assert _value(driver, db, "MATCH ()-[r:IS_A]->() RETURN count(r) AS n") == [{"n": 0}]
    assert _value(driver, db, "MATCH ()-[r:RELATED_TO]->() RETURN count(r) AS n") == [{"n": 0}]
    used_for = _value(
        driver,
        db,
        "MATCH ()-[r:USED_FOR]->() RETURN r.papers AS p, r.evidence_papers AS e, "
        "size(r.sentences) AS s, r.support AS support",
    )
    assert used_for == [
        {"p": ["paper:a1", "paper:b1"], "e": ["paper:a1", "paper:b1"], "s": 2, "support": 2}
    ]
    # removing again is a no-op
    assert kg_neo4j.remove_paper(driver, "paper:a2", database=db).papers == 0


def test_repushing_a_changed_paper_drops_its_stale_relationships(empty_neo4j):
    driver, db = empty_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db)
    changed = corpus_a()
    changed.remove_edge("paper:a2", "method:evil", key="USES")
    changed.remove_node("method:evil")
    stats = kg_neo4j.push(changed, driver, database=db)
    assert stats.entities_deleted == 1
    assert _value(driver, db, "MATCH (m:Method {id: 'method:evil'}) RETURN count(m) AS n") == [
        {"n": 0}
    ]
    fresh = dump(driver, db)
    clear_database(driver, db)
    kg_neo4j.push(changed, driver, database=db)
    assert dump(driver, db) == fresh


def test_text_that_looks_like_cypher_is_stored_as_a_value(empty_neo4j):
    driver, db = empty_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db)
    assert counts(driver, db) == (8, 14)
    assert _value(driver, db, "MATCH (n:Evil) RETURN count(n) AS n") == [{"n": 0}]
    evil = _value(
        driver,
        db,
        "MATCH (m:Method {id: 'method:evil'}) RETURN m.name AS name, m.aliases AS aliases",
    )
    assert evil == [{"name": INJECTION, "aliases": sorted([INJECTION, "naïve “quoted” {braces}"])}]


def test_label_outside_the_schema_is_refused_before_anything_is_sent(empty_neo4j):
    from kg.errors import ExportError

    driver, db = empty_neo4j
    G = corpus_a()
    G.add_node("evil:x", label="Method`) DETACH DELETE n //", name="x")
    with pytest.raises(ExportError, match="is not in the schema"):
        kg_neo4j.push(G, driver, database=db)
    assert counts(driver, db) == (0, 0)


def test_fulltext_index_finds_entities_by_alias(empty_neo4j):
    driver, db = empty_neo4j
    kg_neo4j.push(corpus_a(), driver, database=db)
    driver.execute_query("CALL db.awaitIndexes(60)", database_=db)
    hits = _value(
        driver,
        db,
        "CALL db.index.fulltext.queryNodes('entity_names', $q) YIELD node, score "
        "RETURN node.id AS id ORDER BY score DESC",
        q="GT",
    )
    assert hits[0]["id"] == "method:graph transformer"


def test_remove_paper_whose_own_id_starts_with_paper_prefix(empty_neo4j):
    driver, db = empty_neo4j
    G = nx.MultiDiGraph(kg_schema=1)
    G.add_node(
        "method:bert", label="Method", name="BERT", aliases=["BERT"], support=2, mention_count=2
    )
    for own_id in ("z", "paper:z"):  # node ids paper:z and paper:paper:z
        G.add_node(f"paper:{own_id}", label="Paper", name=own_id, abstract=f"{own_id} uses BERT.")
        G.add_edge(
            f"paper:{own_id}",
            "method:bert",
            key="USES",
            type="USES",
            role="used",
            count=1,
            weight=1.0,
            evidence=[
                {"sentence": "uses BERT", "paper_id": own_id, "start": 0, "end": 4, "text": "BERT"}
            ],
        )
    kg_neo4j.push(G, driver, database=db)
    assert kg_neo4j.remove_paper(driver, "paper:z", database=db).papers == 1  # its own id wins
    papers = _value(driver, db, "MATCH (p:Paper) RETURN p.id AS id")
    assert papers == [{"id": "paper:z"}]
    assert _value(driver, db, "MATCH (e:Method) RETURN e.support AS s") == [{"s": 1}]
    assert kg_neo4j.remove_paper(driver, "z", database=db).papers == 1


def corpus_c() -> nx.MultiDiGraph:
    """A third corpus naming shared entities its own way: "TF" (one paper), "CORA" (two papers,
    as many as corpus A's "Cora"), and the Graph Transformer's USED_FOR edge once more."""
    from neo4j_graphs import _edge, _entity, _evidence, _paper

    G = nx.MultiDiGraph(kg_schema=1)
    _entity(G, "method:transformer", "Method", "TF", ["TF"], 1, 1)
    _entity(G, "method:graph transformer", "Method", "GraphTF", ["GraphTF"], 2, 2)
    _entity(G, "dataset:cora", "Dataset", "CORA", ["CORA"], 2, 2)
    _entity(
        G, "task:node classification", "Task", "node classification", ["node classification"], 2, 2
    )
    for pid, s in (
        ("c1", "TF and GraphTF on CORA for node classification."),
        ("c2", "GraphTF on CORA."),
    ):
        _paper(G, pid, pid, s)
        _edge(
            G,
            f"paper:{pid}",
            "method:graph transformer",
            "USES",
            role="used",
            count=1,
            weight=0.8,
            evidence=[_evidence(pid, s, "GraphTF")],
        )
        _edge(
            G,
            f"paper:{pid}",
            "dataset:cora",
            "EVALUATES_ON",
            role="used",
            count=1,
            weight=0.8,
            evidence=[_evidence(pid, s, "CORA")],
        )
        _edge(
            G,
            f"paper:{pid}",
            "task:node classification",
            "ADDRESSES",
            role="used",
            count=1,
            weight=0.8,
            evidence=[_evidence(pid, s, "node classification")],
        )
    _edge(
        G,
        "paper:c1",
        "method:transformer",
        "USES",
        role="used",
        count=1,
        weight=0.8,
        evidence=[_evidence("c1", "TF", "TF")],
    )
    _edge(
        G,
        "method:graph transformer",
        "task:node classification",
        "USED_FOR",
        count=3,
        weight=0.5,
        papers=["c1", "c2"],
        paper_counts=[2, 1],
        paper_weights=[0.5, 0.4],
        evidence=[
            _evidence("c1", "GraphTF for node classification.", "GraphTF"),
            _evidence("c2", "GraphTF for it.", "GraphTF"),
        ],
    )
    return G


def test_state_after_several_corpora_does_not_depend_on_push_order(empty_neo4j):
    import itertools

    driver, db = empty_neo4j
    corpora = {"A": corpus_a, "B": corpus_b, "C": corpus_c}
    states = {}
    for order in itertools.permutations("ABC"):
        clear_database(driver, db)
        for name in order:
            kg_neo4j.push(corpora[name](), driver, database=db)
        states["".join(order)] = dump(driver, db)
    assert all(state == states["ABC"] for state in states.values()), [
        k for k, v in states.items() if v != states["ABC"]
    ]
    names = {
        r["id"]: r["name"]
        for r in _value(driver, db, "MATCH (e:Entity) RETURN e.id AS id, e.name AS name")
    }
    assert names["method:transformer"] == "Transformer"  # a2 and b1 against c1
    assert (
        names["method:graph transformer"] == "Graph Transformer"
    )  # a1, a2 and b1 against c1 and c2
    assert names["dataset:cora"] == "CORA"  # two papers each: string order decides
    used_for = _value(
        driver,
        db,
        "MATCH (:Method {id: 'method:graph transformer'})-[r:USED_FOR]->() "
        "RETURN r.count AS count, r.weight AS weight, r.papers AS papers, r.support AS s",
    )
    assert used_for == [
        {
            "count": 2 + 1 + 3,
            "weight": 0.9,
            "s": 5,
            "papers": ["paper:a1", "paper:a2", "paper:b1", "paper:c1", "paper:c2"],
        }
    ]
    kg_neo4j.remove_paper(driver, "a1", database=db)
    kg_neo4j.remove_paper(driver, "a2", database=db)
    used_for = _value(
        driver, db, "MATCH ()-[r:USED_FOR]->() RETURN r.count AS count, r.weight AS weight"
    )
    assert used_for == [{"count": 1 + 3, "weight": 0.7}]
