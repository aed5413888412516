"""Real-Neo4j fixtures for the integration tests (no mocks).

The suite starts its own throw-away Neo4j with ``docker/neo4j.sh``, in an instance directory under
pytest's temporary folder and on a free port, and stops it when the session ends; two runs on one
machine never share a server, and a user's own server (``NEO4J_URI``, ``docker/neo4j.sh``'s default instance)
is never touched. ``KG_TEST_NEO4J_URI`` (with ``KG_TEST_NEO4J_USERNAME`` / ``_PASSWORD`` /
``_DATABASE``) opts in to a server you started for the tests; the suite refuses it unless its database
is empty or already marked as the suite's (``neo4j_server.claim_database``).

``neo4j_instance`` starts further servers of the same installation for tests that must break one
(wrong password, a server killed mid-push) or import into a fresh database.
"""

from __future__ import annotations

import os
import shutil

import pytest
from neo4j_server import (
    Neo4jInstance,
    NotATestDatabase,
    claim_database,
    clear_database,
    external_server,
)


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory):
    """``(uri, auth, database)`` of the test server: the suite's own, or ``KG_TEST_NEO4J_URI``'s."""
    external = external_server(os.environ)
    if external:
        yield external
        return
    instance = Neo4jInstance(tmp_path_factory.mktemp("neo4j-main"))
    instance.start()
    try:
        yield instance.uri, None, "neo4j"
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
        try:
            claim_database(driver, neo4j_settings[2])
        except NotATestDatabase as exc:
            pytest.exit(str(exc), returncode=3)
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
