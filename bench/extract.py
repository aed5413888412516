"""Extraction and build throughput on a real JSON-lines corpus.

    python bench/extract.py ../shared/data/corpora/iclr2026_accepted.jsonl -n 1000

Prints, for the extractor alone (``extract_mentions`` over ``nlp.pipe``) and for the whole build
(read -> extract -> resolve -> graph, no file writing): abstracts/s, tokens/s and peak RSS. Each
phase runs in a fresh process so its peak memory is its own.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import subprocess
import sys
import time


def _phase(args: argparse.Namespace) -> dict:
    from extractors import extract_mentions, load_pipeline
    from kg.build import build_from_papers
    from kg.corpus import read_corpus

    nlp = load_pipeline(args.model, statistical=not args.rules_only)
    papers = list(itertools.islice(read_corpus([args.corpus]), args.n))
    tokens = sum(len(nlp.make_doc(p.abstract)) for p in papers)
    nlp(papers[0].abstract)  # warm-up: lazy tables and caches load here, not in the timing
    start = time.perf_counter()
    if args.phase == "extract":
        mentions = sum(len(ms) for _, ms in extract_mentions(nlp, papers, batch_size=args.batch_size))
    else:
        mentions = build_from_papers(iter(papers), nlp, batch_size=args.batch_size).summary.mentions
    seconds = time.perf_counter() - start
    return {
        "phase": args.phase,
        "papers": len(papers),
        "tokens": tokens,
        "mentions": mentions,
        "seconds": round(seconds, 3),
        "abstracts_per_s": round(len(papers) / seconds, 1),
        "tokens_per_s": round(tokens / seconds),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", help="a JSON-lines corpus with an 'abstract' field")
    parser.add_argument("-n", type=int, default=1000, help="number of papers to take (default 1000)")
    parser.add_argument("--model", default=None, help="spaCy pipeline to use instead of the shipped one")
    parser.add_argument("--rules-only", action="store_true", help="skip the trained model")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--phase", choices=["extract", "build"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(_phase(args)))
        return
    rows = []
    for phase in ("extract", "build"):
        cmd = [sys.executable, __file__, args.corpus, "-n", str(args.n), "--phase", phase,
               "--batch-size", str(args.batch_size)]
        if args.model:
            cmd += ["--model", args.model]
        if args.rules_only:
            cmd.append("--rules-only")
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{'phase':<8} {'papers':>7} {'tokens':>9} {'seconds':>8} {'abstracts/s':>12} {'tokens/s':>9} {'peak MB':>8}")
    for r in rows:
        print(f"{r['phase']:<8} {r['papers']:>7} {r['tokens']:>9} {r['seconds']:>8.2f} {r['abstracts_per_s']:>12.1f} "
              f"{r['tokens_per_s']:>9} {r['peak_rss_mb']:>8.1f}")
    ratio = rows[1]["abstracts_per_s"] / rows[0]["abstracts_per_s"]
    print(f"build rate / extractor rate: {ratio:.0%}")


if __name__ == "__main__":
    main()
