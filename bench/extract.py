"""Extraction and build throughput on a real JSON-lines corpus, on one core.

    python bench/extract.py $KG_SHARED_DATA/corpora/iclr2026_accepted.jsonl -n 1000 [--profile]

Prints, for the extractor alone (``extract`` over ``nlp.pipe``, records included) and for the whole
build (read -> extract -> resolve -> graph, no file writing): abstracts/s, tokens/s per wall-clock
second and per second of this process's CPU time, and peak RSS. Each phase runs in a fresh process
(so its peak memory is its own) with one thread for BLAS/OpenMP and ``n_process=1``: "one core" is
what is measured. On a shared machine the CPU-time rate is the steadier figure; ``--repeat`` keeps
the best of several passes.

``--profile`` adds a third run of the extractor in which every pipeline component (and the
tokenizer) is timed on its own, batch by batch, so the table says where the time goes;
``--cprofile FILE`` writes a cProfile of the extractor phase to FILE (read it with ``pstats``).
"""

from __future__ import annotations

import os

for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402


class _Clock:
    """Wall and CPU seconds spent inside one component."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def __enter__(self) -> _Clock:
        self._w, self._c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall += time.perf_counter() - self._w
        self.cpu += time.process_time() - self._c


class _TimedTokenizer:
    """Stands in for ``nlp.tokenizer`` and times it."""

    def __init__(self, tokenizer, clock: _Clock) -> None:
        self.tokenizer = tokenizer
        self.clock = clock

    def __call__(self, text):
        with self.clock:
            return self.tokenizer(text)

    def __getattr__(self, name):
        return getattr(self.tokenizer, name)


class _TimedPipe:
    """Stands in for one pipeline component: pulls a batch from upstream first (untimed), then
    times only this component on it, with the component's own ``pipe`` when it has one."""

    def __init__(self, proc, clock: _Clock) -> None:
        self.proc = proc
        self.clock = clock

    def __call__(self, doc):
        with self.clock:
            return self.proc(doc)

    def pipe(self, docs, *, batch_size: int = 64, **kwargs):
        from spacy.util import minibatch

        for batch in minibatch(docs, size=batch_size):
            with self.clock:
                if hasattr(self.proc, "pipe"):
                    out = list(self.proc.pipe(batch, batch_size=batch_size, **kwargs))
                else:
                    out = [self.proc(doc) for doc in batch]
            yield from out

    def __getattr__(self, name):
        return getattr(self.proc, name)


def _instrument(nlp) -> dict[str, _Clock]:
    """Wrap the tokenizer and every component of ``nlp`` in timers; returns name -> clock."""
    clocks = {"tokenizer": _Clock()}
    nlp.tokenizer = _TimedTokenizer(nlp.tokenizer, clocks["tokenizer"])
    for k, (name, proc) in enumerate(nlp._components):
        clocks[name] = _Clock()
        nlp._components[k] = (name, _TimedPipe(proc, clocks[name]))
    return clocks


def _phase(args: argparse.Namespace) -> dict:
    from extractors import extract, load_pipeline
    from kg.build import build_from_papers
    from kg.corpus import read_corpus

    nlp = load_pipeline(args.model, statistical=not args.rules_only)
    papers = list(itertools.islice(read_corpus([args.corpus]), args.n))
    tokens = sum(len(nlp.make_doc(p.abstract)) for p in papers)
    for _ in extract(nlp, papers[:8], n_process=1):  # warm-up: lazy tables and caches load here
        pass
    clocks = _instrument(nlp) if args.phase == "profile" else None
    profiler = None
    if args.cprofile and args.phase == "extract":
        import cProfile

        profiler = cProfile.Profile()
    best = None
    for _ in range(args.repeat if clocks is None else 1):
        if profiler is not None:
            profiler.enable()
        wall, cpu = time.perf_counter(), time.process_time()
        extract_wall = None
        if args.phase in ("extract", "profile"):
            mentions = relations = 0
            for item in extract(nlp, papers, batch_size=args.batch_size, n_process=1):
                mentions += len(item.mentions)
                relations += len(item.relations)
        else:
            summary = build_from_papers(iter(papers), nlp, batch_size=args.batch_size).summary
            mentions, relations = summary.mentions, sum(summary.edges.values())
            extract_wall = summary.extract_seconds
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.cprofile)
            profiler = None
        if best is None or cpu < best[1]:
            best = (wall, cpu, mentions, relations, extract_wall)
    assert best is not None, "--repeat is at least 1"
    wall, cpu, mentions, relations, extract_wall = best
    row = {
        "phase": args.phase,
        "papers": len(papers),
        "tokens": tokens,
        "mentions": mentions,
        "relations_or_edges": relations,
        "seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "abstracts_per_s": round(len(papers) / wall, 1),
        "tokens_per_s": round(tokens / wall),
        "tokens_per_cpu_s": round(tokens / cpu),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "load_average": round(os.getloadavg()[0], 2),
    }
    if extract_wall is not None:
        row["extract_seconds"] = extract_wall
    if clocks is not None:
        row["components"] = {
            name: {"seconds": round(c.wall, 3), "cpu_seconds": round(c.cpu, 3)}
            for name, c in clocks.items()
        }
    return row


