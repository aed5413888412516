"""The Dask engine: extraction mapped over partitions of the input on a Dask cluster.

``kg build --engine dask`` reads and de-duplicates the input here (the driver), sends partitions
of papers to the cluster, where each worker loads the pipeline once and turns a partition into
three Parquet tables (mentions, relations and results, via pyarrow). The tables come back to the driver,
are kept as a partitioned store (``mentions/part-NNNNN.parquet``, ``relations/...``) and are
read back in input order into resolution and the graph, so the graph is the one the local engine
makes, byte for byte. Without a scheduler address a ``LocalCluster`` of worker processes is
started and closed again; with one (``--scheduler tcp://host:8786``) the cluster's workers need
kg and its pipeline installed (``pip install 'kg[dask]'``), nothing else: the papers travel with
the tasks and the tables with the results, so no shared file system is needed.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spacy.language import Language

from extractors.parallel import ExtractionRecords, from_records, to_records
from extractors.pipeline import Extraction

from .errors import KgError
from .model import Mention, Paper, RelationMention, ResultMention
from .store import pipeline_fingerprint

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["DaskError", "PipelineSpec", "dask_extractor", "extract_partition"]

#: Papers per task: a multiple of the pipeline's batch size, small enough to keep every worker
#: busy until the end of a corpus of a few thousand abstracts.
PARTITION_SIZE = 256
_MENTION_COLUMNS = tuple(f.name for f in fields(Mention))[1:]
_RELATION_COLUMNS = tuple(f.name for f in fields(RelationMention))[1:]
_RESULT_COLUMNS = tuple(f.name for f in fields(ResultMention))[1:]
#: The partitioned store's tables, one folder each.
TABLES = ("mentions", "relations", "results")


class DaskError(KgError):
    """Dask is missing, the scheduler cannot be reached, or a task failed on the cluster."""


@dataclass(frozen=True)
class PipelineSpec:
    """How a worker loads the pipeline (the arguments of :func:`extractors.load_pipeline`)."""

    model: str | None = None
    statistical: bool = True


_pipelines: dict[PipelineSpec, Language] = {}

#: How the LocalCluster kg starts differs from Dask's defaults, both measured on this pipeline:
#:
#: - Dask's nannies start workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also turns off
#:   glibc's adaptive mmap threshold: every large array the pipeline allocates and frees is then
#:   mapped and unmapped again. On 512 abstracts in one worker: 10 times the page faults and 2.1
#:   more CPU-seconds (12% of the pipeline's).
#: - Each worker samples its own stacks every 10 ms for the dashboard's profile, and kg's cluster
#:   has no dashboard: an idle worker used 1.25 CPU-seconds in 20 s with it, 0.71 without.
_LOCAL_CLUSTER_CONFIG = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.worker.profile.enabled": False,
}


def _worker_pipeline(spec: PipelineSpec) -> Language:
    """The pipeline of ``spec``, loaded once per worker process and kept for its later tasks."""
    nlp = _pipelines.get(spec)
    if nlp is None:
        from extractors import load_pipeline

        nlp = _pipelines[spec] = load_pipeline(spec.model, statistical=spec.statistical)
    return nlp


def _table_bytes(columns: tuple[str, ...], paper_ids: list[str], rows: list[tuple]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data: dict[str, list[Any]] = {"paper_id": paper_ids}
    for i, name in enumerate(columns):
        data[name] = [row[i] for row in rows]
    buffer = io.BytesIO()
    pq.write_table(pa.table(data), buffer)
    return buffer.getvalue()


def extract_partition(
    spec: PipelineSpec, fingerprint: dict[str, Any], papers: list[Paper], batch_size: int
) -> tuple[bytes, bytes, bytes]:
    """Run on a worker: the Parquet bytes of the partition's mentions, relations and results."""
    nlp = _worker_pipeline(spec)
    if pipeline_fingerprint(nlp) != fingerprint:
        raise RuntimeError(
            f"this worker's pipeline {pipeline_fingerprint(nlp)} is not the driver's "
            f"{fingerprint}; "
            "install the same kg and model on every worker"
        )
    from extractors.pipeline import extract

    mention_ids: list[str] = []
    mention_rows: list[tuple] = []
    relation_ids: list[str] = []
    relation_rows: list[tuple] = []
    result_ids: list[str] = []
    result_rows: list[tuple] = []
    for item in extract(nlp, papers, batch_size=batch_size):
        mentions, relations, results = to_records(item)
        mention_ids += [item.paper.id] * len(mentions)
        mention_rows += mentions
        relation_ids += [item.paper.id] * len(relations)
        relation_rows += relations
        result_ids += [item.paper.id] * len(results)
        result_rows += results
    return (
        _table_bytes(_MENTION_COLUMNS, mention_ids, mention_rows),
        _table_bytes(_RELATION_COLUMNS, relation_ids, relation_rows),
        _table_bytes(_RESULT_COLUMNS, result_ids, result_rows),
    )


