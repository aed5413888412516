"""Score an extractor against gold files (SciERC JSON lines, TDMSci CoNLL), as DESIGN.md's contract says.

Three plain layers, each usable without the others:

- gold readers: ``read_scierc(path)`` and ``read_conll(path)`` return :class:`GoldDoc` records
  (tokens per sentence, spans as ``(start, end, label)`` with document-level token indices, end
  inclusive, in the file's own label vocabulary);
- scoring: :class:`PRF` counts true and false positives and negatives over sets of
  ``(doc, start, end, label)`` tuples; ``score_spans(pred, gold)`` gives per-label and micro figures;
- running: ``predict(docs, nlp, fmt)`` runs a spaCy pipeline on the gold tokens and maps its labels
  back to the gold vocabulary; ``evaluate(gold_path, fmt, nlp)`` does it all and returns a plain dict;
  ``write_predictions(path, docs, predicted)`` writes the JSON lines of ``--save-predictions``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from extractors.relations import RELATION_LABELS
from kg.atomic import atomic_open
from kg.errors import CorpusError

__all__ = [
    "FORMATS",
    "SCIERC_LABELS",
    "TDMSCI_LABELS",
    "GoldDoc",
    "PRF",
    "read_gold",
    "read_scierc",
    "read_conll",
    "to_spacy_doc",
    "map_label",
    "predict",
    "score_spans",
    "score_relations",
    "prf_table",
    "evaluate",
    "prediction_records",
    "write_predictions",
]

FORMATS: tuple[str, ...] = ("scierc", "conll")
SCIERC_LABELS: tuple[str, ...] = (
    "Task",
    "Method",
    "Metric",
    "Material",
    "OtherScientificTerm",
    "Generic",
)
TDMSCI_LABELS: tuple[str, ...] = ("TASK", "DATASET", "METRIC")

#: Model label -> gold label, per gold format. A label missing here is not scored (dropped).
#: The model speaks SciERC's six labels plus DATASET; the product's upper-case labels are accepted too.
_LABEL_MAPS: dict[str, dict[str, str]] = {
    "scierc": {
        **{label: label for label in SCIERC_LABELS},
        "DATASET": "Material",
        "METHOD": "Method",
        "TASK": "Task",
        "METRIC": "Metric",
    },
    "conll": {
        "Task": "TASK",
        "TASK": "TASK",
        "Metric": "METRIC",
        "METRIC": "METRIC",
        "DATASET": "DATASET",
    },
}

Span = tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class GoldDoc:
    """One gold document.

    Attributes:
        key: SciERC's ``doc_key``, or the sentence index (as a string) for CoNLL.
        sentences: the gold tokens, one list per sentence.
        ner: gold spans per sentence, ``(start, end, label)``, document-level token indices, end inclusive.
        relations: gold relations per sentence, ``(s1, e1, s2, e2, label)`` (SciERC only).
        clusters: gold coreference clusters, each a list of ``(start, end)`` spans (SciERC only).
    """

    key: str
    sentences: list[list[str]]
    ner: list[list[Span]]
    relations: list[list[tuple[int, int, int, int, str]]] = field(default_factory=list)
    clusters: list[list[tuple[int, int]]] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        """All tokens of the document, in order."""
        return [word for sentence in self.sentences for word in sentence]

    @property
    def n_tokens(self) -> int:
        return sum(len(sentence) for sentence in self.sentences)


class PRF:
    """Precision, recall and F1 from counts of true positives, false positives and false negatives."""

    __slots__ = ("tp", "fp", "fn")

    def __init__(self, tp: int = 0, fp: int = 0, fn: int = 0):
        self.tp = tp
        self.fp = fp
        self.fn = fn

    def score_set(self, cand: Iterable[Any], gold: Iterable[Any]) -> None:
        """Add the counts of one comparison of a candidate set with a gold set."""
        cand, gold = set(cand), set(gold)
        self.tp += len(cand & gold)
        self.fp += len(cand - gold)
        self.fn += len(gold - cand)

    def __add__(self, other: PRF) -> PRF:
        return PRF(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def fscore(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {
            "p": self.precision,
            "r": self.recall,
            "f": self.fscore,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }

    def __repr__(self) -> str:
        return f"PRF(tp={self.tp}, fp={self.fp}, fn={self.fn})"


# --------------------------------------------------------------------------------------------------
# gold readers


def read_gold(path: str | Path, fmt: str) -> list[GoldDoc]:
    """Read a gold file in ``fmt`` ("scierc" or "conll")."""
    if fmt == "scierc":
        return list(read_scierc(path))
    if fmt == "conll":
        return list(read_conll(path))
    raise ValueError(f"unknown gold format {fmt!r}; use one of {', '.join(FORMATS)}")


def _open_lines(path: str | Path) -> Iterator[str]:
    path = Path(path)
    try:
        with path.open(encoding="utf-8") as handle:
            yield from handle
    except OSError as err:
        raise CorpusError(f"{path}: cannot read gold file ({err.strerror or err})") from err


def read_scierc(path: str | Path) -> Iterator[GoldDoc]:
    """Read SciERC JSON lines: ``doc_key``, ``sentences``, ``ner`` (and ``relations``) per sentence.

    RETURNS (Iterator[GoldDoc]): one record per line; blank lines are skipped.
    """
    for number, line in enumerate(_open_lines(path), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            sentences = [list(map(str, sentence)) for sentence in record["sentences"]]
            ner = [
                [(int(s), int(e), str(label)) for s, e, label in spans]
                for spans in record.get("ner", [[] for _ in sentences])
            ]
            relations = [
                [(int(a), int(b), int(c), int(d), str(label)) for a, b, c, d, label in rels]
                for rels in record.get("relations", [])
            ]
            clusters = [[(int(s), int(e)) for s, e in cluster] for cluster in record.get("clusters", [])]
        except (ValueError, KeyError, TypeError) as err:
            raise CorpusError(f"{path}:{number}: not a SciERC record ({err})") from err
        if len(ner) != len(sentences):
            raise CorpusError(f"{path}:{number}: {len(sentences)} sentences but {len(ner)} ner lists")
        yield GoldDoc(str(record.get("doc_key", number - 1)), sentences, ner, relations, clusters)


def bio_to_spans(tags: Sequence[str], offset: int = 0) -> list[Span]:
    """Spans ``(start, end, label)`` (end inclusive) from BIO (or IOB1) tags; a stray I- opens a span."""
    spans: list[Span] = []
    start, label = None, None
    for i, tag in enumerate([*tags, "O"]):
        prefix, _, kind = tag.partition("-")
        continues = prefix == "I" and label == kind and start is not None
        if start is not None and not continues:
            spans.append((start + offset, i - 1 + offset, label))
            start, label = None, None
        if prefix in ("B", "I") and not continues:
            start, label = i, kind
    return spans


def read_conll(path: str | Path) -> Iterator[GoldDoc]:
    """Read CoNLL: one token per line, ``token<TAB>...<TAB>BIO-tag`` (tag last), blank line between sentences.

    Each sentence is one :class:`GoldDoc` keyed by its index (0-based, as a string).
    """
    words: list[str] = []
    tags: list[str] = []
    index = 0
    for number, line in enumerate([*_open_lines(path), ""], start=1):
        line = line.rstrip("\n")
        if not line.strip():
            if words:
                yield GoldDoc(str(index), [words], [bio_to_spans(tags)])
                index += 1
                words, tags = [], []
            continue
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) < 2:
            raise CorpusError(f"{path}:{number}: expected 'token<TAB>...<TAB>tag', got {line!r}")
        words.append(parts[0])
        tags.append(parts[-1])


# --------------------------------------------------------------------------------------------------
# running a pipeline on gold tokens


def to_spacy_doc(vocab: Any, gold: GoldDoc) -> Any:
    """A spaCy ``Doc`` over the gold tokens (one space after each), sentence starts set from the gold."""
    from spacy.tokens import Doc

    words = gold.words
    sent_starts: list[bool] = []
    for sentence in gold.sentences:
        sent_starts.extend([True] + [False] * (len(sentence) - 1))
    spaces = [True] * len(words)
    if spaces:
        spaces[-1] = False
    return Doc(vocab, words=words, spaces=spaces, sent_starts=sent_starts)


def map_label(label: str, fmt: str) -> str | None:
    """The gold-vocabulary label for a model label, or ``None`` when ``fmt`` does not score it."""
    return _LABEL_MAPS[fmt].get(label)


def _doc_spans(doc: Any, spans_key: str | None) -> list[Any]:
    if spans_key is not None:
        return list(doc.spans[spans_key]) if spans_key in doc.spans else []
    return list(doc.ents)


def predict(
    golds: Sequence[GoldDoc],
    nlp: Any,
    fmt: str,
    *,
    spans_key: str | None = None,
    batch_size: int = 64,
    relations: list[list[list[tuple[int, int, int, int, str]]]] | None = None,
    relation_scores: dict[tuple[Any, ...], float] | None = None,
) -> list[list[list[Span]]]:
    """Run ``nlp`` on each gold document's own tokens.

    spans_key (str | None): read ``doc.spans[spans_key]`` instead of ``doc.ents``.
    relations (list | None): when given, receives per document, per gold sentence, the relations
        the pipeline's ``kg_relations`` wrote, as ``(s1, e1, s2, e2, label)`` (end inclusive; a
        relation is kept in the sentence where its first span starts).
    relation_scores (dict | None): when given, receives each of those relations' probability, keyed
        ``(doc key, s1, e1, s2, e2, label)``.
    RETURNS (list): per document, per gold sentence, the predicted ``(start, end, label)`` spans
        (document-level, end inclusive, gold vocabulary). A span crossing a sentence boundary is kept
        in the sentence where it starts.
    """
    docs = (to_spacy_doc(nlp.vocab, gold) for gold in golds)
    out: list[list[list[Span]]] = []
    for gold, doc in zip(golds, nlp.pipe(docs, batch_size=batch_size)):
        bounds: list[int] = []
        start = 0
        for sentence in gold.sentences:
            start += len(sentence)
            bounds.append(start)
        per_sentence: list[set[Span]] = [set() for _ in gold.sentences]
        for span in _doc_spans(doc, spans_key):
            label = map_label(span.label_, fmt)
            if label is None or not per_sentence:
                continue
            i = next(k for k, end in enumerate(bounds) if span.start < end)
            per_sentence[i].add((span.start, span.end - 1, label))
        out.append([sorted(spans) for spans in per_sentence])
        if relations is not None:
            per_sentence_rels: list[set[tuple[int, int, int, int, str]]] = [set() for _ in gold.sentences]
            for hs, he, ts, te, rel_label, *rest in doc.user_data.get("kg_span_relations", []):
                if per_sentence_rels:
                    i = next((k for k, end in enumerate(bounds) if min(hs, ts) < end), len(bounds) - 1)
                    per_sentence_rels[i].add((hs, he - 1, ts, te - 1, rel_label))
                    if relation_scores is not None:
                        relation_scores[(gold.key, hs, he - 1, ts, te - 1, rel_label)] = float(rest[0]) if rest else 1.0
            relations.append([sorted(rels) for rels in per_sentence_rels])
    return out


def score_spans(
    predicted: Iterable[tuple[Any, int, int, str]],
    gold: Iterable[tuple[Any, int, int, str]],
    labels: Sequence[str] = (),
) -> dict[str, Any]:
    """Score ``(doc, start, end, label)`` tuples, exact span and label (any tuple whose last item
    is its label will do: relations are scored the same way).

    labels: labels always listed in ``per_type`` (others appear when seen).
    RETURNS (dict): ``p``, ``r``, ``f`` (micro, 0-1) and ``per_type`` {label: PRF dict}.
    """
    predicted, gold = set(predicted), set(gold)
    seen = list(labels) + sorted({t[-1] for t in predicted | gold} - set(labels))
    per_type: dict[str, PRF] = {}
    for label in seen:
        per_type[label] = PRF()
        per_type[label].score_set(
            {t for t in predicted if t[-1] == label}, {t for t in gold if t[-1] == label}
        )
    micro = sum(per_type.values(), PRF())
    return {**micro.to_dict(), "per_type": {k: v.to_dict() for k, v in per_type.items()}}


def score_relations(
    golds: Sequence[GoldDoc],
    predicted: Sequence[Sequence[Iterable[tuple[int, int, int, int, str]]]],
) -> dict[str, Any]:
    """Score relations per document and sentence against the gold ones: both spans exact and label.

    predicted: per document, per sentence, ``(s1, e1, s2, e2, label)`` (document-level, end inclusive).
    RETURNS (dict): ``p``, ``r``, ``f`` (micro, 0-1) and ``per_type`` {relation label: PRF dict}.
    """
    gold_set = {(g.key, tuple(r[:4]), r[4]) for g in golds for rels in g.relations for r in rels}
    pred_set = {(g.key, tuple(r[:4]), r[4]) for g, doc in zip(golds, predicted) for rels in doc for r in rels}
    return score_spans(pred_set, gold_set, RELATION_LABELS)


def relation_operating_point(
    golds: Sequence[GoldDoc], scores: dict[tuple[Any, ...], float], *, min_precision: float = 0.7,
    min_kept: int = 3, labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Per relation label, the lowest probability at which that label's relations (both spans exact
    and label) are at least ``min_precision`` precise over at least ``min_kept`` of them; a label
    that never gets there is not kept at all. Every kept label being that precise, so is the union.

    labels: only these relation labels count, as predictions and as gold (default: all).
    RETURNS (dict): ``label_min_scores`` {label: cut-off} and the kept relations' ``p``, ``r``,
        ``f``, ``kept`` (recall is over every gold relation of ``labels``, kept labels or not).
    """
    gold_set = {(g.key, *r[:4], r[4]) for g in golds for rels in g.relations for r in rels
                if labels is None or r[4] in labels}
    if labels is not None:
        scores = {k: v for k, v in scores.items() if k[-1] in labels}
    cutoffs: dict[str, float] = {}
    for label in sorted({key[-1] for key in scores}):
        ranked = sorted(((v, k) for k, v in scores.items() if k[-1] == label), key=lambda x: -x[0])
        tp = fp = 0
        for n, (score, key) in enumerate(ranked):
            tp += key in gold_set
            fp += key not in gold_set
            if n + 1 < len(ranked) and ranked[n + 1][0] == score:
                continue
            if tp + fp >= min_kept and tp / (tp + fp) >= min_precision:
                cutoffs[label] = score
    kept = [k for k, v in scores.items() if k[-1] in cutoffs and v >= cutoffs[k[-1]]]
    tp = sum(k in gold_set for k in kept)
    p = tp / len(kept) if kept else 0.0
    r = tp / len(gold_set) if gold_set else 0.0
    return {"label_min_scores": {k: round(v, 4) for k, v in cutoffs.items()}, "p": p, "r": r,
            "f": 2 * p * r / (p + r) if p + r else 0.0, "kept": len(kept)}


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
    predicted = predict(golds, nlp, fmt, spans_key=spans_key, relations=predicted_relations,
                        relation_scores=relation_scores)
    seconds = time.perf_counter() - started
    gold_set = {
        (gold.key, s, e, label) for gold in golds for spans in gold.ner for s, e, label in spans
    }
    pred_set = {
        (gold.key, s, e, label)
        for gold, doc_spans in zip(golds, predicted)
        for spans in doc_spans
        for s, e, label in spans
    }
    labels = SCIERC_LABELS if fmt == "scierc" else TDMSCI_LABELS
    scores = score_spans(pred_set, gold_set, labels)
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
        "relations": score_relations(golds, predicted_relations) if predicted_relations is not None and fmt == "scierc" else None,
        "relations_kept": _kept_relations(golds, predicted_relations, relation_scores, nlp)
        if predicted_relations is not None and fmt == "scierc" else None,
    }


