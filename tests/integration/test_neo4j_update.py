"""``kg push`` of a graph grown with ``kg build --update`` brings Neo4j to the state of that graph
pushed into an empty database: the new RELATED_TO edges are there, the ones it no longer has are
gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from neo4j_graphs import dump
from neo4j_server import clear_database

from graph_exports import neo4j as kg_neo4j
from graph_exports.outputs import write_build_outputs
from kg.build import build
from kg.corpus import read_corpus

pytestmark = pytest.mark.neo4j

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "iclr2026"


def _related(graph) -> set[tuple[str, str]]:
    return {(u, v) for u, v, k in graph.nx.edges(keys=True) if k == "RELATED_TO"}


def test_push_of_an_updated_graph_matches_a_fresh_push_and_drops_stale_related_to(
    nlp, tmp_path, empty_neo4j
):
    driver, db = empty_neo4j
    papers = list(read_corpus([EXAMPLES]))
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path, chunk in ((a, papers[:35]), (b, papers[35:])):
        path.write_text(
            "".join(
                json.dumps({"id": p.id, "title": p.title, "abstract": p.abstract}) + "\n"
                for p in chunk
            ),
            encoding="utf-8",
        )
    first = build([a], nlp, related_k=1)
    out = tmp_path / "graph"
    write_build_outputs(
        first.graph,
        first.merges,
        first.summary.to_dict(),
        out,
        html=False,
        store=first.store,
    )
    kg_neo4j.push(first.graph, driver, database=db)

    updated = build([b], nlp, related_k=1, update=out)
    assert updated.summary.reused == 35
    stale = _related(first.graph) - _related(updated.graph)
    assert stale, "the new papers should displace some of the old papers' nearest neighbours"
    assert _related(updated.graph) - _related(first.graph)
    stats = kg_neo4j.push(updated.graph, driver, database=db)
    assert stats.relationships_deleted >= len(stale)
    incremental = dump(driver, db)

    clear_database(driver, db)
    kg_neo4j.push(updated.graph, driver, database=db)
    assert incremental == dump(driver, db)
    rows, _, _ = driver.execute_query(
        "MATCH (a:Paper)-[:RELATED_TO]->(b:Paper) RETURN a.id AS a, b.id AS b", database_=db
    )
    assert {(r["a"], r["b"]) for r in rows} == _related(updated.graph)
