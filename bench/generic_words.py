#!/usr/bin/env python3
"""Which generic-word entries earn their place on the in-domain dev split.

``GENERIC_PHRASES`` (extractors/lexicon.py) stops phrases such as "performance" or "accuracy" from
becoming entities. This bench runs the pipeline once on the dev abstracts up to the mention chooser,
then, for every list entry that filtered at least ``--min-count`` candidate mentions there, re-runs
only the chooser, roles, resolution and scoring with that one entry taken off the list, and prints
the change in paper-level F1. An entry whose removal raises F1 is one the list should not have.

    python bench/generic_words.py [--model DIR] [--min-count 2]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TAIL = ("kg_mentions", "kg_roles")


class Replay:
    """Stands in for ``nlp`` in ``build_from_papers``: yields the precomputed docs after re-running
    the chooser and roles, so a variant costs no NER time."""

    def __init__(self, nlp, docs_by_text):
        self.nlp = nlp
        self.docs = docs_by_text

    @property
    def max_length(self):  # build_from_papers skips abstracts over the pipeline's limit
        return self.nlp.max_length

    def make_doc(self, text):
        return self.nlp.make_doc(text)

    def pipe(self, stream, as_tuples=False, **_):
        for item, ctx in stream:
            doc = self.docs[getattr(item, "text", item)]
            for name in TAIL:
                doc = self.nlp.get_pipe(name)(doc)
            yield doc, ctx


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--gold", type=Path, default=ROOT / "data" / "annotations" / "dev.jsonl")
    ap.add_argument("--min-count", type=int, default=2)
    ap.add_argument(
        "--try-add",
        default="",
        help="comma-separated phrases to try adding to the list, one at a time",
    )
    args = ap.parse_args()

    import extractors.mentions as mentions
    import kg.resolve as resolve
    from extractors import lexicon
    from extractors.pipeline import load_pipeline, paper_doc
    from kg.annotations import load
    from kg.build import build_from_papers
    from kg.paper_eval import gold_papers, score_graph

    nlp = load_pipeline(args.model)
    gold = load([args.gold])
    papers = gold_papers(gold)
    skip = [n for n in (*TAIL, "kg_relations") if n in nlp.pipe_names]
    with nlp.select_pipes(disable=skip):
        docs = {
            p.abstract: d
            for p, d in zip(papers, nlp.pipe([paper_doc(nlp, p) for p in papers], batch_size=32))
        }
    replay: Any = Replay(nlp, docs)  # stands in for the pipeline build_from_papers runs
    original = lexicon.is_generic

    def score(is_generic) -> dict[str, Any]:
        mentions.is_generic = resolve.is_generic = is_generic
        try:
            graph = build_from_papers(papers, replay, related_k=0).graph
        finally:
            mentions.is_generic = resolve.is_generic = original
        return score_graph(graph, gold)

    key = lexicon.generic_key
    hits: Counter[str] = Counter()
    by_rule: Counter[str] = (
        Counter()
    )  # filtered because every word names nothing, not by a list entry

    def recording(text: str) -> bool:
        result = original(text)
        if result and key(text) in lexicon.GENERIC_PHRASES:
            hits[key(text)] += 1
        elif result and any(ch.isalpha() for ch in text):
            by_rule[key(text)] += 1
        return result

    base = score(recording)
    print(
        f"with the whole list: paper F1 {base['f']:.4f} (P {base['p']:.4f} R {base['r']:.4f}); "
        f"{len(hits)} entries filtered something"
    )
    rows = []

    def try_without(counts: Counter[str], verb: str) -> None:
        """Score the pipeline with each phrase of ``counts`` (filtered >= --min-count times) let through."""
        for phrase, n in counts.most_common():
            if n < args.min_count:
                break
            result = score(
                lambda text, phrase=phrase: False if key(text) == phrase else original(text)
            )
            delta = result["f"] - base["f"]
            rows.append((delta, phrase, n, result))
            print(
                f"  {verb} {phrase!r:34} ({n:3} filtered): F1 {result['f']:.4f} ({delta:+.4f})  "
                + " ".join(f"{k[:2]} {v['f']:.3f}" for k, v in result["per_type"].items()),
                flush=True,
            )

    try_without(hits, "without")
    print(f"{len(by_rule)} phrases filtered by the word rule (every word generic), not by an entry")
    try_without(by_rule, "letting")
    for phrase in [p.strip() for p in args.try_add.split(",") if p.strip()]:
        wanted = key(phrase)
        result = score(lambda text, wanted=wanted: True if key(text) == wanted else original(text))
        print(
            f"  adding {phrase!r:35}: F1 {result['f']:.4f} ({result['f'] - base['f']:+.4f})",
            flush=True,
        )
    harmful = [entry for delta, entry, _, _ in sorted(rows, reverse=True) if delta > 0]
    print("entries (or word-rule phrases) whose removal raises F1:", harmful)
    if harmful:
        remove = set(harmful)
        result = score(lambda text: False if key(text) in remove else original(text))
        print(f"without all of them: F1 {result['f']:.4f} ({result['f'] - base['f']:+.4f})")


if __name__ == "__main__":
    main()
