"""The test suite never uses, clears or stops a Neo4j it did not start (issue 14, deliver 1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import neo4j
import pytest
from neo4j_server import NotATestDatabase, claim_database, clear_database, external_server

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]


def test_only_the_kg_test_variables_name_an_external_test_server():
    user = {"NEO4J_URI": "bolt://127.0.0.1:7687", "NEO4J_PASSWORD": "users-own-secret"}
    assert external_server(user) is None
    assert external_server(
        {
            **user,
            "KG_TEST_NEO4J_URI": "bolt://127.0.0.1:9999",
            "KG_TEST_NEO4J_PASSWORD": "p4ssword!",
        }
    ) == ("bolt://127.0.0.1:9999", ("neo4j", "p4ssword!"), "neo4j")


def test_the_user_neo4j_settings_are_not_passed_on_to_the_tests():
    assert (
        not {"NEO4J_URI", "NEO4J_PASSWORD", "NEO4J_INSTANCE", "NEO4J_DATABASE"} & os.environ.keys()
    )


def test_session_server_was_started_by_this_run_in_its_own_folder(neo4j_settings, tmp_path_factory):
    if external_server(os.environ):
        pytest.skip("KG_TEST_NEO4J_URI names the server")
    port = neo4j_settings[0].rsplit(":", 1)[1]
    ours = [p for p in tmp_path_factory.getbasetemp().glob("neo4j-main[0-9]*/run/kg-neo4j.port")]
    assert [p.read_text().strip() for p in ours] == [port], ours
    default_instance = Path.home() / ".cache" / "kg" / "neo4j" / "instance"
    assert default_instance not in ours[0].parents


@pytest.fixture
def users_server(neo4j_instance):
    """A server holding someone's data: one node the suite did not write."""
    instance = neo4j_instance("users")
    with neo4j.GraphDatabase.driver(instance.uri) as driver:
        driver.execute_query("CREATE (:Thesis {title: 'three years of work'})", database_="neo4j")
    return instance


def _theses(uri: str) -> int:
    with neo4j.GraphDatabase.driver(uri) as driver:
        records, _, _ = driver.execute_query(
            "MATCH (t:Thesis) RETURN count(t) AS n", database_="neo4j"
        )
    return records[0]["n"]


def test_database_with_nodes_the_suite_did_not_write_is_refused_and_left_intact(users_server):
    with neo4j.GraphDatabase.driver(users_server.uri) as driver:
        with pytest.raises(NotATestDatabase, match="holds 1 nodes the test suite did not write"):
            claim_database(driver, "neo4j")
        with pytest.raises(NotATestDatabase, match="not claimed by the test suite"):
            clear_database(driver, "neo4j")
    assert _theses(users_server.uri) == 1


def test_suite_pointed_at_a_users_server_stops_before_any_test(users_server, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_TEST_NEO4J_")}
    env["KG_TEST_NEO4J_URI"] = users_server.uri
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--basetemp={tmp_path / 'inner'}",
            "tests/integration/test_neo4j_push.py::test_push_twice_leaves_identical_counts_and_properties",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert (
        "holds 1 nodes the test suite did not write; refusing to use it"
        in done.stdout + done.stderr
    )
    assert _theses(users_server.uri) == 1
