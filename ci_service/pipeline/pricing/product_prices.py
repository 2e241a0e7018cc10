"""A product page that states one price: that product's price.

Sites without a pricing page often close each product page with what it costs ("Ab 12 € pro
Monat", "From $49 a month", "€900 per seat"). A page of kind ``product``
that is not read as a pricing page, whose text states exactly one price with a period or a
unit in a short sentence (twelve words at most, not a quotation, a saving or shop plumbing),
gives one plan named after the product (the page's first heading, else its title before
" – " or " | "), cited by that sentence. A page with two or more different prices is a price
list or an article, and gives none here.
"""

from __future__ import annotations

import re

from ci_service.pipeline.evidence import sentences
from ci_service.pipeline.pricing.drafts import PlanDraft, plans_from_price
from ci_service.pipeline.pricing.money import page_money, prices
from ci_service.pipeline.site import SitePage

MAX_LINE_WORDS = 12
_TITLE_SPLIT = re.compile(r"\s+[|–—-]\s+")


def _product_name(page: SitePage) -> str:
    heading = next((h for h, level, _t in page.sections if level == 1 and h.strip()), "")
    if heading and len(heading.split()) <= 5:
        return " ".join(heading.split())
    parts = [p.strip() for p in _TITLE_SPLIT.split(page.title or "") if p.strip()]
    # "Acme – Radar": the part that is not the site's name (the last).
    return parts[-1] if parts else ""


def product_page_plans(page: SitePage) -> list[PlanDraft]:
    """The one price a product page states, as a plan named after the product."""
    if (page.kind or "") != "product":
        return []
    with page_money(page.text, page.language):
        found = []
        for line in sentences(page.text):
            line = " ".join(line.split())
            if not line or len(line.split()) > MAX_LINE_WORDS:
                continue
            for price in prices(line):  # none in a quotation or shop plumbing
                found.append((line, price))
    amounts = {(p.amount, p.currency) for _line, p in found}
    if len(amounts) != 1:
        return []
    line, price = found[0]
    name = _product_name(page)
    if not name or not (price.period or price.unit):
        return []
    return plans_from_price(name[:200], [price], page.url, line)
