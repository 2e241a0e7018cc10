"""A battlecard as a document: Markdown and a standalone HTML page.

Both are built from the dict REST answers for ``GET /api/battlecards/{id}?includeEvidence=
true`` (``battlecard_to_dict`` and ``evidence_map``), plus the two names, so the export, the
page and the API never differ. ``sections(view)`` is the one reading of the content that the
page template and both formats walk: every section in order, each item with its text, its
hand-edit marker and its evidence (the quote, the link that opens the page at it, the page
title and the date the evidence was collected).

Crawled text is hostile: the HTML document escapes every text and links only to http(s)
addresses; its one inline style block is allowed by hash (``html_csp``), never a script.
Markdown escapes the characters that would make links, emphasis or raw HTML.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ci_service.errors import ValidationFailed
from ci_service.services.battlecards import cards as battlecards
from ci_service.store.competitors import Competitor
from ci_service.store.resources import Offering

FORMATS = {"markdown": ("text/markdown", "md"), "html": ("text/html", "html")}
# An objection none of our facts answers (battlecard_objections.py) says so.
NO_ANSWER = "no answer on file"
# (content key, heading, kind); kinds: claims {title, description}, objections {objection,
# response}, landmines (strings), text (one string, its quotes under <key>Quotes).
SECTIONS = (
    ("whyWeWin", "Why we win", "claims"),
    ("whyWeLose", "Why we lose", "claims"),
    ("objections", "Objections", "objections"),
    ("talkingPoints", "Talking points", "claims"),
    ("killShot", "Kill shot", "text"),
    ("landmines", "Landmines", "landmines"),
    ("pricingWedge", "Pricing wedge", "text"),
)
TEXT_QUOTES = {"killShot": "killShotQuotes", "pricingWedge": "pricingWedgeQuotes"}


@dataclass(frozen=True)
class Export:
    body: str
    mimetype: str
    filename: str

    def headers(self, disposition: str = "inline") -> dict[str, str]:
        """The answer's headers: its file name, and for HTML the policy that lets its own
        style block (and nothing else) apply."""
        out = {"Content-Disposition": f'{disposition}; filename="{self.filename}"'}
        if self.mimetype == "text/html":
            out["Content-Security-Policy"] = html_csp()
        return out


# -- the card as REST shows it, read once ----------------------------------------------


def card_view(workspace_id: str, battlecard_id: str) -> dict[str, Any]:
    """``{battlecard, evidence}`` exactly as REST answers with includeEvidence=true, plus
    ``competitorName`` and ``productName``. 404 for a card not in the workspace."""
    row = battlecards.get_battlecard(workspace_id, battlecard_id)
    competitor = Competitor.get_or_none(
        (Competitor.id == row.competitor_id) & (Competitor.workspace == workspace_id)
    )
    product = Offering.get_or_none(
        (Offering.id == row.my_product_id) & (Offering.workspace == workspace_id)
    )
    return {
        "battlecard": battlecards.battlecard_to_dict(row),
        "evidence": battlecards.evidence_map(workspace_id, row),
        "competitorName": competitor.name if competitor else "",
        "productName": product.name if product else "",
    }


def http_url(url: Any) -> str | None:
    """``url`` when it is an absolute http(s) address (crawled links can be javascript:)."""
    text = str(url or "").strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    return text if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def short_url(url: Any, limit: int = 48) -> str:
    """``host/path`` without scheme, query or text fragment, cut to ``limit`` characters."""
    text = http_url(url)
    if text is None:
        return ""
    parts = urlsplit(text)
    short = (parts.netloc + parts.path).rstrip("/")
    short = short[4:] if short.startswith("www.") else short
    return short if len(short) <= limit else short[: limit - 1] + "…"


def _day(stamp: Any) -> str:
    return str(stamp or "")[:10]


def _quotes(citations: Any, evidence: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for citation in citations or []:
        if not isinstance(citation, dict):
            continue
        record = evidence.get(citation.get("evidenceId")) or {}
        url = http_url(citation.get("url")) or http_url(record.get("url"))
        out.append(
            {
                "evidenceId": citation.get("evidenceId"),
                "quote": str(citation.get("quote") or ""),
                "url": url,
                "shortUrl": short_url(url),
                "title": str(record.get("title") or "") or short_url(url) or "source",
                "collected": _day(record.get("collectedAt")),
                "stored": bool(record),
            }
        )
    return out


def sections(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every section in order: ``{key, heading, kind, entries}``, each item ``{index, title,
    text, quotes, sources, edit}`` (``sources``: the short addresses of its evidence, for
    print; ``edit``: ``{editedAt, editedBy}`` or None)."""
    card = view["battlecard"]
    content, evidence = card["content"], view.get("evidence") or {}
    edits = {(e["section"], e["index"]): e for e in card.get("edits") or []}
    out = []
    for key, heading, kind in SECTIONS:
        items = []
        if kind == "text":
            if content.get(key) or (key, 0) in edits:
                quotes = _quotes(content.get(TEXT_QUOTES[key]), evidence)
                items.append(_item(0, "", content.get(key), quotes, edits.get((key, 0))))
        else:
            for index, entry in enumerate(content.get(key) or []):
                if kind == "landmines":
                    title, text, cited = "", entry, []
                elif kind == "objections":
                    title, text = entry.get("objection"), entry.get("response")
                    cited = entry.get("quotes")
                else:
                    title, text = entry.get("title"), entry.get("description")
                    cited = entry.get("quotes")
                quotes = _quotes(cited, evidence)
                items.append(_item(index, title, text, quotes, edits.get((key, index))))
        out.append({"key": key, "heading": heading, "kind": kind, "entries": items})
    return out


