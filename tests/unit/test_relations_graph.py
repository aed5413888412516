"""Relations between mentions become typed entity -> entity edges with their papers and sentences."""

from __future__ import annotations

from kg.graph import build_graph
from kg.model import Mention, Paper, RelationMention
from kg.resolve import resolve, resolve_relations
from kg.schema import schema_relation

SENTENCE = "We evaluate FooNet for image classification on ImageNet in top-1 accuracy."


def mention(paper: str, text: str, label: str) -> Mention:
    start = SENTENCE.index(text)
    return Mention(
        paper_id=paper,
        label=label,
        text=text,
        start=start,
        end=start + len(text),
        sentence=SENTENCE,
        sent_start=0,
        extractor="test",
    )


def relation(paper: str, label: str, head: str, tail: str, score: float = 0.8) -> RelationMention:
    h, t = SENTENCE.index(head), SENTENCE.index(tail)
    return RelationMention(
        paper_id=paper,
        label=label,
        head_start=h,
        head_end=h + len(head),
        tail_start=t,
        tail_end=t + len(tail),
        sentence=SENTENCE,
        extractor="relations",
        score=score,
    )


def test_scierc_labels_map_onto_the_schema_with_direction():
    assert schema_relation("USED-FOR", "METHOD", "TASK") == ("USED_FOR", False)
    assert schema_relation("EVALUATE-FOR", "METRIC", "METHOD") == ("EVALUATES", False)
    assert schema_relation("EVALUATE-FOR", "DATASET", "METHOD") == ("EVALUATED_ON", True)
    assert schema_relation("HYPONYM-OF", "METHOD", "METHOD") == ("IS_A", False)
    assert schema_relation("CONJUNCTION", "METHOD", "METHOD") is None
    assert schema_relation("FEATURE-OF", "METRIC", "TASK") is None


def test_relations_become_entity_edges_with_support_across_papers():
    papers = [Paper(id=p, abstract=SENTENCE) for p in ("a", "b")]
    extracted = [
        (
            p,
            [
                mention(p.id, "FooNet", "METHOD"),
                mention(p.id, "image classification", "TASK"),
                mention(p.id, "ImageNet", "DATASET"),
                mention(p.id, "top-1 accuracy", "METRIC"),
            ],
        )
        for p in papers
    ]
    resolution = resolve(extracted)
    found = [relation(p.id, "USED-FOR", "FooNet", "image classification") for p in papers]
    found += [
        relation("a", "EVALUATE-FOR", "ImageNet", "FooNet"),
        relation("a", "EVALUATE-FOR", "top-1 accuracy", "FooNet"),
        relation("a", "CONJUNCTION", "FooNet", "ImageNet"),
    ]
    relations = resolve_relations(found, resolution)
    assert {(r.source, r.type, r.target) for r in relations} == {
        ("method:foonet", "USED_FOR", "task:image classification"),
        ("method:foonet", "EVALUATED_ON", "dataset:imagenet"),
        ("metric:top 1 accuracy", "EVALUATES", "method:foonet"),
    }
    G = build_graph(papers, resolution, relations)
    edge = G.edges["method:foonet", "task:image classification", "USED_FOR"]
    assert edge["papers"] == ["a", "b"] and edge["support"] == 2 and edge["count"] == 2
    assert edge["evidence"][0]["sentence"] == SENTENCE and edge["evidence"][0]["paper_id"] == "a"


def test_relations_with_an_end_that_is_no_entity_are_dropped():
    paper = Paper(id="a", abstract=SENTENCE)
    resolution = resolve([(paper, [mention("a", "FooNet", "METHOD")])])
    assert (
        resolve_relations([relation("a", "USED-FOR", "FooNet", "image classification")], resolution)
        == []
    )
