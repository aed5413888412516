"""Outputs are replaced whole or not at all: a full disk, a failed export or an empty build leaves
the previous files byte for byte (issue 14, deliver 2).

A full disk is played by ``RLIMIT_FSIZE`` (the largest file a process may write) in a child process,
set just below the size of each output in turn, so the build fails at every one of its files.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kg.atomic import AtomicFiles, write_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "iclr2026"
ROOT = Path(__file__).resolve().parents[2]

OLD = "We propose FooNet, a network for image classification, and evaluate it on CIFAR-10 with top-1 accuracy."
NEW = [
    "We introduce BarGAN, a generative adversarial network for image synthesis evaluated with FID on CelebA.",
    "Large Language Models (LLMs) are evaluated on GSM8K for mathematical reasoning with exact-match accuracy.",
    "We propose RECALL, a retrieval method for open-domain question answering on Natural Questions.",
]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def corpus(path: Path, abstracts: list[str]) -> Path:
    path.write_text(
        "".join(json.dumps({"abstract": a}) + "\n" for a in abstracts), encoding="utf-8"
    )
    return path


def test_a_failure_inside_atomic_files_publishes_none_of_them(tmp_path):
    write_text(tmp_path / "a.txt", "old a")
    write_text(tmp_path / "b.txt", "old b")
    with pytest.raises(RuntimeError):
        with AtomicFiles() as files:
            files.write_text(tmp_path / "a.txt", "new a")
            files.write_text(tmp_path / "b.txt", "new b")
            raise RuntimeError("the third export failed")
    assert snapshot(tmp_path) == {"a.txt": b"old a", "b.txt": b"old b"}


def test_a_new_file_gets_the_usual_permissions_and_an_old_one_keeps_its_own(tmp_path):
    write_text(tmp_path / "new.txt", "x")
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o666 & ~_umask()
    (tmp_path / "new.txt").chmod(0o640)
    write_text(tmp_path / "new.txt", "y")
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o640


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# The child builds both corpora once, then writes the new build over the old one under a file-size
# limit just below each new output's size (and at 0), reporting what failed and what the folder holds.
CHILD = r"""
import json, os, resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # an over-size write fails with EFBIG instead of killing us
from extractors import load_pipeline
from graph_exports.files import write_graphml
from graph_exports.html import write_html
from graph_exports.neo4j_csv import write_neo4j_csv
from graph_exports.outputs import OUTPUT_FILES, write_build_outputs
from kg.build import build
from kg.errors import ExportError

old_corpus, new_corpus, out, scratch = map(Path, sys.argv[1:5])
nlp = load_pipeline(statistical=False)
old, new = build([old_corpus], nlp), build([new_corpus], nlp)

def snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes().hex() for p in sorted(folder.rglob("*")) if p.is_file()}

def limited(limit, write):
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    try:
        write()
        return None
    except ExportError as exc:
        return str(exc)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

write_build_outputs(old.graph, old.merges, old.summary.to_dict(), out)
write_graphml(old.graph, out / "export" / "graph.graphml")
write_html(old.graph, out / "export" / "view.html", view="papers")
write_neo4j_csv(old.graph, out / "export" / "neo4j-import")
write_build_outputs(new.graph, new.merges, new.summary.to_dict(), scratch)
sizes = {name: (scratch / name).stat().st_size for name in OUTPUT_FILES}
before = snapshot(out)
runs = []
for limit in sorted({0, 1} | {s - 1 for s in sizes.values()} | {s // 2 for s in sizes.values()}):
    error = limited(limit, lambda: write_build_outputs(new.graph, new.merges, new.summary.to_dict(), out))
    runs.append({"limit": limit, "error": error, "intact": snapshot(out) == before})
exports = []
for name, write in [("graphml", lambda: write_graphml(new.graph, out / "export" / "graph.graphml")),
                    ("html", lambda: write_html(new.graph, out / "export" / "view.html", view="papers")),
                    ("neo4j-csv", lambda: write_neo4j_csv(new.graph, out / "export" / "neo4j-import"))]:
    for limit in (0, 100, 2000):
        error = limited(limit, write)
        exports.append({"export": name, "limit": limit, "error": error, "intact": snapshot(out) == before})
last = limited(resource.RLIM_INFINITY, lambda: write_build_outputs(new.graph, new.merges, new.summary.to_dict(), out))
print(json.dumps({"sizes": sizes, "runs": runs, "exports": exports, "last": last,
                  "complete": all(snapshot(out)[n] == snapshot(scratch)[n] for n in OUTPUT_FILES)}))
"""


@pytest.mark.slow
def test_disk_full_at_every_output_leaves_the_previous_build_byte_for_byte(tmp_path):
    out, scratch = tmp_path / "out", tmp_path / "scratch"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(corpus(tmp_path / "old.jsonl", [OLD])),
            str(EXAMPLES / "000_934333737cce3ad2.txt"),
            str(out),
            str(scratch),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    order = list(report["sizes"])
    assert order == ["summary.json", "merges.jsonl", "graph.json", "graph.graphml", "graph.html"]
    failed_at = set()
    for run in report["runs"]:
        # the first file (in write order) that is larger than the limit is where the disk fills up
        expected = next(name for name in order if report["sizes"][name] > run["limit"])
        assert run["error"] is not None and run["error"].startswith(
            f"{out / expected}: cannot write (File too large)"
        ), run
        assert run["intact"], run
        failed_at.add(expected)
    assert failed_at == set(order)  # the disk filled up at every output
    for run in report["exports"]:
        assert run["error"] is not None and run["intact"], run
    assert (
        report["last"] is None and report["complete"]
    )  # with room again, the new build is written whole
    assert [p.name for p in out.rglob(".kg-tmp-*")] == []


def _limit_file_size(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def kg(*args: str, limit: int | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=_limit_file_size(limit) if limit is not None else None,
        check=False,
    )


@pytest.mark.slow
def test_kg_build_on_a_full_disk_and_on_an_empty_corpus_changes_nothing(tmp_path):
    out = tmp_path / "out"
    first = kg(
        "build", str(corpus(tmp_path / "old.jsonl", [OLD])), "-o", str(out), "-q", "--rules-only"
    )
    assert first.returncode == 0, first.stderr
    before = snapshot(out)
    assert sorted(before) == [
        "extractions.jsonl",
        "graph.graphml",
        "graph.html",
        "graph.json",
        "merges.jsonl",
        "summary.json",
    ]

    full = kg(
        "build",
        str(corpus(tmp_path / "new.jsonl", NEW)),
        "-o",
        str(out),
        "-q",
        "--rules-only",
        limit=50_000,
    )
    assert full.returncode == 1
    [line] = full.stderr.strip().splitlines()
    assert re.fullmatch(
        rf"error: {re.escape(str(out))}/(graph\.(json|graphml|html)|extractions\.jsonl): cannot write \(File too large\); "
        "the previous file is unchanged",
        line,
    ), line
    assert snapshot(out) == before

    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf-8")
    empty = kg("build", str(tmp_path / "empty.txt"), "-o", str(out), "-q", "--rules-only")
    assert empty.returncode == 1
    assert empty.stderr.strip().splitlines()[-1] == (
        f"error: no abstracts were read from the inputs; nothing written (the files in {out} are unchanged)"
    )
    assert snapshot(out) == before

    export = kg(
        "export",
        str(out / "graph.json"),
        "--format",
        "graphml",
        "-o",
        str(out / "graph.graphml"),
        limit=1000,
    )
    assert export.returncode == 1 and "cannot write (File too large)" in export.stderr
    assert snapshot(out) == before