def _read_partition(
    papers: list[Paper], tables: tuple[bytes, bytes, bytes]
) -> Iterator[Extraction]:
    import pyarrow.parquet as pq

    grouped: dict[str, ExtractionRecords] = {p.id: ([], [], []) for p in papers}
    columns_of = (_MENTION_COLUMNS, _RELATION_COLUMNS, _RESULT_COLUMNS)
    for slot, (blob, columns) in enumerate(zip(tables, columns_of, strict=True)):
        table = pq.read_table(io.BytesIO(blob)).to_pydict()
        values = [table[name] for name in columns]
        for paper_id, *row in zip(table["paper_id"], *values, strict=True):
            grouped[paper_id][slot].append(tuple(row))
    for paper in papers:
        yield from_records(paper, grouped[paper.id])


def _client(
    scheduler: str | None, workers: int, timeout: float
) -> contextlib.AbstractContextManager[Client]:
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise DaskError("--engine dask needs Dask and pyarrow: pip install 'kg[dask]'") from exc
    try:
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise DaskError("--engine dask needs pyarrow: pip install 'kg[dask]'") from exc

    @contextlib.contextmanager
    def connect() -> Iterator[Client]:
        if scheduler is not None:
            try:
                client = Client(scheduler, timeout=f"{timeout}s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise DaskError(
                    f"cannot reach the Dask scheduler at {scheduler} ({exc}); is it running? "
                    "give its address as tcp://HOST:8786"
                ) from exc
            with client:
                yield client
            return
        try:
            with dask.config.set(_LOCAL_CLUSTER_CONFIG):
                cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                )
        except (OSError, TimeoutError, RuntimeError) as exc:
            raise DaskError(
                f"cannot start a Dask LocalCluster of {workers} workers ({exc})"
            ) from exc
        with cluster, Client(cluster) as client:
            yield client

    return connect()


@contextlib.contextmanager
def dask_extractor(
    nlp: Language,
    *,
    spec: PipelineSpec = PipelineSpec(),
    scheduler: str | None = None,
    workers: int = 2,
    batch_size: int = 64,
    partition_size: int = PARTITION_SIZE,
    store: str | Path | None = None,
    timeout: float = 20.0,
) -> Iterator[Any]:
    """An extractor for :func:`kg.build.build` (``extractor=``) that runs on a Dask cluster.

    Args:
        nlp: the driver's pipeline; every worker must load one with the same fingerprint.
        spec: how workers load it (the same ``--model`` / ``--rules-only`` as the driver).
        scheduler: address of a running scheduler; None starts a LocalCluster of ``workers``.
        store: folder for the partitioned Parquet store (default: a temporary one, removed after).
        timeout: seconds to wait for the scheduler.

    Raises:
        DaskError: no Dask, no scheduler at ``scheduler``, or a task failed (its error in the
            message).
    """
    fingerprint = pipeline_fingerprint(nlp)
    with contextlib.ExitStack() as stack:
        client = stack.enter_context(_client(scheduler, workers, timeout))
        folder = (
            Path(store)
            if store is not None
            else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kg-dask-")))
        )
        for sub in TABLES:
            (folder / sub).mkdir(parents=True, exist_ok=True)
        window = 2 * max(1, sum(client.nthreads().values()))

        def extractor(papers: Iterable[Paper]) -> Iterator[Extraction]:
            stream = iter(papers)
            pending: deque[tuple[int, list[Paper], Any]] = deque()
            number = 0
            try:
                while True:
                    while len(pending) < window:
                        part = list(islice(stream, partition_size))
                        if not part:
                            break
                        future = client.submit(
                            extract_partition, spec, fingerprint, part, batch_size, pure=False
                        )
                        pending.append((number, part, future))
                        number += 1
                    if not pending:
                        return
                    index, part, future = pending.popleft()
                    try:
                        tables = future.result()
                    except Exception as exc:  # the task's own error, raised again here by Dask
                        raise DaskError(
                            f"extraction of papers {part[0].id} .. {part[-1].id} failed on "
                            "the Dask "
                            f"cluster: {type(exc).__name__}: {exc}"
                        ) from exc
                    for sub, blob in zip(TABLES, tables, strict=True):
                        (folder / sub / f"part-{index:05d}.parquet").write_bytes(blob)
                    yield from _read_partition(part, tables)
            finally:
                for _, _, future in pending:
                    future.cancel()

        yield extractor
