#!/usr/bin/env bash
# The whole test suite on a fresh machine: install kg and its test tools into .venv, install
# Debian's chromium for the browser tests, start a real Neo4j unless NEO4J_URI is already set, run
# pytest (extra arguments go to pytest), and stop the server again.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${KG_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[test]"

scripts/install-system-deps.sh
export KG_REQUIRE_BROWSER=1  # the browser tests fail, not skip, when chromium is missing

if [ -z "${NEO4J_URI:-}" ]; then
    echo "starting Neo4j (docker/neo4j.sh) ..." >&2
    NEO4J_URI=$(bash docker/neo4j.sh start | tail -n 1)
    export NEO4J_URI
    trap 'bash docker/neo4j.sh stop >&2 || true' EXIT
    echo "Neo4j at $NEO4J_URI" >&2
fi

"$VENV/bin/python" -m pytest "$@"
