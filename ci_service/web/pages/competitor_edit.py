"""Competitor workflows beyond the competitor page: add from the home form (with the
duplicate-website warning), edit, and delete with what deleting removes.

Each is the service call of its REST route: ``overview.add_competitor`` (``POST
/api/competitors``, with the form's tier), ``competitors.update_competitor`` (``PATCH
/api/competitors/{id}``) and ``competitors.delete_competitor`` (``DELETE
/api/competitors/{id}``). The duplicate check is the page's alone: REST still creates.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, redirect, request, url_for

from ci_service.errors import UpgradeRequired, ValidationFailed
from ci_service.services.identity.auth import WRITE
from ci_service.services.workspace import competitors, overview, products
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render
from ci_service.web.pages.home import render_home

# What goes with a deleted competitor, in the order the delete page lists it.
REMOVED = (
    ("intelItems", "intel item", "intel items"),
    ("offerings", "product or offering", "products and offerings"),
    ("battlecards", "battlecard", "battlecards"),
    ("matrixCells", "feature matrix cell", "feature matrix cells"),
    ("solutionCells", "solution matrix cell", "solution matrix cells"),
    ("people", "person", "people"),
)


def _form_error(exc: ValidationFailed | UpgradeRequired) -> dict[str, Any]:
    return {"message": exc.message, "details": exc.details or {}, "status": exc.status}


def _submitted() -> dict[str, Any]:
    """The competitor form as typed (kept when it is shown again)."""
    return {
        "name": request.form.get("name", "").strip(),
        "websiteUrl": request.form.get("websiteUrl", "").strip(),
        "tier": request.form.get("tier", ""),
        "relevantProductIds": request.form.getlist("relevantProductIds"),
    }


def _our_products(workspace_id: str) -> list[dict[str, str]]:
    return [{"id": p.id, "name": p.name} for p in products.list_products(workspace_id)]


@bp.route("/competitors/new", methods=["POST"])
@page(WRITE)
def create_competitor():
    """The home page's add form: a website already tracked is a warning that links to its
    competitor and creates nothing, unless "Add anyway" is ticked (a second crawl of the
    same site would give the matrix two columns for one company)."""
    p = principal()
    form = _submitted()
    if not request.form.get("addAnyway"):
        existing = competitors.tracked_website(p.workspace_id, form["websiteUrl"])
        if existing is not None:
            duplicate = {
                "id": existing.id,
                "name": existing.name,
                "websiteUrl": existing.website_url,
            }
            return render_home(409, form=form, duplicate=duplicate)
    data: dict[str, Any] = {"name": form["name"], "websiteUrl": form["websiteUrl"]}
    if form["relevantProductIds"]:
        data["relevantProductIds"] = form["relevantProductIds"]
    try:
        row, _job = overview.add_competitor(
            p.workspace_id,
            data,
            plan=p.plan,
            limit=current_app.config["CI_SETTINGS"].competitor_limit(p.plan),
            tier=form["tier"] or None,
        )
    except (ValidationFailed, UpgradeRequired) as exc:
        return render_home(exc.status, form=form, error=_form_error(exc))
    return redirect(url_for("pages.competitor", competitor_id=row.id), 303)


@bp.route("/competitors/<competitor_id>/edit", methods=["GET", "POST"])
@page(WRITE)
def edit_competitor(competitor_id):
    ws = principal().workspace_id
    # Found first: another workspace's id is the 404 page whatever the form holds.
    row = competitors.get_competitor(ws, competitor_id)
    current = competitors.competitor_to_dict(row)
    error = None
    if request.method == "POST":
        form = _submitted()
        data = {
            "name": form["name"],
            "websiteUrl": form["websiteUrl"],
            # No box ticked is an empty list: the checkboxes are the whole choice.
            "relevantProductIds": form["relevantProductIds"],
        }
        if form["tier"]:
            data["tier"] = form["tier"]
        try:
            competitors.update_competitor(ws, row.id, data)
        except ValidationFailed as exc:
            error = _form_error(exc)
        else:
            return redirect(url_for("pages.competitor", competitor_id=row.id), 303)
    else:
        form = {
            "name": current["name"],
            "websiteUrl": current["websiteUrl"],
            "tier": current["tier"],
            "relevantProductIds": current["relevantProductIds"] or [],
        }
    return render(
        "competitor_form.html",
        error["status"] if error else 200,
        competitor=current,
        form=form,
        error=error,
        tiers=list(overview.TIERS),
        products=_our_products(ws),
    )


@bp.route("/competitors/<competitor_id>/delete", methods=["GET", "POST"])
@page(WRITE)
def delete_competitor(competitor_id):
    """GET: what deleting removes and what it keeps, counted; POST: delete, then home."""
    ws = principal().workspace_id
    if request.method == "POST":
        competitors.delete_competitor(ws, competitor_id)
        return redirect(url_for("pages.home", deleted=1), 303)
    row = competitors.get_competitor(ws, competitor_id)
    summary = competitors.deletion_summary(ws, row.id)
    removed = [(summary[key], one if summary[key] == 1 else many) for key, one, many in REMOVED]
    return render(
        "competitor_delete.html",
        competitor=competitors.competitor_to_dict(row),
        summary=summary,
        removed=removed,
    )
