"""extractors.relations: pair features, the linear model, the kg_relations component and relation scoring."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import spacy
from spacy.tokens import Span

from extractors.relations import (
    MODEL_DIR,
    NONE,
    RelationModel,
    decode_class,
    pair_features,
    predict_sentence,
    same_concept,
    sentence_candidates,
)
from kg.errors import ModelError
from kg.evaluation import evaluate, prediction_records, read_scierc, score_relations

FIXTURES = Path(__file__).parents[1] / "fixtures"
CLASSES = [NONE, "USED-FOR>", "USED-FOR<", "CONJUNCTION>", "CONJUNCTION<"]
SENTENCE = "We use support vector machines for parsing .".split()


def tiny_model(threshold: float = 0.0) -> RelationModel:
    """'for' between a Method and a Task means USED-FOR, 'and' means CONJUNCTION; else NONE."""
    features = {"bias": 0, "Lcue=Method|Task|for": 1, "Lcue=Method|Method|and": 2}
    weights = np.zeros((3, len(CLASSES)), dtype=np.float32)
    weights[0, 0] = 1.0
    weights[1, 1] = 3.0
    weights[2, 3] = 3.0
    return RelationModel(CLASSES, features, weights, threshold)


def test_pair_features_see_labels_words_between_and_distance():
    lower = [w.lower() for w in SENTENCE]
    ents = [(2, 5, "Method"), (6, 7, "Task")]
    feats = pair_features(lower, 0, len(lower), ents, 0, 1)
    assert {
        "L=Method|Task",
        "ha=machines",
        "hb=parsing",
        "bw=for",
        "bseq=for",
        "dist=1",
        "Lcue=Method|Task|for",
        "before=use",
        "after=.",
        "we_before",
        "nmid=0",
    } <= set(feats)


def test_pair_features_mark_adjacent_spans():
    lower = ["a", "b", "c"]
    feats = pair_features(lower, 0, 3, [(0, 1, "Method"), (1, 2, "Task")], 0, 1)
    assert "bw=<none>" in feats and "dist=0" in feats


def test_pair_features_say_where_the_pair_sits_among_the_spans():
    lower = [w.lower() for w in SENTENCE]
    ents = [(0, 1, "Generic"), (2, 5, "Method"), (6, 7, "Task")]
    feats = pair_features(lower, 0, len(lower), ents, 1, 2)
    assert {"a_notfirst", "b_last", "Lpos=Method|Task|01"} <= set(feats)
    assert {"a_first", "b_notlast", "Lpos=Generic|Method|10"} <= set(
        pair_features(lower, 0, len(lower), ents, 0, 1)
    )


def test_sentence_candidates_dedupe_by_span_and_sort():
    assert sentence_candidates([(4, 5, "Task"), (0, 2, "Method"), (4, 5, "Generic")]) == [
        (0, 2, "Method"),
        (4, 5, "Task"),
    ]


def test_decode_class_gives_label_and_direction():
    assert decode_class("USED-FOR>") == ("USED-FOR", True)
    assert decode_class("PART-OF<") == ("PART-OF", False)
    assert decode_class(NONE) is None


def test_predict_sentence_finds_used_for_in_text_order():
    lower = [w.lower() for w in SENTENCE]
    rels = predict_sentence(tiny_model(), lower, 0, len(lower), [(6, 7, "Task"), (2, 5, "Method")])
    assert [(h, t, label) for h, t, label, _ in rels] == [
        ((2, 5, "Method"), (6, 7, "Task"), "USED-FOR")
    ]
    assert 0.5 < rels[0][3] <= 1.0


def test_predict_sentence_never_pairs_overlapping_spans():
    lower = [w.lower() for w in SENTENCE]
    assert (
        predict_sentence(tiny_model(-5.0), lower, 0, len(lower), [(2, 5, "Method"), (3, 5, "Task")])
        == []
    )


def test_threshold_favours_none():
    lower = [w.lower() for w in SENTENCE]
    assert (
        predict_sentence(
            tiny_model(threshold=5.0), lower, 0, len(lower), [(2, 5, "Method"), (6, 7, "Task")]
        )
        == []
    )


def test_model_round_trips_through_disk(tmp_path):
    model = tiny_model(threshold=-0.5)
    model.meta = {"note": "tiny"}
    model.to_disk(tmp_path / "rel")
    back = RelationModel.from_disk(tmp_path / "rel")
    assert back.classes == CLASSES and back.features == model.features and back.threshold == -0.5
    assert back.meta == {"note": "tiny"}
    np.testing.assert_allclose(
        back.scores(["bias", "Lcue=Method|Task|for"]),
        model.scores(["bias", "Lcue=Method|Task|for"]),
        atol=1e-3,
    )


def test_batch_scores_match_single_scores_and_ignore_unknown_features():
    model = tiny_model()
    batch = [["bias", "Lcue=Method|Task|for"], ["never seen"], ["bias", "Lcue=Method|Method|and"]]
    probs = model.batch_scores(batch)
    assert probs.shape == (3, len(CLASSES))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    for row, feats in zip(probs, batch):
        np.testing.assert_allclose(row, model.scores(feats))
    np.testing.assert_allclose(probs[1], np.full(len(CLASSES), 1 / len(CLASSES)))


def test_missing_model_names_the_directory(tmp_path):
    with pytest.raises(ModelError, match="model.json missing"):
        RelationModel.from_disk(tmp_path)


def test_same_concept_catches_acronym_and_identical_names():
    long = {
        "text": "Neural Additive Models",
        "short_form": "NAMs",
        "long_form": "Neural Additive Models",
    }
    short = {"text": "NAMs", "long_form": "Neural Additive Models", "short_form": "NAMs"}
    assert same_concept(long, short)
    assert same_concept({"text": "Llama-3"}, {"text": "llama-3"})
    assert not same_concept({"text": "BERT"}, {"text": "GLUE"})


def _doc_with_mentions(nlp):
    doc = nlp.make_doc("We use support vector machines and boosting for parsing .")
    doc.ents = [
        Span(doc, 2, 5, label="Method"),
        Span(doc, 6, 7, label="Method"),
        Span(doc, 8, 9, label="Task"),
    ]
    for token in doc:
        token.is_sent_start = token.i == 0
    svm, parsing = doc[2:5], doc[8:9]
    doc.user_data["kg_mentions"] = [
        {"label": "METHOD", "text": svm.text, "start": svm.start_char, "end": svm.end_char},
        {
            "label": "TASK",
            "text": parsing.text,
            "start": parsing.start_char,
            "end": parsing.end_char,
        },
    ]
    return doc


def test_component_writes_span_relations_and_product_relations_between_mentions(tmp_path):
    model = tiny_model()
    model.features["Lcue=Method|Task|and"] = (
        3  # "boosting" -> parsing has "for"; svm -> parsing has "and ... for"
    )
    model.weights = np.vstack([model.weights, np.zeros((1, len(CLASSES)), dtype=np.float32)])
    model.to_disk(tmp_path / "rel")
    nlp = spacy.blank("en")
    rel = nlp.add_pipe(
        "kg_relations", config={"model_path": str(tmp_path / "rel"), "min_score": 0.0}
    )
    doc = rel(_doc_with_mentions(nlp))
    spans = {
        (h0, h1, t0, t1, label) for h0, h1, t0, t1, label, _ in doc.user_data["kg_span_relations"]
    }
    assert (2, 5, 8, 9, "USED-FOR") in spans and (6, 7, 8, 9, "USED-FOR") in spans
    assert (2, 5, 6, 7, "CONJUNCTION") in spans
    svm = [doc[2:5].start_char, doc[2:5].end_char]
    parsing = [doc[8:9].start_char, doc[8:9].end_char]
    product = doc.user_data["kg_relations"]
    # only pairs whose both ends are kg mentions become product relations
    assert [(r["head"], r["tail"], r["label"], r["extractor"]) for r in product] == [
        (svm, parsing, "USED-FOR", "relations")
    ]
    assert isinstance(product[0]["score"], float)


def test_component_min_score_filters_product_relations_only(tmp_path):
    tiny_model().to_disk(tmp_path / "rel")
    nlp = spacy.blank("en")
    rel = nlp.add_pipe(
        "kg_relations", config={"model_path": str(tmp_path / "rel"), "min_score": 0.999}
    )
    doc = rel(_doc_with_mentions(nlp))
    assert doc.user_data["kg_relations"] == []
    assert doc.user_data["kg_span_relations"]


def test_component_without_entities_writes_empty_lists():
    nlp = spacy.blank("en")
    rel = nlp.add_pipe("kg_relations")
    doc = rel(nlp("Nothing to see here."))
    assert doc.user_data["kg_relations"] == [] and doc.user_data["kg_span_relations"] == []


def test_shipped_model_reads_used_for_from_the_gold_fixture_sentence():
    model = RelationModel.from_disk(MODEL_DIR)
    assert model.classes[0] == NONE and len(model.classes) == 15
    gold = next(read_scierc(FIXTURES / "tiny_scierc.json"))
    lower = [w.lower() for w in gold.words]
    ents = [(s, e + 1, label) for s, e, label in gold.ner[0]]
    rels = predict_sentence(model, lower, 0, len(gold.sentences[0]), ents)
    assert [(h[:2], t[:2], label) for h, t, label, _ in rels] == [((2, 5), (6, 7), "USED-FOR")]


def test_shipped_model_is_small():
    assert sum(p.stat().st_size for p in MODEL_DIR.iterdir()) < 5_000_000


def test_score_relations_needs_both_spans_and_the_label():
    golds = list(read_scierc(FIXTURES / "tiny_scierc.json"))
    exact = [[[(2, 4, 6, 6, "USED-FOR")], []], [[]]]
    assert score_relations(golds, exact)["f"] == 1.0
    wrong_label = [[[(2, 4, 6, 6, "PART-OF")], []], [[]]]
    scores = score_relations(golds, wrong_label)
    assert (scores["tp"], scores["fp"], scores["fn"]) == (0, 1, 1)
    wrong_span = [[[(3, 4, 6, 6, "USED-FOR")], []], [[]]]
    assert score_relations(golds, wrong_span)["f"] == 0.0
    assert set(scores["per_type"]) >= {"USED-FOR", "PART-OF", "CONJUNCTION"}


def test_prediction_records_write_predicted_relations_per_sentence():
    golds = list(read_scierc(FIXTURES / "tiny_scierc.json"))
    ner = [[[(2, 4, "Method"), (6, 6, "Task")], []], [[]]]
    rels = [[[(2, 4, 6, 6, "USED-FOR")], []], [[]]]
    records = list(prediction_records(golds, ner, "scierc", rels))
    assert records[0]["predicted_relations"] == [[[2, 4, 6, 6, "USED-FOR"]], []]
    assert "predicted_relations" not in next(prediction_records(golds, ner, "scierc"))


def test_evaluate_scores_relations_of_a_pipeline_with_kg_relations(tmp_path):
    """A pipeline whose NER is the gold spans (an entity ruler) and the shipped relation model."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "Method", "pattern": "support vector machines"},
            {"label": "Task", "pattern": "parsing"},
        ]
    )
    nlp.add_pipe("kg_relations")
    out = tmp_path / "pred.jsonl"
    result = evaluate(FIXTURES / "tiny_scierc.json", "scierc", nlp, save_predictions=out)
    assert result["relations"]["tp"] == 1 and result["relations"]["fp"] == 0
    first = json.loads(out.read_text().splitlines()[0])
    assert first["predicted_relations"] == [[[2, 4, 6, 6, "USED-FOR"]], []]