def _kept_relations(golds: Sequence[GoldDoc], predicted: Sequence[Any], scores: dict[tuple[Any, ...], float],
                    nlp: Any) -> dict[str, Any]:
    """Relations scored as the graph keeps them: only those kg_relations' cut-offs keep."""
    pipe = nlp.get_pipe("kg_relations")
    kept = [[[r for r in rels if pipe.keeps(r[4], scores.get((g.key, *r), 1.0))] for rels in doc]
            for g, doc in zip(golds, predicted)]
    return {"cutoffs": pipe.cutoffs(), **score_relations(golds, kept)}


def prediction_records(
    golds: Sequence[GoldDoc], predicted: Sequence[list[list[Span]]], fmt: str,
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


# --------------------------------------------------------------------------------------------------
# command line (registered as ``kg eval`` by kg/cli.py)


def prf_table(title: str, name_columns: Sequence[str], rows: Iterable[tuple[Sequence[str], dict[str, Any]]]) -> Any:
    """A rich ``Table``: the ``name_columns``, then P, R and F1 in percent and tp, fp and fn, one row
    per ``(names, PRF dict)``; a row named "micro" is bold."""
    from rich.table import Table

    table = Table(title=title)
    for column in name_columns:
        table.add_column(column)
    for column in ("P", "R", "F1", "tp", "fp", "fn"):
        table.add_column(column, justify="right")
    for names, s in rows:
        table.add_row(*names, f"{100 * s['p']:.1f}", f"{100 * s['r']:.1f}", f"{100 * s['f']:.1f}",
                      str(s["tp"]), str(s["fp"]), str(s["fn"]), style="bold" if names[0] == "micro" else None)
    return table


def render_table(result: dict[str, Any]) -> Any:
    """A rich ``Table`` of per-label and micro P/R/F1 (in percent) for an :func:`evaluate` result."""
    rows = list(result["ents_per_type"].items())
    micro = {"p": result["ents_p"], "r": result["ents_r"], "f": result["ents_f"],
             **{count: sum(s[count] for _, s in rows) for count in ("tp", "fp", "fn")}}
    return prf_table(f"{result['gold']} ({result['format']}, {result['docs']} docs, {result['tokens']} tokens)",
                     ["label"], [((label,), s) for label, s in [*rows, ("micro", micro)]])


def render_relations_table(result: dict[str, Any]) -> Any:
    """A rich ``Table`` of per-label and micro relation P/R/F1 (both spans exact and label), or None."""
    rel = result.get("relations")
    if not rel:
        return None
    kept = result.get("relations_kept")
    rows = [((label,), s) for label, s in [*rel["per_type"].items(), ("micro", rel)]]
    if kept:
        rows.append((("kept in the graph",), kept))
    return prf_table("relations (both spans exact and label)", ["relation"], rows)


def eval_cli(
    gold: Path,
    fmt: str = "scierc",
    save_predictions: Path | None = None,
    as_json: bool = False,
    model: str | None = None,
) -> dict[str, Any]:
    """``kg eval``: load the shipped extractor (or ``model``), score it on ``gold`` and print the result.

    The statistical pipeline is scored on ``doc.ents``; its rules are not added.
    """
    from rich.console import Console

    from extractors.pipeline import load_pipeline, read_settings, shipped_model_path

    nlp = load_pipeline(model, rules=False)
    if not nlp.pipe_names:
        from kg.errors import ModelError

        raise ModelError("no trained pipeline is shipped in extractors/models/sci_ner; run `kg train` or pass --model")
    if fmt == "scierc" and "kg_relations" not in nlp.pipe_names:
        from extractors.relations import MODEL_DIR as RELATIONS_DIR

        if (RELATIONS_DIR / "model.json").exists():
            settings = read_settings(model if model is not None else shipped_model_path())
            cutoffs = (settings.get("relations") or {}).get("label_min_scores")
            nlp.add_pipe("kg_relations", config={"label_min_scores": cutoffs} if cutoffs is not None else {})
    result = evaluate(gold, fmt, nlp, save_predictions=save_predictions)
    if as_json:
        print(json.dumps(result))
    else:
        Console().print(render_table(result))
        if result.get("relations"):
            Console().print(render_relations_table(result))
    return result
