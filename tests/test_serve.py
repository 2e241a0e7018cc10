"""A real ``ci-service serve`` process on a free port."""

from __future__ import annotations

import logging
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from waitress.task import ThreadedTaskDispatcher

from ci_service.web import serving
from ci_service.web.serving import QueueDepthSummary, summarize_queue_warnings, task_dispatcher
from tests.live import LiveServer, run_cli
from tests.waiting import wait_for


def test_serve_end_to_end(database_url):
    database = database_url
    assert run_cli(database, "workspaces", "create", "acme", "--plan", "ENTERPRISE").returncode == 0
    created = run_cli(database, "keys", "create", "--workspace", "acme", "--name", "k",
                      "--rate-limit", "5")  # fmt: skip
    key = created.stdout.strip().splitlines()[-1]

    server = LiveServer(database).start()
    try:
        headers = {"X-API-Key": key}
        assert httpx.get(server.url + "/healthz").json()["status"] == "ok"
        assert httpx.get(server.url + "/api/api-keys").status_code == 401
        response = httpx.get(server.url + "/api/api-keys", headers=headers)
        assert response.status_code == 200
        assert response.headers["X-RateLimit-Remaining"] == "4"
        # A key made by the CLI while the server runs is usable at once.
        other = run_cli(database, "keys", "create", "--workspace", "acme", "--name", "k2")
        assert other.returncode == 0, other.stderr
        other_key = other.stdout.strip().splitlines()[-1]
        assert httpx.get(server.url + "/api/api-keys", headers={"X-API-Key": other_key}).is_success
        response = httpx.post(server.url + "/api/api-keys", headers=headers, content=b"{bad")
        assert response.status_code == 415  # no JSON content type
        assert response.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"
        assert httpx.get(server.url + "/docs").status_code == 200
        assert "/api/api-keys" in httpx.get(server.url + "/openapi.json").json()["paths"]
    finally:
        assert server.stop() == 0
    assert any("stopped" in line for line in server.stderr_lines)

    # The rate-limit window survives the restart: 2 of 5 were used before (the 415 counts).
    with LiveServer(database) as restarted:
        statuses = [
            httpx.get(restarted.url + "/api/api-keys", headers=headers).status_code
            for _ in range(4)
        ]
    assert statuses == [200, 200, 200, 429]


def test_serve_refuses_bad_database_url(tmp_path):
    result = run_cli("mysql://nowhere/db", "serve", "--port", "0")
    assert result.returncode == 1
    assert "unsupported database URL" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_says_when_postgresql_cannot_be_reached():
    result = run_cli("postgresql://ci:s3cret-pw@127.0.0.1:9/db", "serve", "--port", "0")
    assert result.returncode == 1
    assert "cannot open the database postgresql://ci:***@127.0.0.1:9/db" in result.stderr
    assert "s3cret-pw" not in result.stderr and "Traceback" not in result.stderr


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _queue_record(depth) -> logging.LogRecord:
    return logging.LogRecord(
        "waitress.queue", logging.WARNING, "task.py", 1, "Task queue depth is %d", (depth,), None
    )


def test_queue_depth_warnings_are_summed_up_once_a_minute_not_logged_per_request():
    clock = _Clock()
    summary = QueueDepthSummary(interval=60, clock=clock)
    first = _queue_record(1)
    assert summary.filter(first) and first.getMessage() == "Task queue depth is 1"
    clock.now += 10
    assert [summary.filter(_queue_record(d)) for d in (3, 7, 2)] == [False, False, False]
    clock.now += 50  # a minute after the first: the next one passes, with what it stands for
    due = _queue_record(4)
    assert summary.filter(due)
    assert due.getMessage() == (
        "Task queue depth is 4; 3 more such warnings in the last 60 s, the deepest 7 "
        "(every thread was busy: see serve --threads)"
    )
    clock.now += 1
    assert not summary.filter(_queue_record(1))
    clock.now += 60  # nothing folded since the last one but that one: said as such
    quiet = _queue_record(2)
    assert summary.filter(quiet) and "; 1 more such warning in" in quiet.getMessage()
    clock.now += 61
    alone = _queue_record(5)
    assert summary.filter(alone) and alone.getMessage() == "Task queue depth is 5"
    # Anything else waitress may log there one day passes untouched.
    other = logging.LogRecord("waitress.queue", logging.WARNING, "t", 1, "other %s", ("x",), None)
    assert summary.filter(other) and other.getMessage() == "other x"


