"""Battlecard page: one tile per section (the kill shot first, then a grid of short titled
lists, one claim a line), each item's evidence behind its own disclosure, hand edits a tile
at a time (EDITOR+), copy as Markdown, a print / PDF layout, regeneration with live status
and the Markdown/HTML download. Everything comes from the services REST uses:
``battlecard_export.card_view`` (the REST dict with the evidence), ``battlecard_edits`` and
``battlecards.start_generation``.

An item of the why-we-win / why-we-lose / objections / talking-points sections may say
which of our features it is about (``feature``) and where they stand on it (``state``:
a badge), what of theirs matched it (``matched``, each pair with its quotes) and, for an
absence, what was read to say so (``read``, ``pagesRead``). Items written before these
fields existed show as before."""

from __future__ import annotations

from typing import Any

from flask import Response, redirect, request, url_for

from ci_service.errors import ValidationFailed
from ci_service.services.battlecards import cards as battlecards
from ci_service.services.battlecards import editing as battlecard_editing
from ci_service.services.battlecards import edits as battlecard_edits
from ci_service.services.battlecards import export as battlecard_export
from ci_service.services.battlecards.export import short_url
from ci_service.services.identity.auth import WRITE
from ci_service.store.db import transaction
from ci_service.web.pages import bp
from ci_service.web.pages.context import can, page, principal, render
from ci_service.web.pages.matrix import cited, quote_ids, records_for, text_of

MODES = {
    "ATTACK": "Attack: competitive selling",
    "DEFENSE": "Defense: answering their pitch",
}

STATES = {
    "THEY_LACK": "They lack it",
    "THEY_HAVE": "They have it",
    "COMING_SOON": "Coming soon",
    "WE_LACK": "We lack it",
}
CLAIM_SECTIONS = ("whyWeWin", "whyWeLose", "objections", "talkingPoints")
# The tile headings where the page says more than the export's section names.
TILE_HEADINGS = {"objections": "Objections and answers"}


def _entries(content: dict[str, Any], key: str) -> list[Any]:
    entries = content.get(key)
    return entries if isinstance(entries, list) else []


def _matched_of(entry: dict[str, Any]) -> list[dict[str, Any]]:
    matched = entry.get("matched")
    return [m for m in matched if isinstance(m, dict)] if isinstance(matched, list) else []


