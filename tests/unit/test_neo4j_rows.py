"""The pure half of the Neo4j export: rows, values, batching, Cypher builders, CSV files."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from graph_exports import cypher
from graph_exports.neo4j import batched, neo4j_value, to_rows
from graph_exports.neo4j_csv import ARRAY_DELIMITER, to_neo4j_csv
from kg.errors import ExportError


def tiny() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_node(
        "paper:p1",
        label="Paper",
        name="P1",
        abstract="We use BERT.",
        title_derived=True,
        authors=[],
        keywords=["nlp"],
        source="a.txt:2",
        mentions=[[7, 11, "METHOD", "method:bert"]],
    )
    G.add_node(
        "method:bert",
        label="Method",
        name="BERT",
        key="bert",
        aliases=["BERT", "Bert"],
        support=1,
        mention_count=1,
    )
    G.add_node(
        "task:qa", label="Task", name="QA", key="qa", aliases=["QA"], support=1, mention_count=1
    )
    ev = {
        "sentence": "We use BERT.",
        "start": 7,
        "end": 11,
        "text": "BERT",
        "extractor": "rules",
        "score": 1.0,
        "paper_id": "p1",
    }
    G.add_edge(
        "paper:p1", "method:bert", key="USES", type="USES", count=1, weight=1.0, evidence=[ev]
    )
    G.add_edge(
        "method:bert",
        "task:qa",
        key="USED_FOR",
        type="USED_FOR",
        count=1,
        weight=0.5,
        papers=["p1"],
        evidence=[ev],
    )
    return G


def test_batched_pins_exact_chunks():
    assert list(batched(range(5), 2)) == [[0, 1], [2, 3], [4]]
    assert list(batched([], 3)) == []
    with pytest.raises(ValueError):
        list(batched([1], 0))


def test_neo4j_value_keeps_storable_values_and_serialises_the_rest():
    assert neo4j_value(["a", "b"]) == ["a", "b"]
    assert neo4j_value([1, 2.5]) == [1, 2.5]
    assert neo4j_value([]) == []
    assert neo4j_value(None) is None
    assert neo4j_value({"a": 1}) == '{"a": 1}'
    assert json.loads(neo4j_value([[0, 4, "METHOD", "method:x"]])) == [[0, 4, "METHOD", "method:x"]]
    assert json.loads(neo4j_value(["a", 1])) == ["a", 1]


def test_to_rows_shapes_nodes_and_relationships():
    nodes, rels = to_rows(tiny())
    (paper,) = nodes["Paper"]
    assert paper["id"] == "paper:p1" and paper["props"]["id"] == "paper:p1"
    assert json.loads(paper["props"]["mentions"]) == [[7, 11, "METHOD", "method:bert"]]
    assert "label" not in paper["props"]
    (bert,) = nodes["Method"]
    assert bert["aliases"] == ["BERT", "Bert"] and "support" not in bert["props"]
    (uses,) = rels[("USES", "Paper", "Method")]
    assert uses["props"]["sentences"] == ["We use BERT."] and uses["props"]["evidence_count"] == 1
    assert json.loads(uses["props"]["evidence"][0])["text"] == "BERT"
    (used_for,) = rels[("USED_FOR", "Method", "Task")]
    assert used_for["papers"] == ["paper:p1"] and used_for["evidence_papers"] == ["paper:p1"]
    assert to_rows(tiny()) == to_rows(tiny())


def test_to_rows_refuses_labels_and_types_outside_the_schema():
    G = tiny()
    G.add_node("x:1", label="Person", name="x")
    with pytest.raises(ExportError, match="'Person' is not in the schema"):
        to_rows(G)
    G = tiny()
    G.add_edge("method:bert", "task:qa", key="HATES", type="HATES")
    with pytest.raises(ExportError, match="'HATES' is not in the schema"):
        to_rows(G)


def test_cypher_builders_take_labels_only_from_the_schema():
    assert "MERGE (n:Method {id: row.id})" in cypher.merge_entity_nodes("Method")
    assert "MERGE (a)-[r:USES]->(b)" in cypher.merge_relationships("USES", "Paper", "Method")
    with pytest.raises(ValueError):
        cypher.merge_entity_nodes("Method {id: 1}) DETACH DELETE n //")
    with pytest.raises(ValueError):
        cypher.merge_relationships("USES]->() DELETE r //", "Paper", "Method")
    # one unique-id constraint per label (Paper, four entity labels, Entity, Result) and the full-text index
    assert len(cypher.schema_statements()) == 8
    assert any("FOR (n:Result) REQUIRE n.id IS UNIQUE" in s for s in cypher.schema_statements())


def test_neo4j_csv_headers_and_arrays():
    files = to_neo4j_csv(tiny())
    assert files["nodes-Method.csv"][0] == [
        "id:ID",
        ":LABEL",
        "aliases:string[]",
        "key:string",
        "mention_count:long",
        "name:string",
        "support:long",
    ]
    assert files["nodes-Method.csv"][1][:3] == [
        "method:bert",
        f"Method{ARRAY_DELIMITER}Entity",
        f"BERT{ARRAY_DELIMITER}Bert",
    ]
    header = files["relationships-USED_FOR.csv"][0]
    assert header[:3] == [":START_ID", ":END_ID", ":TYPE"] and "papers:string[]" in header
    assert (
        files["nodes-Paper.csv"][0][:2] == ["id:ID", ":LABEL"]
        and "title_derived:boolean" in files["nodes-Paper.csv"][0]
    )


def test_a_node_id_longer_than_neo4j_indexes_is_refused_before_anything_is_sent():
    G = tiny()
    G.add_node("paper:" + "é" * 5000, label="Paper", name="long")  # 10,006 bytes of UTF-8
    with pytest.raises(
        ExportError, match=r"id is 10,006 bytes, over the 8,000 a Neo4j index key holds"
    ):
        to_rows(G)
