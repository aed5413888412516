"""Draw the hand-check samples for result extraction from the ICLR 2026 submissions that were not
accepted (``decision`` null), split by a hash of the paper id: ``tune`` papers are the ones the
rules were written against, ``score`` papers the ones precision and recall are measured on.

    python scripts/results_sample.py CORPUS --split score --n 400 --seed 0 > papers.jsonl
    python scripts/results_sample.py CORPUS --split score --n 3200 --seed 2 \
        --exclude-sample 3200:0 > fresh.jsonl   # none of the seed-0 sample's first 3,200

``--exclude-sample N:SEED`` (repeatable) leaves out the papers an earlier draw of the same split
took, so a fresh sample is scored on abstracts nobody has looked at; ``--exclude FILE`` leaves
out the ``id``/``paper_id`` of a JSON lines file (a hand-check file). ``N:SEED`` replays a draw
over the whole split, without the exclusions that draw itself had: to leave out a sample drawn
with exclusions, ``--exclude`` its hand-check file (or the sample's own output) instead.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path


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
    parser.add_argument(
        "--exclude-sample",
        action="append",
        default=[],
        metavar="N:SEED",
        help="Leave out the first N papers the draw with SEED (same split) took.",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="Leave out the ids (id or paper_id) listed in this JSON lines file.",
    )
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
    skip: set[str] = set()
    for spec in args.exclude_sample:
        n, _, seed = spec.partition(":")
        earlier = list(rows)
        random.Random(int(seed or 0)).shuffle(earlier)
        skip |= {r["id"] for r in earlier[: int(n)]}
    for path in args.exclude:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    skip.add(row.get("paper_id") or row["id"])
    random.Random(args.seed).shuffle(rows)
    rows = [r for r in rows if r["id"] not in skip]
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
