"""The page's compact data: stored once, evidence as offsets, and unpacked to the same records."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from graph_exports.html import (
    _undirected,
    communities,
    layout,
    page_edges,
    page_nodes,
    select,
    to_html,
)
from graph_exports.overview import overview
from graph_exports.page_data import compress_if_large, decompress, pack, unpack

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
import html_graphs  # noqa: E402


def records(g, **options):
    sel = select(g, **options)
    h = _undirected(g, sel.nodes, sel.edges)
    groups = communities(h)
    return page_nodes(g, sel, layout(h, groups), groups), page_edges(g, sel)


@pytest.fixture(scope="module")
def example():
    return html_graphs.example_graph()


def test_unpack_gives_back_every_field_the_page_reads(example):
    nodes, edges = records(example)
    back_nodes, back_edges = unpack(*pack(nodes, edges))
    derived = {"papers", "color", "font", "cc"}  # the page derives these (see derive)
    for a, b in zip(nodes, back_nodes):
        for key, value in a.items():
            if key in derived:
                continue
            if key in ("x", "y"):
                assert b[key] == round(value)
            elif key == "size":
                assert b[key] == round(value, 1)
            else:
                assert b[key] == value, (a["id"], key)
    strip = {"width", "color", "dashes", "arrows", "hidden", "label"}
    for a, b in zip(edges, back_edges):
        assert {k: v for k, v in a.items() if k not in strip} == b


def test_evidence_is_stored_as_offsets_not_sentences(example):
    nodes, edges = records(example)
    _vis, store = pack(nodes, edges)
    text = json.dumps(store)
    sentences = {ev["sentence"] for e in edges for ev in e["evidence"]}
    assert sentences
    # each abstract is in the store once; no evidence sentence is stored beside it
    for sentence in sentences:
        assert text.count(json.dumps(sentence)[1:-1]) <= 1 or len(sentence) < 40
    rows = [row for ev in store["edges"]["ev"] if ev for row in ev]
    assert all(isinstance(row[3], int) for row in rows), "every sentence was found in its abstract"


def test_large_pages_carry_their_data_gzipped_and_small_ones_plain(example):
    nodes, edges = records(example)
    vis, store = pack(nodes, edges)
    assert compress_if_large(vis, store) is None  # 57 abstracts: plain JSON
    packed = compress_if_large(vis, store, above=1000)
    assert set(packed) == {"gz", "details"}
    assert decompress([], packed) == (vis, store)
    assert compress_if_large(vis, store, above=1000) == packed, "the same data gives the same bytes"


def test_page_data_per_paper_stays_small(example):
    """The data (pyvis nodes, store, meta) per paper, beside the fixed ~770 KB of vis-network and
    kg's own script and style."""
    page = to_html(example)
    papers = sum(1 for _n, d in example.nodes(data=True) if d.get("label") == "Paper")
    data = sum(
        len(re.search(rf"^  {key}: (.*?),?$", page, re.M).group(1).encode("utf-8"))
        for key in ("nodes", "store", "meta")
    )
    assert data / papers < 4000, f"{data / papers:.0f} bytes of data per paper"


def test_communities_are_named_by_distinctive_entities_not_the_common_one():
    g = html_graphs.synthetic_graph(900, seed=3)
    nodes, _edges = records(g)
    sel = select(g)
    h = _undirected(g, sel.nodes, sel.edges)
    groups = communities(h)
    ov = overview(g, sel.nodes, groups, layout(h, groups))
    names = [c["name"] for c in ov["communities"]]
    assert len(names) == len(set(names)) > 2, "each community has its own name"
    papers = [n for n, d in g.nodes(data=True) if d.get("label") == "Paper"]
    df = {
        n: sum(1 for p in g.predecessors(n) if g.nodes[p].get("label") == "Paper")
        for n in g
        if g.nodes[n].get("label") != "Paper"
    }
    general = {n for n, c in df.items() if c > max(20, 0.05 * len(papers))}
    for c in ov["communities"]:
        assert not {t[0] for t in c["top"]} & general, (
            "an entity of a large part of the page names nothing"
        )
    assert sum(c["size"] for c in ov["communities"]) == len(sel.nodes)
