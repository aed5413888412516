"""How long does resolution take next to extraction, and what does it merge?

    python bench/resolution.py [INPUT ...] [-n 10000] [--cache FILE] [--top 30] [--merges FILE]

Reads the first N distinct abstracts of INPUT (default: every corpus file under
``$KG_SHARED_DATA/corpora``, or ``shared/data/corpora`` beside the repository, in name order),
runs the shipped extractor over them and then kg's resolution (:func:`kg.resolve.resolve` and
:func:`kg.resolve.resolve_relations`), timing the two separately. Prints mentions, surface forms
before merging and entities after, the ratio of resolution time to extraction time (the target is
under 0.1), and a table of the largest merges: entity, label, number of surface forms, papers,
sample forms and why they joined.

``--cache FILE`` pickles the extractions (and the extraction time) the first time and reuses them
afterwards, so resolution can be re-run in seconds; the extraction time printed is then the one
measured when the cache was written.
"""

from __future__ import annotations

import argparse
import itertools
import os
import pickle
import re
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def default_inputs() -> list[str]:
    data = Path(os.environ.get("KG_SHARED_DATA", REPO.parent / "shared" / "data"))
    return [str(data / "corpora")]


def read_papers(inputs: list[str], n: int | None) -> list:
    from kg.corpus import read_corpus

    return list(itertools.islice(read_corpus(inputs), n))


def extract_all(papers: list, *, rules_only: bool = False) -> tuple[list, float, float]:
    """(extractions, load seconds, extraction seconds) for ``papers`` with the shipped pipeline."""
    from extractors import extract, load_pipeline

    start = time.perf_counter()
    nlp = load_pipeline(statistical=not rules_only)
    loaded = time.perf_counter()
    extractions = list(extract(nlp, papers))
    return extractions, loaded - start, time.perf_counter() - loaded


_REASON_KIND = re.compile(
    r"^(acronym vote|acronym|gazetteer|variant|fuzzy|label vote|same key|all-caps)"
)


def reason_kinds(form_rows: list[dict]) -> Counter[str]:
    """How many surface forms joined for each kind of reason (a form counts once per kind)."""
    kinds: Counter[str] = Counter()
    for row in form_rows:
        seen = set()
        for reason in row["reasons"]:
            for part in reason.split("; "):
                match = _REASON_KIND.match(part)
                if match:
                    seen.add(match.group(1).replace("same key", "normalised"))
        kinds.update(seen)
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "inputs", nargs="*", help="corpus files or directories (default: the shared corpora)"
    )
    parser.add_argument(
        "-n", type=int, default=10_000, help="first N distinct abstracts (default 10,000)"
    )
    parser.add_argument(
        "--cache", help="pickle of the extractions: written when missing, reused when present"
    )
    parser.add_argument("--top", type=int, default=30, help="largest merges to list (default 30)")
    parser.add_argument("--merges", help="write every merge record as JSON lines to this file")
    parser.add_argument(
        "--rules-only", action="store_true", help="the rules-only pipeline, no trained model"
    )
    args = parser.parse_args()

    from kg.resolve import resolve, resolve_relations

    inputs = args.inputs or default_inputs()
    cache = Path(args.cache) if args.cache else None
    if cache is not None and cache.exists():
        with cache.open("rb") as handle:
            saved = pickle.load(handle)
        extractions, load_seconds, extract_seconds = (
            saved["extractions"],
            saved["load_seconds"],
            saved["extract_seconds"],
        )
        print(f"extractions from {cache} (written {saved.get('written', '?')})")
    else:
        papers = read_papers(inputs, args.n)
        extractions, load_seconds, extract_seconds = extract_all(papers, rules_only=args.rules_only)
        if cache is not None:
            with cache.open("wb") as handle:
                pickle.dump(
                    {
                        "extractions": extractions,
                        "load_seconds": load_seconds,
                        "extract_seconds": extract_seconds,
                        "inputs": inputs,
                        "n": args.n,
                        "written": time.strftime("%Y-%m-%d %H:%M"),
                    },
                    handle,
                )
    extractions = extractions[: args.n]

    start = time.perf_counter()
    resolution = resolve([(e.paper, e.mentions) for e in extractions])
    resolve_seconds = time.perf_counter() - start
    start = time.perf_counter()
    relations = resolve_relations([r for e in extractions for r in e.relations], resolution)
    relation_seconds = time.perf_counter() - start
    stats = resolution.stats
    n_mentions = sum(len(e.mentions) for e in extractions)
    resolution_seconds = resolve_seconds + relation_seconds

    forms_ci = len({(m.label, m.text.casefold()) for e in extractions for m in e.mentions})
    by_label = Counter(entity.label for entity in resolution.entities.values())
    print(
        f"papers: {len(extractions)}   mentions: {n_mentions}   relation mentions: "
        f"{sum(len(e.relations) for e in extractions)} -> {len(relations)} entity relations"
    )
    print(
        f"surface forms before merging: {stats.surface_forms} (label, text); {forms_ci} ignoring case"
    )
    print(
        f"entities after merging:       {stats.entities}  "
        + "  ".join(f"{label} {count}" for label, count in sorted(by_label.items()))
    )
    print(
        f"  dropped as generic: {stats.dropped_generic} mentions; acronyms resolved by vote: "
        f"{stats.acronyms_resolved_by_vote}; label conflicts settled by vote: {stats.label_conflicts}; "
        f"fuzzy merges: {stats.fuzzy_merges}"
    )
    merged = resolution.merges()
    print(
        f"  entities with more than one surface form: {len(merged)} "
        f"(covering {sum(len(r['forms']) for r in merged)} forms)"
    )
    print(
        f"pipeline load: {load_seconds:.1f} s   extraction: {extract_seconds:.1f} s "
        f"({len(extractions) / max(extract_seconds, 1e-9):.1f} abstracts/s)"
    )
    print(
        f"resolution: {resolution_seconds:.2f} s (entities {resolve_seconds:.2f} s, relations "
        f"{relation_seconds:.2f} s)   resolution / extraction = {resolution_seconds / max(extract_seconds, 1e-9):.4f}"
        f"  (target < 0.1)"
    )

    print(f"\n{args.top} largest merges (by surface forms, then papers)")
    print(
        f"{'#':>3} {'entity':<44} {'label':<8} {'forms':>5} {'papers':>6}  sample forms | reasons"
    )
    for i, row in enumerate(merged[: args.top], 1):
        forms = sorted(row["forms"], key=lambda f: -f["mentions"])
        sample = ", ".join(f"{f['form']} ({f['mentions']})" for f in forms[:6])
        kinds = ", ".join(f"{kind} {n}" for kind, n in reason_kinds(row["forms"]).most_common())
        print(
            f"{i:>3} {row['name'][:44]:<44} {row['label']:<8} {len(row['forms']):>5} {row['papers']:>6}  "
            f"{sample} | {kinds}"
        )
    if args.merges:
        import json

        with open(args.merges, "w", encoding="utf-8") as handle:
            for row in merged:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
