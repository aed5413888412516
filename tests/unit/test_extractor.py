"""The extraction pipeline on single sentences: labels, roles, evidence, generic words."""

from __future__ import annotations

import pytest

from extractors import extract_mentions, load_pipeline
from kg.model import Paper


def mentions(nlp, text: str):
    paper = Paper(id="p", abstract=text)
    ((_, found),) = list(extract_mentions(nlp, [paper]))
    return found


def spans(nlp, text: str) -> set[tuple[str, str]]:
    return {(m.text, m.label) for m in mentions(nlp, text)}


def test_proposed_coined_name_with_appositive_is_a_proposed_method(nlp):
    found = mentions(
        nlp, "We introduce String Seed of Thought (SSoT), a novel prompting method for LLMs."
    )
    by_text = {m.text: m for m in found}
    assert by_text["String Seed of Thought"].label == "METHOD"
    assert by_text["SSoT"].label == "METHOD" and by_text["SSoT"].role == "proposed"
    assert by_text["SSoT"].long_form == "String Seed of Thought"
    assert by_text["LLMs"].label == "METHOD"


def test_task_from_the_long_form_head_noun(nlp):
    assert ("Probabilistic Instruction Following", "TASK") in spans(
        nlp, "SSoT improves Probabilistic Instruction Following (PIF) in practice."
    )


def test_datasets_by_name_shape_and_gazetteer(nlp):
    found = spans(
        nlp,
        "Our experiments on NoveltyBench and GOT-10k show gains. We use web-scale datasets such as LAION-400M.",
    )
    assert {("NoveltyBench", "DATASET"), ("GOT-10k", "DATASET"), ("LAION-400M", "DATASET")} <= found


def test_metrics_from_the_gazetteer_are_case_sensitive():
    from extractors import load_pipeline

    rules = load_pipeline(
        statistical=False
    )  # the gazetteer's span rulers serve the rules-only pipeline
    found = spans(rules, "It delivers an AO of 70.6% on GOT-10k while running at 343 FPS.")
    assert {("AO", "METRIC"), ("FPS", "METRIC")} <= found
    assert ("RECALL", "METRIC") not in spans(rules, "We propose RECALL, a multi-modal framework.")


def test_generic_words_never_become_mentions(nlp):
    found = {
        t.lower()
        for t, _ in spans(
            nlp,
            "Our method outperforms the baseline methods on this task in extensive experiments.",
        )
    }
    assert not found & {
        "our method",
        "method",
        "baseline methods",
        "this task",
        "task",
        "experiments",
        "extensive experiments",
    }


def test_numbers_and_bare_component_words_are_generic():
    from extractors.lexicon import is_generic

    assert all(
        is_generic(p) for p in ("39%", "12.5", "encoder", "the pretrained models", "Ablation")
    )
    assert not any(
        is_generic(p) for p in ("T5", "3D reconstruction", "Transformer encoder", "GPT-4")
    )


def test_vague_descriptions_are_generic_but_names_that_start_alike_are_not():
    from extractors.lexicon import is_generic

    vague = (
        "training-free framework",
        "closed-form solution",
        "reasoning process",
        "base model",
        "powerful generative frameworks",
        "End-to-End deep learning models",
        "theoretical foundation",
    )
    assert all(is_generic(p) for p in vague)
    named = (
        "large language model",
        "natural language inference",
        "generative retrieval",
        "score function",
        "teacher forcing",
        "Gaussian process",
        "diffusion transformers",
        "hybrid attention",
    )
    assert not any(is_generic(p) for p in named)


def test_the_generic_list_follows_the_in_domain_dev_split():
    """Metrics and tasks the annotators mark are no generic words; broad fields are (docs/experiments.md)."""
    from extractors.lexicon import is_generic

    assert not any(
        is_generic(p)
        for p in ("accuracy", "Accuracy", "classification", "sample complexity", "time complexity")
    )
    assert all(
        is_generic(p)
        for p in ("machine learning", "Deep Learning", "AI", "NLP", "natural language processing")
    )
    # model families are METHODs (guidelines), though each of their words alone is generic
    assert not any(
        is_generic(p) for p in ("diffusion models", "Large Reasoning Models", "reasoning model")
    )
    assert all(
        is_generic(p) for p in ("diffusion", "reasoning", "language models", "generative models")
    )


