"""Scale (issue 13): worker processes, the extraction store, incremental builds and streamed files
give the very bytes a one-process build of everything writes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from spacy.language import Language

from extractors.parallel import WorkerError, extract_parallel, usable_cores
from graph_exports.files import (
    GraphmlKeys,
    graphml_ends,
    graphml_parts,
    iter_graphml,
    iter_graphml_elements,
    read_graphml,
    to_graphml_graph,
    write_graphml,
)
from graph_exports.outputs import write_build_outputs
from kg.build import build
from kg.corpus import read_corpus
from kg.graph import KnowledgeGraph
from kg.model import Paper
from kg.store import STORE_FILE, StoreError, StoreSpool, pipeline_fingerprint, read_store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "iclr2026"


def kg(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Path]:
    """The example corpus as two JSON lines files: its first 35 papers and the other 22."""
    folder = tmp_path_factory.mktemp("corpus")
    papers = list(read_corpus([EXAMPLES]))
    assert len(papers) == 57
    parts = (folder / "a.jsonl", folder / "b.jsonl")
    for path, chunk in zip(parts, (papers[:35], papers[35:]), strict=True):
        path.write_text(
            "".join(
                json.dumps({"id": p.id, "title": p.title, "abstract": p.abstract}) + "\n"
                for p in chunk
            ),
            encoding="utf-8",
        )
    return parts


def _outputs(result, out: Path, nlp: Language) -> Path:
    write_build_outputs(
        result.graph,
        result.merges,
        result.summary.to_dict(),
        out,
        html=False,
        store=result.store,
    )
    return out


def test_two_workers_write_the_graph_of_one_byte_for_byte(corpus, nlp, tmp_path):
    one = _outputs(build(corpus, nlp, batch_size=4, workers=1), tmp_path / "one", nlp)
    two = _outputs(build(corpus, nlp, batch_size=4, workers=2), tmp_path / "two", nlp)
    for name in ("graph.json", "graph.graphml", "merges.jsonl", STORE_FILE):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    assert json.loads((one / "summary.json").read_text())["papers"] == 57


def test_workers_report_every_paper_in_input_order(corpus, nlp):
    papers = list(read_corpus(corpus))
    seen = [item.paper.id for item in extract_parallel(nlp, papers, workers=2, batch_size=3)]
    assert seen == [p.id for p in papers]
    assert usable_cores() >= 1


def test_a_worker_that_dies_is_one_clear_error(nlp):
    from spacy.language import Language as Lang

    @Lang.component("test_die_on_marker")
    def die(doc):  # a worker killed (out of memory, a crash) mid-build
        if "KILLME" in doc.text:
            import os

            os._exit(9)
        return doc

    nlp.add_pipe("test_die_on_marker", first=True)
    try:
        papers = [Paper(id=str(i), abstract=f"We use BERT on SQuAD {i}.") for i in range(20)]
        papers[13] = Paper(id="13", abstract="KILLME please")
        with pytest.raises(WorkerError, match="worker process died.*--workers 1"):
            list(extract_parallel(nlp, papers, workers=2, batch_size=4))
    finally:
        nlp.remove_pipe("test_die_on_marker")


def test_update_extracts_only_new_papers_and_gives_the_full_graph(corpus, nlp, tmp_path):
    a, b = corpus
    full = _outputs(build([a, b], nlp), tmp_path / "full", nlp)
    first = _outputs(build([a], nlp), tmp_path / "inc", nlp)
    extracted: list[str] = []
    result = build(
        [b, a], nlp, update=first, on_paper=lambda p, _m: extracted.append(p.id)
    )  # a again: duplicates
    assert (
        result.summary.reused == 35
        and result.summary.papers == 57
        and result.summary.duplicates == 35
    )
    _outputs(result, first, nlp)
    for name in ("graph.json", "graph.graphml", "merges.jsonl", STORE_FILE):
        assert (first / name).read_bytes() == (full / name).read_bytes(), name


def test_an_update_with_two_workers_gives_the_full_graph_of_one(corpus, nlp, tmp_path):
    a, b = corpus
    full = _outputs(build([a, b], nlp, workers=1), tmp_path / "full", nlp)
    first = _outputs(build([a], nlp, workers=2), tmp_path / "inc", nlp)
    # the new papers go to the workers before the stored ones are taken in
    result = build([b], nlp, update=first, workers=2, batch_size=4)
    assert result.summary.reused == 35 and result.summary.papers == 57
    _outputs(result, first, nlp)
    for name in ("graph.json", "graph.graphml", "merges.jsonl", STORE_FILE):
        assert (first / name).read_bytes() == (full / name).read_bytes(), name


def test_workers_sent_every_batch_at_once_stop_when_closed(corpus, nlp):
    papers = list(read_corpus(corpus))
    results = extract_parallel(nlp, papers, workers=2, batch_size=3, ahead=len(papers))
    assert next(results).paper.id == papers[0].id
    results.close()  # the batches not started are dropped, the workers stop
    assert list(results) == []


def test_update_with_the_cli(corpus, tmp_path):
    a, b = corpus
    assert (
        kg("build", str(a), str(b), "-o", str(tmp_path / "full"), "-q", "--no-html").returncode == 0
    )
    assert (
        kg(
            "build", str(a), "-o", str(tmp_path / "inc"), "-q", "--no-html", "--workers", "2"
        ).returncode
        == 0
    )
    done = kg("build", str(b), "--update", str(tmp_path / "inc"), "--no-html", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["reused"] == 35 and summary["papers"] == 57
    assert (tmp_path / "inc" / "graph.json").read_bytes() == (
        tmp_path / "full" / "graph.json"
    ).read_bytes()


def test_update_needs_a_store_of_the_same_pipeline(corpus, nlp, tmp_path):
    a, _ = corpus
    with pytest.raises(
        StoreError, match="no extraction store; --update needs a folder written by kg build"
    ):
        build([a], nlp, update=tmp_path)
    store = tmp_path / STORE_FILE
    store.write_text(json.dumps({"kg_extractions": 1, "pipeline": {"name": "other"}}) + "\n")
    with pytest.raises(StoreError, match=r"extractions.jsonl:1: extracted with another pipeline"):
        build([a], nlp, update=tmp_path)
    store.write_text(
        json.dumps({"kg_extractions": 1, "pipeline": pipeline_fingerprint(nlp)}) + "\n{oops\n"
    )
    with pytest.raises(StoreError, match=r"extractions.jsonl:2: not an extraction record"):
        build([a], nlp, update=tmp_path)
    done = kg("build", str(a), "--update", str(tmp_path / "nothing"), "-q")
    assert (
        done.returncode == 1
        and "no extraction store" in done.stderr
        and "Traceback" not in done.stderr
    )


def test_engine_options_are_checked(corpus, tmp_path):
    a, _ = corpus
    done = kg("build", str(a), "-o", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:1")
    assert done.returncode == 1 and "--scheduler is for --engine dask" in done.stderr
    done = kg("build", str(a), "-o", str(tmp_path / "o"), "--engine", "spark")
    assert done.returncode == 1 and "not one of local, dask" in done.stderr


def _odd_graph() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph(kg_schema=1)
    G.add_node(
        "method:a&b <c>",
        label="Method",
        name='say "hi"\n\ttab\r',
        aliases=["x", "y"],
        support=2,
        flag=True,
        score=0.5,
    )
    G.add_node(
        "paper:1",
        label="Paper",
        abstract="a < b & c > d",
        year=2024,
        mentions=[[0, 1, "METHOD", "m"]],
        venue=None,
    )
    G.add_node("lonely")
    G.add_edge(
        "paper:1",
        "method:a&b <c>",
        key="USES",
        type="USES",
        evidence=[{"sentence": "s & t"}],
        weight=1.0,
    )
    G.add_edge("paper:1", "lonely", key='K"Q', type="RELATED_TO")
    G.add_edge("paper:1", "lonely", key="BARE")
    return G


def test_graphml_is_streamed_with_networkx_s_exact_bytes(tmp_path):
    for G in (_odd_graph(), nx.MultiDiGraph(kg_schema=1)):
        expected = io.BytesIO()
        nx.write_graphml(to_graphml_graph(G), expected, named_key_ids=True)
        assert "".join(iter_graphml(G)).encode("utf-8") == expected.getvalue()
    path = write_graphml(_odd_graph(), tmp_path / "g.graphml")
    back = read_graphml(path)
    assert back.nodes["method:a&b <c>"]["aliases"] == ["x", "y"]
    assert (
        back.nodes["method:a&b <c>"]["name"] == 'say "hi"\n\ttab\n'
    )  # XML reads a CR as a line end


def test_json_is_streamed_as_the_node_link_data_in_one_compact_document(
    tmp_path, example_graph, monkeypatch
):
    import kg.graph

    odd = _odd_graph()
    odd.add_node("big", count=2**70)  # a value orjson declines: that piece goes through json
    for G in (odd, example_graph.nx, nx.MultiDiGraph(kg_schema=1)):
        text = "".join(KnowledgeGraph(G).iter_json())
        assert json.loads(text) == json.loads(json.dumps(nx.node_link_data(G, edges="links")))
        assert text == json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))
        # rows are encoded a batch at a time: any batch size writes the same text
        for rows in (1, 2, 7):
            monkeypatch.setattr(kg.graph, "_JSON_ROWS", rows)
            assert "".join(KnowledgeGraph(G).iter_json()) == text
        monkeypatch.undo()
    path = KnowledgeGraph(_odd_graph()).save(tmp_path / "g.json")
    assert nx.utils.graphs_equal(KnowledgeGraph.load(path).nx, _odd_graph())


def test_the_store_is_spooled_during_the_build_and_never_left_behind(corpus, nlp, tmp_path):
    import gc

    result = build(corpus, nlp, batch_size=8, workers=1, spool_dir=tmp_path)
    spooled = result.store.path
    assert spooled.parent == tmp_path and spooled.name.startswith(".kg-tmp-")
    assert [s.paper.id for s in result.store][:3] == [p.id for p in read_corpus(corpus)][:3]
    del result
    gc.collect()
    assert not spooled.exists()  # a build whose files were never written leaves no file


def test_stored_lines_are_copied_in_any_order_and_around_new_papers(corpus, nlp, tmp_path):
    """An update copies the earlier store's lines (consecutive ones at once) instead of encoding
    them again: in the store's order or not, with new papers between, its last line without a
    newline, the new store is the one a build that encodes every line writes."""
    a, _ = corpus
    stored = list(build([a], nlp, workers=1).store)
    earlier = tmp_path / STORE_FILE
    fingerprint = pipeline_fingerprint(nlp)
    fresh = StoreSpool(fingerprint, tmp_path)
    for item in stored:
        fresh.add(item.extraction())
    earlier.write_bytes(fresh.finish().read_bytes().rstrip(b"\n"))  # no newline after the last
    again = list(read_store(earlier, fingerprint))
    order = [2, 3, 4, 0, 1, *range(5, len(again))]  # out of order; paper 1 is "new"
    lines = {(s.paper.id, s.key): s.span for i, s in enumerate(again) if i != 1}
    expected, copied = (
        StoreSpool(fingerprint, tmp_path),
        StoreSpool(fingerprint, tmp_path, earlier=earlier, lines=lines),
    )
    for i in order:
        expected.add(again[i].extraction())
        copied.add(again[i].extraction(), None if i == 1 else (again[i].paper.id, again[i].key))
    assert copied.finish().read_bytes() == expected.finish().read_bytes()
    assert not lines  # each earlier line was taken once


def test_a_spooled_store_on_another_file_system_is_copied_into_place(
    corpus, nlp, tmp_path, monkeypatch
):
    import errno
    import os

    result = build(corpus, nlp, batch_size=8, workers=1)
    real_replace = os.replace
    moves = []

    def cross_device(src, dst):
        if str(src) == str(result.store.path):  # the spool's rename: as if /tmp were elsewhere
            moves.append(src)
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", cross_device)
    out = tmp_path / "out"
    write_build_outputs(
        result.graph, result.merges, result.summary.to_dict(), out, html=False, store=result.store
    )
    assert moves and not result.store.path.exists()
    assert sum(1 for _ in (out / STORE_FILE).open()) == 58  # header + 57 papers
    assert not [p for p in out.iterdir() if p.name.startswith(".kg-tmp-")]


def test_files_written_by_several_processes_are_the_bytes_of_one(example_graph, tmp_path):
    summary = {"papers": 57}
    serial = write_build_outputs(example_graph, [], summary, tmp_path / "one", processes=1)
    forked = write_build_outputs(example_graph, [], summary, tmp_path / "two", processes=3)
    assert [p.name for p in serial] == [p.name for p in forked]
    for a, b in zip(serial, forked, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert not list((tmp_path / "two").glob(".kg-tmp-*"))


def test_graphml_chunks_of_a_writer_that_dies_are_written_by_the_driver(
    example_graph, tmp_path, monkeypatch
):
    import os

    import graph_exports.outputs as outputs

    summary = {"papers": 57}
    serial = write_build_outputs(example_graph, [], summary, tmp_path / "one", processes=1)
    driver, real = os.getpid(), outputs._write_part

    def dying(*args):
        if os.getpid() != driver:  # a forked writer killed at its first chunk (out of memory)
            os._exit(3)
        return real(*args)

    monkeypatch.setattr(outputs, "_write_part", dying)
    forked = write_build_outputs(example_graph, [], summary, tmp_path / "two", processes=3)
    for a, b in zip(serial, forked, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert not list((tmp_path / "two").glob(".kg-tmp-*"))


def test_a_writer_process_that_fails_is_one_error_and_changes_nothing(example_graph, tmp_path):
    from kg.errors import ExportError

    out = tmp_path / "out"
    write_build_outputs(example_graph, [], {"papers": 57}, out, html=False)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    broken = KnowledgeGraph(example_graph.nx.copy())
    node = next(iter(broken.nx))

    class Rank(int):  # JSON writes it as a number; GraphML has no type for it: the child fails
        pass

    broken.nx.nodes[node]["bad"] = Rank(3)
    with pytest.raises(ExportError, match="GraphML has no type for attribute 'bad'"):
        write_build_outputs(broken, [], {"papers": 1}, out, html=False, processes=2)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_graphml_in_shares_concatenates_to_the_whole_file(example_graph):
    """What several writer processes each write of graph.graphml adds up to the one file."""
    for G in (_odd_graph(), example_graph.nx, nx.MultiDiGraph(kg_schema=1)):
        whole = "".join(iter_graphml(G))
        head, tail = graphml_ends(G)
        for cuts in ([0.5], [0.3, 0.6], [i / 7 for i in range(1, 7)], [0.0, 0.5, 0.5]):
            bounds = [0.0, *cuts, 1.0]
            parts = graphml_parts(G, list(zip(bounds, bounds[1:], strict=False)))
            found = [GraphmlKeys() for _ in parts]
            texts = [
                "".join(iter_graphml_elements(G, part=part, keys=keys))
                for part, keys in zip(parts, found, strict=True)
            ]
            assert head + "".join(texts) + tail == whole
            merged = found[0]
            for keys in found[1:]:
                merged.merge(keys)
            # the keys the parts' writers met, merged in file order, declare the same header
            assert graphml_ends(G, merged) == (head, tail)
            if G is example_graph.nx and len(cuts) < 3:  # every share writes some elements
                assert all(text.count("<node ") + text.count("<edge ") for text in texts)
