"""The HTML page in a real headless Chromium (Debian's ``chromium``), opened from a file, offline.

Checks what a user meets: no request leaves the page, no console error, the page holds every node
and edge of the graph, search finds an alias, a click opens the side panel, markup in an abstract
runs nothing, and the layout never moves. The example corpus page is saved as
``test-artifacts/example.png`` (and ``example-papers.png``) to look at.

Chromium comes from ``scripts/install-system-deps.sh``; when it is missing the tests try that script,
then skip (or fail when ``KG_REQUIRE_BROWSER=1``, as CI sets).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chromium_cdp import Browser, find_chromium

from graph_exports.html import write_html

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
import html_graphs  # noqa: E402

pytestmark = pytest.mark.browser


def _chromium() -> str:
    exe = find_chromium()
    if exe is None and os.environ.get("KG_INSTALL_CHROMIUM", "1") != "0":
        subprocess.run(
            ["sh", str(ROOT / "scripts" / "install-chromium.sh")],
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=900,
        )
        exe = find_chromium()
    if exe is None:
        message = "no chromium: run scripts/install-system-deps.sh"
        if os.environ.get("KG_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return exe


@pytest.fixture(scope="module")
def browser():
    with Browser(_chromium()) as b:
        yield b


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The tiny graph's knowledge page and paper map, written once."""
    folder = tmp_path_factory.mktemp("html")
    g = html_graphs.tiny_graph()
    return {
        "graph": g,
        "knowledge": write_html(g, folder / "knowledge.html"),
        "papers": write_html(g, folder / "papers.html", view="papers"),
    }


def open_page(browser, path: Path, *, timeout: float = 60.0):
    page = browser.new_page()
    page.goto(path.resolve().as_uri(), timeout=timeout)
    page.wait_for("window.kg && window.kg.ready", timeout=timeout)
    return page


def node_point(page, node_id: str) -> tuple[float, float]:
    """Page coordinates of a node's centre, as the user sees it."""
    return tuple(
        page.evaluate(
            f"""(() => {{
            const p = kg.network.canvasToDOM(kg.network.getPosition({node_id!r}));
            const r = document.getElementById('mynetwork').getBoundingClientRect();
            return [r.left + p.x, r.top + p.y];
        }})()"""
        )
    )


def assert_offline_and_clean(page, path: Path) -> None:
    requests = page.requests()
    assert requests == [path.resolve().as_uri()], f"the page requested more than itself: {requests}"
    assert page.console_errors() == []


# --- the tiny graph -------------------------------------------------------------------------------


def test_page_requests_nothing_and_logs_no_error(browser, pages):
    for view in ("knowledge", "papers"):
        page = open_page(browser, pages[view])
        time.sleep(0.3)
        assert_offline_and_clean(page, pages[view])


def test_page_data_holds_every_node_and_edge(browser, pages):
    g = pages["graph"]
    page = open_page(browser, pages["knowledge"])
    counts = page.evaluate("[kg.data.nodes.length, kg.data.edges.length, kg.nodes.length]")
    assert counts == [g.number_of_nodes(), g.number_of_edges(), g.number_of_nodes()]
    papers = open_page(browser, pages["papers"])
    assert papers.evaluate("[kg.data.nodes.length, kg.data.edges.length, kg.edges.length]") == [
        2,
        1,
        1,
    ]


def test_legend_shows_every_label_with_its_colour(browser, pages):
    page = open_page(browser, pages["knowledge"])
    legend = page.evaluate(
        "[...document.querySelectorAll('#kg-legend li')].map(li => [li.dataset.label, "
        "li.querySelector('svg *').getAttribute('fill')])"
    )
    assert legend == [
        ["Paper", "#4e79a7"],
        ["Method", "#f28e2b"],
        ["Dataset", "#59a14f"],
        ["Metric", "#b07aa1"],
    ]


