"""The job engine: order, step transitions, progress, failures, hooks, recovery, threads."""

from __future__ import annotations

import threading

import pytest

from ci_service.jobs import lifecycle
from ci_service.jobs.queue import enqueue
from ci_service.jobs.registry import COLLECT, handles, unregister
from ci_service.jobs.types import StepError
from ci_service.services.workspace import jobs as job_service
from ci_service.store import jobs as store
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection
from ci_service.store.jobs import Job
from tests.jobs_support import competitor, fetch
from tests.waiting import wait_for

pytest_plugins = ["tests.jobs_fixtures"]

THREE_STEPS = [("one", "Step One"), ("two", "Step Two"), ("three", "Step Three")]


def queue(workspace, job_type, **options):
    with connection():
        return enqueue(workspace.id, job_type, **options)


def test_jobs_run_oldest_first_and_steps_in_order(make_workspace, runner, job_type):
    seen = []
    job_type(
        "t-order",
        THREE_STEPS,
        {sid: (lambda ctx, sid=sid: seen.append((ctx.job.id, sid))) for sid, _ in THREE_STEPS},
    )
    ws = make_workspace()
    first, second = queue(ws, "t-order"), queue(ws, "t-order")
    assert fetch(first.id).current_step == "Queued" and fetch(first.id).status == "running"
    assert runner.run_once() == first.id
    assert runner.run_once() == second.id
    assert runner.run_once() is None
    assert seen == [(first.id, s) for s, _ in THREE_STEPS] + [
        (second.id, s) for s, _ in THREE_STEPS
    ]


def test_step_transitions_and_progress_reach_100(make_workspace, runner, job_type):
    observed = []

    def look(ctx):
        job = Job.get_by_id(ctx.job.id)
        observed.append(([s["status"] for s in job.steps], job.current_step, job.progress))
        if ctx.step_id == "two":
            ctx.progress(0.5, "halfway")
            job = Job.get_by_id(ctx.job.id)
            observed.append((job.progress, job.progress_message))

    job_type("t-steps", THREE_STEPS, {"one": look, "two": look, "three": look})
    ws = make_workspace()
    job = queue(ws, "t-steps")
    runner.run_once()
    assert observed == [
        (["running", "pending", "pending"], "Step One", 0),
        (["completed", "running", "pending"], "Step Two", 33.3),
        (50.0, "halfway"),
        (["completed", "completed", "running"], "Step Three", 66.7),
    ]
    done = job_service.job_to_dict(fetch(job.id))
    assert done["status"] == "completed" and done["progress"] == 100
    assert [s["status"] for s in done["steps"]] == ["completed"] * 3
    assert done["completedAt"] is not None and "error" not in done


def test_bookkeeping_steps_complete_without_handlers(make_workspace, runner, job_type):
    job_type("t-empty", THREE_STEPS)
    job = queue(make_workspace(), "t-empty")
    runner.run_once()
    assert fetch(job.id).status == "completed"


def test_failing_step_fails_the_job_with_its_error(make_workspace, runner, job_type):
    def boom(ctx):
        raise StepError("could not reach https://acme.example")

    never = []
    job_type("t-fail", THREE_STEPS, {"two": boom, "three": lambda ctx: never.append(1)})
    job = queue(make_workspace(), "t-fail")
    runner.run_once()
    data = job_service.job_to_dict(fetch(job.id))
    assert data["status"] == "failed"
    assert data["currentStep"] == "Step Two"
    assert data["error"] == "Step Two: could not reach https://acme.example"
    assert [s["status"] for s in data["steps"]] == ["completed", "failed", "pending"]
    assert data["completedAt"] is not None and data["progress"] < 100
    assert never == []


def test_unexpected_exception_is_clean_and_logged(make_workspace, runner, job_type, caplog):
    def crash(ctx):
        raise RuntimeError("secret internals /etc/passwd")

    job_type("t-crash", THREE_STEPS, {"one": crash})
    job = queue(make_workspace(), "t-crash")
    runner.run_once()
    error = fetch(job.id).error
    assert error == "Step One: unexpected error (RuntimeError); see the service log"
    assert "secret" not in error
    assert "secret internals" in caplog.text  # the traceback is in the server log


