"""The graph's vocabulary in one place: node labels, edge types, label vocabularies, node ids.

Every other module takes these names from here, so a new label or edge type is added once
(docs/architecture.md says how). Three label vocabularies meet in kg:

- the **product** labels a mention carries (``METHOD``, ``DATASET``, ``TASK``, ``METRIC``);
- the **node** labels of the graph, the same in NetworkX and Neo4j (``Method``, ``Dataset``, ...);
- the **training data's** labels: SciERC's six (``Material`` ...), TDMSci's three, SciREX's four,
  and the statistical model's (SciERC's six plus ``DATASET``).

This module imports nothing of kg but :mod:`kg.errors`; it is the bottom of the import order.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from .errors import KgError

__all__ = [
    "PAPER",
    "ENTITY",
    "ENTITY_LABELS",
    "LABEL_TO_NODE",
    "NODE_TO_LABEL",
    "ENTITY_NODE_LABELS",
    "NODE_LABELS",
    "PAPER_EDGE_FOR_LABEL",
    "PAPER_EDGE_TYPES",
    "ENTITY_EDGE_TYPES",
    "RELATED_TO",
    "RESULT_LABEL",
    "RESULT_RELATION_TYPES",
    "RESULT_KINDS",
    "RELATION_TYPES",
    "SCIERC_LABELS",
    "TDMSCI_LABELS",
    "SCIERC_RELATION_LABELS",
    "GRAPH_RELATION_LABELS",
    "MODEL_TO_PRODUCT",
    "PRODUCT_TO_SCIERC",
    "SCIERC_TO_PRODUCT",
    "SCIERC_TO_RESOLVER",
    "TDMSCI_TO_MODEL",
    "TDMSCI_TO_PRODUCT",
    "SCIREX_TO_MODEL",
    "SCIREX_TO_PRODUCT",
    "GOLD_LABEL_MAPS",
    "schema_relation",
    "PAPER_PREFIX",
    "paper_node_id",
    "paper_id_of",
    "is_paper_node",
    "as_nx",
]

# --------------------------------------------------------------------------------------------------
# node labels

#: Label of paper nodes.
PAPER = "Paper"
#: The extra Neo4j label every entity node carries (its full-text index is on it).
ENTITY = "Entity"

#: Product labels a mention can carry (the extractor vocabulary).
ENTITY_LABELS: tuple[str, ...] = ("METHOD", "DATASET", "TASK", "METRIC")

#: Graph node label for each mention label.
LABEL_TO_NODE: dict[str, str] = {
    "METHOD": "Method",
    "DATASET": "Dataset",
    "TASK": "Task",
    "METRIC": "Metric",
}
#: Mention label for each entity node label.
NODE_TO_LABEL: dict[str, str] = {node: label for label, node in LABEL_TO_NODE.items()}
#: Node labels of entities, in schema order.
ENTITY_NODE_LABELS: tuple[str, ...] = tuple(LABEL_TO_NODE.values())
#: Every node label of the schema, papers first.
NODE_LABELS: tuple[str, ...] = (PAPER, *ENTITY_NODE_LABELS)

# --------------------------------------------------------------------------------------------------
# edge types

#: Paper -> entity relationship type for each label (PROPOSES is decided per mention for methods).
PAPER_EDGE_FOR_LABEL: dict[str, str] = {
    "METHOD": "USES",
    "DATASET": "EVALUATES_ON",
    "TASK": "ADDRESSES",
    "METRIC": "REPORTS",
}
#: Paper -> entity relationship types.
PAPER_EDGE_TYPES: tuple[str, ...] = ("PROPOSES", "USES", "EVALUATES_ON", "ADDRESSES", "REPORTS")
#: Entity -> entity relationship types (read from sentences, see :func:`schema_relation`).
ENTITY_EDGE_TYPES: tuple[str, ...] = (
    "USED_FOR",
    "EVALUATED_ON",
    "EVALUATES",
    "PART_OF",
    "IS_A",
    "COMPARED_WITH",
)
#: Paper -> paper: papers that share entities and terms.
RELATED_TO = "RELATED_TO"
#: Node label of a numeric result a paper reports (``kg.results``). Not in :data:`NODE_LABELS`:
#: a Result is no entity, has no name to resolve and is not drawn on the page; it has its own
#: Neo4j constraint and lives beside its paper.
RESULT_LABEL = "Result"
#: Paper -> Result, and Result -> the Dataset it was measured on, the Metric, the Method it is of.
RESULT_RELATION_TYPES: tuple[str, ...] = ("REPORTS_RESULT", "ON", "MEASURED_BY", "OF")
#: What a result's value says: a score, an improvement over something, a reduction, a speed-up.
RESULT_KINDS: tuple[str, ...] = ("score", "improvement", "reduction", "speedup")
#: Every relationship type of the schema.
RELATION_TYPES: tuple[str, ...] = (
    *PAPER_EDGE_TYPES,
    *ENTITY_EDGE_TYPES,
    RELATED_TO,
    *RESULT_RELATION_TYPES,
)

# --------------------------------------------------------------------------------------------------
# the training data's vocabularies and how they map

#: SciERC's entity labels.
SCIERC_LABELS: tuple[str, ...] = (
    "Task",
    "Method",
    "Metric",
    "Material",
    "OtherScientificTerm",
    "Generic",
)
#: TDMSci's entity labels.
TDMSCI_LABELS: tuple[str, ...] = ("TASK", "DATASET", "METRIC")
#: SciERC's relation labels (what the relation classifier predicts).
SCIERC_RELATION_LABELS: tuple[str, ...] = (
    "USED-FOR",
    "EVALUATE-FOR",
    "FEATURE-OF",
    "HYPONYM-OF",
    "PART-OF",
    "COMPARE",
    "CONJUNCTION",
)
#: The SciERC relation labels that become graph edges (see :func:`schema_relation`).
GRAPH_RELATION_LABELS: tuple[str, ...] = (
    "USED-FOR",
    "EVALUATE-FOR",
    "HYPONYM-OF",
    "PART-OF",
    "COMPARE",
)

#: Statistical model labels (SciERC / TDMSci vocabularies) -> product labels; None = not an entity.
MODEL_TO_PRODUCT: dict[str, str | None] = {
    "Method": "METHOD", "METHOD": "METHOD",
    "Task": "TASK", "TASK": "TASK",
    "Metric": "METRIC", "METRIC": "METRIC",
    "Material": "DATASET", "DATASET": "DATASET", "Dataset": "DATASET", "MATERIAL": "DATASET",
    "OtherScientificTerm": None, "Generic": None,
}  # fmt: skip
#: Product mention labels -> the SciERC labels the relation classifier was trained on.
PRODUCT_TO_SCIERC: dict[str, str] = {
    "METHOD": "Method",
    "TASK": "Task",
    "METRIC": "Metric",
    "DATASET": "Material",
}
#: SciERC label (with Materials that look like names relabelled DATASET) -> product label;
#: OtherScientificTerm, Generic and other Materials are no entity.
SCIERC_TO_PRODUCT: dict[str, str] = {
    "Method": "METHOD",
    "Task": "TASK",
    "Metric": "METRIC",
    "DATASET": "DATASET",
}
#: SciERC label -> the label kg's resolver sees when resolution is scored (Generic spans are never
#: named).
SCIERC_TO_RESOLVER: dict[str, str] = {
    "Method": "METHOD",
    "Task": "TASK",
    "Metric": "METRIC",
    "Material": "DATASET",
    "OtherScientificTerm": "TERM",
}
#: TDMSci label -> model label.
TDMSCI_TO_MODEL: dict[str, str] = {"TASK": "Task", "DATASET": "DATASET", "METRIC": "Metric"}
#: TDMSci label -> product label.
TDMSCI_TO_PRODUCT: dict[str, str] = {"TASK": "TASK", "DATASET": "DATASET", "METRIC": "METRIC"}
#: SciREX label -> model label (SciREX's Material spans are data sets).
SCIREX_TO_MODEL: dict[str, str] = {
    "Method": "Method",
    "Task": "Task",
    "Metric": "Metric",
    "Material": "DATASET",
}
#: SciREX label -> product label.
SCIREX_TO_PRODUCT: dict[str, str] = {
    "Method": "METHOD",
    "Task": "TASK",
    "Metric": "METRIC",
    "Material": "DATASET",
}
#: Model label -> gold label, per gold format (``kg eval`` on SciERC or CoNLL). A label missing
#: here is not scored. The model speaks SciERC's six labels plus DATASET; the product's upper-case
#: labels are accepted too.
GOLD_LABEL_MAPS: dict[str, dict[str, str]] = {
    "scierc": {
        **{label: label for label in SCIERC_LABELS},
        "DATASET": "Material",
        "METHOD": "Method",
        "TASK": "Task",
        "METRIC": "Metric",
    },
    "conll": {
        "Task": "TASK",
        "TASK": "TASK",
        "Metric": "METRIC",
        "METRIC": "METRIC",
        "DATASET": "DATASET",
    },
}


def schema_relation(label: str, head: str, tail: str) -> tuple[str, bool] | None:
    """Schema type for a SciERC relation between entities labelled ``head`` and ``tail``, and
    whether the edge runs tail -> head; None for relations the schema does not keep.

    USED-FOR -> USED_FOR; EVALUATE-FOR -> EVALUATES (a metric evaluates a method or task) or
    EVALUATED_ON (a method or task evaluated on a data set: the edge is reversed); HYPONYM-OF ->
    IS_A; PART-OF -> PART_OF; COMPARE -> COMPARED_WITH. FEATURE-OF and CONJUNCTION say too little
    about the concepts themselves and are dropped.

    >>> schema_relation("EVALUATE-FOR", "DATASET", "METHOD")
    ('EVALUATED_ON', True)
    """
    if label == "USED-FOR":
        return "USED_FOR", False
    if label == "EVALUATE-FOR":
        if head == "METRIC":
            return "EVALUATES", False
        if head == "DATASET":
            return "EVALUATED_ON", True
        return None
    return {
        "HYPONYM-OF": ("IS_A", False),
        "PART-OF": ("PART_OF", False),
        "COMPARE": ("COMPARED_WITH", False),
    }.get(label)


# --------------------------------------------------------------------------------------------------
# node ids

#: Paper node ids are ``paper:<paper id>``; entity ids are ``<label>:<canonical key>``.
PAPER_PREFIX = "paper:"


def paper_node_id(paper_id: str) -> str:
    """Node id of a paper: ``paper:<id>``.

    >>> paper_node_id("57effd09")
    'paper:57effd09'
    """
    return f"{PAPER_PREFIX}{paper_id}"


def paper_id_of(node: str) -> str:
    """The paper id inside a paper node id (the id itself when it has no ``paper:`` prefix).

    >>> paper_id_of("paper:57effd09"), paper_id_of("57effd09")
    ('57effd09', '57effd09')
    """
    return node.removeprefix(PAPER_PREFIX)


def is_paper_node(node: str) -> bool:
    """Whether ``node`` is shaped like a paper node id."""
    return node.startswith(PAPER_PREFIX)


def as_nx(graph: Any, error: type[KgError] = KgError, what: str = "expected") -> nx.MultiDiGraph:
    """The ``networkx`` graph of a ``KnowledgeGraph`` (its ``.nx``), or ``graph`` itself when it is
    one; anything else raises ``error`` (``what`` starts the message, e.g. "to_html needs")."""
    g = getattr(graph, "nx", graph)
    if not isinstance(g, nx.Graph):
        raise error(f"{what} a KnowledgeGraph or a networkx graph, not {type(graph).__name__}")
    return g