def test_search_finds_a_node_by_alias_and_zooms_to_it(browser, pages):
    page = open_page(browser, pages["knowledge"])
    x, y = page.evaluate(
        "(() => { const r = document.getElementById('kg-search').getBoundingClientRect();"
        " return [r.left + 20, r.top + r.height / 2]; })()"
    )
    page.click(x, y)
    page.type_text("LLMs")
    first = page.wait_for(
        "document.querySelector('#kg-search-results li[data-node]')?.dataset.node"
    )
    assert first == "method:large language model"
    page.press("Enter")
    assert page.wait_for("kg.selected()") == "method:large language model"
    assert page.evaluate("kg.network.getSelectedNodes()") == ["method:large language model"]
    panel = page.evaluate(
        "document.getElementById('kg-panel').hidden ? null : "
        "document.getElementById('kg-panel-body').innerText"
    )
    assert panel and "large language model" in panel and "LLM" in panel
    assert page.console_errors() == []


def test_clicking_a_node_highlights_it_and_opens_its_panel(browser, pages):
    page = open_page(browser, pages["knowledge"])
    page.click(*node_point(page, "dataset:gsm8k"))
    assert page.wait_for("document.getElementById('kg-panel').dataset.node") == "dataset:gsm8k"
    text = page.evaluate("document.getElementById('kg-panel-body').innerText")
    assert "GSM8K" in text and "support 2 papers" in text
    assert "Another study of GSM8K word problems" in text  # its papers
    assert sorted(page.evaluate("kg.network.getConnectedNodes('dataset:gsm8k')")) == [
        "method:large language model",
        "paper:a1",
        "paper:b2",
    ]
    # clicking empty canvas clears the selection
    x, y = page.evaluate(
        "(() => { const r = document.getElementById('mynetwork').getBoundingClientRect();"
        " return [r.left + 8, r.bottom - 8]; })()"
    )
    page.click(x, y)
    assert page.wait_for("document.getElementById('kg-panel').hidden && kg.selected() === null")


def test_paper_panel_marks_its_mentions(browser, pages):
    page = open_page(browser, pages["knowledge"])
    page.click(*node_point(page, "paper:b2"))
    page.wait_for("document.getElementById('kg-panel').dataset.node === 'paper:b2'")
    marks = page.evaluate(
        "[...document.querySelectorAll('#kg-panel mark')].map(m => [m.textContent, m.dataset.entity])"
    )
    assert marks == [["GSM8K", "dataset:gsm8k"]]
    meta = page.evaluate("document.getElementById('kg-panel-body').innerText")
    assert "2025 · NeurIPS" in meta and "title derived from the abstract" in meta


def test_clicking_an_edge_shows_its_evidence(browser, pages):
    page = open_page(browser, pages["knowledge"])
    eid = page.evaluate("kg.data.edges.find(e => e.type === 'PROPOSES').id")
    x, y = page.evaluate(f"""(() => {{
        const e = kg.data.edges.find(e => e.id === {eid!r});
        const a = kg.network.getPosition(e.from), b = kg.network.getPosition(e.to);
        const p = kg.network.canvasToDOM({{x: a.x + (b.x - a.x) * 0.55, y: a.y + (b.y - a.y) * 0.55}});
        const r = document.getElementById('mynetwork').getBoundingClientRect();
        return [r.left + p.x, r.top + p.y];
    }})()""")
    page.click(x, y)
    assert page.wait_for("document.getElementById('kg-panel').dataset.edge") == eid
    text = page.evaluate("document.getElementById('kg-panel-body').innerText")
    assert "PROPOSES" in text and "We propose Large Language Model (LLM) prompting" in text


