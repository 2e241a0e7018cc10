"""Search: the header box's results, grouped by kind and ranked for reading.

The ranking, grouping and highlighting are services/search/page.py (page only: REST
``GET /api/search`` keeps the contract's substring rule). An empty query shows the form;
a 1-character query shows the same message the API gives, on this page (status 400 as
the API answers, but the search page, not an error page).
"""

from __future__ import annotations

from flask import request

from ci_service.errors import ValidationFailed
from ci_service.services.search import page as search_page
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render


@bp.route("/search")
@page()
def search():
    q = request.args.get("q", "")
    if not q.strip():
        return render("search.html", q=q, result=None, error=None)
    try:
        result = search_page.build(principal().workspace_id, q)
    except ValidationFailed as exc:
        reasons = (exc.details or {}).get("fields", {}).get("q") or ["is not valid"]
        message = f"The search text {reasons[0]}: type a name or a word, like “SSO”."
        return render("search.html", 400, q=q, result=None, error=message)
    return render(
        "search.html", q=q, result=result, error=None, partial_label=search_page.PARTIAL_LABEL
    )
