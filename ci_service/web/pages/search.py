"""Search: GET /api/search's results for the header's box, grouped by type."""

from __future__ import annotations

from flask import request

from ci_service.errors import ValidationFailed
from ci_service.services import search as search_service
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render

GROUPS = (("competitor", "Competitors"), ("battlecard", "Battlecards"), ("intel", "Intel"))


@bp.route("/search")
@page()
def search():
    q = request.args.get("q", "")
    if not q.strip():
        return render("search.html", q=q, groups=[], searched=False, error=None)
    try:
        results = search_service.search(principal().workspace_id, q)
    except ValidationFailed as exc:
        return render("search.html", 400, q=q, groups=[], searched=False, error=exc.message)
    groups = [
        (label, [r for r in results if r["type"] == kind])
        for kind, label in GROUPS
        if any(r["type"] == kind for r in results)
    ]
    return render("search.html", q=q, groups=groups, searched=True, error=None, total=len(results))
