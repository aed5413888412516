"""Real-Neo4j fixtures for the integration tests (no mocks).

``neo4j_driver`` talks to the server named by ``NEO4J_URI`` (with ``NEO4J_USERNAME`` /
``NEO4J_PASSWORD`` / ``NEO4J_DATABASE``) when that is set; otherwise it starts a throw-away Neo4j with
``docker/neo4j.sh`` in a temporary instance directory and stops it when the session ends, so a plain
``pytest`` works on any machine with Java 17 (and Maven for the first download).

``neo4j_instance`` starts further servers of the same installation for tests that must break one
(wrong password, a server killed mid-push) or import into a fresh database.
"""

from __future__ import annotations

import os
import shutil

import pytest
from neo4j_server import Neo4jInstance, clear_database

@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory):
    """``(uri, auth, database)`` of the test server, started here unless ``NEO4J_URI`` is set."""
    database = os.environ.get("NEO4J_DATABASE") or "neo4j"
    uri = os.environ.get("NEO4J_URI")
    if uri:
        user = os.environ.get("NEO4J_USERNAME", "neo4j")
        password = os.environ.get("NEO4J_PASSWORD")
        yield uri, ((user, password) if password else None), database
        return
    instance = Neo4jInstance(tmp_path_factory.mktemp("neo4j-main"))
    instance.start()
    try:
        yield instance.uri, None, database
    finally:
        instance.stop()
        shutil.rmtree(instance.directory, ignore_errors=True)


@pytest.fixture(scope="session")
def neo4j_database(neo4j_settings) -> str:
    return neo4j_settings[2]


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_settings):
    """One driver for the session, connected to the test server."""
    import neo4j

    uri, auth, _ = neo4j_settings
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        driver.verify_connectivity()
        yield driver


@pytest.fixture
def empty_neo4j(neo4j_driver, neo4j_database):
    """The test server's database with no nodes or relationships: ``(driver, database)``."""
    clear_database(neo4j_driver, neo4j_database)
    return neo4j_driver, neo4j_database


@pytest.fixture
def bare_neo4j(neo4j_driver, neo4j_database):
    """Like ``empty_neo4j``, and without constraints or indexes either."""
    clear_database(neo4j_driver, neo4j_database, schema=True)
    return neo4j_driver, neo4j_database


@pytest.fixture
def neo4j_instance(tmp_path):
    """Factory for extra servers of the same installation; every one started is stopped afterwards."""
    started: list[Neo4jInstance] = []

    def make(name: str = "extra", *, auth: str = "none", start: bool = True) -> Neo4jInstance:
        instance = Neo4jInstance(tmp_path / f"neo4j-{name}", auth=auth)
        instance.directory.mkdir(parents=True)
        started.append(instance)
        if start:
            instance.start()
        return instance

    yield make
    for instance in started:
        instance.stop()
