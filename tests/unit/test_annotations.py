"""The in-domain annotations: every committed file is valid, the validator rejects what breaks the
format, the draft resolver turns forms into offsets, and the abstracts come from the allowed pool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.annotations import AnnotationError, load, project, resolve_draft, validate_record

ROOT = Path(__file__).resolve().parents[2]
ANN = ROOT / "data" / "annotations"
SPLITS = ("train", "dev", "test")
TEXT = "We propose String Seed of Thought (SSoT), a prompting method. SSoT beats CoT on GSM8K."


def _record(**over):
    rec = {
        "id": "x1",
        "source": "test",
        "text": TEXT,
        "annotator": "t",
        "pass": 2,
        "entities": [
            {
                "name": "String Seed of Thought",
                "label": "METHOD",
                "role": "proposed",
                "mentions": [[11, 33], [35, 39], [62, 66]],
            }
        ],
    }
    rec.update(over)
    return rec


def test_every_committed_annotation_file_is_valid_and_splits_are_disjoint():
    seen: dict[str, str] = {}
    counts = {}
    for split in SPLITS:
        recs = load([ANN / f"{split}.jsonl"])
        counts[split] = len(recs)
        for rec in recs:
            assert rec.id not in seen, f"{rec.id} is in {seen.get(rec.id)} and {split}"
            seen[rec.id] = split
            for ent in rec.entities:
                for s, e in ent.mentions:
                    assert rec.text[s:e].strip() == rec.text[s:e] != ""
    assert counts["dev"] >= 200 and counts["test"] >= 200 and sum(counts.values()) >= 1000
    for path in sorted((ANN / "double").glob("*.jsonl")):
        assert load([path]), path


def test_annotated_abstracts_are_the_pool_abstracts_of_their_split():
    splits = json.loads((ANN / "pool" / "splits.json").read_text())
    pool = {}
    for path in (ANN / "pool").glob("*.jsonl"):
        for line in path.open(encoding="utf-8"):
            row = json.loads(line)
            pool[row["id"]] = row
    allowed = {"iclr2026_submissions.jsonl"} | {
        f"papercopilot_{v}.jsonl" for v in ("nips", "icml", "iclr", "cvpr", "acl", "emnlp")
    }
    assert {row["source"] for row in pool.values()} <= allowed
    for split in SPLITS:
        for rec in load([ANN / f"{split}.jsonl"]):
            assert rec.text == pool[rec.id]["text"] and splits[rec.id] == split


def test_no_pool_abstract_is_an_accepted_iclr_2026_paper():
    from extractors.train import default_data_dir

    corpora = default_data_dir() / "corpora"
    accepted = {
        json.loads(line)["id"]
        for line in (corpora / "iclr2026_accepted.jsonl").open(encoding="utf-8")
    }
    decisions = {}
    for line in (corpora / "iclr2026_submissions.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        decisions[row["id"]] = row.get("decision")
    for path in (ANN / "pool").glob("*.jsonl"):
        for line in path.open(encoding="utf-8"):
            row = json.loads(line)
            assert row["id"] not in accepted
            if row["source"] == "iclr2026_submissions.jsonl":
                assert decisions[row["id"]] is None
            else:
                assert 2019 <= row["year"] <= 2025


@pytest.mark.parametrize(
    "change, problem",
    [
        (
            {"entities": [{"name": "X", "label": "MODEL", "role": "used", "mentions": [[11, 17]]}]},
            "label 'MODEL'",
        ),
        (
            {"entities": [{"name": "X", "label": "TASK", "role": "used", "mentions": [[11, 17]]}]},
            "role 'used' is not allowed",
        ),
        (
            {
                "entities": [
                    {"name": "X", "label": "METHOD", "role": "used", "mentions": [[11, 15]]}
                ]
            },
            "cuts through a word",
        ),
        (
            {
                "entities": [
                    {"name": "X", "label": "METHOD", "role": "used", "mentions": [[10, 17]]}
                ]
            },
            "white space",
        ),
        (
            {
                "entities": [
                    {"name": "X", "label": "METHOD", "role": "used", "mentions": [[80, 999]]}
                ]
            },
            "outside the text",
        ),
        (
            {
                "entities": [
                    {"name": "X", "label": "METHOD", "role": "used", "mentions": [[11, 33]]},
                    {"name": "Y", "label": "METHOD", "role": "used", "mentions": [[18, 22]]},
                ]
            },
            "overlap",
        ),
        (
            {"entities": [{"name": "X", "label": "METHOD", "role": "used", "mentions": []}]},
            "no mentions",
        ),
        ({"text": None}, "field 'text'"),
    ],
)
def test_validator_names_the_place_and_the_problem(change, problem):
    with pytest.raises(AnnotationError, match=problem) as err:
        validate_record(_record(**change), "f.jsonl:7")
    assert str(err.value).startswith("f.jsonl:7: ")


def test_a_bad_line_in_a_file_is_reported_with_its_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(
        json.dumps(_record()) + "\n" + json.dumps(_record(id="x2")) + "\n{oops\n", encoding="utf-8"
    )
    with pytest.raises(AnnotationError, match=r"a\.jsonl:3: not JSON"):
        load([path])
    path.write_text(json.dumps(_record()) + "\n" + json.dumps(_record()) + "\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match=r"a\.jsonl:2: id 'x1' appears twice"):
        load([path])


def test_resolve_draft_finds_every_occurrence_longest_form_first():
    text = "Time series (TS) forecasting with TS models and Transformers. Small transformers win."
    ents, errors, warnings = resolve_draft(
        text,
        [
            {
                "name": "Time series (TS) forecasting",
                "label": "TASK",
                "role": None,
                "forms": ["Time series (TS) forecasting"],
            },
            {"name": "TS models", "label": "METHOD", "role": "used", "forms": ["TS models"]},
            {
                "name": "Transformers",
                "label": "METHOD",
                "role": "used",
                "forms": ["Transformers", "TS"],
            },
        ],
    )
    by_name = {e["name"]: [text[s:t] for s, t in e["mentions"]] for e in ents}
    assert by_name["Time series (TS) forecasting"] == [
        "Time series (TS) forecasting"
    ]  # swallows its TS
    assert by_name["TS models"] == ["TS models"]
    assert by_name["Transformers"] == ["Transformers"]  # both TS are inside longer forms
    assert errors == []
    assert any(
        "'transformers'" in w for w in warnings
    )  # other casing, not annotated: a likely miss


def test_resolve_draft_reports_forms_that_do_not_occur():
    _, errors, _ = resolve_draft(
        TEXT, [{"name": "GPT", "label": "METHOD", "role": "used", "forms": ["GPT-4"]}]
    )
    assert errors and "does not occur" in errors[0]


def test_project_follows_markup_removal():
    from kg.corpus import normalise_abstract

    raw = "We propose \\textbf{FARTrack}, an  _autoregressive_ tracker."
    norm = normalise_abstract(raw)
    ((start, end),) = project(raw, norm, [(raw.index("FARTrack"), raw.index("FARTrack") + 8)])
    assert norm[start:end] == "FARTrack"
