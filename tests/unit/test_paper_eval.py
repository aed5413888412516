"""Paper-level scoring of a graph against annotations, agreement, and ``kg eval`` on that format."""

from __future__ import annotations

import json

import networkx as nx
from typer.testing import CliRunner

from kg.annotations import validate_record
from kg.paper_eval import Item, agreement, match_items, score_graph, score_items

TEXT = (
    "We propose String Seed of Thought (SSoT) for Large Language Models (LLMs). "
    "SSoT improves LLMs on GSM8K accuracy."
)


def _gold():
    def spans(*forms):
        out, start = [], 0
        for f in forms:
            start = TEXT.index(f, start)
            out.append([start, start + len(f)])
            start += len(f)
        return out

    return validate_record(
        {
            "id": "p1",
            "source": "t",
            "text": TEXT,
            "entities": [
                {
                    "name": "String Seed of Thought",
                    "label": "METHOD",
                    "role": "proposed",
                    "mentions": spans("String Seed of Thought", "SSoT", "SSoT"),
                },
                {
                    "name": "Large Language Models",
                    "label": "METHOD",
                    "role": "used",
                    "mentions": spans("Large Language Models", "LLMs", "LLMs"),
                },
                {"name": "GSM8K", "label": "DATASET", "role": "used", "mentions": spans("GSM8K")},
                {
                    "name": "accuracy",
                    "label": "METRIC",
                    "role": None,
                    "mentions": spans("accuracy"),
                },
            ],
        },
        "t:1",
    )


def _graph(entities):
    """A graph with one paper linked to ``entities``: (id, node label, name, role, [mention texts])."""
    G = nx.MultiDiGraph()
    mentions = []
    for eid, _label, _name, _role, texts in entities:
        for t in texts:
            s = TEXT.index(t)
            mentions.append([s, s + len(t), "X", eid])
    G.add_node("paper:p1", label="Paper", abstract=TEXT, mentions=mentions)
    for eid, label, name, role, _texts in entities:
        G.add_node(eid, label=label, name=name)
        rel = "PROPOSES" if role == "proposed" and label == "Method" else "USES"
        G.add_edge("paper:p1", eid, key=rel, type=rel, role=role)
    return G


def test_aliases_match_one_to_one_and_splits_cost_a_false_positive():
    G = _graph(
        [
            (
                "method:string seed of thought",
                "Method",
                "String Seed of Thought",
                "proposed",
                ["SSoT"],
            ),
            (
                "method:large language model",
                "Method",
                "large language model",
                "used",
                ["LLMs"],
            ),  # matched by its mention
            ("method:llm", "Method", "LLM", "used", []),  # the same concept again: a false positive
            (
                "task:gsm8k",
                "Task",
                "GSM8K",
                "used",
                ["GSM8K"],
            ),  # wrong label: a false positive and a miss
        ]
    )
    result = score_graph(G, [_gold()], keep_errors=True)
    assert result["per_type"]["METHOD"]["tp"] == 2 and result["per_type"]["METHOD"]["fp"] == 1
    assert result["per_type"]["DATASET"]["fn"] == 1 and result["per_type"]["TASK"]["fp"] == 1
    assert result["per_type"]["METRIC"]["fn"] == 1
    assert (result["tp"], result["fp"], result["fn"]) == (2, 2, 2)
    assert result["proposes"]["tp"] == 1 and result["proposes"]["precision"] == 1.0
    assert ("METRIC", "accuracy") in result["errors"][0]["misses"]


def test_a_paper_missing_from_the_graph_finds_nothing():
    result = score_graph(nx.MultiDiGraph(), [_gold()])
    assert result["tp"] == 0 and result["fn"] == 4 and result["p"] == 0.0


def test_roles_are_scored_on_matched_methods_and_datasets():
    gold = [
        Item("METHOD", "a", frozenset({"a"}), True),
        Item("DATASET", "d", frozenset({"d"}), True),
        Item("METHOD", "b", frozenset({"b"}), False),
    ]
    pred = [
        Item("METHOD", "a", frozenset({"a"}), True),
        Item("DATASET", "d", frozenset({"d"}), False),
        Item("METHOD", "b", frozenset({"b"}), True),
        Item("METHOD", "z", frozenset({"z"}), True),
    ]
    roles = score_items([("p", pred, gold)])["proposes"]
    assert (roles["tp"], roles["fp"], roles["fn"]) == (1, 1, 1)
    assert roles["predicted"] == 3 and abs(roles["precision_all"] - 1 / 3) < 1e-9


def test_matching_prefers_the_pair_sharing_most_forms():
    pred = [
        Item("METHOD", "x", frozenset({"llm"}), False),
        Item("METHOD", "y", frozenset({"llm", "large language model"}), False),
    ]
    gold = [Item("METHOD", "g", frozenset({"llm", "large language model"}), False)]
    assert match_items(pred, gold) == [(1, 0)]


def test_an_annotator_agrees_with_itself():
    result = agreement([_gold()], [_gold()])
    assert result["abstracts"] == 1 and result["spans"]["f"] == 1.0 and result["paper"]["f"] == 1.0


def test_kg_eval_builds_and_scores_annotations(tmp_path):
    from kg.cli import app

    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps(_gold().to_json()) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["eval", str(path), "--rules-only", "--json", "-s", str(tmp_path / "errors.jsonl")]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["format"] == "annotations" and out["docs"] == 1
    assert set(out["paper"]["per_type"]) == {"METHOD", "DATASET", "TASK", "METRIC"}
    assert out["paper"]["tp"] >= 2  # the gazetteer knows GSM8K and LLMs; the cue finds SSoT
    assert out["spans"]["tp"] >= 2
    errors = [json.loads(line) for line in (tmp_path / "errors.jsonl").read_text().splitlines()]
    assert errors[0]["paper"] == "p1"


def test_kg_eval_names_the_bad_line_of_an_annotation_file(tmp_path):
    from kg.cli import app

    path = tmp_path / "gold.jsonl"
    bad = _gold().to_json()
    bad["entities"][0]["mentions"] = [[3, 9]]  # "propos" cuts a word
    path.write_text(
        json.dumps(_gold().to_json() | {"id": "ok"}) + "\n" + json.dumps(bad) + "\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["eval", str(path), "--rules-only"])
    assert result.exit_code != 0
    assert isinstance(result.exception, Exception) and "gold.jsonl:2" in str(result.exception)


def test_kg_train_checks_a_users_annotations_before_training(tmp_path):
    from kg.cli import app

    path = tmp_path / "ours.jsonl"
    bad = _gold().to_json()
    bad["entities"][0]["label"] = "MODEL"
    path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["train", "--annotations", str(path), "-o", str(tmp_path / "model")]
    )
    assert result.exit_code != 0
    assert "ours.jsonl:1" in str(result.exception) and "label 'MODEL'" in str(result.exception)
    assert not (tmp_path / "model").exists()
