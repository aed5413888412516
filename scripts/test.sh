#!/usr/bin/env bash
# The whole test suite on a fresh machine: install kg and its test and lint tools into .venv, run
# ruff (lint and format check) and mypy, install Debian's chromium for the browser tests, and run
# pytest (extra arguments go to pytest). The tests
# start and stop their own Neo4j (a temporary instance folder, a free port); they never use the
# server of NEO4J_URI or docker/neo4j.sh's default instance. KG_TEST_NEO4J_URI names a server
# started for the tests instead (its database must be empty; see tests/integration/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${KG_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[test,lint]"

# lint, format and types first (settings in pyproject.toml): a minute, before minutes of tests
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
"$VENV/bin/mypy"

scripts/install-system-deps.sh
export KG_REQUIRE_BROWSER=1  # the browser tests fail, not skip, when chromium is missing

"$VENV/bin/python" -m pytest "$@"
