"""Train and score the relation classifier of :mod:`extractors.relations` on SciERC.

``kg train relations [--ner MODEL_DIR] [--output DIR] [--train-spans gold|ner|both]``

1. Candidates: every unordered, non-overlapping pair of entity spans in a SciERC train sentence,
   labelled with the gold relation between exactly those two spans (else ``NONE``). The spans are
   the gold entities (``--train-spans gold``, the default), the NER's predictions on the train
   tokens (``ner``), or both.
2. The decision rule is tuned on SciERC train only, by k-fold cross-validation over its documents
   (``--folds``, default 5): a classifier fitted on the other folds scores each held-out fold's
   candidates, the spans being the NER's predictions (``--tune-on cv-ner``, an end-to-end proxy)
   or the gold entities (``cv-gold``). A grid search then picks the ``NONE`` margin (and, with
   ``--label-bias``, one log-odds bias per relation label by coordinate search) for the best micro
   F1 over those out-of-fold predictions. Label biases are folded into the model's ``bias`` row,
   so prediction is unchanged.
3. The final model is fitted on all of train; SciERC dev is scored once, with gold entities and
   end to end with the NER's spans (both spans exact and the relation label).

The NER pipeline is a parameter (default: the shipped ``extractors/models/sci_ner``): retune with
the new one whenever it changes. ``--tune-on dev-ner`` / ``dev-gold`` tune on dev instead (the old
recipe; its dev figures are then optimistic).

The classifier is a multinomial logistic regression (training needs scikit-learn, the ``train``
extra; the shipped model needs numpy only); the data directory is found as ``kg train`` finds it
(``$KG_SHARED_DATA`` or ``shared/data`` beside the repository).
"""

from __future__ import annotations

import json
import logging
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
from kg.gold import GoldDoc, read_scierc

#: Progress and figures of a training run; ``kg train relations`` shows them on stderr.
log = logging.getLogger(__name__)

