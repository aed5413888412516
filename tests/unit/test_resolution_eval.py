"""kg eval --resolution: kg's merges inside one abstract scored against gold coreference clusters."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from extractors import load_pipeline
from kg.evaluation import GoldDoc
from kg.resolution_eval import evaluate_resolution, gold_mentions, is_named, score_pairs

SENTENCES = [
    [
        "We",
        "train",
        "Convolutional",
        "Neural",
        "Networks",
        "-LRB-",
        "CNNs",
        "-RRB-",
        "on",
        "ImageNet",
        ".",
    ],
    ["The", "CNNs", "outperform", "this", "method", "and", "support", "vector", "machines", "."],
    ["Support", "vector", "machines", "fail", "on", "MNIST", "."],
]
NER = [
    [[2, 7, "Method"], [9, 9, "Material"]],
    [[12, 12, "Method"], [14, 15, "Generic"], [17, 19, "Method"]],
    [[21, 23, "Method"], [26, 26, "Material"]],
]
CLUSTERS = [[[2, 7], [12, 12], [14, 15]], [[17, 19], [21, 23]]]


@pytest.fixture(scope="module")
def gold_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("coref") / "dev.json"
    record = {
        "doc_key": "D1",
        "sentences": SENTENCES,
        "ner": NER,
        "relations": [[], [], []],
        "clusters": CLUSTERS,
    }
    path.write_text(json.dumps(record) + "\n")
    return path


def test_only_named_cluster_members_are_scored():
    gold = GoldDoc(
        "D1",
        SENTENCES,
        [[tuple(s) for s in spans] for spans in NER],
        clusters=[[tuple(s) for s in c] for c in CLUSTERS],
    )
    mentions = gold_mentions(gold)
    assert [(m.start, m.end, m.cluster) for m in mentions] == [
        (2, 7, 0),
        (12, 12, 0),
        (17, 19, 1),
        (21, 23, 1),
    ]
    assert not is_named("this method", "Method") and not is_named("it", "Method")
    assert is_named("the Penn Treebank", "Material")


def test_pairs_merged_across_clusters_cost_precision():
    both = score_pairs([0, 0, 1, 1], ["a", "a", "b", "b"])
    assert (both.tp, both.fp, both.fn) == (2, 0, 0)
    lumped = score_pairs([0, 0, 1], ["a", "a", "a"])
    assert (lumped.tp, lumped.fp, lumped.fn) == (1, 2, 0)
    unresolved = score_pairs([0, 0], [None, None])  # no entity is no merge
    assert (unresolved.tp, unresolved.fn) == (0, 1)


def test_acronym_definitions_and_plurals_merge_what_exact_strings_miss(gold_file):
    result = evaluate_resolution(str(gold_file), load_pipeline(statistical=False))
    assert result["named_mentions"] == 4 and result["gold_pairs"] == 2
    # "Convolutional Neural Networks (CNNs)" = "CNNs" through the definition; the SVM pair by case
    assert result["gold_mentions"]["tp"] == 2 and result["gold_mentions"]["fp"] == 0
    assert result["exact_string"]["tp"] == 1 and result["exact_string"]["fn"] == 1


def test_cli_prints_the_scores_as_json(gold_file):
    done = subprocess.run(
        [sys.executable, "-m", "kg.cli", "eval", str(gold_file), "--resolution", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["gold_pairs"] == 2 and result["gold_mentions"]["p"] == 1.0
    wrong = subprocess.run(
        [sys.executable, "-m", "kg.cli", "eval", str(gold_file), "--resolution", "-f", "conll"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert wrong.returncode != 0 and "coreference" in wrong.stderr
