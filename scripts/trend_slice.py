"""A multi-year slice of the shared corpora for trend checks: up to N papers per venue-year,
drawn with a fixed seed, written as JSON lines kg build reads.

    python scripts/trend_slice.py SHARED/corpora --venue nips:2009-2018 \\
        --venue icml:2013-2019 --per 200 > slice.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", type=Path, help="The folder of papercopilot_*.jsonl files.")
    parser.add_argument(
        "--venue", action="append", required=True, help="NAME:FIRST-LAST, e.g. nips:2009-2018."
    )
    parser.add_argument("--per", type=int, default=200, help="Papers per venue-year.")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    for spec in args.venue:
        name, _, years = spec.partition(":")
        first, _, last = years.partition("-")
        by_year: dict[int, list[dict]] = defaultdict(list)
        with (args.corpora / f"papercopilot_{name}.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                year = row.get("year")
                if (
                    isinstance(year, int)
                    and int(first) <= year <= int(last)
                    and len(row.get("abstract") or "") > 200
                ):
                    by_year[year].append(row)
        for year in sorted(by_year):
            rows = by_year[year]
            rng.shuffle(rows)
            for row in rows[: args.per]:
                keep = {
                    k: row.get(k) for k in ("id", "title", "abstract", "year", "venue", "authors")
                }
                sys.stdout.write(json.dumps(keep, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
