"""Within-document resolution scored against SciERC's coreference clusters.

kg merges mentions into entities across a corpus; inside one abstract its merges must agree with
what annotators marked as coreferent. The gold clusters are restricted to *named* mentions: no
pronouns, no anaphors ("this method", "our approach") and no ``Generic`` spans, which kg never
turns into entities. Each pair of the named cluster members of one abstract is then one decision:
same entity or not (a cluster left with one named member still tests precision).

Two settings, both resolving the whole file as one corpus, as ``kg build`` would:

* ``gold mentions``: kg's resolver on the gold spans (their labels mapped to kg's), with the acronym
  definitions kg's detector finds in the text; this isolates resolution.

SciERC's escaped brackets (``-LRB-``) are written as brackets, as in the text kg reads.
* ``predicted mentions``: the full extractor; pairs of its mentions that match named gold spans
  exactly.

An exact-string baseline (same casefolded text) is printed beside kg for the first setting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from extractors.lexicon import is_generic

from .gold import PRF, GoldDoc, read_scierc, to_spacy_doc
from .model import Mention
from .resolve import resolve
from .schema import SCIERC_TO_RESOLVER

__all__ = ["is_named", "gold_mentions", "score_pairs", "evaluate_resolution"]

_PRONOUNS = frozenset(
    "it its itself they them their theirs this these that those which we us our one ones "
    "he she his her both each former latter".split()
)
_ANAPHORIC = frozenset("this these that those our its their such his her both each".split())


def is_named(text: str, label: str) -> bool:
    """Whether a gold span names something rather than pointing back at it.

    >>> [is_named(t, "Method") for t in ("CRF", "the Penn Treebank", "this method", "it", "our CRF model")]
    [True, True, False, False, True]
    >>> is_named("approach", "Generic")
    False
    """
    if label == "Generic":
        return False
    words = text.split()
    if not words or (len(words) == 1 and words[0].casefold() in _PRONOUNS):
        return False
    if words[0].casefold() in _ANAPHORIC:
        rest = words[1:]
        return any(any(c.isupper() or c.isdigit() for c in w) for w in rest) and not is_generic(
            " ".join(rest)
        )
    return not is_generic(text)


@dataclass(frozen=True, slots=True)
class GoldMention:
    """One named gold span of an abstract and the gold cluster it belongs to."""

    start: int  # token, inclusive
    end: int  # token, inclusive
    label: str
    cluster: int


def gold_mentions(gold: GoldDoc) -> list[GoldMention]:
    """The named members of one document's gold clusters, each with its cluster number.

    Only cluster members count: SciERC annotates coreference for some concepts of an abstract, and
    a repeated term outside every cluster says nothing about whether its mentions corefer.
    """
    words = gold.words
    labels = {(s, e): label for spans in gold.ner for s, e, label in spans}
    out: list[GoldMention] = []
    for n, cluster in enumerate(gold.clusters):
        known = [labels[s] for s in cluster if labels.get(s, "Generic") != "Generic"]
        for s, e in cluster:  # a member outside the NER list takes its cluster's label
            label = labels.get((s, e)) or (known[0] if known else "Generic")
            if is_named(" ".join(words[s : e + 1]), label):
                out.append(GoldMention(s, e, label, n))
    return sorted(set(out), key=lambda m: (m.start, m.end))


def score_pairs(clusters: Sequence[int], entities: Sequence[str | None]) -> PRF:
    """Pairwise counts over one document: a pair is predicted together when both mentions got the
    same entity (``None``: no entity), and is gold together when they share a cluster.

    >>> score_pairs([0, 0, 1], ["a", "a", "a"]).to_dict()["p"]
    0.3333333333333333
    """
    prf = PRF()
    for (c1, e1), (c2, e2) in combinations(zip(clusters, entities), 2):
        same_gold, same_pred = c1 == c2, e1 is not None and e1 == e2
        prf.tp += same_gold and same_pred
        prf.fp += same_pred and not same_gold
        prf.fn += same_gold and not same_pred
    return prf


_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}


def _acronym_forms(doc: Any) -> dict[tuple[int, int], tuple[str, str]]:
    """Token span (end exclusive) -> (short form, long form) for every acronym definition and use
    kg's detector wrote to the doc, and for the whole definition ("Long Form ( LF )")."""
    from extractors.acronyms import SPANS_KEY

    forms: dict[tuple[int, int], tuple[str, str]] = {}
    spans = list(doc.spans.get(SPANS_KEY, []))
    for span in spans:
        if span.label_ == "LONG":
            forms[(span.start, span.end)] = (span.kb_id_, span.text)
        else:  # SHORT and USE keep the long form in kb_id_
            forms[(span.start, span.end)] = (span.text, span.kb_id_)
    for first, second in zip(spans, spans[1:]):
        if {first.label_, second.label_} == {"SHORT", "LONG"}:
            start, end = min(first.start, second.start), max(first.end, second.end)
            short, long = (first, second) if first.label_ == "SHORT" else (second, first)
            forms.setdefault(
                (start, end + (end < len(doc) and doc[end].text == ")")), (short.text, long.text)
            )
    return forms