def test_a_span_cut_through_latex_math_is_no_mention(nlp):
    text = (
        "While accelerated gradient descent (AGD) is known to reach the optimal complexity "
        "$\\mathcal{O}(\\sqrt{L} R / \\sqrt{\\varepsilon})$ under $L$-smoothness, we propose BoundNet."
    )
    found = spans(nlp, text)
    assert not any(
        t.count("$") % 2 for t, _ in found
    )  # the NER reads "optimal complexity $" as a metric
    assert {("AGD", "METHOD"), ("BoundNet", "METHOD")} <= found


def test_mention_keeps_sentence_offsets_and_extractor(nlp):
    text = "Scaling is hard. We evaluate on ImageNet with top-1 accuracy."
    m = next(m for m in mentions(nlp, text) if m.text == "ImageNet")
    assert text[m.start : m.end] == "ImageNet"
    assert m.sentence == "We evaluate on ImageNet with top-1 accuracy." and m.sent_start == 17
    from extractors.mentions import PRIORITY

    assert m.extractor in dict(PRIORITY) and 0 < m.score <= 1


def test_pipeline_with_rules_saves_and_loads_with_plain_spacy_load(tmp_path):
    import spacy

    from extractors import load_pipeline

    load_pipeline(statistical=False).to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    doc = loaded("Web-scale datasets such as LAION-400M. We use large language models (LLMs).")
    found = {(m["text"], m["label"]) for m in doc.user_data["kg_mentions"]}
    assert {
        ("LAION-400M", "DATASET"),
        ("LLMs", "METHOD"),
        ("large language models", "METHOD"),
    } <= found


def test_acronym_glued_to_a_suffix_is_still_its_own_mention(nlp):
    found = mentions(
        nlp, "We use large language models (LLMs)-based agents and Mixture of Experts (MoE). MoE."
    )
    texts = [m.text for m in found]
    assert "LLMs" in texts and "LLMs)-based" not in texts
    assert "MoE." not in texts and texts.count("MoE") == 2


def test_acronyms_in_text_with_missing_spaces_are_their_own_mentions(nlp):
    found = [
        m.text
        for m in mentions(
            nlp,
            "We study large language models (LLMs).Despite this, "
            "retrieval-augmented generation(RAG) and energy-based models (EBMs)---to that end.",
        )
    ]
    assert {"LLMs", "RAG", "EBMs"} <= set(found)
    assert not [t for t in found if ")" in t or "(" in t]


def test_a_definition_takes_the_head_noun_after_its_parenthesis(nlp):
    found = spans(
        nlp,
        "We propose Sequence Transformation and Mixed Precision (STaMP) quantization, "
        "a novel strategy for LVMs.",
    )
    assert ("STaMP", "METHOD") in found and ("STaMP", "METRIC") not in found
    # a data-set head makes a data set of a named long form only, not of a kind of data
    assert ("LRA", "DATASET") in spans(nlp, "We test on the Long Range Arena (LRA) benchmark.")
    found = spans(
        nlp, "Existing methods to create question-answer (QA) datasets depend on limited data."
    )
    assert not {("QA", "DATASET"), ("question-answer", "DATASET")} & found


def test_a_known_short_form_with_another_long_form_is_not_the_known_thing(nlp):
    # the gazetteer knows MAE as mean absolute error, a metric; this paper means something else
    found = spans(
        nlp, "This framework unifies masked autoencoding (MAE) and joint-embedding prediction."
    )
    assert ("MAE", "METRIC") not in found and ("masked autoencoding", "METRIC") not in found


@pytest.mark.parametrize("statistical", [True, False], ids=["shipped", "rules-only"])
def test_analyze_pipes_finds_every_requirement_met_in_the_shipped_order(statistical):
    nlp = load_pipeline(statistical=statistical)
    analysis = nlp.analyze_pipes()
    assert analysis["problems"] == {name: [] for name in nlp.pipe_names}
    assert set(analysis["summary"]["kg_mentions"]["requires"]) == {"doc.sents", "doc.spans"}
    assert "doc.user_data" in analysis["summary"]["kg_roles"]["requires"]


def test_analyze_pipes_reports_the_mention_chooser_before_its_candidates():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("kg_mentions")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("kg_cues")
    assert sorted(nlp.analyze_pipes()["problems"]["kg_mentions"]) == ["doc.sents", "doc.spans"]
