"""The paper map without a browser: which papers sit around an origin, in what order, and why."""

from __future__ import annotations

import sys
from pathlib import Path

import networkx as nx
import pytest

from graph_exports.html import to_html
from graph_exports.paper_map import MAX_MAP_SIZE, find_paper, paper_map
from kg.errors import ExportError, NodeNotFound

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from test_html import page_data  # noqa: E402


def chain() -> nx.MultiDiGraph:
    """o - a (0.9), o - b (0.5), a - c (0.8), b - d (0.9), c - e (1.0); all share dataset:x with o."""
    g = nx.MultiDiGraph()
    for p in "oabcde":
        g.add_node(
            f"paper:{p}",
            label="Paper",
            name=f"Paper {p.upper()}",
            title=f"Paper {p.upper()}",
            year=2020,
        )
        g.add_node("dataset:x", label="Dataset", name="X", support=6)
        g.add_edge(f"paper:{p}", "dataset:x", key="EVALUATES_ON", type="EVALUATES_ON")
    for u, v, w in (
        ("o", "a", 0.9),
        ("o", "b", 0.5),
        ("a", "c", 0.8),
        ("b", "d", 0.9),
        ("c", "e", 1.0),
    ):
        g.add_edge(
            f"paper:{u}",
            f"paper:{v}",
            key="RELATED_TO",
            type="RELATED_TO",
            weight=w,
            shared=["dataset:x"],
            shared_terms=["word"],
        )
    return g


def test_first_order_neighbours_come_first_strongest_first():
    ranked = paper_map(chain(), "paper:o")
    assert [(r.paper, r.order) for r in ranked] == [
        ("paper:a", 1),
        ("paper:b", 1),
        ("paper:c", 2),
        ("paper:d", 2),
    ]
    # second order: scored by the best two-step path, and says which paper it goes through
    assert ranked[2].via == "paper:a" and ranked[2].score == pytest.approx(0.72)
    assert ranked[3].via == "paper:b" and ranked[3].score == pytest.approx(0.45)
    assert "paper:e" not in {r.paper for r in ranked}, "three steps away is not on the map"


def test_each_related_paper_says_what_it_shares():
    ranked = paper_map(chain(), "paper:o")
    assert ranked[0].shared == ["dataset:x"] and ranked[0].terms == ["word"]
    assert ranked[2].shared == ["dataset:x"] and ranked[2].terms == []


def test_map_size_caps_the_map():
    assert [r.paper for r in paper_map(chain(), "paper:o", size=1)] == ["paper:a"]
    with pytest.raises(ExportError, match="1 to 50"):
        paper_map(chain(), "paper:o", size=MAX_MAP_SIZE + 1)


def test_find_paper_takes_an_id_a_bare_id_or_a_title():
    g = chain()
    assert find_paper(g, "paper:b") == "paper:b"
    assert find_paper(g, "b") == "paper:b"
    assert find_paper(g, "paper c") == "paper:c"
    with pytest.raises(NodeNotFound, match="no paper"):
        find_paper(g, "X")  # an entity, not a paper


def test_paper_page_holds_the_origin_its_map_and_the_edges_among_them():
    data = page_data(to_html(chain(), paper="Paper O"))
    assert sorted(n["id"] for n in data["nodes"]) == [
        "paper:a",
        "paper:b",
        "paper:c",
        "paper:d",
        "paper:o",
    ]
    assert {e["type"] for e in data["edges"]} == {"RELATED_TO"}
    assert len(data["edges"]) == 4  # o-a, o-b, a-c, b-d (c-e leaves with e)
    meta = data["meta"]
    assert meta["mapOrigin"] == "paper:o" and meta["mapSize"] == 30
    assert meta["paperMap"] == [["paper:a", 1], ["paper:b", 1], ["paper:c", 2], ["paper:d", 2]]
    assert meta["title"] == "kg paper map: Paper O"
    assert meta["leftOut"] == [["papers not among the 30 most related to paper:o", 1]]


def test_kg_html_paper_writes_the_map_page(tmp_path):
    from typer.testing import CliRunner

    from kg.cli import app
    from kg.graph import KnowledgeGraph

    graph = KnowledgeGraph(chain()).save(tmp_path / "graph.json")
    out = tmp_path / "map.html"
    result = CliRunner().invoke(
        app, ["html", str(graph), "-o", str(out), "--paper", "o", "--map-size", "2"]
    )
    assert result.exit_code == 0, result.output
    meta = page_data(out.read_text(encoding="utf-8"))["meta"]
    assert meta["mapOrigin"] == "paper:o" and meta["paperMap"] == [["paper:a", 1], ["paper:b", 1]]
    bad = CliRunner().invoke(
        app, ["html", str(graph), "-o", str(out), "--paper", "nothing like it"]
    )
    assert bad.exit_code != 0 and "no paper" in str(bad.exception)