def test_one_bad_job_does_not_stop_the_next(make_workspace, runner, job_type):
    job_type("t-gone", THREE_STEPS)
    job_type("t-fine", THREE_STEPS)
    ws = make_workspace()
    gone, fine = queue(ws, "t-gone"), queue(ws, "t-fine")
    unregister("t-gone")  # e.g. a job queued by a newer release
    assert runner.run_until_idle() == 2
    assert fetch(gone.id).error == "Unknown job type 't-gone'"
    assert fetch(fine.id).status == "completed"


def test_cancel_inside_a_step_stops_at_the_boundary(make_workspace, runner, job_type):
    later = []

    def cancel_me(ctx):
        job_service.cancel_job(ctx.job.id, ctx.workspace_id)
        ctx.progress(0.9)  # a write after cancel is refused, and leaves the handler

    job_type("t-cancel", THREE_STEPS, {"two": cancel_me, "three": lambda ctx: later.append(1)})
    job = queue(make_workspace(), "t-cancel")
    runner.run_once()
    row = fetch(job.id)
    assert (row.status, row.current_step, row.cancel_requested) == ("failed", "Cancelled", True)
    assert [s["status"] for s in row.steps] == ["completed", "failed", "pending"]
    assert row.progress == pytest.approx(33.3) and later == []


def test_cancel_a_handler_that_ignores_it_is_not_overwritten(make_workspace, runner, job_type):
    job_type(
        "t-ignore",
        [("only", "Only Step")],
        {"only": lambda ctx: job_service.cancel_job(ctx.job.id, None)},
    )
    job = queue(make_workspace(), "t-ignore")
    runner.run_once()
    row = fetch(job.id)
    assert (row.status, row.current_step, row.progress) == ("failed", "Cancelled", 0)


def test_cancelling_a_queued_job_means_it_never_runs(make_workspace, runner, job_type):
    ran = []
    job_type("t-queued", THREE_STEPS, {"one": lambda ctx: ran.append(1)})
    job = queue(make_workspace(), "t-queued")
    with connection():
        job_service.cancel_job(job.id, None)
    assert runner.run_once() is None and ran == []


def test_collect_drives_competitor_status(make_workspace, runner, job_type, offline_collect):
    ws = make_workspace()
    target = competitor(ws)
    during = []
    handles(COLLECT, "build-matrix")(
        lambda ctx: during.append(Competitor.get_by_id(target.id).status)
    )
    with connection():
        job_service.start_competitor_refresh(ws.id, target.id)
    runner.run_once()
    with connection():
        after = Competitor.get_by_id(target.id)
    assert during == ["PROCESSING"]
    assert after.status == "COMPLETE" and after.last_refresh_at is not None


def test_collect_type_steps_and_metadata(make_workspace, runner, offline_collect):
    ws = make_workspace()
    target = competitor(ws)
    with connection():
        job = job_service.start_competitor_refresh(ws.id, target.id, is_first_run=True)
    assert job.display_title == "Analyzing Acme"
    assert job.metadata == {"competitorName": "Acme", "isFirstRun": True, "productIds": []}
    runner.run_once()
    data = job_service.job_to_dict(fetch(job.id))
    assert [s["id"] for s in data["steps"]] == [
        "collect",
        "ingest",
        "build-matrix",
        "build-battlecard",
    ]
    assert data["status"] == "completed" and data["progress"] == 100


def test_failed_analysis_marks_competitor_error(make_workspace, runner, job_type):
    def boom(ctx):
        raise StepError("site down")

    job_type("t-analysis", THREE_STEPS, {"two": boom}, analysis=True)
    ws = make_workspace()
    target = competitor(ws)
    job = queue(ws, "t-analysis", competitor_id=target.id)
    runner.run_once()
    with connection():
        assert Competitor.get_by_id(target.id).status == "ERROR"
        assert Competitor.get_by_id(target.id).last_refresh_at is None
    assert fetch(job.id).error == "Step Two: site down"


