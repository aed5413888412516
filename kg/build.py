"""The whole flow in one call: corpus -> extractors -> resolve -> graph, with a summary.

The CLI and the benchmarks call :func:`build`; exports happen afterwards, at the edge.
"""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spacy.language import Language

from extractors.parallel import extract_parallel
from extractors.pipeline import Extraction

from .corpus import CorpusStats, read_corpus
from .errors import BadRecord, CorpusError
from .forked import Pending
from .graph import KnowledgeGraph, add_related_edges, build_graph, term_table
from .model import Mention, Paper, RelationMention, ResultMention
from .records import LIMITS, Limits
from .resolve import canonical_key, resolve, resolve_relations
from .results import add_result_nodes
from .schema import paper_node_id
from .store import STORE_FILE, StoreSpool, content_key, pipeline_fingerprint, read_store
from .trends import annotate_years

__all__ = ["BuildSummary", "BuildResult", "build", "build_from_papers"]


@dataclass
class BuildSummary:
    """What a build read, found and made; printed by ``kg build`` and saved as ``summary.json``."""

    papers: int = 0
    records: int = 0
    duplicates: int = 0
    skipped: int = 0
    warnings: int = 0
    characters_removed: int = 0
    mentions: int = 0
    mentions_dropped: int = 0
    results: int = 0
    entities: dict[str, int] = field(default_factory=dict)
    mentions_by_label: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    resolution: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    extract_seconds: float = 0.0
    abstracts_per_second: float = 0.0
    errors: list[str] = field(default_factory=list)
    workers: int = 1
    reused: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class BuildResult:
    """A built graph, its summary, the resolution's merge records (``merges.jsonl``) and the
    extraction store written while it was built (``extractions.jsonl``, see :mod:`kg.store`)."""

    graph: KnowledgeGraph
    summary: BuildSummary
    merges: list[dict[str, Any]]
    store: StoreSpool | None = None


def _without_full_collections(function: Callable[..., BuildResult]) -> Callable[..., BuildResult]:
    """Run ``function`` with the cyclic garbage collector's oldest generation left alone.

    A build keeps millions of objects alive until it ends (mentions, entities, the graph), and
    Python scans all of them again each time the heap has grown by a quarter: 18 full collections
    at 20,000 papers, whose build from a store took 71 s with them and 48 s without. Young
    collections still run (they catch the short-lived cycles a pipeline makes); the thresholds are
    restored after.
    """

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> BuildResult:
        thresholds = gc.get_threshold()
        gc.set_threshold(thresholds[0], thresholds[1], 1_000_000)
        try:
            return function(*args, **kwargs)
        finally:
            gc.set_threshold(*thresholds)

    return run


