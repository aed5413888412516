"""Entity years in Neo4j (``first_year``, ``papers_by_year``, ``mean_year``) come from the papers
the database holds, not from whichever graph was pushed last: two corpora pushed one after the
other give what one build of both gives, in either order, and removing a paper updates them."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from neo4j_graphs import corpus_a, corpus_b, dump
from neo4j_server import clear_database

from graph_exports import neo4j as kg_neo4j
from kg.trends import annotate_years

pytestmark = pytest.mark.neo4j

YEARS = {"paper:a1": 2019, "paper:a2": 2020, "paper:b1": 2021}


def _dated(G: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """The corpus as ``kg build`` leaves it: papers dated, entities annotated from them."""
    for node, year in YEARS.items():
        if node in G:
            G.nodes[node]["year"] = year
    annotate_years(G)
    return G


def _years(driver, db) -> dict[str, dict]:
    with driver.session(database=db) as s:
        rows = s.run(
            "MATCH (e:Entity) RETURN e.id AS id, e.first_year AS first, "
            "e.papers_by_year AS by_year, e.mean_year AS mean"
        ).data()
    return {r["id"]: r for r in rows}


def test_entity_years_are_those_of_the_databases_papers(empty_neo4j):
    driver, db = empty_neo4j
    b_alone = _dated(corpus_b())
    assert b_alone.nodes["method:graph transformer"]["first_year"] == 2021  # what B's graph says
    both = nx.compose(_dated(corpus_a()), _dated(corpus_b()))
    annotate_years(both)  # one build of both corpora

    kg_neo4j.push(_dated(corpus_a()), driver, database=db)
    kg_neo4j.push(b_alone, driver, database=db)
    years = _years(driver, db)
    gt = years["method:graph transformer"]
    assert (gt["first"], json.loads(gt["by_year"]), gt["mean"]) == (
        2019,
        {"2019": 1, "2020": 1, "2021": 1},
        2020.0,
    )
    for entity, row in years.items():  # every entity as one build of both corpora has it
        d = both.nodes[entity]
        by_year = json.loads(row["by_year"]) if row["by_year"] is not None else None
        assert (row["first"], by_year, row["mean"]) == (
            d.get("first_year"),
            d.get("papers_by_year"),
            pytest.approx(d["mean_year"]) if "mean_year" in d else None,
        ), entity
    ab = dump(driver, db)

    clear_database(driver, db)
    kg_neo4j.push(_dated(corpus_b()), driver, database=db)
    kg_neo4j.push(_dated(corpus_a()), driver, database=db)
    assert dump(driver, db) == ab  # push order does not matter

    kg_neo4j.remove_paper(driver, "a1", database=db)
    gt = _years(driver, db)["method:graph transformer"]
    assert (gt["first"], json.loads(gt["by_year"]), gt["mean"]) == (
        2020,
        {"2020": 1, "2021": 1},
        2020.5,
    )


def test_entities_of_undated_papers_carry_no_years(empty_neo4j):
    driver, db = empty_neo4j
    G = corpus_a()
    for _, d in G.nodes(data=True):
        d.pop("year", None)
    kg_neo4j.push(G, driver, database=db)
    assert _years(driver, db) and all(
        row["first"] is None and row["by_year"] is None and row["mean"] is None
        for row in _years(driver, db).values()
    )
