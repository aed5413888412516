#!/usr/bin/env python3
"""Assemble data/annotations/{train,dev,test}.jsonl from the annotators' records (raw/<annotator>/).

Each abstract goes to the split ``pool/splits.json`` gives it. A double-annotated batch (``d*``) keeps
both versions under ``double/`` and takes the adjudicated record from ``double/adjudicated/`` when
there is one (else the first annotator's, marked ``"adjudicated": false``). Every record is validated
on the way, and the text must be the pool's (the source abstract) exactly.

    python scripts/assemble_annotations.py
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.annotations import load  # noqa: E402

ANN = ROOT / "data" / "annotations"


def main() -> None:
    splits = json.loads((ANN / "pool" / "splits.json").read_text())
    queues = json.loads((ANN / "pool" / "queues.json").read_text())
    pool = {}
    for f in sorted((ANN / "pool").glob("*.jsonl")):
        for line in f.open(encoding="utf-8"):
            row = json.loads(line)
            pool[row["id"]] = row
    owners: dict[str, list[str]] = {}
    for annotator, batches in queues.items():
        for b in batches:
            owners.setdefault(b, []).append(annotator)
    out: dict[str, dict[str, dict]] = {"train": {}, "dev": {}, "test": {}}
    (ANN / "double").mkdir(exist_ok=True)
    adjudicated_dir = ANN / "double" / "adjudicated"
    missing = []
    for batch, annotators in sorted(owners.items()):
        versions = {}
        for a in annotators:
            path = ANN / "raw" / a / f"{batch}.jsonl"
            if path.exists():
                versions[a] = {r.id: r for r in load([path])}
        if not versions:
            missing.append(batch)
            continue
        if batch.startswith("d"):
            for a in versions:
                shutil.copyfile(
                    ANN / "raw" / a / f"{batch}.jsonl", ANN / "double" / f"{batch}.{a}.jsonl"
                )
            adj_path = adjudicated_dir / f"{batch}.jsonl"
            chosen = (
                {r.id: r for r in load([adj_path])}
                if adj_path.exists()
                else versions[annotators[0]]
                if annotators[0] in versions
                else next(iter(versions.values()))
            )
            adjudicated = adj_path.exists()
        else:
            chosen = next(iter(versions.values()))
            adjudicated = None
        for rid, rec in chosen.items():
            if rec.text != pool[rid]["text"]:
                raise SystemExit(f"{batch}: {rid}: text differs from the pool's abstract")
            obj = rec.to_json()
            obj["title"] = pool[rid]["title"]  # context for kg (roles read it), not annotated
            if adjudicated is not None:
                obj["adjudicated"] = adjudicated
                obj["annotator"] = "+".join(sorted(versions)) if adjudicated else obj["annotator"]
            out[splits[rid]][rid] = obj
    for split, rows in out.items():
        with (ANN / f"{split}.jsonl").open("w", encoding="utf-8") as h:
            for rid in sorted(rows):
                h.write(json.dumps(rows[rid], ensure_ascii=False) + "\n")
    counts = {k: len(v) for k, v in out.items()}
    print(f"assembled {counts}; batches not yet annotated: {missing or 'none'}")


if __name__ == "__main__":
    main()
