"""Turn the shared gold data into spaCy ``DocBin`` training corpora, on the gold tokens.

- SciERC (JSON lines, spans end inclusive): every token is annotated, nested spans are reduced to
  the longest ones (``ner`` cannot hold overlaps; about 1% of SciERC's spans are lost);
- TDMSci (CoNLL, BIO): TASK -> Task, METRIC -> Metric, DATASET -> DATASET (or Material). TDMSci does
  not annotate methods or other terms, so its unlabelled tokens are *missing*, not ``O``, by default;
- SciREX (JSON lines, spans end exclusive, full papers): Method / Task / Metric / Material
  (Material is a data set there, so it maps to DATASET by default); only sentences with a mention
  are kept (a sample of them if asked), and unlabelled tokens are missing.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from kg.gold import GoldDoc, read_conll, read_scierc, to_spacy_doc
from kg.schema import SCIERC_TO_PRODUCT, SCIREX_TO_MODEL, TDMSCI_TO_MODEL

__all__ = [
    "TDMSCI_TO_MODEL",
    "SCIREX_TO_MODEL",
    "longest_spans",
    "gold_to_doc",
    "scierc_docs",
    "conll_docs",
    "scirex_docs",
    "write_docbin",
    "is_dataset_name",
    "SCIERC_TO_PRODUCT",
    "annotation_doc",
    "annotation_docs",
]


_BRACKETS = {"-LRB-", "-RRB-", "-LSB-", "-RSB-", "-LCB-", "-RCB-"}


def is_dataset_name(words: list[str]) -> bool:
    """A guess whether a SciERC Material span names a data set (not "images" or "speech data").

    True when it has a digit or an upper-case letter after the first character of a word (TREC,
    ATIS, WSJ, MUC-6, WordNet) or a capitalised word beyond the first one (Penn Treebank); plain
    phrases ("parallel corpus", "images") stay Material.
    """
    for i, word in enumerate(w for w in words if w not in _BRACKETS):
        if any(ch.isdigit() for ch in word):
            return True
        if any(ch.isupper() for ch in word[1:]):
            return True
        if i > 0 and word[:1].isupper():
            return True
    return False


def longest_spans(spans: Iterable[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Drop overlapping spans, keeping the longest (then the earliest); ends are inclusive."""
    chosen: list[tuple[int, int, str]] = []
    taken: set[int] = set()
    for s, e, label in sorted(set(spans), key=lambda t: (-(t[1] - t[0]), t[0], t[2])):
        if any(i in taken for i in range(s, e + 1)):
            continue
        chosen.append((s, e, label))
        taken.update(range(s, e + 1))
    return sorted(chosen)


def gold_to_doc(
    vocab: Any,
    gold: GoldDoc,
    label_map: Mapping[str, str] | None = None,
    *,
    partial: bool = False,
    missing: Iterable[tuple[int, int]] = (),
) -> Any:
    """A ``Doc`` over the gold tokens with its (non-overlapping) spans as ``doc.ents``.

    label_map: gold label -> model label; a label it lacks is dropped (with ``partial`` its tokens
        become missing).
    partial (bool): tokens outside any span are missing rather than ``O``.
    missing: ``(start, end)`` token ranges (end inclusive) outside the gold spans that are missing
        rather than ``O`` (where the data set is silent about a label it does not annotate).
    """
    from spacy.tokens import Span

    doc = to_spacy_doc(vocab, gold)
    spans = []
    for s, e, label in (span for sentence in gold.ner for span in sentence):
        mapped = label_map.get(label) if label_map is not None else label
        if mapped:
            spans.append((s, e, mapped))
    ents = [Span(doc, s, e + 1, label=label) for s, e, label in longest_spans(spans)]
    taken = {i for span in ents for i in range(span.start, span.end)}
    unknown = [
        Span(doc, s, e + 1) for s, e in missing if not any(i in taken for i in range(s, e + 1))
    ]
    doc.set_ents(ents, missing=unknown, default="missing" if partial else "outside")
    return doc


def scierc_docs(path: str | Path, vocab: Any, *, dataset_label: bool = False) -> Iterator[Any]:
    """SciERC documents; with ``dataset_label`` Material spans that look like data-set names become DATASET."""
    for gold in read_scierc(path):
        if dataset_label:
            words = gold.words
            ner = [
                [
                    (
                        s,
                        e,
                        "DATASET"
                        if label == "Material" and is_dataset_name(words[s : e + 1])
                        else label,
                    )
                    for s, e, label in sentence
                ]
                for sentence in gold.ner
            ]
            gold = GoldDoc(gold.key, gold.sentences, ner)
        yield gold_to_doc(vocab, gold)


