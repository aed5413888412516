"""Scale benchmarks for issue 13: workers, the Dask engine, peak memory, incremental builds.

Every figure is a whole ``kg build`` process (or one stage of it) run from here, so what is
measured is what a user runs. Ratios are measured in one run, the two commands in turn (A B A B),
so that a machine whose speed drifts still gives a fair ratio; run on an otherwise quiet machine
(the script prints the load average before and after).

    # extraction only, into an extraction store (reused by the later stages)
    python bench/scale.py store CORPUS... --out DIR [--limit N] [--workers N]
    # whole builds: 1 worker vs N workers (and --engine dask), abstracts per second and the ratio
    python bench/scale.py workers CORPUS... --limit 2000 [--rounds 2] [--dask] [--html] [--pipeline]
    #   (--pipeline: the bare pipeline right after each round's 1-worker build, A B A B)
    # the bare pipeline's rate in one process (what "85% of the pipeline's rate" compares with)
    python bench/scale.py pipeline CORPUS... --limit 2000
    # peak RSS of the driver for the whole build from a store (resolution, graph, exports)
    python bench/scale.py memory --store DIR [--limit N]
    # incremental: N papers then M more with --update, against a full build of N + M
    python bench/scale.py incremental CORPUS... --base 20000 --add 1000 [--rounds 2] [--base-store DIR]
    # wall seconds and RSS of each stage, for a build from a store (--add: an update with FILE)
    python bench/scale.py stages --store DIR [--limit N] [--add FILE] [--workers N]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()
    except OSError:
        return "?"


def papers(corpora: list[str], limit: int | None) -> Iterator:
    from kg.corpus import read_corpus

    return islice(read_corpus(corpora), limit)


def write_jsonl(corpora: list[str], limit: int | None, path: Path, skip: int = 0) -> int:
    """The first ``limit`` distinct papers of ``corpora`` (after ``skip``) as one JSON lines
    file."""
    n = 0
    with path.open("w", encoding="utf-8") as handle:
        for paper in islice(papers(corpora, None if limit is None else skip + limit), skip, None):
            row = {
                k: v
                for k, v in paper.to_dict().items()
                if v not in (None, [], "") and k not in ("label", "source", "title_derived")
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


def head_store(store: Path, limit: int, folder: Path) -> Path:
    """``folder`` with the extraction store of the first ``limit`` papers of ``store`` (a build
    folder), its header line included."""
    folder.mkdir(exist_ok=True)
    with (
        (store / "extractions.jsonl").open("rb") as src,
        (folder / "extractions.jsonl").open("wb") as dst,
    ):
        dst.writelines(islice(src, limit + 1))
    return folder


def timed(cmd: list[str]) -> dict[str, Any]:
    """Run ``cmd``; wall seconds, CPU seconds of it and its children, and its peak RSS (MB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "stdout": proc.stdout}


def kg(*args: str) -> list[str]:
    return [sys.executable, "-m", "kg.cli", *args]


def cmd_store(args: argparse.Namespace) -> None:
    from extractors import load_pipeline
    from extractors.parallel import extract_parallel, usable_cores
    from kg.atomic import atomic_open
    from kg.store import STORE_FILE, pipeline_fingerprint, write_store

    nlp = load_pipeline()
    workers = args.workers or usable_cores()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"load {loadavg()}", flush=True)
    t0 = time.perf_counter()
    count = 0

    def counted() -> Iterator:
        nonlocal count
        for item in extract_parallel(nlp, papers(args.corpora, args.limit), workers=workers):
            count += 1
            if count % 5000 == 0:
                print(f"{count:,} papers, {count / (time.perf_counter() - t0):.1f}/s", flush=True)
            yield item

    with atomic_open(out / STORE_FILE) as handle:
        write_store(handle, counted(), pipeline_fingerprint(nlp))
    wall = time.perf_counter() - t0
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    print(
        f"store: {count:,} papers, {workers} workers, {wall:.1f} s wall, {cpu:.0f} CPU-s, "
        f"{count / wall:.1f} abstracts/s; driver peak RSS {me.ru_maxrss / 1024:.0f} MB; "
        f"load {loadavg()}"
    )


def cmd_pipeline(args: argparse.Namespace) -> None:
    """The bare extractors pipeline (nlp.pipe and mention records) in this one process."""
    from extractors import extract, load_pipeline

    nlp = load_pipeline()
    batch = list(papers(args.corpora, args.limit))
    for _ in extract(nlp, batch[:64]):  # warm-up
        pass
    t0 = time.process_time()
    w0 = time.perf_counter()
    n = sum(1 for _ in extract(nlp, batch))
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    print(
        f"pipeline: {n:,} abstracts, {wall:.1f} s wall, {cpu:.1f} CPU-s, "
        f"{n / wall:.1f} abstracts/s "
        f"({n / cpu:.1f} per CPU-s); load {loadavg()}"
    )


