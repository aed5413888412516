"""`kg push` and `kg export --format neo4j-csv` from the command line, against the real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from neo4j_graphs import corpus_a, corpus_b, counts

from kg.graph import KnowledgeGraph

pytestmark = pytest.mark.neo4j


def kg(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", *args],
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def graph_files(tmp_path):
    a = KnowledgeGraph(corpus_a()).save(tmp_path / "a" / "graph.json")
    b = KnowledgeGraph(corpus_b()).save(tmp_path / "b" / "graph.json")
    return a, b


@pytest.fixture
def server_env(neo4j_settings):
    uri, auth, database = neo4j_settings
    env = {"NEO4J_URI": uri, "NEO4J_DATABASE": database}
    if auth:
        env.update(NEO4J_USERNAME=auth[0], NEO4J_PASSWORD=auth[1])
    return env


def test_kg_push_reads_the_environment_and_is_idempotent(empty_neo4j, graph_files, server_env):
    driver, db = empty_neo4j
    first = kg("push", str(graph_files[0]), "--json", env=server_env)
    assert first.returncode == 0, first.stderr
    stats = json.loads(first.stdout)
    assert stats["nodes_created"] == 8 and stats["relationships_created"] == 14
    again = kg("push", str(graph_files[0]), "--batch-size", "2", env=server_env)
    assert again.returncode == 0, again.stderr
    assert (
        "pushed 8 nodes and 14 relationships" in again.stdout
        and "0 nodes and 0 relationships new" in again.stdout
    )
    assert counts(driver, db) == (8, 14)


def test_kg_push_options_override_and_remove_paper(empty_neo4j, graph_files, server_env):
    driver, db = empty_neo4j
    options = ["--uri", server_env["NEO4J_URI"], "--database", server_env["NEO4J_DATABASE"]]
    env = {
        k: v
        for k, v in server_env.items()
        if k.startswith("NEO4J_PASSWORD") or k.startswith("NEO4J_USERNAME")
    }
    assert kg("push", str(graph_files[0]), *options, env=env).returncode == 0
    assert kg("push", str(graph_files[1]), *options, env=env).returncode == 0
    assert counts(driver, db)[0] == 10
    removed = kg("push", "--remove-paper", "b1", *options, env=env)
    assert removed.returncode == 0, removed.stderr
    assert "removed b1: 1 entities" in removed.stderr  # PubMed went with it
    assert counts(driver, db)[0] == 8
    missing = kg("push", "--remove-paper", "nope", *options, env=env)
    assert missing.returncode == 0 and "no such paper" in missing.stderr


def test_kg_push_failure_is_one_line_with_nonzero_exit(graph_files, server_env):
    env = {**server_env, "NEO4J_DATABASE": "missing-db"}
    done = kg("push", str(graph_files[0]), env=env)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and "has no database 'missing-db'" in lines[0]
        and "Traceback" not in done.stderr
    )
    debug = kg("push", str(graph_files[0]), "--debug", env=env)
    assert debug.returncode != 0 and "Traceback" in debug.stderr


def test_kg_push_unreachable_server(graph_files):
    done = kg("push", str(graph_files[0]), "--uri", "bolt://127.0.0.1:9")
    assert done.returncode == 1 and "cannot reach Neo4j at 127.0.0.1:9" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_kg_export_neo4j_csv_writes_import_files(tmp_path, graph_files):
    out = tmp_path / "import"
    done = kg("export", str(graph_files[0]), "--format", "neo4j-csv", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "8 nodes, 14 relationships" in done.stderr
    names = sorted(p.name for p in out.iterdir())
    assert (
        "nodes-Paper.csv" in names and "relationships-USES.csv" in names and "import.args" in names
    )
    header = (out / "nodes-Paper.csv").read_text(encoding="utf-8").splitlines()[0]
    assert (
        header.startswith("id:ID,:LABEL,")
        and "year:long" in header
        and "authors:string[]" in header
    )
    rel_header = (out / "relationships-USES.csv").read_text(encoding="utf-8").splitlines()[0]
    assert rel_header.startswith(":START_ID,:END_ID,:TYPE,")


def test_kg_build_with_neo4j_pushes_the_built_graph(tmp_path, empty_neo4j, server_env):
    from pathlib import Path

    driver, db = empty_neo4j
    examples = Path(__file__).resolve().parents[2] / "examples" / "iclr2026"
    env = {k: v for k, v in server_env.items() if k != "NEO4J_URI"}
    done = kg(
        "build",
        str(examples),
        "-o",
        str(tmp_path / "out"),
        "--no-html",
        "--neo4j",
        server_env["NEO4J_URI"],
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "pushed" in done.stderr
    built = KnowledgeGraph.load(tmp_path / "out" / "graph.json").nx
    assert counts(driver, db) == (built.number_of_nodes(), built.number_of_edges())
