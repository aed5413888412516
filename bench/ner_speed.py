"""Tokens per second of the trained extractor on one CPU core, on real abstracts.

    python bench/ner_speed.py [--model DIR] [--corpus FILE.jsonl] [--limit 2000] [--rules]

Prints one JSON object: tokens, seconds and tokens/s for the whole pipeline (tokenizer included),
and for the statistical components alone on pre-tokenised docs. Rates are per second of this
process's CPU time (one thread), so a busy shared machine changes them little; the wall-clock rate
is printed beside them.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    from extractors.train import MODEL_DIR, default_data_dir

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(MODEL_DIR))
    parser.add_argument(
        "--corpus", default=str(default_data_dir() / "corpora" / "iclr2026_accepted.jsonl")
    )
    parser.add_argument("--limit", type=int, default=2000, help="abstracts to read")
    parser.add_argument(
        "--rules", action="store_true", help="load through extractors.pipeline with rules on"
    )
    parser.add_argument("--repeat", type=int, default=2, help="timed passes; the best is reported")
    args = parser.parse_args()

    import spacy

    if args.rules:
        from extractors.pipeline import load_pipeline

        nlp = load_pipeline(args.model)
    else:
        nlp = spacy.load(args.model)
    texts = []
    with open(args.corpus, encoding="utf-8") as handle:
        for line in handle:
            abstract = json.loads(line).get("abstract")
            if abstract:
                texts.append(abstract)
            if len(texts) >= args.limit:
                break
    list(nlp.pipe(texts[:50]))  # warm up
    best_full = best_stat = best_wall = float("inf")
    n_tokens = 0
    for _ in range(args.repeat):
        start, wall = time.process_time(), time.perf_counter()
        n_tokens = sum(len(doc) for doc in nlp.pipe(texts, batch_size=256))
        best_full = min(best_full, time.process_time() - start)
        best_wall = min(best_wall, time.perf_counter() - wall)
        docs = [nlp.make_doc(text) for text in texts]
        start = time.process_time()
        for _doc in nlp.pipe(docs, batch_size=256):
            pass
        best_stat = min(best_stat, time.process_time() - start)
    size = sum(p.stat().st_size for p in Path(args.model).rglob("*") if p.is_file())
    print(
        json.dumps(
            {
                "model": str(args.model),
                "pipeline": nlp.pipe_names,
                "abstracts": len(texts),
                "tokens": n_tokens,
                "cpu_seconds": round(best_full, 3),
                "tokens_per_second": round(n_tokens / best_full),
                "tokens_per_wall_second": round(n_tokens / best_wall),
                "tokens_per_second_without_tokenizer": round(n_tokens / best_stat),
                "model_bytes": size,
            }
        )
    )


if __name__ == "__main__":
    main()
