"""Resolution: one key normaliser, acronyms decided per paper, votes across the corpus."""

from __future__ import annotations

from kg.model import Mention, Paper
from kg.resolve import canonical_key, resolve


def m(paper, text, label="METHOD", **kw):
    return Mention(
        paper_id=paper,
        label=label,
        text=text,
        start=0,
        end=len(text),
        sentence=text,
        sent_start=0,
        extractor=kw.pop("extractor", "rule"),
        **kw,
    )


def test_canonical_key_unifies_case_dashes_and_plurals():
    assert (
        canonical_key("Large Language Models")
        == canonical_key("large language model")
        == "large language model"
    )
    assert canonical_key("LLMs") == "llm"
    assert canonical_key("chain-of-thought") == canonical_key("chain of thought")
    assert canonical_key("time–series data") == "time series data"  # en dash; "data" stays


def test_long_form_short_form_and_variants_are_one_entity():
    res = resolve(
        [
            (
                Paper(id="a", abstract="x"),
                [
                    m(
                        "a",
                        "Large Language Models",
                        long_form="Large Language Models",
                        short_form="LLMs",
                        extractor="acronym",
                    ),
                    m(
                        "a",
                        "LLMs",
                        long_form="Large Language Models",
                        short_form="LLMs",
                        extractor="acronym",
                    ),
                ],
            ),
            (Paper(id="b", abstract="y"), [m("b", "large language model"), m("b", "LLM")]),
        ]
    )
    (entity,) = res.entities.values()
    assert entity.id == "method:large language model"
    assert {"LLMs", "Large Language Models", "LLM", "large language model"} <= entity.aliases
    assert entity.papers == {"a", "b"}


def test_same_letters_different_expansions_stay_apart():
    res = resolve(
        [
            (
                Paper(id="a", abstract="x"),
                [m("a", "SDS", long_form="Score Distillation Sampling", short_form="SDS")],
            ),
            (
                Paper(id="b", abstract="y"),
                [m("b", "SDS", long_form="Stochastic Diffusion Search", short_form="SDS")],
            ),
            (
                Paper(id="c", abstract="z"),
                [m("c", "SDS", long_form="Stochastic Diffusion Search", short_form="SDS")],
            ),
            (Paper(id="d", abstract="w"), [m("d", "SDS")]),
        ]
    )
    ids = {eid for _, eid in res.assignments}
    assert ids == {"method:score distillation sampling", "method:stochastic diffusion search"}
    # the undefined use follows the corpus majority
    assert (
        dict((mm.paper_id, eid) for mm, eid in res.assignments)["d"]
        == "method:stochastic diffusion search"
    )
    assert res.stats.acronyms_resolved_by_vote == 1


def test_label_conflicts_are_settled_by_vote():
    res = resolve(
        [
            (Paper(id=p, abstract=p), [m(p, "FooBench", label=lab)])
            for p, lab in [("a", "DATASET"), ("b", "DATASET"), ("c", "METHOD")]
        ]
    )
    (entity,) = res.entities.values()
    assert entity.label == "DATASET" and entity.papers == {"a", "b", "c"}
    assert res.stats.label_conflicts == 1


def test_the_paper_that_introduces_a_name_decides_its_label():
    # "we propose RECALL" (a method); the NER calls its later mentions metrics
    res = resolve(
        [
            (
                Paper(id="a", abstract="x"),
                [m("a", "RECALL", role="proposed", extractor="cue")]
                + [m("a", "RECALL", label="METRIC", extractor="ner") for _ in range(3)],
            )
        ]
    )
    (entity,) = res.entities.values()
    assert entity.id == "method:RECALL" and entity.mention_count == 4


def test_generic_phrases_get_no_entity():
    res = resolve(
        [
            (
                Paper(id="a", abstract="x"),
                [m("a", "our method"), m("a", "the proposed framework"), m("a", "FooNet")],
            )
        ]
    )
    assert list(res.entities) == ["method:foonet"]
    assert res.stats.dropped_generic == 2


