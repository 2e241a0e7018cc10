"""Import competitors from a CSV file, in two steps: upload → preview (what will be created,
duplicates skipped, each row's errors), then confirm → create. Both steps are calls of
``services.workspace.competitor_import`` (``preview``, then ``apply``), the service of
``ci-service competitors import`` too; whoever may add a competitor (EDITOR or higher) may
import.

The preview page carries the file's text to the confirm step in a hidden field of a plain
(urlencoded) form; the confirm step trusts nothing of the preview: ``apply`` checks the
size, the rows, the duplicates and the plan limit again. The result is shown on the page
itself; sending the confirm form again creates nothing more, since every row it created is
then a duplicate.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from ci_service.errors import ValidationFailed
from ci_service.services.identity.auth import WRITE
from ci_service.services.workspace import competitor_import
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render

EXAMPLE = (
    "name,website,tier,relevantProducts\n"
    "Globex,https://globex.example,TIER_1,OurDesk;OurCRM\n"
    "Initech,initech.example,,OurDesk\n"
)


def _limits() -> dict[str, Any]:
    p = principal()
    return {"plan": p.plan, "limit": current_app.config["CI_SETTINGS"].competitor_limit(p.plan)}


def _render(status: int = 200, **context: Any):
    return render(
        "competitor_import.html",
        status,
        example=EXAMPLE,
        max_bytes=competitor_import.MAX_BYTES,
        max_mb=competitor_import.MAX_BYTES // 2**20,
        max_rows=competitor_import.MAX_ROWS,
        **context,
    )


@bp.route("/competitors/import", methods=["GET"])
@page(WRITE)
def competitor_import_form():
    return _render()


@bp.route("/competitors/import", methods=["POST"])
@page(WRITE)
def competitor_import_preview():
    """The uploaded file's plan; nothing is created."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return _render(400, error="Choose a CSV file to import.")
    data = upload.stream.read(competitor_import.MAX_BYTES + 1)  # enough to know it is too big
    filename = upload.filename[:200]
    try:
        plan = competitor_import.preview(principal().workspace_id, data, **_limits())
    except ValidationFailed as exc:
        return _render(400, error=exc.message)
    return _render(
        plan=plan.to_dict(),
        filename=filename,
        # The text the confirm form sends back (decoded, BOM dropped; checked again there).
        csv_text=competitor_import.decode(data),
    )


@bp.route("/competitors/import/confirm", methods=["POST"])
@page(WRITE)
def competitor_import_confirm():
    """Create the rows of the text the preview page sent back, each with its analysis job."""
    text = request.form.get("csv", "")
    try:
        plan = competitor_import.apply(principal().workspace_id, text, **_limits())
    except ValidationFailed as exc:
        return _render(400, error=exc.message)
    return _render(plan=plan.to_dict(), filename=request.form.get("filename", "")[:200])
