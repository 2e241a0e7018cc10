"""/api/jobs: list filters, scoping, get, cancel and the error envelope."""

from __future__ import annotations

import threading

import pytest

from ci_service.jobs.queue import enqueue
from ci_service.jobs.types import StepError
from ci_service.services.workspace import jobs as job_service
from ci_service.store.db import connection
from tests.jobs_support import competitor, fetch

pytest_plugins = ["tests.jobs_fixtures"]

STEPS = [("one", "Step One"), ("two", "Step Two")]
JOB_KEYS = {
    "id", "workspaceId", "competitorId", "type", "displayTitle", "status", "progress",
    "currentStep", "steps", "startedAt", "completedAt", "metadata", "attempt", "maxAttempts",
}  # fmt: skip


def queue(workspace_id, job_type, **options):
    with connection():
        return enqueue(workspace_id, job_type, **options)


def test_get_job_matches_the_spec(api, runner, job_type):
    job_type("t-api", STEPS)
    job = queue(api.workspace_id, "t-api", metadata={"competitorName": "Acme"})
    body = api.get(f"/api/jobs/{job.id}").json["job"]
    assert set(body) == JOB_KEYS
    assert body["status"] == "running" and body["currentStep"] == "Queued"
    assert body["completedAt"] is None and body["progress"] == 0
    assert body["steps"] == [
        {"id": "one", "name": "Step One", "status": "pending"},
        {"id": "two", "name": "Step Two", "status": "pending"},
    ]
    assert body["displayTitle"] == "Test Acme" and body["metadata"] == {"competitorName": "Acme"}
    runner.run_once()
    body = api.get(f"/api/jobs/{job.id}").json["job"]
    assert body["status"] == "completed" and body["progress"] == 100
    assert body["completedAt"].endswith("Z") and body["startedAt"].endswith("Z")


def test_failed_job_exposes_its_error(api, runner, job_type):
    def boom(ctx):
        raise StepError("no such page")

    job_type("t-api-fail", STEPS, {"two": boom})
    job = queue(api.workspace_id, "t-api-fail")
    runner.run_once()
    body = api.get(f"/api/jobs/{job.id}").json["job"]
    assert body["status"] == "failed" and body["error"] == "Step Two: no such page"


def test_list_filters_and_newest_first(api, make_workspace, job_type):
    job_type("t-a", STEPS)
    job_type("t-b", STEPS)
    with connection():
        from ci_service.store.identity import Workspace

        ws = Workspace.get_by_id(api.workspace_id)
    rival = competitor(ws)
    a1 = queue(api.workspace_id, "t-a")
    b1 = queue(api.workspace_id, "t-b", competitor_id=rival.id)
    a2 = queue(api.workspace_id, "t-a")
    with connection():
        job_service.cancel_job(a2.id, api.workspace_id)
    other = make_workspace()
    queue(other.id, "t-a")  # another workspace: never listed

    def ids(query=""):
        response = api.get(f"/api/jobs{query}")
        assert response.status_code == 200, response.json
        return [j["id"] for j in response.json["jobs"]]

    assert ids() == [a2.id, b1.id, a1.id]
    assert ids("?type=t-a") == [a2.id, a1.id]
    assert ids("?status=failed") == [a2.id]
    assert ids("?status=running&type=t-a") == [a1.id]
    assert ids(f"?competitorId={rival.id}") == [b1.id]
    assert ids("?limit=2") == [a2.id, b1.id]
    assert ids("?type=nothing") == []


@pytest.mark.parametrize("query", ["?competitorId={foreign}", "?competitorId=missing"])
def test_competitor_filter_of_another_workspace_is_404(api, make_workspace, query):
    foreign = competitor(make_workspace())
    response = api.get(f"/api/jobs{query.format(foreign=foreign.id)}")
    assert response.status_code == 404
    assert response.json["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize(
    "query, field",
    [
        ("?status=queued", "status"),
        ("?status=RUNNING", "status"),
        ("?limit=0", "limit"),
        ("?limit=1001", "limit"),
        ("?limit=abc", "limit"),
        ("?limit=-5", "limit"),
    ],
)
def test_list_rejects_bad_query_values(api, query, field):
    response = api.get(f"/api/jobs{query}")
    assert response.status_code == 400
    error = response.json["error"]
    assert error["code"] == "VALIDATION_ERROR" and field in error["details"]["fields"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/jobs/{job}"),
        ("post", "/api/jobs/{job}/cancel"),
        ("get", "/api/jobs/does-not-exist"),
        ("post", "/api/jobs/does-not-exist/cancel"),
    ],
)
def test_other_workspaces_job_is_404(api, make_workspace, job_type, method, path):
    job_type("t-scope", STEPS)
    job = queue(make_workspace().id, "t-scope")
    response = getattr(api, method)(path.format(job=job.id))
    assert response.status_code == 404
    assert response.json["error"]["code"] == "NOT_FOUND"
    assert fetch(job.id).status == "running"


