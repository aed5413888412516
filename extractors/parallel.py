"""Extraction in worker processes: every core of one machine.

spaCy's ``nlp.pipe(n_process=N)`` sends every ``Doc`` back to the parent, and deserialising them
costs more than the workers save (measured 0.55-0.71x of one process on two cores). Here each
worker runs the whole pipeline on a batch of papers and sends back only plain mention, relation and
result tuples, a few hundred bytes per paper.

Batches are the batches one process would make (``batch_size`` papers each, in input order) and
results come back in input order, so the graph is the same, byte for byte, with any number of
workers. By default at most ``2 * workers`` batches are in flight: the input is read as fast as the
workers go, not ahead of them.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import fields
from itertools import islice
from operator import attrgetter
from sys import intern

from spacy.language import Language

from kg.errors import KgError
from kg.model import Mention, NumberPool, Paper, RelationMention, ResultMention

from .pipeline import Extraction, extract

__all__ = [
    "ExtractionRecords",
    "WorkerError",
    "usable_cores",
    "extract_parallel",
    "to_records",
    "from_records",
]

#: One paper's extraction as plain tuples: (mentions, relations, results), each a tuple of field
#: values in the dataclass's field order, without ``paper_id`` (the paper is known to whoever holds
#: them).
ExtractionRecords = tuple[list[tuple], list[tuple], list[tuple]]

_MENTION_FIELDS = tuple(f.name for f in fields(Mention))
_RELATION_FIELDS = tuple(f.name for f in fields(RelationMention))
_RESULT_FIELDS = tuple(f.name for f in fields(ResultMention))
assert _MENTION_FIELDS[0] == _RELATION_FIELDS[0] == _RESULT_FIELDS[0] == "paper_id"
_mention_values = attrgetter(*_MENTION_FIELDS[1:])
_relation_values = attrgetter(*_RELATION_FIELDS[1:])
_result_values = attrgetter(*_RESULT_FIELDS[1:])
#: Positions (in a result tuple) of the ``(start, end)`` spans, which JSON and Parquet give back
#: as lists.
_RESULT_SPANS = tuple(i for i, name in enumerate(_RESULT_FIELDS[1:]) if name.endswith("_span"))


class WorkerError(KgError):
    """A worker process died (killed for memory, a crash) or could not be started."""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which containers and ``taskset`` set),
    not the machine's total."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def to_records(item: Extraction) -> ExtractionRecords:
    """The plain-tuple form of one paper's extraction (what workers send and the store keeps)."""
    return (
        [_mention_values(m) for m in item.mentions],
        [_relation_values(r) for r in item.relations],
        [_result_values(r) for r in item.results],
    )


def from_records(paper: Paper, records: ExtractionRecords) -> Extraction:
    """Inverse of :func:`to_records`."""
    mentions, relations, results = records
    return Extraction(
        paper,
        [_mention(paper.id, m) for m in mentions],
        [RelationMention(paper.id, *r) for r in relations],
        [_result(paper.id, r) for r in results],
    )


#: Positions of the label, extractor and role: a few words repeated a million times, kept once each.
_INTERNED = tuple(_MENTION_FIELDS[1:].index(name) for name in ("label", "extractor", "role"))
#: Positions of the offsets and the score: a few thousand distinct values in a million mentions,
#: kept once each too, for as long as the process reads mentions.
_NUMBERS = tuple(
    _MENTION_FIELDS[1:].index(name) for name in ("start", "end", "sent_start", "score")
)
_numbers = NumberPool(limit=1_000_000)


def _mention(paper_id: str, values: tuple) -> Mention:
    row = list(values)
    for i in _INTERNED:
        row[i] = intern(row[i])
    for i in _NUMBERS:
        row[i] = _numbers(row[i])
    return Mention(paper_id, *row)


def _result(paper_id: str, values: tuple) -> ResultMention:
    row = list(values)
    for i in _RESULT_SPANS:
        if row[i] is not None:
            row[i] = tuple(row[i])
    return ResultMention(paper_id, *row)


_worker_nlp: Language | None = None


def _init_worker(nlp: Language | None) -> None:
    global _worker_nlp
    # a forked worker inherits the driver's build-time setting (kg.build leaves the oldest
    # generation alone there); a worker holds only the pipeline and one batch: Python's default
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 10)
    if nlp is not None:  # spawn: the pipeline came pickled; fork: it is already here
        _worker_nlp = nlp
    else:
        # what a forked worker inherits (the pipeline, and in an update every stored paper's
        # mentions) is never garbage here: left out of its collections, which would otherwise walk
        # all of it, copying each page they touch
        gc.freeze()


