"""No input ends a build with a traceback: each bad record is one line naming file, line and problem;
text is cleaned once at the reader (issue 14, deliver 3 and 4). Each test uses the input that broke."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys

import networkx as nx
import pytest

from graph_exports.files import write_graphml
from kg.build import build, build_from_papers
from kg.corpus import CorpusStats, read_corpus
from kg.errors import CorpusError, RecordWarning
from kg.model import Paper
from kg.records import LIMITS, clean_text

A = "We propose FooNet, a network for image classification on CIFAR-10."
B = "We study machine translation with large language models (LLMs) on WMT14."
C = "We introduce BarGAN for image synthesis, evaluated with FID on CelebA."


def read(paths, **kw):
    stats = CorpusStats()
    errors: list[str] = []
    warnings: list[str] = []

    def on_error(err):
        (warnings if isinstance(err, RecordWarning) else errors).append(str(err))

    papers = list(read_corpus([str(p) for p in paths], stats=stats, on_error=on_error, **kw))
    return papers, stats, errors, warnings


def jsonl(path, *records: dict) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_lone_surrogate_and_control_characters_are_removed_and_counted(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_text(
        '{"abstract": "We propose Foo\\ud800Net on \\u001bCIFAR-10.", "title": "T\\u0000 \\u0085x"}\n',
        encoding="utf-8",
    )
    papers, stats, errors, _ = read([f])
    assert [(p.abstract, p.title) for p in papers] == [("We propose FooNet on CIFAR-10.", "T x")]
    assert stats.characters_removed == 4 and errors == []


def test_clean_text_keeps_rtl_zero_width_and_astral_characters():
    text = "\u05e9\u05dc\u05d5\u05dd a\u200bb \u202eevil\u202c \U0001f600 caf\u00e9"
    assert clean_text(text) == (text, 0)


def test_graphml_of_dirty_text_is_well_formed_xml(tmp_path, nlp):
    f = jsonl(
        tmp_path / "dirty.jsonl",
        {
            "abstract": "We propose \x00Baz\x01, a \x1b[31mnetwork\ud83d on ImageNet\ufffe.",
            "title": "Baz\x0b",
            "venue": "ICLR\x7f",
            "authors": ["A\x00da"],
        },
    )
    result = build([f], nlp)
    assert result.summary.papers == 1 and result.summary.characters_removed == 8
    write_graphml(result.graph, tmp_path / "g.graphml")
    back = nx.read_graphml(tmp_path / "g.graphml")
    paper = next(d for _, d in back.nodes(data=True) if d.get("label") == "Paper")
    assert (
        paper["abstract"] == "We propose Baz, a [31mnetwork on ImageNet."
        and paper["venue"] == "ICLR"
    )


def test_json_nested_100000_deep_is_one_bad_line(tmp_path):
    f = tmp_path / "deep.jsonl"
    f.write_text(
        "[" * 100_000 + "]" * 100_000 + "\n" + json.dumps({"abstract": A}) + "\n", encoding="utf-8"
    )
    papers, stats, errors, _ = read([f])
    assert [p.abstract for p in papers] == [A]
    assert errors == [f"{f}:1: JSON nested deeper than {LIMITS.json_depth} levels; line skipped"]


def test_a_5000_digit_year_and_a_year_out_of_range_are_bad_records(tmp_path):
    f = tmp_path / "y.jsonl"
    f.write_text(
        f'{{"abstract": "{A}", "year": {"9" * 5000}}}\n{{"abstract": "{B}", "year": 99999}}\n',
        encoding="utf-8",
    )
    papers, _, errors, _ = read([f])
    assert papers == []
    assert errors == [
        f"{f}:1: malformed JSON: Exceeds the limit (4300 digits) for integer string conversion",
        f"{f}:2: year 99999 is not a year (1800-2999)",
    ]


def test_objects_where_text_belongs_are_bad_records_not_python_repr(tmp_path):
    f = jsonl(
        tmp_path / "n.jsonl",
        {"abstract": A, "id": {"doc": 1}},
        {"abstract": B, "title": ["x"]},
        {"abstract": C, "authors": [["nested"]]},
        {"abstract": {"text": A}},
    )
    papers, _, errors, _ = read([f])
    assert papers == []
    assert errors == [
        f"{f}:1: field 'id' is an object; expected text or a number",
        f"{f}:2: field 'title' is a list; expected text or a number",
        f"{f}:3: field 'authors[0]' is a list; expected text or a number",
        f"{f}:4: field 'abstract' is an object; expected text",
    ]


def test_an_id_neo4j_could_not_index_is_refused_at_the_reader(tmp_path):
    f = jsonl(
        tmp_path / "id.jsonl", {"abstract": A, "id": "i" * 10_022}, {"abstract": B, "id": "ok"}
    )
    papers, _, errors, _ = read([f])
    assert [p.id for p in papers] == ["ok"]
    assert errors == [f"{f}:1: field 'id' is 10,022 characters, over the {LIMITS.id_chars} limit"]


def test_duplicate_colliding_and_whitespace_ids_each_get_a_line_and_follow_the_rule(tmp_path):
    f = jsonl(
        tmp_path / "d.jsonl",
        {"id": 7, "abstract": A},
        {"id": "7", "abstract": B},
        {"id": "  ", "abstract": C},
        {"id": "x", "abstract": A.upper()},
        {"id": 7, "abstract": A},
    )
    papers, stats, errors, warnings = read([f])
    assert [p.id for p in papers] == ["7", papers[1].id] and papers[1].abstract == C
    assert errors == [
        f"{f}:2: id '7' is already the id of {f}:1, which has a different abstract; "
        "record skipped (the first one is kept)"
    ]
    assert warnings == [
        f"{f}:3: id '  ' is only whitespace or control characters; the paper gets an id from its abstract",
        f"{f}:4: same abstract as {f}:1 (id '7'); merged into it, so id 'x' is not in the graph",
    ]
    assert (
        stats.duplicates == 2 and stats.skipped == 1 and stats.warnings == 2
    )  # line 5 is the same paper again


def test_cr_only_line_endings_split_records(tmp_path):
    txt, js = tmp_path / "cr.txt", tmp_path / "cr.jsonl"
    txt.write_bytes(f"{A}\r\r{B}\r\r{C}\r".encode())
    js.write_bytes(
        (json.dumps({"abstract": A}) + "\r" + json.dumps({"abstract": B}) + "\r").encode()
    )
    papers, _, errors, _ = read([txt, js])
    assert [p.abstract for p in papers] == [A, B, C] and errors == []
    assert [p.source for p in papers] == [f"{txt}:1", f"{txt}:3", f"{txt}:5"]


def test_one_nul_byte_costs_nothing_but_the_nul(tmp_path):
    f = tmp_path / "nul.jsonl"
    f.write_bytes(
        (json.dumps({"abstract": A}) + "\n").encode()
        + b'{"abstract": "We test Q\x00Net."}\n'
        + (json.dumps({"abstract": B}) + "\n").encode()
    )
    papers, stats, errors, _ = read([f])
    assert [p.abstract for p in papers] == [A, "We test QNet.", B] and errors == []
    assert stats.characters_removed == 1


def test_a_million_leading_blank_lines_do_not_make_a_file_empty(tmp_path):
    f = tmp_path / "blank.jsonl"
    f.write_bytes(b"\n" * 1_000_000 + json.dumps({"abstract": A}).encode() + b"\n")
    papers, _, errors, _ = read([f])
    assert [p.source for p in papers] == [f"{f}:1000001"] and errors == []


def test_utf16_with_a_bom_is_read_and_without_one_is_named(tmp_path):
    le, be, bare = tmp_path / "le.jsonl", tmp_path / "be.txt", tmp_path / "bare.txt"
    le.write_bytes(codecs.BOM_UTF16_LE + (json.dumps({"abstract": A}) + "\r\n").encode("utf-16-le"))
    be.write_bytes(codecs.BOM_UTF16_BE + f"{B}\n\n{C}\n".encode("utf-16-be"))
    bare.write_bytes(A.encode("utf-16-le"))
    papers, _, errors, _ = read([le, be, bare])
    assert [p.abstract for p in papers] == [A, B, C]
    assert errors == [
        f"{bare}: binary file (NUL bytes), not text; it looks like UTF-16 without a BOM: save it as UTF-8"
    ]


def test_a_file_that_fails_while_being_read_and_a_broken_link_are_named(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    jsonl(folder / "good.jsonl", {"abstract": A})
    (folder / "io-error.jsonl").symlink_to(
        "/proc/self/mem"
    )  # reading it fails with EIO, even for root
    (folder / "gone.jsonl").symlink_to(tmp_path / "nowhere")
    papers, _, errors, _ = read([folder])
    assert [p.abstract for p in papers] == [A]
    assert errors == [
        f"{folder / 'gone.jsonl'}: broken symbolic link; not read",
        f"{folder / 'io-error.jsonl'}: cannot read (Input/output error); records after this point are lost",
    ]


_READ_AS_USER = """
import json, sys
from kg.corpus import CorpusStats, read_corpus
errors = []
papers = list(read_corpus([sys.argv[1]], stats=CorpusStats(), on_error=lambda e: errors.append(str(e))))
print(json.dumps({"abstracts": [p.abstract for p in papers], "errors": errors}))
"""


def test_unreadable_file_and_subdirectory_are_named(tmp_path):
    """Root reads every file, so as root the reader runs without the capabilities that override file
    permissions (util-linux ``setpriv``), as any other user would."""
    folder = tmp_path / "corpus"
    (folder / "locked").mkdir(parents=True)
    jsonl(folder / "good.jsonl", {"abstract": A})
    jsonl(folder / "locked" / "hidden.jsonl", {"abstract": B})
    jsonl(folder / "secret.jsonl", {"abstract": C})
    (folder / "secret.jsonl").chmod(0)
    (folder / "locked").chmod(0)
    caps = "-dac_override,-dac_read_search"
    unprivileged = (
        ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"] if os.geteuid() == 0 else []
    )
    try:
        out = subprocess.run(
            [*unprivileged, sys.executable, "-c", _READ_AS_USER, str(folder)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
    finally:
        (folder / "locked").chmod(0o755)
    result = json.loads(out.stdout)
    assert result["abstracts"] == [A]
    assert result["errors"] == [
        f"{folder / 'locked'}: cannot read directory (Permission denied); its files are not read",
        f"{folder / 'secret.jsonl'}: cannot read (Permission denied)",
    ]


def test_max_chars_over_the_pipeline_limit_is_a_clear_error(tmp_path, nlp):
    with pytest.raises(
        CorpusError, match=r"--max-chars 2,000,000 is over the pipeline's limit of 1,000,000"
    ):
        build([jsonl(tmp_path / "a.jsonl", {"abstract": A})], nlp, max_chars=2_000_000)


def test_build_from_papers_skips_a_paper_over_the_pipeline_limit(nlp):
    seen = []
    limit = nlp.max_length
    nlp.max_length = 50
    try:
        result = build_from_papers(
            [
                Paper(id="long", abstract=A, source="x.jsonl:1"),
                Paper(id="short", abstract="We use BERT."),
            ],
            nlp,
            on_error=lambda e: seen.append(str(e)),
        )
    finally:
        nlp.max_length = limit
    assert result.graph.papers() == ["paper:short"] and result.summary.skipped == 1
    assert seen == [
        f"x.jsonl:1: abstract is {len(A)} characters, over the pipeline's limit of 50 (nlp.max_length); "
        "paper skipped"
    ]


def test_a_mention_longer_than_a_name_can_be_is_dropped(nlp):
    word = "A" * 400  # one 400-letter "word" the extractor takes for a name
    result = build_from_papers(
        [
            Paper(
                id="p",
                abstract=f"We evaluate LLMs on {word} and on ImageNet. "
                f"We propose {word}, a method.",
            )
        ],
        nlp,
    )
    assert result.summary.mentions_dropped >= 1
    assert max(len(n) for n in result.graph.nx.nodes) <= len("method:") + LIMITS.mention_chars
    assert "dataset:imagenet" in result.graph


def kg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True, timeout=600
    )


def test_kg_build_prints_one_line_per_problem_even_with_markup_in_ids(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    jsonl(
        folder / "a.jsonl",
        {"id": "[/x]", "abstract": A},
        {"id": "[/x]", "abstract": B},
        {"id": "[bold]", "abstract": C},
    )
    (folder / "io-error.jsonl").symlink_to(
        "/proc/self/mem"
    )  # also read by the progress bar's line count
    done = kg("build", str(folder), "-o", str(tmp_path / "out"), "--rules-only", "--no-html")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"skipped {folder / 'a.jsonl'}:2: id '[/x]' is already the id of {folder / 'a.jsonl'}:1, which has a "
        "different abstract; record skipped (the first one is kept)",
        f"skipped {folder / 'io-error.jsonl'}: cannot read (Input/output error); records after this point are lost",
    ]
    graph = json.loads((tmp_path / "out" / "graph.json").read_text())
    assert {n["id"] for n in graph["nodes"] if n.get("label") == "Paper"} == {
        "paper:[/x]",
        "paper:[bold]",
    }


def test_kg_push_to_an_http_uri_is_one_line_not_a_missing_module(tmp_path):
    graph = tmp_path / "g.json"
    graph.write_text(
        json.dumps({"directed": True, "multigraph": True, "graph": {}, "nodes": [], "links": []})
    )
    done = kg("push", str(graph), "--uri", "http://127.0.0.1:7474")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: bad Neo4j URI 'http://127.0.0.1:7474': kg talks Bolt, so the URI starts with bolt://, bolt+s://, "
        "bolt+ssc://, neo4j://, neo4j+s://, neo4j+ssc://; e.g. bolt://127.0.0.1:7687 (the Bolt port, not the "
        "browser's http port 7474)"
    ]


def test_csv_columns_are_found_whatever_their_case(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(
        f"ID,Title,ABSTRACT,Year\n7,FooNet,{A.replace(',', '')},2021\n", encoding="utf-8"
    )
    papers, stats, errors, _ = read([path])
    assert errors == [] and stats.papers == 1
    assert (papers[0].id, papers[0].title, papers[0].year) == ("7", "FooNet", 2021)


def test_a_json_line_without_the_abstract_field_names_its_fields_and_the_option(tmp_path):
    path = tmp_path / "c.jsonl"
    jsonl(path, {"summary": A, "paper_id": "x1"})
    _, stats, errors, _ = read([path])
    assert stats.papers == 0 and stats.skipped == 1
    assert errors == [
        f"{path}:1: no abstract (field 'abstract' missing; the record has: summary, paper_id); "
        "map yours with --field abstract=FIELD"
    ]
    papers, _, errors, _ = read([path], fields={"abstract": "summary", "id": "paper_id"})
    assert errors == [] and papers[0].id == "x1"


def test_a_build_that_reads_no_paper_writes_nothing_and_says_so(tmp_path):
    path = tmp_path / "c.jsonl"
    jsonl(path, {"summary": A})
    out = tmp_path / "out"
    done = kg("build", str(path), "-o", str(out))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "wrote" not in done.stdout and not out.exists()
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: no abstracts were read from the inputs; nothing written (the files in {out} are unchanged)"
    )
