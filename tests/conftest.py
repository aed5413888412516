"""Shared fixtures: the example corpus built once per test session.

The user's own Neo4j settings are removed from the environment first, so neither the suite nor a
``kg`` it runs can reach the user's server (the tests' server: tests/integration/conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "iclr2026"

#: kg and docker/neo4j.sh read these; in the tests they would name the user's server or instance.
USER_NEO4J_VARIABLES = (
    "NEO4J_URI",
    "NEO4J_USERNAME",
    "NEO4J_PASSWORD",
    "NEO4J_DATABASE",
    "NEO4J_INSTANCE",
    "NEO4J_BOLT_PORT",
    "NEO4J_AUTH",
)
for _name in USER_NEO4J_VARIABLES:
    os.environ.pop(_name, None)


@pytest.fixture(scope="session")
def nlp():
    from extractors import load_pipeline

    return load_pipeline()


@pytest.fixture(scope="session")
def example_build(nlp):
    """BuildResult (graph, summary, merges) of the bundled example corpus."""
    from kg.build import build

    return build([EXAMPLES], nlp)


@pytest.fixture(scope="session")
def example_graph(example_build):
    return example_build.graph


def pytest_terminal_summary(terminalreporter):
    """Print the fuzz tests' figures (how many inputs they generated) after the run."""
    for report in terminalreporter.stats.get("passed", []):
        for name, value in getattr(report, "user_properties", ()):
            if name == "fuzz":
                terminalreporter.write_line(value)
