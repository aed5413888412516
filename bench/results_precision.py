"""Precision per field and recall of kg's result records, from the hand checks in
data/results_check.

    python bench/results_precision.py                       # the committed checks
    python bench/results_precision.py --check FILE --recall FILE --predicted FILE

With no ``--check``, the three committed score samples are scored, side by side in one table:
``score150`` (records of kg before the first precision pass), ``score150b`` (a fresh sample after
it, ``scripts/results_sample.py --seed 2 --exclude-sample 3200:0 --exclude
data/results_check/iclr2026_submissions_recall50.jsonl``) and ``score150c`` (after the third
round: every record kg writes on the score-split abstracts outside the earlier checks and the
recall list, see docs/results.md). Each sample was checked against the rules of its day.

The precision file has one extracted record per line with a verdict per field: ``ok`` (filled
and right), ``wrong`` (filled and wrong), ``missing`` (empty though the sentence states it) or
``empty`` (empty, and the sentence does not state it). A record is *fully right* when no field
is wrong. The recall file lists, per abstract, every numeric result statement a reader found
(value as written, and what it measures); a statement is found when kg wrote a record of that
paper whose value text is the statement's value and whose sentence holds it.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHECKS = ROOT / "data" / "results_check"
FIELDS = ("value", "kind", "metric", "dataset", "method", "baseline", "task")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def precision(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per field: ok, wrong, missing, precision (ok / filled); the share of records fully right."""
    out: dict[str, Any] = {"records": len(rows), "fields": {}}
    for name in FIELDS:
        counts = Counter(r["verdict"][name] for r in rows)
        filled = counts["ok"] + counts["wrong"]
        out["fields"][name] = {
            "filled": filled,
            "ok": counts["ok"],
            "wrong": counts["wrong"],
            "missing": counts["missing"],
            "precision": round(counts["ok"] / filled, 3) if filled else None,
        }
    right = sum(1 for r in rows if "wrong" not in r["verdict"].values())
    complete = sum(1 for r in rows if not {"wrong", "missing"} & set(r["verdict"].values()))
    out["fully_right"] = right
    out["fully_right_share"] = round(right / len(rows), 3) if rows else None
    out["right_and_complete"] = complete
    out["right_and_complete_share"] = round(complete / len(rows), 3) if rows else None
    return out


def recall(gold: list[dict[str, Any]], predicted: list[dict[str, Any]]) -> dict[str, Any]:
    """Statements found / statements listed, over the abstracts of ``gold``."""
    by_paper: dict[str, list[dict[str, Any]]] = {}
    for r in predicted:
        by_paper.setdefault(r["paper_id"], []).append(r)
    listed = found = 0
    misses = []
    for paper in gold:
        records = by_paper.get(paper["id"], [])
        for statement in paper["results"]:
            listed += 1
            hit = any(
                r["text"].replace(" ", "") == statement["value"].replace(" ", "") for r in records
            )
            found += hit
            if not hit:
                misses.append({"id": paper["id"], **statement})
    predicted_in_gold = sum(len(by_paper.get(p["id"], [])) for p in gold)
    return {
        "abstracts": len(gold),
        "with_results": sum(1 for p in gold if p["results"]),
        "statements": listed,
        "found": found,
        "recall": round(found / listed, 3) if listed else None,
        "records_written": predicted_in_gold,
        "misses": misses,
    }


def extract_predictions(corpus: Path, gold_path: Path, out: Path) -> None:
    """kg's result records on the abstracts of the recall file, read from ``corpus``."""
    from extractors import extract, load_pipeline
    from kg.model import Paper

    wanted = {row["id"] for row in read_jsonl(gold_path)}
    papers = [
        Paper(id=r["id"], abstract=r["abstract"], title=r.get("title"))
        for r in read_jsonl(corpus)
        if r.get("id") in wanted
    ]
    nlp = load_pipeline()
    with out.open("w", encoding="utf-8") as handle:
        for item in extract(nlp, papers):
            for r in item.results:
                handle.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")


