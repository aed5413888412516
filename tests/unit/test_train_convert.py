"""extractors.convert: gold data to spaCy training docs."""

from __future__ import annotations

import json
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from extractors.convert import (
    conll_docs,
    is_dataset_name,
    longest_spans,
    scierc_docs,
    scirex_docs,
    write_docbin,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _ents(doc):
    return [(e.start, e.end - 1, e.label_) for e in doc.ents]


def test_longest_spans_keeps_outermost_of_nested_spans():
    assert longest_spans([(11, 12, "Material"), (12, 12, "Generic"), (0, 0, "Task")]) == [
        (0, 0, "Task"),
        (11, 12, "Material"),
    ]


def test_scierc_docs_use_gold_tokens_and_full_annotation():
    docs = list(scierc_docs(FIXTURES / "tiny_scierc.json", spacy.blank("en").vocab))
    doc = docs[0]
    assert len(doc) == 15 and doc[3].text == "vector"
    assert _ents(doc) == [(2, 4, "Method"), (6, 6, "Task"), (8, 8, "Metric"), (11, 12, "Material")]
    assert all(t.ent_iob_ in ("B", "I", "O") for t in doc)  # no missing tokens
    assert [s.start for s in doc.sents] == [0, 8]


def test_scierc_docs_can_split_dataset_names_out_of_material():
    docs = list(
        scierc_docs(FIXTURES / "tiny_scierc.json", spacy.blank("en").vocab, dataset_label=True)
    )
    assert (11, 12, "DATASET") in _ents(docs[0])


def test_is_dataset_name_tells_named_corpora_from_plain_materials():
    assert is_dataset_name(["Penn", "Treebank"])
    assert is_dataset_name(["MUC-6"])
    assert is_dataset_name(["TREC"])
    assert is_dataset_name(["WordNet"])
    assert not is_dataset_name(["parallel", "corpus"])
    assert not is_dataset_name(["images"])
    assert not is_dataset_name(["speech", "data"])


def test_conll_docs_map_labels_and_leave_other_tokens_missing():
    docs = list(conll_docs(FIXTURES / "tiny_tdmsci.conll", spacy.blank("en").vocab))
    doc = docs[0]
    assert _ents(doc) == [(2, 2, "Metric"), (4, 5, "DATASET"), (7, 8, "Task")]
    assert doc[0].ent_iob_ == ""  # missing, not O: TDMSci does not annotate methods
    only = list(conll_docs(FIXTURES / "tiny_tdmsci.conll", spacy.blank("en").vocab, keep=[2]))
    assert len(only) == 1 and _ents(only[0]) == [(0, 1, "Task"), (3, 3, "Metric")]


def test_scirex_docs_keep_sentences_with_mentions_and_exclusive_ends():
    docs = list(scirex_docs(FIXTURES / "tiny_scirex.jsonl", spacy.blank("en").vocab))
    assert [[t.text for t in d] for d in docs] == [
        ["We", "train", "ResNet", "on", "ImageNet", "."],
        ["Top-1", "accuracy", "rises", "."],
    ]
    assert _ents(docs[0]) == [(2, 2, "Method"), (4, 4, "DATASET")]
    assert _ents(docs[1]) == [(0, 1, "Metric")]


def test_write_docbin_round_trips(tmp_path):
    vocab = spacy.blank("en").vocab
    path = tmp_path / "out.spacy"
    assert write_docbin(scierc_docs(FIXTURES / "tiny_scierc.json", vocab), path) == 2
    back = list(DocBin().from_disk(path).get_docs(vocab))
    assert _ents(back[0])[0] == (2, 4, "Method")
    assert [s.start for s in back[0].sents] == [0, 8]


def test_default_data_dir_prefers_the_environment(monkeypatch, tmp_path):
    from extractors.train import default_data_dir

    monkeypatch.setenv("KG_SHARED_DATA", str(tmp_path))
    assert default_data_dir() == tmp_path
    monkeypatch.delenv("KG_SHARED_DATA")
    assert default_data_dir().parts[-2:] == ("shared", "data")


def test_trimmed_pipeline_config_names_no_machine_paths(tmp_path):
    from spacy.util import load_config

    from extractors.train import _trim

    nlp = spacy.blank("en")
    nlp.config["paths"]["train"] = str(tmp_path / "train.spacy")
    nlp.to_disk(tmp_path / "model")
    _trim(tmp_path / "model")
    config = load_config(tmp_path / "model" / "config.cfg", interpolate=False)
    assert set(config["paths"].values()) == {None}
    assert str(tmp_path) not in (tmp_path / "model" / "config.cfg").read_text()
    assert spacy.load(tmp_path / "model").meta["name"] == "sci_ner"


def _write_corpus(path, abstracts):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for i, abstract in enumerate(abstracts):
            out.write(
                json.dumps({"id": str(i), "title": f"Paper {i}", "abstract": abstract}) + "\n"
            )


def test_pretrain_text_keeps_distinct_full_abstracts_in_a_seeded_order(tmp_path):
    from extractors.train import pretrain_text

    long = [f"We study problem {i} with a transformer encoder. " * 6 for i in range(6)]
    _write_corpus(
        tmp_path / "data" / "corpora" / "a.jsonl", [long[0], long[1], "Too short.", long[2]]
    )
    _write_corpus(tmp_path / "data" / "corpora" / "b.jsonl", [long[1], *long[3:]])  # long[1] again
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert pretrain_text(tmp_path / "data", first, n=100) == 6
    assert pretrain_text(tmp_path / "data", second, n=4) == 4
    texts = [json.loads(line)["text"] for line in first.read_text().splitlines()]
    assert sorted(t.split(". ", 1)[1] for t in texts) == sorted(a.strip() for a in long)
    assert all(t.startswith("Paper ") for t in texts)  # the title leads, case kept
    assert [json.loads(line)["text"] for line in second.read_text().splitlines()] == texts[:4]


def test_pretrained_tok2vec_weights_initialise_the_committed_config(tmp_path):
    """The committed config pretrains (spacy pretrain) and its final model can start from the weights."""
    from spacy.training.initialize import init_tok2vec
    from spacy.util import load_config, load_model_from_config

    from extractors.train import CONFIG, pretrain_tok2vec

    abstracts = [
        f"We evaluate model {i} on ImageNet and report top-1 accuracy for image classification. "
        * 3
        for i in range(12)
    ]
    _write_corpus(tmp_path / "data" / "corpora" / "a.jsonl", abstracts)
    weights = pretrain_tok2vec(tmp_path / "data", tmp_path / "pretrain", texts=12)
    assert weights.name == "model-last.bin" and weights.stat().st_size > 100_000

    # what `spacy train` does with [initialize] init_tok2vec: the weights load into the config's tok2vec
    config = load_config(CONFIG, overrides={"paths.init_tok2vec": str(weights)}, interpolate=False)
    nlp = load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    init_tok2vec(nlp, config.interpolate()["pretraining"], config.interpolate()["initialize"])
    doc = nlp("We evaluate ResNet on ImageNet.")
    assert doc.tensor.shape == (6, 96)


def _annotated(tmp_path, text, entities, name="gold.jsonl"):
    path = tmp_path / name
    ents = []
    for ent_name, label, role, forms in entities:
        spans, start = [], 0
        for form in forms:
            start = text.index(form, start)
            spans.append([start, start + len(form)])
            start += len(form)
        ents.append({"name": ent_name, "label": label, "role": role, "mentions": spans})
    path.write_text(
        json.dumps({"id": "a1", "source": "t", "text": text, "entities": ents}) + "\n",
        encoding="utf-8",
    )
    return path


def test_annotation_docs_put_the_gold_on_the_text_kg_reads(tmp_path):
    from extractors.convert import annotation_docs
    from kg.annotations import load

    text = "We propose \\textbf{FARTrack}, an autoregressive tracker,\n evaluated on GOT-10k for visual tracking."
    path = _annotated(
        tmp_path,
        text,
        [
            ("FARTrack", "METHOD", "proposed", ["FARTrack"]),
            ("GOT-10k", "DATASET", "used", ["GOT-10k"]),
            ("visual tracking", "TASK", None, ["visual tracking"]),
        ],
    )
    doc = next(annotation_docs(load([path])))
    assert "\\textbf" not in doc.text and "\n" not in doc.text  # normalised, as kg build reads it
    assert [(e.text, e.label_) for e in doc.ents] == [
        ("FARTrack", "METHOD"),
        ("GOT-10k", "DATASET"),
        ("visual tracking", "TASK"),
    ]
    assert all(
        t.ent_iob_ == "O" for t in doc if t.ent_type_ == ""
    )  # the rest is known not to be an entity


def test_product_corpora_speak_the_four_labels(tmp_path):
    from extractors.train import build_product_corpora

    data = tmp_path / "data"
    (data / "scierc").mkdir(parents=True)
    (data / "scierc" / "train.json").write_text((FIXTURES / "tiny_scierc.json").read_text())
    gold = _annotated(
        tmp_path,
        "LoRA adapts LLaMA on MMLU.",
        [("LoRA", "METHOD", "used", ["LoRA"]), ("MMLU", "DATASET", "used", ["MMLU"])],
    )
    paths = build_product_corpora(
        data,
        tmp_path / "corpus",
        annotations=[gold],
        dev=[gold],
        annotations_repeat=2,
        scierc_repeat=1,
        tdmsci=False,
        scirex_sample=0.0,
    )
    vocab = spacy.blank("en").vocab
    train = list(DocBin().from_disk(paths["train"]).get_docs(vocab))
    assert len(train) == 2 + 2  # the abstract twice, SciERC's two docs once
    labels = {e.label_ for doc in train for e in doc.ents}
    assert labels == {
        "METHOD",
        "DATASET",
        "TASK",
        "METRIC",
    }  # SciERC's Penn Treebank is a named DATASET
    scierc = train[2]
    assert [(e.text, e.label_) for e in scierc.ents] == [
        ("support vector machines", "METHOD"),
        ("parsing", "TASK"),
        ("Accuracy", "METRIC"),
        ("Penn Treebank", "DATASET"),
    ]
    assert len(list(DocBin().from_disk(paths["dev"]).get_docs(vocab))) == 1