def test_proposed_role_is_kept_per_paper():
    res = resolve(
        [
            (Paper(id="a", abstract="x"), [m("a", "FooNet", role="proposed")]),
            (Paper(id="b", abstract="y"), [m("b", "FooNet")]),
        ]
    )
    assert res.proposed == {("a", "method:foonet")}


def test_all_caps_coined_name_does_not_join_a_lowercase_gazetteer_word():
    res = resolve(
        [
            (Paper(id="a", abstract="x"), [m("a", "RECALL", role="proposed", extractor="cue")]),
            (
                Paper(id="b", abstract="y"),
                [m("b", "recall", label="METRIC", canonical="recall", extractor="gazetteer")],
            ),
        ]
    )
    assert set(res.entities) == {"method:RECALL", "metric:recall"}
    assert ("a", "method:RECALL") in res.proposed


def test_spelling_variants_merge_within_a_label_and_say_why():
    res = resolve(
        [
            (Paper(id=p, abstract=p), [m(p, text)])
            for p, text in [
                ("a", "fine-tuning"),
                ("b", "finetuning"),
                ("c", "Fine Tuning"),
                ("d", "contrastive pretraining"),
                ("e", "contrastive pre-training"),
                ("f", "contrastive pretrainng"),
            ]
        ]
    )
    assert set(res.entities) == {"method:fine tuning", "method:contrastive pretraining"}
    why = {
        form: reasons
        for row in res.merges()
        for form_row in row["forms"]
        for form, reasons in [(form_row["form"], " ".join(form_row["reasons"]))]
    }
    assert "without spaces" in why["finetuning"]
    assert "fuzzy" in why["contrastive pretrainng"]
    assert res.stats.fuzzy_merges == 1


def test_fuzzy_matching_never_merges_different_numbers_or_labels():
    res = resolve(
        [
            (Paper(id=p, abstract=p), [m(p, text, label=lab)])
            for p, text, lab in [
                ("a", "GPT-3.5 Turbo", "METHOD"),
                ("b", "GPT-4.5 Turbo", "METHOD"),
                ("c", "ResNet-50 backbone", "METHOD"),
                ("d", "ResNet-50 backbones", "METHOD"),
                ("e", "video captioning", "TASK"),
                ("f", "video captioning", "METHOD"),
                ("g", "video captioning", "TASK"),
            ]
        ]
    )
    assert "method:gpt 3.5 turbo" in res.entities and "method:gpt 4.5 turbo" in res.entities
    assert (
        "method:resnet 50 backbone" in res.entities
        and len([e for e in res.entities if "resnet" in e]) == 1
    )
    assert [e for e in res.entities if "captioning" in e] == ["task:video captioning"]


def test_an_all_caps_acronym_is_not_a_plural():
    assert canonical_key("COTS") == "cots" != canonical_key("CoTs")
    res = resolve(
        [
            (
                Paper(id="a", abstract="x"),
                [m("a", "CoT", long_form="chain of thought", short_form="CoT")],
            ),
            (Paper(id="b", abstract="y"), [m("b", "COTS")]),
        ]
    )
    assert {eid for _, eid in res.assignments} == {"method:chain of thought", "method:cots"}


def test_undefined_acronym_needs_a_majority_of_the_definitions():
    defs = [("a", "Time Series Foundation Models"), ("b", "Tabular Foundation Models")]
    res = resolve(
        [
            (Paper(id=p, abstract=p), [m(p, "TFMs", long_form=long, short_form="TFMs")])
            for p, long in defs
        ]
        + [(Paper(id="c", abstract="z"), [m("c", "TFM")])]
    )
    assert dict(res.assignments)[res.assignments[-1][0]] == "method:tfm"  # 1 of 2 is no majority


def test_spellings_of_one_long_form_vote_together():
    defs = [
        ("a", "Rotary Position Embeddings"),
        ("b", "rotary positional embedding"),
        ("c", "Rotary Position Embedding"),
        ("d", "Relative Positional Encoding"),
        ("e", "Rotary Positional Embeddings"),
    ]
    res = resolve(
        [
            (Paper(id=p, abstract=p), [m(p, "RoPE", long_form=long, short_form="RoPE")])
            for p, long in defs
        ]
        + [(Paper(id="f", abstract="z"), [m("f", "RoPE")])]
    )
    entity = res.entities[dict((mm.paper_id, eid) for mm, eid in res.assignments)["f"]]
    assert entity.key.startswith("rotary position") and "f" in entity.papers


