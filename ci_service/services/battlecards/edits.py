"""Hand edits of battlecard items, kept when the card is regenerated.

A person (EDITOR or higher) rewrites one item: its text fields only, never its evidence.

- Sections and the fields an edit may change: ``whyWeWin``, ``whyWeLose`` and
  ``talkingPoints`` (``title``, ``description``), ``objections`` (``objection``,
  ``response``), ``landmines`` (``text``: a landmine is a plain string), ``killShot`` and
  ``pricingWedge`` (``text``; ``index`` is always 0).
- Storage: the card's ``edits`` column holds one record per edited item
  ``{section, index, origin, fields, item, editedAt, editedBy}``; ``content`` holds the card
  as shown, with the edits applied. ``origin`` is the generated item's key text (the title,
  the objection, the landmine) when it was first edited; ``item`` is the edited item as last
  shown (with its evidence); ``index`` its position in the section now.
- Regeneration (``reapply``, called by ``battlecards.cards.regenerate`` on the fresh
  content): an edit whose origin the new content still has replaces that item, keeping
  the fresh evidence; an edit whose origin is gone is put back as last shown, at its
  position. So an edited item is never lost, and the evidence under an edit stays current
  when the fact is still there. ``killShot`` and ``pricingWedge`` edits replace the text;
  their evidence is the fresh one.
- Shown: dict items carry ``edited: true``, ``editedAt`` and ``editedBy`` (the editor's
  email); every edit, landmines and the two texts included, is listed in the card's
  ``edits`` (``{section, index, editedAt, editedBy}``, see ``public_edits``). REST, tools,
  pages and exports read the same content.

The rules live here; storing an edit is ``battlecards.editing.edit_item``.
"""

from __future__ import annotations

from typing import Any

# section -> (fields an edit may change, the field that identifies a generated item)
LIST_SECTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "whyWeWin": (("title", "description"), "title"),
    "whyWeLose": (("title", "description"), "title"),
    "objections": (("objection", "response"), "objection"),
    "talkingPoints": (("title", "description"), "title"),
    "landmines": (("text",), "text"),
}
TEXT_SECTIONS = ("killShot", "pricingWedge")
# In the card's order (as pages and exports show it).
SECTIONS = (
    "whyWeWin",
    "whyWeLose",
    "objections",
    "talkingPoints",
    "killShot",
    "landmines",
    "pricingWedge",
)
MAX_TEXT = 2000
MARKERS = ("edited", "editedAt", "editedBy")


def allowed_fields(section: str) -> tuple[str, ...]:
    return LIST_SECTIONS[section][0] if section in LIST_SECTIONS else ("text",)


def item_key(section: str, item: Any) -> str:
    """What identifies a generated item of ``section`` across regenerations."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        return str(item.get(LIST_SECTIONS[section][1]) or "")
    return ""


def field_value(item: Any, name: str) -> str:
    """The current text of field ``name`` of an item (a string item is its ``text``)."""
    if isinstance(item, dict):
        return str(item.get(name) or "")
    return str(item or "")


def applied(section: str, item: Any, edit: dict[str, Any]) -> Any:
    """``item`` with the edit's fields and markers (a landmine is the edited string)."""
    fields = edit.get("fields") or {}
    if section == "landmines" or not isinstance(item, dict):
        return fields.get("text", item)
    return {
        **item,
        **fields,
        "edited": True,
        "editedAt": edit.get("editedAt"),
        "editedBy": edit.get("editedBy"),
    }


def reapply(content: dict[str, Any], edits: list[dict[str, Any]]) -> tuple[dict, list]:
    """Fresh generated ``content`` with the stored ``edits`` applied (see the module
    docstring); returns the content and the edit records with updated positions."""
    content = dict(content)
    kept: list[dict[str, Any]] = []
    for section in TEXT_SECTIONS:
        for edit in edits:
            if edit.get("section") == section:
                content[section] = (edit.get("fields") or {}).get("text", content.get(section))
                kept.append({**edit, "index": 0, "item": content[section]})
    for section in LIST_SECTIONS:
        mine = sorted(
            (dict(e) for e in edits if e.get("section") == section),
            key=lambda e: int(e.get("index") or 0),
        )
        if not mine:
            continue
        # [item, its edit or None]; identity of the slot, not equality, tracks positions.
        slots: list[list[Any]] = [[item, None] for item in content.get(section) or []]
        orphans = []
        for edit in mine:
            match = next(
                (
                    s
                    for s in slots
                    if s[1] is None and item_key(section, s[0]) == edit.get("origin")
                ),
                None,
            )
            if match is None:
                orphans.append(edit)
            else:
                match[0], match[1] = applied(section, match[0], edit), edit
        for edit in orphans:  # the fact behind it is gone: keep the item as last shown
            position = min(max(int(edit.get("index") or 0), 0), len(slots))
            slots.insert(position, [edit.get("item"), edit])
        for position, (item, edit) in enumerate(slots):
            if edit is not None:
                edit["index"], edit["item"] = position, item
                kept.append(edit)
        content[section] = [item for item, _ in slots]
    return content, kept


def public_edits(edits: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """What reads show of the edits: ``{section, index, editedAt, editedBy}``."""
    shown = [
        {
            "section": e.get("section"),
            "index": int(e.get("index") or 0),
            "editedAt": e.get("editedAt"),
            "editedBy": e.get("editedBy"),
        }
        for e in edits or []
        if e.get("section") in SECTIONS
    ]
    return sorted(shown, key=lambda e: (SECTIONS.index(e["section"]), e["index"]))
