"""One intel item: the record GET /api/intel/{id} answers, with its change diff."""

from __future__ import annotations

from ci_service.services.intel import items as intel
from ci_service.services.workspace import overview
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render


@bp.route("/intel/<item_id>")
@page()
def intel_item(item_id):
    ws = principal().workspace_id
    item = intel.intel_to_dict(intel.get_intel(ws, item_id))
    name = None
    if item["competitorId"]:
        name = overview.competitor_names(ws, [item["competitorId"]]).get(item["competitorId"])
    return render("intel_item.html", item=item, competitor_name=name)