def test_mixed_case_acronym_only_counts_votes_for_its_own_spelling():
    res = resolve(
        [
            (
                Paper(id=p, abstract=p),
                [m(p, "VLLMs", long_form="video large language models", short_form="VLLMs")],
            )
            for p in "ab"
        ]
        + [(Paper(id="c", abstract="z"), [m("c", "vLLM")])]
    )
    assert dict((mm.paper_id, eid) for mm, eid in res.assignments)["c"] == "method:vllm"


def test_undefined_acronym_follows_the_definitions_with_its_label():
    papers = [(p, "super-resolution", "TASK") for p in "abc"] + [
        (p, "success rate", "METRIC") for p in "de"
    ]
    res = resolve(
        [
            (Paper(id=p, abstract=p), [m(p, "SR", label=label, long_form=long, short_form="SR")])
            for p, long, label in papers
        ]
        + [
            (Paper(id="f", abstract="z"), [m("f", "SR", label="METRIC")]),
            (Paper(id="g", abstract="w"), [m("g", "SR", label="TASK")]),
        ]
    )
    by_paper = dict((mm.paper_id, eid) for mm, eid in res.assignments)
    assert by_paper["f"] == "metric:success rate" and by_paper["g"] == "task:super resolution"


def test_fuzzy_never_merges_a_word_with_a_prefix():
    res = resolve(
        [
            (Paper(id=p, abstract=p), [m(p, text)])
            for p, text in [
                ("a", "deep research agents"),
                ("b", "deep research agent"),
                ("c", "deep search agents"),
                ("d", "rotary position embeddings"),
                ("e", "rotary positional embeddings"),
            ]
        ]
    )
    ids = set(res.entities)
    assert {"method:deep research agent", "method:deep search agent"} <= ids and len(
        ids
    ) == 3  # rotary: one


def test_model_versions_in_the_gazetteer_stay_apart():
    res = resolve(
        [
            (Paper(id=p, abstract=p), [m(p, name)])
            for p, name in [
                ("a", "GPT-4"),
                ("b", "GPT-4o"),
                ("c", "Llama-2"),
                ("d", "LLaMA-2"),
                ("e", "Llama 3"),
                ("f", "BERT"),
                ("g", "RoBERTa"),
            ]
        ]
    )
    names = {res.entities[eid].name for _, eid in res.assignments}
    assert names == {"GPT-4", "GPT-4o", "Llama 2", "Llama 3", "BERT", "RoBERTa"}


def test_a_papers_own_definition_wins_over_the_vote_whatever_the_order():
    """An acronym's meaning is decided once per spelling, except in a paper that defines it: its
    own uses keep its own long form, before and after other papers' uses went by the vote."""

    def defines(p, long):
        return (Paper(id=p, abstract=p), [m(p, "SDS", long_form=long, short_form="SDS")])

    res = resolve(
        [
            (Paper(id="d", abstract="d"), [m("d", "SDS")]),
            (
                Paper(id="a", abstract="a"),
                [m("a", "SDS", long_form="Score Distillation Sampling", short_form="SDS")]
                + [m("a", "SDS")],
            ),
            (Paper(id="e", abstract="e"), [m("e", "SDS"), m("e", "SDS")]),
            defines("b", "Stochastic Diffusion Search"),
            defines("c", "Stochastic Diffusion Search"),
        ]
    )
    by_paper: dict[str, set[str]] = {}
    for mention, eid in res.assignments:
        by_paper.setdefault(mention.paper_id, set()).add(eid)
    assert by_paper["a"] == {"method:score distillation sampling"}
    assert by_paper["d"] == by_paper["e"] == {"method:stochastic diffusion search"}
    assert res.stats.acronyms_resolved_by_vote == 3  # d's use and both of e's
