"""The bundled example corpus (57 ICLR 2026 abstracts) builds into a graph a reader agrees with."""

from __future__ import annotations

import pytest


def node_for(graph, name, label):
    node = graph.find(name, label=label)
    assert graph.nx.nodes[node]["label"] == label
    return node


#: Words a reader would not accept as a named method, task, data set or metric (independent of
#: extractors.lexicon, which the pipeline filters with).
READER_GENERIC = frozenset(
    """
method model approach framework algorithm system technique task problem dataset data benchmark metric
performance result results learning training inference evaluation encoder decoder sampling ablation
diffusion adaptation pretrained model architecture module layer network experiment experiments
analysis baseline optimization reasoning capability generation
""".split()
)


@pytest.mark.parametrize("label", ["Method", "Task", "Dataset", "Metric"])
def test_top_twenty_entities_per_label_are_named_things(example_graph, label):
    top = [
        example_graph.nx.nodes[node]["name"] for node, _support in example_graph.top(label, n=20)
    ]
    assert len(top) >= 15  # 57 abstracts: fewer than 20 data sets may be named at all
    generic = [
        name
        for name in top
        if name.casefold() in READER_GENERIC
        or name.casefold().removeprefix("pretrained ") in READER_GENERIC
        or not any(ch.isalpha() for ch in name)
    ]
    assert not generic, f"generic words among the top 20 {label} entities: {generic}"


def test_summary_counts_the_example_corpus(example_build):
    graph, summary = example_build.graph, example_build.summary
    assert summary.papers == 57 and summary.skipped == 0 and summary.duplicates == 0
    assert summary.mentions == sum(summary.mentions_by_label.values()) > 300
    assert graph.stats()["papers"] == 57


def test_string_seed_of_thought_and_ssot_are_one_proposed_method(example_graph):
    node = node_for(example_graph, "String Seed of Thought", "Method")
    assert example_graph.find("SSoT") == node
    (paper,) = example_graph.papers_with("Method", "SSoT")
    assert example_graph.nx.has_edge(paper, node, key="PROPOSES")
    assert example_graph.nx.nodes[paper]["name"] == "SSoT"  # derived label, no title given
    assert example_graph.nx.nodes[paper]["title_derived"] is True


def test_pif_is_one_task(example_graph):
    node = node_for(example_graph, "Probabilistic Instruction Following", "Task")
    assert example_graph.find("PIF", label="Task") == node
    assert {"PIF", "Probabilistic Instruction Following"} <= set(
        example_graph.nx.nodes[node]["aliases"]
    )


@pytest.mark.parametrize("name", ["NoveltyBench", "GOT-10k", "LAION-400M"])
def test_named_benchmarks_are_datasets(example_graph, name):
    node = node_for(example_graph, name, "Dataset")
    assert example_graph.papers_with("Dataset", name)
    assert example_graph.nx.nodes[node]["name"] == name


@pytest.mark.parametrize("name", ["AO", "FPS"])
def test_tracking_measures_are_metrics(example_graph, name):
    node_for(example_graph, name, "Metric")


def test_large_language_models_in_every_spelling_are_one_node(example_graph):
    node = example_graph.find("large language models", label="Method")
    for spelling in ("LLMs", "LLM", "Large Language Models", "large language model"):
        assert example_graph.find(spelling) == node
    nodes = [
        n
        for n, d in example_graph.nx.nodes(data=True)
        if "llm" in {a.lower() for a in d.get("aliases", [])}
    ]
    assert nodes == [node]
    assert example_graph.nx.nodes[node]["support"] >= 10


def test_every_paper_entity_edge_points_back_to_its_sentence(example_graph):
    G = example_graph.nx
    for u, _v, key, data in G.edges(keys=True, data=True):
        if key == "RELATED_TO":
            continue
        if G.nodes[u]["label"] != "Paper":  # entity -> entity: evidence names its papers
            for ev in data["evidence"]:
                assert ev["sentence"] in G.nodes[f"paper:{ev['paper_id']}"]["abstract"]
                assert ev["paper_id"] in data["papers"]
            continue
        abstract = G.nodes[u]["abstract"]
        for ev in data["evidence"]:
            assert abstract[ev["start"] : ev["end"]] == ev["text"]
            assert ev["sentence"] in abstract and ev["paper_id"] == u.removeprefix("paper:")


def test_related_papers_share_entities_and_rarer_ones_weigh_more(example_graph):
    G = example_graph.nx
    related = [(u, v, d) for u, v, k, d in G.edges(keys=True, data=True) if k == "RELATED_TO"]
    assert related
    for u, v, d in related:
        assert u < v and 0 < d["weight"] <= 1.0 + 1e-9
        shared = set(d["shared"])
        assert shared <= set(example_graph.entities_of(u)) & set(example_graph.entities_of(v))
        supports = [G.nodes[e]["support"] for e in d["shared"]]
        assert supports == sorted(supports)  # rarest first