def test_training_candidates_carry_the_gold_direction():
    from extractors.relations_train import doc_examples

    gold = next(read_scierc(FIXTURES / "tiny_scierc.json"))
    examples = doc_examples([gold])[0]  # sentence 2: Metric x Material, Metric x Generic
    assert [cls for _, cls in examples] == ["USED-FOR>", NONE, NONE]
    reversed_spans = [[(6, 6, "Task"), (2, 4, "Method"), (0, 0, "Generic")], []]
    classes = sorted(cls for _, cls in doc_examples([gold], [reversed_spans])[0])
    assert classes == [NONE, NONE, "USED-FOR>"]


def test_tuned_margin_and_label_biases_fold_into_the_model():
    from extractors.relations_train import CLASSES as ALL
    from extractors.relations_train import count_scores, fold_label_biases, tune_biases

    # NONE always wins by 1 unless a margin below -1 lets the relation through
    gold = np.array([ALL.index("USED-FOR>"), ALL.index("USED-FOR>"), 0])
    scores = np.zeros((3, len(ALL)))
    scores[:, 0] = 1.0
    scores[:2, ALL.index("USED-FOR>")] = 0.2
    n_gold = np.array([2, 0, 0, 0, 0, 0, 0])
    assert count_scores(gold, scores, n_gold, np.zeros(len(ALL)))[0] == 0.0
    margin, biases, f = tune_biases(gold, scores, n_gold, per_label=False)
    assert margin < -0.8 and f == 1.0 and biases == [0.0] * 7
    model = RelationModel(list(ALL), {"bias": 0}, np.zeros((1, len(ALL)), dtype=np.float32))
    fold_label_biases(model, -1.0, [0.5, 0, 0, 0, 0, 0, 0.25])
    assert model.threshold == -1.0
    assert (
        model.weights[0, ALL.index("USED-FOR<")] == 0.5
        and model.weights[0, ALL.index("CONJUNCTION>")] == 0.25
    )


def test_fit_learns_a_cue_and_keeps_the_bias_row():
    from extractors.relations_train import fit

    examples = [(["bias", "Lcue=Method|Task|for"], "USED-FOR>")] * 5 + [
        (["bias", "bw=the"], NONE)
    ] * 5
    model = fit(examples, min_count=1)
    assert "bias" in model.features
    assert (
        model.classes[int(model.scores(["bias", "Lcue=Method|Task|for"]).argmax())] == "USED-FOR>"
    )
    assert model.classes[int(model.scores(["bias"]).argmax())] == NONE
