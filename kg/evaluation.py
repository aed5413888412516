"""Score a spaCy pipeline on a gold file (SciERC JSON lines, TDMSci CoNLL): ``kg eval`` on them.

``evaluate(gold_path, fmt, nlp)`` runs the pipeline on the gold tokens (:func:`kg.gold.predict`)
and returns a plain dict of entity (and, for SciERC, relation) scores; ``evaluate_model`` loads the
shipped pipeline first; ``write_predictions`` writes the JSON lines of ``--save-predictions``
(the format is in docs/cli.md). The gold readers and scores live in :mod:`kg.gold`, which training
shares; they are re-exported here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .atomic import atomic_open
from .gold import (
    FORMATS,
    PRF,
    SCIERC_LABELS,
    TDMSCI_LABELS,
    GoldDoc,
    Span,
    bio_to_spans,
    map_label,
    predict,
    read_conll,
    read_gold,
    read_scierc,
    relation_operating_point,
    score_ner,
    score_relations,
    score_spans,
    to_spacy_doc,
)

__all__ = [
    "FORMATS",
    "SCIERC_LABELS",
    "TDMSCI_LABELS",
    "GoldDoc",
    "PRF",
    "Span",
    "bio_to_spans",
    "read_gold",
    "read_scierc",
    "read_conll",
    "to_spacy_doc",
    "map_label",
    "predict",
    "score_spans",
    "score_ner",
    "score_relations",
    "relation_operating_point",
    "evaluate",
    "evaluate_model",
    "prediction_records",
    "write_predictions",
]


def evaluate(
    gold_path: str | Path,
    fmt: str,
    nlp: Any,
    *,
    spans_key: str | None = None,
    save_predictions: str | Path | None = None,
) -> dict[str, Any]:
    """Run ``nlp`` on a gold file and score its entities (exact span and label).

    RETURNS (dict): ``gold``, ``format``, ``docs``, ``tokens``, ``seconds``, ``tokens_per_second``,
        ``ents_p``/``ents_r``/``ents_f`` (micro, 0-1), ``ents_per_type`` and ``relations`` (``None``:
        the shipped pipeline predicts no relations yet).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown gold format {fmt!r}; use one of {', '.join(FORMATS)}")
    golds = read_gold(gold_path, fmt)
    started = time.perf_counter()
    predicted_relations: list[list[list[tuple[int, int, int, int, str]]]] | None = (
        [] if "kg_relations" in getattr(nlp, "pipe_names", ()) else None
    )
    relation_scores: dict[tuple[Any, ...], float] = {}
    predicted = predict(
        golds,
        nlp,
        fmt,
        spans_key=spans_key,
        relations=predicted_relations,
        relation_scores=relation_scores,
    )
    seconds = time.perf_counter() - started
    scores = score_ner(golds, predicted, SCIERC_LABELS if fmt == "scierc" else TDMSCI_LABELS)
    if save_predictions is not None:
        write_predictions(save_predictions, golds, predicted, fmt, relations=predicted_relations)
    n_tokens = sum(gold.n_tokens for gold in golds)
    return {
        "gold": str(gold_path),
        "format": fmt,
        "docs": len(golds),
        "tokens": n_tokens,
        "seconds": seconds,
        "tokens_per_second": n_tokens / seconds if seconds else 0.0,
        "ents_p": scores["p"],
        "ents_r": scores["r"],
        "ents_f": scores["f"],
        "ents_per_type": scores["per_type"],
        "relations": score_relations(golds, predicted_relations)
        if predicted_relations is not None and fmt == "scierc"
        else None,
        "relations_kept": _kept_relations(golds, predicted_relations, relation_scores, nlp)
        if predicted_relations is not None and fmt == "scierc"
        else None,
    }


def _kept_relations(
    golds: Sequence[GoldDoc],
    predicted: Sequence[Any],
    scores: dict[tuple[Any, ...], float],
    nlp: Any,
) -> dict[str, Any]:
    """Relations scored as the graph keeps them: only those kg_relations' cut-offs keep."""
    pipe = nlp.get_pipe("kg_relations")
    kept = [
        [[r for r in rels if pipe.keeps(r[4], scores.get((g.key, *r), 1.0))] for rels in doc]
        for g, doc in zip(golds, predicted)
    ]
    return {"cutoffs": pipe.cutoffs(), **score_relations(golds, kept)}


def prediction_records(
    golds: Sequence[GoldDoc],
    predicted: Sequence[list[list[Span]]],
    fmt: str,
    relations: Sequence[Sequence[Iterable[tuple[int, int, int, int, str]]]] | None = None,
) -> Iterator[dict[str, Any]]:
    """The ``--save-predictions`` records: ``doc_key`` (an int sentence index for CoNLL),
    ``sentences`` and ``predicted_ner`` per sentence as ``[start, end, label]`` (and, when
    ``relations`` are given, ``predicted_relations`` per sentence as ``[s1, e1, s2, e2, label]``)."""
    for n, (gold, doc_spans) in enumerate(zip(golds, predicted)):
        key: str | int = int(gold.key) if fmt == "conll" and gold.key.isdigit() else gold.key
        record = {
            "doc_key": key,
            "sentences": gold.sentences,
            "predicted_ner": [[[s, e, label] for s, e, label in spans] for spans in doc_spans],
        }
        if relations is not None:
            record["predicted_relations"] = [[list(r) for r in rels] for rels in relations[n]]
        yield record


def write_predictions(
    path: str | Path,
    golds: Sequence[GoldDoc],
    predicted: Sequence[list[list[Span]]],
    fmt: str,
    relations: Sequence[Sequence[Iterable[tuple[int, int, int, int, str]]]] | None = None,
) -> None:
    """Write one JSON object per document (see :func:`prediction_records`)."""
    with atomic_open(path) as handle:
        for record in prediction_records(golds, predicted, fmt, relations):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def evaluate_model(
    gold: Path,
    fmt: str = "scierc",
    *,
    save_predictions: Path | None = None,
    model: str | None = None,
) -> dict[str, Any]:
    """Load the shipped extractor (or ``model``) and score it on ``gold`` (:func:`evaluate`).

    The statistical pipeline is scored on ``doc.ents``; its rules are not added. On SciERC the
    shipped relation classifier is added with the pipeline's cut-offs, so relations are scored too.
    """
    from extractors.pipeline import load_pipeline, read_settings, shipped_model_path

    nlp = load_pipeline(model, rules=False)
    if not nlp.pipe_names:
        from kg.errors import ModelError

        raise ModelError(
            "no trained pipeline is shipped in extractors/models/sci_ner; run `kg train` or pass --model"
        )
    if fmt == "scierc" and "kg_relations" not in nlp.pipe_names:
        from extractors.relations import MODEL_DIR as RELATIONS_DIR

        if (RELATIONS_DIR / "model.json").exists():
            settings = read_settings(model if model is not None else shipped_model_path())
            cutoffs = (settings.get("relations") or {}).get("label_min_scores")
            nlp.add_pipe(
                "kg_relations", config={"label_min_scores": cutoffs} if cutoffs is not None else {}
            )
    return evaluate(gold, fmt, nlp, save_predictions=save_predictions)
