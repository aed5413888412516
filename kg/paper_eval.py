"""Score a built graph against in-domain annotations (``data/annotations/``), paper by paper.

What a user sees is the graph, so the figure that matters is the paper level: for each paper, the set
of ``(label, entity)`` the graph links it to against the set the annotator wrote. Two entities match
when they share a label and one surface form, after kg's own key normaliser (case, dashes, plurals)
and markup removal: "Large Language Models (LLMs)" in the gold matches a graph entity whose mention in
that paper reads "LLMs". Matching is one to one, so a concept kg splits in two costs a false
positive and one it merges with another costs a miss. Roles are scored on the matched METHOD and
DATASET pairs: PROPOSES recall (of the proposed things the graph has, how many it marks proposed) and
precision.

Span level (exact start, end and label of each mention, on the normalised text kg reads) is
reported beside it, for the model's own sake.

``evaluate_annotations(path, nlp)`` builds the graph from the gold texts with the whole pipeline
(NER, rules, resolution, generic filters) and returns both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .annotations import GoldAbstract, load, project
from .corpus import normalise_abstract
from .gold import PRF
from .model import Paper
from .resolve import canonical_key
from .schema import ENTITY_LABELS, NODE_TO_LABEL, as_nx, paper_node_id

__all__ = [
    "Item",
    "gold_items",
    "graph_items",
    "match_items",
    "score_graph",
    "score_spans_gold",
    "gold_papers",
    "evaluate_annotations",
]

ROLE_LABELS = ("METHOD", "DATASET")


@dataclass(frozen=True)
class Item:
    """One (paper, label, entity) with the keys of every form it is written in and its role."""

    label: str
    name: str
    keys: frozenset[str]
    proposed: bool


def form_key(text: str) -> str:
    return canonical_key(normalise_abstract(text))


def gold_items(rec: GoldAbstract) -> list[Item]:
    out = []
    for ent in rec.entities:
        keys = {form_key(f) for f in [ent.name, *ent.surfaces(rec.text)]} - {""}
        out.append(Item(ent.label, ent.name, frozenset(keys), ent.role == "proposed"))
    return out


def graph_items(G: Any, paper_node: str) -> list[Item]:
    """The entities a paper node links to, with the forms its own mentions of them take."""
    forms: dict[str, set[str]] = defaultdict(set)
    abstract = G.nodes[paper_node].get("abstract", "")
    for start, end, _label, eid in G.nodes[paper_node].get("mentions", []):
        forms[eid].add(abstract[start:end])
    out = []
    seen: set[str] = set()
    for _, eid in G.out_edges(paper_node):
        node = G.nodes[eid]
        label = NODE_TO_LABEL.get(node.get("label"))
        if label is None or eid in seen:
            continue
        seen.add(eid)
        keys = {form_key(f) for f in [node.get("name", ""), *forms.get(eid, ())]} - {""}
        proposed = any(
            d.get("role") == "proposed" for d in G.get_edge_data(paper_node, eid).values()
        )
        out.append(Item(label, node.get("name", eid), frozenset(keys), proposed))
    return out


def match_items(pred: Sequence[Item], gold: Sequence[Item]) -> list[tuple[int, int]]:
    """One-to-one pairs (pred index, gold index) of the same label sharing a form key; the pairs
    sharing most keys first, then text order."""
    cands = []
    for i, p in enumerate(pred):
        for j, g in enumerate(gold):
            if p.label == g.label:
                shared = len(p.keys & g.keys)
                if shared:
                    cands.append((-shared, i, j))
    used_p: set[int] = set()
    used_g: set[int] = set()
    pairs = []
    for _, i, j in sorted(cands):
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        pairs.append((i, j))
    return pairs


def score_items(
    per_paper: Iterable[tuple[str, list[Item], list[Item]]], *, keep_errors: bool = False
) -> dict[str, Any]:
    """Paper-level P/R/F1 per label and micro, and the role figures, from (paper id, pred, gold)."""
    per_label = {label: PRF() for label in ENTITY_LABELS}
    role_tp = role_fp = role_fn = 0
    pred_proposed = 0
    errors: list[dict[str, Any]] = []
    for pid, pred, gold in per_paper:
        pairs = match_items(pred, gold)
        mp = {i for i, _ in pairs}
        mg = {j for _, j in pairs}
        for i, j in pairs:
            per_label[pred[i].label].tp += 1
            if pred[i].label in ROLE_LABELS:
                if pred[i].proposed and gold[j].proposed:
                    role_tp += 1
                elif pred[i].proposed:
                    role_fp += 1
                elif gold[j].proposed:
                    role_fn += 1
        for i, p in enumerate(pred):
            if i not in mp:
                per_label[p.label].fp += 1
            if p.proposed and p.label in ROLE_LABELS:
                pred_proposed += 1
        for j, g in enumerate(gold):
            if j not in mg:
                per_label[g.label].fn += 1
        if keep_errors:
            errors.append(
                {
                    "paper": pid,
                    "false_positives": [
                        (p.label, p.name) for i, p in enumerate(pred) if i not in mp
                    ],
                    "misses": [(g.label, g.name) for j, g in enumerate(gold) if j not in mg],
                }
            )
    micro = sum(per_label.values(), PRF())
    roles = PRF(role_tp, role_fp, role_fn)
    result: dict[str, Any] = {
        **micro.to_dict(),
        "per_type": {k: v.to_dict() for k, v in per_label.items()},
        "proposes": {
            "precision": roles.precision,  # of matched pairs kg marks proposed, gold says proposed
            "recall": roles.recall,  # of matched pairs gold says proposed, kg marks proposed
            "f": roles.fscore,
            "tp": role_tp,
            "fp": role_fp,
            "fn": role_fn,
            "predicted": pred_proposed,  # every METHOD/DATASET kg marks proposed, matched or not
            "precision_all": role_tp / pred_proposed if pred_proposed else 0.0,
        },
    }
    if keep_errors:
        result["errors"] = errors
    return result


def score_graph(
    G: Any, gold: Sequence[GoldAbstract], *, keep_errors: bool = False
) -> dict[str, Any]:
    """Paper-level scores of graph ``G`` (a ``networkx`` graph or a KnowledgeGraph) against ``gold``;
    a gold paper missing from the graph counts as finding nothing."""
    G = as_nx(G)
    rows = []
    for rec in gold:
        node = paper_node_id(rec.id)
        pred = graph_items(G, node) if node in G else []
        rows.append((rec.id, pred, gold_items(rec)))
    result = score_items(rows, keep_errors=keep_errors)
    result["papers"] = len(gold)
    return result


def gold_spans(rec: GoldAbstract) -> tuple[str, set[tuple[int, int, str]], int]:
    """The normalised text kg reads, the gold mentions on it, and how many could not be mapped."""
    norm = normalise_abstract(rec.text)
    spans = rec.spans()
    mapped = project(rec.text, norm, [(s, e) for s, e, _ in spans])
    out = {(m[0], m[1], label) for m, (_, _, label) in zip(mapped, spans) if m is not None}
    return norm, out, sum(m is None for m in mapped)


def score_spans_gold(
    pred: dict[str, set[tuple[int, int, str]]], gold: Sequence[GoldAbstract]
) -> dict[str, Any]:
    """Mention-level P/R/F1 (exact span and label) against the gold mentions, and ``unmapped``: the
    gold mentions that do not survive normalisation (so cannot be matched)."""
    per_label = {label: PRF() for label in ENTITY_LABELS}
    unmapped = 0
    for rec in gold:
        _, ref, lost = gold_spans(rec)
        unmapped += lost
        cand = pred.get(rec.id, set())
        for label in ENTITY_LABELS:
            per_label[label].score_set(
                {t for t in cand if t[2] == label}, {t for t in ref if t[2] == label}
            )
    micro = sum(per_label.values(), PRF())
    return {
        **micro.to_dict(),
        "per_type": {k: v.to_dict() for k, v in per_label.items()},
        "unmapped": unmapped,
    }


def gold_papers(gold: Sequence[GoldAbstract]) -> list[Paper]:
    """The gold abstracts as the papers ``kg build`` would read (normalised text, the gold ids)."""
    out = []
    for rec in gold:
        title = rec.extra.get("title")
        text = normalise_abstract(rec.text)
        out.append(
            Paper(id=rec.id, abstract=text, title=title, label=title or rec.id, source=rec.source)
        )
    return out


def evaluate_annotations(
    paths: Sequence[str | Path], nlp: Any, *, keep_errors: bool = False, related_k: int = 0
) -> dict[str, Any]:
    """Build the graph of the gold abstracts with ``nlp`` and score it at paper and span level."""
    import time

    from .build import build_from_papers

    gold = load(paths)
    spans: dict[str, set[tuple[int, int, str]]] = defaultdict(set)

    def keep(paper: Paper, mentions: list) -> None:
        spans[paper.id].update((m.start, m.end, m.label) for m in mentions)

    started = time.perf_counter()
    result = build_from_papers(gold_papers(gold), nlp, related_k=related_k, on_paper=keep)
    seconds = time.perf_counter() - started
    out = score_graph(result.graph, gold, keep_errors=keep_errors)
    span_scores = score_spans_gold(spans, gold)
    return {
        "gold": [str(p) for p in paths],
        "format": "annotations",
        "docs": len(gold),
        "seconds": seconds,
        "paper": out,
        "spans": span_scores,
        "unmapped_gold_mentions": span_scores.pop("unmapped"),
    }


def agreement(first: Sequence[GoldAbstract], second: Sequence[GoldAbstract]) -> dict[str, Any]:
    """Inter-annotator agreement on the abstracts both annotated: span F1 (exact start, end and
    label) and paper-level F1 with the same matching as :func:`score_graph` (F1 is symmetric, so
    which side is "gold" does not matter), and PROPOSES agreement on matched pairs."""
    by_id = {r.id: r for r in second}
    common = [r for r in first if r.id in by_id]
    spans = {label: PRF() for label in ENTITY_LABELS}
    rows = []
    for rec in common:
        other = by_id[rec.id]
        a, b = set(rec.spans()), set(other.spans())
        for label in ENTITY_LABELS:
            spans[label].score_set({t for t in a if t[2] == label}, {t for t in b if t[2] == label})
        rows.append((rec.id, gold_items(rec), gold_items(other)))
    micro = sum(spans.values(), PRF())
    return {
        "abstracts": len(common),
        "spans": {**micro.to_dict(), "per_type": {k: v.to_dict() for k, v in spans.items()}},
        "paper": score_items(rows),
    }
