"""Train and score the relation classifier of :mod:`extractors.relations` on SciERC.

``python -m extractors.relations_train [--output DIR] [--ner MODEL_DIR]`` trains on SciERC train
(gold entities; every unordered pair of entities in a sentence is a candidate), tunes the
``NONE`` margin on SciERC dev, prints dev relation P/R/F1 with gold entities and, when a NER
pipeline is given (default: the shipped one), end to end with its predicted entities, and writes
the model (default: ``extractors/models/relations``).

The classifier is a multinomial logistic regression (training needs scikit-learn, the ``train``
extra; the shipped model needs numpy only); the data directory is found as ``kg train`` finds it (``$KG_SHARED_DATA`` or ``shared/data`` beside the
repository).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from extractors.relations import (
    MODEL_DIR,
    NONE,
    RELATION_LABELS,
    EntSpan,
    RelationModel,
    pair_features,
    predict_sentence,
    sentence_candidates,
)
from extractors.train import default_data_dir
from kg.evaluation import PRF, GoldDoc, read_scierc

__all__ = [
    "CLASSES",
    "sentence_examples",
    "build_examples",
    "fit",
    "predict_doc",
    "score_relations",
    "tune_threshold",
    "train_relations",
]

#: NONE first, then each label in both directions.
CLASSES: list[str] = [NONE] + [f"{label}{d}" for label in RELATION_LABELS for d in (">", "<")]

Relation = tuple[int, int, int, int, str]  # s1, e1, s2, e2 (end inclusive, doc-level), label


def _sentence_bounds(doc: GoldDoc) -> list[tuple[int, int]]:
    bounds, start = [], 0
    for sentence in doc.sentences:
        bounds.append((start, start + len(sentence)))
        start += len(sentence)
    return bounds


def sentence_examples(lower: Sequence[str], start: int, end: int, ents: Iterable[EntSpan],
                      relations: Iterable[Relation]) -> Iterator[tuple[list[str], str]]:
    """``(features, class)`` for every non-overlapping pair of ``ents`` in one sentence.

    ``ents`` are end exclusive; ``relations`` are SciERC's ``(s1, e1, s2, e2, label)``, end inclusive.
    """
    gold = {((s1, e1 + 1), (s2, e2 + 1)): label for s1, e1, s2, e2, label in relations}
    spans = sentence_candidates(ents)
    for i in range(len(spans)):
        for j in range(i + 1, len(spans)):
            a, b = spans[i], spans[j]
            if a[1] > b[0]:
                continue
            if (a[:2], b[:2]) in gold:
                cls = gold[(a[:2], b[:2])] + ">"
            elif (b[:2], a[:2]) in gold:
                cls = gold[(b[:2], a[:2])] + "<"
            else:
                cls = NONE
            yield pair_features(lower, start, end, spans, i, j), cls


def build_examples(docs: Iterable[GoldDoc]) -> list[tuple[list[str], str]]:
    """Training examples from gold entities and relations."""
    out: list[tuple[list[str], str]] = []
    for doc in docs:
        lower = [w.lower() for w in doc.words]
        rels = doc.relations or [[] for _ in doc.sentences]
        for (start, end), ner, rel in zip(_sentence_bounds(doc), doc.ner, rels):
            ents = [(s, e + 1, label) for s, e, label in ner]
            out.extend(sentence_examples(lower, start, end, ents, rel))
    return out


def fit(examples: Sequence[tuple[list[str], str]], *, c: float = 1.0, min_count: int = 1,
        max_iter: int = 3000) -> RelationModel:
    """Multinomial logistic regression (scikit-learn's L-BFGS, L2 strength ``1 / c``) over binary
    features; features seen in fewer than ``min_count`` training pairs are dropped. The intercept
    is folded into the ``bias`` feature's row, so prediction needs numpy only."""
    import scipy.sparse as sp
    from sklearn.linear_model import LogisticRegression

    counts = Counter(f for feats, _ in examples for f in set(feats))
    names = sorted(f for f, n in counts.items() if n >= min_count)
    if "bias" not in counts:
        names.append("bias")
    features = {f: k for k, f in enumerate(names)}
    indices: list[int] = []
    indptr = [0]
    for feats, _ in examples:
        indices.extend(sorted({features[f] for f in feats if f in features}))
        indptr.append(len(indices))
    x = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(examples), len(names)))
    y = np.array([CLASSES.index(cls) for _, cls in examples])
    clf = LogisticRegression(C=c, max_iter=max_iter)
    clf.fit(x, y)
    weights = np.zeros((len(names), len(CLASSES)), dtype=np.float64)
    for k, cls in enumerate(clf.classes_):
        weights[:, cls] = clf.coef_[k]
        weights[features["bias"], cls] += clf.intercept_[k]
    # drop features whose weights are all near zero (they only cost space)
    keep = np.abs(weights).max(axis=1) >= 1e-3
    keep[features["bias"]] = True
    kept = [n for n, k in zip(names, keep) if k]
    return RelationModel(list(CLASSES), {f: k for k, f in enumerate(kept)}, weights[keep].astype(np.float32), 0.0,
                         {"c": c, "min_count": min_count, "n_train_pairs": len(examples),
                          "n_train_relations": int((y > 0).sum())})


