"""The fast paths of the extractor give what the plain code they replace gives.

Each restructured step is checked against a straightforward reference on real abstracts (the
bundled example corpus): same spans, same order, same records, same scores.
"""

from __future__ import annotations

from bisect import bisect_right
from pathlib import Path

import pytest

from extractors.relations import (
    MODEL_DIR,
    PairFeaturizer,
    RelationModel,
    decode_class,
    pair_features,
    predict_sentence,
    same_concept,
    sentence_candidates,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "iclr2026"


@pytest.fixture(scope="module")
def docs(nlp):
    texts = [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*.txt"))]
    texts.append(
        "We propose FooNet , a model for image segmentation ; FooNet beats BarNet and BazNet on COCO "
        "such as the as well as of of and and , as well as such as ."
    )
    return list(nlp.pipe(texts))


def _sentence_pairs(docs, nlp):
    """(lower, start, end, spans, i, j) of every candidate pair the relation component scores."""
    rel = nlp.get_pipe("kg_relations")
    for doc in docs:
        spans, _ = rel.candidate_spans(doc)
        lower = [t.lower_ for t in doc]
        for sent in doc.sents:
            inside = sentence_candidates(
                sp for sp in spans if sp[0] >= sent.start and sp[1] <= sent.end
            )
            for i in range(len(inside)):
                for j in range(i + 1, len(inside)):
                    if inside[i][1] <= inside[j][0]:
                        yield lower, sent.start, sent.end, inside, i, j


def test_pair_featurizer_rows_are_pair_features_in_order(docs, nlp):
    pairs = list(_sentence_pairs(docs, nlp))
    assert len(pairs) > 50
    every = {}
    for args in pairs:
        for f in pair_features(*args):
            every.setdefault(f, len(every))
    half = {f: k for f, k in every.items() if k % 2}  # unknown features are skipped, not mistaken
    shipped = RelationModel.from_disk(MODEL_DIR).features
    for index in (every, half, shipped):
        featurizer = PairFeaturizer(index)
        for lower, start, end, spans, i, j in pairs:
            want = [index[f] for f in pair_features(lower, start, end, spans, i, j) if f in index]
            assert featurizer.sentence(lower, start, end, spans).rows(i, j) == want


def _reference_relations(rel, doc):
    """kg_relations as it was written first: predict_sentence sentence by sentence."""
    spans, mentions = rel.candidate_spans(doc)
    found, product = [], []
    if len(spans) > 1:
        lower = [t.lower_ for t in doc]
        for sent in doc.sents:
            inside = [sp for sp in spans if sp[0] >= sent.start and sp[1] <= sent.end]
            if len(inside) < 2:
                continue
            for head, tail, label, score in predict_sentence(
                rel.model, lower, sent.start, sent.end, inside
            ):
                found.append([head[0], head[1], tail[0], tail[1], label, round(score, 4)])
                h, t = mentions.get(head[:2]), mentions.get(tail[:2])
                if h is None or t is None or not rel.keeps(label, score) or same_concept(h, t):
                    continue
                product.append(
                    {
                        "head": [h["start"], h["end"]],
                        "tail": [t["start"], t["end"]],
                        "label": label,
                        "score": round(score, 4),
                        "extractor": "relations",
                    }
                )
    return found, product


def test_relation_component_matches_sentence_by_sentence_prediction(docs, nlp):
    rel = nlp.get_pipe("kg_relations")
    total = 0
    for doc in docs:
        found, product = _reference_relations(rel, doc)
        assert doc.user_data["kg_span_relations"] == found
        assert doc.user_data["kg_relations"] == product
        total += len(found)
    assert total > 10


def test_row_scores_is_batch_scores():
    model = RelationModel.from_disk(MODEL_DIR)
    batch = [
        ["bias", "L=Method|Task", "bw=for"],
        ["never seen"],
        ["bias", "Lcue=Method|Task|for", "bw=for"],
    ]
    index = model.features
    rows, starts = [], []
    for feats in batch:
        starts.append(len(rows))
        rows.extend({index[f] for f in feats if f in index})
    assert (model.row_scores(rows, starts) == model.batch_scores(batch)).all()
    assert decode_class(model.classes[0]) is None


def _reference_mentions(chooser, doc):
    """kg_mentions' records as first written: texts from the spans' tokens, sentences from doc.sents."""
    from bisect import bisect_right

    from extractors.lexicon import is_generic

    taken = [False] * len(doc)
    sents = list(doc.sents)
    sent_starts = [sent.start for sent in sents]
    records = []
    for source, score, span, extra in chooser._candidates(doc, doc.text):
        if len(span.text) < chooser.min_chars or any(taken[span.start : span.end]):
            continue
        if source != "acronym" and (is_generic(span.text) or span.text.count("$") % 2):
            continue
        for i in range(span.start, span.end):
            taken[i] = True
        role = extra.get("role", "used")
        if span.start > 0 and doc[span.start - 1].lower_ == "our":
            role = "proposed"
        sent = sents[bisect_right(sent_starts, span.start) - 1]
        records.append(
            {
                "label": span.label_,
                "text": span.text,
                "start": span.start_char,
                "end": span.end_char,
                "sentence": sent.text,
                "sent_start": sent.start_char,
                "extractor": source,
                "score": extra.get("score", score),
                "role": role,
                "long_form": extra.get("long_form"),
                "short_form": extra.get("short_form"),
                "canonical": extra.get("canonical"),
            }
        )
    return sorted(records, key=lambda r: r["start"])


def test_mention_chooser_texts_and_sentences_are_the_tokens_own(docs, nlp):
    chooser = nlp.get_pipe("kg_mentions")
    total = 0
    for doc in docs:

        def roleless(
            records,
        ):  # kg_roles, after the chooser, sets the roles of methods and data sets
            return [{k: v for k, v in r.items() if k != "role"} for r in records]

        assert roleless(doc.user_data["kg_mentions"]) == roleless(_reference_mentions(chooser, doc))
        assert [(s.start, s.end, s.label_) for s in doc.spans["kg"]] == [
            (
                doc.char_span(r["start"], r["end"]).start,
                doc.char_span(r["start"], r["end"]).end,
                r["label"],
            )
            for r in doc.user_data["kg_mentions"]
        ]
        total += len(doc.user_data["kg_mentions"])
    assert total > 20


RULE_TEXTS = [
    "We further propose FooNet, a model for scalable multi-agent systems; this paper also introduces BarBench. "
    "Experiments on GOT-10k, LaSOT and TrackingNet, datasets such as LAION-400M and the ImageNet dataset, "
    "tasks such as image segmentation and applications like retrieval, in terms of accuracy and recall. "
    "The task of question answering. Results using MMLU benchmark; we here design agent models. "
    "Agent frameworks and GAN-based method beat RL algorithms on NoveltyBench-v2.",
]


@pytest.fixture(scope="module")
def rule_docs(nlp, docs):
    return docs + list(nlp.pipe(RULE_TEXTS))


def _reference_head_phrases(doc, max_modifiers=4):
    """head_phrases as first written: every token, Token.sent inside the loop."""
    from spacy.tokens import Span

    from extractors.lexicon import BOUNDARY_WORDS, HEAD_LABELS, is_generic, is_verbish
    from extractors.rules import _GENERIC_HEADS, _WORDLIKE, is_name_token

    for token in doc:
        head = token.lower_
        label = HEAD_LABELS.get(head)
        if label is None or not token.is_lower:
            continue
        nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if nxt is not None and nxt.is_lower and nxt.lower_ in HEAD_LABELS and not nxt.is_punct:
            continue
        start = token.i
        while start > token.sent.start and token.i - start < max_modifiers * 2:
            prev = doc[start - 1]
            if prev.text == "-" and start - 2 >= token.sent.start:
                start -= 2
                continue
            if (
                not _WORDLIKE.match(prev.text)
                or prev.lower_ in BOUNDARY_WORDS
                or prev.is_stop
                or is_verbish(prev.text)
            ):
                break
            if (
                prev.text.isupper()
                and len(prev.text) > 1
                and not any(c.isdigit() for c in prev.text)
            ):
                start -= 1
                continue
            if not prev.is_lower and not is_name_token(prev):
                break
            start -= 1
        modifiers = [t for t in doc[start : token.i] if t.text != "-"]
        if not modifiers:
            continue
        named = any(not t.is_lower for t in modifiers)
        if head in _GENERIC_HEADS and len(modifiers) < 2 and not named:
            continue
        if label == "DATASET" and not named:
            continue
        span = Span(doc, start, token.i + 1, label=label)
        if not is_generic(span.text):
            yield span


def test_head_phrases_match_the_token_by_token_reference(rule_docs):
    from extractors.rules import head_phrases

    for doc in rule_docs:
        want = [(s.start, s.end, s.label_) for s in _reference_head_phrases(doc)]
        assert [(s.start, s.end, s.label_) for s in head_phrases(doc)] == want
    assert any(
        s[-1].lower_ == "agent" for s in head_phrases(rule_docs[-1])
    )  # "agent" is a spaCy symbol


def _reference_cue_matcher(vocab):
    """kg_cues as first written: a spaCy Matcher over LOWER."""
    from spacy.matcher import Matcher

    from extractors import rules as r

    matcher = Matcher(vocab)
    matcher.add(
        "PROPOSE",
        [
            [
                {"LOWER": {"IN": r._PROPOSE_FIRST}},
                {"LOWER": {"IN": r._PROPOSE_ADVERB}, "OP": "?"},
                {"LOWER": {"IN": r._TRIGGERS["propose"]}},
            ],
        ],
    )
    matcher.add(
        "EVAL_ON",
        [
            [{"LOWER": {"IN": r._EVAL_FIRST}}, {"LOWER": {"IN": r._EVAL_NEXT}}],
            [
                {"LOWER": {"IN": r._LIST_FIRST}},
                {"LOWER": {"IN": r._SUCH}},
                {"LOWER": "as", "OP": "?"},
            ],
        ],
    )
    matcher.add("TERMS_OF", [[{"LOWER": "in"}, {"LOWER": "terms"}, {"LOWER": "of"}]])
    matcher.add(
        "TASK_OF",
        [
            [{"LOWER": {"IN": r._TASK_FIRST}}, {"LOWER": "of"}],
            [
                {"LOWER": {"IN": r._TASKS_FIRST}},
                {"LOWER": {"IN": r._SUCH}},
                {"LOWER": "as", "OP": "?"},
            ],
        ],
    )
    return matcher


def test_cue_matches_are_the_matchers(rule_docs, nlp):
    cues = nlp.get_pipe("kg_cues")
    matcher = _reference_cue_matcher(nlp.vocab)
    kinds = set()
    for doc in rule_docs:
        want = [(doc.vocab.strings[m], s, e) for m, s, e in matcher(doc)]
        assert cues.matches(doc) == want
        kinds |= {k for k, _, _ in want}
    assert kinds == {"PROPOSE", "EVAL_ON", "TERMS_OF", "TASK_OF"}


def test_shape_finder_writes_what_a_span_ruler_with_shape_patterns_writes(rule_docs, nlp):
    import spacy

    from extractors.rules import gazetteer_patterns, shape_patterns

    exact, _lower = gazetteer_patterns(nlp)
    ref = spacy.blank("en")
    ruler = ref.add_pipe(
        "span_ruler",
        name="kg_gazetteer",
        config={"spans_key": "kg_gazetteer", "overwrite": True, "validate": False},
    )
    ruler.add_patterns(exact + shape_patterns())
    fast = spacy.blank("en")
    fast_ruler = fast.add_pipe(
        "span_ruler",
        name="kg_gazetteer",
        config={"spans_key": "kg_gazetteer", "overwrite": True, "validate": False},
    )
    fast_ruler.add_patterns(exact)
    shapes = fast.add_pipe("kg_shapes")
    n_shapes = 0
    for doc in rule_docs:
        ref_doc, fast_doc = ruler(doc.copy()), shapes(fast_ruler(doc.copy()))
        want, got = ref_doc.spans["kg_gazetteer"], fast_doc.spans["kg_gazetteer"]
        assert [(s.start, s.end, s.label_, s.id_) for s in got] == [
            (s.start, s.end, s.label_, s.id_) for s in want
        ]
        n_shapes += sum(s.id_.startswith("shape:") for s in want)
    assert n_shapes >= 4


def test_relation_records_take_the_sentence_of_their_head_mention(nlp):
    from extractors import extract
    from extractors.pipeline import _sentence_of
    from kg.model import Paper

    papers = [
        Paper(id=p.stem, abstract=p.read_text(encoding="utf-8"))
        for p in sorted(EXAMPLES.glob("*.txt"))
    ]
    n = 0
    for item in extract(nlp, papers):
        doc = nlp(item.paper.abstract)
        for rel in item.relations:
            assert rel.sentence == _sentence_of(doc, rel.head_start) != ""
            n += 1
    assert n > 5


def test_sentence_starts_are_token_sent_starts(rule_docs):
    from extractors.rules import _sentence_starts

    for doc in rule_docs:
        starts = _sentence_starts(doc)
        assert [starts[bisect_right(starts, t.i) - 1] for t in doc] == [t.sent.start for t in doc]
