"""Trends: shares normalised by each year's paper count, first year, the normalised slope, the
attributes a build puts on entities, and kg trends."""

from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx
import pytest

from kg.build import build_from_papers
from kg.graph import KnowledgeGraph
from kg.model import Paper
from kg.trends import annotate_years, normalised_slope, trends


def hand_graph() -> nx.MultiDiGraph:
    """2018: 2 papers, 2019: 4, 2020: 10. "rising" is in 0, 2 and 8 of them; "steady" in 1, 2, 5
    (the same half of each year); "fading" in 2, 2, 1."""
    G = nx.MultiDiGraph()
    for name in ("rising", "steady", "fading"):
        G.add_node(f"method:{name}", label="Method", name=name)
    papers = {2018: 2, 2019: 4, 2020: 10}
    counts = {
        "rising": {2018: 0, 2019: 2, 2020: 8},
        "steady": {2018: 1, 2019: 2, 2020: 5},
        "fading": {2018: 2, 2019: 2, 2020: 1},
    }
    for year, n in papers.items():
        for i in range(n):
            pid = f"paper:{year}-{i}"
            G.add_node(pid, label="Paper", name=pid, year=year)
            for name, by_year in counts.items():
                if i < by_year[year]:
                    G.add_edge(pid, f"method:{name}", key="USES", type="USES")
    G.add_node("paper:undated", label="Paper", name="undated")
    G.add_edge("paper:undated", "method:fading", key="USES", type="USES")
    return G


def test_shares_are_normalised_by_the_years_paper_count():
    by_name = {t.name: t for t in trends(hand_graph(), min_papers=1)}
    assert by_name["rising"].shares == {2018: 0.0, 2019: 50.0, 2020: 80.0}
    assert by_name["steady"].shares == {2018: 50.0, 2019: 50.0, 2020: 50.0}
    assert by_name["steady"].rise == 0.0  # more papers each year, the same share: not rising
    assert by_name["fading"].shares == {2018: 100.0, 2019: 50.0, 2020: 10.0}
    assert [t.name for t in trends(hand_graph(), min_papers=1)] == ["rising", "steady", "fading"]
    assert by_name["rising"].rise > 0 > by_name["fading"].rise


def test_normalised_slope_is_growth_relative_to_the_mean_share():
    assert normalised_slope([2018, 2019, 2020], [1.0, 2.0, 3.0]) == pytest.approx(0.5)
    assert normalised_slope([2018, 2019, 2020], [0.0, 50.0, 80.0]) == pytest.approx(
        40.0 / (130.0 / 3)
    )
    assert normalised_slope([2020], [5.0]) == 0.0


def test_window_first_year_and_min_papers():
    G = hand_graph()
    inside = {t.name: t for t in trends(G, since=2019, min_papers=1)}
    assert (
        inside["rising"].shares == {2019: 50.0, 2020: 80.0} and inside["rising"].first_year == 2019
    )
    assert inside["fading"].first_year == 2018  # first year is over the whole graph, not the window
    assert {t.name for t in trends(G, min_papers=8)} == {"rising", "steady"}
    with pytest.raises(ValueError, match="no paper has a year in the window"):
        trends(G, since=2030)


def test_annotate_years_puts_first_year_and_papers_by_year_on_entities():
    G = hand_graph()
    assert annotate_years(G) == 3
    assert G.nodes["method:rising"]["first_year"] == 2019
    assert G.nodes["method:rising"]["papers_by_year"] == {"2019": 2, "2020": 8}
    assert G.nodes["method:fading"]["papers_by_year"] == {
        "2018": 2,
        "2019": 2,
        "2020": 1,
    }  # undated paper not counted
    assert G.nodes["method:rising"]["mean_year"] == pytest.approx((2 * 2019 + 8 * 2020) / 10)


@pytest.fixture(scope="module")
def dated_graph(nlp) -> KnowledgeGraph:
    papers = [
        Paper(id=f"p{year}{i}", year=year, abstract=abstract)
        for year, i, abstract in [
            (2015, 0, "We train support vector machines on MNIST."),
            (2015, 1, "Support vector machines classify ImageNet images."),
            (2016, 0, "Support vector machines and transformers are compared on MNIST."),
            (2016, 1, "We fine-tune transformers on ImageNet."),
            (2017, 0, "Transformers reach high accuracy on ImageNet."),
            (2017, 1, "We scale transformers on MNIST."),
        ]
    ]
    return build_from_papers(papers, nlp).graph


def test_a_built_graph_carries_years_and_kg_trends_names_the_riser(dated_graph, tmp_path):
    G = dated_graph.nx
    transformer = dated_graph.find("transformers", label="Method")
    assert G.nodes[transformer]["first_year"] == 2016
    assert G.nodes[transformer]["papers_by_year"] == {"2016": 2, "2017": 2}
    path = dated_graph.save(tmp_path / "graph.json")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kg.cli",
            "trends",
            str(path),
            "--label",
            "method",
            "--min-papers",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["papers_by_year"] == {"2015": 2, "2016": 2, "2017": 2}
    names = [e["name"].lower() for e in data["entities"]]
    assert names[0].startswith("transformer") and names[-1].startswith("support vector")
    table = subprocess.run(
        [sys.executable, "-m", "kg.cli", "trends", str(path), "--min-papers", "2"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "rising" in table.stdout and "fading" in table.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "kg.cli", "trends", str(path), "--label", "Paper"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert bad.returncode == 1 and "--label 'Paper' is not one of" in bad.stderr


def test_overview_names_a_communitys_entities_per_period():
    from graph_exports.overview import overview

    g = nx.MultiDiGraph()
    for name in ("svm", "cnn", "transformer", "mnist"):
        g.add_node(f"method:{name}", label="Method", name=name)
    # 2010-2012: SVMs, 2013-2015: CNNs, 2016-2018: transformers; MNIST throughout
    for year in range(2010, 2019):
        era = "svm" if year < 2013 else "cnn" if year < 2016 else "transformer"
        for i in range(2):
            pid = f"paper:{year}-{i}"
            g.add_node(pid, label="Paper", name=pid, year=year)
            g.add_edge(pid, f"method:{era}", key="USES", type="USES")
            g.add_edge(pid, "method:mnist", key="USES", type="USES")
    for i in range(40):  # other papers, so that MNIST is not named by half the page
        g.add_node(f"paper:other{i}", label="Paper", name=f"other {i}")
    members = {n for n in g if not n.startswith("paper:other")}
    groups = [members, {n for n in g if n.startswith("paper:other")}]
    periods = overview(g, sorted(g), groups, {n: (0.0, 0.0) for n in g})["communities"][0][
        "periods"
    ]
    assert [(lo, hi, n) for lo, hi, n, _ in periods] == [
        (2010, 2012, 6),
        (2013, 2015, 6),
        (2016, 2018, 6),
    ]
    assert [top[0][1] for *_, top in periods] == ["svm", "cnn", "transformer"]
