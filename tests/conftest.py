"""Shared fixtures: the example corpus built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "iclr2026"


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
