"""Gold data and how a pipeline is scored on it: what training and evaluation both need.

Training (``extractors/*train*``, ``extractors/convert.py``) and evaluation (:mod:`kg.evaluation`,
``kg eval``) import this module; it imports no extractor, so neither side reaches into the other.

- readers: ``read_scierc(path)`` and ``read_conll(path)`` return :class:`GoldDoc` records (tokens
  per sentence, spans as ``(start, end, label)`` with document-level token indices, end inclusive,
  in the file's own label vocabulary);
- scoring: :class:`PRF` counts true and false positives and negatives over sets of tuples;
  ``score_spans``, ``score_ner`` and ``score_relations`` give per-label and micro figures;
- running: ``predict(docs, nlp, fmt)`` runs a spaCy pipeline on the gold tokens and maps its labels
  back to the gold vocabulary.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CorpusError
from .schema import GOLD_LABEL_MAPS, SCIERC_LABELS, SCIERC_RELATION_LABELS, TDMSCI_LABELS

__all__ = [
    "FORMATS",
    "SCIERC_LABELS",
    "TDMSCI_LABELS",
    "Span",
    "GoldDoc",
    "PRF",
    "read_gold",
    "read_scierc",
    "read_conll",
    "bio_to_spans",
    "to_spacy_doc",
    "map_label",
    "predict",
    "score_spans",
    "score_ner",
    "score_relations",
    "relation_operating_point",
]

#: The gold formats kg reads besides its own annotations (:mod:`kg.annotations`).
FORMATS: tuple[str, ...] = ("scierc", "conll")

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
            clusters = [
                [(int(s), int(e)) for s, e in cluster] for cluster in record.get("clusters", [])
            ]
        except (ValueError, KeyError, TypeError) as err:
            raise CorpusError(f"{path}:{number}: not a SciERC record ({err})") from err
        if len(ner) != len(sentences):
            raise CorpusError(
                f"{path}:{number}: {len(sentences)} sentences but {len(ner)} ner lists"
            )
        yield GoldDoc(str(record.get("doc_key", number - 1)), sentences, ner, relations, clusters)


def bio_to_spans(tags: Sequence[str], offset: int = 0) -> list[Span]:
    """Spans ``(start, end, label)`` (end inclusive) from BIO (or IOB1) tags; a stray I- opens a span."""
    spans: list[Span] = []
    start: int | None = None
    label = ""
    for i, tag in enumerate([*tags, "O"]):
        prefix, _, kind = tag.partition("-")
        continues = prefix == "I" and label == kind and start is not None
        if start is not None and not continues:
            spans.append((start + offset, i - 1 + offset, label))
            start, label = None, ""
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
    sent_starts: list[bool | int | None] = []
    for sentence in gold.sentences:
        sent_starts.extend([True] + [False] * (len(sentence) - 1))
    spaces = [True] * len(words)
    if spaces:
        spaces[-1] = False
    return Doc(vocab, words=words, spaces=spaces, sent_starts=sent_starts)


def map_label(label: str, fmt: str) -> str | None:
    """The gold-vocabulary label for a model label, or ``None`` when ``fmt`` does not score it."""
    return GOLD_LABEL_MAPS[fmt].get(label)


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
            per_sentence_rels: list[set[tuple[int, int, int, int, str]]] = [
                set() for _ in gold.sentences
            ]
            for hs, he, ts, te, rel_label, *rest in doc.user_data.get("kg_span_relations", []):
                if per_sentence_rels:
                    i = next(
                        (k for k, end in enumerate(bounds) if min(hs, ts) < end), len(bounds) - 1
                    )
                    per_sentence_rels[i].add((hs, he - 1, ts, te - 1, rel_label))
                    if relation_scores is not None:
                        relation_scores[(gold.key, hs, he - 1, ts, te - 1, rel_label)] = (
                            float(rest[0]) if rest else 1.0
                        )
            relations.append([sorted(rels) for rels in per_sentence_rels])
    return out


def score_spans(
    predicted: Iterable[tuple[Any, ...]],
    gold: Iterable[tuple[Any, ...]],
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


def score_ner(
    golds: Sequence[GoldDoc],
    predicted: Sequence[Sequence[Iterable[Span]]],
    labels: Sequence[str] = (),
) -> dict[str, Any]:
    """Score predicted entity spans (per document, per sentence, as :func:`predict` returns them)
    against the gold ones, exact span and label; as :func:`score_spans` returns."""
    gold_set = {
        (gold.key, s, e, label) for gold in golds for spans in gold.ner for s, e, label in spans
    }
    pred_set = {
        (gold.key, s, e, label)
        for gold, doc_spans in zip(golds, predicted)
        for spans in doc_spans
        for s, e, label in spans
    }
    return score_spans(pred_set, gold_set, labels)


def score_relations(
    golds: Sequence[GoldDoc],
    predicted: Sequence[Sequence[Iterable[tuple[int, int, int, int, str]]]],
) -> dict[str, Any]:
    """Score relations per document and sentence against the gold ones: both spans exact and label.

    predicted: per document, per sentence, ``(s1, e1, s2, e2, label)`` (document-level, end inclusive).
    RETURNS (dict): ``p``, ``r``, ``f`` (micro, 0-1) and ``per_type`` {relation label: PRF dict}.
    """
    gold_set = {(g.key, tuple(r[:4]), r[4]) for g in golds for rels in g.relations for r in rels}
    pred_set = {
        (g.key, tuple(r[:4]), r[4])
        for g, doc in zip(golds, predicted)
        for rels in doc
        for r in rels
    }
    return score_spans(pred_set, gold_set, SCIERC_RELATION_LABELS)


def relation_operating_point(
    golds: Sequence[GoldDoc],
    scores: dict[tuple[Any, ...], float],
    *,
    min_precision: float = 0.7,
    min_kept: int = 3,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Per relation label, the lowest probability at which that label's relations (both spans exact
    and label) are at least ``min_precision`` precise over at least ``min_kept`` of them; a label
    that never gets there is not kept at all. Every kept label being that precise, so is the union.

    labels: only these relation labels count, as predictions and as gold (default: all).
    RETURNS (dict): ``label_min_scores`` {label: cut-off} and the kept relations' ``p``, ``r``,
        ``f``, ``kept`` (recall is over every gold relation of ``labels``, kept labels or not).
    """
    gold_set = {
        (g.key, *r[:4], r[4])
        for g in golds
        for rels in g.relations
        for r in rels
        if labels is None or r[4] in labels
    }
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
    return {
        "label_min_scores": {k: round(v, 4) for k, v in cutoffs.items()},
        "p": p,
        "r": r,
        "f": 2 * p * r / (p + r) if p + r else 0.0,
        "kept": len(kept),
    }
