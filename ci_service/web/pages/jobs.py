"""Jobs: the list with filters (GET /api/jobs), one job's steps and progress live
(``progress.json`` answers what GET /api/jobs/{id} does) and cancel (POST
/api/jobs/{id}/cancel)."""

from __future__ import annotations

from flask import jsonify, redirect, request, url_for

from ci_service.errors import ValidationFailed
from ci_service.services.identity.auth import WRITE
from ci_service.services.workspace import jobs, overview
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render

FILTERS = ("status", "type", "competitorId")


@bp.route("/jobs", endpoint="jobs")
@page()
def jobs_list():
    ws = principal().workspace_id
    chosen = {name: request.args.get(name) or None for name in FILTERS}
    rows = jobs.list_jobs(
        ws,
        competitor_id=chosen["competitorId"],
        job_type=chosen["type"],
        status=chosen["status"],
    )
    names = overview.competitor_names(ws)
    return render(
        "jobs.html",
        jobs=[jobs.job_to_dict(row) for row in rows],
        chosen=chosen,
        statuses=jobs.JOB_STATUSES,
        types=overview.job_types(),
        competitor_names=names,
    )


def render_job(job_id: str, status: int = 200, error: str | None = None):
    ws = principal().workspace_id
    job = jobs.job_to_dict(jobs.get_job(job_id, ws))
    name = None
    if job["competitorId"]:
        name = overview.competitor_names(ws, [job["competitorId"]]).get(job["competitorId"])
    return render(
        "jobs_detail.html", status, job=job, competitor_name=name, error=error, WRITE=WRITE
    )


@bp.route("/jobs/<job_id>")
@page()
def job_detail(job_id):
    return render_job(job_id)


@bp.route("/jobs/<job_id>/progress.json")
@page()
def job_progress(job_id):
    """What GET /api/jobs/{id} answers, for the page's script (the session, not a key)."""
    return jsonify({"job": jobs.job_to_dict(jobs.get_job(job_id, principal().workspace_id))})


@bp.route("/jobs/<job_id>/cancel", methods=["POST"])
@page(WRITE)
def cancel_job(job_id):
    try:
        jobs.cancel_job(job_id, principal().workspace_id)
    except ValidationFailed as exc:
        return render_job(job_id, exc.status, error=exc.message)
    return redirect(url_for("pages.job_detail", job_id=job_id), 303)
