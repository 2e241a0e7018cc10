"""Competitor pages: add (from the home page), the competitor page, refresh and battlecard
generation. Each is the same service call as its REST route."""

from __future__ import annotations

from flask import current_app, redirect, request, url_for

from ci_service.errors import NotFound, UpgradeRequired, ValidationFailed
from ci_service.pipeline.money_format import format_money
from ci_service.services.battlecards import cards as battlecards
from ci_service.services.identity.auth import WRITE
from ci_service.services.workspace import jobs, overview
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render
from ci_service.web.pages.home import render_home

PROFILE_FIELDS = (
    ("yearFounded", "Founded"),
    ("headquarters", "Headquarters"),
    ("employeeCount", "Employees"),
    ("revenue", "Revenue"),
    ("industry", "Industry"),
)


# The tabs' labels, in the order of ``overview.TABS``.
TAB_LABELS = {
    "summary": "Summary",
    "products": "Products",
    "intel": "Intel timeline",
    "people": "People",
    "news": "News",
    "deals": "Deals",
    "battlecards": "Battlecards",
    "jobs": "Jobs",
}


def _form_error(exc: ValidationFailed | UpgradeRequired) -> dict:
    return {"message": exc.message, "details": exc.details or {}, "status": exc.status}


@bp.route("/competitors", methods=["POST"])
@page(WRITE)
def add_competitor():
    """POST /api/competitors from a form: the plan limit and the collect job included."""
    p = principal()
    form = {
        "name": request.form.get("name", "").strip(),
        "websiteUrl": request.form.get("websiteUrl", "").strip(),
        "tier": request.form.get("tier", ""),
    }
    limit = current_app.config["CI_SETTINGS"].competitor_limit(p.plan)
    try:
        row, _job = overview.add_competitor(
            p.workspace_id,
            {"name": form["name"], "websiteUrl": form["websiteUrl"]},
            plan=p.plan,
            limit=limit,
            tier=form["tier"] or None,
        )
    except (ValidationFailed, UpgradeRequired) as exc:
        return render_home(exc.status, form=form, error=_form_error(exc))
    return redirect(url_for("pages.competitor", competitor_id=row.id), 303)


def _started_job() -> dict | None:
    """The job a button just started (``?job=``), when it is one of this workspace's."""
    job_id = request.args.get("job")
    if not job_id:
        return None
    try:
        return jobs.job_to_dict(jobs.get_job(job_id, principal().workspace_id))
    except NotFound:
        return None


def render_competitor(competitor_id: str, status: int = 200, error: dict | None = None):
    """The competitor page on the tab ``?tab=`` names (the summary by default), list tabs
    at ``?page=``: the service orders and pages them, 400 for an unknown tab or page."""
    data = overview.competitor_page(
        principal().workspace_id,
        competitor_id,
        tab=request.args.get("tab") or None,
        page=request.args.get("page"),
    )
    return render(
        "competitor.html",
        status,
        profile_fields=PROFILE_FIELDS,
        modes=battlecards.BATTLECARD_MODES,
        started=_started_job(),
        error=error,
        tabs=TAB_LABELS,
        WRITE=WRITE,
        # Funding amounts as people write them ("£300,000"), never the stored 300000.0.
        money=format_money,
        **data,
    )


@bp.route("/competitors/<competitor_id>")
@page()
def competitor(competitor_id):
    return render_competitor(competitor_id)


@bp.route("/competitors/<competitor_id>/refresh", methods=["POST"])
@page(WRITE)
def refresh_competitor(competitor_id):
    """Queue a collect (an active one is reused): ``jobs.start_competitor_refresh``, the
    service of ``POST /api/competitors/{id}/refresh`` and the ``trigger_refresh`` tool."""
    job = jobs.start_competitor_refresh(principal().workspace_id, competitor_id)
    return redirect(url_for("pages.competitor", competitor_id=competitor_id, job=job.id), 303)


@bp.route("/competitors/<competitor_id>/battlecards", methods=["POST"])
@page(WRITE)
def generate_battlecard(competitor_id):
    """POST /api/battlecards/{competitorId}/generate: productId and mode from the form."""
    try:
        _card, job = battlecards.start_generation(
            principal().workspace_id,
            competitor_id,
            request.form.get("productId") or None,
            request.form.get("mode") or None,
        )
    except ValidationFailed as exc:
        return render_competitor(competitor_id, exc.status, error=_form_error(exc))
    return redirect(url_for("pages.competitor", competitor_id=competitor_id, job=job.id), 303)
