"""Battlecard page: the card's sections with each item's evidence one click away, hand edits
(EDITOR+), copy as Markdown, a print / PDF layout, regeneration with live status and the
Markdown/HTML download. Everything comes from the services REST uses:
``battlecard_export.card_view`` (the REST dict with the evidence), ``battlecard_edits`` and
``battlecards.start_generation``."""

from __future__ import annotations

from flask import Response, redirect, request, url_for

from ci_service.errors import ValidationFailed
from ci_service.services import battlecard_edits, battlecard_export, battlecards
from ci_service.services.auth import WRITE
from ci_service.web.pages import bp
from ci_service.web.pages.context import can, page, principal, render

MODES = {
    "ATTACK": "Attack: competitive selling",
    "DEFENSE": "Defense: answering their pitch",
}


def _show(battlecard_id: str, status: int = 200, error: str | None = None, failed=None):
    view = battlecard_export.card_view(principal().workspace_id, battlecard_id)
    return render(
        "battlecard.html",
        status,
        view=view,
        card=view["battlecard"],
        heading=battlecard_export.title_of(view),
        sections=battlecard_export.sections(view),
        markdown=battlecard_export.to_markdown(view),
        fields_of=battlecard_edits.allowed_fields,
        modes=MODES,
        editable=can(WRITE),
        error=error,
        failed=failed or {},
    )


@bp.route("/battlecards/<battlecard_id>")
@page()
def battlecard(battlecard_id):
    return _show(battlecard_id)


@bp.route("/battlecards/<battlecard_id>/status.json")
@page()
def battlecard_status(battlecard_id):
    """For the live note while the card is generated: the card as REST shows it."""
    row = battlecards.get_battlecard(principal().workspace_id, battlecard_id)
    return {"battlecard": battlecards.battlecard_to_dict(row)}


@bp.route("/battlecards/<battlecard_id>/edit", methods=["POST"])
@page(WRITE)
def battlecard_edit(battlecard_id):
    section = request.form.get("section", "")
    index = request.form.get("index", "")
    known = battlecard_edits.allowed_fields(section) if section in battlecard_edits.SECTIONS else ()
    fields = {name: request.form[name] for name in known if name in request.form}
    try:
        battlecard_edits.edit_item(
            principal().workspace_id, battlecard_id, section, index, fields, principal().user_id
        )
    except ValidationFailed as failure:
        failed = {"section": section, "index": index, "fields": fields}
        return _show(battlecard_id, 400, error=failure.message, failed=failed)
    target = url_for("pages.battlecard", battlecard_id=battlecard_id, _anchor=f"{section}-{index}")
    return redirect(target, code=303)


@bp.route("/battlecards/<battlecard_id>/generate", methods=["POST"])
@page(WRITE)
def battlecard_generate(battlecard_id):
    ws = principal().workspace_id
    row = battlecards.get_battlecard(ws, battlecard_id)
    try:
        battlecards.start_generation(
            ws, row.competitor_id, row.my_product_id, request.form.get("mode")
        )
    except ValidationFailed as failure:
        return _show(battlecard_id, 400, error=failure.message)
    return redirect(url_for("pages.battlecard", battlecard_id=battlecard_id), code=303)


@bp.route("/battlecards/<battlecard_id>/export")
@page()
def battlecard_download(battlecard_id):
    """The same documents as ``GET /api/battlecards/{id}/export``, for a signed-in person."""
    try:
        fmt = battlecard_export.check_format(request.args.get("format"))
    except ValidationFailed as failure:
        return _show(battlecard_id, 400, error=failure.message)
    done = battlecard_export.export(principal().workspace_id, battlecard_id, fmt)
    return Response(done.body, mimetype=done.mimetype, headers=done.headers("attachment"))