def test_markup_in_an_abstract_shows_as_text_and_runs_nothing(browser, pages):
    page = open_page(browser, pages["knowledge"])
    page.click(*node_point(page, "paper:a1"))
    page.wait_for("document.getElementById('kg-panel').dataset.node === 'paper:a1'")
    time.sleep(0.3)
    assert page.evaluate("typeof window.__kgXss") == "undefined"
    assert (
        page.evaluate(
            "document.querySelectorAll('#kg-panel img, #kg-panel script, #kg-panel b').length"
        )
        == 0
    )
    text = page.evaluate("document.getElementById('kg-panel-body').textContent")
    assert '<script>window.__kgXss = "script";</script>' in text
    assert "<img src=x onerror=" in text
    assert html_graphs.XSS_TITLE in text
    # search results and the hover tooltip are text too
    page.evaluate(
        "(() => { const s = document.getElementById('kg-search'); s.value = 'Prompting';"
        " s.dispatchEvent(new Event('input')); })()"
    )
    assert page.evaluate("document.querySelectorAll('#kg-search-results img').length") == 0
    assert_offline_and_clean(page, pages["knowledge"])


def test_label_toggle_hides_and_shows_nodes(browser, pages):
    page = open_page(browser, pages["knowledge"])
    page.evaluate("document.querySelector('#kg-legend input[data-label=\"Method\"]').click()")
    assert page.evaluate("kg.nodes.get('method:large language model').hidden") is True
    assert (
        page.evaluate(
            "kg.edges.get().some(e => e.from === 'method:large language model' || e.to === 'method:large language model')"
        )
        is False
    )
    page.evaluate("document.querySelector('#kg-legend input[data-label=\"Method\"]').click()")
    assert page.evaluate("kg.nodes.get('method:large language model').hidden") is False
    # RELATED_TO starts hidden in the knowledge view and can be shown
    assert page.evaluate("kg.edges.get().some(e => e.type === 'RELATED_TO')") is False
    page.evaluate(
        "document.querySelector('#kg-edge-types input[data-type=\"RELATED_TO\"]').click()"
    )
    assert page.evaluate("kg.edges.get().filter(e => e.type === 'RELATED_TO').length") == 1


def test_paper_map_labels_edges_with_what_papers_share(browser, pages):
    page = open_page(browser, pages["papers"])
    assert page.evaluate("kg.data.edges.map(e => e.label)") == ["GSM8K"]
    # the page draws the name itself (vis-network draws none) where it fits: zoomed in, it does
    page.evaluate("kg.network.moveTo({scale: 3, animation: false})")
    settle(page)
    drawn = page.evaluate("kg.labelBoxes().map(b => [b.kind, b.text])")
    assert ["edge", "GSM8K"] in drawn
    assert page.evaluate("kg.edges.get().map(e => e.label)") == [None]


def test_max_nodes_page_says_what_was_left_out(browser, tmp_path):
    path = write_html(html_graphs.tiny_graph(), tmp_path / "cut.html", max_nodes=3)
    page = open_page(browser, path)
    text = page.evaluate(
        "document.getElementById('kg-left-out').hidden ? '' : "
        "document.getElementById('kg-left-out').innerText"
    )
    assert (
        "Showing 3 of 5 nodes" in text
        and "max 3 nodes: papers and entities in their shares" in text
    )


def test_focus_page_opens_on_the_focus_node(browser, tmp_path):
    path = write_html(html_graphs.tiny_graph(), tmp_path / "focus.html", focus="GSM8K", radius=1)
    page = open_page(browser, path)
    assert page.wait_for("kg.selected()") == "dataset:gsm8k"
    assert page.evaluate("document.getElementById('kg-panel').dataset.node") == "dataset:gsm8k"
    assert page.evaluate("kg.data.nodes.length") == 4
    assert "focus dataset:gsm8k, radius 1" in page.evaluate(
        "document.getElementById('kg-summary').textContent"
    )