def _print_profile(row: dict) -> None:
    comps = row["components"]
    total_cpu = row["cpu_seconds"]
    print(
        f"\nper component ({row['papers']} papers, {row['tokens']} tokens; CPU seconds, share of the "
        f"extractor's {total_cpu:.2f} CPU s, and that component's own tokens/CPU-s):"
    )
    print(f"{'component':<22} {'wall s':>8} {'CPU s':>8} {'share':>6} {'tokens/CPU-s':>13}")
    for name, c in comps.items():
        rate = round(row["tokens"] / c["cpu_seconds"]) if c["cpu_seconds"] > 0 else 0
        print(
            f"{name:<22} {c['seconds']:>8.3f} {c['cpu_seconds']:>8.3f} {c['cpu_seconds'] / total_cpu:>6.1%} {rate:>13}"
        )
    rest = total_cpu - sum(c["cpu_seconds"] for c in comps.values())
    print(f"{'(records, overhead)':<22} {'':>8} {rest:>8.3f} {rest / total_cpu:>6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", help="a JSON-lines corpus with an 'abstract' field")
    parser.add_argument(
        "-n", type=int, default=1000, help="number of papers to take (default 1000)"
    )
    parser.add_argument(
        "--model", default=None, help="spaCy pipeline to use instead of the shipped one"
    )
    parser.add_argument("--rules-only", action="store_true", help="skip the trained model")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument(
        "--repeat", type=int, default=1, help="timed passes per phase; the best CPU time is kept"
    )
    parser.add_argument(
        "--profile", action="store_true", help="also time each pipeline component on its own"
    )
    parser.add_argument(
        "--cprofile", metavar="FILE", help="write a cProfile of the extractor phase to FILE"
    )
    parser.add_argument("--phase", choices=["extract", "build", "profile"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(_phase(args)))
        return
    rows = []
    phases = ("extract", "build", "profile") if args.profile else ("extract", "build")
    for phase in phases:
        cmd = [
            sys.executable,
            __file__,
            args.corpus,
            "-n",
            str(args.n),
            "--phase",
            phase,
            "--batch-size",
            str(args.batch_size),
            "--repeat",
            str(args.repeat),
        ]
        if args.model:
            cmd += ["--model", args.model]
        if args.rules_only:
            cmd.append("--rules-only")
        if args.cprofile:
            cmd += ["--cprofile", args.cprofile]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(
        f"{'phase':<8} {'papers':>7} {'tokens':>9} {'wall s':>8} {'CPU s':>8} {'abstracts/s':>12} "
        f"{'tokens/s':>9} {'tokens/CPU-s':>13} {'peak MB':>8} {'load':>5}"
    )
    for r in rows[:2]:
        print(
            f"{r['phase']:<8} {r['papers']:>7} {r['tokens']:>9} {r['seconds']:>8.2f} {r['cpu_seconds']:>8.2f} "
            f"{r['abstracts_per_s']:>12.1f} {r['tokens_per_s']:>9} {r['tokens_per_cpu_s']:>13} "
            f"{r['peak_rss_mb']:>8.1f} {r['load_average']:>5.2f}"
        )
    extract_row, build_row = rows[0], rows[1]
    print(
        f"build rate / extractor rate: {extract_row['seconds'] / build_row['seconds']:.0%} wall, "
        f"{extract_row['cpu_seconds'] / build_row['cpu_seconds']:.0%} CPU "
        f"(extraction {build_row['extract_seconds']:.2f} of the build's {build_row['seconds']:.2f} wall s)"
    )
    if args.profile:
        _print_profile(rows[2])


if __name__ == "__main__":
    main()
