"""Company profile from a site snapshot (deterministic rules, documented in the README).

- JSON-LD ``Organization`` (any page, the about page first): ``foundingDate`` → yearFounded,
  ``address`` → headquarters, ``numberOfEmployees`` → employeeCount (a range as "50-200").
- Text of about, company and contact pages (conservative patterns): "founded (in X) in
  1999", "headquartered in Austin, Texas", "120 employees/people/staff", "revenue of $40
  million". JSON-LD wins over text.
- industry: the industry keyword with the most mentions across all pages (at least 2).
- pricingLinks: pages whose URL or title mention pricing, plans or price.
- offeringLinks: product pages (see ``products.is_product_page``).
- newsFeed: feed entries merged with the stored feed, deduplicated by URL (else title),
  newest first, at most 50.

Found values replace stored ones (the website is the source); fields not found are left
alone. Links keep the ``discoveredAt`` of their first discovery.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline.site import NewsEntry, SitePage, SiteSnapshot
from ci_service.timeutil import iso, utcnow

MAX_NEWS = 50
PROFILE_PAGE_WORDS = ("about", "company", "contact", "who-we-are", "our-story", "imprint")
PRICING_WORDS = ("pricing", "plans", "price")
NEWS_PATH = re.compile(r"^/(?:news|press|blog|newsroom)/[^/]+$", re.IGNORECASE)

_FOUNDED = re.compile(
    r"\b(?:founded|established|incorporated|started)\b[^.\n]{0,60}?\b(1[89]\d\d|20[0-9]\d)\b",
    re.IGNORECASE,
)
_HQ = re.compile(
    r"\b(?:headquartered|headquarters\s+(?:is|are)|based|head\s+office\s+is)\s+(?:in|at)\s+"
    r"((?:[A-Z][\w.'-]*)(?:(?:,\s*|\s+)(?:[A-Z][\w.'-]*)){0,4})"
)
_EMPLOYEES = re.compile(
    r"\b((?:over|more than|about|around|nearly)\s+)?(\d{1,3}(?:[,.]\d{3})+|\d+)(\+)?\s+"
    r"(?:employees|people|staff|team members|colleagues)\b",
    re.IGNORECASE,
)
_REVENUE = re.compile(
    r"\b(?:annual\s+)?(?:revenue|revenues|turnover|sales)\s+(?:of|was|were|reached|exceeded|"
    r"topped|:)\s+((?:about|over|more than|nearly)\s+)?([$€£]\s?\d[\d,.]*\s*"
    r"(?:million|billion|thousand|[MBK]n?\b|m\b|bn\b)?)",
    re.IGNORECASE,
)

INDUSTRIES = {
    "Software": ("software", "saas", "platform", "cloud", "app"),
    "Cybersecurity": ("security", "threat", "firewall", "vulnerability"),
    "Financial Services": ("banking", "fintech", "payments", "insurance", "lending"),
    "Healthcare": ("healthcare", "patient", "clinical", "medical"),
    "Manufacturing": ("manufacturing", "industrial", "factory", "factories", "widgets"),
    "E-commerce": ("e-commerce", "ecommerce", "online store", "retail"),
    "Marketing Technology": ("marketing", "campaign", "advertising"),
    "Logistics": ("logistics", "shipping", "freight", "warehouse"),
    "Education": ("education", "learning", "students", "school"),
}


def _profile_pages(snapshot: SiteSnapshot) -> list[SitePage]:
    def score(page: SitePage) -> int:
        where = f"{urlsplit(page.url).path} {page.title}".lower()
        return 0 if any(word in where for word in PROFILE_PAGE_WORDS) else 1

    return sorted(snapshot.pages, key=score)


def _year(value: Any) -> int | None:
    match = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", str(value or ""))
    return int(match.group(1)) if match else None


def _employees(value: Any) -> str | None:
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        low, high = value.get("min"), value.get("max")
        if low is not None and high is not None:
            return f"{low}-{high}"
        return f"{low}+" if low is not None else f"up to {high}" if high is not None else None
    return None


def _json_ld_facts(pages: list[SitePage]) -> dict[str, Any]:
    from ci_service.intel.jsonld import organization_facts

    found: dict[str, Any] = {}
    for page in pages:
        for facts in organization_facts(page.json_ld):
            year = _year(facts.get("foundingDate"))
            if year and "yearFounded" not in found:
                found["yearFounded"] = year
            if facts.get("address") and "headquarters" not in found:
                found["headquarters"] = str(facts["address"])[:500]
            employees = _employees(facts.get("numberOfEmployees"))
            if employees and "employeeCount" not in found:
                found["employeeCount"] = employees
    return found


def _text_facts(pages: list[SitePage]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for page in pages:
        where = f"{urlsplit(page.url).path} {page.title}".lower()
        if not any(word in where for word in PROFILE_PAGE_WORDS) and page.depth > 0:
            continue
        text = page.text
        if "yearFounded" not in found and (match := _FOUNDED.search(text)):
            found["yearFounded"] = int(match.group(1))
        if "headquarters" not in found and (match := _HQ.search(text)):
            found["headquarters"] = match.group(1).strip(" ,.")[:500]
        if "employeeCount" not in found and (match := _EMPLOYEES.search(text)):
            qualifier = (match.group(1) or "").strip()
            number = match.group(2).replace(",", "").replace(".", "")
            count = f"{number}+" if match.group(3) or qualifier in ("over", "more than") else number
            found["employeeCount"] = count
        if "revenue" not in found and (match := _REVENUE.search(text)):
            qualifier = (match.group(1) or "").strip()
            amount = " ".join(match.group(2).split())
            found["revenue"] = f"{qualifier} {amount}".strip()[:500]
    return found


def _industry(snapshot: SiteSnapshot) -> str | None:
    text = " ".join(f"{p.title} {p.text}" for p in snapshot.pages).lower()
    best, best_count = None, 1
    for industry, words in INDUSTRIES.items():
        count = sum(len(re.findall(rf"\b{re.escape(w)}\b", text)) for w in words)
        if count > best_count:
            best, best_count = industry, count
    return best


def _label(page: SitePage) -> str:
    title = re.split(r"\s+[–—|-]\s+", page.title or "", maxsplit=1)[0].strip()
    return (title or page.url)[:500]


def _links(
    pages: list[SitePage], existing: list[dict[str, Any]] | None, now: str
) -> list[dict[str, Any]]:
    known = {link.get("url"): link for link in existing or [] if isinstance(link, dict)}
    out = []
    for page in pages:
        first = known.get(page.url, {}).get("discoveredAt") or now
        out.append({"label": _label(page), "url": page.url, "discoveredAt": first})
    return out


def is_pricing_page(page: SitePage) -> bool:
    where = f"{urlsplit(page.url).path} {page.title}".lower()
    return any(word in where for word in PRICING_WORDS)


def _is_news_article(page: SitePage) -> bool:
    path = urlsplit(page.url).path.rstrip("/")
    return bool(NEWS_PATH.match(path))


def news_entries(snapshot: SiteSnapshot) -> list[NewsEntry]:
    """Feed entries, then news/press/blog article pages that no feed entry covers."""
    entries = list(snapshot.news)
    seen = {e.url for e in entries if e.url}
    host = urlsplit(snapshot.start_url).hostname or ""
    for page in snapshot.pages:
        if _is_news_article(page) and page.url not in seen:
            seen.add(page.url)
            summary = page.description or next(
                (line for _h, _l, text in page.sections for line in text.splitlines() if line),
                "",
            )
            title = re.split(r"\s+[–—|]\s+", page.title or "", maxsplit=1)[0].strip()
            entries.append(NewsEntry(title or page.url, page.url, None, summary[:2000], host, ""))
    return entries


def news_feed(snapshot: SiteSnapshot, existing: list[dict[str, Any]] | None) -> list[dict]:
    """News entries merged into ``existing``: deduplicated, newest first, capped."""
    items: dict[str, dict[str, Any]] = {}
    fresh = [
        {
            "date": entry.published.date().isoformat() if entry.published else "",
            "title": entry.title[:500],
            "url": entry.url,
            "summary": entry.summary[:2000],
            "source": (entry.source or urlsplit(snapshot.start_url).hostname or "")[:500],
        }
        for entry in news_entries(snapshot)
    ]
    for item in fresh + list(existing or []):
        if not isinstance(item, dict):
            continue
        key = (item.get("url") or item.get("title") or "").strip().casefold()
        if key and key not in items:
            items[key] = {k: v for k, v in item.items() if not (k == "url" and not v)}
    ordered = sorted(items.values(), key=lambda i: str(i.get("date") or ""), reverse=True)
    return ordered[:MAX_NEWS]


def extract_profile(
    snapshot: SiteSnapshot, existing: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The companyProfile fields found in the snapshot (to merge into the stored one)."""
    from ci_service.pipeline.products import is_product_page

    existing = existing or {}
    pages = _profile_pages(snapshot)
    profile = {**_text_facts(pages), **_json_ld_facts(pages)}
    industry = _industry(snapshot)
    if industry:
        profile["industry"] = industry
    now = iso(utcnow())
    pricing = [p for p in snapshot.pages if is_pricing_page(p)]
    if pricing:
        profile["pricingLinks"] = _links(pricing, existing.get("pricingLinks"), now)
    products = [p for p in snapshot.pages if is_product_page(p)]
    if products:
        profile["offeringLinks"] = _links(products, existing.get("offeringLinks"), now)
    feed = news_feed(snapshot, existing.get("newsFeed"))
    if feed:
        profile["newsFeed"] = feed
    return profile


def save_competitor_profile(workspace_id: str, competitor_id: str, profile: dict) -> Any:
    """Merge ``profile`` into the competitor's companyProfile through the resource service."""
    from ci_service.services.competitors import update_competitor

    if not profile:
        return None
    return update_competitor(workspace_id, competitor_id, {"companyProfile": profile})