def test_size_and_colour_switches_repaint_nodes(browser, pages):
    page = open_page(browser, pages["knowledge"])
    before = page.evaluate("kg.nodes.get('metric:accuracy').size")
    page.evaluate(
        "(() => { const s = document.getElementById('kg-size-by'); s.value = 'support';"
        " s.dispatchEvent(new Event('change')); })()"
    )
    after = page.evaluate("kg.nodes.get('metric:accuracy').size")
    assert after != before
    page.evaluate(
        "(() => { const s = document.getElementById('kg-colour-by'); s.value = 'community';"
        " s.dispatchEvent(new Event('change')); })()"
    )
    colours = page.evaluate("kg.nodes.get().map(n => n.color.background)")
    assert set(colours) <= set(page.evaluate("kg.data.nodes.map(n => n.cc)"))
    assert page.evaluate("document.getElementById('kg-community-note').hidden") is False
    assert page.console_errors() == []


def test_relax_layout_runs_then_stops(browser, pages):
    page = open_page(browser, pages["knowledge"])
    page.evaluate("document.getElementById('kg-relax').click()")
    page.wait_for("!document.getElementById('kg-relax').disabled", timeout=20)
    before = page.evaluate("kg.network.getPositions()")
    time.sleep(0.5)
    assert page.evaluate("kg.network.getPositions()") == before
    assert page.console_errors() == []


# --- the example corpus and a large graph ---------------------------------------------------------


def test_example_corpus_page_screenshot(browser, tmp_path):
    g = html_graphs.example_graph()
    for view, name in (("knowledge", "example.png"), ("papers", "example-papers.png")):
        path = write_html(g, tmp_path / f"example-{view}.html", view=view)
        page = open_page(browser, path)
        expected_nodes = (
            g.number_of_nodes()
            if view == "knowledge"
            else sum(1 for _, d in g.nodes(data=True) if d.get("label") == "Paper")
        )
        assert page.evaluate("kg.data.nodes.length") == expected_nodes
        if view == "knowledge":
            assert page.evaluate("kg.data.edges.length") == g.number_of_edges()
        time.sleep(0.5)
        page.screenshot(ARTIFACTS / name)
        assert (ARTIFACTS / name).stat().st_size > 20_000
        assert_offline_and_clean(page, path)


@pytest.mark.slow
def test_large_page_is_ready_fast_and_never_moves(browser, tmp_path):
    g = html_graphs.synthetic_graph(1200)
    path = write_html(g, tmp_path / "large.html")
    started = time.monotonic()
    page = open_page(browser, path)
    assert time.monotonic() - started < 10
    assert page.evaluate("kg.data.nodes.length") == 1200
    before = page.evaluate("kg.network.getPositions()")
    time.sleep(1.0)
    assert page.evaluate("kg.network.getPositions()") == before
    assert page.evaluate("kg.meta.colourBy") == "community"
    assert_offline_and_clean(page, path)


# --- names on the canvas never overlap; selecting spreads the neighbourhood -----------------------

OVERLAPS = """(() => { const b = kg.labelBoxes(); const bad = [];
  for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++) {
    const p = b[i], q = b[j];
    if (p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h) bad.push([p.text, q.text]); }
  return bad; })()"""


def settle(page) -> None:
    """Wait for two animation frames, so the names of the last view are drawn."""
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def label_boxes(page) -> list[dict]:
    settle(page)
    return page.evaluate("kg.labelBoxes()")


