"""Result nodes in a real Neo4j: pushed with their links, replaced when a paper is re-pushed with
other results, and removed with their paper."""

from __future__ import annotations

import pytest

from graph_exports import neo4j as kg_neo4j
from kg.build import build_from_papers
from kg.model import Paper

pytestmark = pytest.mark.neo4j

TRACKER = (
    "We propose FARTrack, a fast visual tracker. FARTrack achieves an AO of 70.6% on GOT-10k in "
    "real-time. It improves accuracy by 4.3 points over GPTQ on ImageNet."
)
OTHER = "We present SlowTrack for visual tracking. SlowTrack reaches an AO of 65.2% on GOT-10k."


def _rows(driver, db, query, **params):
    records, _, _ = driver.execute_query(query, parameters_=params, database_=db)
    return [r.data() for r in records]


def test_results_push_repush_and_remove(empty_neo4j, nlp):
    driver, db = empty_neo4j
    first = build_from_papers(
        [Paper(id="a1", abstract=TRACKER), Paper(id="a2", abstract=OTHER)], nlp
    ).graph
    kg_neo4j.push(first, driver, database=db)
    rows = _rows(
        driver,
        db,
        "MATCH (p:Paper)-[:REPORTS_RESULT]->(r:Result) OPTIONAL MATCH (r)-[:ON]->(d:Dataset) "
        "RETURN p.id AS paper, r.value AS value, r.metric AS metric, d.name AS dataset "
        "ORDER BY paper, value",
    )
    assert rows == [
        {"paper": "paper:a1", "value": 4.3, "metric": "accuracy", "dataset": "ImageNet"},
        {"paper": "paper:a1", "value": 70.6, "metric": "AO", "dataset": "GOT-10k"},
        {"paper": "paper:a2", "value": 65.2, "metric": "AO", "dataset": "GOT-10k"},
    ]
    # a changed paper 1 states one result, on another data set: its old result and links go
    changed = TRACKER.replace("on GOT-10k", "on ImageNet").split(" It improves")[0]
    second = build_from_papers([Paper(id="a1", abstract=changed)], nlp).graph
    kg_neo4j.push(second, driver, database=db)
    rows = _rows(
        driver,
        db,
        "MATCH (r:Result) OPTIONAL MATCH (r)-[:ON]->(d) "
        "RETURN r.id AS id, r.value AS value, collect(d.name) AS on ORDER BY id",
    )
    assert [(r["value"], r["on"]) for r in rows] == [(70.6, ["ImageNet"]), (65.2, ["GOT-10k"])]
    kg_neo4j.remove_paper(driver, "a1", database=db)
    assert _rows(driver, db, "MATCH (r:Result) RETURN r.paper_id AS paper") == [{"paper": "a2"}]
