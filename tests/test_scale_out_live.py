"""Scale-out on PostgreSQL (issue 15, "Done when"): three real processes on ONE database.

- ``worker``: ``ci-service worker --workers 1 --no-scheduler`` (started first, alone, so the
  blocking job queued before the servers start is surely its own);
- ``a``: ``ci-service serve --job-workers 1``: web, jobs and a scheduler candidate;
- ``b``: ``ci-service serve --no-jobs``: web only, the other scheduler candidate.

Every process gets a 2 s job lease and a 1 s refresh-scan period. The tests show: one
key's rate limit counted exactly over both servers; a STARTER plan's limit under parallel
creates over both servers; the SIGKILLed worker's job failed cleanly by a live process after
its lease; one scheduler leader scanning once per period; intel written through ``a`` found
by ``search_intel`` on ``b`` without a restart. PostgreSQL only (SQLite: one process per file).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from ci_service.jobs.queue import enqueue
from ci_service.jobs.registry import REGISTRY
from ci_service.store.competitors import Competitor
from ci_service.store.db import close_database, connection, open_database
from ci_service.store.jobs import INTERRUPTED_ERROR, INTERRUPTED_STEP, Job
from ci_service.timeutil import utcnow
from tests.backends import require_postgres
from tests.concurrency_support import all_at_once, make_key, starter_creates
from tests.live import LiveServer, run_cli
from tests.waiting import wait_for
from tests.worker_live import REPO, WorkerProcess

LEASE_SECONDS = 2
SCAN_SECONDS = 1.0
ENV = {
    "CI_SERVICE_JOB_LEASE_SECONDS": str(LEASE_SECONDS),
    "CI_SERVICE_SCHEDULER_SCAN_SECONDS": str(SCAN_SECONDS),
    "CI_SERVICE_SCHEDULER_RETRY_SECONDS": "0.3",
    "CI_SERVICE_JOB_MODULES": "tests.jobs_plugin",
    "CI_SERVICE_FETCH_DEADLINE_SECONDS": "5",  # the created rivals' collect jobs end soon
    "PYTHONPATH": str(REPO),
}
RATE_LIMIT = 20
LEADER = re.compile(r"scheduler: this process is the leader now \(pid (\d+)\)")
SCAN_RUN = re.compile(
    r"^(\S+ \S+) INFO ci_service\.scheduler: scheduler: refresh-scan runs \(pid (\d+)\)"
)


@dataclass
class Cluster:
    url: str
    worker: WorkerProcess
    a: LiveServer
    b: LiveServer
    keys: dict[str, str]
    workspaces: dict[str, str]
    blocked_job: str = ""
    payload: dict = field(default_factory=dict)

    @property
    def servers(self) -> tuple[LiveServer, LiveServer]:
        return self.a, self.b

    def logs(self) -> list[str]:
        return [*self.worker.lines, *self.a.stderr_lines, *self.b.stderr_lines]


def fetch(job_id: str) -> Job:
    with connection():
        return Job.get_by_id(job_id)


@pytest.fixture(scope="module")
def cluster(request, postgres_databases, tmp_path_factory):
    if request.config.getoption("backend") == "sqlite":
        pytest.skip("several processes on one database: PostgreSQL only")
    require_postgres(postgres_databases)
    url = postgres_databases.create()
    work = tmp_path_factory.mktemp("scale-out")
    saved_types = dict(REGISTRY)
    import tests.jobs_plugin as plugin

    plugin.register_types()  # to enqueue test-block here; the processes load it themselves
    processes: list = []
    try:
        open_database(url)
        workspaces, keys = {}, {}
        for plan, name in (("ENTERPRISE", "enterprise"), ("STARTER", "starter")):
            workspaces[name], keys[name] = make_key(plan, name)
        # The rate-limited key through the CLI, as an operator makes one.
        done = run_cli(url, "keys", "create", "--workspace", "enterprise", "--name", "limited",
                       "--rate-limit", str(RATE_LIMIT))  # fmt: skip
        assert done.returncode == 0, done.stderr
        keys["limited"] = done.stdout.strip().splitlines()[-1]

        worker = WorkerProcess(url, "--workers", "1", "--no-scheduler", env=ENV)
        processes.append(worker)
        worker.start()
        payload = {
            "started": str(work / "block.started"),
            "release": str(work / "block.go"),  # never created: the worker dies first
            "maxSeconds": 600,
        }
        with connection():
            # One attempt: the kill fails it (tests/test_jobs_retry_live.py: retries).
            blocked = enqueue(
                workspaces["enterprise"], "test-block", payload=payload, max_attempts=1
            )
        # Claimed while the worker is the only process that runs jobs.
        wait_for(Path(payload["started"]).exists, timeout=20)

        a = LiveServer(url, "--threads", "8", "--job-workers", "1", env=ENV)
        processes.append(a)
        a.start()
        b = LiveServer(url, "--threads", "8", "--no-jobs", env=ENV)
        processes.append(b)
        b.start()
        yield Cluster(url, worker, a, b, keys, workspaces, blocked.id, payload)
    finally:
        for process in processes:
            process.kill()
        REGISTRY.clear()
        REGISTRY.update(saved_types)
        close_database()
        postgres_databases.drop(url)


def test_rate_limit_is_exact_over_both_servers(cluster):
    headers = {"X-API-Key": cluster.keys["limited"]}
    # The window is a clock hour: don't straddle its end (waits only in the last 15 s).
    wait_for(lambda: time.time() % 3600 < 3585, timeout=20, interval=0.2)

    def burst(i):
        # Each thread alternates servers; half the threads start on each.
        responses = []
        for n in range(5):
            server = cluster.servers[(i + n) % 2]
            responses.append(
                httpx.get(server.url + "/api/competitors", headers=headers, timeout=30)
            )
        return responses

    results = all_at_once(8, burst)
    assert all(isinstance(r, list) for r in results), results
    responses = [r for batch in results for r in batch]
    assert len(responses) == 2 * RATE_LIMIT
    allowed = [r for r in responses if r.status_code != 429]
    limited = [r for r in responses if r.status_code == 429]
    assert (len(allowed), len(limited)) == (RATE_LIMIT, RATE_LIMIT)
    assert {r.status_code for r in allowed} == {200}
    # One counter for both processes: each allowed request took its own slot.
    remaining = sorted(int(r.headers["X-RateLimit-Remaining"]) for r in allowed)
    assert remaining == list(range(RATE_LIMIT))
    for response in limited:
        assert response.json()["error"]["code"] == "RATE_LIMITED"
        assert response.headers["X-RateLimit-Remaining"] == "0"
    for server in cluster.servers:  # closed on both
        answer = httpx.get(server.url + "/api/competitors", headers=headers, timeout=10)
        assert answer.status_code == 429


def test_parallel_creates_over_both_servers_respect_the_starter_limit(cluster):
    headers = {"X-API-Key": cluster.keys["starter"]}

    def create(i):
        server = cluster.servers[i % 2]
        body = {"name": f"Rival {i}", "websiteUrl": f"https://rival-{i}.example"}
        return httpx.post(server.url + "/api/competitors", json=body, headers=headers, timeout=30)

    created = starter_creates(all_at_once(12, create))
    with connection():
        stored = Competitor.select().where(Competitor.workspace == cluster.workspaces["starter"])
        assert {row.id for row in stored} == created
    for server in cluster.servers:
        listed = httpx.get(server.url + "/api/competitors", headers=headers, timeout=10)
        assert {c["id"] for c in listed.json()["competitors"]} == created


def test_sigkilled_workers_job_is_failed_by_a_live_process_after_its_lease(cluster):
    job_id, worker = cluster.blocked_job, cluster.worker
    row = fetch(job_id)
    assert row.status == "running"
    assert row.claimed_by.split(":")[1] == str(worker.pid)  # the worker's, not a server's
    # Renewed while the worker lives, although the servers' runners check expiry too.
    wait_for(lambda: fetch(job_id).lease_expires_at > row.lease_expires_at, timeout=10)
    assert fetch(job_id).status == "running"

    worker.kill()
    killed_at = utcnow()
    wait_for(lambda: fetch(job_id).status != "running", timeout=LEASE_SECONDS * 10)
    row = fetch(job_id)
    assert (row.status, row.current_step, row.error) == (
        "failed",
        INTERRUPTED_STEP,
        INTERRUPTED_ERROR,
    )
    assert row.completed_at >= row.lease_expires_at  # not before its lease ran out
    assert row.completed_at - killed_at < timedelta(seconds=LEASE_SECONDS * 4)
    # A server alive since before the kill took it over (web-only ones keep watch too),
    # exactly one of them.
    taken = re.compile(rf"job {job_id} .*failed as interrupted: the lease of .*expired")

    def takers():
        return [s for s in cluster.servers if any(taken.search(x) for x in s.stderr_lines)]

    wait_for(lambda: len(takers()) >= 1, timeout=5)
    assert len(takers()) == 1
    assert cluster.a.process.poll() is None and cluster.b.process.poll() is None


def scan_runs(cluster: Cluster) -> list[tuple[datetime, int]]:
    runs = []
    for line in cluster.logs():
        match = SCAN_RUN.search(line)
        if match:
            stamp = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f")
            runs.append((stamp, int(match.group(2))))
    return sorted(runs)


def test_scheduler_runs_once_per_period_with_two_candidates(cluster):
    servers = {server.process.pid: server for server in cluster.servers}
    wait_for(lambda: any(LEADER.search(line) for line in cluster.logs()), timeout=15)
    before = len(scan_runs(cluster))
    window = 6
    wait_for(lambda: len(scan_runs(cluster)) >= before + window + 1, timeout=window * 3)
    runs = scan_runs(cluster)[before : before + window + 1]

    leaders = [int(m.group(1)) for line in cluster.logs() if (m := LEADER.search(line))]
    assert len(leaders) == 1 and leaders[0] in servers  # one of the two candidates leads
    assert {pid for _, pid in runs} == {leaders[0]}  # the other never scans
    span = (runs[-1][0] - runs[0][0]).total_seconds()
    # ``window`` periods passed between the first and the last run: the expected count ±1.
    assert abs(span / SCAN_SECONDS - window) <= 1, runs
    gaps = [(b - a).total_seconds() for (a, _), (b, _) in zip(runs, runs[1:], strict=False)]
    # One process, one APScheduler job: never two runs for one period (a run may start a
    # little late on a busy machine, so the next gap is a little short).
    assert min(gaps) > SCAN_SECONDS / 4, gaps


def mcp_search(server: LiveServer, key: str, query: str) -> list[dict]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_intel", "arguments": {"query": query, "limit": 5}},
    }
    answer = httpx.post(server.url + "/mcp", json=body, headers={"X-API-Key": key}, timeout=30)
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["isError"] is False, result
    return result["structuredContent"]["results"]


def test_intel_written_through_one_server_is_found_on_the_other(cluster):
    key = cluster.keys["enterprise"]
    query = "Zorblax quantum ledger pricing"
    # b loads the workspace's vector index now, before the item exists.
    assert mcp_search(cluster.b, key, query) == []
    note = {
        "title": "Zorblax quantum ledger",
        "content": "Zorblax announced quantum ledger pricing: 40 dollars per seat per month.",
    }
    created = httpx.post(
        cluster.a.url + "/api/intel", json=note, headers={"X-API-Key": key}, timeout=30
    )
    assert created.status_code == 200, created.text
    item_id = created.json()["intelItem"]["id"]

    results = mcp_search(cluster.b, key, query)  # same b process, no restart
    assert [r["id"] for r in results][:1] == [item_id], results
    assert results[0]["content"] == note["content"] and results[0]["relevanceScore"] > 0
    # No word of this query occurs in the note, so no lexical lookup finds it: only b's
    # in-memory vector index can, and that index was loaded before the note was written.
    semantic = "subscription fee costs"
    assert not any(w in note["content"].lower() for w in semantic.split())
    found = mcp_search(cluster.b, key, semantic)
    assert item_id in [r["id"] for r in found], found
