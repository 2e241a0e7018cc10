"""Pages: what changed at competitors (``/changes``, issue 29).

- The feed is ``services.alerts.events.list_events`` (newest first, ``PAGE_SIZE`` a page at
  ``?page=``), filtered by ``?competitorId=``, ``?type=``, ``?importance=`` (a minimum) and
  ``?unread=1`` (``list_events(unread_for=...)``): a GET form, no script needed. A bad
  filter is the 400 page, another workspace's competitor the 404 page, as in the API.
- ``/changes/<id>`` is one event: for a page change, the diff of the page's previous and
  new text (``services.alerts.change_diff``) side by side or inline (``?view=inline``); for any
  other event its details and evidence. Opening it marks it read.
- Read marks are the signed-in person's own (``services.alerts.reads``), so every member,
  VIEWERs too, may set them: a toggle per item and "Mark all as read" (the filters shown,
  up to the moment the list was drawn). The header's "Changes" link shows the unread count.
- "Mute this page" (a page change: its competitor and URL) and "Mute <these> from
  <competitor>" (the competitor and event type) are ``services.alerts.mutes.create_mute``: the
  workspace's alerts stop telling of them, the feed still lists them. EDITOR or higher.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import redirect, request, url_for

from ci_service.errors import NotFound, ValidationFailed
from ci_service.services.alerts import change_diff, events, mutes
from ci_service.services.alerts import reads as event_reads
from ci_service.services.battlecards.export import http_url, short_url
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.intel import items as intel
from ci_service.services.workspace import competitors, overview
from ci_service.store.events import IMPORTANCE
from ci_service.timeutil import iso, stored_text, utcnow
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render, safe_next
from ci_service.web.pages.kinds import kind_label, kind_plural

PAGE_SIZE = 50
VIEWS = ("side", "inline")
NOTICES = {
    "read-all": "Marked as read.",
    "muted": "Muted: the workspace's alerts no longer tell of it (this list still shows it).",
}


def _filters(args) -> dict[str, Any]:
    """The feed's filters as the query string has them ("" is no filter)."""
    return {
        "competitorId": (args.get("competitorId") or "").strip(),
        "type": (args.get("type") or "").strip(),
        "importance": (args.get("importance") or "").strip(),
        "unread": args.get("unread") == "1",
    }


def _page_number(value: Any) -> int:
    """``?page=`` as ``overview.page_number`` reads it, at most ``LIST_CAP`` pages deep."""
    number = overview.page_number(value)
    if number > events.LIST_CAP:
        raise ValidationFailed.field("page", f"must be a whole number from 1 to {events.LIST_CAP}")
    return number


def _query(filters: dict[str, Any], **extra: Any) -> str:
    """The filters (and ``extra``) as a query string, empty ones left out."""
    values = {**filters, **extra}
    values["unread"] = "1" if values.get("unread") else ""
    return urlencode({k: v for k, v in values.items() if v not in (None, "", False)})


def _here(filters: dict[str, Any], number: int) -> str:
    query = _query(filters, page=number if number > 1 else None)
    return url_for("pages.changes") + (f"?{query}" if query else "")


def source_of(data: dict[str, Any]) -> dict[str, str] | None:
    """The page a change was read on: the link opening it at the quote when there is one,
    else the page; http(s) only (crawled links can be ``javascript:``)."""
    for key in ("quoteUrl", "url"):
        url = http_url(data.get(key))
        if url:
            return {"url": url, "label": short_url(data.get("url") or url)}
    return None


def item_view(row, names: dict[str, str], read: bool) -> dict[str, Any]:
    """An event as the feed and the detail page show it."""
    data = dict(row.data or {})
    return {
        "id": row.id,
        "type": row.type,
        "kind": kind_label(row.type),
        "kindPlural": kind_plural(row.type),
        "kindClass": row.type.split(".")[-1].replace("_", "-"),
        "title": row.title,
        "summary": row.summary,
        "importance": row.importance,
        "createdAt": iso(row.created_at),
        "competitorId": row.competitor_id,
        "competitorName": names.get(row.competitor_id or ""),
        "source": source_of(data),
        "pageUrl": http_url(data.get("url")),  # what "Mute this page" names
        "quote": str(data.get("quote") or "")[:500],
        "data": data,
        "added": [str(p) for p in data.get("added") or []][:10],
        "removed": [str(p) for p in data.get("removed") or []][:10],
        "evidenceIds": [str(i) for i in row.evidence_ids or [] if i],
        # The record the event tells of: a page of this app (never an outside address).
        "link": row.link if safe_next(row.link) == row.link and row.link != "/" else None,
        "read": read,
    }


def _names(workspace_id: str) -> dict[str, str]:
    return {c.id: c.name for c in competitors.list_competitors(workspace_id)}


