"""GEXF (read back by networkx, years as Gephi timeline starts) and VOSviewer JSON (read back by
the format's documented fields)."""

from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx
import pytest

from graph_exports.gexf import write_gexf
from graph_exports.vosviewer import to_vosviewer
from kg.build import build_from_papers
from kg.model import Paper

ABSTRACTS = [
    (2016, "We train transformers on ImageNet and report accuracy."),
    (2017, "Transformers and convolutional neural networks are compared on ImageNet."),
    (2018, "We propose FARTrack. FARTrack achieves an AO of 70.6% on GOT-10k with transformers."),
    (2018, "Convolutional neural networks reach high accuracy on CIFAR-10."),
]


@pytest.fixture(scope="module")
def graph(nlp):
    return build_from_papers(
        [
            Paper(id=f"p{i}", year=y, abstract=a, title=f"Paper {i}")
            for i, (y, a) in enumerate(ABSTRACTS)
        ],
        nlp,
    ).graph


def test_gexf_reads_back_with_names_kinds_and_timeline_starts(graph, tmp_path):
    G = graph.nx
    back = nx.read_gexf(write_gexf(graph, tmp_path / "g.gexf"))
    assert (
        back.number_of_nodes() == G.number_of_nodes()
        and back.number_of_edges() == G.number_of_edges()
    )
    for node, d in G.nodes(data=True):
        b = back.nodes[node]
        assert b["label"] == (d["name"] or d.get("title") or node) and b["kind"] == d["label"]
        if d["label"] == "Paper":
            assert b["start"] == d["year"]
        elif d["label"] == "Result":
            assert (
                b["start"] == 2018
                and G.nodes["paper:p2"]["abstract"][b["text_start"] : b["text_end"]] == "70.6%"
            )
        else:
            assert b["start"] == d["first_year"]
    transformer = graph.find("transformers", label="Method")
    assert back.nodes[transformer]["start"] == 2016
    assert 'mode="dynamic"' in (tmp_path / "g.gexf").read_text(encoding="utf-8")


def test_vosviewer_items_links_weights_and_years(graph):
    G = graph.nx
    doc = json.loads(json.dumps(to_vosviewer(graph, min_support=1)))
    items, links = doc["network"]["items"], doc["network"]["links"]
    by_id = {item["id"]: item for item in items}
    assert len(by_id) == len(items) and all(isinstance(i, int) and i >= 1 for i in by_id)
    papers = {n for n, d in G.nodes(data=True) if d["label"] == "Paper"}
    named: dict[str, set[str]] = {}
    for p in papers:
        for _, e, k in G.out_edges(p, keys=True):
            if k in ("PROPOSES", "USES", "EVALUATES_ON", "ADDRESSES", "REPORTS"):
                named.setdefault(G.nodes[e]["name"], set()).add(p)
    for item in items:
        assert item["weights"]["Occurrences"] == len(named[item["label"]]) and item["cluster"] >= 1
        years = [G.nodes[p]["year"] for p in named[item["label"]]]
        assert item["scores"]["Avg. pub. year"] == pytest.approx(sum(years) / len(years), abs=0.01)
    for link in links:
        a, b = by_id[link["source_id"]]["label"], by_id[link["target_id"]]["label"]
        assert link["strength"] == len(named[a] & named[b]) > 0
    total = {i: 0 for i in by_id}
    for link in links:
        total[link["source_id"]] += link["strength"]
        total[link["target_id"]] += link["strength"]
    assert all(by_id[i]["weights"]["Total link strength"] == t for i, t in total.items())
    assert to_vosviewer(graph, min_support=2)["network"]["items"]  # the shared ones remain
    assert all(
        i["weights"]["Occurrences"] >= 2
        for i in to_vosviewer(graph, min_support=2)["network"]["items"]
    )


def test_kg_export_writes_gexf_and_vosviewer(graph, tmp_path):
    path = graph.save(tmp_path / "graph.json")
    for fmt, name in (("gexf", "g.gexf"), ("vosviewer", "map.json")):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "kg.cli",
                "export",
                str(path),
                "-f",
                fmt,
                "-o",
                str(tmp_path / name),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
    assert nx.read_gexf(tmp_path / "g.gexf").number_of_nodes() == graph.nx.number_of_nodes()
    assert json.loads((tmp_path / "map.json").read_text(encoding="utf-8"))["network"]["items"]
