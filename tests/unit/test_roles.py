"""kg_roles: concepts grouped per doc, features, the threshold chosen for precision, the pipeline
component; and the relation cut-offs that keep only precise labels."""

from __future__ import annotations

import json

import spacy

from extractors.roles import RoleModel, concept_groups, doc_concepts, fit_roles, window_features
from extractors.roles_train import choose_threshold


def _rec(text, start, label="METHOD", role="used", sent_start=0, **extra):
    return {
        "text": text,
        "start": start,
        "end": start + len(text),
        "label": label,
        "role": role,
        "sentence": "",
        "sent_start": sent_start,
        "extractor": "ner",
        **extra,
    }


def test_an_acronym_and_its_long_form_are_one_concept():
    records = [
        _rec("Neural Additive Models", 0, short_form="NAMs", long_form="Neural Additive Models"),
        _rec("NAMs", 24, short_form="NAMs", long_form="Neural Additive Models"),
        _rec("ImageNet", 40, label="DATASET"),
        _rec("nams", 60),
        _rec("accuracy", 70, label="METRIC"),
    ]
    assert concept_groups(records) == [[0, 1, 3], [2]]  # metrics have no role to decide


def test_the_threshold_is_the_lowest_with_the_precision_asked_for():
    model = RoleModel({"a": 3.0, "b": 1.0, "c": -1.0})
    examples = [
        (["a"], True),
        (["a"], True),
        (["b"], True),
        (["b"], False),
        (["c"], False),
        (["c"], True),
    ]
    threshold, at = choose_threshold(model, examples, min_precision=0.9)
    assert (
        abs(threshold - model.probability(["a"])) < 1e-9
        and at["precision"] == 1.0
        and at["recall"] == 0.5
    )
    threshold, at = choose_threshold(model, examples, min_precision=0.7)
    assert abs(threshold - model.probability(["b"])) < 1e-9 and at["recall"] == 0.75


def test_fit_roles_learns_that_coined_defined_names_are_proposed():
    pos = [["coined", "acronym_defined", "label=METHOD"]] * 20
    neg = [["gazetteer", "label=METHOD"]] * 20
    model = fit_roles([(f, True) for f in pos] + [(f, False) for f in neg])
    assert model.probability(pos[0]) > 0.8 > 0.2 > model.probability(neg[0])


def test_window_words_are_positional_and_stay_in_the_mention_sentence():
    text = "We beat ResNet. FooNet employs a gated memory, which helps. It ends here."
    mention = _rec(
        "gated memory",
        text.index("gated"),
        sent_start=16,
        sentence="FooNet employs a gated memory, which helps.",
    )
    feats = window_features(text, [mention])
    assert {
        "b0:a",
        "b1:employs",
        "b2:foonet",
        "bb:employs_a",
        "a0:,",
        "a1:which",
        "a2:helps",
    } <= set(feats)
    assert not any(
        f.endswith((":beat", ":resnet", ":it", ":ends")) for f in feats
    )  # other sentences
    assert "b3:foonet" not in feats  # positions count from the mention outwards


def test_kg_roles_sets_every_mention_of_a_concept(tmp_path):
    text = "We introduce FooNet (FN). FN beats ResNet."
    records = [
        _rec("FooNet", 13, short_form="FN", long_form="FooNet"),
        _rec("FN", 21, short_form="FN", long_form="FooNet"),
        _rec("FN", 26, sent_start=26),
        _rec("ResNet", 35, sent_start=26, role="proposed"),
    ]
    feats = {tuple(g): f for g, f in doc_concepts(text, records)}
    assert "acronym_defined" in feats[(0, 1, 2)] and "cue_proposed" in feats[(3,)]
    RoleModel({"acronym_defined": 4.0}, bias=-2.0, threshold=0.5).to_disk(tmp_path / "roles.json")
    nlp = spacy.blank("en")
    roles = nlp.add_pipe("kg_roles", config={"model_path": str(tmp_path / "roles.json")})
    doc = nlp(text)
    doc.user_data["kg_mentions"] = records
    roles(doc)
    assert [r["role"] for r in records] == ["proposed", "proposed", "proposed", "used"]


