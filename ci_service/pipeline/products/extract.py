"""Products of a competitor from a site snapshot, stored as the competitor's offerings.

Deterministic rules (docs/pipeline.md); pages under blog, news, press, insights,
tag/category, author, careers, legal, integration, docs, pricing, about/company/team,
contact and login paths (and dated paths such as ``/2020/05/``) are never product pages,
and neither are pages whose kind (``SitePage.kind``, ``page_kinds``) is legal, utility,
archive, post, news list, careers, team, contact, customer or about
(``product_sources.NO_OFFERING_KINDS``; pricing pages give no features either). A shop
item page selling a payment, fee or deposit is not a product. Products come from, in
this order:

1. product pages: a page with a schema.org Product/SoftwareApplication/Service in its
   JSON-LD, or whose path sits below ``/product(s)/``, ``/solution(s)/`` or
   ``/platform(s)/`` (the listing page itself is not a product). Name: JSON-LD ``name``,
   else the h1, else the title before " – " or " | ".
2. the site's menus (``product_layout.menus``): the links under a Products / Platform /
   Solutions menu of the navigation or a footer column, except links back to the menu's
   own page or the home page, other sites, excluded paths, generic words ("Pricing",
   "Hardware", "Overview") and "For <audience>" solutions. An entry is a product only when
   its page is a product page (by kind, when pages have one) and the site's text uses its
   name as a name (``product_sources.in_prose``: not only in headings and menus).
2b. menus of any label (``product_extras.navigation``, pages with kinds): see there.
3. cards and sections of the home page and of product listing pages (``/products/``, the
   target of a plural Products link): a name-like heading (one to six words, not a
   sentence, a call to action or only generic words; leading numbers dropped) with a short
   text and a link that names it ("More about X"), whose path shares a word with it, or
   whose page's title holds it.
4. the company itself: when the site has a single "Product"/"Platform" page in its menu,
   or nothing else was found, and its home or product page says what the company's
   product is ("<Company> is a low-code platform ...", "build with <Company>"), a product
   named like the company (``company_name`` spelled as the site spells it, or the site
   name shared by the page titles; without its legal form; or its first word when the
   text uses that word as a product: "the Acme can ...", a page headed "Acme Features"),
   described by that sentence.
5. bundles: a plan line "<Product> + <Other>" on a pricing page (``product_extras.bundles``).

A name the text mostly writes after the company's ("Acme Flow" for "Flow") takes that form;
a label naming the kind two products share ("Cloudsuites") is no product.

A product's ``cite`` is the sentence of the page text that names it (its own page first,
a sentence that starts with or defines the name preferred); a name no page text holds is
not a product. ALL-CAPS names take the case the text uses.

Features (``product_features``) come from the product's own pages: card grids (three or
more "heading + short text" or "heading + list" cards at one level), name/description
pairs, lists under a feature heading, and without HTML the lines under feature headings
or three or more h2/h3 headings with a text; also the home page blocks that link to a
product's own pages; on a page that presents
several products, a feature goes to the products its surrounding headings name, else to
all of them. Pages under ``/features/`` and the links of a Features menu are features of a
single-product company. Never features: navigation, footer, cookie text, calls to action,
prices, dates, quotations, bylines, comment forms, post meta, site chrome ("Reviews",
"Related products"), and cards under audience/FAQ/partner/pricing/press headings. Each
feature dict carries a ``"cite"`` (the verbatim line it was read from). Descriptions:
JSON-LD, the meta description (unless most pages share it), the card's text, a sentence
whose subject is the product, else the provider's summary of the page.
valueProps: JSON-LD offers ("Plan: 49 USD") and the lines or cards under why/benefit
headings. Categories: JSON-LD category plus ``taxonomy.CATEGORY_KEYWORDS``.

Saving (``save_products`` in ``services/collection/product_store.py``) matches existing
offerings of the competitor by name (case-insensitive): a match is updated (its features
keep their ids), anything else is created, one transaction each. With an ``EvidenceMap``,
each feature keeps ``evidenceIds``/``quotes`` from its cite, a feature whose cite does not
resolve is dropped, and a product with neither a resolving cite nor a resolving feature is
not saved; the ``cite`` key never reaches storage.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline import taxonomy
from ci_service.pipeline.evidence import Cite, sentences
from ci_service.pipeline.products import extras as extras
from ci_service.pipeline.products import features as found_features
from ci_service.pipeline.products import layout as layout
from ci_service.pipeline.products import sources as src
from ci_service.pipeline.products.grids import grid_offerings
from ci_service.pipeline.products.names import (
    GENERIC_WORDS,
    cite_for,
    heading_name,
    host_of,
    mention,
    name_ok,
    name_pattern,
    natural_case,
    same_words,
    site_name,
    slug_words,
)
from ci_service.pipeline.products.record_features import record_features
from ci_service.pipeline.site import SitePage, SiteSnapshot

# Product folders in English, Serbian/Croatian, German, French and Spanish.
_PRODUCT_FOLDERS = (
    r"products?|solutions?|platforms?|proizvodi|proizvod|re\u0161enja|rje\u0161enja|produkte?|"
    r"l\u00f6sungen|produits?|solutions|productos?|soluciones"
)
PRODUCT_PATH = re.compile(rf"^/(?:{_PRODUCT_FOLDERS})/[^/]+", re.IGNORECASE)
LISTING_PATH = re.compile(rf"^/(?:{_PRODUCT_FOLDERS})/?$", re.IGNORECASE)
FEATURE_PATH = re.compile(r"^/features?/[^/]+", re.IGNORECASE)
NOT_PRODUCT_SEGMENTS = frozenset(
    """blog blogs news press newsroom media insights articles article posts post stories
    updates changelog tag tags category categories topics author authors archive archives
    careers career jobs job legal privacy privacy-policy terms terms-of-service terms-of-use
    tos cookies cookie-policy gdpr imprint impressum security-policy integration integrations
    integrationcategories connectors marketplace plugins extensions docs documentation help
    support kb faq faqs events webinars webinar podcast videos resources case-studies
    customers partners pricing plans contact login signin sign-in signup sign-up register
    thankyou thank-you search about about-us company team people investors investment
    404""".split()
)
DATED = re.compile(r"/(?:19|20)\d{2}/(?:0?[1-9]|1[0-2])/")
MAX_FEATURES = 60
MAX_PRODUCTS = 25


@dataclass
class ProductDraft:
    name: str
    url: str
    description: str = ""
    features: list[dict[str, Any]] = field(default_factory=list)
    categories: list[dict[str, str]] = field(default_factory=list)
    value_props: list[str] = field(default_factory=list)
    cite: Cite | None = None  # the sentence that names (or describes) the product
    pages: list[str] = field(default_factory=list)  # the pages its features are read from


# -- pages -----------------------------------------------------------------------------------


def _path(url: str) -> str:
    try:
        return urlsplit(url).path or "/"
    except ValueError:
        return "/"


def excluded(url: str) -> bool:
    """A blog/news post, tag or category listing, careers, legal, integration, docs,
    pricing, company or account page: never a product."""
    path = _path(url).lower()
    segments = [s for s in path.split("/") if s]
    return bool(set(segments) & NOT_PRODUCT_SEGMENTS) or bool(DATED.search(path + "/"))


def _json_ld_products(page: SitePage) -> list[dict[str, Any]]:
    from ci_service.intel.jsonld import product_facts

    try:
        return [p for p in product_facts(page.json_ld) if p.get("name")]
    except (TypeError, ValueError, AttributeError):  # hostile JSON-LD: no products
        return []


def is_product_page(page: SitePage) -> bool:
    """A page that names its own product: JSON-LD Product, or a path below /products/ (no
    excluded path, and not a page whose kind gives no features)."""
    return _names_product(page)


def _names_product(page: SitePage) -> bool:
    if excluded(page.url) or src.blocked(page, features=True):
        return False
    if _json_ld_products(page):
        return True
    return bool(PRODUCT_PATH.match(_path(page.url).rstrip("/") + "/"))


def _summary(page: SitePage) -> str:
    """The page's prose (lines of five words or more), summarised by the LLM provider
    (by default: its first sentences, at most 500 characters)."""
    from ci_service.pipeline.llm import get_provider

    prose = [
        line.strip()
        for _heading, _level, text in page.sections
        for line in text.splitlines()
        if len(line.split()) >= 5 and not layout.junk(line)
    ]
    return get_provider().summarize("\n".join(prose[:20]), max_chars=500) if prose else ""


# -- discovery -------------------------------------------------------------------------------


class _Finder:
    """One snapshot's products: candidates by name, then features per page."""

    def __init__(self, snapshot: SiteSnapshot, company_name: str) -> None:
        self.pages: list[SitePage] = []
        for page in snapshot.pages:
            if not any(layout.same_page(page.url, p.url) for p in self.pages[-200:]):
                self.pages.append(page)
        self.home = next((p for p in self.pages if p.depth == 0), None) or (
            self.pages[0] if self.pages else None
        )
        self.host = host_of(self.home.url) if self.home else ""
        self.site = site_name(snapshot, company_name)
        self.drafts: dict[str, ProductDraft] = {}
        self._cards: dict[str, list[layout.Card]] = {}
        self.main_pages: list[SitePage] = []
        self.listings: list[SitePage] = [p for p in self.pages if LISTING_PATH.match(_path(p.url))]
        self.feature_links: list[tuple[str, str]] = []
        self.kinds = src.kinds_known(self.pages)  # pages carry their kind (page_kinds)
        # A meta description most pages share describes the site, not the page.
        shared = Counter(p.description.strip() for p in self.pages if p.description)
        self.site_wide = {d for d, n in shared.items() if n >= 3 and n * 4 >= len(self.pages)}

    def described(self, page: SitePage) -> str:
        description = (page.description or "").strip()
        return "" if description in self.site_wide else description

    def page(self, url: str) -> SitePage | None:
        return next((p for p in self.pages if layout.same_page(p.url, url)), None)

    def cards(self, page: SitePage) -> list[layout.Card]:
        if page.url not in self._cards:
            html = getattr(page, "html", "") or ""
            self._cards[page.url] = layout.cards(layout.blocks(html, page.url)) if html else []
        return self._cards[page.url]

    def internal(self, url: str) -> bool:
        host = host_of(url)
        return bool(host) and (host == self.host or host.endswith("." + self.host))

    def add(self, name: str, url: str, description: str, pages: list[str]) -> str | None:
        """Add (or complete) the product ``name``; returns its key, None when no name."""
        name = " ".join(name.split()).strip(" -–—:")
        if not name_ok(name):
            return None
        name = src.prefixed(natural_case(name, self.pages), self.site, self.pages)
        key = taxonomy.normalize(name)
        draft = self.drafts.get(key)
        if draft is None:
            if len(self.drafts) >= MAX_PRODUCTS:
                return None
            self.drafts[key] = ProductDraft(name[:200], url, description[:2000], pages=pages)
            return key
        draft.description = draft.description or description[:2000]
        draft.pages.extend(u for u in pages if u not in draft.pages)
        return key

    # -- sources, in order ---------------------------------------------------------------

    def product_pages(self) -> None:
        for page in self.pages:
            if not _names_product(page):
                continue
            facts = next(iter(_json_ld_products(page)), {})
            name = (facts.get("name") or heading_name(page)).strip()
            if src.shop_plumbing(page, name):
                continue
            if self.kinds and not facts and not src.in_prose(name, self.pages, self.site):
                continue  # a heading ("Press Kit") the text never uses as a name
            description = facts.get("description") or self.described(page)
            self.add(name, page.url, description, [page.url])

    def menus(self) -> None:
        source = next((p for p in [self.home, *self.pages] if p and getattr(p, "html", "")), None)
        if source is None:
            self._links_fallback()
            return
        for menu in layout.menus(source.html, source.url):
            label = menu.label.casefold()
            if not menu.items:
                target = self.page(menu.url) if menu.url else None
                if target is None or (self.home and layout.same_page(target.url, self.home.url)):
                    continue
                if src.blocked(target, features=True):
                    continue
                if label.endswith("s") and label != "features":
                    self.listings.append(target)  # "Products" -> the listing page
                elif target not in self.main_pages:
                    self.main_pages.append(target)  # "Product" -> the one product's page
                continue
            if label.startswith("feature") and menu.url:
                extras.feature_page(self, menu.url)
            # A menu of services or treatments: an entry is one when its page is a product
            # page headed by its name (services are seldom proper nouns).
            services = not re.match(r"(?:our\s+)?(?:product|platform|solution|feature)", label)
            for url, text in menu.items:
                if not self.internal(url) or excluded(url):
                    continue
                if (menu.url and layout.same_page(url, menu.url)) or (
                    self.home and layout.same_page(url, self.home.url)
                ):
                    continue
                if label.startswith("feature"):
                    self.feature_links.append((url, text))
                    continue
                if label.startswith("solution") and re.match(r"(?i)^(?:for|by)\b", text):
                    continue
                self.menu_product(text, url, self.page(url), strict=services, headed=services)

    def menu_product(
        self,
        text: str,
        url: str,
        target: SitePage | None,
        *,
        strict: bool = False,
        headed: bool = False,
    ) -> str | None:
        """A menu entry is a product when its page may present one (by its kind, when pages
        have one: not a company, news, legal ... page; ``strict``, for menus of any label: a
        product page; an entry whose page was not read counts only under /products/) and
        the site's text uses its name as a name (``product_sources.in_prose``); ``headed``,
        for menus of services: its page is headed by its name instead."""
        if self.kinds and (
            (target is None and not PRODUCT_PATH.match(_path(url).rstrip("/") + "/"))
            or (target is not None and src.blocked(target, features=True))
            or (target is not None and strict and src.kind_of(target) != "product")
        ):
            return None
        name = natural_case(" ".join(text.split()).strip(" -–—:"), self.pages)
        if not name_ok(name) or (target is not None and src.shop_plumbing(target, name)):
            return None
        own_heading = headed and target is not None and same_words(heading_name(target), name)
        if headed and not own_heading:
            return None
        if (
            not own_heading
            and src.in_prose(name, [p for p in [target, *self.pages] if p], self.site) is None
        ):
            return None
        description = self.described(target) if target else ""
        return self.add(name, url, description, [target.url] if target else [])

    def _links_fallback(self) -> None:
        """Without HTML: a link named "Product"/"Platform" is the one product's page."""
        for url, text in (self.home.links if self.home else [])[:200]:
            target = self.page(url) if re.match(r"(?i)^(?:product|platform)$", text) else None
            if target and target not in self.main_pages and not excluded(target.url):
                self.main_pages.append(target)

    def cards_of(self, page: SitePage) -> None:
        for card in self.cards(page):
            name = layout.strip_numbering(card.heading)
            if not name_ok(name) or not any(len(t.split()) >= 4 for t in card.texts):
                continue
            description = next(t for t in card.texts if len(t.split()) >= 4)
            if layout.junk(description):
                continue
            named = taxonomy.normalize(name)
            # The company's own name in a link's path says nothing about which card it is.
            words = set(named.split()) - GENERIC_WORDS - set(taxonomy.normalize(self.site).split())
            matched, pages = False, []
            for url, text in card.links:
                if not self.internal(url) or excluded(url):
                    continue
                target = self.page(url)
                if target is not None and src.blocked(target):
                    continue
                if target is not None and not layout.same_page(target.url, page.url):
                    pages.append(target.url)
                title = taxonomy.normalize(target.title if target else "")
                if (
                    named in taxonomy.normalize(text)
                    or words & slug_words(url)
                    or (title and named in title)
                ):
                    matched = True
            if matched:
                self.add(name, pages[0] if pages else page.url, description, pages[:1])

    def company_product(self) -> None:
        if not self.site or self.home is None or (self.drafts and not self.main_pages):
            return
        if any(_names_product(p) for p in self.main_pages):
            return  # the product page names its product (JSON-LD)
        extras.company_product(self)

    # -- features ------------------------------------------------------------------------

    def features(self) -> None:
        on_page: dict[str, list[ProductDraft]] = {}
        for draft in self.drafts.values():
            for url in draft.pages:
                on_page.setdefault(url, []).append(draft)
        for url, drafts in on_page.items():
            page = self.page(url)
            if page is None or src.blocked(page, features=True):
                continue
            cards = self.cards(page)
            self.read_features(page, cards, drafts)
            benefits = (
                found_features.benefit_lines(cards)
                if cards
                else found_features.section_benefits(page.sections)
            )
            for draft in drafts:
                draft.value_props.extend(benefits)
        extras.linked_features(self)
        if len(self.drafts) == 1:
            self._single_product_features(next(iter(self.drafts.values())))

    def read_features(
        self, page: SitePage, cards: list[layout.Card], drafts: list[ProductDraft]
    ) -> None:
        found = found_features.html_features(cards) if cards else []
        if not found and not getattr(page, "html", ""):
            found = found_features.section_features(page.sections)
        if getattr(page, "html", ""):
            known = {f.name.casefold() for f in found}
            found += record_features(page.html, page.url, known)
        for feature in found:
            named = [d for d in drafts if name_pattern(d.name).search(feature.scope)]
            item = taxonomy.feature_item(feature.name, feature.description[:2000])
            item["cite"] = cite_for(page, feature.quotes)
            for draft in named or drafts:
                extras.add_feature(draft, item)

    def _single_product_features(self, draft: ProductDraft) -> None:
        links = list(self.feature_links)
        links += [(p.url, heading_name(p)) for p in self.pages if FEATURE_PATH.match(_path(p.url))]
        for url, name in links:
            page = self.page(url)
            if page is None or src.blocked(page, features=True):
                continue
            if not layout.feature_name_ok(name):
                continue
            cite = mention(name, [page]) or next(
                (Cite(page.url, s) for s in sentences(page.text or "")[:1]), None
            )
            if cite is None:
                continue
            item = taxonomy.feature_item(name, self.described(page))
            item["cite"] = cite
            extras.add_feature(draft, item)

    def finish(self) -> list[ProductDraft]:
        out = []
        listings = extras.kind_plurals(list(self.drafts.values()))
        for draft in self.drafts.values():
            if taxonomy.normalize(draft.name) in listings:
                continue  # "Cloudsuites" beside "Acme Cloudsuite" and "Beta Cloudsuite"
            own = [p for p in (self.page(u) for u in [draft.url, *draft.pages]) if p]
            if not draft.description and draft.pages:
                draft.description = src.subject_sentence(draft.name, own + [self.home])[:2000]
            draft.cite = mention(draft.name, own + [self.home] + self.pages, draft.description)
            if draft.cite is None:
                continue  # no page text names it: a menu label or slogan, not a product
            page = own[0] if own else None
            facts = next(iter(_json_ld_products(page)), {}) if page else {}
            if not draft.description and page is not None and draft.pages:
                draft.description = self.described(page) or _summary(page)
            extra = [facts["category"]] if facts.get("category") else []
            offers = extras.offer_props(facts.get("offers", []))
            draft.value_props = list(dict.fromkeys(offers + draft.value_props))[:10]
            draft.features = draft.features[:MAX_FEATURES]
            draft.categories = extras.categories(
                draft.name, draft.description, draft.features, extra
            )
            out.append(draft)
        # Products with features first: the first is the company's primary offering.
        return sorted(out, key=lambda d: not d.features)


def extract_products(snapshot: SiteSnapshot, company_name: str = "") -> list[ProductDraft]:
    """The products the site presents (see the module docstring), each with its cite and
    its features (each feature dict with a ``"cite"``)."""
    finder = _Finder(snapshot, company_name)
    if finder.home is None:
        return []
    finder.product_pages()
    finder.menus()
    seen: set[int] = set()
    for page in [finder.home, *finder.listings, *finder.main_pages]:
        if id(page) not in seen:
            seen.add(id(page))
            finder.cards_of(page)
    grid_offerings(finder, excluded)
    extras.navigation(finder)
    finder.company_product()
    extras.bundles(finder)
    finder.features()
    return finder.finish()


def product_page_urls(drafts: list[ProductDraft]) -> set[str]:
    """The pages the drafts' products and features were read from (their cites)."""
    urls: set[str] = set()
    for draft in drafts:
        urls.update([draft.url, *draft.pages])
        cites = [draft.cite, *(f.get("cite") for f in draft.features)]
        urls.update(c.url for c in cites if isinstance(c, Cite))
    return urls
