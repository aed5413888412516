"""The kg command line as a user runs it: real processes, real files, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "iclr2026"


def kg(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=600,
    )


def test_build_writes_every_output_and_prints_a_summary(tmp_path):
    out = tmp_path / "out"
    done = kg("build", str(EXAMPLES / "000_934333737cce3ad2.txt"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    for name in ("graph.json", "graph.graphml", "graph.html", "summary.json"):
        assert (out / name).stat().st_size > 0
    assert "papers" in done.stdout and "abstracts/s" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["papers"] == 19 and summary["entities"]["Method"] > 0
    stats = kg("stats", str(out / "graph.json"), "--json")
    assert json.loads(stats.stdout)["papers"] == 19


def test_bad_records_are_one_line_each_and_counted(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_bytes(
        b'{"abstract": "We evaluate FooNet on ImageNet with top-1 accuracy."}\n{oops\n'
        b'{"abstract": "We study machine translation on WMT14."}\n'
    )
    done = kg("build", str(corpus), "-o", str(tmp_path / "o"), "--json", "--no-html")
    assert done.returncode == 0
    assert f"{corpus}:2: malformed JSON" in done.stderr
    summary = json.loads(done.stdout)
    assert summary["papers"] == 2 and summary["skipped"] == 1 and "Traceback" not in done.stderr


def test_strict_stops_at_the_first_bad_record_with_one_line(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"abstract": "We evaluate FooNet on ImageNet."}\n[1]\n', encoding="utf-8")
    done = kg("build", str(corpus), "-o", str(tmp_path / "o"), "--strict")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: {corpus}:2: expected a JSON object, got list"
    ]


def test_stdin_and_field_mapping(tmp_path):
    line = json.dumps(
        {"summary": "We propose FooNet, a network for image classification on CIFAR-10."}
    )
    done = kg(
        "build",
        "-",
        "--format",
        "jsonl",
        "--field",
        "abstract=summary",
        "-o",
        str(tmp_path / "o"),
        "--json",
        "--no-html",
        stdin=line + "\n",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["papers"] == 1


def test_missing_input_and_missing_graph_fail_with_one_line(tmp_path):
    done = kg("build", str(tmp_path / "nope.txt"), "-o", str(tmp_path / "o"))
    assert (
        done.returncode == 1
        and done.stderr.strip() == f"error: {tmp_path / 'nope.txt'}: no such file or directory"
    )
    done = kg("stats", str(tmp_path / "graph.json"))
    assert (
        done.returncode == 1
        and "no such graph file" in done.stderr
        and "Traceback" not in done.stderr
    )
    done = kg("train", "--crossval", "3", "--folds", "first", "--output", str(tmp_path / "model"))
    assert (
        done.returncode == 1 and "--folds 'first'" in done.stderr and "Traceback" not in done.stderr
    )
    assert not (tmp_path / "model").exists()


def test_every_command_documents_every_option():
    for command in ("build", "stats", "export", "train"):
        done = kg(command, "--help")
        assert done.returncode == 0
        options = [
            line.split()[0]
            for line in done.stdout.splitlines()
            if line.strip().startswith(("│ --", "│ -"))
        ]
        assert options, done.stdout


def test_explain_shows_which_forms_became_an_entity_and_why(tmp_path):
    out = tmp_path / "out"
    assert (
        kg(
            "build", str(EXAMPLES / "000_934333737cce3ad2.txt"), "-o", str(out), "-q", "--no-html"
        ).returncode
        == 0
    )
    merges = [
        json.loads(line) for line in (out / "merges.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    llm = next(row for row in merges if row["entity"] == "method:large language model")
    assert {"LLMs", "LLM"} <= {f["form"] for f in llm["forms"]}
    done = kg("explain", "SSoT", "--graph", str(out / "graph.json"))
    assert done.returncode == 0, done.stderr
    assert (
        "String Seed of Thought" in done.stdout
        and "defines 'SSoT' as 'String Seed of Thought'" in " ".join(done.stdout.split())
    )
    done = kg("explain", "NoSuchThing", "--graph", str(out / "graph.json"))
    assert done.returncode == 1 and "no node named 'NoSuchThing'" in done.stderr


def test_identical_builds_under_different_hash_seeds_write_identical_files(tmp_path):
    """The example corpus gives a page of over 350 nodes, where the layout used to follow set order."""
    import os

    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"seed-{seed}"
        done = subprocess.run(
            [sys.executable, "-m", "kg.cli", "build", str(EXAMPLES), "-o", str(out), "-q"],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert done.returncode == 0, done.stderr
        outs.append(out)
    assert len(json.loads((outs[0] / "graph.json").read_text())["nodes"]) > 350
    for name in ("graph.html", "graph.json", "graph.graphml", "merges.jsonl"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name


HELP_COMMANDS = (
    ("build",),
    ("stats",),
    ("explain",),
    ("export",),
    ("push",),
    ("html",),
    ("eval",),
    ("train",),
    ("train", "relations"),
    ("train", "roles"),
)


def test_help_shows_no_python_type_markers():
    for command in HELP_COMMANDS:
        done = kg(*command, "--help")
        assert done.returncode == 0, done.stderr
        for marker in ("<bool>", "list[", "{inputs}", "{graph}"):
            assert marker not in done.stdout, (command, marker)


def test_counts_of_one_are_singular(tmp_path):
    out = tmp_path / "out"
    assert (
        kg(
            "build", str(EXAMPLES / "000_934333737cce3ad2.txt"), "-o", str(out), "-q", "--no-html"
        ).returncode
        == 0
    )
    graph = json.loads((out / "graph.json").read_text(encoding="utf-8"))
    lone = next(n for n in graph["nodes"] if n.get("label") == "Method" and n.get("support") == 1)
    done = kg("explain", lone["id"], "--graph", str(out / "graph.json"))
    assert done.returncode == 0, done.stderr
    assert "), 1 paper" in done.stdout and "1 papers" not in done.stdout


def test_build_and_stats_agree_on_mentions_and_stats_labels_its_sections(tmp_path):
    out = tmp_path / "out"
    built = kg("build", str(EXAMPLES), "-o", str(out), "--no-html")
    assert built.returncode == 0, built.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    generic = summary["resolution"]["dropped_generic"]
    assert generic > 0, "the example corpus has generic phrases that get no entity"
    in_graph = summary["mentions"] - generic
    assert (
        f"mentions in the graph  {in_graph:,} ({generic} generic phrases got no entity"
        in built.stdout
    ), built.stdout
    stats = kg("stats", str(out / "graph.json"))
    assert stats.returncode == 0, stats.stderr
    assert json.loads(kg("stats", str(out / "graph.json"), "--json").stdout)["mentions"] == in_graph
    lines = [line.strip() for line in stats.stdout.splitlines()]
    assert any(line.startswith(f"mentions in the graph  {in_graph:,}") for line in lines), (
        stats.stdout
    )
    labels = lines.index(next(line for line in lines if line.startswith("entities by label")))
    edges = lines.index(next(line for line in lines if line.startswith("edges by type")))
    assert labels < edges
    assert {line.split()[0] for line in lines[labels + 1 : edges]} == {
        "Method",
        "Dataset",
        "Task",
        "Metric",
    }
    assert "USES" in {line.split()[0] for line in lines[edges + 1 :] if line}


def test_stats_on_a_corpus_file_says_it_needs_a_built_graph(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        '{"abstract": "We use BERT."}\n{"abstract": "We use GPT-2."}\n', encoding="utf-8"
    )
    done = kg("stats", str(corpus))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: {corpus}:2: not a kg graph")
    assert "kg build INPUT -o OUTDIR" in done.stderr


def test_export_without_an_output_path_writes_nothing(tmp_path):
    out = tmp_path / "out"
    assert (
        kg(
            "build", str(EXAMPLES / "000_934333737cce3ad2.txt"), "-o", str(out), "-q", "--no-html"
        ).returncode
        == 0
    )
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "kg.cli", "export", str(out / "graph.json")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=work,
    )
    assert done.returncode != 0 and "--out" in done.stderr
    assert list(work.iterdir()) == []
