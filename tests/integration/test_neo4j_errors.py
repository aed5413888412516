"""Failures of a push name the problem and what to do; a re-run after a failure completes the load."""

from __future__ import annotations

import socket
import threading

import pytest
from neo4j_graphs import corpus_a, counts, synthetic_graph
from neo4j_server import Neo4jInstance

from graph_exports import neo4j as kg_neo4j
from kg.errors import Neo4jError

pytestmark = pytest.mark.neo4j

PASSWORD = "kg-test-password"


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory):
    """A second server of the same installation, with a password, that tests may kill."""
    instance = Neo4jInstance(tmp_path_factory.mktemp("neo4j-auth"), auth=f"neo4j/{PASSWORD}")
    instance.start()
    yield instance
    instance.stop()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_server_is_one_line_saying_start_it():
    with kg_neo4j.open_driver(
        f"bolt://127.0.0.1:{_closed_port()}", connection_timeout=2, max_transaction_retry_time=0
    ) as driver:
        with pytest.raises(
            Neo4jError, match=r"cannot reach Neo4j at 127\.0\.0\.1:\d+: is the server running"
        ) as err:
            kg_neo4j.push(corpus_a(), driver)
    assert "\n" not in str(err.value)


def test_wrong_password_is_one_line_naming_the_options(auth_server):
    with kg_neo4j.open_driver(auth_server.uri, "neo4j", "not-the-password") as driver:
        with pytest.raises(
            Neo4jError, match=r"refused the user name or password; check --user/--password"
        ):
            kg_neo4j.push(corpus_a(), driver)


def test_unknown_database_is_one_line_naming_the_option(neo4j_driver):
    with pytest.raises(
        Neo4jError, match=r"has no database 'no-such-db'; pass an existing one with --database"
    ):
        kg_neo4j.push(corpus_a(), neo4j_driver, database="no-such-db")


def test_server_dying_mid_push_then_rerun_completes_without_duplicates(auth_server):
    graph = synthetic_graph(1000)
    expected_nodes = graph.number_of_nodes()
    expected_rels = graph.number_of_edges()
    with kg_neo4j.open_driver(
        auth_server.uri, "neo4j", PASSWORD, max_transaction_retry_time=1, connection_timeout=2
    ) as driver:
        started = threading.Event()
        original = driver.execute_query

        def killing_execute_query(query, *args, **kwargs):
            if "MERGE (a)-[r:" in query and not started.is_set():  # first relationship batch
                started.set()
                auth_server.kill()
            return original(query, *args, **kwargs)

        driver.execute_query = killing_execute_query
        with pytest.raises(
            Neo4jError,
            match=r"lost the connection to Neo4j at .* during the push "
            r"\(after [\d,]+ of [\d,]+ rows\); start the server again",
        ) as err:
            kg_neo4j.push(graph, driver, batch_size=100)
        assert "\n" not in str(err.value)
    auth_server.start()
    with kg_neo4j.open_driver(auth_server.uri, "neo4j", PASSWORD) as driver:
        kg_neo4j.push(graph, driver, batch_size=1000)
        assert counts(driver, "neo4j") == (expected_nodes, expected_rels)