@bp.route("/changes", endpoint="changes")
@page(READ)
def changes_page():
    who = principal()
    ws = who.workspace_id
    filters = _filters(request.args)
    number = _page_number(request.args.get("page"))
    options = {
        "event_type": filters["type"] or None,
        "competitor_id": filters["competitorId"] or None,
        "importance": filters["importance"] or None,
        "limit": PAGE_SIZE + 1,  # one more: is there a next page?
        "offset": (number - 1) * PAGE_SIZE,
    }
    unread_for = who.user_id if filters["unread"] else None
    rows = events.list_events(ws, unread_for=unread_for, **options)
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    read = event_reads.read_ids(who.user_id, [r.id for r in rows])
    names = _names(ws)
    done = request.args.get("done", "")
    marked = request.args.get("marked", "")
    notice = NOTICES.get(done)
    if done == "read-all" and marked.isdigit():
        count = int(marked)
        notice = f"{count} change{'' if count == 1 else 's'} marked as read."
    return render(
        "changes.html",
        items=[item_view(r, names, r.id in read) for r in rows],
        competitors=sorted(names.items(), key=lambda pair: pair[1].lower()),
        kinds=[(t, kind_label(t)) for t in events.EVENT_TYPES],
        importances=IMPORTANCE,
        filters=filters,
        page=number,
        # "" (no query at all) for page 1, None when there is no newer page
        prev_query=_query(filters, page=number - 1 if number > 2 else None) if number > 1 else None,
        next_query=_query(filters, page=number + 1) if more else None,
        # Where a read toggle returns: this list, without the last action's notice.
        here=_here(filters, number),
        WRITE=WRITE,
        until=stored_text(utcnow()),
        notice=notice,
        filtered=any(filters.values()),
        # "Mark these as read" when the filters narrow the list (unread-only does not).
        narrowed=bool(filters["competitorId"] or filters["type"] or filters["importance"]),
    )


@bp.route("/changes/read-all", methods=["POST"], endpoint="changes_read_all")
@page(READ)
def mark_all_read():
    who = principal()
    form = request.form
    filters = _filters(form)
    count = event_reads.mark_all_read(
        who.workspace_id,
        who.user_id,
        event_type=filters["type"] or None,
        competitor_id=filters["competitorId"] or None,
        importance=filters["importance"] or None,
        until=form.get("until") or None,
    )
    query = _query(filters, done="read-all", marked=str(count))  # "0", not dropped
    return redirect(url_for("pages.changes") + "?" + query, 303)


@bp.route("/changes/<event_id>/read", methods=["POST"], endpoint="change_read")
@page(READ)
def toggle_read(event_id):
    who = principal()
    read = request.form.get("read", "1") != "0"
    event_reads.set_read(who.workspace_id, who.user_id, event_id, read)
    back = safe_next(request.form.get("next"))
    if back == "/":
        back = url_for("pages.changes")
    return redirect(back, 303)


@bp.route("/changes/mute", methods=["POST"], endpoint="changes_mute")
@page(WRITE)
def mute():
    """Mute this page / Mute <these> from <competitor>: ``services.alerts.mutes.create_mute`` with
    the competitor and the page's URL or the event type. Such a mute silences every
    subscription of the workspace, hence EDITOR (the service checks it too)."""
    form = request.form
    data = {"competitorId": form.get("competitorId") or None}
    if form.get("url"):
        data["url"] = form["url"]
    if form.get("eventType"):
        data["eventType"] = form["eventType"]
    mutes.create_mute(principal().workspace_id, principal(), data)
    back = safe_next(form.get("next")).split("#", 1)[0]
    if back == "/":
        back = url_for("pages.changes")
    return redirect(back + ("&" if "?" in back else "?") + "done=muted", 303)


def _version(workspace_id: str, item_id: Any):
    if not item_id:
        return None
    try:
        return intel.get_intel(workspace_id, str(item_id))
    except NotFound:
        return None  # deleted since (a competitor deleted takes its intel with it)


def _stamp(item) -> dict[str, Any]:
    return {"id": item.id, "at": iso(item.created_at)}


@bp.route("/changes/<event_id>", endpoint="change_detail")
@page(READ)
def change_detail(event_id):
    who = principal()
    ws = who.workspace_id
    view = request.args.get("view") or "side"
    if view not in VIEWS:
        raise ValidationFailed.field("view", "side or inline")
    event = event_reads.get_event(ws, event_id)
    # Opening a change is reading it (the person's own mark; a VIEWER's too).
    event_reads.set_read(ws, who.user_id, event.id, True)
    item = item_view(event, _names(ws), True)
    diff = old = new = None
    if event.type == "competitor.page_changed":
        old = _version(ws, item["data"].get("previousItemId"))
        new = _version(ws, item["data"].get("intelId"))
        if old is not None and new is not None:
            diff = change_diff.diff_texts(old.content, new.content)
            old, new = _stamp(old), _stamp(new)
    return render(
        "changes_detail.html",
        notice=NOTICES["muted"] if request.args.get("done") == "muted" else None,
        item=item,
        diff=diff,
        old=old,
        new=new,
        view=view,
        context_lines=change_diff.CONTEXT,
        here=url_for(
            "pages.change_detail", event_id=event.id, view=None if view == "side" else view
        ),
        WRITE=WRITE,
    )