def predict_doc(model: RelationModel, doc: GoldDoc, ner: Sequence[Sequence[tuple[int, int, str]]]) -> list[list[Relation]]:
    """Relations per sentence as SciERC ``[s1, e1, s2, e2, LABEL]`` (end inclusive) from spans
    ``ner`` per sentence (end inclusive)."""
    lower = [w.lower() for w in doc.words]
    out: list[list[Relation]] = []
    for (start, end), spans in zip(_sentence_bounds(doc), ner):
        ents = [(s, e + 1, label) for s, e, label in spans]
        rels = predict_sentence(model, lower, start, end, ents)
        out.append([(h[0], h[1] - 1, t[0], t[1] - 1, label) for h, t, label, _ in rels])
    return out


def score_relations(docs: Sequence[GoldDoc], predicted: Sequence[Sequence[Sequence[Relation]]]) -> dict[str, Any]:
    """Micro and per-label P/R/F1 (both spans exact and label), as :func:`kg.evaluation.score_relations`."""
    from kg.evaluation import score_relations as score

    return score(docs, predicted)


def tune_threshold(model: RelationModel, docs: Sequence[GoldDoc], ner: Sequence[Any],
                   grid: Iterable[float] = np.arange(-2.0, 2.01, 0.25)) -> tuple[float, float]:
    """The ``NONE`` margin with the best micro F1 on ``docs`` given spans ``ner`` (per doc, per sentence)."""
    best = (0.0, -1.0)
    for t in grid:
        model.threshold = float(t)
        f = score_relations(docs, [predict_doc(model, d, n) for d, n in zip(docs, ner)])["f"]
        if f > best[1] + 1e-9:
            best = (float(t), f)
    model.threshold = best[0]
    return best


def predicted_ner(docs: Sequence[GoldDoc], ner_model: str | Path) -> list[list[list[tuple[int, int, str]]]]:
    """Spans per doc and sentence from a NER pipeline, run on the gold tokens (end inclusive)."""
    import spacy

    from kg.evaluation import predict

    nlp = spacy.load(ner_model)
    return predict(docs, nlp, "scierc")


def _report(name: str, scores: dict[str, Any]) -> None:
    per = "  ".join(f"{k} {100 * v['f']:.1f}" for k, v in scores["per_type"].items())
    print(f"{name}: P {100 * scores['p']:.1f} R {100 * scores['r']:.1f} F1 {100 * scores['f']:.1f}  |  {per}")


def train_relations(output: Path | None = MODEL_DIR, data_dir: Path | None = None, *,
                    ner_model: str | Path | None = None, tune_on: str = "gold", **options: Any) -> dict[str, Any]:
    """Train on SciERC train, tune the margin on dev, score dev, write the model to ``output``.

    tune_on: "gold" (dev with gold entities) or "ner" (dev with ``ner_model``'s spans).
    RETURNS (dict): ``gold`` and (with a NER) ``end_to_end`` scores, ``threshold``, ``seconds``.
    """
    data_dir = data_dir or default_data_dir()
    train_docs = list(read_scierc(data_dir / "scierc" / "train.json"))
    dev_docs = list(read_scierc(data_dir / "scierc" / "dev.json"))
    started = time.time()
    model = fit(build_examples(train_docs), **options)
    seconds = time.time() - started
    gold_ner = [[[(s, e, label) for s, e, label in spans] for spans in d.ner] for d in dev_docs]
    pred_ner = predicted_ner(dev_docs, ner_model) if ner_model else None
    tuned = tune_threshold(model, dev_docs, pred_ner if tune_on == "ner" and pred_ner else gold_ner)
    result: dict[str, Any] = {"threshold": tuned[0], "train_seconds": seconds,
                              "features": len(model.features)}
    result["gold"] = score_relations(dev_docs, [predict_doc(model, d, n) for d, n in zip(dev_docs, gold_ner)])
    _report("dev, gold entities", result["gold"])
    if pred_ner is not None:
        result["end_to_end"] = score_relations(dev_docs, [predict_doc(model, d, n) for d, n in zip(dev_docs, pred_ner)])
        _report(f"dev, end to end ({Path(str(ner_model)).name})", result["end_to_end"])
    ner_meta_path = Path(str(ner_model)) / "meta.json" if ner_model else None
    ner_meta = json.loads(ner_meta_path.read_text()) if ner_meta_path and ner_meta_path.exists() else {}
    model.meta = {**(model.meta or {}), "threshold_tuned_on": tune_on,
                  "ner": {"name": ner_meta.get("name"), "version": ner_meta.get("version"),
                          "dev_ents_f": (ner_meta.get("performance") or {}).get("ents_f")} if ner_model else None,
                  "dev_gold_f": round(result["gold"]["f"], 4),
                  "dev_end_to_end_f": round(result["end_to_end"]["f"], 4) if pred_ner is not None else None}
    if output is not None:
        model.to_disk(output)
        print(f"model -> {output} ({len(model.features)} features)")
    return result


def main(argv: Sequence[str] | None = None) -> None:
    from extractors.pipeline import shipped_model_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=MODEL_DIR)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--ner", default=None, help="NER pipeline for the end-to-end score (default: the shipped one)")
    parser.add_argument("--tune-on", choices=("gold", "ner"), default="ner")
    parser.add_argument("--c", type=float, default=1.0, help="inverse L2 strength")
    parser.add_argument("--min-count", type=int, default=1)
    args = parser.parse_args(argv)
    ner = args.ner or shipped_model_path()
    result = train_relations(args.output, args.data_dir, ner_model=ner, tune_on=args.tune_on,
                             c=args.c, min_count=args.min_count)
    print(json.dumps({k: v for k, v in result.items() if k not in ("gold", "end_to_end")}))


if __name__ == "__main__":
    main()
