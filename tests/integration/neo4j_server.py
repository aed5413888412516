"""Start and stop throw-away Neo4j servers with docker/neo4j.sh (used by conftest.py and tests)."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

NEO4J_SH = Path(__file__).resolve().parents[2] / "docker" / "neo4j.sh"


@dataclass
class Neo4jInstance:
    """A server started by ``docker/neo4j.sh`` in its own instance directory."""

    directory: Path
    auth: str = "none"
    uri: str = ""
    env: dict[str, str] = field(default_factory=dict)

    def _run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        env = {**os.environ, "NEO4J_INSTANCE": str(self.directory), "NEO4J_AUTH": self.auth, **self.env}
        if "NEO4J_BOLT_PORT" not in self.env:  # a fixed port would collide between instances
            env.pop("NEO4J_BOLT_PORT", None)
        return subprocess.run(["bash", str(NEO4J_SH), *args], env=env, capture_output=True, text=True,
                              timeout=timeout, check=False, cwd=self.directory)

    def start(self) -> str:
        done = self._run("start")
        if done.returncode != 0:
            raise RuntimeError(f"docker/neo4j.sh start failed ({done.returncode}):\n{done.stderr}")
        self.uri = done.stdout.strip().splitlines()[-1]
        return self.uri

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


def clear_database(driver, database: str, *, schema: bool = False) -> None:
    """Delete every node and relationship; with ``schema``, also every constraint and index
    (which makes the server re-plan its queries, so only tests of the schema ask for it)."""
    with driver.session(database=database) as session:   # in chunks: a big graph exceeds one transaction's memory
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
    if not schema:
        return
    records, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN name", database_=database)
    for record in records:
        driver.execute_query(f"DROP CONSTRAINT `{record['name']}` IF EXISTS", database_=database)
    records, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name", database_=database)
    for record in records:
        driver.execute_query(f"DROP INDEX `{record['name']}` IF EXISTS", database_=database)
