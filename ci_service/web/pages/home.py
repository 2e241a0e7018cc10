"""Home: the competitors with status, tier and last refresh, running jobs with live progress,
the latest changes across competitors, the "Add competitor" form and, in a workspace that
is not set up yet, the first-run checklist (our product, a competitor, a battlecard).

The competitors table and the latest changes are live regions (static/live.js refreshes
them while a competitor is PENDING or PROCESSING or a job runs)."""

from __future__ import annotations

from typing import Any

from flask import request

from ci_service.services.identity.auth import WRITE
from ci_service.services.workspace import onboarding, overview, products
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render

EMPTY_FORM = {"name": "", "websiteUrl": "", "tier": "", "relevantProductIds": []}
# Badges live.js keeps polling for: the analysis has not finished yet.
PENDING_STATUSES = ("PENDING", "PROCESSING")


def render_home(
    status: int = 200,
    form: dict[str, Any] | None = None,
    error: Any = None,
    duplicate: dict[str, Any] | None = None,
):
    """The home page; the add form keeps what was typed and shows ``error`` (a message and
    per-field details) when it failed, or ``duplicate`` (the competitor already tracking
    that website: ``{id, name, websiteUrl}``) with an "Add anyway" box."""
    ws = principal().workspace_id
    data = overview.home(ws)
    return render(
        "home.html",
        status,
        tiers=list(overview.TIERS),
        form={**EMPTY_FORM, **(form or {})},
        error=error,
        duplicate=duplicate,
        products=[{"id": p.id, "name": p.name} for p in products.list_products(ws)],
        checklist=onboarding.first_run(ws),
        # After a delete (pages.delete_competitor): the notice names nothing from the URL.
        deleted=request.args.get("deleted") == "1",
        pending_statuses=PENDING_STATUSES,
        WRITE=WRITE,
        **data,
    )


@bp.route("/")
@page()
def home():
    return render_home()