def _item(index, title, text, quotes, edit) -> dict[str, Any]:
    return {
        "index": index,
        "title": str(title or ""),
        "text": str(text or ""),
        "quotes": quotes,
        "sources": list(dict.fromkeys(q["shortUrl"] or q["title"] for q in quotes)),
        "edit": {"editedAt": edit["editedAt"], "editedBy": edit["editedBy"]} if edit else None,
    }


def title_of(view: dict[str, Any]) -> str:
    competitor = view.get("competitorName") or "Competitor"
    product = view.get("productName") or "our product"
    return f"{competitor} vs {product}"


# -- Markdown ---------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def _md(text: Any) -> str:
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text or "").split()))


def _md_url(url: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in " <>()" else c for c in url)


def _md_quote(quote: dict[str, Any]) -> str:
    source = _md(quote["title"])
    if quote["url"]:
        source = f"[{source}]({_md_url(quote['url'])})"
    when = f", collected {quote['collected']}" if quote["collected"] else ""
    return f"“{_md(quote['quote'])}” ({source}{when})"


def to_markdown(view: dict[str, Any]) -> str:
    card = view["battlecard"]
    lines = [f"# Battlecard: {_md(title_of(view))}", ""]
    meta = f"Mode: {card['mode']} · Status: {card['status']}"
    if card.get("generatedAt"):
        meta += f" · Generated: {_day(card['generatedAt'])}"
    lines += [meta, ""]
    for section in sections(view):
        lines += [f"## {section['heading']}", ""]
        if not section["entries"]:
            lines += ["_Nothing yet._", ""]
            continue
        for item in section["entries"]:
            edited = " _(edited)_" if item["edit"] else ""
            if section["kind"] == "text":
                lines.append(f"{_md(item['text'])}{edited}")
                lines += [f"- Evidence: {_md_quote(q)}" for q in item["quotes"]]
                continue
            if section["kind"] == "objections":
                answer = _md(item["text"] or NO_ANSWER)
                head = f"**Objection:** {_md(item['title'])} **Response:** {answer}"
            elif item["title"]:
                head = f"**{_md(item['title'])}**: {_md(item['text'])}"
            else:
                head = _md(item["text"])
            lines.append(f"- {head}{edited}")
            lines += [f"  - Evidence: {_md_quote(q)}" for q in item["quotes"]]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# -- HTML -------------------------------------------------------------------------------

