#!/usr/bin/env python3
"""Draw the abstracts to annotate (data/annotations/pool/) from the allowed part of shared/data/corpora.

Allowed (GUIDELINES.md, "Which abstracts"): ICLR 2026 submissions whose decision is null, plus 2019-2025
records of NeurIPS, ICML, ICLR, CVPR, ACL and EMNLP. Never an accepted ICLR 2026 paper (by id, title or
abstract) and never the example corpus. A seeded shuffle fixes the split of each abstract (the first
``--double`` are annotated twice and belong to dev) and the batches handed to annotators.

    python scripts/annotation_pool.py --corpora $KG_SHARED_DATA/corpora -o data/annotations/pool
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

OTHER_VENUES = ("nips", "icml", "iclr", "cvpr", "acl", "emnlp")


def norm(s: str) -> str:
    return re.sub(r"\W+", " ", s.lower()).strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, required=True)
    ap.add_argument(
        "--examples", type=Path, default=Path(__file__).resolve().parents[1] / "examples"
    )
    ap.add_argument("-o", "--out", type=Path, required=True)
    ap.add_argument("--n", type=int, default=1100, help="distinct abstracts")
    ap.add_argument("--iclr-share", type=float, default=0.8)
    ap.add_argument("--double", type=int, default=100)
    ap.add_argument(
        "--dev", type=int, default=120, help="dev abstracts beyond the double-annotated ones"
    )
    ap.add_argument("--test", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=25)
    ap.add_argument("--annotators", default="abcdefgh")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--min-chars", type=int, default=400)
    ap.add_argument("--max-chars", type=int, default=2200)
    ap.add_argument(
        "--extend",
        type=int,
        default=0,
        help="instead: draw this many more abstracts (all train) into new batches e00, e01, ...",
    )
    ap.add_argument(
        "--new-annotators",
        default="ijkl",
        help="with --extend: who annotates the new batches (one letter each, or comma-separated names)",
    )
    args = ap.parse_args()

    banned_ids, banned_text = set(), set()
    for line in open(args.corpora / "iclr2026_accepted.jsonl", encoding="utf-8"):
        r = json.loads(line)
        banned_ids.add(r["id"])
        banned_text.update({norm(r["title"]), norm(r["abstract"])})
    for f in sorted(args.examples.rglob("*.txt")):
        for para in re.split(r"\n\s*\n", f.read_text(encoding="utf-8")):
            banned_text.add(norm(para))

    def ok(r: dict) -> bool:
        a = r["abstract"]
        return (
            r["id"] not in banned_ids
            and norm(r["title"]) not in banned_text
            and norm(a) not in banned_text
            and args.min_chars <= len(a) <= args.max_chars
        )

    iclr, other = [], []
    for line in open(args.corpora / "iclr2026_submissions.jsonl", encoding="utf-8"):
        r = json.loads(line)
        if r.get("decision") is None and ok(r):
            iclr.append(("iclr2026_submissions.jsonl", r))
    for v in OTHER_VENUES:
        name = f"papercopilot_{v}.jsonl"
        for line in open(args.corpora / name, encoding="utf-8"):
            r = json.loads(line)
            if 2019 <= r["year"] <= 2025 and ok(r):
                other.append((name, r))
    if args.extend:
        extend(args, iclr, other)
        return
    rng = random.Random(args.seed)
    n_iclr = round(args.n * args.iclr_share)
    picked = rng.sample(iclr, n_iclr) + rng.sample(other, args.n - n_iclr)
    rng.shuffle(picked)
    seen_text = set()
    rows = []
    for src, r in picked:
        key = norm(r["abstract"])
        if key in seen_text:
            continue
        seen_text.add(key)
        rows.append(
            {
                "id": r["id"],
                "source": src,
                "title": r["title"],
                "year": r["year"],
                "venue": r["venue"],
                "text": r["abstract"],
            }
        )
    splits = {}
    for i, row in enumerate(rows):
        if i < args.double + args.dev:
            splits[row["id"]] = "dev"
        elif i < args.double + args.dev + args.test:
            splits[row["id"]] = "test"
        else:
            splits[row["id"]] = "train"
    bs = args.batch_size
    double = [rows[i : i + bs] for i in range(0, args.double, bs)]
    single = rows[args.double :]
    rng.shuffle(single)
    single_batches = [single[i : i + bs] for i in range(0, len(single), bs)]
    args.out.mkdir(parents=True, exist_ok=True)
    batches = {}
    for k, b in enumerate(double):
        batches[f"d{k:02d}"] = b
    for k, b in enumerate(single_batches):
        batches[f"s{k:02d}"] = b
    for name, b in batches.items():
        with open(args.out / f"{name}.jsonl", "w", encoding="utf-8") as h:
            for row in b:
                h.write(json.dumps(row, ensure_ascii=False) + "\n")
    # queues: each double batch goes to two annotators (first in their queue), singles round-robin
    ann = list(args.annotators)
    queues: dict[str, list] = {a: [] for a in ann}
    half = len(ann) // 2
    for k in range(len(double)):
        queues[ann[k % len(ann)]].append(f"d{k:02d}")
        queues[ann[(k + half) % len(ann)]].append(f"d{k:02d}")
    for k in range(len(single_batches)):
        target = min(ann, key=lambda a: (len(queues[a]), ann.index(a)))
        queues[target].append(f"s{k:02d}")
    (args.out / "splits.json").write_text(json.dumps(splits, indent=0, sort_keys=True) + "\n")
    (args.out / "queues.json").write_text(json.dumps(queues, indent=1) + "\n")
    counts = {s: sum(1 for v in splits.values() if v == s) for s in ("train", "dev", "test")}
    print(
        f"{len(rows)} abstracts ({len(iclr)} ICLR 2026 non-accepted and {len(other)} 2019-2025 allowed), {counts}"
    )
    print(json.dumps(queues))


def extend(args: argparse.Namespace, iclr: list, other: list) -> None:
    """Draw ``args.extend`` more abstracts, none already in the pool, as training batches e00, e01, ..."""
    splits = json.loads((args.out / "splits.json").read_text())
    queues = json.loads((args.out / "queues.json").read_text())
    taken = set()
    for f in args.out.glob("*.jsonl"):
        for line in f.open(encoding="utf-8"):
            taken.add(norm(json.loads(line)["text"]))
    rng = random.Random(args.seed + 1)
    fresh_iclr = [
        x for x in iclr if x[1]["id"] not in splits and norm(x[1]["abstract"]) not in taken
    ]
    fresh_other = [
        x for x in other if x[1]["id"] not in splits and norm(x[1]["abstract"]) not in taken
    ]
    n_iclr = round(args.extend * args.iclr_share)
    picked = rng.sample(fresh_iclr, n_iclr) + rng.sample(fresh_other, args.extend - n_iclr)
    rng.shuffle(picked)
    rows = []
    for src, r in picked:
        if norm(r["abstract"]) in taken:
            continue
        taken.add(norm(r["abstract"]))
        rows.append(
            {
                "id": r["id"],
                "source": src,
                "title": r["title"],
                "year": r["year"],
                "venue": r["venue"],
                "text": r["abstract"],
            }
        )
        splits[r["id"]] = "train"
    first = len([f for f in args.out.glob("e*.jsonl")])
    ann = (
        args.new_annotators.split(",") if "," in args.new_annotators else list(args.new_annotators)
    )
    bs = args.batch_size
    for k in range(0, len(rows), bs):
        name = f"e{first + k // bs:02d}"
        with open(args.out / f"{name}.jsonl", "w", encoding="utf-8") as h:
            for row in rows[k : k + bs]:
                h.write(json.dumps(row, ensure_ascii=False) + "\n")
        queues.setdefault(ann[(k // bs) % len(ann)], []).append(name)
    (args.out / "splits.json").write_text(json.dumps(splits, indent=0, sort_keys=True) + "\n")
    (args.out / "queues.json").write_text(json.dumps(queues, indent=1) + "\n")
    print(f"{len(rows)} more training abstracts in {(len(rows) + bs - 1) // bs} batches")
    print(json.dumps({a: queues[a] for a in ann}))


if __name__ == "__main__":
    main()
