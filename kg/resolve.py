"""Resolution: mentions -> entities, so one concept is one node.

Three rules, in order, decide a mention's canonical key:

1. an acronym a paper defines ("Large Language Models (LLMs)") means that paper's long form;
   an acronym a paper uses without defining it means the long form most papers of the corpus give
   it (a vote), so "SD" is Stable Diffusion only where the corpus says so;
2. every key goes through the gazetteer's alias table ("LLM", "large language model");
3. keys are case-folded, dashes and spaces unified, and the head noun made singular with spaCy's
   lookup lemmatizer ("Large Language Models" = "large language model").

A key seen under several labels takes the label most of its mentions carry. Generic phrases
("our method", "this task") never become entities. Everything is in memory and linear in the
number of mentions.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from spacy.lookups import Table, load_lookups

from extractors.lexicon import is_generic
from extractors.rules import load_gazetteer

from .model import Entity, Mention, Paper

__all__ = ["canonical_key", "entity_id", "Resolution", "ResolutionStats", "resolve"]

_DASHES = re.compile(r"[\u2010-\u2015\u2212\-]+")
_SPACES = re.compile(r"\s+")
_ACRONYM_PLURAL = re.compile(r"^([A-Z0-9][A-Za-z0-9\-]*[A-Z0-9])s$")
_ACRONYM = re.compile(r"^(?=(?:.*[A-Z]){2})[A-Za-z0-9\-+.]{2,15}$")
_NOT_PLURAL = frozenset("data series news physics mathematics statistics dynamics analysis bias "
                        "basis thesis corpus status gas lens process".split())


@lru_cache(maxsize=1)
def _lemmas() -> Table:
    """spaCy's English lookup lemmatizer table (from spacy-lookups-data), loaded once."""
    return load_lookups("en", ["lemma_lookup"]).get_table("lemma_lookup")


def _singular(word: str) -> str:
    if word in _NOT_PLURAL or not word.endswith("s") or len(word) < 4:
        return word
    lemma = _lemmas().get(word, word)
    return lemma if lemma != word and len(lemma) >= len(word) - 2 else word


@lru_cache(maxsize=200_000)
def canonical_key(text: str) -> str:
    """The one key normaliser: case, dashes, spaces and plural unified.

    >>> canonical_key("Large Language Models"), canonical_key("LLMs"), canonical_key("chain-of-thought")
    ('large language model', 'llm', 'chain of thought')
    """
    text = unicodedata.normalize("NFKC", text).strip(" .,;:()[]{}\"'")
    words = _SPACES.split(_DASHES.sub(" ", text).strip())
    if not words or words == [""]:
        return ""
    plural = _ACRONYM_PLURAL.match(words[-1])
    if plural:
        words[-1] = plural.group(1)
    words = [w.casefold() for w in words]
    if not plural:
        words[-1] = _singular(words[-1])
    return " ".join(words)


def entity_id(label: str, key: str) -> str:
    """``label:key``, e.g. ``method:large language model`` (the node id in every export)."""
    return f"{label.lower()}:{key}"


@lru_cache(maxsize=4)
def _gazetteer_index(directory: str | None = None) -> dict[str, tuple[str, str]]:
    """canonical key of every gazetteer alias -> (label, canonical key of the entry)."""
    index: dict[str, tuple[str, str]] = {}
    for label, canonical, names in load_gazetteer(directory):
        target = canonical_key(canonical)
        for name in names:
            index.setdefault(canonical_key(name), (label, target))
    return index


@lru_cache(maxsize=4)
def _gazetteer_cased(directory: str | None = None) -> frozenset[str]:
    """Keys whose gazetteer spellings all have capitals or digits: an all-caps coined name like
    "RECALL" may only join an entry that is spelled in capitals somewhere ("recall" is not)."""
    lowercase = {canonical_key(n) for _l, _c, names in load_gazetteer(directory) for n in names if n == n.lower()}
    return frozenset(canonical_key(n) for _l, _c, names in load_gazetteer(directory) for n in names) - lowercase


@dataclass
class ResolutionStats:
    """What resolution did, for the build summary and the log."""

    mentions: int = 0
    surface_forms: int = 0
    entities: int = 0
    dropped_generic: int = 0
    acronyms_resolved_by_vote: int = 0
    label_conflicts: int = 0


@dataclass
class Resolution:
    """Entities by id, and the entity id chosen for each mention (same order as given)."""

    entities: dict[str, Entity] = field(default_factory=dict)
    assignments: list[tuple[Mention, str]] = field(default_factory=list)
    proposed: set[tuple[str, str]] = field(default_factory=set)  # (paper id, entity id)
    stats: ResolutionStats = field(default_factory=ResolutionStats)


