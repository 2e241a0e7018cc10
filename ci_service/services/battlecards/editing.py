"""Storing a hand edit of one battlecard item (the rules: ``battlecards.edits``).

Above ``cards`` (which reapplies the edits on each regeneration), so neither imports the
other back.
"""

from __future__ import annotations

from typing import Any

from ci_service.errors import ValidationFailed
from ci_service.services.battlecards import cards as battlecards
from ci_service.services.battlecards import content as battlecard_content
from ci_service.services.battlecards.edits import (
    MAX_TEXT,
    SECTIONS,
    TEXT_SECTIONS,
    allowed_fields,
    applied,
    field_value,
    item_key,
)
from ci_service.store.analysis import Battlecard
from ci_service.store.db import transaction
from ci_service.store.identity import User
from ci_service.timeutil import iso, utcnow


def _check_fields(section: str, fields: Any) -> dict[str, str]:
    if not isinstance(fields, dict) or not fields:
        raise ValidationFailed.field(
            "fields", f"give at least one of {', '.join(allowed_fields(section))}"
        )
    allowed = allowed_fields(section)
    clean = {}
    for name, value in fields.items():
        if name not in allowed:
            raise ValidationFailed.field(
                str(name), f"not editable in {section} (edit {', '.join(allowed)})"
            )
        if not isinstance(value, str) or not value.strip():
            raise ValidationFailed.field(name, "must be non-empty text")
        text = " ".join(value.split()) if name != "description" else value.strip()
        if len(text) > MAX_TEXT:
            raise ValidationFailed.field(name, f"at most {MAX_TEXT} characters")
        clean[name] = text
    return clean


def _index(section: str, index: Any, content: dict[str, Any]) -> int:
    if section in TEXT_SECTIONS:
        return 0
    try:
        position = int(index)
    except (TypeError, ValueError):
        raise ValidationFailed.field("index", "must be a whole number") from None
    size = len(content.get(section) or [])
    if not 0 <= position < size:
        raise ValidationFailed.field("index", f"no item {index} in {section} ({size} item(s))")
    return position


def _editor(workspace_id: str, user: Any) -> str:
    """The editor as shown: the user's email, else the id given."""
    row = User.get_or_none((User.id == str(user)) & (User.workspace == workspace_id))
    return (row.email if row is not None and row.email else None) or str(user)


def edit_item(
    workspace_id: str,
    battlecard_id: str,
    section: Any,
    index: Any,
    fields: Any,
    user: Any,
) -> Battlecard:
    """Store a hand edit of one item and show it on the card (see the module docstring).

    404 for a card not in the workspace; 400 naming ``section``, ``index``, ``fields`` or
    the field that cannot be edited. Fields sent as they are change nothing (a form sends
    every field); nothing changed stores no edit. ``user``: the editing user's id. Returns
    the card."""
    if section not in SECTIONS:
        raise ValidationFailed.field("section", f"must be one of {', '.join(SECTIONS)}")
    with transaction():
        card = battlecards.get_battlecard(workspace_id, battlecard_id)
        content = {**battlecards.EMPTY_CONTENT, **(card.content or {})}
        position = _index(section, index, content)
        clean = _check_fields(section, fields)
        current = content[section] if section in TEXT_SECTIONS else content[section][position]
        clean = {k: v for k, v in clean.items() if v != field_value(current, k)}
        if not clean:  # the form sent the texts as they are: nothing to keep
            return card
        edits = [dict(e) for e in card.edits or []]
        record = next(
            (e for e in edits if e.get("section") == section and e.get("index") == position),
            None,
        )
        if record is None:
            record = {"section": section, "index": position, "origin": item_key(section, current)}
            edits.append(record)
        record["fields"] = {**(record.get("fields") or {}), **clean}
        record["editedAt"] = iso(utcnow())
        record["editedBy"] = _editor(workspace_id, user)
        if section in TEXT_SECTIONS:
            content[section] = record["fields"]["text"]
            record["item"] = content[section]
        else:
            items = list(content[section])
            items[position] = applied(section, items[position], record)
            record["item"] = items[position]
            content[section] = items
        card.content = content
        card.edits = edits
        card.search_text = battlecard_content.search_text(content)
        card.updated_at = utcnow()
        Battlecard.update(
            content=card.content,
            edits=card.edits,
            search_text=card.search_text,
            updated_at=card.updated_at,
        ).where(Battlecard.id == card.id).execute()
    return card
