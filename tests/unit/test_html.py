"""graph_exports.html without a browser: what the page contains, selection, filters, safety."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import networkx as nx
import pytest

from graph_exports.html import (
    LABEL_COLORS,
    communities,
    layout,
    resolve_focus,
    select,
    to_html,
    write_html,
)
from graph_exports.page_data import decompress, derive, unpack
from kg.errors import ExportError, NodeNotFound

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
import html_graphs  # noqa: E402


def page_data(page: str) -> dict:
    """The nodes, edges and meta the page's script rebuilds (each part on one line of the
    template: pyvis's nodes, kg's store, meta), unpacked as the page unpacks them."""
    out = {}
    for key in ("nodes", "store", "meta"):
        match = re.search(rf"^  {key}: (.*?),?$", page, re.M)
        assert match, f"no {key} line in the page"
        out[key] = json.loads(match.group(1))
    out["nodes"], out["edges"] = unpack(*decompress(out["nodes"], out.pop("store"), page))
    derive(out["nodes"], out["edges"], out["meta"])
    return out


@pytest.fixture()
def tiny() -> nx.MultiDiGraph:
    return html_graphs.tiny_graph()


class _Wrapper:
    """Stands in for kg.graph.KnowledgeGraph: the exporter only reads ``.nx``."""

    def __init__(self, g):
        self.nx = g


# --- a self-contained, offline page -------------------------------------------------------------


def test_page_has_no_external_resource(tiny):
    page = to_html(tiny)
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page, re.I)
    assert not re.search(r"@import|<link\b|<iframe\b", page, re.I)
    for host in (
        "cdn.jsdelivr.net",
        "cdnjs.cloudflare.com",
        "unpkg.com",
        "bootstrap",
        "tom-select",
    ):
        assert host not in page, host


def test_every_script_carries_the_csp_nonce(tiny):
    page = to_html(tiny)
    nonce = re.search(r"script-src 'nonce-([0-9a-f]{32})'", page).group(1)
    scripts = re.findall(r"<script\b([^>]*)>.*?</script>", page, re.S)
    assert len(scripts) == 3
    assert all(f'nonce="{nonce}"' in attrs for attrs in scripts)
    assert "connect-src 'none'" in page and "default-src 'none'" in page


def test_same_graph_gives_same_bytes(tiny):
    assert to_html(tiny) == to_html(html_graphs.tiny_graph())


def test_vis_network_is_inlined_from_pyvis(tiny):
    page = to_html(tiny)
    assert "vis-network" in page and "@version 9." in page


# --- safety ---------------------------------------------------------------------------------------


def test_markup_in_abstract_and_title_never_reaches_the_page_raw(tiny):
    page = to_html(tiny)
    assert "<script>window.__kgXss" not in page
    assert "<img src=x" not in page
    assert "</script><b>" not in page
    data = page_data(page)
    paper = next(n for n in data["nodes"] if n["id"] == "paper:a1")
    assert paper["abstract"] == html_graphs.XSS_ABSTRACT
    assert paper["paperTitle"] == html_graphs.XSS_TITLE


def test_nodes_and_edges_carry_no_vis_title_tooltip(tiny):
    # vis-network shows a node's or edge's ``title`` in its own popup; the page draws its own.
    data = page_data(to_html(tiny))
    assert not any("title" in n for n in data["nodes"])
    assert not any("title" in e for e in data["edges"])


def test_page_script_never_writes_html():
    js = (
        Path(__file__).resolve().parents[2] / "graph_exports" / "assets" / "kg_page.js"
    ).read_text()
    code = re.sub(r"/\*.*?\*/", "", js, flags=re.S)
    for sink in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "new Function",
    ):
        assert sink not in code, sink


# --- views, counts and attributes -----------------------------------------------------------------


def test_knowledge_view_holds_every_node_and_edge(tiny):
    data = page_data(to_html(tiny))
    assert len(data["nodes"]) == tiny.number_of_nodes() == 5
    assert len(data["edges"]) == tiny.number_of_edges() == 6
    assert data["meta"]["counts"] == {"nodes": 5, "edges": 6, "totalNodes": 5, "totalEdges": 6}
    related = [e for e in data["edges"] if e["type"] == "RELATED_TO"]
    assert related and all(e["hidden"] for e in related)


def test_paper_map_shows_papers_and_what_they_share(tiny):
    data = page_data(to_html(tiny, view="papers"))
    assert sorted(n["id"] for n in data["nodes"]) == ["paper:a1", "paper:b2"]
    (edge,) = data["edges"]
    assert edge["type"] == "RELATED_TO" and edge["label"] == "GSM8K"
    assert edge["shared"] == [["dataset:gsm8k", "GSM8K"]]
    assert not edge["hidden"]


def test_papers_that_share_only_words_are_labelled_with_the_words(tiny):
    data = tiny.get_edge_data("paper:a1", "paper:b2", key="RELATED_TO")
    data["shared"], data["shared_terms"] = [], ["grade school math", "arithmetic", "word problems"]
    (edge,) = page_data(to_html(tiny, view="papers"))["edges"]
    assert edge["shared"] == [] and edge["sharedTerms"] == [
        "grade school math",
        "arithmetic",
        "word problems",
    ]
    assert edge["label"] == "grade school math, arithmetic +1"


def test_legend_lists_every_label_with_its_colour(tiny):
    meta = page_data(to_html(tiny))["meta"]
    assert [(entry["name"], entry["color"], entry["count"]) for entry in meta["labels"]] == [
        ("Paper", LABEL_COLORS["Paper"], 2),
        ("Method", LABEL_COLORS["Method"], 1),
        ("Dataset", LABEL_COLORS["Dataset"], 1),
        ("Metric", LABEL_COLORS["Metric"], 1),
    ]


def test_panel_fields_travel_with_nodes_and_edges(tiny):
    data = page_data(to_html(tiny))
    nodes = {n["id"]: n for n in data["nodes"]}
    paper = nodes["paper:a1"]
    assert paper["year"] == 2024 and paper["venue"] == "ICLR"
    assert paper["mentions"] == tiny.nodes["paper:a1"]["mentions"]
    llm = nodes["method:large language model"]
    assert llm["aliases"] == ["LLM", "LLMs", "Large Language Model"]
    assert llm["support"] == 1 and llm["papers"] == [["paper:a1", html_graphs.XSS_TITLE]]
    gsm = nodes["dataset:gsm8k"]
    assert gsm["papersTotal"] == 2
    proposes = next(e for e in data["edges"] if e["type"] == "PROPOSES")
    assert proposes["evidence"][0]["text"] == "Large Language Model"
    assert proposes["evidence"][0]["sentence"].startswith("We propose Large Language Model (LLM)")


def test_size_by_support_and_degree_differ(tiny):
    by_degree = {n["id"]: n["size"] for n in page_data(to_html(tiny))["nodes"]}
    by_support = {n["id"]: n["size"] for n in page_data(to_html(tiny, size_by="support"))["nodes"]}
    assert by_degree != by_support
    assert by_support["dataset:gsm8k"] > by_support["metric:accuracy"]


def test_accepts_an_object_with_nx(tiny):
    assert page_data(to_html(_Wrapper(tiny)))["meta"]["counts"]["nodes"] == 5


def test_empty_graph_gives_a_page():
    data = page_data(to_html(nx.MultiDiGraph()))
    assert data["nodes"] == [] and data["edges"] == []


# --- focus, filters, max_nodes --------------------------------------------------------------------


def test_focus_by_alias_keeps_the_neighbourhood(tiny):
    sel = select(tiny, focus="LLM", radius=1)
    assert sel.focus == "method:large language model"
    assert sel.nodes == ["dataset:gsm8k", "method:large language model", "paper:a1"]
    assert sel.left_out == [("farther than 1 hop from method:large language model", 2)]


def test_focus_radius_zero_is_the_node_alone(tiny):
    assert select(tiny, focus="dataset:gsm8k", radius=0).nodes == ["dataset:gsm8k"]


def test_focus_on_an_entity_in_the_paper_map_centres_its_papers(tiny):
    sel = select(tiny, view="papers", focus="GSM8K", radius=1)
    assert sel.nodes == ["paper:a1", "paper:b2"]


def test_unknown_focus_names_what_was_asked(tiny):
    with pytest.raises(NodeNotFound, match="nope"):
        resolve_focus(tiny, "nope")


def test_ambiguous_focus_lists_the_candidates(tiny):
    tiny.add_node("task:gsm8k", label="Task", name="GSM8K", aliases=["GSM8K"], support=1)
    with pytest.raises(NodeNotFound, match="ambiguous: dataset:gsm8k, task:gsm8k"):
        resolve_focus(tiny, "gsm8k")


def test_label_filter(tiny):
    sel = select(tiny, labels=["paper", "Dataset"])
    assert sel.nodes == ["dataset:gsm8k", "paper:a1", "paper:b2"]
    assert [e[2] for e in sel.edges] == ["EVALUATES_ON", "RELATED_TO", "EVALUATES_ON"]


def test_unknown_label_is_an_error(tiny):
    with pytest.raises(ExportError, match="unknown label 'Model'"):
        select(tiny, labels=["Model"])


def test_min_support_drops_rare_entities_not_papers(tiny):
    sel = select(tiny, min_support=2)
    assert sel.nodes == ["dataset:gsm8k", "paper:a1", "paper:b2"]
    assert sel.left_out == [("entities with support below 2", 2)]


def test_year_filter_drops_papers_and_their_only_entities(tiny):
    sel = select(tiny, years=(2025, None))
    assert sel.nodes == ["dataset:gsm8k", "paper:b2"]
    assert sel.left_out == [
        ("papers outside from 2025 or without a year", 1),
        ("entities only in papers outside from 2025", 2),
    ]


def test_max_nodes_keeps_the_most_supported_and_says_what_went(tiny):
    sel = select(tiny, max_nodes=3)
    assert "dataset:gsm8k" in sel.nodes and len(sel.nodes) == 3
    assert sel.left_out == [
        ("max 3 nodes: papers and entities in their shares, the least supported of each", 2)
    ]
    assert sum(sel.left_out_by_label.values()) == 2
    meta = page_data(to_html(tiny, max_nodes=3))["meta"]
    assert meta["counts"]["totalNodes"] == 5 and meta["counts"]["nodes"] == 3
    assert meta["leftOut"] == [
        ["max 3 nodes: papers and entities in their shares, the least supported of each", 2]
    ]


def test_max_nodes_keeps_papers_and_entities_in_their_shares():
    g = html_graphs.synthetic_graph(600)
    sel = select(g, max_nodes=100)
    kinds = [g.nodes[n]["label"] == "Paper" for n in sel.nodes]
    papers = sum(1 for _n, d in g.nodes(data=True) if d["label"] == "Paper")
    assert len(sel.nodes) == 100
    assert abs(sum(kinds) - round(100 * papers / 600)) <= 1, "papers keep their share of the view"


def test_max_nodes_never_drops_the_focus(tiny):
    assert "metric:accuracy" in select(tiny, focus="accuracy", radius=2, max_nodes=1).nodes


@pytest.mark.parametrize(
    "options, message",
    [
        ({"view": "tree"}, "unknown view 'tree'"),
        ({"size_by": "age"}, "unknown size_by 'age'"),
        ({"radius": -1}, "radius must be 0 or more"),
        ({"max_nodes": 0}, "max_nodes must be 1 or more"),
        ({"years": (2025, 2020)}, "years: 2025 is after 2020"),
    ],
)
def test_bad_options_raise_export_error(tiny, options, message):
    with pytest.raises(ExportError, match=re.escape(message)):
        to_html(tiny, **options)


def test_write_html_writes_and_checks_the_name(tiny, tmp_path):
    out = write_html(tiny, tmp_path / "sub" / "graph.html", view="papers")
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    with pytest.raises(ExportError, match="ending in .html"):
        write_html(tiny, tmp_path / "graph.txt")


# --- communities and layout -----------------------------------------------------------------------


def test_layout_is_bounded_finite_and_spread():
    g = html_graphs.synthetic_graph(600, seed=3)
    sel = select(g)
    h = nx.Graph()
    h.add_nodes_from(sel.nodes)
    h.add_edges_from((u, v) for u, v, _k in sel.edges if u != v)
    groups = communities(h)
    assert len(groups) > 1 and sum(len(c) for c in groups) == 600
    pos = layout(h, groups)
    assert set(pos) == set(sel.nodes)
    assert all(math.isfinite(x) and math.isfinite(y) for x, y in pos.values())
    assert len({(round(x), round(y)) for x, y in pos.values()}) > 590


def test_large_pages_colour_by_community():
    g = html_graphs.synthetic_graph(1100, seed=5)
    data = page_data(to_html(g))
    assert data["meta"]["colourBy"] == "community" and data["meta"]["communities"] > 1
    assert len({n["cc"] for n in data["nodes"]}) > 1
    assert len(data["nodes"]) == g.number_of_nodes()
    assert len(data["edges"]) == g.number_of_edges()


# --- kg html ----------------------------------------------------------------------------------------


def test_kg_html_command_writes_the_page(tiny, tmp_path):
    from typer.testing import CliRunner

    from kg.cli import app
    from kg.graph import KnowledgeGraph

    graph = KnowledgeGraph(tiny).save(tmp_path / "graph.json")
    out = tmp_path / "map.html"
    result = CliRunner().invoke(
        app,
        [
            "html",
            str(graph),
            "-o",
            str(out),
            "--view",
            "papers",
            "--labels",
            "Paper",
            "--year-from",
            "2020",
            "--size-by",
            "support",
        ],
    )
    assert result.exit_code == 0, result.output
    data = page_data(out.read_text(encoding="utf-8"))
    assert data["meta"]["view"] == "papers" and data["meta"]["sizeBy"] == "support"
    assert len(data["nodes"]) == 2 and len(data["edges"]) == 1


# --- one options object, one name lookup ------------------------------------------------------------


def test_page_options_object_and_keywords_give_the_same_page(tiny):
    from graph_exports.html import PageOptions

    assert to_html(tiny, PageOptions(view="papers", size_by="support")) == to_html(
        tiny, view="papers", size_by="support"
    )
    with pytest.raises(ExportError, match="unknown page option 'colour'"):
        to_html(tiny, colour="red")


def test_focus_finds_names_as_knowledge_graph_find_does(tiny):
    from kg import traverse

    for name in ("large language models", "Large-Language-Model", "LLMs"):
        assert (
            resolve_focus(tiny, name) == traverse.find(tiny, name) == "method:large language model"
        )
