"""Smoke test of the benchmark suite: ``python -m bench --quick`` prints every figure, with
wrk driving the REST figures when it is installed and with the Python load generator (what
runs where wrk is absent), which the output then names."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FIGURES = [
    "REST read GET /api/competitors",
    "server CPU per request",
    "REST write POST /api/deals",
    "REST write errors",
    "/api/search p50 @300",
    "/api/search p95 @300",
    "HTTP floor p95 @300",
    "search_intel p95 @300",
    "serve RSS @300",
    "start → first 200 on /healthz",
    "first-run pipeline, 6-page site",
    "first-run pipeline, 12-page site",
    "pipeline per-page cost, 12 vs 6 pages",
    "first analysis of 3 sites × 6 pages at once",
    "shortest gap between two requests to one host (3 sites)",
]


DRIVERS = {
    "wrk": "wrk ",
    "python": "the Python load generator (bench/load.py; --driver python",
}


@pytest.mark.parametrize("driver", sorted(DRIVERS))
def test_quick_benchmark_prints_every_figure(driver):
    if driver == "wrk" and shutil.which("wrk") is None:
        pytest.skip("wrk is not installed (apt install wrk); the python case covers the rest")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CI_SERVICE_")}
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--driver", driver],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,  # about 30 s on a quiet 2-core machine
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
    _check_cpu_split(table)
    assert done.stdout.startswith("machine: ")
    load = [line for line in done.stdout.splitlines() if line.startswith("load: ")]
    expected = DRIVERS[driver]
    if driver == "python" and shutil.which("wrk") is None:
        # Without wrk the Python generator is the only driver, and the line says so.
        expected = expected.replace("--driver python", "wrk not installed")
    assert load and load[0].startswith("load: " + expected), load
    assert "8 connections" in load[0] or "8 clients" in load[0]
    assert "both servers 4 waitress threads" in load[0]


SPLIT = "server CPU per request: waitress's loop thread / other threads"


def _ms_pair(cell: str) -> tuple[float, float]:
    loop, rest = cell.removesuffix(" ms").split(" / ")
    return float(loop), float(rest)


def _check_cpu_split(table: list[str]) -> None:
    """The read, write and search figures split each server's CPU per request between
    waitress's loop thread and the rest, and for reads and writes the two parts add up to
    the row that gives the whole."""
    rows = {}
    for line in table:
        cells = [c.strip() for c in line.split("|")[1:-1]]
        rows[cells[0]] = cells
    split = {name: cells for name, cells in rows.items() if name.endswith(SPLIT)}
    assert len(split) == 3, sorted(rows)
    added_up = 0
    for name, cells in split.items():
        for cell in cells[1:3]:
            loop, rest = _ms_pair(cell)
            assert loop > 0 and rest > 0, (name, cell)
        whole_name = name.removesuffix(": waitress's loop thread / other threads")
        if whole_name in rows:  # reads and writes have a row for the whole
            loop, rest = _ms_pair(cells[1])
            whole = float(rows[whole_name][1].removesuffix(" ms"))
            assert abs(loop + rest - whole) <= 0.02, (name, cells[1], whole)
            added_up += 1
    assert added_up == 2, sorted(split)
