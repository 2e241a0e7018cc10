"""Smoke test of the benchmark's PostgreSQL mode (issue 15): ``python -m bench --quick
--postgresql URL --scale-out-only`` prints read and write throughput for one and three
processes on PostgreSQL beside SQLite's one process, and drops the database it made."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg2
import pytest

from tests.backends import admin_url

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ["SQLite, 1 process", "SQLite, 3 processes", "PostgreSQL, 1 process",
           "PostgreSQL, 3 processes"]  # fmt: skip


def bench(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CI_SERVICE_")}
    return subprocess.run(
        [sys.executable, "-m", "bench", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def server_url(request) -> str:
    if request.config.getoption("backend") == "sqlite":
        pytest.skip("the PostgreSQL mode needs PostgreSQL")
    url = admin_url()
    try:
        psycopg2.connect(url, connect_timeout=5).close()
    except psycopg2.Error as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"PostgreSQL at {url} is not usable: {exc}")
        pytest.skip(f"PostgreSQL at {url} is not usable: {exc}")
    return url


def database_exists(url: str, name: str) -> bool:
    conn = psycopg2.connect(url)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            return cursor.fetchone() is not None
    finally:
        conn.close()


def test_quick_postgresql_mode_prints_one_and_three_processes(server_url):
    done = bench("--quick", "--postgresql", server_url, "--scale-out-only", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    table = [line for line in out["table"].splitlines() if line.startswith("| ")]
    header = [c.strip() for c in table[0].split("|")[1:-1]]
    assert header == ["figure", *COLUMNS]
    rows = {cells[0]: cells[1:] for cells in
            ([c.strip() for c in line.split("|")[1:-1]] for line in table[1:])}  # fmt: skip
    for part in ("read GET /api/competitors", "write POST /api/deals"):
        speed = rows[f"{part}, req/s"]
        assert speed[1] == "n/a (one process per file)"
        for cell in (speed[0], speed[2], speed[3]):
            assert cell.endswith("/s") and float(cell[:-2]) > 0, rows
        assert rows[f"{part}, errors: 5xx or failed / non-200"][2:] == ["0 / 0", "0 / 0"]
    section = out["details"]["scaleOut"]
    assert set(section["results"]) == {"sqlite-1", "postgresql-1", "postgresql-3"}
    assert not database_exists(server_url, section["database"])  # dropped afterwards


def test_unusable_postgresql_url_is_a_clear_error():
    parts = urlsplit(admin_url())
    closed = urlunsplit(parts._replace(netloc="postgres:s3cret@127.0.0.1:1"))
    done = bench("--quick", "--postgresql", closed, "--scale-out-only", timeout=60)
    assert done.returncode == 1
    assert "benchmark failed: PostgreSQL at postgresql://postgres:***@127.0.0.1:1" in done.stderr
    assert "s3cret" not in done.stderr and "Traceback" not in done.stderr
    done = bench("--quick", "--postgresql", "mysql://root:s3cret@db/x", timeout=60)
    assert done.returncode == 1 and "needs a postgresql:// URL" in done.stderr
    assert "s3cret" not in done.stderr and "Traceback" not in done.stderr
    done = bench("--scale-out-only", timeout=60)
    assert done.returncode == 2 and "--scale-out-only needs --postgresql" in done.stderr