__all__ = [
    "CLASSES",
    "sentence_examples",
    "doc_examples",
    "build_examples",
    "fit",
    "logits",
    "count_scores",
    "tune_biases",
    "fold_label_biases",
    "crossval_logits",
    "span_coverage",
    "predict_doc",
    "score_relations",
    "tune_threshold",
    "train_relations",
    "choose_operating_point",
    "retrain_relations",
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


def sentence_examples(
    lower: Sequence[str],
    start: int,
    end: int,
    ents: Iterable[EntSpan],
    relations: Iterable[Relation],
) -> Iterator[tuple[list[str], str]]:
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


def doc_examples(
    docs: Iterable[GoldDoc], spans: Sequence[Any] | None = None
) -> list[list[tuple[list[str], str]]]:
    """Candidates per document: ``(features, class)`` for each pair of ``spans`` (per doc, per
    sentence, ``(start, end, label)`` end inclusive; None: the gold entities), labelled with the
    gold relations."""
    out: list[list[tuple[list[str], str]]] = []
    for n, doc in enumerate(docs):
        lower = [w.lower() for w in doc.words]
        rels = doc.relations or [[] for _ in doc.sentences]
        ner = doc.ner if spans is None else spans[n]
        examples: list[tuple[list[str], str]] = []
        for (start, end), sent_spans, rel in zip(_sentence_bounds(doc), ner, rels):
            ents = [(s, e + 1, label) for s, e, label in sent_spans]
            examples.extend(sentence_examples(lower, start, end, ents, rel))
        out.append(examples)
    return out


def build_examples(
    docs: Iterable[GoldDoc], spans: Sequence[Any] | None = None
) -> list[tuple[list[str], str]]:
    """Training examples from gold relations over the gold entities (or ``spans``, see :func:`doc_examples`)."""
    return [example for examples in doc_examples(docs, spans) for example in examples]


def _matrix(examples: Sequence[tuple[list[str], str]], features: dict[str, int]) -> Any:
    """Binary CSR matrix of the examples' known features."""
    import scipy.sparse as sp

    indices: list[int] = []
    indptr = [0]
    for feats, _ in examples:
        indices.extend(sorted({features[f] for f in feats if f in features}))
        indptr.append(len(indices))
    return sp.csr_matrix(
        (np.ones(len(indices), dtype=np.float32), indices, indptr),
        shape=(len(examples), len(features)),
    )


def fit(
    examples: Sequence[tuple[list[str], str]],
    *,
    c: float = 1.0,
    min_count: int = 2,
    max_iter: int = 3000,
    tol: float = 1e-3,
) -> RelationModel:
    """Multinomial logistic regression (scikit-learn's L-BFGS, L2 strength ``1 / c``) over binary
    features; features seen in fewer than ``min_count`` training pairs are dropped. The intercept
    is folded into the ``bias`` feature's row, so prediction needs numpy only."""
    from sklearn.linear_model import LogisticRegression

    counts = Counter(f for feats, _ in examples for f in set(feats))
    names = sorted(f for f, n in counts.items() if n >= min_count)
    if "bias" not in names:
        names.append("bias")
    features = {f: k for k, f in enumerate(names)}
    x = _matrix(examples, features)
    y = np.array([CLASSES.index(cls) for _, cls in examples])
    clf = LogisticRegression(C=c, max_iter=max_iter, tol=tol)
    clf.fit(x, y)
    weights = np.zeros((len(names), len(CLASSES)), dtype=np.float64)
    coef, intercept = clf.coef_, clf.intercept_
    if len(clf.classes_) == 2:  # one logit for the second class: split it as a two-class softmax
        coef, intercept = (
            np.vstack([-coef / 2, coef / 2]),
            np.array([-intercept[0] / 2, intercept[0] / 2]),
        )
    for k, cls in enumerate(clf.classes_):
        weights[:, cls] = coef[k]
        weights[features["bias"], cls] += intercept[k]
    # drop features whose weights are all near zero (they only cost space)
    keep = np.abs(weights).max(axis=1) >= 1e-3
    keep[features["bias"]] = True
    kept = [n for n, k in zip(names, keep) if k]
    return RelationModel(
        list(CLASSES),
        {f: k for k, f in enumerate(kept)},
        weights[keep].astype(np.float32),
        0.0,
        {
            "c": c,
            "min_count": min_count,
            "n_train_pairs": len(examples),
            "n_train_relations": int((y > 0).sum()),
        },
    )


def logits(model: RelationModel, examples: Sequence[tuple[list[str], str]]) -> np.ndarray:
    """Class scores ``(len(examples), n_classes)`` before the ``NONE`` margin: their argmax plus
    biases is the model's decision (softmax does not move it)."""
    if not examples:
        return np.zeros((0, len(model.classes)))
    return np.asarray(_matrix(examples, model.features) @ model.weights.astype(np.float64))


def _label_of_class() -> np.ndarray:
    """Class index -> relation label index (-1 for NONE)."""
    return np.array([-1] + [k for k in range(len(RELATION_LABELS)) for _ in (">", "<")])


def count_scores(
    gold: np.ndarray, scores: np.ndarray, n_gold: np.ndarray, bias: np.ndarray
) -> tuple[float, np.ndarray]:
    """Micro F1 and per-label ``(tp, fp)`` of ``argmax(scores + bias)`` against candidate classes
    ``gold`` (indices into :data:`CLASSES`); ``n_gold`` counts every gold relation per label,
    including those no candidate pair can find.

    >>> gold = np.array([1, 0, 0])
    >>> scores = np.array([[0.0, 1.0] + [0.0] * 13, [0.0, 1.0] + [0.0] * 13, [1.0] + [0.0] * 14])
    >>> f, _ = count_scores(gold, scores, np.array([2, 0, 0, 0, 0, 0, 0]), np.zeros(15))
    >>> round(f, 3)  # one of two gold found, one of two predictions right
    0.5
    """
    of = _label_of_class()
    pred = (scores + bias).argmax(axis=1)
    positive = pred > 0
    tp_mask = positive & (pred == gold)
    counts = np.zeros((len(RELATION_LABELS), 2), dtype=np.int64)
    np.add.at(counts[:, 0], of[pred[tp_mask]], 1)
    np.add.at(counts[:, 1], of[pred[positive & ~tp_mask]], 1)
    tp, fp, fn = counts[:, 0].sum(), counts[:, 1].sum(), n_gold.sum() - counts[:, 0].sum()
    f = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return float(f), counts


def _bias_vector(margin: float, label_bias: Sequence[float]) -> np.ndarray:
    return np.array([margin] + [b for b in label_bias for _ in (">", "<")], dtype=np.float64)


def tune_biases(
    gold: np.ndarray,
    scores: np.ndarray,
    n_gold: np.ndarray,
    *,
    per_label: bool = True,
    margins: Iterable[float] = np.arange(-3.0, 1.01, 0.25),
    grid: Iterable[float] = np.arange(-1.5, 1.51, 0.25),
    passes: int = 2,
) -> tuple[float, list[float], float]:
    """The ``NONE`` margin and (``per_label``) one bias per relation label that maximise the micro F1
    of :func:`count_scores`, by coordinate search (margin, then each label in turn, ``passes`` times).

    RETURNS (tuple): ``(margin, label_biases, f1)``.
    """
    margins, grid = [float(m) for m in margins], [float(b) for b in grid]
    margin, biases = 0.0, [0.0] * len(RELATION_LABELS)
    best = -1.0
    for _ in range(passes if per_label else 1):
        for m in margins:
            f, _counts = count_scores(gold, scores, n_gold, _bias_vector(m, biases))
            if f > best + 1e-9:
                best, margin = f, m
        if not per_label:
            break
        for k in range(len(RELATION_LABELS)):
            for b in grid:
                trial = biases[:k] + [b] + biases[k + 1 :]
                f, _counts = count_scores(gold, scores, n_gold, _bias_vector(margin, trial))
                if f > best + 1e-9:
                    best, biases = f, trial
    return margin, biases, best


def fold_label_biases(
    model: RelationModel, margin: float, label_bias: Sequence[float]
) -> RelationModel:
    """Set the ``NONE`` margin and add each label's bias to both its directions' ``bias`` weights."""
    model.threshold = float(margin)
    row = model.features["bias"]
    for k, b in enumerate(label_bias):
        for d in (">", "<"):
            model.weights[row, model.classes.index(f"{RELATION_LABELS[k]}{d}")] += np.float32(b)
    return model


def _gold_counts(docs: Sequence[GoldDoc]) -> np.ndarray:
    """Distinct gold relations per label (as :func:`kg.gold.score_relations` counts them)."""
    gold = {(d.key, tuple(r[:4]), r[4]) for d in docs for rels in d.relations for r in rels}
    return np.array([sum(1 for *_x, label in gold if label == name) for name in RELATION_LABELS])


def crossval_logits(
    train: Sequence[list[tuple[list[str], str]]],
    held: Sequence[list[tuple[list[str], str]]],
    folds: int = 5,
    **options: Any,
) -> list[np.ndarray]:
    """Out-of-fold scores: for each fold of documents (every ``folds``-th one), a model fitted on the
    ``train`` candidates of the other documents scores that fold's ``held`` candidates; per document."""
    out: list[np.ndarray] = [np.zeros((0, len(CLASSES)))] * len(held)
    for f in range(folds):
        model = fit(
            [ex for n, examples in enumerate(train) if n % folds != f for ex in examples], **options
        )
        for n in range(f, len(held), folds):
            out[n] = logits(model, held[n])
    return out


def span_coverage(docs: Sequence[GoldDoc], spans: Sequence[Any]) -> tuple[int, int]:
    """``(found, total)``: how many gold relations have both spans among ``spans`` (per doc, per
    sentence, end inclusive), the most any relation model over those spans can find.

    >>> from kg.gold import GoldDoc
    >>> doc = GoldDoc("d", [["a", "b", "c"]], [[(0, 0, "Method"), (2, 2, "Task")]], [[(0, 0, 2, 2, "USED-FOR")]])
    >>> span_coverage([doc], [[[(0, 0, "Method"), (1, 2, "Task")]]])
    (0, 1)
    """
    found = total = 0
    for doc, doc_spans in zip(docs, spans):
        predicted = {(s, e) for sentence in doc_spans for s, e, _label in sentence}
        for rels in doc.relations:
            for s1, e1, s2, e2, _label in rels:
                total += 1
                found += (s1, e1) in predicted and (s2, e2) in predicted
    return found, total


def predict_doc(
    model: RelationModel, doc: GoldDoc, ner: Sequence[Sequence[tuple[int, int, str]]]
) -> list[list[Relation]]:
    """Relations per sentence as SciERC ``[s1, e1, s2, e2, LABEL]`` (end inclusive) from spans
    ``ner`` per sentence (end inclusive)."""
    lower = [w.lower() for w in doc.words]
    out: list[list[Relation]] = []
    for (start, end), spans in zip(_sentence_bounds(doc), ner):
        ents = [(s, e + 1, label) for s, e, label in spans]
        rels = predict_sentence(model, lower, start, end, ents)
        out.append([(h[0], h[1] - 1, t[0], t[1] - 1, label) for h, t, label, _ in rels])
    return out


def score_relations(
    docs: Sequence[GoldDoc], predicted: Sequence[Sequence[Sequence[Relation]]]
) -> dict[str, Any]:
    """Micro and per-label P/R/F1 (both spans exact and label), as :func:`kg.gold.score_relations`."""
    from kg.gold import score_relations as score

    return score(docs, predicted)


def tune_threshold(
    model: RelationModel,
    docs: Sequence[GoldDoc],
    ner: Sequence[Any],
    grid: Iterable[float] = np.arange(-2.0, 2.01, 0.25),
) -> tuple[float, float]:
    """The ``NONE`` margin with the best micro F1 on ``docs`` given spans ``ner`` (per doc, per sentence)."""
    best = (0.0, -1.0)
    for t in grid:
        model.threshold = float(t)
        f = score_relations(docs, [predict_doc(model, d, n) for d, n in zip(docs, ner)])["f"]
        if f > best[1] + 1e-9:
            best = (float(t), f)
    model.threshold = best[0]
    return best


def predicted_ner(
    docs: Sequence[GoldDoc], ner_model: str | Path
) -> list[list[list[tuple[int, int, str]]]]:
    """Spans per doc and sentence from a NER pipeline, run on the gold tokens (end inclusive)."""
    import spacy

    from kg.gold import predict

    nlp = spacy.load(ner_model)
    return predict(docs, nlp, "scierc")


def _report(name: str, scores: dict[str, Any]) -> None:
    per = "  ".join(f"{k} {100 * v['f']:.1f}" for k, v in scores["per_type"].items())
    log.info(
        "%s: P %.1f R %.1f F1 %.1f  |  %s",
        name,
        100 * scores["p"],
        100 * scores["r"],
        100 * scores["f"],
        per,
    )


def _round(scores: dict[str, Any]) -> dict[str, Any]:
    return {
        "p": round(scores["p"], 4),
        "r": round(scores["r"], 4),
        "f": round(scores["f"], 4),
        "per_type": {k: round(v["f"], 4) for k, v in scores["per_type"].items()},
    }


def train_relations(
    output: Path | None = MODEL_DIR,
    data_dir: Path | None = None,
    *,
    ner_model: str | Path | None = None,
    tune_on: str = "cv-ner",
    train_spans: str = "gold",
    folds: int = 5,
    label_bias: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Train on SciERC train, tune the decision rule (see the module notes), score dev once, write
    the model to ``output``.

    ner_model: the NER pipeline whose spans are tuned for and scored end to end (required for
        ``train_spans`` other than "gold" and ``tune_on`` "cv-ner" / "dev-ner").
    tune_on: "cv-ner" / "cv-gold" (out-of-fold on train, NER or gold spans), "dev-ner" / "dev-gold".
    train_spans: "gold", "ner" or "both": which spans of train make the candidate pairs.
    label_bias: tune one bias per relation label besides the ``NONE`` margin.
    RETURNS (dict): ``gold`` and (with a NER) ``end_to_end`` dev scores, ``margin``, ``label_bias``,
        ``tuned_f`` (the tuning objective), ``seconds``.
    """
    if ner_model is None and (train_spans != "gold" or tune_on.endswith("-ner")):
        raise ValueError(f"train_spans={train_spans!r} / tune_on={tune_on!r} need a NER model")
    data_dir = data_dir or default_data_dir()
    train_docs = list(read_scierc(data_dir / "scierc" / "train.json"))
    dev_docs = list(read_scierc(data_dir / "scierc" / "dev.json"))
    started = time.time()
    train_ner = predicted_ner(train_docs, ner_model) if ner_model else None
    dev_ner = predicted_ner(dev_docs, ner_model) if ner_model else None
    gold_examples = doc_examples(train_docs)
    ner_examples = doc_examples(train_docs, train_ner) if train_ner is not None else None
    if train_spans != "gold" and ner_examples is None:
        raise ValueError(f"train_spans={train_spans!r} needs a NER model")
    if train_spans == "gold" or ner_examples is None:
        examples = gold_examples
    elif train_spans == "ner":
        examples = ner_examples
    else:
        examples = [g + p for g, p in zip(gold_examples, ner_examples)]
    margin, biases, tuned_f = 0.0, [0.0] * len(RELATION_LABELS), None
    if tune_on.startswith("cv-"):
        held = ner_examples if tune_on == "cv-ner" and ner_examples is not None else gold_examples
        scores = np.vstack(crossval_logits(examples, held, folds, **options))
        gold = np.array([CLASSES.index(cls) for doc in held for _, cls in doc])
        margin, biases, tuned_f = tune_biases(
            gold, scores, _gold_counts(train_docs), per_label=label_bias
        )
        log.info(
            "%d-fold CV on train (%s spans): F1 %.1f at NONE margin %+.2f%s",
            folds,
            tune_on[3:],
            100 * tuned_f,
            margin,
            (
                ", label biases "
                + " ".join(f"{lab} {b:+.2f}" for lab, b in zip(RELATION_LABELS, biases))
                if label_bias
                else ""
            ),
        )
    model = fit([ex for doc in examples for ex in doc], **options)
    if tune_on.startswith("dev-"):
        spans = dev_ner if tune_on == "dev-ner" else [list(d.ner) for d in dev_docs]
        held = doc_examples(dev_docs, spans)
        scores = np.vstack([logits(model, h) for h in held])
        gold = np.array([CLASSES.index(cls) for doc in held for _, cls in doc])
        margin, biases, tuned_f = tune_biases(
            gold, scores, _gold_counts(dev_docs), per_label=label_bias
        )
    fold_label_biases(model, margin, biases)
    seconds = time.time() - started
    result: dict[str, Any] = {
        "margin": margin,
        "label_bias": dict(zip(RELATION_LABELS, biases)),
        "tuned_f": tuned_f,
        "train_seconds": round(seconds, 1),
        "features": len(model.features),
    }
    result["gold"] = score_relations(
        dev_docs, [predict_doc(model, d, list(d.ner)) for d in dev_docs]
    )
    _report("dev, gold entities", result["gold"])
    if dev_ner is not None:
        result["end_to_end"] = score_relations(
            dev_docs, [predict_doc(model, d, n) for d, n in zip(dev_docs, dev_ner)]
        )
        _report(f"dev, end to end ({Path(str(ner_model)).name})", result["end_to_end"])
        found, total = span_coverage(dev_docs, dev_ner)
        result["dev_span_coverage"] = round(found / total, 4) if total else None
        log.info(
            "dev, both spans of %d/%d gold relations predicted by the NER: end-to-end F1 at most %.1f "
            "(a perfect relation model)",
            found,
            total,
            100 * 2 * found / (found + total),
        )
    ner_meta_path = Path(str(ner_model)) / "meta.json" if ner_model else None
    ner_meta = (
        json.loads(ner_meta_path.read_text()) if ner_meta_path and ner_meta_path.exists() else {}
    )
    model.meta = {
        **(model.meta or {}),
        "train_spans": train_spans,
        "tuned_on": tune_on,
        "folds": folds,
        "none_margin": margin,
        "label_bias": result["label_bias"],
        "tuned_f": round(tuned_f, 4) if tuned_f is not None else None,
        "ner": {
            "name": ner_meta.get("name"),
            "version": ner_meta.get("version"),
            "dev_ents_f": (ner_meta.get("performance") or {}).get("ents_f"),
        }
        if ner_model
        else None,
        "dev_gold": _round(result["gold"]),
        "dev_end_to_end": _round(result["end_to_end"]) if dev_ner is not None else None,
        "dev_span_coverage": result.get("dev_span_coverage"),
    }
    if output is not None:
        model.to_disk(output)
        log.info("model -> %s (%d features)", output, len(model.features))
    return result


def choose_operating_point(
    ner_model: str | Path | None = None,
    model_dir: Path = MODEL_DIR,
    data_dir: Path | None = None,
    *,
    min_precision: float = 0.7,
) -> dict[str, Any]:
    """Per relation label, the least probability the graph keeps: the lowest at which that label's
    relations on SciERC dev, end to end with ``ner_model``'s spans, are ``min_precision`` precise
    (only the labels that become graph edges count: FEATURE-OF and CONJUNCTION never do)
    (:func:`kg.gold.relation_operating_point`). A wrong edge misleads a reader more than a
    missing one; the result says what recall that costs.

    RETURNS (dict): ``label_min_scores`` and the kept dev relations' ``p``, ``r``, ``f``, ``kept``.
    """
    from extractors.pipeline import load_pipeline
    from kg.gold import predict, relation_operating_point

    data_dir = data_dir or default_data_dir()
    docs = list(read_scierc(data_dir / "scierc" / "dev.json"))
    nlp = load_pipeline(ner_model, rules=False)
    nlp.add_pipe("kg_relations", config={"model_path": str(model_dir), "min_score": 0.0})
    scores: dict[tuple[Any, ...], float] = {}
    predict(docs, nlp, "scierc", relations=[], relation_scores=scores)
    from kg.schema import GRAPH_RELATION_LABELS

    point = relation_operating_point(
        docs, scores, min_precision=min_precision, labels=GRAPH_RELATION_LABELS
    )
    point["min_precision"] = min_precision
    log.info(
        "operating point %s: keeps %d SciERC dev relations, P %.1f R %.1f F1 %.1f",
        point["label_min_scores"],
        point["kept"],
        100 * point["p"],
        100 * point["r"],
        100 * point["f"],
    )
    return point


def retrain_relations(
    ner: str | Path | None = None,
    output: Path = MODEL_DIR,
    data_dir: Path | None = None,
    *,
    train_spans: str = "gold",
    tune_on: str = "cv-ner",
    folds: int = 5,
    label_bias: bool = False,
    c: float = 1.0,
    min_count: int = 2,
    min_precision: float = 0.7,
    cutoffs_only: bool = False,
) -> dict[str, Any]:
    """``kg train relations``: train the classifier for ``ner``'s spans (default: the shipped NER)
    into ``output`` (:func:`train_relations`), then choose its cut-offs for ``min_precision``
    (:func:`choose_operating_point`) and write them to the NER pipeline's ``kg.json``.

    cutoffs_only: keep the model in ``output`` and only choose the cut-offs again.
    RETURNS (dict): the training figures (without the per-label dev tables) and ``operating_point``.
    """
    from extractors.pipeline import shipped_model_path, update_settings

    ner = ner or shipped_model_path()
    if ner is None:
        from kg.errors import ModelError

        raise ModelError("no trained NER is shipped in extractors/models/sci_ner; pass --ner")
    result: dict[str, Any] = {}
    if not cutoffs_only:
        trained = train_relations(
            output,
            data_dir,
            ner_model=ner,
            tune_on=tune_on,
            train_spans=train_spans,
            folds=folds,
            label_bias=label_bias,
            c=c,
            min_count=min_count,
        )
        result = {k: v for k, v in trained.items() if k not in ("gold", "end_to_end")}
    result["operating_point"] = choose_operating_point(
        ner, output, data_dir, min_precision=min_precision
    )
    update_settings(Path(ner), relations=result["operating_point"])
    return result
