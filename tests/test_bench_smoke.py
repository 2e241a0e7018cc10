"""Smoke test of the benchmark suite: ``python -m bench --quick`` prints every figure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIGURES = [
    "REST read GET /api/competitors",
    "REST write POST /api/deals",
    "REST write errors",
    "/api/search p50 @300",
    "/api/search p95 @300",
    "search_intel p95 @300",
    "serve RSS @300",
    "start → first 200 on /healthz",
    "first-run pipeline, 6-page site",
    "first-run pipeline, 12-page site",
    "pipeline per-page cost, 12 vs 6 pages",
]


def test_quick_benchmark_prints_every_figure():
    env = {k: v for k, v in os.environ.items() if not k.startswith("CI_SERVICE_")}
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    header = [c.strip() for c in table[0].split("|")[1:-1]]
    assert header == ["figure", "ours", "baseline", "ratio", "target", "met?"]
    for figure in FIGURES:
        rows = [line for line in table if figure in line]
        assert rows, f"{figure!r} missing from:\n{done.stdout}"
        cells = [c.strip() for c in rows[0].split("|")[1:-1]]
        assert len(cells) == 6 and cells[1] not in ("", "n/a"), rows[0]
    assert done.stdout.startswith("machine: ")
