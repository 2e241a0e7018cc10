"""The customers and partners one page names, for the profile (``pipeline.profile.extract``).

Which page is read for what: customer stories' opening sentences on customer-story pages
(kind ``customer``, or a path such as /customers/, /case-studies/, /testimonials/) and
profile pages; story headlines on customer-story pages; logo walls and partner rows there
and on the home page, and on any other page (not a post, a legal or a careers page) the
cards that link to their customer stories; testimonials on the home, about, product,
pricing and customer-story pages, unless the page is about partners, the press or
investors (their quotes are not customers'); a page of its own in a partners folder
(/partners/<name>/) names that partner; a sentence stating a partner level, a partnership
or a membership names a partner on any such page (``partner_prose``). The names come in
that order: a story names a customer more surely than a logo, a logo more surely than a
testimonial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ci_service.intel.urls import path_segments
from ci_service.pipeline import page_kind_names as kinds
from ci_service.pipeline.customers.pages import is_customer_page, partner_page
from ci_service.pipeline.customers.partner_prose import prose_partners
from ci_service.pipeline.customers.records import Named, customers_and_partners
from ci_service.pipeline.customers.stories import customers_using_us, story_headlines
from ci_service.pipeline.customers.testimonials import testimonial_customers
from ci_service.pipeline.evidence import sentence_at
from ci_service.pipeline.records import record_sets
from ci_service.pipeline.site import SitePage

_TESTIMONIAL_KINDS = frozenset(
    {kinds.HOME, kinds.ABOUT, kinds.PRODUCT, kinds.PRICING, kinds.CUSTOMER}
)
_NO_CARDS_KINDS = kinds.NO_FACTS | kinds.NEWS_KINDS | {kinds.CAREERS, kinds.TEAM}
_NOT_CUSTOMERS_PAGE = re.compile(r"\b(?:partners?|press|media|investors?|presse|medien)\b", re.I)


@dataclass
class PageCustomers:
    customer_page: bool
    customers: Named = field(default_factory=list)
    partners: Named = field(default_factory=list)
    # Names the site calls its own ("Acme-owned platform"): no customer on any page.
    owned: list[str] = field(default_factory=list)


def page_customers(page: SitePage, rank: int, aliases: list[str]) -> PageCustomers:
    """What ``page`` (of profile rank ``rank``: 0 a profile page, 1 the home page) says
    about customers and partners; see the module docstring."""
    found = PageCustomers(is_customer_page(page))
    text = page.text or ""
    kind = page.kind or ""
    where = " ".join([page.title or "", *path_segments(page.url)])
    testimonials = kind in _TESTIMONIAL_KINDS and not _NOT_CUSTOMERS_PAGE.search(where)
    # The page's record sets, read once for the logo walls and the testimonials.
    reads_sets = found.customer_page or rank <= 1 or kind not in _NO_CARDS_KINDS
    sets = record_sets(page.html, page.url) if reads_sets or testimonials else []
    if found.customer_page or rank == 0:
        for name, (start, end) in customers_using_us(text, aliases):
            found.customers.append((name, sentence_at(text, start, end)))
    if found.customer_page:
        found.customers.extend(story_headlines(page, aliases))
    if reads_sets:
        stories_only = not (found.customer_page or rank <= 1)
        named = customers_and_partners(page, aliases, stories_only=stories_only, sets=sets)
        found.customers.extend(named.customers)
        found.partners.extend(named.partners)
        found.owned.extend(named.owned)
    if partner := partner_page(page):
        found.partners.append(partner)
    if kind not in _NO_CARDS_KINDS:
        found.partners.extend(prose_partners(text, aliases))
    if testimonials:
        found.customers.extend(testimonial_customers(page, aliases, sets))
    return found
