"""``ci-service jobs``: follow and cancel background jobs (a thin layer over
``services.workspace.jobs``).

Example::

    ci-service jobs list --workspace acme --status running
    ci-service jobs watch 4f9c... --timeout 600
"""

from __future__ import annotations

import sys

import click

from ci_service.cli.common import emit_json, emit_table, json_option, service_errors


@click.group()
def jobs():
    """Follow and cancel background jobs."""


@jobs.command("list")
@click.option("--workspace", default=None, help="Workspace name or id (default: all).")
@click.option("--status", type=click.Choice(["running", "completed", "failed"]), default=None)
@click.option("--competitor", "competitor_id", default=None, help="Only this competitor's jobs.")
@click.option("--type", "job_type", default=None, help="Only jobs of this type, e.g. collect.")
@click.option("--limit", type=click.IntRange(1, 1000), default=None, help="At most N jobs.")
@json_option
@click.pass_obj
@service_errors
def jobs_list(state, workspace, status, competitor_id, job_type, limit, as_json):
    """List jobs, newest first.

    Example: ci-service jobs list --workspace acme --status running
    """
    from ci_service.services.workspace import jobs as job_service
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    workspace_id = find_workspace(workspace).id if workspace else None
    rows = job_service.list_jobs(
        workspace_id, competitor_id=competitor_id, job_type=job_type, status=status, limit=limit
    )
    data = [job_service.job_to_dict(row) for row in rows]
    if as_json:
        emit_json(data)
    else:
        emit_table(
            data, ["id", "type", "status", "progress", "currentStep", "displayTitle", "startedAt"]
        )


@jobs.command("show")
@click.argument("job_id")
@json_option
@click.pass_obj
@service_errors
def jobs_show(state, job_id, as_json):
    """Show one job with its steps.

    Example: ci-service jobs show 4f9c...
    """
    from ci_service.cli.job_views import describe
    from ci_service.services.workspace import jobs as job_service

    state.open()
    data = job_service.job_to_dict(job_service.get_job(job_id, None))
    if as_json:
        emit_json(data)
    else:
        click.echo(describe(data))


@jobs.command("watch")
@click.argument("job_id")
@click.option("--interval", type=click.FloatRange(0.05, 60), default=0.5, show_default=True)
@click.option("--timeout", type=click.FloatRange(0), default=None, help="Give up after N s.")
@click.pass_obj
@service_errors
def jobs_watch(state, job_id, interval, timeout):
    """Show a live progress bar until the job ends.

    Exit code 0 when it completed, 1 when it failed, 2 on --timeout.

    Example: ci-service jobs watch 4f9c... --timeout 600
    """
    from ci_service.cli.job_views import watch

    state.open()
    sys.exit(watch(job_id, interval=interval, timeout=timeout))


@jobs.command("cancel")
@click.argument("job_id")
@json_option
@click.pass_obj
@service_errors
def jobs_cancel(state, job_id, as_json):
    """Cancel a running job (it becomes failed, currentStep Cancelled).

    Example: ci-service jobs cancel 4f9c...
    """
    from ci_service.services.workspace import jobs as job_service

    state.open()
    row = job_service.cancel_job(job_id, None)
    if as_json:
        summary = {"id": row.id, "status": row.status, "currentStep": row.current_step}
        emit_json({"success": True, "job": summary})
    else:
        click.echo(f"Cancelled job {row.id} ({row.display_title})")
