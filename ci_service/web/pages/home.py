"""Home: the competitors with status, tier and last refresh, running jobs with live progress,
and the latest changes across competitors."""

from __future__ import annotations

from ci_service.services import competitors
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render


@bp.route("/")
@page()
def home():
    # The same records REST answers (competitor_to_dict), so pages never differ from the API.
    rows = competitors.list_competitors(principal().workspace_id)
    return render("home.html", competitors=[competitors.competitor_to_dict(r) for r in rows])
