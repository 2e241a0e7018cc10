"""Home: the competitors with status, tier and last refresh, running jobs with live progress,
the latest changes across competitors, and the "Add competitor" form."""

from __future__ import annotations

from typing import Any

from ci_service.services import overview
from ci_service.services.auth import WRITE
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render

EMPTY_FORM = {"name": "", "websiteUrl": "", "tier": ""}


def render_home(status: int = 200, form: dict[str, Any] | None = None, error: Any = None):
    """The home page; the add form keeps what was typed and shows ``error`` (a message and
    per-field details) when it failed."""
    data = overview.home(principal().workspace_id)
    return render(
        "home.html",
        status,
        tiers=list(overview.TIERS),
        form=form or EMPTY_FORM,
        error=error,
        WRITE=WRITE,
        **data,
    )


@bp.route("/")
@page()
def home():
    return render_home()
