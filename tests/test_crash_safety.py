"""Crash safety: a real ``ci-service serve`` is SIGKILLed in the middle of a burst of writes
while a background job is running, then restarted on the same file.

What must hold afterwards: the file passes ``PRAGMA integrity_check`` (and
``foreign_key_check``), every write the server acknowledged (a 200) is there with what was
sent, no write is half there (each deal has all its knowledge-graph nodes and edges: one
transaction per write), and no job is left ``running`` (the interrupted one is
failed/Interrupted). ``test_jobs_recovery.py`` covers the job lifecycle itself in detail.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
from pathlib import Path

import httpx
import pytest

from ci_service.jobs.registry import REGISTRY
from ci_service.services.identity import api_keys as apikeys
from ci_service.services.workspace.workspaces import create_workspace
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection, open_database
from tests.live import LiveServer
from tests.waiting import wait_for

REPO = Path(__file__).resolve().parent.parent
PLUGIN_ENV = {
    "CI_SERVICE_JOB_MODULES": "tests.jobs_plugin",
    "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
}
SERVE_ARGS = ("--threads", "8", "--no-scheduler", "--job-workers", "1")


def seed(database: Path, plan: str = "ENTERPRISE") -> dict:
    """A workspace, an OWNER key with room for a burst, and a competitor for LOST deals."""
    open_database(str(database))
    with connection():
        workspace = create_workspace("crash", plan)
        user = apikeys.ensure_user(workspace, None, "OWNER")
        _, key = apikeys.create_key(user, name="burst", rate_limit=1_000_000)
        rival = Competitor.create(
            workspace=workspace, name="Rival", website_url="https://rival.example"
        )
    return {"workspace": workspace, "key": key, "competitor_id": rival.id}


def deal_body(worker: int, n: int, competitor_id: str) -> dict:
    lost = n % 2 == 0
    return {
        # Some prospects are shared (one graph node for several deals), most are not.
        "prospectCompanyName": "Globex" if n % 5 == 0 else f"Prospect {worker}-{n}",
        "outcome": "LOST" if lost else "WON",
        "competitorId": competitor_id if lost else None,
        "decisionDate": "2026-03-31",
        "arguments": [f"reason {k} of deal {worker}-{n}" for k in range(1 + n % 3)],
    }


class DealBurst:
    """``threads`` clients POSTing deals back to back until stopped or the server dies.

    ``acked`` holds ``(id, body)`` for every 200; ``cut_off`` counts requests that failed
    because the connection went away (a request in flight when the server was killed).
    """

    def __init__(self, url: str, key: str, competitor_id: str, threads: int = 8):
        self.url, self.key, self.competitor_id = url, key, competitor_id
        self.acked: list[tuple[str, dict]] = []
        self.statuses: dict[int, int] = {}
        self.cut_off = 0
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(threads)
        ]

    def start(self) -> DealBurst:
        for thread in self._threads:
            thread.start()
        return self

    def join(self, timeout: float = 30) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(timeout)
        assert not any(t.is_alive() for t in self._threads), "a burst thread hung"

    def _run(self, worker: int) -> None:
        headers = {"X-API-Key": self.key}
        with httpx.Client(base_url=self.url, headers=headers, timeout=30) as client:
            n = 0
            while not self.stop.is_set():
                body = deal_body(worker, n, self.competitor_id)
                n += 1
                try:
                    response = client.post("/api/deals", json=body)
                except httpx.TransportError:
                    with self._lock:
                        self.cut_off += 1
                    return  # the server is gone
                with self._lock:
                    self.statuses[response.status_code] = (
                        self.statuses.get(response.status_code, 0) + 1
                    )
                    if response.status_code == 200:
                        self.acked.append((response.json()["deal"]["id"], body))


def integrity(database: Path) -> tuple[str, list]:
    conn = sqlite3.connect(database)
    try:
        result = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        return ("ok" if result == ["ok"] else "; ".join(result)), list(
            conn.execute("PRAGMA foreign_key_check")
        )
    finally:
        conn.close()


def deal_graph_problems(database: Path, *, waiting_ok: bool = False) -> tuple[int, list[str]]:
    """(number of deals, what is missing): each deal needs its DEAL node, one ARGUMENT node
    per argument (HAS_ARGUMENT), its prospect (FOR_PROSPECT) and, when LOST, its competitor
    (AGAINST_COMPETITOR). ``waiting_ok``: a deal still waiting for its nodes
    (``graph_pending``, services/graph/projection.py) may have none, and must have none."""
    conn = sqlite3.connect(database)
    try:
        nodes = {
            (ws, key): node_id
            for node_id, ws, key in conn.execute("SELECT id, workspace_id, key FROM graph_node")
        }
        edges = set(conn.execute("SELECT source_id, target_id, label FROM graph_edge"))
        deals = conn.execute(
            "SELECT id, workspace_id, prospect_company_name, competitor_id, arguments, "
            "graph_pending FROM deal"
        ).fetchall()
    finally:
        conn.close()
    problems = []
    for deal_id, ws, prospect, competitor_id, arguments, waiting in deals:
        node = nodes.get((ws, f"DEAL:{deal_id}"))
        if waiting and waiting_ok:
            if node is not None:
                problems.append(f"deal {deal_id}: waiting for its nodes, which exist")
            continue
        if node is None:
            problems.append(f"deal {deal_id}: no DEAL node")
            continue
        wanted = [
            (f"ARGUMENT:{deal_id}:{i}", "HAS_ARGUMENT")
            for i in range(len(json.loads(arguments or "[]")))
        ]
        wanted.append((f"PROSPECT:{prospect.strip().casefold()}", "FOR_PROSPECT"))
        if competitor_id:
            wanted.append((f"COMPETITOR:{competitor_id}", "AGAINST_COMPETITOR"))
        for key, label in wanted:
            target = nodes.get((ws, key))
            if target is None or (node, target, label) not in edges:
                problems.append(f"deal {deal_id}: missing {label} -> {key}")
    return len(deals), problems


@pytest.fixture
def plugin_types():
    """The test job types, registered in this process too (to enqueue them)."""
    import tests.jobs_plugin as plugin

    saved = dict(REGISTRY)
    plugin.register_types()
    yield
    REGISTRY.clear()
    REGISTRY.update(saved)


def test_sigkill_during_write_burst_and_running_job_loses_nothing_acknowledged(
    tmp_path, plugin_types
):
    from ci_service.jobs.queue import enqueue

    database = tmp_path / "ci.db"
    ctx = seed(database)
    started, release = tmp_path / "started", tmp_path / "release"
    with connection():
        job = enqueue(
            ctx["workspace"].id,
            "test-block",
            payload={"started": str(started), "release": str(release)},
            max_attempts=1,  # the crash ends it (tests/test_jobs_retry*.py: retries)
        )

    first = LiveServer(str(database), *SERVE_ARGS, env=PLUGIN_ENV).start()
    try:
        wait_for(started.exists, timeout=20)  # the job is inside its step now
        burst = DealBurst(first.url, ctx["key"], ctx["competitor_id"]).start()
        try:
            wait_for(lambda: len(burst.acked) >= 80, timeout=30)
        finally:
            first.kill()  # SIGKILL with eight writes in flight: no cleanup at all
            burst.join()
    finally:
        first.kill()
    assert first.process.returncode == -signal.SIGKILL
    acked = dict(burst.acked)
    assert len(acked) >= 80 and set(burst.statuses) == {200}, burst.statuses
    assert burst.cut_off >= 1  # the kill did land mid-request

    second = LiveServer(str(database), *SERVE_ARGS, env=PLUGIN_ENV).start()
    try:
        assert integrity(database) == ("ok", [])
        headers = {"X-API-Key": ctx["key"]}
        with httpx.Client(base_url=second.url, headers=headers, timeout=10) as client:
            for deal_id, sent in acked.items():
                response = client.get(f"/api/deals/{deal_id}")
                assert response.status_code == 200, (deal_id, response.text)
                deal = response.json()["deal"]
                got = {k: deal[k] for k in sent}
                assert got == sent, deal_id
            # Recovery ran before serving: nothing is left running.
            assert client.get("/api/jobs", params={"status": "running"}).json()["jobs"] == []
            interrupted = client.get(f"/api/jobs/{job.id}").json()["job"]
            assert (interrupted["status"], interrupted["currentStep"]) == (
                "failed",
                "Interrupted",
            )
            listed = client.get("/api/deals").json()["deals"]
            # A reader of the graph finds every committed deal in it (the ones the kill
            # left waiting for their nodes included).
            assert client.get("/api/knowledge-graph").status_code == 200
        count, problems = deal_graph_problems(database)
        assert problems == []
        # Unacknowledged writes may or may not have committed; acknowledged ones all did.
        assert count == len(listed) >= len(acked)
        assert set(acked) <= {d["id"] for d in listed}
    finally:
        code = second.stop()
    assert code == 0
    assert integrity(database) == ("ok", [])
