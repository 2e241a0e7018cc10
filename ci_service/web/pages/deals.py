"""Pages: won and lost deals (``/deals``).

- The list is ``services.workspace.deals.list_deals`` (what ``GET /api/deals`` answers;
  ``?competitorId=`` filters the same way: another workspace's id simply matches nothing).
- The form (EDITOR or higher, as ``POST /api/deals``) goes through
  ``services.workspace.deals.create_deal``: the same validation (LOST needs the competitor
  it was lost to, WON none); errors re-render the form with the messages (400) and the values typed.
  Arguments are one per line; empty optional fields are left out (read as null). The
  "Competitors in this deal" checkboxes are ``competitorIds`` (beyond the contract: for a
  WON deal, whom we beat; the service adds a LOST deal's competitor first).
- Win rate per competitor, top loss reasons and the chart come from
  ``services.workspace.deal_stats`` (rules documented there); the chart is a server-drawn SVG.
"""

from __future__ import annotations

from typing import Any

from flask import redirect, request, url_for

from ci_service.errors import ValidationFailed
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.workspace import competitors, deal_stats, deals
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render

FIELDS = ("prospectCompanyName", "prospectIndustry", "outcome", "competitorId")
OPTIONAL = ("prospectIndustry", "decisionDate", "dealSize", "competitorId")

# The chart's geometry (SVG user units; the SVG scales to its container).
CHART = {"width": 640, "row": 30, "label": 190, "bar": 360, "top": 8}


def form_to_body(form) -> dict[str, Any]:
    """The form as the body ``POST /api/deals`` takes."""
    body: dict[str, Any] = {
        "prospectCompanyName": form.get("prospectCompanyName", "").strip(),
        "outcome": form.get("outcome", "").strip(),
    }
    for name in OPTIONAL:
        value = form.get(name, "").strip()
        if value:
            body[name] = value
    arguments = [line.strip() for line in form.get("arguments", "").splitlines() if line.strip()]
    if arguments:
        body["arguments"] = arguments
    listed = [value.strip() for value in form.getlist("competitorIds") if value.strip()]
    if listed:
        body["competitorIds"] = listed
    return body


def chart_rows(stats: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for n, row in enumerate(r for r in stats["competitors"] if r["winRate"] is not None):
        name = row["name"] if len(row["name"]) <= 26 else row["name"][:25] + "…"
        rows.append(
            {
                **row,
                "short": name,
                "y": CHART["top"] + n * CHART["row"],
                "width": round(row["winRate"] * CHART["bar"], 1),
                "percent": round(row["winRate"] * 100),
            }
        )
    return rows


def _page(status: int = 200, *, errors: dict[str, list[str]] | None = None, values=None):
    ws = principal().workspace_id
    competitor_filter = request.args.get("competitorId") or None
    rows = deals.list_deals(ws, competitor_filter)
    everyone = competitors.list_competitors(ws)
    names = {c.id: c.name for c in everyone}
    stats = deal_stats.deal_stats(ws)
    bars = chart_rows(stats)
    return render(
        "deals.html",
        status,
        deals=[deals.deal_to_dict(r) for r in rows],
        names=names,
        competitors=[{"id": c.id, "name": c.name} for c in everyone],
        competitor_filter=competitor_filter,
        stats=stats,
        bars=bars,
        chart=dict(CHART, height=CHART["top"] * 2 + max(1, len(bars)) * CHART["row"]),
        errors=errors or {},
        values=values or {},
        created=request.args.get("created"),
        can_write=WRITE,
    )


@bp.route("/deals", endpoint="deals")
@page(READ)
def deals_page():
    return _page()


@bp.route("/deals", methods=["POST"])
@page(WRITE)
def record_deal():
    p = principal()
    body = form_to_body(request.form)
    try:
        row = deals.create_deal(p.workspace_id, body, user_id=p.user_id)
    except ValidationFailed as exc:
        fields = (exc.details or {}).get("fields") or {"form": [exc.message]}
        values = {k: request.form.get(k, "") for k in (*FIELDS, *OPTIONAL, "arguments")}
        values["competitorIds"] = request.form.getlist("competitorIds")
        return _page(400, errors=fields, values=values)
    return redirect(url_for("pages.deals", created=row.id, _anchor=f"deal-{row.id}"))