def conll_docs(
    path: str | Path,
    vocab: Any,
    *,
    label_map: Mapping[str, str] = TDMSCI_TO_MODEL,
    partial: bool = True,
    keep: Iterable[int] | None = None,
    mask_nlp: Any = None,
    mask_labels: Iterable[str] = ("Method", "OtherScientificTerm", "Generic", "Material"),
) -> Iterator[Any]:
    """TDMSci sentences; ``keep`` restricts to these sentence indices (for cross-validation folds).

    mask_nlp: a trained pipeline; when given, tokens are ``O`` (TDMSci's own notion of what is not a
        task, data set or metric) except where ``mask_nlp`` finds a span labelled one of
        ``mask_labels`` (labels TDMSci does not annotate), which are missing. ``partial`` is then ignored.
    """
    wanted = set(keep) if keep is not None else None
    golds = [g for g in read_conll(path) if wanted is None or int(g.key) in wanted]
    if mask_nlp is None:
        for gold in golds:
            yield gold_to_doc(vocab, gold, label_map, partial=partial)
        return
    masked = set(mask_labels)
    docs = (to_spacy_doc(mask_nlp.vocab, gold) for gold in golds)
    for gold, predicted in zip(golds, mask_nlp.pipe(docs, batch_size=256)):
        unknown = [(e.start, e.end - 1) for e in predicted.ents if e.label_ in masked]
        yield gold_to_doc(vocab, gold, label_map, missing=unknown)


def scirex_docs(
    path: str | Path,
    vocab: Any,
    *,
    label_map: Mapping[str, str] = SCIREX_TO_MODEL,
    sample: float = 1.0,
    seed: int = 0,
    max_sentence_tokens: int = 120,
    mask_nlp: Any = None,
    mask_labels: Iterable[str] = ("OtherScientificTerm", "Generic", "Material"),
) -> Iterator[Any]:
    """SciREX sentences that hold at least one mention, as partially annotated docs.

    sample (float): keep this fraction of those sentences (seeded).
    mask_nlp: a trained pipeline; when given, unlabelled tokens are ``O`` except where it finds a
        span labelled one of ``mask_labels`` (which SciREX does not annotate), which are missing.
    """
    if mask_nlp is not None:
        golds = list(_scirex_golds(path, sample, seed, max_sentence_tokens))
        masked = set(mask_labels)
        docs = (to_spacy_doc(mask_nlp.vocab, gold) for gold in golds)
        for gold, predicted in zip(golds, mask_nlp.pipe(docs, batch_size=256)):
            unknown = [(e.start, e.end - 1) for e in predicted.ents if e.label_ in masked]
            yield gold_to_doc(vocab, gold, label_map, missing=unknown)
        return
    for gold in _scirex_golds(path, sample, seed, max_sentence_tokens):
        yield gold_to_doc(vocab, gold, label_map, partial=True)


def _scirex_golds(
    path: str | Path, sample: float, seed: int, max_sentence_tokens: int
) -> Iterator[GoldDoc]:
    rng = random.Random(seed)
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            words = record["words"]
            mentions = sorted((int(s), int(e), str(label)) for s, e, label in record["ner"])
            for start, end in record["sentences"]:
                inside = [(s, e, label) for s, e, label in mentions if start <= s and e <= end]
                if not inside or end - start > max_sentence_tokens or rng.random() >= sample:
                    continue
                yield GoldDoc(
                    f"{record['doc_id']}:{start}",
                    [words[start:end]],
                    [[(s - start, e - start - 1, label) for s, e, label in inside]],
                )


def annotation_doc(nlp: Any, rec: Any) -> tuple[Any, int]:
    """A ``Doc`` of one annotated abstract (``kg.annotations.GoldAbstract``) as kg reads it: the
    normalised text, kg's own tokenizer and sentences, the gold mentions as ``doc.ents`` and every
    other token ``O``. A mention that does not fall on token boundaries leaves its tokens missing.

    RETURNS: the doc and the number of mentions that did not align.
    """
    from kg.paper_eval import gold_spans

    text, spans, unmapped = gold_spans(rec)
    doc = nlp(text)
    ents, missing = [], []
    for start, end, label in sorted(spans):
        span = doc.char_span(start, end, label=label)
        if span is None:
            loose = doc.char_span(start, end, alignment_mode="expand")
            if loose is not None:
                missing.append(loose)
            unmapped += 1
            continue
        ents.append(span)
    unknown = [False] * len(doc)
    for m in missing:
        for i in range(m.start, m.end):
            unknown[i] = True
    ents = [e for e in ents if not any(unknown[e.start : e.end])]
    missing = [doc[i : i + 1] for i, flag in enumerate(unknown) if flag]
    doc.set_ents(ents, missing=missing, default="outside")
    return doc, unmapped


def annotation_docs(records: Iterable[Any], nlp: Any | None = None) -> Iterator[Any]:
    """Training docs from annotated abstracts (see :func:`annotation_doc`); ``nlp`` gives the
    tokenizer and sentence splitter (default: kg's tuned tokenizer and spaCy's sentencizer)."""
    if nlp is None:
        import spacy

        from extractors.pipeline import tune_tokenizer

        nlp = tune_tokenizer(spacy.blank("en"))
        nlp.add_pipe("sentencizer")
    for rec in records:
        yield annotation_doc(nlp, rec)[0]


def write_docbin(docs: Iterable[Any], path: str | Path) -> int:
    """Write ``docs`` to a ``.spacy`` file; returns how many were written."""
    from spacy.tokens import DocBin

    docbin = DocBin(attrs=["ENT_IOB", "ENT_TYPE", "SENT_START"], store_user_data=False)
    count = 0
    for doc in docs:
        docbin.add(doc)
        count += 1
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(path)
    return count
