"""Start and stop throw-away Neo4j servers with docker/neo4j.sh, and keep the suite off databases it
does not own (used by conftest.py and tests).

A database belongs to the test suite when it carries the marker index :data:`MARKER_INDEX`. The suite
puts the marker only on an empty database, and never deletes from a database without it: a user's
server named by mistake is refused with its data untouched.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

NEO4J_SH = Path(__file__).resolve().parents[2] / "docker" / "neo4j.sh"

#: Name of the index that marks a database as the test suite's own (an index, not a node, so the
#: tests' node and relationship counts stay exact).
MARKER_INDEX = "kg_test_suite_owns_this_database"

#: The only variables that point the suite at a server it did not start (``NEO4J_URI`` and friends
#: are the user's own settings and are ignored).
TEST_SERVER_VARIABLES = (
    "KG_TEST_NEO4J_URI",
    "KG_TEST_NEO4J_USERNAME",
    "KG_TEST_NEO4J_PASSWORD",
    "KG_TEST_NEO4J_DATABASE",
)


class NotATestDatabase(RuntimeError):
    """The database holds nodes the test suite did not write; the suite will not touch it."""


def external_server(env: Mapping[str, str]) -> tuple[str, tuple[str, str] | None, str] | None:
    """``(uri, auth, database)`` of a server the user started for the tests (``KG_TEST_NEO4J_URI``),
    or None: then the suite starts its own."""
    uri = env.get("KG_TEST_NEO4J_URI")
    if not uri:
        return None
    password = env.get("KG_TEST_NEO4J_PASSWORD")
    auth = (env.get("KG_TEST_NEO4J_USERNAME") or "neo4j", password) if password else None
    return uri, auth, env.get("KG_TEST_NEO4J_DATABASE") or "neo4j"


@dataclass
class Neo4jInstance:
    """A server started by ``docker/neo4j.sh`` in its own instance directory, on a free port."""

    directory: Path
    auth: str = "none"
    uri: str = ""
    env: dict[str, str] = field(default_factory=dict)

    def _run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        env = {
            **os.environ,
            "NEO4J_INSTANCE": str(self.directory),
            "NEO4J_AUTH": self.auth,
            **self.env,
        }
        if "NEO4J_BOLT_PORT" not in self.env:  # a fixed port would collide between instances
            env.pop("NEO4J_BOLT_PORT", None)
        return subprocess.run(
            ["bash", str(NEO4J_SH), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=self.directory,
        )

    def start(self, attempts: int = 3) -> str:
        """Start the server; a port taken between choosing and binding it (another test run on the
        same machine) is retried on a new free port."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for _attempt in range(attempts):
            done = self._run("start")
            if done.returncode == 0:
                self.uri = done.stdout.strip().splitlines()[-1]
                return self.uri
            (self.directory / "run" / "kg-neo4j.port").unlink(missing_ok=True)
        raise RuntimeError(
            f"docker/neo4j.sh start failed ({done.returncode}) in {self.directory}:\n{done.stderr}"
        )

    def stop(self) -> None:
        self._run("stop", timeout=120)

    def kill(self) -> None:
        """End the server abruptly (SIGKILL to the pid ``start`` recorded), as a crash would."""
        pid = int((self.directory / "run" / "kg-neo4j.pid").read_text())
        os.kill(pid, 9)
        for _ in range(100):
            if not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.1)

    def admin(self, *args: str) -> subprocess.CompletedProcess:
        return self._run("admin", *args)

    @property
    def credentials(self) -> tuple[str, str] | None:
        if self.auth == "none":
            return None
        user, _, password = self.auth.partition("/")
        return (user, password)


def _has_marker(driver, database: str) -> bool:
    records, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name WHERE name = $name RETURN name",
        parameters_={"name": MARKER_INDEX},
        database_=database,
    )
    return bool(records)


def _node_count(driver, database: str) -> int:
    records, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS n", database_=database)
    return records[0]["n"]


def claim_database(driver, database: str) -> None:
    """Mark ``database`` as the suite's own, which only an empty database (or one already marked) may be.

    Raises:
        NotATestDatabase: it holds nodes and no marker, so they are someone else's.
    """
    if _has_marker(driver, database):
        return
    nodes = _node_count(driver, database)
    if nodes:
        raise NotATestDatabase(
            f"database {database!r} holds {nodes:,} nodes the test suite did not write; refusing to use it. "
            "Unset KG_TEST_NEO4J_URI to let the tests start their own server, or point it at an empty database"
        )
    driver.execute_query(
        f"CREATE INDEX `{MARKER_INDEX}` IF NOT EXISTS FOR (n:KgTestSuiteMarker) ON (n.id)",
        database_=database,
    )


def clear_database(driver, database: str, *, schema: bool = False) -> None:
    """Delete every node and relationship of a database the suite owns; with ``schema``, also every
    constraint and index but the marker (which makes the server re-plan its queries, so only tests
    of the schema ask for it).

    Raises:
        NotATestDatabase: the database has no marker (see :func:`claim_database`); nothing is deleted.
    """
    if not _has_marker(driver, database):
        raise NotATestDatabase(
            f"database {database!r} was not claimed by the test suite; not clearing it"
        )
    with driver.session(
        database=database
    ) as session:  # in chunks: a big graph exceeds one transaction's memory
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
    if not schema:
        return
    records, _, _ = driver.execute_query(
        "SHOW CONSTRAINTS YIELD name RETURN name", database_=database
    )
    for record in records:
        driver.execute_query(f"DROP CONSTRAINT `{record['name']}` IF EXISTS", database_=database)
    records, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' AND name <> $marker RETURN name",
        parameters_={"marker": MARKER_INDEX},
        database_=database,
    )
    for record in records:
        driver.execute_query(f"DROP INDEX `{record['name']}` IF EXISTS", database_=database)
