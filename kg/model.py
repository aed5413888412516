"""The data passed between stages: Paper -> Mention -> Entity/Relation -> KnowledgeGraph.

The vocabulary they use (labels, edge types) is in :mod:`kg.schema`. Frozen dataclasses so a stage cannot quietly change what an earlier stage produced; plain
``to_dict`` forms so records survive JSON, multiprocessing and Neo4j.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "Paper",
    "Mention",
    "RelationMention",
    "Entity",
    "Relation",
    "ResultMention",
    "NumberPool",
]


@dataclass(frozen=True, slots=True)
class Paper:
    """One abstract with its metadata.

    Attributes:
        id: given by the corpus, or a stable hash of the normalised abstract.
        abstract: the text that is extracted from (whitespace-normalised).
        title: the real title, or ``None``; see ``label`` for what to display.
        label: a short display name: the title, else a derived one (coined name or first words).
        title_derived: True when ``label`` was derived, not given.
        year, venue, authors, keywords: optional metadata.
        source: ``"file:line"`` where the record was read.
    """

    id: str
    abstract: str
    title: str | None = None
    label: str = ""
    title_derived: bool = False
    year: int | None = None
    venue: str | None = None
    authors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["authors"] = list(self.authors)
        d["keywords"] = list(self.keywords)
        return d


@dataclass(frozen=True, slots=True)
class Mention:
    """A span of an abstract that names a method, dataset, task or metric.

    ``start``/``end`` are character offsets into ``Paper.abstract``; ``sent_start``/``sent_end``
    locate the sentence, so every edge can point back at its evidence.
    ``role`` is ``"proposed"`` when the paper introduces the thing ("we propose X"), else ``"used"``.
    ``short_form``/``long_form`` hold an acronym definition seen in this paper ("Long Form (LF)");
    ``canonical`` is the gazetteer's name for the concept when a gazetteer matched.
    """

    paper_id: str
    label: str
    text: str
    start: int
    end: int
    sentence: str
    sent_start: int
    extractor: str
    score: float = 1.0
    role: str = "used"
    long_form: str | None = None
    short_form: str | None = None
    canonical: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Entity:
    """One concept after resolution: ``id`` is ``label:canonical-key``.

    ``aliases`` are every surface form seen (acronyms included); ``papers`` the supporting paper ids.
    """

    id: str
    label: str
    name: str
    key: str
    aliases: set[str] = field(default_factory=set)
    papers: set[str] = field(default_factory=set)
    mention_count: int = 0

    @property
    def support(self) -> int:
        return len(self.papers)


@dataclass(frozen=True, slots=True)
class RelationMention:
    """A relation the extractor read between two mentions of one sentence, in the training data's
    vocabulary (SciERC: USED-FOR, EVALUATE-FOR, ...); heads and tails are char spans of mentions."""

    paper_id: str
    label: str
    head_start: int
    head_end: int
    tail_start: int
    tail_end: int
    sentence: str
    extractor: str
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class Relation:
    """A typed edge between two entities with the paper and sentence that support it."""

    source: str
    target: str
    type: str
    paper_id: str
    sentence: str
    extractor: str
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class ResultMention:
    """A numeric result read from one sentence: ``value`` in ``unit`` ("%", "x", "points" or "")
    of ``metric``, on ``dataset``, of ``method``, with the sentence as evidence.

    ``kind`` is one of :data:`kg.schema.RESULT_KINDS`; ``baseline`` names what an improvement, reduction or
    speed-up is over when the sentence says. ``method`` is None with ``own`` True for the paper's
    own unnamed method. ``*_span`` fields are ``(start, end)`` character offsets into the abstract
    of the mention behind the field (None when the field came from elsewhere), so the graph can link
    the result to the entities resolution made of those mentions.
    """

    paper_id: str
    value: float
    unit: str
    kind: str
    metric: str
    text: str
    start: int
    end: int
    sentence: str
    sent_start: int
    dataset: str | None = None
    method: str | None = None
    own: bool = True
    task: str | None = None
    baseline: str | None = None
    qualifier: str | None = None
    metric_span: tuple[int, int] | None = None
    dataset_span: tuple[int, int] | None = None
    method_span: tuple[int, int] | None = None
    task_span: tuple[int, int] | None = None
    extractor: str = "results"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for name in ("metric_span", "dataset_span", "method_span", "task_span"):
            if d[name] is not None:
                d[name] = list(d[name])
        return d


class NumberPool:
    """One object per distinct number: character offsets and scores recur across a corpus's
    mentions, and each would otherwise be an int or float object of its own (24-28 bytes; about
    110 MB at 80,000 papers). Ints and floats are kept apart: ``1 == 1.0``, but graph.json writes
    them differently. ``limit``: forget everything past that many values (a bound for a pool that
    lives as long as the process)."""

    def __init__(self, limit: int | None = None) -> None:
        self._ints: dict[int, int] = {}
        self._floats: dict[float, float] = {}
        self._limit = limit

    def __call__(self, value: Any) -> Any:
        pool: dict[Any, Any] = self._floats if type(value) is float else self._ints
        if self._limit is not None and len(pool) >= self._limit:  # never from a real corpus
            pool.clear()
        return pool.setdefault(value, value)