def claim_of(entry: Any, records: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """``{feature, state, stateLabel, matched, read, pagesRead}`` of a content item, None
    when it has none of them (items generated before they existed)."""
    if not isinstance(entry, dict):
        return None
    state = entry.get("state") if entry.get("state") in STATES else None
    matched = []
    for pair in _matched_of(entry):
        ours, theirs = text_of(pair.get("ours")), text_of(pair.get("theirs"))
        if ours or theirs:
            matched.append(
                {"ours": ours, "theirs": theirs, "quotes": cited(pair.get("quotes"), records)}
            )
    pages = []
    read = entry.get("pagesRead")
    for page_read in read if isinstance(read, list) else []:
        if not isinstance(page_read, dict):
            continue
        record = records.get(page_read.get("evidenceId")) or {}
        url = page_read.get("url") or record.get("url")
        title = text_of(page_read.get("title")) or text_of(record.get("title")) or short_url(url)
        pages.append(
            {"title": title or "page", "url": url, "pageKind": text_of(page_read.get("pageKind"))}
        )
    claim = {
        "feature": text_of(entry.get("feature")),
        "state": state,
        "stateLabel": STATES.get(state or "", ""),
        "matched": matched,
        "read": text_of(entry.get("read")),
        "pagesRead": pages,
    }
    return claim if any(claim.values()) else None


def with_claims(workspace_id: str, view: dict[str, Any], sections: list[dict[str, Any]]) -> None:
    """Each item of the claim sections gets ``claim`` (see ``claim_of``); the quotes of
    matched pairs whose evidence the card's map lacks are read in one query."""
    content = view["battlecard"].get("content") or {}
    records = dict(view.get("evidence") or {})
    wanted = [
        i
        for key in CLAIM_SECTIONS
        for entry in _entries(content, key)
        if isinstance(entry, dict)
        for pair in _matched_of(entry)
        for i in quote_ids(pair.get("quotes"))
        if i not in records
    ]
    records.update(records_for(workspace_id, wanted))
    for section in sections:
        entries = _entries(content, section["key"]) if section["key"] in CLAIM_SECTIONS else []
        for item in section["entries"]:
            index = item.get("index")
            entry = entries[index] if isinstance(index, int) and index < len(entries) else None
            item["claim"] = claim_of(entry, records)
            # a quote already shown under a matched pair is not repeated below it
            paired = {
                q["quote"] for m in (item["claim"] or {}).get("matched", []) for q in m["quotes"]
            }
            item["ownQuotes"] = [q for q in item["quotes"] if q["quote"].strip() not in paired]


def _show(battlecard_id: str, status: int = 200, error: str | None = None, failed=None):
    ws = principal().workspace_id
    view = battlecard_export.card_view(ws, battlecard_id)
    sections = battlecard_export.sections(view)
    with_claims(ws, view, sections)
    for section in sections:
        section["heading"] = TILE_HEADINGS.get(section["key"], section["heading"])
    failed = failed or {}
    # The tile open for editing: the one whose save failed, else ?edit= (the Edit control
    # without JavaScript is a link to it).
    editing = failed.get("section") or request.args.get("edit", "")
    return render(
        "battlecard.html",
        status,
        view=view,
        card=view["battlecard"],
        heading=battlecard_export.title_of(view),
        kill=next(s for s in sections if s["key"] == "killShot"),
        # empty tiles last: what a seller can use comes first
        tiles=sorted(
            (s for s in sections if s["key"] != "killShot"), key=lambda s: not s["entries"]
        ),
        markdown=battlecard_export.to_markdown(view),
        fields_of=battlecard_edits.allowed_fields,
        modes=MODES,
        editable=can(WRITE),
        editing=editing if can(WRITE) else "",
        error=error,
        failed=failed,
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


def _same(value: Any, current: Any) -> bool:
    """A field sent back as shown: equal but for whitespace (a textarea sends CRLF)."""
    return " ".join(str(value).split()) == " ".join(str(current or "").split())


def _current(content: dict[str, Any], section: str, index: str) -> Any:
    if section in battlecard_edits.TEXT_SECTIONS:
        return content.get(section)
    items = content.get(section)
    if isinstance(items, list) and index.isdigit() and int(index) < len(items):
        return items[int(index)]
    return None


def _value_of(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else item


@bp.route("/battlecards/<battlecard_id>/edit", methods=["POST"])
@page(WRITE)
def battlecard_edit(battlecard_id):
    """Save a tile's edits: ``section``, one ``index`` per item and its fields as
    ``<field>-<index>`` (a single item may send plain ``<field>`` names). Items sent as
    shown are skipped; the rest go through ``battlecard_editing.edit_item`` (the one service
    every hand edit goes through), all or none (one transaction)."""
    ws, user = principal().workspace_id, principal().user_id
    section = request.form.get("section", "")
    indexes = request.form.getlist("index") or [""]
    known = battlecard_edits.allowed_fields(section) if section in battlecard_edits.SECTIONS else ()
    sent = {}
    for index in indexes:
        sent[index] = {
            name: request.form.get(f"{name}-{index}", request.form.get(name))
            for name in known
            if f"{name}-{index}" in request.form or (len(indexes) == 1 and name in request.form)
        }
    content = battlecards.get_battlecard(ws, battlecard_id).content or {}
    try:
        with transaction():
            for position, (index, fields) in enumerate(sent.items(), start=1):
                current = _current(content, section, index)
                changed = {
                    name: value
                    for name, value in fields.items()
                    if current is None or not _same(value, _value_of(current, name))
                }
                if not changed and fields:
                    continue
                try:
                    battlecard_editing.edit_item(ws, battlecard_id, section, index, changed, user)
                except ValidationFailed as failure:
                    if len(sent) > 1:
                        failure.message = f"Item {position}: {failure.message}"
                    raise
    except ValidationFailed as failure:
        failed = {"section": section, "index": indexes[0], "values": sent}
        return _show(battlecard_id, 400, error=failure.message, failed=failed)
    anchor = f"{section}-{indexes[0]}" if len(indexes) == 1 else section
    target = url_for("pages.battlecard", battlecard_id=battlecard_id, _anchor=anchor)
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