def print_precision(check: Path) -> None:
    p = precision(read_jsonl(check))
    print(f"precision: {p['records']} records hand-checked ({check.name})")
    print(
        f"  fully right (no field wrong): {p['fully_right']} "
        f"({100 * p['fully_right_share']:.1f}%); "
        f"right and complete (nothing stated left out): {p['right_and_complete']} "
        f"({100 * p['right_and_complete_share']:.1f}%)"
    )
    print(f"  {'field':<9} {'filled':>6} {'ok':>4} {'wrong':>5} {'missing':>7} {'precision':>9}")
    for name, f in p["fields"].items():
        shown = f"{100 * f['precision']:.1f}%" if f["precision"] is not None else "-"
        print(
            f"  {name:<9} {f['filled']:>6} {f['ok']:>4} {f['wrong']:>5} {f['missing']:>7} "
            f"{shown:>9}"
        )


def print_table(checks: list[Path]) -> None:
    """One row per field, one column per sample: filled / wrong / precision."""
    scored = [(c.stem.rsplit("_", 1)[-1], precision(read_jsonl(c))) for c in checks]
    head = "".join(f" {name + ' (' + str(p['records']) + ')':>26}" for name, p in scored)
    print(f"{'field':<20}{head}")
    print(f"{'':<20}" + "".join(f" {'filled/wrong/missing prec':>26}" for _ in scored))
    for field in FIELDS:
        cells = []
        for _, p in scored:
            f = p["fields"][field]
            shown = f"{100 * f['precision']:.1f}%" if f["precision"] is not None else "-"
            cell = f"{f['filled']}/{f['wrong']}/{f['missing']}  {shown}"
            cells.append(f" {cell:>26}")
        print(f"{field:<20}" + "".join(cells))
    for key, label in (("fully_right", "fully right"), ("right_and_complete", "right, complete")):
        cells = []
        for _, p in scored:
            cell = f"{p[key]} ({100 * p[key + '_share']:.1f}%)"
            cells.append(f" {cell:>26}")
        print(f"{label:<20}" + "".join(cells))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        type=Path,
        action="append",
        help="A hand-check file (repeatable); default: the three committed score samples.",
    )
    parser.add_argument(
        "--recall", type=Path, default=CHECKS / "iclr2026_submissions_recall50.jsonl"
    )
    parser.add_argument(
        "--predicted",
        type=Path,
        default=CHECKS / "iclr2026_submissions_recall50_predicted.jsonl",
        help="kg's records on the recall abstracts (scripts/results_sample.py + extraction)",
    )
    parser.add_argument(
        "--misses", action="store_true", help="List the statements kg did not write."
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        help="Re-extract the recall abstracts from this corpus (the ICLR 2026 "
        "submissions JSON lines) with the current pipeline and write "
        "--predicted first.",
    )
    args = parser.parse_args(argv)
    if args.corpus is not None:
        extract_predictions(args.corpus, args.recall, args.predicted)
    checks = args.check or [
        CHECKS / "iclr2026_submissions_score150.jsonl",
        CHECKS / "iclr2026_submissions_score150b.jsonl",
        CHECKS / "iclr2026_submissions_score150c.jsonl",
    ]
    for check in checks:
        print_precision(check)
    if len(checks) > 1:
        print()
        print_table(checks)
    if args.recall.exists() and args.predicted.exists():
        r = recall(read_jsonl(args.recall), read_jsonl(args.predicted))
        print(
            f"recall: {r['abstracts']} abstracts read, {r['with_results']} state numeric results, "
            f"{r['statements']} statements; kg wrote {r['found']} of them "
            f"({100 * (r['recall'] or 0):.1f}%) "
            f"and {r['records_written']} records in all"
        )
        if args.misses:
            for miss in r["misses"]:
                print(f"  missed {miss['id']}: {miss['value']} {miss.get('what', '')}")


if __name__ == "__main__":
    main()