def _extract_batch(papers: list[Paper], batch_size: int) -> list[ExtractionRecords]:
    if _worker_nlp is None:
        raise RuntimeError("worker has no pipeline")
    return [to_records(item) for item in extract(_worker_nlp, papers, batch_size=batch_size)]


def extract_parallel(
    nlp: Language,
    papers: Iterable[Paper],
    *,
    workers: int,
    batch_size: int = 64,
    ahead: int | None = None,
) -> Iterator[Extraction]:
    """Like :func:`extractors.extract`, in ``workers`` processes (1: in this one, no pool).

    With more than one worker the pool starts, and the first batches are sent to it, when this is
    called rather than when the first extraction is asked for: the workers run while the caller
    does other work (an update reads the papers it has stored meanwhile). ``ahead``: batches sent
    before their results are read (default ``2 * workers``, so that the input is read as fast as
    the workers go, not ahead of them); an update, which holds its new papers already, sends all.
    The iterator's ``close()`` stops the pool (batches not started are dropped); reading it to the
    end does too.

    Raises:
        WorkerError: a worker died; the message says how to run with fewer or one.
    """
    if workers <= 1:
        return extract(nlp, papers, batch_size=batch_size)
    return _PoolExtraction(nlp, papers, workers, batch_size, ahead or 2 * workers)


class _PoolExtraction(Iterator[Extraction]):
    """:func:`extract_parallel`'s pool: batches of ``batch_size`` papers in input order, at most
    ``ahead`` of them in flight, their extractions given back in input order."""

    def __init__(
        self, nlp: Language, papers: Iterable[Paper], workers: int, batch_size: int, ahead: int
    ) -> None:
        global _worker_nlp
        methods = multiprocessing.get_all_start_methods()
        # fork shares the loaded pipeline with the workers at no cost; elsewhere it travels
        # pickled once
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        forked = context.get_start_method() == "fork"
        _worker_nlp = nlp if forked else None  # what a forked worker finds (see _init_worker)
        self._stream = iter(papers)
        self._batch_size = batch_size
        self._ahead = ahead
        self._pending: deque[tuple[list[Paper], Future[list[ExtractionRecords]]]] = deque()
        self._ready: deque[Extraction] = deque()
        self._pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(None if forked else nlp,),
        )
        self._closer = weakref.finalize(self, _stop, self._pool, self._pending)
        self._guarded(self._send)

    def _send(self) -> None:
        while self._pool is not None and len(self._pending) < self._ahead:
            batch = list(islice(self._stream, self._batch_size))
            if not batch:
                return
            self._pending.append(
                (batch, self._pool.submit(_extract_batch, batch, self._batch_size))
            )

    def _receive(self) -> None:
        if not self._pending:  # every batch was read (each call ends by sending more)
            self.close()
            return
        batch, future = self._pending.popleft()
        records = future.result()
        self._ready.extend(from_records(p, r) for p, r in zip(batch, records, strict=True))
        self._send()

    def _guarded(self, step: Callable[[], None]) -> None:
        """``step()``; on any error (a dead worker, a bad input record, ^C) the pool is stopped."""
        try:
            step()
        except BrokenProcessPool as exc:
            self.close()
            raise WorkerError(
                f"an extraction worker process died ({exc}); the machine may be out of memory: "
                "run again with fewer workers (--workers 1 runs in one process)"
            ) from exc
        except BaseException:
            self.close()
            raise

    def __next__(self) -> Extraction:
        if not self._ready and self._pool is not None:
            self._guarded(self._receive)
        if not self._ready:
            raise StopIteration
        return self._ready.popleft()

    def close(self) -> None:
        """Stop the pool: the batches not started are dropped, and so is what was not read."""
        global _worker_nlp
        self._ready.clear()
        if self._pool is not None:
            self._pool = None
            self._closer()
            _worker_nlp = None


def _stop(
    pool: ProcessPoolExecutor,
    pending: deque[tuple[list[Paper], Future[list[ExtractionRecords]]]],
) -> None:
    for _, waiting in pending:
        waiting.cancel()
    pending.clear()
    pool.shutdown(wait=True, cancel_futures=True)