def test_names_never_overlap_at_any_zoom_or_selection(browser, tmp_path):
    g = html_graphs.example_graph()
    path = write_html(g, tmp_path / "example.html")
    page = open_page(browser, path)
    canvas = page.evaluate(
        "(() => { const r = document.getElementById('mynetwork').getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })()"
    )
    fit_scale = page.evaluate("kg.network.getScale()")
    for factor in (1.0, 0.4, 2.5, 6.0):
        page.evaluate(f"kg.network.moveTo({{scale: {fit_scale * factor}, animation: false}})")
        boxes = label_boxes(page)
        assert page.evaluate(OVERLAPS) == [], f"names overlap at zoom x{factor}"
        for b in boxes:  # drawn inside the canvas, at a readable size
            assert canvas[0] <= b["x"] and b["x"] + b["w"] <= canvas[2] + 0.5
            assert canvas[1] <= b["y"] and b["y"] + b["h"] <= canvas[3] + 0.5
            assert b["h"] >= 14
        if factor == 1.0:
            # most of the 120 nodes are named at first sight, biggest first
            assert len(boxes) >= 50
            biggest = page.evaluate("kg.data.nodes.reduce((a, b) => b.size > a.size ? b : a).id")
            assert biggest in {b["id"] for b in boxes}, "the biggest node is always named"
    hub = "method:large language models"
    page.evaluate(f"kg.selectNode({hub!r})")
    boxes = label_boxes(page)
    assert page.evaluate(OVERLAPS) == []
    named = {b["id"] for b in boxes}
    neighbours = set(page.evaluate(f"kg.network.getConnectedNodes({hub!r})"))
    assert hub in named and neighbours <= named, "the selected node and each neighbour are named"
    assert named <= neighbours | {hub}, (
        "nothing outside the neighbourhood is named while one is selected"
    )
    assert page.console_errors() == []


def test_selecting_a_node_frames_and_spreads_its_neighbours(browser, tmp_path):
    g = html_graphs.example_graph()
    path = write_html(g, tmp_path / "example.html")
    page = open_page(browser, path)
    hub = "method:large language models"
    before = page.evaluate("kg.network.getPositions()")
    page.click(*node_point(page, hub))
    assert page.wait_for("kg.selected()") == hub
    settle(page)
    # every neighbour is on screen, left of the panel, and no two are closer than a row of names
    panel_left = page.evaluate("document.getElementById('kg-panel').getBoundingClientRect().left")
    canvas = page.evaluate("document.getElementById('mynetwork').getBoundingClientRect().left")
    points = {n: node_point(page, n) for n in [hub, *page.evaluate("kg.shownNeighbours()")]}
    assert len(points) == 9
    for x, y in points.values():
        assert canvas < x < panel_left and 50 < y < 900
    ys = sorted(round(y) for n, (x, y) in points.items() if n != hub and x > points[hub][0])
    assert all(b - a >= 15 for a, b in zip(ys, ys[1:]))
    # clearing the selection puts every node back where the layout had it
    page.evaluate("document.getElementById('kg-panel-close').click()")
    assert page.wait_for("kg.selected() === null")
    assert page.evaluate("kg.network.getPositions()") == before


def test_hub_shows_its_strongest_neighbours_and_a_show_all_control(browser, tmp_path):
    g = html_graphs.synthetic_graph(600)
    hub = max(g, key=lambda n: (g.degree(n), n))
    edges = [*g.in_edges(hub, keys=True), *g.out_edges(hub, keys=True)]
    # neighbours through the edges on show (RELATED_TO starts hidden in the knowledge view)
    degree = len({u if v == hub else v for u, v, k in edges if k != "RELATED_TO"} - {hub})
    assert degree > 40
    path = write_html(g, tmp_path / "hub.html")
    page = open_page(browser, path)
    page.evaluate(f"kg.selectNode({hub!r})")
    shown = page.evaluate("kg.shownNeighbours()")
    assert len(shown) == 24
    note = page.evaluate("document.getElementById('kg-spread-note').innerText")
    assert f"Showing the 24 strongest of {degree} connections on show" in note
    boxes = label_boxes(page)
    assert page.evaluate(OVERLAPS) == []
    assert {hub, *shown} <= {b["id"] for b in boxes}, "the hub and its 24 strongest are all named"
    page.evaluate("document.getElementById('kg-show-all').click()")
    assert len(page.evaluate("kg.shownNeighbours()")) == degree
    assert "Showing all" in page.evaluate("document.getElementById('kg-spread-note').innerText")
    label_boxes(page)
    assert page.evaluate(OVERLAPS) == []
    page.screenshot(ARTIFACTS / "hub-show-all.png")
    assert page.console_errors() == []