def test_cancel_running_job(api, job_type):
    job_type("t-cancel-api", STEPS)
    job = queue(api.workspace_id, "t-cancel-api")
    response = api.post(f"/api/jobs/{job.id}/cancel")
    assert response.status_code == 200
    assert response.json == {
        "success": True,
        "job": {"id": job.id, "status": "failed", "currentStep": "Cancelled"},
    }
    body = api.get(f"/api/jobs/{job.id}").json["job"]
    assert body["completedAt"] is not None and body["error"] == "The job was cancelled"


def test_cancel_finished_job_is_400(api, runner, job_type):
    job_type("t-done", STEPS)
    job = queue(api.workspace_id, "t-done")
    runner.run_once()
    response = api.post(f"/api/jobs/{job.id}/cancel")
    assert response.status_code == 400
    error = response.json["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["message"] == "Job is already completed; only a running job can be cancelled"
    again = api.post(f"/api/jobs/{queue(api.workspace_id, 't-done').id}/cancel")
    assert again.status_code == 200
    assert (
        "already failed"
        in api.post(f"/api/jobs/{again.json['job']['id']}/cancel").json["error"]["message"]
    )


@pytest.mark.parametrize(
    ("who", "code"),
    [
        ({"role": "VIEWER"}, "FORBIDDEN"),
        ({"role": "OWNER", "scopes": ["read"]}, "INSUFFICIENT_SCOPE"),
        ({"role": "EDITOR"}, None),
    ],
    ids=["viewer", "read-only-key", "editor"],
)
def test_cancel_needs_write_scope_and_editor(make_api, job_type, who, code):
    job_type("t-auth", STEPS)
    client = make_api(**who)
    job = queue(client.workspace_id, "t-auth")
    assert client.get(f"/api/jobs/{job.id}").status_code == 200  # reading is fine
    response = client.post(f"/api/jobs/{job.id}/cancel")
    if code is None:
        assert response.status_code == 200
    else:
        assert response.status_code == 403 and response.json["error"]["code"] == code


def test_cancel_during_a_step_with_real_workers(api, threaded_runner, job_type):
    entered, left, give_up = threading.Event(), threading.Event(), threading.Event()
    after = []

    def slow(ctx):
        entered.set()
        try:
            while not give_up.wait(0.02):
                ctx.check_cancelled()  # raises once the job is cancelled
        finally:
            left.set()

    job_type(
        "t-live",
        [("slow", "Slow Step"), ("next", "Next Step")],
        {"slow": slow, "next": lambda ctx: after.append(1)},
    )
    threaded_runner(1)
    job = queue(api.workspace_id, "t-live")
    try:
        assert entered.wait(10)
        assert api.get(f"/api/jobs/{job.id}").json["job"]["currentStep"] == "Slow Step"
        response = api.post(f"/api/jobs/{job.id}/cancel")
        assert response.json["job"]["currentStep"] == "Cancelled"
        assert left.wait(10), "the handler did not stop after the cancel"
    finally:
        give_up.set()
    body = api.get(f"/api/jobs/{job.id}").json["job"]
    assert (body["status"], body["currentStep"]) == ("failed", "Cancelled")
    assert [s["status"] for s in body["steps"]] == ["failed", "pending"] and after == []


def test_openapi_documents_the_job_routes(client):
    spec = client.get("/openapi.json").json
    paths = spec["paths"]
    assert {"/api/jobs", "/api/jobs/{job_id}", "/api/jobs/{job_id}/cancel"} <= set(paths)
    params = {p["name"] for p in paths["/api/jobs"]["get"]["parameters"]}
    assert {"competitorId", "type", "status", "limit"} <= params
    assert "200" in paths["/api/jobs/{job_id}/cancel"]["post"]["responses"]
