#!/usr/bin/env python3
"""What each rule is worth on the in-domain dev split: the whole pipeline against the pipeline
without one rule at a time, paper level and mention level (``kg eval``'s figures).

    python bench/rule_ablation.py [--model DIR] [--gold data/annotations/dev.jsonl] [--only full,-kg_heads]

A rule earns its place when removing it lowers paper-level F1.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Rule components of the default pipeline (each is tried without) and those left out of it (each is
#: tried with: "gazetteer" is the three span rulers of extractors.rules.add_gazetteer).
COMPONENTS = ("kg_acronyms", "kg_cues", "kg_roles")
OPTIONAL = ("gazetteer", "kg_gazetteer_shapes only", "kg_heads")


@contextmanager
def patched(module, name, value):
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--gold", type=Path, default=ROOT / "data" / "annotations" / "dev.jsonl")
    ap.add_argument("--only", default=None, help="comma-separated variant names")
    args = ap.parse_args()

    import extractors.mentions as mentions
    import kg.resolve as resolve
    from extractors.pipeline import load_pipeline
    from kg.paper_eval import evaluate_annotations
    from kg.schema import MODEL_TO_PRODUCT

    def run(nlp):
        r = evaluate_annotations([args.gold], nlp)
        return r["paper"], r["spans"]

    variants = [
        "full",
        "rules only",
        *(f"-{c}" for c in COMPONENTS),
        *(f"+{c}" for c in OPTIONAL),
        "-generic filter",
        "-dataset name check",
    ]
    if args.only:
        variants = [v for v in variants if v in args.only.split(",")]
    rows = []
    for name in variants:
        if name == "rules only":
            paper, spans = run(load_pipeline(None, statistical=False))
        elif name.startswith("+"):
            import extractors.pipeline as pipeline

            order = list(pipeline.RULE_COMPONENTS)
            order.insert(
                order.index("kg_cues") + (name == "+kg_heads"),
                "kg_heads" if name == "+kg_heads" else "kg_gazetteer",
            )
            with patched(pipeline, "RULE_COMPONENTS", tuple(order)):
                nlp = load_pipeline(args.model)
            if name == "+kg_gazetteer_shapes only":
                nlp.remove_pipe("kg_gazetteer")
                nlp.remove_pipe("kg_gazetteer_lower")
            paper, spans = run(nlp)
        elif name.startswith("-kg_"):
            nlp = load_pipeline(args.model)
            nlp.remove_pipe(name[1:])
            paper, spans = run(nlp)
        elif name == "-generic filter":

            def keep(text):
                return not any(ch.isalpha() for ch in text)

            with patched(mentions, "is_generic", keep), patched(resolve, "is_generic", keep):
                paper, spans = run(load_pipeline(args.model))
        elif name == "-dataset name check":
            with patched(
                mentions, "map_ner_label", lambda label, text: MODEL_TO_PRODUCT.get(label)
            ):
                paper, spans = run(load_pipeline(args.model))
        else:
            paper, spans = run(load_pipeline(args.model))
        t = paper["per_type"]
        rows.append((name, paper, spans))
        print(
            f"{name:22} paper F1 {paper['f']:.3f} (P {paper['p']:.3f} R {paper['r']:.3f})  "
            f"M {t['METHOD']['f']:.3f} D {t['DATASET']['f']:.3f} T {t['TASK']['f']:.3f} Me {t['METRIC']['f']:.3f}  "
            f"PROPOSES P {paper['proposes']['precision']:.3f} R {paper['proposes']['recall']:.3f}  "
            f"span F1 {spans['f']:.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
