"""The fast paths of the extractor give what the plain code they replace gives.

Each restructured step is checked against a straightforward reference on real abstracts (the
bundled example corpus): same spans, same order, same records, same scores.
"""

from __future__ import annotations

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
    texts.append("We propose FooNet , a model for image segmentation ; FooNet beats BarNet and BazNet on COCO "
                 "such as the as well as of of and and , as well as such as .")
    return list(nlp.pipe(texts))


def _sentence_pairs(docs, nlp):
    """(lower, start, end, spans, i, j) of every candidate pair the relation component scores."""
    rel = nlp.get_pipe("kg_relations")
    for doc in docs:
        spans, _ = rel.candidate_spans(doc)
        lower = [t.lower_ for t in doc]
        for sent in doc.sents:
            inside = sentence_candidates(sp for sp in spans if sp[0] >= sent.start and sp[1] <= sent.end)
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
            for head, tail, label, score in predict_sentence(rel.model, lower, sent.start, sent.end, inside):
                found.append([head[0], head[1], tail[0], tail[1], label, round(score, 4)])
                h, t = mentions.get(head[:2]), mentions.get(tail[:2])
                if h is None or t is None or score < rel.min_score or same_concept(h, t):
                    continue
                product.append({"head": [h["start"], h["end"]], "tail": [t["start"], t["end"]],
                                "label": label, "score": round(score, 4), "extractor": "relations"})
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
    batch = [["bias", "L=Method|Task", "bw=for"], ["never seen"], ["bias", "Lcue=Method|Task|for", "bw=for"]]
    index = model.features
    rows, starts = [], []
    for feats in batch:
        starts.append(len(rows))
        rows.extend({index[f] for f in feats if f in index})
    assert (model.row_scores(rows, starts) == model.batch_scores(batch)).all()
    assert decode_class(model.classes[0]) is None
