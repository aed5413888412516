"""Fuzzing the readers and ``build_from_papers`` (issue 14, deliver 5).

Generated corpora (JSON lines, CSV and text files, any encoding slip, any line ending) hold records
with random Unicode (surrogates, controls, right-to-left, zero-width), random types, huge numbers and
nested values. Nothing may raise: bad records are reported, and whatever is read builds a graph
whose exports are valid (JSON, GraphML that networkx reads back, Neo4j rows). The budget is fixed
and the search derandomized, so CI runs the same inputs every time; the count is printed.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph_exports.files import to_graphml_graph, to_node_link
from graph_exports.neo4j import to_rows
from kg.build import build_from_papers
from kg.corpus import CorpusStats, read_corpus
from kg.errors import BadRecord
from kg.model import Paper
from kg.records import FIELDS, clean_text

READ_EXAMPLES = 600
BUILD_EXAMPLES = 120

WORDS = [
    "We",
    "propose",
    "BERT",
    "ImageNet",
    "Large Language Models (LLMs)",
    "LLMs",
    "accuracy",
    "on",
    "the",
    "task",
    "of",
    "translation",
    "GOT-10k",
    "NoveltyBench",
    "F1",
    "(",
    ")",
    ",",
    ".",
    "paper:",
    "7",
]
SPECIAL = (
    "\x00\x01\x0b\x0c\x1b\x7f\x85\x9f\u200b\u200c\u200d\u200e\u200f\u202e\u2028\u2029\ufeff\ufffe\uffff"
    "\u05e9\u05dc\u05d5\u05dd\u0627\u0644\u0639\u0631\u0628\u064a\u0629\U0001f600\t\r\n"
)
any_char = st.characters(exclude_categories=())  # every code point, lone surrogates too
text = st.one_of(
    st.text(any_char, max_size=60),
    st.text(st.sampled_from(SPECIAL), max_size=20),
    st.lists(
        st.one_of(
            st.sampled_from(WORDS), st.text(st.sampled_from(SPECIAL), min_size=1, max_size=2)
        ),
        max_size=30,
    ).map(" ".join),
)
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**30, max_value=10**60),
    st.floats(allow_nan=True, allow_infinity=True),
    text,
)
value = st.recursive(
    scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=3)),
    max_leaves=8,
)
record = st.dictionaries(
    st.one_of(st.sampled_from(FIELDS), text), value, max_size=8
) | st.fixed_dictionaries(
    {"abstract": text}, optional={name: value for name in FIELDS if name != "abstract"}
)


@st.composite
def jsonl_line(draw) -> bytes:
    kind = draw(
        st.sampled_from(["record", "record", "record", "deep", "digits", "bytes", "scalar"])
    )
    if kind == "deep":
        depth = draw(st.integers(1, 5000))
        return ("[" * depth + "]" * depth).encode()
    if kind == "digits":
        return b'{"abstract": "We use BERT.", "year": ' + b"9" * draw(st.integers(1, 6000)) + b"}"
    if kind == "bytes":
        return draw(st.binary(max_size=80))
    obj = draw(record) if kind == "record" else draw(value)
    if draw(st.booleans()):
        return json.dumps(obj).encode()  # surrogates and controls as \\u escapes
    return json.dumps(obj, ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )  # raw, so invalid UTF-8


def csv_file(rows: list[dict]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "title", "abstract", "year"])
    for row in rows:
        writer.writerow([row.get(name, "") for name in ("id", "title", "abstract", "year")])
    return out.getvalue().encode("utf-8", "surrogatepass")


@st.composite
def corpus(draw) -> dict[str, bytes]:
    """A folder's worth of files: name -> bytes."""
    ending = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    prefix = draw(st.sampled_from([b"", b"\xef\xbb\xbf", b"\n" * 3]))
    files = {"a.jsonl": prefix + ending.join(draw(st.lists(jsonl_line(), max_size=6))) + ending}
    cells = st.fixed_dictionaries(
        {"abstract": text}, optional={"id": text, "title": text, "year": text}
    )
    files["b.csv"] = csv_file(draw(st.lists(cells, max_size=4)))
    paragraphs = draw(st.lists(text, max_size=4))
    files["c.txt"] = (ending * 2).join(p.encode("utf-8", "surrogatepass") for p in paragraphs)
    if draw(st.booleans()):
        files["d.txt"] = "\n\n".join(paragraphs).encode(
            "utf-16", "surrogatepass"
        )  # UTF-16 with a BOM
    return files


def read_folder(files: dict[str, bytes]) -> tuple[list[Paper], CorpusStats, list[BadRecord]]:
    with tempfile.TemporaryDirectory() as folder:
        for name, data in files.items():
            (Path(folder) / name).write_bytes(data)
        stats = CorpusStats()
        errors: list[BadRecord] = []
        papers = list(read_corpus([folder], stats=stats, on_error=errors.append))
    for err in errors:
        assert err.problem and "\n" not in str(err), err  # one line naming the file
        assert err.source.startswith(folder)
    return papers, stats, errors


def assert_clean(papers: list[Paper]) -> None:
    for paper in papers:
        for field in (
            paper.id,
            paper.abstract,
            paper.title or "",
            paper.venue or "",
            *paper.authors,
            *paper.keywords,
        ):
            assert clean_text(field)[1] == 0, (paper.source, field)
        assert paper.abstract and len(paper.id) <= 512


def assert_exports_valid(graph) -> None:
    json.dumps(to_node_link(graph), ensure_ascii=False).encode(
        "utf-8"
    )  # no lone surrogate survives
    buffer = io.BytesIO()
    nx.write_graphml(to_graphml_graph(graph), buffer, named_key_ids=True)
    back = nx.read_graphml(io.BytesIO(buffer.getvalue()), force_multigraph=True)  # well-formed XML
    assert back.number_of_nodes() == graph.nx.number_of_nodes()
    to_rows(graph)


def test_fuzzed_corpora_never_crash_the_readers(request):
    ran = []

    @settings(
        max_examples=READ_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(corpus())
    def check(files):
        ran.append(1)
        papers, stats, errors = read_folder(files)
        assert_clean(papers)
        assert stats.papers == len(papers)

    check()
    _report(request, "readers", len(ran))
    assert len(ran) >= READ_EXAMPLES // 2


def test_fuzzed_records_never_crash_a_build(request, nlp):
    ran = []

    @settings(
        max_examples=BUILD_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        corpus(),
        st.lists(st.builds(Paper, id=text, abstract=text, title=st.none() | text), max_size=3),
    )
    def check(files, raw_papers):
        ran.append(1)
        papers, _, _ = read_folder(files)
        result = build_from_papers(papers, nlp)
        assert result.summary.papers == len(papers)
        assert_exports_valid(result.graph)
        build_from_papers(raw_papers, nlp)  # papers made in code, not cleaned: still no crash

    check()
    _report(request, "build_from_papers", len(ran))
    assert len(ran) >= BUILD_EXAMPLES // 2


def _report(request, what: str, count: int) -> None:
    """Shown at the end of the run (tests/conftest.py prints every "fuzz" property)."""
    request.node.user_properties.append(
        ("fuzz", f"fuzz ({what}): {count} generated inputs, 0 crashes")
    )
