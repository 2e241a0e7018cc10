"""Many jobs at once (issue 31): fetch steps run side by side, processing steps by the job
workers' slots, one politeness schedule for every crawl, a cap on crawled-site memory."""

from __future__ import annotations

import gc
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ci_service.jobs import lanes
from ci_service.jobs.queue import enqueue
from ci_service.jobs.types import JobCancelled
from ci_service.pipeline import context
from ci_service.pipeline.snapshot_memory import SnapshotMemory
from ci_service.services.collection import competitor_jobs
from ci_service.store.db import connection
from tests.jobs_support import fetch
from tests.waiting import wait_for

pytest_plugins = ["tests.jobs_fixtures", "tests.pipeline_fixtures.plugin"]

STEPS = [("fetch", "Fetching"), ("process", "Processing")]


class Peak:
    """How many threads are inside a block now, and the most at once."""

    def __init__(self):
        self.now = self.most = 0
        self._lock = threading.Lock()

    def __enter__(self):
        with self._lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc):
        with self._lock:
            self.now -= 1


def queue(workspace, job_type):
    with connection():
        return enqueue(workspace.id, job_type)


def test_fetch_steps_run_at_once_and_processing_steps_by_slots(
    make_workspace, threaded_runner, job_type
):
    fetching, processing = Peak(), Peak()
    all_fetching, release = threading.Event(), threading.Event()

    def fetch_step(ctx):
        with fetching:
            assert not lanes.holding()
            all_fetching.wait(10)

    def process_step(ctx):
        with processing:
            assert lanes.holding()
            release.wait(10)

    job_type(
        "t-crawl",
        STEPS,
        {"fetch": fetch_step, "process": process_step},
        fetch_steps=("fetch",),
    )
    runner = threaded_runner(2, concurrency=5)
    workspace = make_workspace()
    jobs = [queue(workspace, "t-crawl") for _ in range(5)]
    # Five jobs fetch at once with two job workers: the claimers hand each to a thread.
    wait_for(lambda: fetching.now == 5, 10, message="five fetch steps at once")
    all_fetching.set()
    # Two process at a time; the other three wait in their processing step for a slot.
    wait_for(
        lambda: (
            processing.now == 2 and sum(fetch(j.id).current_step == "Processing" for j in jobs) == 5
        ),
        10,
        message="two jobs processing, three waiting for a slot",
    )
    assert processing.now == 2
    release.set()
    wait_for(lambda: all(fetch(j.id).status == "completed" for j in jobs), 10, message="done")
    assert (fetching.most, processing.most) == (5, 2)
    assert runner.stop(5) and not runner.held


def test_no_job_is_claimed_beyond_the_concurrency(make_workspace, threaded_runner, job_type):
    release = threading.Event()
    job_type("t-wait", STEPS, {"fetch": lambda ctx: release.wait(10)}, fetch_steps=("fetch",))
    runner = threaded_runner(1, concurrency=3)
    workspace = make_workspace()
    jobs = [queue(workspace, "t-wait") for _ in range(5)]
    wait_for(lambda: len(runner.held) == 3, 10, message="three jobs running")
    # The other two stay queued (unclaimed) until a thread is free: another process may
    # take them meanwhile.
    assert sum(fetch(j.id).claimed_at is None for j in jobs) == 2
    release.set()
    wait_for(lambda: all(fetch(j.id).status == "completed" for j in jobs), 10, message="done")


def test_stopping_interrupts_every_running_job(make_workspace, threaded_runner, job_type):
    entered = Peak()
    release = threading.Event()

    def fetch_step(ctx):
        with entered:
            release.wait(10)

    job_type("t-stop", STEPS, {"fetch": fetch_step}, fetch_steps=("fetch",))
    runner = threaded_runner(1, concurrency=4)
    workspace = make_workspace()
    with connection():
        jobs = [enqueue(workspace.id, "t-stop", max_attempts=1) for _ in range(4)]
    wait_for(lambda: entered.now == 4, 10, message="four jobs in their fetch step")
    stopper = threading.Thread(target=runner.stop, args=(10,))
    stopper.start()
    wait_for(runner._stopping.is_set, 5, message="stop requested")
    release.set()
    stopper.join(10)
    assert not runner.running
    assert {(fetch(j.id).status, fetch(j.id).current_step) for j in jobs} == {
        ("failed", "Interrupted")
    }


def test_processing_slots_are_reentrant_per_thread():
    lanes.configure(1)
    try:
        with lanes.processing():
            with lanes.processing():  # the same thread: no wait for itself
                assert lanes.holding()
            assert lanes.holding()
        assert not lanes.holding()
        inside = threading.Event()
        other_got_in = threading.Event()

        def other():
            with lanes.processing():
                other_got_in.set()

        with lanes.processing():
            thread = threading.Thread(target=other)
            thread.start()
            inside.set()
            assert not other_got_in.wait(0.2)  # one slot: the other thread waits
        thread.join(5)
        assert other_got_in.is_set()
    finally:
        lanes.configure(2)


def test_what_a_job_stashed_goes_when_it_stops_running(make_workspace, runner, job_type):
    def keep(ctx):
        competitor_jobs.stash(ctx, "site", object())

    job_type("t-stash", STEPS, {"fetch": keep})
    job = queue(make_workspace(), "t-stash")
    assert runner.run_once() == job.id
    assert not [key for key in competitor_jobs._STASH if key[0] == job.id]


