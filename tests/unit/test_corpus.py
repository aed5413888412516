"""Corpus readers: formats, ids, duplicates, derived labels, and bad input that spares good records."""

from __future__ import annotations

import io
import json

import pytest

from kg.corpus import (
    CorpusStats,
    derive_label,
    normalise_abstract,
    paper_id_for,
    parse_field_map,
    read_corpus,
)
from kg.errors import BadRecord, CorpusError

ABSTRACT_A = "We propose FooNet, a network for image classification. It beats ResNet on ImageNet."
ABSTRACT_B = "We study machine translation with large language models (LLMs) on WMT14."


def read(paths, **kw):
    stats = CorpusStats()
    errors: list[str] = []
    papers = list(read_corpus(paths, stats=stats, on_error=lambda e: errors.append(str(e)), **kw))
    return papers, stats, errors


def test_txt_header_line_then_one_abstract_per_paragraph(tmp_path):
    f = tmp_path / "papers.txt"
    f.write_text(
        f"ICLR 2026 Papers\n\n{ABSTRACT_A}\n\n{ABSTRACT_B[:40]}\n{ABSTRACT_B[40:]}\n",
        encoding="utf-8",
    )
    papers, stats, errors = read([f])
    assert [p.abstract for p in papers] == [ABSTRACT_A, ABSTRACT_B]
    assert papers[0].source == f"{f}:3" and papers[1].source == f"{f}:5"
    assert stats.papers == 2 and not errors