def cmd_workers(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        n = write_jsonl(args.corpora, args.limit, corpus)
        variants = {
            "1 worker": ["--workers", "1"],
            f"{args.workers} workers": ["--workers", str(args.workers)],
        }
        if args.dask:
            variants[f"dask {args.workers} workers"] = [
                "--engine",
                "dask",
                "--workers",
                str(args.workers),
            ]
        print(f"{n:,} abstracts; load before {loadavg()}", flush=True)
        walls: dict[str, list[float]] = {name: [] for name in variants}
        graphs: dict[str, bytes] = {}
        bare_rates: list[float] = []
        for _ in range(args.rounds):
            for name, extra in variants.items():
                out = Path(tmp) / name.replace(" ", "_")
                page = [] if args.html else ["--no-html"]
                run = timed(kg("build", str(corpus), "-o", str(out), "-q", *page, *extra))
                walls[name].append(run["wall"])
                graphs[name] = (out / "graph.json").read_bytes()
                print(
                    f"  {name}: {run['wall']:.1f} s wall, {run['cpu']:.1f} CPU-s, "
                    f"{n / run['wall']:.1f} abstracts/s",
                    flush=True,
                )
                if args.pipeline and name == "1 worker":  # the bare pipeline right after it
                    bare = timed(
                        [sys.executable, __file__, "pipeline", str(corpus), "--limit", str(n)]
                    )["stdout"].strip()
                    bare_rates.append(float(bare.split(" abstracts/s")[0].rsplit(" ", 1)[1]))
                    print(f"  {bare}", flush=True)
        if bare_rates:
            rounds = ", ".join(
                f"{n / wall / rate:.2f}"
                for wall, rate in zip(walls["1 worker"], bare_rates, strict=True)
            )
            one = n / min(walls["1 worker"])
            print(
                f"1 worker's whole build: {one / max(bare_rates):.2f} of the bare pipeline's rate "
                f"(best of each; by round: {rounds})"
            )
        base = min(walls["1 worker"])
        for name, times in walls.items():
            best = min(times)
            same = graphs[name] == graphs["1 worker"]
            print(
                f"{name}: {n / best:.1f} abstracts/s (best of {len(times)}), "
                f"{base / best:.2f}x 1 worker, "
                f"graph.json {'identical' if same else 'DIFFERENT'}"
            )
        print(f"load after {loadavg()}")


def cmd_memory(args: argparse.Namespace) -> None:
    """Peak RSS of a whole build whose extraction is all cached: the driver's own memory."""
    store = Path(args.store)
    with tempfile.TemporaryDirectory() as tmp:
        source = head_store(store, args.limit, Path(tmp) / "store") if args.limit else store
        empty = Path(tmp) / "none.jsonl"
        empty.write_text("")
        out = Path(tmp) / "out"
        print(f"load before {loadavg()}", flush=True)
        run = timed(
            kg(
                "build",
                str(empty),
                "--update",
                str(source),
                "-o",
                str(out),
                "--json",
                "--no-html",
                "--workers",
                "1",
            )
        )
        summary = json.loads(run["stdout"].strip().splitlines()[-1])
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        sizes = {p.name: p.stat().st_size / 1e6 for p in out.iterdir()}
        print(
            f"memory: {summary['papers']:,} papers, {sum(summary['entities'].values()):,} "
            f"entities, {sum(summary['edges'].values()):,} edges; {run['wall']:.1f} s; "
            f"peak RSS {rss:.0f} MB; files "
            f"{', '.join(f'{k} {v:.0f} MB' for k, v in sorted(sizes.items()))}; "
            f"load after {loadavg()}"
        )


def cmd_incremental(args: argparse.Namespace) -> None:
    """A full build of base + add against ``--update`` of a base build with add, ``--rounds``
    times (full, update, full, update...): best of each, and the ratio of each round's pair.

    ``--base-store DIR`` takes the base build's store from DIR (the first ``--base`` papers of a
    ``store`` run over the same corpora) instead of building it: it saves the base build's time,
    but its papers' ``source`` is the corpus file's line, not base.jsonl's, so graph.json is not
    compared (the tests compare it)."""
    with tempfile.TemporaryDirectory() as tmp:
        base, add = Path(tmp) / "base.jsonl", Path(tmp) / "add.jsonl"
        write_jsonl(args.corpora, args.base, base)
        write_jsonl(args.corpora, args.add, add, skip=args.base)
        print(f"{args.base:,} + {args.add:,} abstracts; load before {loadavg()}", flush=True)
        common = ["-q", "--no-html", "--workers", str(args.workers)]
        built = Path(tmp) / "base"
        if args.base_store:
            head_store(Path(args.base_store), args.base, built)
        else:
            timed(kg("build", str(base), "-o", str(built), *common))
        fulls: list[float] = []
        updates: list[float] = []
        same = "not compared (base from a store)"
        full_out, first = Path(tmp) / "full", Path(tmp) / "inc"
        for round_no in range(1, args.rounds + 1):
            full = timed(kg("build", str(base), str(add), "-o", str(full_out), *common))
            shutil.rmtree(first, ignore_errors=True)
            shutil.copytree(built, first)  # each update starts from the base build
            inc = timed(kg("build", str(add), "--update", str(first), *common))
            fulls.append(full["wall"])
            updates.append(inc["wall"])
            print(
                f"  round {round_no}: full rebuild {full['wall']:.1f} s, update "
                f"{inc['wall']:.1f} s ({inc['wall'] / full['wall']:.1%}); load {loadavg()}",
                flush=True,
            )
            if not args.base_store:
                identical = (first / "graph.json").read_bytes() == (
                    full_out / "graph.json"
                ).read_bytes()
                same = "identical" if identical else "DIFFERENT"
        rounds = ", ".join(f"{u / f:.1%}" for f, u in zip(fulls, updates, strict=True))
        print(
            f"full rebuild {min(fulls):.1f} s, update {min(updates):.1f} s (best of "
            f"{len(fulls)}): {min(updates) / min(fulls):.1%} of a rebuild (by round: {rounds}); "
            f"graph.json {same}; load after {loadavg()}"
        )


def cmd_stages(args: argparse.Namespace) -> None:
    """Each stage of a build from a store, timed in this process: where the serial tail goes."""
    import graph_exports.outputs as outputs
    import kg.build as build
    import kg.graph as graph
    from extractors import load_pipeline

    page = os.sysconf("SC_PAGE_SIZE")

    def rss() -> str:
        with open("/proc/self/statm") as statm:  # Linux; the peak alone hides what was freed
            now = int(statm.read().split()[1]) * page / 2**20
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return f"RSS {now:5.0f} MB, peak {peak:5.0f} MB"

    last = [time.perf_counter()]
    usage = [resource.getrusage(resource.RUSAGE_SELF)]

    def mark(what: str) -> None:
        # this process's own system time and page faults: a forked child's copy-on-write faults
        # are paid here whenever this process writes a page they share
        now, used = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        sys_s, faults = used.ru_stime - usage[0].ru_stime, used.ru_minflt - usage[0].ru_minflt
        print(
            f"  {what:<24} {now - last[0]:7.2f} s  {rss()}, sys {sys_s:5.2f} s, "
            f"{faults / 1000:5.0f}k faults",
            flush=True,
        )
        last[0], usage[0] = now, used

    def timed_stage(module: Any, name: str) -> None:
        original = getattr(module, name)

        def stage(*a: Any, **k: Any) -> Any:
            mark(f"(before {name})")
            out = original(*a, **k)
            mark(name)
            return out

        setattr(module, name, stage)

    for name in (
        "resolve",
        "resolve_relations",
        "build_graph",
        "add_result_nodes",
        "add_related_edges",
        "annotate_years",
    ):
        timed_stage(build, name)
    timed_stage(outputs, "write_json")
    for name in ("_normalised_rows", "_strongest", "_explained"):  # inside add_related_edges
        timed_stage(graph, name)
    nlp = load_pipeline()
    print(f"load before {loadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(args.store)
        if args.limit:
            source = head_store(source, args.limit, Path(tmp) / "store")
        new = Path(args.add) if args.add else Path(tmp) / "none.jsonl"
        if not args.add:
            new.write_text("")
        start = last[0] = time.perf_counter()
        result = build.build([new], nlp, update=source, workers=args.workers)
        gc.freeze()  # as kg build does
        mark("(rest of the build)")
        outputs.write_build_outputs(
            result.graph,
            result.merges,
            result.summary.to_dict(),
            Path(tmp) / "out",
            html=False,
            store=result.store,
            processes=args.workers,
        )
        mark("(rest of the files)")
        print(
            f"stages: {result.summary.papers:,} papers in {time.perf_counter() - start:.1f} s "
            f"(lines '(before X)' are the time since the previous stage); load {loadavg()}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("store")
    p.add_argument("corpora", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--limit", type=int)
    p.add_argument("--workers", type=int)
    p = sub.add_parser("pipeline")
    p.add_argument("corpora", nargs="+")
    p.add_argument("--limit", type=int, default=2000)
    p = sub.add_parser("workers")
    p.add_argument("corpora", nargs="+")
    p.add_argument("--limit", type=int, default=2000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--dask", action="store_true")
    p.add_argument("--html", action="store_true", help="write the page too (as kg build does)")
    p.add_argument(
        "--pipeline", action="store_true", help="also time the bare pipeline (the 85%% target)"
    )
    p = sub.add_parser("memory")
    p.add_argument("--store", required=True)
    p.add_argument("--limit", type=int)
    p = sub.add_parser("incremental")
    p.add_argument("corpora", nargs="+")
    p.add_argument("--base", type=int, default=20000)
    p.add_argument("--add", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--base-store", help="take the base build's store from this folder")
    p = sub.add_parser("stages")
    p.add_argument("--store", required=True)
    p.add_argument("--limit", type=int)
    p.add_argument("--add", help="a corpus file to add to the store's papers (an update)")
    p.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    {
        "stages": cmd_stages,
        "store": cmd_store,
        "pipeline": cmd_pipeline,
        "workers": cmd_workers,
        "memory": cmd_memory,
        "incremental": cmd_incremental,
    }[args.command](args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
