"""Issue 25, "Done when": killing a worker mid-collect ends with the competitor COMPLETE, no
duplicates, with no person acting.

Real processes on one database: ``serve --no-jobs`` (the web) and ``ci-service worker``
processes with a 2 s job lease and a 1 s retry delay, collecting a local copy of the
fixture site. The competitor is added (its first collect completes), the site changes (a
product, a person, a news item, a price), and a refresh is started over REST. The worker
that claimed it is SIGKILLed mid-job: after the intel is processed and the changes are
events, at the start of its build-matrix step (``tests/retry_gate.py`` holds it there). Then:

- PostgreSQL: the other worker runs the job again once the lease has run out;
- SQLite (one job process per file: ``serve --no-jobs`` beside one worker): a new worker
  starts, as a process supervisor restarts a dead one, and runs it again.

Either way the job completes on its second attempt, the competitor is COMPLETE, nothing is
held twice and every change is one event.
"""

from __future__ import annotations

import signal

import httpx

from ci_service.store.db import connection
from ci_service.store.events import Event
from tests.intel_support import FixtureServer
from tests.live import LiveServer
from tests.pipeline_fixtures.support import change_site, copy_site
from tests.retry_support import CHANGE_EVENTS, duplicates, state
from tests.waiting import wait_for
from tests.worker_live import REPO, WorkerProcess

ENV = {
    "CI_SERVICE_JOB_MODULES": "tests.retry_gate",
    "PYTHONPATH": str(REPO),
    "CI_SERVICE_ALLOW_PRIVATE_URLS": "1",
    "CI_SERVICE_CRAWL_DELAY_SECONDS": "0",
    "CI_SERVICE_FETCH_DEADLINE_SECONDS": "10",
    "CI_SERVICE_JOB_LEASE_SECONDS": "2",
    "CI_SERVICE_JOB_RETRY_DELAY_SECONDS": "1",
}
WORKER_ARGS = ("--workers", "1", "--no-scheduler")


class Api:
    def __init__(self, url: str, key: str):
        self.client = httpx.Client(base_url=url, headers={"X-API-Key": key}, timeout=30)

    def call(self, method: str, path: str, **options) -> dict:
        answer = self.client.request(method, path, **options)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def competitor_status(self, competitor_id: str) -> str:
        return self.call("GET", f"/api/competitors/{competitor_id}")["competitor"]["status"]

    def job(self, job_id: str) -> dict:
        return self.call("GET", f"/api/jobs/{job_id}")["job"]


def test_a_worker_killed_mid_collect_leaves_a_complete_competitor(
    backend, database_url, make_workspace, make_key, tmp_path, monkeypatch
):
    for name in ("CI_SERVICE_LLM_BASE_URL", "CI_SERVICE_LLM_MODEL", "CI_SERVICE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    gate = tmp_path / "gate"
    gate.mkdir()
    env = {**ENV, "CI_SERVICE_TEST_GATE": str(gate)}
    workspace = make_workspace()
    key, _ = make_key(workspace)
    postgres = backend == "postgresql"
    processes: list = []
    api = None
    with FixtureServer(copy_site(tmp_path / "site")) as site:
        try:
            web = LiveServer(database_url, "--no-jobs", "--no-scheduler", env=env)
            processes.append(web.start())
            for _ in range(2 if postgres else 1):
                processes.append(WorkerProcess(database_url, *WORKER_ARGS, env=env).start())
            workers = processes[1:]
            api = Api(web.url, key)

            product = api.call(
                "POST",
                "/api/products",
                json={
                    "name": "Our Desk",
                    "description": "Help desk",
                    "audience": "Support",
                    "categories": [{"name": "Customer Support"}],
                },
            )["product"]
            created = api.call(
                "POST",
                "/api/competitors",
                json={
                    "name": "Globex",
                    "websiteUrl": site.url("/"),
                    "relevantProductIds": [product["id"]],
                },
            )
            rival = created["competitor"]["id"]
            wait_for(
                lambda: api.competitor_status(rival) == "COMPLETE", 60, message="the first collect"
            )

            change_site(site.root)
            (gate / "arm").touch()
            started = api.call("POST", f"/api/competitors/{rival}/refresh")
            job_id = started["jobId"]
            assert started["job"]["attempt"] == 1 and started["job"]["maxAttempts"] == 3
            wait_for((gate / "held").exists, 60, message="the refresh to be held")
            pid, held_job = (gate / "held").read_text().split()
            assert held_job == job_id
            victim = next(w for w in workers if w.pid == int(pid))
            assert _claimed_by(job_id).split(":")[1] == pid  # host:pid:thread of the worker
            # Its changes are events already (the card is built in the next step).
            assert _change_events(workspace.id) == CHANGE_EVENTS - {"battlecard.updated"}

            victim.kill()  # SIGKILL mid-job: no cleanup at all
            assert victim.process.returncode == -signal.SIGKILL
            if not postgres:  # the supervisor starts a new one
                processes.append(WorkerProcess(database_url, *WORKER_ARGS, env=env).start())

            seen: set[tuple[str, str]] = set()  # (job step, competitor status) meanwhile

            def finished():
                job = api.job(job_id)
                seen.add((job["currentStep"], api.competitor_status(rival)))
                return job if job["status"] != "running" else None

            job = wait_for(finished, 60, message="the job to run again and end")
            assert (job["status"], job["attempt"], job["maxAttempts"]) == ("completed", 2, 3)
            assert api.competitor_status(rival) == "COMPLETE"
            # Never given up on while it waited: no ERROR, no Interrupted.
            assert not {status for _step, status in seen} & {"ERROR"}
            assert "Interrupted" not in {step for step, _status in seen}
            assert _claimed_by(job_id).split(":")[1] != pid  # another process ran it
        finally:
            if api is not None:
                api.client.close()
            for process in processes:
                process.kill()

    held_state = state(workspace.id)
    assert duplicates(held_state) == {}
    assert _change_events(workspace.id) == CHANGE_EVENTS
    with connection():
        assert not Event.select().where(Event.type == "job.failed").exists()
    assert all(n == 1 for (kind, _), n in held_state["events"].items() if kind in CHANGE_EVENTS)


def _claimed_by(job_id: str) -> str:
    from ci_service.store.jobs import Job

    with connection():
        return Job.get_by_id(job_id).claimed_by


def _change_events(workspace_id: str) -> set[str]:
    with connection():
        rows = Event.select(Event.type).where(Event.workspace == workspace_id)
        return {row.type for row in rows}
