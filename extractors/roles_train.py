"""Train ``kg_roles`` on the annotated roles: examples from the pipeline's own mentions.

The pipeline (NER and rules, without ``kg_roles``) reads each annotated abstract; each METHOD or
DATASET concept it finds that matches a gold entity (same label, one shared form key, as the
paper-level scorer matches) is an example, labelled with the gold role. A concept the gold does not
have is no example: the role model decides roles, not whether a thing exists.

The threshold is chosen on the dev split: the lowest probability whose PROPOSES precision on the
matched dev concepts is at least ``min_precision`` (0.9), so recall is as high as that allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kg.annotations import GoldAbstract, load
from kg.paper_eval import form_key, gold_items, gold_papers

from .mentions import MENTIONS_KEY
from .pipeline import TITLE_KEY, paper_doc
from .roles import MODEL_PATH, RoleModel, doc_concepts, fit_roles

__all__ = ["ROLE_C", "role_examples", "choose_threshold", "train_roles"]

#: Inverse regularisation strength of the role model: with the window words (thousands of sparse
#: features) 0.3 has the best average precision on the dev split (0.952; 0.1: 0.951, 1.0: 0.948).
ROLE_C = 0.3


def role_examples(nlp: Any, gold: Sequence[GoldAbstract]) -> list[tuple[list[str], bool]]:
    """``(features, gold says proposed)`` for every predicted concept that matches a gold entity."""
    disabled = [n for n in ("kg_roles", "kg_relations") if n in nlp.pipe_names]
    papers = gold_papers(gold)
    out: list[tuple[list[str], bool]] = []
    with nlp.select_pipes(disable=disabled):
        for rec, doc in zip(gold, nlp.pipe((paper_doc(nlp, p) for p in papers), batch_size=32)):
            records = doc.user_data.get(MENTIONS_KEY, [])
            items = [g for g in gold_items(rec) if g.label in ("METHOD", "DATASET")]
            for group, feats in doc_concepts(doc.text, records, doc.user_data.get(TITLE_KEY)):
                keys = {form_key(records[i]["text"]) for i in group}
                label = records[group[0]]["label"]
                match = next((g for g in items if g.label == label and keys & g.keys), None)
                if match is not None:
                    out.append((feats, match.proposed))
    return out


def choose_threshold(
    model: RoleModel, examples: Sequence[tuple[list[str], bool]], *, min_precision: float = 0.9
) -> tuple[float, dict[str, float]]:
    """The lowest threshold with precision >= ``min_precision`` on ``examples`` (else the most
    precise one), and the precision and recall there."""
    scored = sorted(((model.probability(f), y) for f, y in examples), reverse=True)
    positives = sum(y for _, y in scored) or 1
    best = (1.0, {"precision": 0.0, "recall": 0.0})
    tp = fp = 0
    top_precision = (0.0, 1.0)
    for k, (p, y) in enumerate(scored):
        tp += y
        fp += not y
        if k + 1 < len(scored) and scored[k + 1][0] == p:
            continue
        precision, recall = tp / (tp + fp), tp / positives
        if precision >= min_precision:
            best = (p, {"precision": precision, "recall": recall})
        if precision > top_precision[0]:
            top_precision = (precision, p)
    if best[1]["recall"] == 0.0:
        return top_precision[1], {"precision": top_precision[0], "recall": 0.0}
    return best


def train_roles(
    nlp: Any,
    train: Sequence[Path],
    dev: Sequence[Path],
    *,
    output: Path = MODEL_PATH,
    min_precision: float = 0.9,
    c: float = ROLE_C,
) -> dict[str, Any]:
    """Fit on ``train``, choose the threshold on ``dev``, write the model; returns the figures."""
    train_ex = role_examples(nlp, load(train))
    dev_ex = role_examples(nlp, load(dev))
    model = fit_roles(train_ex, c=c)
    threshold, at = choose_threshold(model, dev_ex, min_precision=min_precision)
    model.threshold = round(threshold, 4)
    model.meta.update(
        {
            "dev_examples": len(dev_ex),
            "dev_positives": sum(y for _, y in dev_ex),
            "dev_precision": round(at["precision"], 4),
            "dev_recall": round(at["recall"], 4),
            "min_precision": min_precision,
        }
    )
    model.to_disk(output)
    return {"output": str(output), **model.meta, "threshold": model.threshold}