# --- search ---------------------------------------------------------------------------------------


def type_in_search(page, text: str) -> None:
    x, y = page.evaluate(
        "(() => { const r = document.getElementById('kg-search').getBoundingClientRect();"
        " return [r.left + 20, r.top + r.height / 2]; })()"
    )
    page.click(x, y)
    page.type_text(text)


def test_search_list_closes_after_a_pick(browser, pages):
    page = open_page(browser, pages["knowledge"])
    type_in_search(page, "GSM")
    page.wait_for("!!document.querySelector('#kg-search-results li[data-node]')")
    page.press("Enter")
    assert page.wait_for("kg.selected()") == "dataset:gsm8k"
    assert page.evaluate("document.getElementById('kg-search-results').hidden") is True
    assert "no node matches" not in page.evaluate(
        "document.getElementById('kg-search-results').textContent"
    )


def test_papers_view_search_finds_papers_by_what_they_mention(browser, pages):
    page = open_page(browser, pages["papers"])
    assert sorted(page.evaluate("kg.search('gsm8k')")) == ["paper:a1", "paper:b2"]
    type_in_search(page, "accuracy")  # a metric: the paper whose abstract mentions it
    first = page.wait_for("document.querySelector('#kg-search-results li[data-node]')?.innerText")
    assert first.startswith("Prompting") and "mentions: accuracy" in first


# --- the paper map --------------------------------------------------------------------------------


def _best_mapped_paper(g) -> str:
    from graph_exports.paper_map import paper_map

    papers = [n for n, d in g.nodes(data=True) if d.get("label") == "Paper"]
    return max(papers, key=lambda p: (len(paper_map(g, p)), p))


def test_a_click_on_a_paper_opens_its_paper_map(browser, tmp_path):
    from graph_exports.paper_map import paper_map

    g = html_graphs.example_graph()
    origin = _best_mapped_paper(g)
    path = write_html(g, tmp_path / "example.html")
    page = open_page(browser, path)
    page.click(*node_point(page, origin))
    page.wait_for(f"document.getElementById('kg-panel').dataset.node === {origin!r}")
    button = page.evaluate(
        "(() => { const r = document.getElementById('kg-map-open').getBoundingClientRect();"
        " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
    )
    page.click(*button)
    assert page.wait_for("document.getElementById('kg-map').dataset.origin") == origin
    shown = page.evaluate("kg.map()")
    expected = paper_map(g, origin)
    assert [r["id"] for r in shown["ranked"]] == [r.paper for r in expected], (
        "the page ranks as Python does"
    )
    assert [r["order"] for r in shown["ranked"]] == [r.order for r in expected]
    # the list beside the map: every related paper, in order, each saying why
    rows = page.evaluate(
        "[...document.querySelectorAll('#kg-map-list li[data-node]')].map(li => [li.dataset.node, li.innerText])"
    )
    assert [r[0] for r in rows] == [r.paper for r in expected]
    first = expected[0]
    assert "shares" in rows[0][1] and g.nodes[first.shared[0]]["name"] in rows[0][1]
    second = [row for row, r in zip(rows, expected) if r.order == 2]
    assert all("second order, via" in row[1] for row in second)
    # the names on the map never overlap, and the origin is named
    settle(page)
    boxes = page.evaluate("kg.map().labelBoxes")
    assert origin in {b["id"] for b in boxes} and len(boxes) >= min(len(expected), 8)
    for i, p in enumerate(boxes):
        for q in boxes[i + 1 :]:
            assert not (
                p["x"] < q["x"] + q["w"]
                and q["x"] < p["x"] + p["w"]
                and p["y"] < q["y"] + q["h"]
                and q["y"] < p["y"] + p["h"]
            ), (p["text"], q["text"])
    page.screenshot(ARTIFACTS / "paper-map.png")
    # back to the graph
    page.evaluate("document.getElementById('kg-map-close').click()")
    assert page.evaluate("document.getElementById('kg-map').hidden") is True
    assert page.console_errors() == []


