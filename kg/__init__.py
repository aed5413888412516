"""kg: an offline knowledge-graph builder for scientific abstracts.

corpus (txt | jsonl | csv) -> Paper -> extractors -> Mention -> resolve -> Entity -> KnowledgeGraph
-> graph_exports (Neo4j, HTML, files).

>>> from kg import KnowledgeGraph           # doctest: +SKIP
>>> g = KnowledgeGraph.load("out/graph.json")  # doctest: +SKIP
>>> g.papers_with("Dataset", "ImageNet")    # doctest: +SKIP
"""

from .errors import KgError
from .graph import KnowledgeGraph
from .model import Entity, Mention, Paper, Relation

__all__ = ["KgError", "KnowledgeGraph", "Paper", "Mention", "Entity", "Relation"]
__version__ = "0.1.0"
