"""kg.evaluation: the scorer, the gold readers and the --save-predictions format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Span

from kg.errors import CorpusError
from kg.evaluation import (
    PRF,
    GoldDoc,
    bio_to_spans,
    evaluate,
    map_label,
    predict,
    prediction_records,
    read_conll,
    read_scierc,
    score_spans,
    to_spacy_doc,
    write_predictions,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_prf_counts_a_set_comparison():
    prf = PRF()
    prf.score_set(
        {("d", 0, 1, "Task"), ("d", 3, 3, "Method")}, {("d", 0, 1, "Task"), ("d", 5, 6, "Metric")}
    )
    assert (prf.tp, prf.fp, prf.fn) == (1, 1, 1)
    assert prf.precision == 0.5 and prf.recall == 0.5 and prf.fscore == 0.5


def test_prf_is_zero_without_counts():
    assert PRF().fscore == 0.0 and PRF().precision == 0.0 and PRF().recall == 0.0


def test_prf_adds_counts():
    total = PRF(1, 2, 3) + PRF(4, 5, 6)
    assert (total.tp, total.fp, total.fn) == (5, 7, 9)


def test_score_spans_needs_exact_span_and_label():
    gold = {("a", 0, 1, "Task"), ("a", 4, 4, "Method"), ("b", 2, 3, "Metric")}
    pred = {("a", 0, 1, "Task"), ("a", 4, 5, "Method"), ("b", 2, 3, "Task")}
    scores = score_spans(pred, gold, labels=("Task", "Method", "Metric", "Material"))
    assert scores["p"] == pytest.approx(1 / 3)
    assert scores["r"] == pytest.approx(1 / 3)
    assert scores["per_type"]["Task"] == {
        "p": 0.5,
        "r": 1.0,
        "f": pytest.approx(2 / 3),
        "tp": 1,
        "fp": 1,
        "fn": 0,
    }
    assert scores["per_type"]["Method"]["f"] == 0.0
    assert scores["per_type"]["Material"] == {
        "p": 0.0,
        "r": 0.0,
        "f": 0.0,
        "tp": 0,
        "fp": 0,
        "fn": 0,
    }


def test_read_scierc_keeps_document_level_inclusive_spans():
    docs = list(read_scierc(FIXTURES / "tiny_scierc.json"))
    assert [d.key for d in docs] == ["X01-1001", "X01-1002"]
    first = docs[0]
    assert first.words[2:5] == ["support", "vector", "machines"]
    assert first.ner == [
        [(2, 4, "Method"), (6, 6, "Task")],
        [(8, 8, "Metric"), (11, 12, "Material"), (12, 12, "Generic")],
    ]
    assert first.relations[0] == [(2, 4, 6, 6, "USED-FOR")]
    assert first.n_tokens == 15


def test_read_scierc_names_file_and_line_of_a_bad_record(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"doc_key": "a", "sentences": [["x"]], "ner": [[]]}\n{"doc_key": 1}\n')
    with pytest.raises(CorpusError, match=r"bad.json:2"):
        list(read_scierc(bad))


def test_missing_gold_file_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match="nope.json"):
        list(read_scierc(tmp_path / "nope.json"))


def test_read_conll_gives_one_doc_per_sentence():
    docs = list(read_conll(FIXTURES / "tiny_tdmsci.conll"))
    assert [d.key for d in docs] == ["0", "1", "2"]
    assert docs[0].sentences[0][4:6] == ["WMT", "14"]
    assert docs[0].ner == [[(2, 2, "METRIC"), (4, 5, "DATASET"), (7, 8, "TASK")]]
    assert docs[1].ner == [[]]
    assert docs[2].ner == [[(0, 1, "TASK"), (3, 3, "METRIC")]]


def test_bio_to_spans_splits_on_b_and_label_change():
    assert bio_to_spans(["B-X", "I-X", "B-X", "I-Y", "O"]) == [
        (0, 1, "X"),
        (2, 2, "X"),
        (3, 3, "Y"),
    ]


def test_map_label_speaks_each_gold_vocabulary():
    assert map_label("DATASET", "scierc") == "Material"
    assert map_label("Generic", "scierc") == "Generic"
    assert map_label("Task", "conll") == "TASK"
    assert map_label("DATASET", "conll") == "DATASET"
    assert map_label("Method", "conll") is None
    assert map_label("Material", "conll") is None


class _Pipe:
    def __init__(self, table):
        self.nlp = spacy.blank("en")
        self.table = table
        self.vocab = self.nlp.vocab

    def pipe(self, docs, batch_size=64):
        for doc in docs:
            spans = self.table.get(tuple(t.text for t in doc), [])
            doc.ents = [Span(doc, s, e, label=label) for s, e, label in spans]
            yield doc


def test_to_spacy_doc_keeps_gold_tokens_and_sentences():
    gold = next(read_scierc(FIXTURES / "tiny_scierc.json"))
    doc = to_spacy_doc(spacy.blank("en").vocab, gold)
    assert [t.text for t in doc] == gold.words
    assert [s.start for s in doc.sents] == [0, 8]


def test_evaluate_scores_and_saves_predictions_in_gold_vocabulary(tmp_path):
    golds = list(read_scierc(FIXTURES / "tiny_scierc.json"))
    table = {
        tuple(golds[0].words): [(2, 5, "Method"), (6, 7, "Method"), (11, 13, "DATASET")],
        tuple(golds[1].words): [(0, 1, "Generic")],
    }
    out = tmp_path / "pred.jsonl"
    result = evaluate(FIXTURES / "tiny_scierc.json", "scierc", _Pipe(table), save_predictions=out)
    assert (result["docs"], result["tokens"]) == (2, 18)
    assert result["ents_per_type"]["Method"]["tp"] == 1
    assert result["ents_per_type"]["Material"]["tp"] == 1  # DATASET is scored as Material
    assert result["ents_per_type"]["Task"]["fn"] == 1
    assert result["ents_p"] == pytest.approx(3 / 4) and result["ents_r"] == pytest.approx(3 / 6)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0] == {
        "doc_key": "X01-1001",
        "sentences": golds[0].sentences,
        "predicted_ner": [[[2, 4, "Method"], [6, 6, "Method"]], [[11, 12, "Material"]]],
    }
    assert records[1]["predicted_ner"] == [[[0, 0, "Generic"]]]


def test_conll_predictions_drop_labels_tdmsci_lacks():
    golds = list(read_conll(FIXTURES / "tiny_tdmsci.conll"))
    table = {
        tuple(golds[0].words): [
            (2, 3, "Metric"),
            (4, 6, "DATASET"),
            (7, 9, "Task"),
            (0, 1, "Method"),
        ]
    }
    predicted = predict(golds, _Pipe(table), "conll")
    assert predicted[0] == [[(2, 2, "METRIC"), (4, 5, "DATASET"), (7, 8, "TASK")]]
    records = list(prediction_records(golds, predicted, "conll"))
    assert [r["doc_key"] for r in records] == [0, 1, 2]
    assert records[1]["predicted_ner"] == [[]]


def test_write_predictions_writes_one_json_object_per_line(tmp_path):
    gold = GoldDoc("k", [["a", "b"]], [[]])
    path = tmp_path / "p.jsonl"
    write_predictions(path, [gold], [[[(0, 1, "Task")]]], "scierc")
    assert json.loads(path.read_text()) == {
        "doc_key": "k",
        "sentences": [["a", "b"]],
        "predicted_ner": [[[0, 1, "Task"]]],
    }
