"""The committed hand checks of result records: every verdict is one a reader can give for that
field (a filled field is ok or wrong, an empty one missing or empty), and the bench script
scores them into the one table docs/results.md quotes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKS = sorted((ROOT / "data" / "results_check").glob("iclr2026_submissions_score150*.jsonl"))
FIELDS = ("value", "kind", "metric", "dataset", "method", "baseline", "task")


@pytest.mark.parametrize("path", CHECKS, ids=lambda p: p.stem)
def test_each_verdict_fits_its_field(path):
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert rows and [r["check"] for r in rows] == list(range(len(rows)))
    for r in rows:
        assert set(r["verdict"]) == set(FIELDS) and r["reason"].strip()
        for field in ("dataset", "method", "baseline", "task"):
            filled = r["record"][field] is not None
            allowed = {"ok", "wrong"} if filled else {"missing", "empty"}
            if field == "method" and not filled and r["record"]["own"]:
                allowed.add("ok")  # score150 judged the paper's own, unnamed, as right
            assert r["verdict"][field] in allowed, (path.name, r["check"], field)
        sentence = r["record"]["sentence"]
        assert r["record"]["text"].replace(" ", "") in sentence.replace(" ", "")


def test_the_bench_prints_the_three_samples_in_one_table():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "results_precision.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if line.startswith("field "))
    assert all(name in header for name in ("score150 (150)", "score150b (150)", "score150c"))
    fully = next(line for line in done.stdout.splitlines() if line.startswith("fully right "))
    assert "119 (79.3%)" in fully and "123 (82.0%)" in fully