def test_crawls_wait_while_crawled_sites_fill_the_memory_cap():
    memory = SnapshotMemory()

    class Snapshot:
        pass

    held = Snapshot()
    memory.track(held, 600)
    assert memory.held == 600
    assert memory.wait_for_room(1000) is False  # under the cap: no wait
    waited = threading.Event()
    result = []

    def crawl():
        result.append(memory.wait_for_room(500))
        waited.set()

    thread = threading.Thread(target=crawl)
    thread.start()
    assert not waited.wait(0.2)
    del held
    gc.collect()
    assert waited.wait(5) and result == [True]
    assert (memory.held, memory.count) == (0, 0)
    thread.join(5)

    blocker = Snapshot()
    memory.track(blocker, 10)

    def cancelled():
        raise JobCancelled()

    with pytest.raises(JobCancelled):  # a cancelled job stops waiting
        memory.wait_for_room(5, cancelled)


def test_every_job_shares_one_fetcher_per_policy(crawl_env):
    with context.shared_fetcher() as first, context.shared_fetcher() as again:
        assert again is first
        crawl_env.setenv("CI_SERVICE_CRAWL_DELAY_SECONDS", "2")
        with context.shared_fetcher() as other:
            assert other is not first and other.policy.per_host_delay == 2
        # Settings changed four more times: the first policy's fetcher is retired, but
        # it stays open while a crawl still uses it, and is closed when that one is done.
        for delay in ("3", "4", "5", "6"):
            crawl_env.setenv("CI_SERVICE_CRAWL_DELAY_SECONDS", delay)
            with context.shared_fetcher():
                pass
        assert not first._client.is_closed
    assert first._client.is_closed


def test_closing_the_shared_fetchers_spares_one_in_use(crawl_env):
    with context.shared_fetcher() as busy:
        crawl_env.setenv("CI_SERVICE_CRAWL_DELAY_SECONDS", "2")
        with context.shared_fetcher() as idle:
            pass
        context.close_shared_fetchers()
        assert idle._client.is_closed and not busy._client.is_closed
        with context.shared_fetcher() as fresh:  # forgotten: a new one for the same policy
            assert fresh is not idle and not fresh._client.is_closed
    assert busy._client.is_closed  # its last user is done
    context.close_shared_fetchers()
    assert fresh._client.is_closed


CRAWL_AND_EXIT = """
import sys
from ci_service.pipeline import context
with context.shared_fetcher() as fetcher:
    print(fetcher.get(sys.argv[1] + "/").status)
"""


def test_a_process_closes_its_crawl_connections_when_it_exits(crawl_env):
    """The shared fetcher keeps connections alive for the next page; a process whose crawls
    are over closes them as it exits instead of leaving them to the interpreter's teardown
    (an "unclosed socket" ResourceWarning each)."""
    import subprocess
    import sys

    from bench.site import build_site

    arrivals: dict[str, list[float]] = {}
    server, base = serve_site("127.0.2.9", build_site(6), arrivals, threading.Lock())
    try:
        done = subprocess.run(
            [sys.executable, "-W", "always::ResourceWarning", "-c", CRAWL_AND_EXIT, base],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "200"
    assert len(arrivals["127.0.2.9"]) >= 2  # robots.txt and the page
    assert "ResourceWarning" not in done.stderr and "unclosed" not in done.stderr


# -- many competitors at once, end to end -----------------------------------------------


class _Sites(ThreadingHTTPServer):
    daemon_threads = True


def serve_site(address: str, files, arrivals, lock):
    from bench.site import send_file

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):  # noqa: N802 (http.server's naming)
            import time

            with lock:
                arrivals.setdefault(address, []).append(time.monotonic())
            send_file(self, self.server.files)

        def log_message(self, *args):
            pass

    server = _Sites((address, 0), Handler)
    base = f"http://{address}:{server.server_address[1]}".encode()
    server.files = {p: (b.replace(b"{base}", base), k) for p, (b, k) in files.items()}
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}).start()
    return server, base.decode()


def test_many_competitors_crawl_at_once_and_politely(api, crawl_env, threaded_runner):
    from bench.site import build_site

    delay = 0.3
    crawl_env.setenv("CI_SERVICE_CRAWL_DELAY_SECONDS", str(delay))
    crawl_env.setenv("CI_SERVICE_CRAWL_MAX_PAGES", "8")
    files = build_site(8)
    arrivals: dict[str, list[float]] = {}
    lock = threading.Lock()
    servers = [serve_site(f"127.0.2.{n + 1}", files, arrivals, lock) for n in range(4)]
    try:
        jobs = []
        for number, (_server, base) in enumerate(servers):
            answer = api.post(
                "/api/competitors",
                json={"name": f"Site {number}", "websiteUrl": base + "/", "isFirstRun": True},
            )
            assert answer.status_code == 200, answer.json
            jobs.append(answer.json["jobId"])
        threaded_runner(1, concurrency=4)
        wait_for(
            lambda: all(fetch(j).status != "running" for j in jobs), 120, message="the analyses"
        )
        assert {fetch(j).status for j in jobs} == {"completed"}
    finally:
        for server, _base in servers:
            server.shutdown()
            server.server_close()
    spans = []
    for times in arrivals.values():
        times.sort()
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(gaps) >= delay  # no host ever sooner than its delay
        spans.append((times[0], times[-1]))
    assert len(spans) == 4
    # The crawls overlapped: every site was being fetched while the first one still was.
    first_end = min(end for _start, end in spans)
    assert all(start < first_end for start, _end in spans)