@_without_full_collections
def build_from_papers(
    papers: Iterable[Paper],
    nlp: Language,
    *,
    batch_size: int = 64,
    related_k: int = 10,
    on_paper: Callable[[Paper, list[Mention]], None] | None = None,
    on_error: Callable[[BadRecord], None] | None = None,
    limits: Limits = LIMITS,
    workers: int = 1,
    cached: dict[tuple[str, str], Extraction] | None = None,
    extractor: Extractor | None = None,
    spool_dir: str | Path | None = None,
    earlier_store: Path | None = None,
    earlier_lines: dict[tuple[str, str], tuple[int, int]] | None = None,
) -> BuildResult:
    """Extract, resolve and assemble ``papers`` (an iterable, consumed once).

    A paper longer than the pipeline's ``nlp.max_length`` is skipped (reported to ``on_error``), and
    a "mention" longer than ``limits.mention_chars`` is dropped, so that no entity id outgrows what
    Neo4j can index.

    Args:
        workers: extraction processes (:func:`extractors.parallel.extract_parallel`); the graph is
            the same with any number.
        cached: extractions by ``(paper id, content key)`` (:mod:`kg.store`) to reuse instead of
            running the pipeline on those papers again; they are taken out of it as they are used.
        extractor: runs the pipeline over the papers not in ``cached`` (default: local worker
            processes; the Dask engine passes its own); must keep their order.
        spool_dir: where the extraction store is written as papers come out of extraction (the
            system's temporary folder by default; the output folder makes publishing it a rename).
        earlier_store, earlier_lines: the store ``cached`` was read from and where each paper's
            line is in it: those lines are copied into the new store, not encoded again.
    """
    start = time.perf_counter()
    store = StoreSpool(
        pipeline_fingerprint(nlp), spool_dir, earlier=earlier_store, lines=earlier_lines
    )
    kept: list[Paper] = []
    extracted: list[tuple[Paper, list[Mention]]] = []
    relation_mentions: list[RelationMention] = []
    result_mentions: list[ResultMention] = []
    by_label: dict[str, int] = {}
    too_long = 0
    dropped = 0
    reused = 0

    def fitting(stream: Iterable[Paper]) -> Iterator[Paper]:
        nonlocal too_long
        for paper in stream:
            if len(paper.abstract) <= nlp.max_length:
                yield paper
                continue
            too_long += 1
            if on_error is not None:
                on_error(
                    BadRecord(
                        paper.source or f"paper {paper.id}",
                        None,
                        f"abstract is {len(paper.abstract):,} characters, over the pipeline's "
                        f"limit of {nlp.max_length:,} (nlp.max_length); paper skipped",
                    )
                )

    if extractor is None:

        def extractor(stream: Iterable[Paper]) -> Iterator[Extraction]:
            # a list (an update's new papers) is in memory already: all of it goes to the workers
            # at once, and they extract while the stored papers are taken in
            ahead = -(-len(stream) // batch_size) if isinstance(stream, list) else None
            return extract_parallel(
                nlp, stream, workers=workers, batch_size=batch_size, ahead=ahead
            )

    for item, stored in _with_cache(fitting(papers), cached, extractor):
        paper = item.paper
        reused += stored is not None
        mentions = [m for m in item.mentions if len(m.text) <= limits.mention_chars]
        dropped += len(item.mentions) - len(mentions)
        kept.append(paper)
        extracted.append((paper, mentions))
        store.add(item, stored)
        relation_mentions.extend(item.relations)
        result_mentions.extend(item.results)
        for m in mentions:
            by_label[m.label] = by_label.get(m.label, 0) + 1
        if on_paper is not None:
            on_paper(paper, mentions)
    extract_seconds = time.perf_counter() - start
    # RELATED_TO's terms need only the papers' text: with more than one process, a forked child
    # makes them while this one resolves and assembles the graph (with one, RELATED_TO makes them
    # paper by paper, holding no table)
    terms = (
        Pending(functools.partial(term_table, _paper_texts(kept)), processes=workers)
        if workers > 1
        else None
    )
    try:
        graph, results, merges, resolution_stats, mention_count = _assemble(
            kept, extracted, relation_mentions, result_mentions
        )
        n_papers = len(kept)
        del extracted, relation_mentions, result_mentions, kept
        canonical_key.cache_clear()  # a key per spelling of the corpus (tens of MB), needed no more
        table = terms.result() if terms is not None else None
        add_related_edges(graph.nx, k=related_k, processes=workers, table=table)
        del table
    finally:
        if terms is not None:
            terms.cancel()

    annotate_years(graph.nx)  # first_year, papers_by_year, mean_year on entities of dated papers
    seconds = time.perf_counter() - start
    stats = graph.stats()
    summary = BuildSummary(
        papers=n_papers,
        skipped=too_long,
        mentions=mention_count,
        mentions_dropped=dropped,
        results=results,
        entities=stats["entities"],
        mentions_by_label=dict(sorted(by_label.items())),
        edges=stats["edges"],
        resolution=resolution_stats,
        seconds=round(seconds, 3),
        extract_seconds=round(extract_seconds, 3),
        abstracts_per_second=round(n_papers / seconds, 1) if seconds > 0 else 0.0,
        workers=workers,
        reused=reused,
    )
    return BuildResult(graph, summary, merges, store)


def _assemble(
    kept: list[Paper],
    extracted: list[tuple[Paper, list[Mention]]],
    relation_mentions: list[RelationMention],
    result_mentions: list[ResultMention],
) -> tuple[KnowledgeGraph, int, list[dict[str, Any]], dict[str, Any], int]:
    """Resolution and the graph without ``RELATED_TO``: the graph, its result count, the merges,
    the resolution's statistics and the mention count. A function of its own so that the
    resolution and relations are freed when it returns: the graph holds what is kept of them."""
    resolution = resolve(extracted)
    merges = resolution.merges()
    # only merges read the reasons: freed before the graph is built (16 MB less at the peak of a
    # 74,000-paper build)
    resolution.reasons.clear()
    relations = resolve_relations(relation_mentions, resolution)
    graph = KnowledgeGraph(build_graph(kept, resolution, relations, related_k=0))
    results = add_result_nodes(graph.nx, result_mentions, resolution)
    mention_count = sum(len(ms) for _, ms in extracted)
    return graph, results, merges, asdict(resolution.stats), mention_count


def _paper_texts(papers: list[Paper]) -> list[tuple[str, dict[str, Any]]]:
    """Each paper's node id and the attributes :func:`kg.graph.paper_terms` reads, by node id."""
    return sorted(
        (
            paper_node_id(p.id),
            {"title": p.title, "abstract": p.abstract, "keywords": list(p.keywords)},
        )
        for p in papers
    )


#: Runs the pipeline over a stream of papers and yields their extractions in the same order.
Extractor = Callable[[Iterable[Paper]], Iterator[Extraction]]


def _with_cache(
    papers: Iterable[Paper],
    cached: dict[tuple[str, str], Extraction] | None,
    extractor: Extractor,
) -> Iterator[tuple[Extraction, tuple[str, str] | None]]:
    """Every paper's extraction in input order, and the (paper id, content key) it was taken
    from ``cached`` under, or None: cached ones as they are (taken out of ``cached``, so that
    the build holds each paper's mentions once), the others through ``extractor`` (which may read
    ahead of what it has yielded).

    With a cache (an update) the papers are all read first (the stored ones are in memory already)
    and the extractor is given the list of those to extract before any cached one is yielded, so
    that its workers run while the cached papers are taken in."""
    # with a cache: each paper's (key, cached extraction), or None to extract it
    plan: list[tuple[tuple[str, str], Extraction] | None] | None = None
    if cached:
        papers = list(papers)
        plan = []
        for paper in papers:
            key = (paper.id, content_key(paper))
            item = cached.pop(key, None)
            plan.append((key, item) if item is not None else None)
        papers = [paper for paper, step in zip(papers, plan, strict=True) if step is None]
    results = extractor(papers)
    try:
        if plan is None:
            for extracted in results:
                yield extracted, None
            return
        for at, step in enumerate(plan):
            if step is None:
                yield next(results), None
                continue
            plan[at] = None  # held once: by the build from here on
            yield step[1], step[0]
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()


@_without_full_collections
def build(
    inputs: Iterable[str | Path],
    nlp: Language,
    *,
    fmt: str = "auto",
    fields: dict[str, str] | None = None,
    strict: bool = False,
    max_chars: int = 100_000,
    batch_size: int = 64,
    related_k: int = 10,
    on_error: Callable[[BadRecord], None] | None = None,
    on_paper: Callable[[Paper, list[Mention]], None] | None = None,
    workers: int = 1,
    update: str | Path | None = None,
    extractor: Extractor | None = None,
    spool_dir: str | Path | None = None,
) -> BuildResult:
    """Read ``inputs`` and build their graph; bad records are reported and counted, not fatal
    (unless ``strict``).

    Args:
        workers: extraction processes (see :func:`build_from_papers`).
        update: a folder written by ``kg build``: its papers come first, with their stored
            mentions (:mod:`kg.store`), then the papers of ``inputs`` it has not seen; the graph is
            the one a build of the earlier inputs and ``inputs`` together makes.
        extractor: see :func:`build_from_papers` (the Dask engine's).

    Raises:
        CorpusError: ``max_chars`` is over what the pipeline takes (``nlp.max_length``), an input is
            missing, or (``strict``) a record is bad.
        StoreError: ``update`` has no readable extraction store of this pipeline.
    """
    if max_chars > nlp.max_length:
        raise CorpusError(
            f"--max-chars {max_chars:,} is over the pipeline's limit of {nlp.max_length:,} "
            "characters (spaCy's nlp.max_length); give at most that"
        )
    known: list[Paper] = []
    cached: dict[tuple[str, str], Extraction] = {}
    lines: dict[tuple[str, str], tuple[int, int]] = {}
    earlier = Path(update) / STORE_FILE if update is not None else None
    if earlier is not None:
        for stored in read_store(earlier, pipeline_fingerprint(nlp)):
            known.append(stored.paper)
            # its mentions made now, not when the build takes it in: made then (while the workers
            # extract the new papers) one run's peak at 74,480 papers was 61 MB higher
            cached[(stored.paper.id, stored.key)] = stored.extraction()
            lines[(stored.paper.id, stored.key)] = stored.span
    corpus = CorpusStats()
    papers = read_corpus(
        inputs,
        fmt=fmt,
        fields=fields,
        strict=strict,
        max_chars=max_chars,
        stats=corpus,
        on_error=on_error,
        known=known,
    )
    result = build_from_papers(
        papers,
        nlp,
        batch_size=batch_size,
        related_k=related_k,
        on_paper=on_paper,
        on_error=on_error,
        workers=workers,
        cached=cached,
        extractor=extractor,
        spool_dir=spool_dir,
        earlier_store=earlier,
        earlier_lines=lines,
    )
    summary = result.summary
    summary.records = corpus.records
    summary.duplicates = corpus.duplicates
    summary.skipped += corpus.skipped
    summary.warnings = corpus.warnings
    summary.characters_removed = corpus.characters_removed
    summary.errors = list(corpus.errors)
    return result
