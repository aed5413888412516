"""The bulk path: `kg export --format neo4j-csv` files imported by neo4j-admin into a fresh database."""

from __future__ import annotations

import pytest
from neo4j_graphs import corpus_a, dump

from graph_exports import neo4j as kg_neo4j
from graph_exports.neo4j_csv import write_neo4j_csv
from kg.trends import annotate_years

pytestmark = pytest.mark.neo4j


def _without_empty_lists(state: dict) -> dict:
    """neo4j-admin stores no property for an empty array, where a push stores []."""
    import json

    def clean(props: str) -> str:
        return json.dumps({k: v for k, v in json.loads(props).items() if v != []}, sort_keys=True)

    return {
        "nodes": [(labels, clean(props)) for labels, props in state["nodes"]],
        "relationships": [(a, t, b, clean(props)) for a, t, b, props in state["relationships"]],
    }


def test_neo4j_admin_import_of_the_csv_files_matches_a_push(tmp_path, neo4j_instance, empty_neo4j):
    graph = corpus_a()
    annotate_years(graph)  # as kg build leaves it: a push recomputes the years from the papers
    files = write_neo4j_csv(graph, tmp_path / "csv")
    assert (files.node_count, files.relationship_count) == (8, 14)

    fresh = neo4j_instance("import", start=False)  # same installation, new instance directory
    done = fresh.admin("database", "import", "full", f"@{files.directory / 'import.args'}", "neo4j")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "IMPORT DONE" in done.stdout + done.stderr
    fresh.start()
    with kg_neo4j.open_driver(fresh.uri) as imported_driver:
        for statement in (
            (files.directory / "schema.cypher").read_text(encoding="utf-8").split(";\n")
        ):
            if statement.strip():
                imported_driver.execute_query(statement)

    driver, db = empty_neo4j
    kg_neo4j.push(graph, driver, database=db)
    pushed = dump(driver, db)
    with kg_neo4j.open_driver(fresh.uri) as imported_driver:
        imported = dump(imported_driver, "neo4j")
        constraints, _, _ = imported_driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN name")
    assert (
        len(constraints) == 7
    )  # one unique id per label: Paper, the four entity labels, Entity, Result
    assert len(imported["nodes"]) == 8 and len(imported["relationships"]) == 14
    assert _without_empty_lists(imported) == _without_empty_lists(pushed)
