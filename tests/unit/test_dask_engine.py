"""The Dask engine on a real LocalCluster (worker processes, two of them): the same graph as the
local engine, byte for byte, mentions kept as partitioned Parquet, and cluster failures as one
clear error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kg.build import build
from kg.corpus import read_corpus
from kg.dask_engine import DaskError, PipelineSpec, dask_extractor

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "iclr2026"


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as running:
        yield running


def test_a_dask_build_is_the_local_build_byte_for_byte(nlp, cluster, tmp_path):
    import pyarrow.parquet as pq

    local = build([EXAMPLES], nlp, workers=1)
    store = tmp_path / "parquet"
    with dask_extractor(
        nlp, scheduler=cluster.scheduler_address, partition_size=8, store=store
    ) as extractor:
        on_dask = build([EXAMPLES], nlp, extractor=extractor)
    assert "".join(on_dask.graph.iter_json()) == "".join(local.graph.iter_json())
    assert on_dask.merges == local.merges
    parts = sorted((store / "mentions").glob("part-*.parquet"))
    assert len(parts) == 8  # 57 papers, 8 per partition
    table = pq.read_table(store / "mentions")
    assert table.num_rows == local.summary.mentions
    assert set(table.column("paper_id").to_pylist()) <= {p.id for p in read_corpus([EXAMPLES])}


def test_the_cli_starts_a_local_cluster_of_its_own(tmp_path):
    def kg(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True, timeout=600
        )

    local = kg(
        "build", str(EXAMPLES), "-o", str(tmp_path / "local"), "-q", "--no-html", "--workers", "1"
    )
    assert local.returncode == 0, local.stderr
    done = kg(
        "build",
        str(EXAMPLES),
        "-o",
        str(tmp_path / "dask"),
        "--json",
        "--no-html",
        "--engine",
        "dask",
        "--workers",
        "2",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["papers"] == 57
    assert (tmp_path / "dask" / "graph.json").read_bytes() == (
        tmp_path / "local" / "graph.json"
    ).read_bytes()


def test_a_task_that_fails_on_the_cluster_names_its_papers(nlp, cluster, tmp_path):
    spec = PipelineSpec(model=str(tmp_path / "no-such-model"))
    with pytest.raises(
        DaskError, match=r"extraction of papers \w+ \.\. \w+ failed on the Dask cluster: ModelError"
    ):
        with dask_extractor(nlp, spec=spec, scheduler=cluster.scheduler_address) as extractor:
            build([EXAMPLES], nlp, extractor=extractor)


def test_workers_with_another_pipeline_are_refused(nlp, cluster):
    with pytest.raises(DaskError, match="is not the driver's"):
        with dask_extractor(
            nlp, spec=PipelineSpec(statistical=False), scheduler=cluster.scheduler_address
        ) as ex:
            build([EXAMPLES], nlp, extractor=ex)


def test_an_unreachable_scheduler_is_one_clear_error(nlp):
    with pytest.raises(
        DaskError, match=r"cannot reach the Dask scheduler at tcp://127.0.0.1:9 .*; is it running"
    ):
        with dask_extractor(nlp, scheduler="tcp://127.0.0.1:9", timeout=2):
            pass
