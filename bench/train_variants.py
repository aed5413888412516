#!/usr/bin/env python3
"""Train NER recipe variants side by side and score each on the in-domain dev split.

Each variant (a name and ``extractors.train.train`` options) is trained once per seed; each model is
scored with the whole pipeline (rules, resolution) on ``data/annotations/dev.jsonl`` at paper and
mention level (``kg eval``'s figures), and on SciERC dev (the model alone, its four labels).

    python bench/train_variants.py --variants indomain,scierc1 --seeds 0,1 --work WORK
    python bench/train_variants.py --list

Variants run one after the other in this process; start two processes to use two cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VARIANTS: dict[str, dict] = {
    "indomain": {"annotations_repeat": 1, "scierc_repeat": 0},
    "indomain-x2": {"annotations_repeat": 2, "scierc_repeat": 0},
    "scierc1": {"annotations_repeat": 1, "scierc_repeat": 1},
    "x2-scierc1": {"annotations_repeat": 2, "scierc_repeat": 1},
    "x3-scierc1": {"annotations_repeat": 3, "scierc_repeat": 1},
    "x2-scierc1-tdmsci": {"annotations_repeat": 2, "scierc_repeat": 1, "tdmsci": True},
    "x2-scierc1-scirex": {"annotations_repeat": 2, "scierc_repeat": 1, "scirex_sample": 0.1},
    "x2-scierc1-novectors": {"annotations_repeat": 2, "scierc_repeat": 1, "vectors": False},
    "x3-scierc1-noextra": {
        "annotations_repeat": 3,
        "scierc_repeat": 1,
        "tdmsci": False,
        "scirex_sample": 0.0,
    },
    "x3-scierc1-ner128": {
        "annotations_repeat": 3,
        "scierc_repeat": 1,
        "overrides": {"components.ner.model.hidden_width": 128},
    },
    "x3-scierc1-6k": {
        "annotations_repeat": 3,
        "scierc_repeat": 1,
        "overrides": {"training.max_steps": 6000, "training.patience": 2000},
    },
}


def score(model_dir: Path, dev: list[Path], data_dir: Path) -> dict:
    from extractors.pipeline import load_pipeline
    from kg.evaluation import evaluate
    from kg.paper_eval import evaluate_annotations

    nlp = load_pipeline(model_dir)
    res = evaluate_annotations(dev, nlp)
    stat = load_pipeline(model_dir, rules=False)
    sc = evaluate(data_dir / "scierc" / "dev.json", "scierc", stat)
    four = [
        sc["ents_per_type"][k]
        for k in ("Task", "Method", "Metric", "Material")
        if k in sc["ents_per_type"]
    ]
    tp, fp, fn = (sum(x[c] for x in four) for c in ("tp", "fp", "fn"))
    f4 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return {
        "paper_f": res["paper"]["f"],
        "paper_p": res["paper"]["p"],
        "paper_r": res["paper"]["r"],
        "paper_per_type": {k: v["f"] for k, v in res["paper"]["per_type"].items()},
        "proposes_p": res["paper"]["proposes"]["precision"],
        "proposes_r": res["paper"]["proposes"]["recall"],
        "span_f": res["spans"]["f"],
        "scierc_f6": sc["ents_f"],
        "scierc_f4": f4,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="indomain,x2-scierc1")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--work", type=Path, required=False)
    ap.add_argument(
        "--vectors",
        type=Path,
        default=None,
        help="a vectors pipeline (default: the shipped model's, the recipe's floret vectors)",
    )
    ap.add_argument(
        "--steps", type=int, default=None, help="training.max_steps (default: the config's)"
    )
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="append one JSON line per model here")
    args = ap.parse_args()
    if args.list:
        for k, v in VARIANTS.items():
            print(k, v)
        return
    from extractors.train import ANNOTATIONS, MODEL_DIR, default_data_dir, train

    data_dir = default_data_dir()
    vectors = args.vectors or MODEL_DIR
    dev = [ANNOTATIONS / "dev.jsonl"]
    rows = []
    for name in args.variants.split(","):
        for seed in map(int, args.seeds.split(",")):
            opts = dict(VARIANTS[name])
            use_vectors = opts.pop("vectors", True)
            overrides = {
                **opts.pop("overrides", {}),
                **({"training.max_steps": args.steps} if args.steps else {}),
            } or None
            started = time.time()
            model = args.work / f"{name}-s{seed}"
            train(
                model,
                data_dir,
                work_dir=args.work / f"{name}-s{seed}-work",
                vectors=vectors if use_vectors else False,
                annotations=[ANNOTATIONS / "train.jsonl"],
                dev_annotations=dev,
                seed=seed,
                overrides=overrides,
                **opts,
            )
            row = {
                "variant": name,
                "seed": seed,
                "train_s": round(time.time() - started),
                **score(model, dev, data_dir),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.out:
                with args.out.open("a") as h:
                    h.write(json.dumps(row) + "\n")
    print(
        f"{'variant':24} seed  paper F1 (P/R)       M    D    T    Me   roles P/R   span F1  SciERC4  SciERC6"
    )
    for r in rows:
        t = r["paper_per_type"]
        print(
            f"{r['variant']:24} {r['seed']:>4}  {r['paper_f']:.3f} ({r['paper_p']:.2f}/{r['paper_r']:.2f})  "
            f"{t['METHOD']:.2f} {t['DATASET']:.2f} {t['TASK']:.2f} {t['METRIC']:.2f}  "
            f"{r['proposes_p']:.2f}/{r['proposes_r']:.2f}   {r['span_f']:.3f}    {r['scierc_f4']:.3f}    {r['scierc_f6']:.3f}"
        )


if __name__ == "__main__":
    main()