def test_jsonl_with_metadata_and_field_mapping(tmp_path):
    f = tmp_path / "p.jsonl"
    rows = [
        {
            "id": "p1",
            "title": "FooNet",
            "summary": ABSTRACT_A,
            "year": "2024",
            "venue": "ICLR",
            "authors": ["Ada", "Alan"],
            "keywords": "vision; classification",
        }
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    papers, _, errors = read([f], fields=parse_field_map(["abstract=summary"]))
    assert not errors
    p = papers[0]
    assert (p.id, p.title, p.label, p.title_derived, p.year, p.venue) == (
        "p1",
        "FooNet",
        "FooNet",
        False,
        2024,
        "ICLR",
    )
    assert p.authors == ("Ada", "Alan") and p.keywords == ("vision", "classification")


def test_csv_reads_quoted_multiline_abstracts(tmp_path):
    f = tmp_path / "p.csv"
    f.write_text(
        'id,title,abstract\nx1,T1,"'
        + ABSTRACT_A.replace(". ", ".\n")
        + '"\nx2,T2,'
        + ABSTRACT_B.replace(",", "")
        + "\n",
        encoding="utf-8",
    )
    papers, stats, errors = read([f])
    assert [p.id for p in papers] == ["x1", "x2"] and not errors
    assert papers[0].abstract == ABSTRACT_A


def test_directory_glob_and_stdin(tmp_path):
    (tmp_path / "a.txt").write_text(ABSTRACT_A + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(json.dumps({"abstract": ABSTRACT_B}) + "\n", encoding="utf-8")
    assert len(read([tmp_path])[0]) == 2
    assert len(read([str(tmp_path / "*.jsonl")])[0]) == 1
    stdin = io.BytesIO((json.dumps({"abstract": ABSTRACT_A}) + "\n").encode())
    papers = list(read_corpus(["-"], stdin=stdin))
    assert papers[0].source == "<stdin>:1"


def test_missing_input_is_a_clear_error(tmp_path):
    with pytest.raises(CorpusError, match="no such file"):
        read([tmp_path / "nope.jsonl"])


def test_stable_id_and_duplicates_merged(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(f"{ABSTRACT_A}\n\n{ABSTRACT_A.upper()}\n\n  {ABSTRACT_A}  \n", encoding="utf-8")
    papers, stats, _ = read([f])
    assert len(papers) == 1 and stats.duplicates == 2
    assert papers[0].id == paper_id_for(ABSTRACT_A) == paper_id_for("  " + ABSTRACT_A.lower())


def test_derived_label_prefers_the_coined_name():
    assert (
        derive_label("We introduce String Seed of Thought (SSoT), a novel prompting method.")
        == "SSoT"
    )
    assert (
        derive_label("To address this gap, we propose RECALL, a multi-modal framework.") == "RECALL"
    )
    # no coined name: what the paper proposes or studies, else the topic of its first sentence,
    # title-cased; never the opening of a sentence
    assert (
        derive_label("we propose a dual RS framework which enables input-dependent noise.")
        == "Dual RS Framework"
    )
    assert (
        derive_label(
            "We address the problem of fine-tuning diffusion models for reward-guided generation, "
            "where ..."
        )
        == "Fine-Tuning Diffusion Models for Reward-Guided Generation"
    )
    assert (
        derive_label(
            "We present a novel parameter-free universal gradient method for solving convex "
            "optimization problems. It ..."
        )
        == "Parameter-Free Universal Gradient Method for Solving Convex Optimization Problems"
    )
    assert (
        derive_label("Proximal methods are widely used in optimisation of many kinds today.")
        == "Proximal Methods"
    )
    assert (
        derive_label("Axis-aligned decision trees are fast and stable but struggle.")
        == "Axis-Aligned Decision Trees"
    )
    # a generic head names no paper; with nothing better, the first words remain
    assert (
        derive_label(
            "A major barrier is data. Several companies deploy it widely in many ways today."
        )
        == "A major barrier is data. Several companies deploy…"
    )


def test_normalise_strips_markdown_and_latex_emphasis():
    assert (
        normalise_abstract("We introduce _String Seed of Thought (SSoT)_, a method.")
        == "We introduce String Seed of Thought (SSoT), a method."
    )
    assert (
        normalise_abstract(r"we propose $\textbf{FARTrack}$ and \emph{x_i} for  $x_i$")
        == "we propose FARTrack and x_i for $x_i$"
    )
    assert (
        normalise_abstract(r"continual Reinforcement Learning~(RL) gains up to 39\% over ~3x")
        == "continual Reinforcement Learning (RL) gains up to 39% over ~3x"
    )


def test_bad_records_are_reported_and_good_ones_kept(tmp_path):
    f = tmp_path / "mixed.jsonl"
    huge = "word " * 220_000
    f.write_bytes(
        (json.dumps({"abstract": ABSTRACT_A}) + "\n").encode()
        + b'{"abstract": "broken\n'
        + b'{"abstract": "bad \xff\xfe bytes"}\n'
        + (json.dumps({"abstract": huge}) + "\n").encode()
        + (json.dumps({"title": "no abstract"}) + "\n").encode()
        + (json.dumps({"abstract": ABSTRACT_B}) + "\n").encode()
    )
    papers, stats, errors = read([f])
    assert [p.abstract for p in papers] == [ABSTRACT_A, ABSTRACT_B]
    assert stats.skipped == 4 and len(errors) == 4
    assert errors[0].startswith(f"{f}:2: malformed JSON")
    assert errors[1].startswith(f"{f}:3: invalid UTF-8")
    assert errors[2].startswith(f"{f}:4: abstract is 1,100,000 characters")
    assert errors[3].startswith(f"{f}:5: no abstract")


def test_empty_and_binary_files_are_skipped_with_one_line_each(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    binary = tmp_path / "model.csv"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    good = tmp_path / "good.txt"
    good.write_text(ABSTRACT_A, encoding="utf-8")
    papers, stats, errors = read([empty, binary, good])
    assert len(papers) == 1 and stats.skipped == 2
    assert errors == [
        f"{empty}: empty file, no records",
        f"{binary}: binary file (NUL bytes or invalid UTF-8), not text; expected UTF-8 .txt, .jsonl or .csv",
    ]


def test_csv_without_abstract_column_names_the_columns(tmp_path):
    f = tmp_path / "p.csv"
    f.write_text("id,title,summary\n1,T,text\n", encoding="utf-8")
    _, stats, errors = read([f])
    assert errors == [
        f"{f}:1: CSV header has no 'abstract' column (columns: id, title, summary); "
        "map one with --field abstract=COLUMN"
    ]


def test_strict_makes_the_first_bad_record_fatal(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(json.dumps({"abstract": ABSTRACT_A}) + "\nnot json\n", encoding="utf-8")
    with pytest.raises(BadRecord, match=r":2: malformed JSON"):
        read([f], strict=True)


def test_field_mapping_errors_are_clear():
    with pytest.raises(CorpusError, match="expected FIELD=COLUMN"):
        parse_field_map(["abstract"])
    with pytest.raises(CorpusError, match="unknown field 'summary'"):
        parse_field_map(["summary=abstract"])