def test_load_pipeline_reads_the_roles_and_relation_cut_offs_of_kg_json(tmp_path):
    from extractors.pipeline import load_pipeline, update_settings

    nlp = spacy.blank("en")
    nlp.to_disk(tmp_path / "model")
    RoleModel({"coined": 1.0}, threshold=0.6).to_disk(tmp_path / "model" / "roles.json")
    update_settings(
        tmp_path / "model", roles="roles.json", relations={"label_min_scores": {"USED-FOR": 0.8}}
    )
    loaded = load_pipeline(tmp_path / "model")
    assert loaded.get_pipe("kg_roles").model.threshold == 0.6
    relations = loaded.get_pipe("kg_relations")
    assert relations.keeps("USED-FOR", 0.85) and not relations.keeps("USED-FOR", 0.7)
    assert not relations.keeps("HYPONYM-OF", 0.99)  # a label without a cut-off is never kept
    assert json.loads((tmp_path / "model" / "kg.json").read_text())["roles"] == "roles.json"


def test_relation_cut_offs_keep_only_labels_that_reach_the_precision():
    from kg.evaluation import GoldDoc, relation_operating_point

    gold = [
        GoldDoc(
            "d",
            [["w"] * 20],
            [[]],
            relations=[
                [
                    (0, 0, 2, 2, "USED-FOR"),
                    (4, 4, 6, 6, "USED-FOR"),
                    (8, 8, 10, 10, "USED-FOR"),
                    (12, 12, 14, 14, "COMPARE"),
                ]
            ],
        )
    ]
    scores = {
        ("d", 0, 0, 2, 2, "USED-FOR"): 0.95,
        ("d", 4, 4, 6, 6, "USED-FOR"): 0.9,
        ("d", 8, 8, 10, 10, "USED-FOR"): 0.8,
        ("d", 1, 1, 3, 3, "USED-FOR"): 0.7,
        ("d", 12, 12, 14, 14, "COMPARE"): 0.6,
        ("d", 5, 5, 9, 9, "COMPARE"): 0.9,
        ("d", 3, 3, 9, 9, "COMPARE"): 0.8,
    }
    point = relation_operating_point(gold, scores, min_precision=0.7, min_kept=3)
    assert point["label_min_scores"] == {
        "USED-FOR": 0.7
    }  # 3 of 4 right down to 0.7; COMPARE never 70%
    assert point["kept"] == 4 and point["p"] == 0.75 and point["r"] == 0.75


def test_finish_roles_refits_the_role_model_and_keeps_the_rest_of_kg_json(tmp_path):
    """What `kg train roles` runs: on a copy of the shipped pipeline, with a few annotated abstracts."""
    import shutil

    from extractors.pipeline import read_settings, shipped_model_path
    from extractors.train import ANNOTATIONS, finish_roles

    model = tmp_path / "model"
    shutil.copytree(shipped_model_path(), model)
    lines = (ANNOTATIONS / "dev.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "train.jsonl").write_text("\n".join(lines[:40]) + "\n", encoding="utf-8")
    (tmp_path / "dev.jsonl").write_text("\n".join(lines[40:80]) + "\n", encoding="utf-8")
    before = read_settings(model)
    roles = finish_roles(
        model, [tmp_path / "train.jsonl"], [tmp_path / "dev.jsonl"], min_precision=0.8
    )
    after = read_settings(model)
    assert after["relations"] == before["relations"] and after["roles"] == "roles.json"
    assert after["roles_dev"] == roles and roles["min_precision"] == 0.8 and roles["examples"] > 0
    assert "output" not in roles
    assert json.loads((model / "roles.json").read_text(encoding="utf-8")) != json.loads(
        (shipped_model_path() / "roles.json").read_text(encoding="utf-8")
    )