def test_paper_map_layout_is_the_same_every_time_and_in_the_paper_page(browser, tmp_path):
    g = html_graphs.example_graph()
    origin = _best_mapped_paper(g)
    full = open_page(browser, write_html(g, tmp_path / "example.html"))
    full.evaluate(f"kg.openMap({origin!r})")
    first = full.evaluate("kg.map().positions")
    full.evaluate("kg.closeMap()")
    full.evaluate(f"kg.openMap({origin!r})")
    assert full.evaluate("kg.map().positions") == first
    assert first[origin] == {"x": 0, "y": 0}
    xs = sorted(p["x"] for p in first.values())
    assert xs[-1] - xs[0] > 200, "the papers are spread out, not piled up"
    # kg html --paper: a page of the map alone opens on the same map
    own = open_page(browser, write_html(g, tmp_path / "map.html", paper=origin))
    assert own.wait_for("document.getElementById('kg-map').dataset.origin") == origin
    assert own.evaluate("kg.map().positions") == first
    assert_offline_and_clean(own, tmp_path / "map.html")


# --- light pages and the overview -----------------------------------------------------------------


def test_compressed_page_opens_with_the_same_data(browser, tmp_path, monkeypatch):
    import graph_exports.page_data as page_data

    g = html_graphs.example_graph()
    plain = open_page(browser, write_html(g, tmp_path / "plain.html"))
    expected = plain.evaluate(
        "JSON.stringify([kg.data.nodes.map(n => [n.id, n.name, n.abstract || null, n.papers || null]),"
        " kg.data.edges.map(e => [e.id, e.from, e.to, e.type])])"
    )
    eid = plain.evaluate("kg.data.edges.find(e => e.evRows).id")
    evidence = plain.evaluate(
        f"JSON.stringify(kg.data.evidence(kg.data.edges.find(e => e.id === {eid!r})))"
    )
    monkeypatch.setattr(page_data, "COMPRESS_ABOVE", 1000)
    path = write_html(g, tmp_path / "packed.html")
    text = path.read_text(encoding="utf-8")
    assert '<script type="application/octet-stream" id="kg-blob">' in text
    assert '<script type="application/octet-stream" id="kg-details">' in text
    packed = open_page(browser, path)
    # abstracts, evidence and aliases come after the first drawing; a panel opened before they
    # arrive is built again with them
    paper = packed.evaluate("kg.data.nodes.find(n => n.kind === 'Paper').id")
    packed.evaluate(f"kg.selectNode({paper!r})")
    start = g.nodes[paper]["abstract"][:40]
    packed.wait_for(
        f"kg.detailsReady && document.getElementById('kg-panel-body').innerText.includes({start!r})"
    )
    assert (
        packed.evaluate(
            "JSON.stringify([kg.data.nodes.map(n => [n.id, n.name, n.abstract || null, n.papers || null]),"
            " kg.data.edges.map(e => [e.id, e.from, e.to, e.type])])"
        )
        == expected
    )
    assert (
        packed.evaluate(
            f"JSON.stringify(kg.data.evidence(kg.data.edges.find(e => e.id === {eid!r})))"
        )
        == evidence
    )
    assert json.loads(evidence)[0]["sentence"], "evidence sentences are cut out of the abstract"
    assert_offline_and_clean(packed, path)


