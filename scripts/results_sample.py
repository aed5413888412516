"""Draw the hand-check samples for result extraction from the ICLR 2026 submissions that were not
accepted (``decision`` null), split by a hash of the paper id: ``tune`` papers are the ones the
rules were written against, ``score`` papers the ones precision and recall are measured on.

    python scripts/results_sample.py CORPUS --split score --n 400 --seed 0 > papers.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys


def split_of(paper_id: str) -> str:
    """``tune`` or ``score``: the parity of the id's MD5, so the split never depends on order."""
    return (
        "tune" if int(hashlib.md5(paper_id.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "score"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--split", choices=("tune", "score"), required=True)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = []
    with open(args.corpus, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if (
                row.get("decision") is None
                and row.get("abstract")
                and split_of(row["id"]) == args.split
            ):
                rows.append(row)
    random.Random(args.seed).shuffle(rows)
    for row in rows[: args.n]:
        sys.stdout.write(
            json.dumps(
                {k: row.get(k) for k in ("id", "title", "abstract", "year", "venue")},
                ensure_ascii=False,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