def test_deleted_competitor_fails_the_job_cleanly(make_workspace, runner, job_type):
    def delete_it(ctx):
        Competitor.delete_by_id(ctx.competitor_id)

    job_type("t-delete", THREE_STEPS, {"one": delete_it}, analysis=True)
    ws = make_workspace()
    queued_gone, mid_run = competitor(ws, "Gone"), competitor(ws, "Mid")
    first = queue(ws, "t-delete", competitor_id=queued_gone.id)
    second = queue(ws, "t-delete", competitor_id=mid_run.id)
    with connection():
        Competitor.delete_by_id(queued_gone.id)
    runner.run_until_idle()
    for job, where in ((first, "Failed"), (second, "Step Two")):
        row = fetch(job.id)
        assert (row.status, row.current_step) == ("failed", where)
        assert "competitor was deleted" in row.error


def test_one_active_job_per_competitor_under_parallel_requests(make_workspace, app):
    ws = make_workspace()
    target = competitor(ws)
    barrier = threading.Barrier(8)
    ids, errors = [], []

    def request():
        try:
            with connection():
                barrier.wait(5)
                ids.append(job_service.start_competitor_refresh(ws.id, target.id).id)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=request) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert errors == [] and len(ids) == 8 and len(set(ids)) == 1
    with connection():
        assert Job.select().where(Job.competitor_id == target.id).count() == 1


def test_a_finished_job_lets_a_new_one_start(make_workspace, runner):
    ws = make_workspace()
    target = competitor(ws)
    with connection():
        first = job_service.start_competitor_refresh(ws.id, target.id)
    runner.run_once()
    with connection():
        second = job_service.start_competitor_refresh(ws.id, target.id)
    assert second.id != first.id


def test_recovery_fails_claimed_jobs_and_keeps_queued_ones(make_workspace, runner, job_type):
    job_type("t-recover", THREE_STEPS, analysis=True)
    ws = make_workspace()
    target = competitor(ws)
    # One attempt: its interruption is final (tests/test_jobs_retry.py covers retries).
    claimed = queue(ws, "t-recover", competitor_id=target.id, max_attempts=1)
    waiting = queue(ws, "t-recover", competitor_id=competitor(ws, "Other").id)
    with connection():
        store.claim("dead-host:1:worker")  # a worker that then died (claims the oldest)
        orphans = lifecycle.recover_orphans()
    assert [j.id for j in orphans] == [claimed.id]
    row = fetch(claimed.id)
    assert (row.status, row.current_step) == ("failed", "Interrupted")
    assert "stopped" in row.error
    with connection():
        assert Competitor.get_by_id(target.id).status == "ERROR"
    assert fetch(waiting.id).claimed_at is None  # queued: still waits for a worker


def test_threaded_runner_starts_jobs_promptly_and_stops(make_workspace, threaded_runner, job_type):
    job_type("t-fast", THREE_STEPS)
    before = set(threading.enumerate())
    runner = threaded_runner(2, poll_interval=30)  # a nudge, not the poll, must wake it
    ws = make_workspace()
    jobs = [queue(ws, "t-fast") for _ in range(5)]
    wait_for(lambda: all(fetch(j.id).status == "completed" for j in jobs), 10, message="jobs")
    assert runner.stop(5) and runner.stop(5)  # idempotent
    assert set(threading.enumerate()) <= before


def test_stopping_the_runner_interrupts_a_job_at_its_next_boundary(
    make_workspace, threaded_runner, job_type
):
    entered, release = threading.Event(), threading.Event()

    def block(ctx):
        entered.set()
        release.wait(10)

    job_type("t-block", THREE_STEPS, {"one": block})
    runner = threaded_runner(1)
    job = queue(make_workspace(), "t-block", max_attempts=1)  # its last attempt
    assert entered.wait(10)
    stopper = threading.Thread(target=runner.stop, args=(10,))
    stopper.start()
    wait_for(runner._stopping.is_set, 5, message="stop requested")
    release.set()
    stopper.join(10)
    assert not runner.running
    row = fetch(job.id)
    assert (row.status, row.current_step) == ("failed", "Interrupted")
