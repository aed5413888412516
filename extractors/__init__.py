"""NLP stage: a spaCy pipeline (trained model + rules) that turns abstracts into mentions.

Importing the package registers kg's spaCy factories (``kg_acronyms``, ``kg_cues``, ``kg_heads``,
``kg_shapes``, ``kg_mentions``, ``kg_roles``, ``kg_relations``, ``kg_results``), so a saved pipeline that contains them
loads with plain ``spacy.load``. Each declares what it ``requires`` and ``assigns``, so
``nlp.analyze_pipes()`` shows the order they need (docs/architecture.md).
"""

from . import acronyms, mentions, relations, results, roles, rules  # noqa: F401  (factory registration)
from .pipeline import (
    DEFAULT_MODEL,
    Extraction,
    extract,
    extract_mentions,
    load_pipeline,
    shipped_model_path,
)

__all__ = [
    "DEFAULT_MODEL",
    "Extraction",
    "extract",
    "extract_mentions",
    "load_pipeline",
    "shipped_model_path",
]