def test_the_queue_summary_is_installed_once(monkeypatch):
    logger = logging.getLogger("waitress.queue")
    monkeypatch.setattr(logger, "filters", [])
    first = summarize_queue_warnings()
    assert summarize_queue_warnings() is first and logger.filters == [first]


def test_the_dispatcher_makes_no_log_record_for_a_folded_queue_warning(monkeypatch):
    logger = logging.getLogger("waitress.queue")
    monkeypatch.setattr(logger, "filters", [])
    made = []
    original = logging.Logger.makeRecord
    monkeypatch.setattr(
        logging.Logger,
        "makeRecord",
        lambda self, *a, **k: made.append(a[4]) or original(self, *a, **k),
    )
    dispatcher = task_dispatcher(1)
    try:
        for depth in (2, 5, 3):
            dispatcher.queue_logger.warning("Task queue depth is %d", depth)
        assert made == ["Task queue depth is %d"]  # the first only: the others folded
        summary = logger.filters[0]
        summary._next = 0.0  # a minute later
        dispatcher.queue_logger.warning("Task queue depth is %d", 1)
        assert made[-1].startswith("Task queue depth is %d; %d more such")
    finally:
        dispatcher.shutdown()


@pytest.mark.backends("sqlite")  # waitress's queue, not the database
def test_a_busy_serve_logs_its_queue_depth_once_not_per_request(database_url):
    """One waitress thread and bursts of 24 requests at once: every burst queues requests
    behind the busy thread. stderr says so once, not once per queued request."""
    server = LiveServer(database_url, "--no-scheduler", "--threads", "1").start()

    def queued() -> list[str]:
        return [line for line in server.stderr_lines if "Task queue depth" in line]

    def burst() -> list[str]:
        with ThreadPoolExecutor(24) as pool:
            statuses = list(pool.map(lambda _: httpx.get(server.url + "/healthz").status_code,
                                     range(24)))  # fmt: skip
        assert statuses == [200] * 24
        return queued()

    try:
        wait_for(burst, timeout=30, message="a queue depth warning")
        for _ in range(5):
            burst()
    finally:
        assert server.stop() == 0
    assert len(queued()) == 1, queued()


class _Task:
    def __init__(self):
        self.served = threading.Event()

    def service(self):
        self.served.set()

    def defer(self):
        pass

    def cancel(self):
        pass


def test_serves_dispatcher_lets_go_of_the_gil_once_it_has_queued_a_request(monkeypatch):
    """The loop thread hands the GIL to the worker it woke (web/serving.py says why)."""
    events = []
    dispatcher = task_dispatcher(3)
    try:
        assert len(dispatcher.threads) == 3
        monkeypatch.setattr(
            serving.time, "sleep", lambda seconds: events.append(("sleep", seconds))
        )
        task = _Task()
        original = ThreadedTaskDispatcher.add_task
        monkeypatch.setattr(
            ThreadedTaskDispatcher,
            "add_task",
            lambda self, t: (events.append(("queued", t)), original(self, t)),
        )
        dispatcher.add_task(task)
        assert events == [("queued", task), ("sleep", 0)]
        assert task.served.wait(10)
    finally:
        dispatcher.shutdown()


def test_serve_says_when_its_port_is_taken(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = taken.getsockname()[1]
        result = run_cli(str(tmp_path / "ci.db"), "serve", "--port", str(port))
    finally:
        taken.close()
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in result.stderr
    assert "Traceback" not in result.stderr