def _real_brackets(doc: Any) -> Any:
    """The doc with SciERC's escaped brackets (-LRB-) written as the brackets users' text has."""
    from spacy.tokens import Doc

    words = [_PTB.get(t.text, t.text) for t in doc]
    return Doc(
        doc.vocab,
        words=words,
        spaces=[bool(t.whitespace_) for t in doc],
        sent_starts=[t.is_sent_start for t in doc],
    )


def evaluate_resolution(gold_path: str, nlp: Any) -> dict[str, Any]:
    """Score kg's resolution on a SciERC file's coreference clusters (see the module docstring).

    nlp: the product pipeline (rules on), run on each document's own tokens.
    RETURNS (dict): ``docs``, ``named_mentions``, ``gold_pairs`` and, for ``gold_mentions``,
        ``exact_string`` and ``predicted_mentions``, pairwise ``p``/``r``/``f`` (0-1) and counts.
    """
    from extractors.mentions import MENTIONS_KEY

    golds = list(read_scierc(gold_path))
    docs = list(nlp.pipe(_real_brackets(to_spacy_doc(nlp.vocab, g)) for g in golds))
    named = [gold_mentions(g) for g in golds]
    gold_side: list[tuple[Any, list[Mention]]] = []
    predicted_side: list[tuple[Any, list[Mention]]] = []
    for gold, doc, mentions in zip(golds, docs, named):
        forms = _acronym_forms(doc)
        own = []
        for m in mentions:
            span = doc[m.start : m.end + 1]
            short, long = forms.get((span.start, span.end), (None, None))
            own.append(
                Mention(
                    paper_id=gold.key,
                    label=SCIERC_TO_RESOLVER[m.label],
                    text=span.text,
                    start=span.start_char,
                    end=span.end_char,
                    sentence="",
                    sent_start=0,
                    extractor="gold",
                    short_form=short,
                    long_form=long,
                )
            )
        gold_side.append((gold.key, own))
        records = doc.user_data.get(MENTIONS_KEY, [])
        predicted_side.append((gold.key, [Mention(paper_id=gold.key, **r) for r in records]))

    gold_entities = {(m.paper_id, m.start): eid for m, eid in resolve(gold_side).assignments}
    predicted_entities = {
        (m.paper_id, m.start, m.end): eid for m, eid in resolve(predicted_side).assignments
    }
    kg_gold, exact, kg_predicted = PRF(), PRF(), PRF()
    matched = 0
    for gold, doc, mentions, (_key, own) in zip(golds, docs, named, gold_side):
        clusters = [m.cluster for m in mentions]
        kg_gold += score_pairs(clusters, [gold_entities.get((gold.key, m.start)) for m in own])
        exact += score_pairs(clusters, [m.text.casefold() for m in own])
        chars = [(doc[m.start].idx, doc[m.end].idx + len(doc[m.end])) for m in mentions]
        found = [
            (m.cluster, predicted_entities[(gold.key, s, e)])
            for m, (s, e) in zip(mentions, chars)
            if (gold.key, s, e) in predicted_entities
        ]
        matched += len(found)
        kg_predicted += score_pairs([c for c, _ in found], [e for _, e in found])
    total = sum(len(m) for m in named)
    return {
        "gold": str(gold_path),
        "docs": len(golds),
        "named_mentions": total,
        "gold_pairs": kg_gold.tp + kg_gold.fn,
        "gold_mentions": kg_gold.to_dict(),
        "exact_string": exact.to_dict(),
        "predicted_mentions": {**kg_predicted.to_dict(), "matched_mentions": matched},
    }
