"""kg: an offline knowledge-graph builder for scientific abstracts.

corpus (txt | jsonl | csv) -> Paper -> extractors -> Mention -> resolve -> Entity -> KnowledgeGraph
-> graph_exports (Neo4j, HTML, files).

Use it from Python::

    from kg import KnowledgeGraph
    g = KnowledgeGraph.load("out/graph.json")
    g.papers_with("Dataset", "ImageNet")
"""

from .errors import KgError
from .graph import KnowledgeGraph
from .model import Entity, Mention, Paper, Relation

__all__ = ["KgError", "KnowledgeGraph", "Paper", "Mention", "Entity", "Relation"]
__version__ = "0.1.0"
