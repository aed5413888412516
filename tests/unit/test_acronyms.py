"""Schwartz & Hearst acronym definitions as pure functions."""

from __future__ import annotations

from extractors.acronyms import best_long_form, find_definitions, find_uses, initials_long_form


def pairs(text: str) -> list[tuple[str, str]]:
    return [(d.long, d.short) for d in find_definitions(text)]


def test_acronym_in_parentheses_links_to_long_form():
    assert pairs("We study Probabilistic Instruction Following (PIF) in LLMs.") == [
        ("Probabilistic Instruction Following", "PIF")
    ]


def test_plural_acronym_and_lowercase_long_form():
    assert pairs("Quantizing the weights of large language models (LLMs) is hard.") == [
        ("large language models", "LLMs")
    ]


def test_initials_preferred_over_shortest_letter_match():
    assert pairs("We train with Proximal Policy Optimization (PPO) and SAC.") == [
        ("Proximal Policy Optimization", "PPO")
    ]
    assert initials_long_form("PPO", "with Proximal Policy Optimization") == len("with ")


def test_mixed_case_short_forms():
    assert pairs("We introduce String Seed of Thought (SSoT), a method.") == [
        ("String Seed of Thought", "SSoT")
    ]
    assert pairs("Speculative sampling (SpS) has been successful.") == [
        ("Speculative sampling", "SpS")
    ]


def test_offsets_point_into_the_text():
    text = "Methods for 3D Gaussian Splatting (3DGS) are fast."
    (d,) = find_definitions(text)
    assert text[d.long_start : d.long_end] == "3D Gaussian Splatting"
    assert text[d.short_start : d.short_end] == "3DGS"


def test_numbers_citations_and_lists_are_not_acronyms():
    assert pairs("We improve accuracy (2023) and recall (i) and (1) results (see Table 2).") == []
    assert pairs("This works well (ours) in practice.") == []


def test_long_form_must_contain_the_letters():
    assert best_long_form("XYZ", "completely unrelated words") is None
    assert pairs("A fast method (XYZ) wins.") == []


def test_uses_of_a_short_form_include_its_plural():
    text = "An LLM is used. Several LLMs agree. LLM-based tools and CLLM do not count."
    assert [text[s:e] for s, e in find_uses(text, "LLM")] == ["LLM", "LLMs"]