def test_overview_opens_on_named_communities_that_open_into_their_members(browser, tmp_path):
    g = html_graphs.synthetic_graph(900, seed=3)
    path = write_html(g, tmp_path / "overview.html", overview=True)
    page = open_page(browser, path)
    communities = page.evaluate("kg.communities()")
    assert len(communities) > 2
    assert page.evaluate("kg.nodes.length") == len(communities), (
        "only the meta-nodes are drawn at first"
    )
    names = {b["text"] for b in label_boxes(page)}
    assert page.evaluate(OVERLAPS) == []
    full = [c["name"] for c in communities]
    assert len(names) >= min(len(full), 5), "the communities are named on the canvas"
    assert all(any(f.startswith(n.rstrip("…")) for f in full) for n in names)
    # a click on a community opens it: its members are drawn, its panel names it
    first = communities[0]
    x, y = (
        page.evaluate(f"""(() => {{ const p = kg.network.canvasToDOM(kg.network.getPosition('community:{first["i"]}'));
        const r = document.getElementById('mynetwork').getBoundingClientRect(); return [r.left + p.x, r.top + p.y]; }})()""")
    )
    page.click(x, y)
    assert page.wait_for("document.getElementById('kg-panel').dataset.community") == str(first["i"])
    members = page.evaluate(f"kg.data.nodes.filter(n => n.comm === {first['i']}).length")
    assert members == first["size"]
    assert page.evaluate("kg.present().length") == members
    assert first["name"] in page.evaluate("document.getElementById('kg-panel-body').innerText")
    label_boxes(page)
    assert page.evaluate(OVERLAPS) == []
    page.screenshot(ARTIFACTS / "overview-open.png")
    # search finds a node of a closed community and opens it
    other = page.evaluate(
        f"kg.data.nodes.find(n => n.comm === {communities[1]['i']} && n.kind === 'Paper').id"
    )
    page.evaluate(f"kg.selectNode({other!r})")
    assert page.evaluate("kg.selected()") == other
    assert page.evaluate(f"kg.present().includes({other!r})") is True
    page.evaluate("kg.showOverview()")
    assert page.evaluate("kg.nodes.length") == len(communities)
    assert page.console_errors() == []


# --- results in the paper panel; colour by year --------------------------------------------------


def test_paper_panel_lists_results_and_colour_by_year_paints_by_year(browser, tmp_path, nlp):
    from kg.build import build_from_papers
    from kg.model import Paper

    papers = [
        Paper(
            id="a1",
            year=2016,
            title="FARTrack",
            abstract=(
                "We propose FARTrack, a fast visual tracker. FARTrack achieves an AO of 70.6% on GOT-10k in "
                "real-time."
            ),
        ),
        Paper(
            id="a2",
            year=2019,
            title="SlowTrack",
            abstract=(
                "We present SlowTrack for visual tracking. SlowTrack reaches an AO of 65.2% on GOT-10k."
            ),
        ),
    ]
    g = build_from_papers(papers, nlp).graph
    path = write_html(g, tmp_path / "results.html")
    page = open_page(browser, path)
    assert page.evaluate("kg.data.nodes.some((n) => n.kind === 'Result')") is False
    page.evaluate("kg.selectNode('paper:a1')")
    text = page.wait_for(
        "(() => { const p = document.getElementById('kg-panel'); "
        "return p && p.innerText.includes('RESULTS') ? p.innerText : ''; })()"
    )
    assert "70.6% AO on GOT-10k" in text and "FARTrack achieves an AO of 70.6% on GOT-10k" in text
    assert page.evaluate("document.querySelector('.kg-result mark').textContent") == "70.6%"
    page.evaluate(
        "(() => { const s = document.getElementById('kg-colour-by'); s.value = 'year'; "
        "s.dispatchEvent(new Event('change')); })()"
    )
    time.sleep(0.3)
    fills = page.evaluate(
        "Object.fromEntries(kg.network.body.data.nodes.get().map((n) => [n.id, n.color.background]))"
    )
    assert fills["paper:a1"] != fills["paper:a2"]  # 2016 and 2019: the two ends of the ramp
    assert "2016 (light) to 2019 (dark)" in page.evaluate(
        "document.getElementById('kg-community-note').textContent"
    )
    page.screenshot(ARTIFACTS / "results-panel-year.png")
    assert_offline_and_clean(page, path)
