"""``ci-service jobs list/show/watch/cancel`` and the watch renderer."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ci_service.cli import cli
from ci_service.cli.job_views import progress_line, watch
from ci_service.jobs.queue import enqueue
from ci_service.jobs.runner import JobRunner
from ci_service.jobs.types import StepError
from ci_service.services.workspace import jobs as job_service
from ci_service.store.db import connection, open_database
from ci_service.store.identity import Workspace

pytest_plugins = ["tests.jobs_fixtures"]

STEPS = [("one", "Step One"), ("two", "Step Two")]


@pytest.fixture
def cli_db(make_database_url, job_type):
    """A database shared by the CLI and the test, with workspace 'acme' and two job types."""
    database = make_database_url(name="cli.db")
    job_type("t-cli", STEPS)

    def boom(ctx):
        raise StepError("no route to host")

    job_type("t-cli-fail", STEPS, {"two": boom})
    assert CliRunner().invoke(cli, ["--database", database, "workspaces", "create", "acme"])
    return database


def queue(database, job_type):
    open_database(database)
    with connection():
        return enqueue(Workspace.get(Workspace.name == "acme").id, job_type)


def run_jobs(database):
    open_database(database)
    JobRunner(0).run_until_idle()


def invoke(database, *args):
    result = CliRunner().invoke(cli, ["--database", database, "jobs", *args])
    assert "Traceback" not in result.output
    return result


def test_list_and_show(cli_db):
    first, second = queue(cli_db, "t-cli"), queue(cli_db, "t-cli-fail")
    run_jobs(cli_db)
    listed = json.loads(invoke(cli_db, "list", "--workspace", "acme", "--json").stdout)
    assert [j["id"] for j in listed] == [second.id, first.id]
    failed = json.loads(invoke(cli_db, "list", "--status", "failed", "--json").stdout)
    assert [j["id"] for j in failed] == [second.id]
    table = invoke(cli_db, "list", "--limit", "1").stdout
    assert second.id in table and first.id not in table
    shown = invoke(cli_db, "show", second.id)
    assert shown.exit_code == 0
    assert "Step Two: no route to host" in shown.stdout and "[!] Step Two" in shown.stdout
    data = json.loads(invoke(cli_db, "show", first.id, "--json").stdout)
    assert data["status"] == "completed" and data["progress"] == 100
    missing = invoke(cli_db, "show", "nope")
    assert missing.exit_code == 1 and "Job not found" in missing.output
    bad = invoke(cli_db, "list", "--workspace", "nowhere")
    assert bad.exit_code == 1 and "not found" in bad.output


def test_watch_exit_codes(cli_db):
    done, failed = queue(cli_db, "t-cli"), queue(cli_db, "t-cli-fail")
    run_jobs(cli_db)
    running = queue(cli_db, "t-cli")  # nobody runs this one
    ok = invoke(cli_db, "watch", done.id)
    assert ok.exit_code == 0
    assert "[x] Step One" in ok.stdout and "[x] Step Two" in ok.stdout
    assert "100.0%" in ok.stdout and "Job completed" in ok.stdout
    bad = invoke(cli_db, "watch", failed.id)
    assert bad.exit_code == 1 and "Step Two: no route to host" in bad.output
    slow = invoke(cli_db, "watch", running.id, "--interval", "0.05", "--timeout", "0.2")
    assert slow.exit_code == 2 and "Timed out" in slow.output


def test_watch_follows_a_job_to_the_end(cli_db, capsys):
    job = queue(cli_db, "t-cli")
    runner = JobRunner(0)
    assert watch(job.id, interval=0, sleep=lambda _: runner.run_once()) == 0
    out = capsys.readouterr().out
    assert "Queued" in out and "Completed" in out and "[x] Step Two" in out


def test_cancel(cli_db):
    job = queue(cli_db, "t-cli")
    result = invoke(cli_db, "cancel", job.id, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "success": True,
        "job": {"id": job.id, "status": "failed", "currentStep": "Cancelled"},
    }
    again = invoke(cli_db, "cancel", job.id)
    assert again.exit_code == 1 and "already failed" in again.output


def test_progress_line():
    job = {
        "status": "running",
        "progress": 50,
        "currentStep": "Processing Intel",
        "steps": [{"status": "completed"}, {"status": "running"}, {"status": "pending"}],
    }
    assert progress_line(job) == ("[###############---------------]  50.0%  Processing Intel (2/3)")


@pytest.mark.parametrize("command", ["list", "show", "watch", "cancel"])
def test_every_jobs_command_has_help(command):
    result = CliRunner().invoke(cli, ["jobs", command, "--help"])
    assert result.exit_code == 0 and "Example" in result.output


def test_services_are_shared(cli_db):
    job = queue(cli_db, "t-cli")
    with connection():
        assert job_service.job_summary(job_service.get_job(job.id, None)) == {
            "id": job.id,
            "status": "running",
            "progress": 0,
            "currentStep": "Queued",
        }