HTML_STYLE = (
    "body{font:14px/1.45 system-ui,sans-serif;color:#1d2433;max-width:60rem;margin:1.5rem auto;"
    "padding:0 1rem}h1{font-size:1.5rem}h2{font-size:1.1rem;margin:1.2rem 0 .4rem}"
    "ul{padding-left:1.2rem}li{margin:.35rem 0}blockquote{margin:.2rem 0;padding:.1rem .6rem;"
    "border-left:3px solid #d9dee7;color:#5b6475}.edited{font-size:.8em;color:#a15c00}"
    ".muted{color:#5b6475}@media print{body{font-size:9.5pt;margin:0;max-width:none}"
    "a{color:inherit}}"
)


def html_csp() -> str:
    """The Content-Security-Policy of the HTML export: its own style block, nothing else."""
    digest = base64.b64encode(hashlib.sha256(HTML_STYLE.encode()).digest()).decode()
    return (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src 'none'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def _h(text: Any) -> str:
    return html.escape(str(text or ""), quote=True)


def _html_quote(quote: dict[str, Any]) -> str:
    source = _h(quote["title"])
    if quote["url"]:
        source = f'<a href="{_h(quote["url"])}" rel="noopener noreferrer">{source}</a>'
    when = f", collected {_h(quote['collected'])}" if quote["collected"] else ""
    return f"<blockquote>“{_h(quote['quote'])}” ({source}{when})</blockquote>"


def to_html(view: dict[str, Any]) -> str:
    card = view["battlecard"]
    title = _h(title_of(view))
    meta = f"Mode: {_h(card['mode'])} · Status: {_h(card['status'])}"
    if card.get("generatedAt"):
        meta += f" · Generated: {_h(_day(card['generatedAt']))}"
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Battlecard: {title}</title><style>{HTML_STYLE}</style></head><body>",
        f"<h1>Battlecard: {title}</h1>",
        f'<p class="muted">{meta}</p>',
    ]
    for section in sections(view):
        parts.append(f"<section><h2>{_h(section['heading'])}</h2>")
        if not section["entries"]:
            parts.append('<p class="muted">Nothing yet.</p></section>')
            continue
        tag = "div" if section["kind"] == "text" else "ul"
        parts.append(f"<{tag}>")
        for item in section["entries"]:
            edited = ' <span class="edited">(edited)</span>' if item["edit"] else ""
            if section["kind"] == "objections":
                head = (
                    f"<strong>Objection:</strong> {_h(item['title'])}<br>"
                    f"<strong>Response:</strong> {_h(item['text'] or NO_ANSWER)}"
                )
            elif item["title"]:
                head = f"<strong>{_h(item['title'])}</strong>: {_h(item['text'])}"
            else:
                head = _h(item["text"])
            quotes = "".join(_html_quote(q) for q in item["quotes"])
            inner = f"{head}{edited}{quotes}"
            parts.append(f"<p>{head}{edited}</p>{quotes}" if tag == "div" else f"<li>{inner}</li>")
        parts.append(f"</{tag}></section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# -- the export -------------------------------------------------------------------------


def check_format(fmt: Any) -> str:
    """``markdown`` when none is given; 400 naming ``format`` for an unknown one."""
    if fmt is None or fmt == "":
        return "markdown"
    if fmt not in FORMATS:
        raise ValidationFailed.field("format", f"must be one of {', '.join(FORMATS)}")
    return fmt


def export(workspace_id: str, battlecard_id: str, fmt: Any = None) -> Export:
    """The card as a document in ``fmt`` (markdown or html); 400 naming ``format``, 404 for a
    card not in the workspace."""
    fmt = check_format(fmt)
    view = card_view(workspace_id, battlecard_id)
    body = to_markdown(view) if fmt == "markdown" else to_html(view)
    mimetype, extension = FORMATS[fmt]
    return Export(body, mimetype, f"battlecard-{view['battlecard']['id']}.{extension}")
