#!/usr/bin/env python3
"""Check, count, compare and resolve annotation files (data/annotations/, format in kg/annotations.py).

python scripts/annotations.py validate FILE...
python scripts/annotations.py stats FILE...
python scripts/annotations.py agree FIRST.jsonl SECOND.jsonl
python scripts/annotations.py resolve DRAFT --batch BATCH --annotator A -o OUT
"""

from __future__ import annotations

import argparse
import json
import sys

from kg.annotations import AnnotationError, load, resolve_draft, stats, validate_record
from kg.atomic import atomic_open


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("validate", help="check annotation files")
    v.add_argument("files", nargs="+")
    st = sub.add_parser("stats", help="abstracts, entities and mentions per label and role")
    st.add_argument("files", nargs="+")
    ag = sub.add_parser("agree", help="agreement of two annotators on the abstracts both annotated")
    ag.add_argument("first")
    ag.add_argument("second")
    r = sub.add_parser("resolve", help="turn a draft (entities with forms) into annotation records")
    r.add_argument("draft")
    r.add_argument(
        "--batch", required=True, help="the batch file the draft annotates (id, source, text)"
    )
    r.add_argument("--annotator", required=True)
    r.add_argument("-o", "--out", required=True)
    args = parser.parse_args(argv)
    if args.cmd == "validate":
        try:
            recs = load(args.files)
        except (AnnotationError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        n_m = sum(len(e.mentions) for r_ in recs for e in r_.entities)
        n_e = sum(len(r_.entities) for r_ in recs)
        print(f"ok: {len(recs)} abstracts, {n_e} entities, {n_m} mentions")
        return 0
    if args.cmd in ("stats", "agree"):
        try:
            if args.cmd == "stats":
                print(json.dumps(stats(load(args.files)), indent=1))
            else:
                from kg.paper_eval import agreement

                res = agreement(load([args.first]), load([args.second]))
                print(
                    json.dumps(
                        {
                            "abstracts": res["abstracts"],
                            "span_f": round(res["spans"]["f"], 4),
                            "paper_f": round(res["paper"]["f"], 4),
                            "paper_per_label": {
                                k: round(v["f"], 4) for k, v in res["paper"]["per_type"].items()
                            },
                            "proposes_f": round(res["paper"]["proposes"]["f"], 4),
                        }
                    )
                )
        except (AnnotationError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    batch = {}
    for line in open(args.batch, encoding="utf-8"):
        if line.strip():
            b = json.loads(line)
            batch[b["id"]] = b
    records, bad = [], 0
    seen = set()
    for lineno, line in enumerate(open(args.draft, encoding="utf-8"), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            print(f"{args.draft}:{lineno}: not JSON ({exc.msg})")
            bad += 1
            continue
        if d.get("id") not in batch:
            print(f"{args.draft}:{lineno}: id {d.get('id')!r} is not in {args.batch}")
            bad += 1
            continue
        seen.add(d["id"])
        src = batch[d["id"]]
        ents, errors, warnings = resolve_draft(src["text"], d.get("entities", []))
        for msg in errors:
            print(f"{args.draft}:{lineno} [{d['id']}] ERROR {msg}")
        for msg in warnings:
            print(f"{args.draft}:{lineno} [{d['id']}] warn  {msg}")
        rec = {
            "id": d["id"],
            "source": src["source"],
            "text": src["text"],
            "entities": ents,
            "annotator": args.annotator,
            "pass": 2,
        }
        try:
            validate_record(rec, f"{args.draft}:{lineno}")
        except AnnotationError as exc:
            print(f"ERROR {exc}")
            bad += 1
            continue
        bad += bool(errors)
        records.append(rec)
    missing = [i for i in batch if i not in seen]
    for i in missing:
        print(f"missing: {i} has no line in the draft")
    with atomic_open(args.out) as handle:
        for rec in records:
            handle.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records to {args.out}; {bad} with errors; {len(missing)} missing")
    return 1 if bad or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
