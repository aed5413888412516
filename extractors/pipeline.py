"""Load the extraction pipeline and run it over papers.

``load_pipeline()`` finds the trained pipeline shipped inside this package (or a user's own spaCy
pipeline by path or package name) and makes sure the rule components sit behind it;
``extract_mentions()`` streams papers through ``nlp.pipe`` and yields typed :class:`Mention` records.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language
from spacy.util import compile_infix_regex, compile_suffix_regex

from kg.errors import ModelError
from kg.model import Mention, Paper, RelationMention, ResultMention

from . import acronyms as _acronyms  # noqa: F401  (registers the kg_acronyms factory)
from . import mentions as _mentions  # noqa: F401  (registers kg_mentions)
from . import relations as _relations  # noqa: F401  (registers kg_relations)
from . import results as _results  # noqa: F401  (registers kg_results)
from . import roles as _roles  # noqa: F401  (registers kg_roles)
from .mentions import MENTIONS_KEY
from .relations import RELATIONS_KEY  # where kg_relations leaves its plain relation records
from .results import RESULTS_KEY  # where kg_results leaves its result records
from .rules import add_gazetteer

__all__ = [
    "DEFAULT_MODEL",
    "RELATIONS_KEY",
    "TITLE_KEY",
    "Extraction",
    "shipped_model_path",
    "load_pipeline",
    "add_rules",
    "paper_doc",
    "extract",
    "extract_mentions",
    "read_settings",
    "update_settings",
]

#: Name of the trained pipeline directory inside ``extractors/models``.
DEFAULT_MODEL = "sci_ner"
_SIZED_NAME = re.compile(r"^[A-Za-z][\w.]*-\d+(?:\.\d+)?[kKMBbT]$")
#: The rule components behind a trained model, in order. Measured on the in-domain dev split
#: (bench/rule_ablation.py, docs/experiments.md), the gazetteer's span rulers (``kg_gazetteer``, with
#: ``kg_gazetteer_shapes`` and ``kg_gazetteer_lower``) cost 2.6 points of paper-level F1 behind the
#: in-domain NER and ``kg_heads`` (noun phrases ending in a telling head noun) 2.5, so they are not
#: there; resolution still merges the gazetteer's aliases.
RULE_COMPONENTS = (
    "kg_acronyms",
    "kg_cues",
    "kg_mentions",
    "kg_roles",
    "kg_relations",
    "kg_results",
)
#: Without a trained model (``--rules-only``) the gazetteer and head phrases are the candidates.
RULES_ONLY_COMPONENTS = (
    "kg_acronyms",
    "kg_gazetteer",
    "kg_cues",
    "kg_heads",
    "kg_mentions",
    "kg_roles",
    "kg_relations",
    "kg_results",
)


def shipped_model_path() -> Path | None:
    """The trained pipeline shipped as package data, or None when this install has none."""
    path = Path(str(resources.files("extractors") / "models" / DEFAULT_MODEL))
    return path if (path / "config.cfg").exists() else None


#: kg's settings for a trained pipeline, beside its config: the role model's file and the relation
#: cut-offs chosen for it (written by ``kg train``).
SETTINGS_FILE = "kg.json"


def read_settings(model_dir: str | Path | None) -> dict:
    """The ``kg.json`` of a pipeline directory ({} when there is none)."""
    if model_dir is None:
        return {}
    path = Path(model_dir) / SETTINGS_FILE
    if not path.is_file():
        return {}
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: not a kg settings file ({exc})") from exc


def update_settings(model_dir: Path, **values: object) -> dict:
    """Merge ``values`` into ``model_dir/kg.json`` and return the result."""
    import json

    settings = {**read_settings(model_dir), **values}
    (Path(model_dir) / SETTINGS_FILE).write_text(
        json.dumps(settings, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    return settings


def load_pipeline(
    name_or_path: str | Path | None = None, *, rules: bool = True, statistical: bool = True
) -> Language:
    """The extraction pipeline.

    Args:
        name_or_path: a spaCy pipeline directory or installed package; None for the shipped one
            (a blank English pipeline with rules only when none is shipped).
        rules: add the rule components (acronyms, gazetteer, cues, head phrases) and the mention
            chooser behind the statistical components.
        statistical: load the trained model at all; False gives the rules-only pipeline.

    Raises:
        ModelError: ``name_or_path`` is neither a pipeline directory nor an installed package.
    """
    target = (
        name_or_path
        if name_or_path is not None
        else (shipped_model_path() if statistical else None)
    )
    if target is None:
        nlp = spacy.blank("en")
    else:
        try:
            nlp = spacy.load(target)
        except (OSError, ValueError) as exc:
            raise ModelError(
                f"{target}: cannot load a spaCy pipeline from it ({str(exc).splitlines()[0]}); "
                "give a pipeline directory or an installed package name"
            ) from exc
    if rules:
        directory = Path(target) if target is not None and Path(target).is_dir() else None
        add_rules(nlp, read_settings(directory), directory)
    return nlp


def tune_tokenizer(nlp: Language) -> Language:
    """Keep names that end in a size in one token ("LAION-400M", "Qwen-7B"; spaCy splits "M" off
    as a unit), split a sentence's full stop off them and off camel-case names ("MoE."), and split
    "(LLMs)-based", "(LLMs).Despite" and "generation(RAG)" so the acronym stands alone."""
    tokenizer: Any = nlp.tokenizer  # a spaCy Tokenizer (typed as any callable str -> Doc)
    defaults: Any = nlp.Defaults
    suffixes = list(defaults.suffixes) + [r"(?<=\d[kKMBbx%])\.", r"(?<=[a-z][A-Z])\."]
    tokenizer.suffix_search = compile_suffix_regex(suffixes).search
    infixes = list(defaults.infixes) + [
        r"\)(?=[-\u2013\u2014]+\w)",
        r"(?<=\))[-\u2013\u2014]+(?=\w)",  # "(LLMs)-based", "(EBMs)---to"
        r"\)(?=[.,;:][A-Za-z])",
        r"(?<=\))[.,;:](?=[A-Za-z])",  # "(LLMs).Despite": a missing space
        r"(?<=[a-z])\((?=[A-Z])",  # "generation(RAG)"
    ]
    tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    default = tokenizer.token_match
    pattern = _SIZED_NAME.pattern
    if default is not None and getattr(default, "__self__", None) is not None:
        if _SIZED_NAME.pattern in default.__self__.pattern:
            return nlp
        pattern = f"(?:{pattern})|(?:{default.__self__.pattern})"
    # a compiled pattern's .match, so the tokenizer still serialises and pickles
    tokenizer.token_match = re.compile(pattern).match
    return nlp


def add_rules(
    nlp: Language, settings: dict | None = None, model_dir: Path | None = None
) -> Language:
    """Add sentence splitting and the kg rule components that are not already in ``nlp``.

    settings: the pipeline's ``kg.json`` (see :func:`read_settings`): ``roles`` names the role
        model file in ``model_dir``, ``relations.label_min_scores`` the relation cut-offs.
    """
    settings = settings or {}
    configs: dict[str, dict] = {}
    if settings.get("roles") and model_dir is not None:
        configs["kg_roles"] = {"model_path": str(model_dir / settings["roles"])}
    cutoffs = (settings.get("relations") or {}).get("label_min_scores")
    if cutoffs is not None:
        configs["kg_relations"] = {"label_min_scores": cutoffs}
    tune_tokenizer(nlp)
    if not any(name in nlp.pipe_names for name in ("senter", "parser", "sentencizer")):
        nlp.add_pipe("sentencizer", first=True)
    statistical = any(name in nlp.pipe_names for name in ("ner", "spancat"))
    for name in RULE_COMPONENTS if statistical else RULES_ONLY_COMPONENTS:
        if name in nlp.pipe_names:
            continue
        if name == "kg_gazetteer":
            add_gazetteer(nlp, name)
        else:
            nlp.add_pipe(name, config=configs.get(name, {}))
    return nlp


@dataclass(frozen=True, slots=True)
class Extraction:
    """What the pipeline read in one paper: its mentions, the relations between them and the
    numeric results it reports."""

    paper: Paper
    mentions: list[Mention]
    relations: list[RelationMention]
    results: list[ResultMention] = field(default_factory=list)


#: ``doc.user_data`` key of the paper's title: components may read it (``kg_roles`` does), nothing
#: extracts from it.
TITLE_KEY = "kg_title"


def paper_doc(nlp: Language, paper: Paper):
    """The tokenised abstract of ``paper``, its title in ``doc.user_data["kg_title"]``."""
    doc = nlp.make_doc(paper.abstract)
    if paper.title:
        doc.user_data[TITLE_KEY] = paper.title
    return doc


def extract(
    nlp: Language, papers: Iterable[Paper], *, batch_size: int = 64, n_process: int = 1
) -> Iterator[Extraction]:
    """Stream papers through ``nlp.pipe`` and yield typed records for each."""
    stream = ((paper_doc(nlp, paper), paper) for paper in papers)
    for doc, paper in nlp.pipe(stream, as_tuples=True, batch_size=batch_size, n_process=n_process):
        records = doc.user_data.get(MENTIONS_KEY, [])
        mentions = [
            Mention(paper_id=paper.id, **r) for r in records
        ]  # a record holds every other field
        relations = []
        if doc.user_data.get(RELATIONS_KEY):
            # a relation's head is a mention: its sentence is that mention's (no walk over the doc)
            sentence_at = {r["start"]: r["sentence"] for r in records}
            relations = [
                RelationMention(
                    paper_id=paper.id,
                    label=r["label"],
                    head_start=r["head"][0],
                    head_end=r["head"][1],
                    tail_start=r["tail"][0],
                    tail_end=r["tail"][1],
                    sentence=sentence_at[r["head"][0]]
                    if r["head"][0] in sentence_at
                    else _sentence_of(doc, r["head"][0]),
                    extractor=r.get("extractor", "relations"),
                    score=float(r.get("score", 1.0)),
                )
                for r in doc.user_data[RELATIONS_KEY]
            ]
        results = [_result(paper.id, r) for r in doc.user_data.get(RESULTS_KEY, [])]
        yield Extraction(paper, mentions, relations, results)


def _result(paper_id: str, record: dict) -> ResultMention:
    spans = {
        k: tuple(record[k]) if record.get(k) is not None else None
        for k in ("metric_span", "dataset_span", "method_span", "task_span")
    }
    return ResultMention(paper_id=paper_id, **{**record, **spans})


def _sentence_of(doc, char: int) -> str:
    span = doc.char_span(char, char + 1, alignment_mode="expand")
    return span.sent.text if span is not None else ""


def extract_mentions(
    nlp: Language, papers: Iterable[Paper], *, batch_size: int = 64, n_process: int = 1
) -> Iterator[tuple[Paper, list[Mention]]]:
    """Yield each paper with its mentions (see :func:`extract` for relations too)."""
    for item in extract(nlp, papers, batch_size=batch_size, n_process=n_process):
        yield item.paper, item.mentions