def resolve(extracted: Iterable[tuple[Paper, list[Mention]]], *, gazetteer_dir: str | None = None) -> Resolution:
    """Group mentions into entities across the corpus.

    Args:
        extracted: each paper with its mentions (from :func:`extractors.extract_mentions`).
        gazetteer_dir: a directory of gazetteer files other than the shipped one.

    Returns:
        A :class:`Resolution`; mentions of generic phrases get no entity and are counted as dropped.
    """
    gazetteer = _gazetteer_index(gazetteer_dir)
    stats = ResolutionStats()
    mentions: list[Mention] = []
    defined: dict[str, dict[str, str]] = defaultdict(dict)  # paper -> short form -> long form key
    votes: dict[str, Counter[str]] = defaultdict(Counter)  # short form key -> long form keys
    for paper, paper_mentions in extracted:
        for m in paper_mentions:
            mentions.append(m)
            if m.short_form and m.long_form:
                short_key, long_key = canonical_key(m.short_form), canonical_key(m.long_form)
                if short_key not in defined[m.paper_id]:
                    defined[m.paper_id][short_key] = long_key
                    votes[short_key][long_key] += 1
    stats.mentions = len(mentions)
    majority = {short: counts.most_common(1)[0][0] for short, counts in votes.items()}

    keyed: list[tuple[Mention, str | None]] = []
    label_votes: dict[str, Counter[str]] = defaultdict(Counter)
    gazetteer_targets = {target for _label, target in gazetteer.values()}
    for m in mentions:
        key = _mention_key(m, defined.get(m.paper_id, {}), majority, stats, gazetteer_dir)
        if key is None:
            keyed.append((m, None))
            continue
        if key in gazetteer_targets and key in gazetteer:
            label_votes[key][gazetteer[key][0]] += 2  # a gazetteer entry outvotes one stray label
        label_votes[key][m.label] += 1
        keyed.append((m, key))

    surface: dict[str, Counter[str]] = defaultdict(Counter)
    resolution = Resolution(stats=stats)
    for m, key in keyed:
        if key is None:
            stats.dropped_generic += 1
            continue
        counts = label_votes[key]
        label = max(counts, key=lambda lab: (counts[lab], lab))
        if len(counts) > 1 and label != m.label:
            stats.label_conflicts += 1
        eid = entity_id(label, key)
        entity = resolution.entities.get(eid)
        if entity is None:
            entity = resolution.entities[eid] = Entity(id=eid, label=label, name=m.text, key=key)
        entity.aliases.update(form for form in (m.text, m.long_form, m.short_form) if form)
        entity.papers.add(m.paper_id)
        entity.mention_count += 1
        surface[eid][m.long_form or m.text] += 1
        if m.role == "proposed":
            resolution.proposed.add((m.paper_id, eid))
        resolution.assignments.append((m, eid))
    for eid, entity in resolution.entities.items():
        entity.name = _display_name(entity, surface[eid], _gazetteer_names(gazetteer_dir))
    stats.surface_forms = len({(m.label, m.text) for m in mentions})
    stats.entities = len(resolution.entities)
    return resolution


def _mention_key(m: Mention, paper_defs: dict[str, str], majority: dict[str, str],
                 stats: ResolutionStats, gazetteer_dir: str | None = None) -> str | None:
    """Canonical key for one mention, or None when it names nothing in particular."""
    if m.canonical:
        key = canonical_key(m.canonical)
    elif m.long_form and m.short_form:
        key = canonical_key(m.long_form)
    else:
        key = canonical_key(m.text)
        if _ACRONYM.match(m.text.rstrip("s")):
            if key in paper_defs:
                key = paper_defs[key]
            elif key in majority:
                key = majority[key]
                stats.acronyms_resolved_by_vote += 1
    if not key or is_generic(key) or (m.extractor != "acronym" and is_generic(m.text)):
        return None
    gazetteer = _gazetteer_index(gazetteer_dir)
    if key not in gazetteer:
        return key
    if m.text.isupper() and len(m.text) > 1 and not m.canonical and key == canonical_key(m.text) \
            and key not in _gazetteer_cased(gazetteer_dir):
        return m.text  # "RECALL" the coined name keeps its capitals apart from "recall" the word
    return gazetteer[key][1]


@lru_cache(maxsize=4)
def _gazetteer_names(directory: str | None = None) -> dict[str, str]:
    """canonical key -> the gazetteer's own spelling of the entry."""
    return {canonical_key(canonical): canonical for _label, canonical, _names in load_gazetteer(directory)}


def _display_name(entity: Entity, forms: Counter[str], gazetteer_names: dict[str, str]) -> str:
    """The best surface form: the gazetteer's spelling, else the most frequent long form (ties: the
    spelling with capitals, "Stable Diffusion" over "stable diffusion")."""
    if entity.key in gazetteer_names:
        return gazetteer_names[entity.key]
    candidates = [f for f in forms if canonical_key(f) == entity.key] or list(forms)
    by_case: Counter[str] = Counter()
    for f in candidates:
        by_case[f.casefold()] += forms[f]

    def sentence_cased(f: str) -> bool:  # "Deep learning" at a sentence start, not a name
        return " " in f and f[0].isupper() and f[1:] == f[1:].lower()

    return max(candidates, key=lambda f: (by_case[f.casefold()], not sentence_cased(f), forms[f], -len(f), f))
