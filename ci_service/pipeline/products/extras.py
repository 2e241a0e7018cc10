"""More product sources and the helpers that finish a draft (``products``).

- :func:`navigation`: menus of any label, on a site whose pages have kinds
  (``page_kinds``): an entry whose page is a product page names a product by its label
  less generic words ("Suite overview" -> "Suite"), when the site's text uses that name as
  a name; the entries under it, and those named like it ("Suite features"), are its pages;
  an entry of generic words only ("Tour", "Features", "Platform") is a page of the
  company's one product.
- :func:`company_product`: the company's products named like it with a product word
  after ("Acme Studio", written three times or more on two or more of its home, product,
  pricing and about pages, never "the Acme Zapier integration"), else its one product
  named like it (its short name too: "Acme" of "Acme Audio, LLC") when its pages define or
  use that name as a product;
  :func:`feature_page`: the page a Features menu opens is that product's page.
- :func:`linked_features`: the home page's feature blocks that link to one product's own
  pages are its features.
- :func:`bundles`: a plan line that sells a known product with another ("Acme + Acmecast")
  names a sibling product (with the line as its cited "Bundled with Acme" feature).
- :func:`kind_plurals`: "Cloudsuites" beside "Acme Cloudsuite" and "Beta Cloudsuite" is the
  listing's label, not a product.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline import taxonomy
from ci_service.pipeline.page_kind_names import ABOUT, HOME, PRICING, PRODUCT
from ci_service.pipeline.products import layout as layout
from ci_service.pipeline.products import sources as src
from ci_service.pipeline.products.names import (
    GENERIC_WORDS,
    company_names,
    defining_sentence,
    name_ok,
    natural_case,
    used_as_product,
)

_LABEL_NOISE = frozenset("overview features feature benefits and & the key".split())
_FEATURE_LABEL = re.compile(
    r"(?i)^(?:the\s+)?(?:product|platform|features?|(?:take (?:a|the) )?tour|how it works|"
    r"overview|capabilities|technology)$"
)


def label_name(label: str) -> str:
    """A menu label less the generic words around a product name ("FLOW OVERVIEW" -> "FLOW",
    "Features and Benefits" -> "")."""
    words = label.split()
    while words and words[0].casefold().strip(":") in _LABEL_NOISE:
        words.pop(0)
    while words and words[-1].casefold().strip(":") in _LABEL_NOISE:
        words.pop()
    return " ".join(words)


def kind_plurals(drafts: list[Any]) -> set[str]:
    """The plural (or bare) last word that two or more products' names share: a label
    for the listing of those products, not a product."""
    last = [taxonomy.normalize(d.name).split()[-1:] for d in drafts]
    counts: dict[str, int] = {}
    for words in last:
        if words:
            counts[words[0]] = counts.get(words[0], 0) + 1
    shared = {w for w, n in counts.items() if n >= 2}
    return {w + "s" for w in shared} | shared


def navigation(finder: Any) -> None:
    """Menus of any label, on a site whose pages have kinds: an entry whose page is a
    product page names a product by its label less generic words ("Suite overview" ->
    "Suite", see ``products._Finder.menu_product``); the entries under it, and under their own names
    ("Suite features"), are that product's pages; an entry of generic words only
    ("Tour", "Features", "Platform") is a page of the company's one product."""
    if not finder.kinds or finder.home is None or not getattr(finder.home, "html", ""):
        return
    entries = src.nav_entries(finder.home.html, finder.home.url)
    owners: dict[str, str] = {}  # an entry's label -> the key of the product it names
    for top_level in (True, False):
        for entry in entries:
            if bool(entry.parent) == top_level or not finder.internal(entry.url):
                continue
            target = finder.page(entry.url)
            if target is None or src.kind_of(target) != "product":
                continue
            if finder.home and layout.same_page(target.url, finder.home.url):
                continue
            name = label_name(entry.text)
            owner = finder.drafts.get(owners.get(entry.parent.casefold(), ""))
            if owner is not None and (not name or name.casefold() in owner.name.casefold()):
                owner.pages.extend([target.url] if target.url not in owner.pages else [])
                continue
            if not name or all(w in GENERIC_WORDS for w in taxonomy.normalize(name).split()):
                if _FEATURE_LABEL.match(entry.text.strip()) and target not in finder.main_pages:
                    finder.main_pages.append(target)
                continue
            key = finder.menu_product(name, entry.url, target, strict=True)
            if key:
                owners[entry.text.casefold()] = key


def company_product(finder: Any) -> None:
    """A product named like the company, by the first of its names (``company_names``)
    that its home or product pages define ("Acme is a platform ...") or use as a product
    ("the Acme can ...")."""
    home = finder.home
    product_kind = [p for p in finder.pages if p.kind == PRODUCT and p not in finder.main_pages]
    pages = [home, *finder.main_pages, *product_kind]
    if sub_brands := _sub_brands(finder.site, finder.pages):
        for name in sub_brands:  # "Acme Studio", "Acme STT": the products, not "Acme"
            own = [p for p in pages if name in (p.text or "")][:1] or [home]
            finder.add(name, own[0].url, "", [own[0].url])
        return
    for name in company_names(finder.site):
        described = defining_sentence(name, pages)
        if described is None and not used_as_product(name, pages):
            continue
        own = finder.main_pages[:1] or [home]
        description = described or home.description or ""
        finder.add(natural_case(name, pages), own[0].url, description, [p.url for p in own])
        return


_BRAND_KINDS = frozenset({HOME, PRODUCT, PRICING, ABOUT})
_NOT_SUB_BRAND = frozenset(
    "inc ltd llc gmbh corp co ag sa bv ab oy team labs group holdings blog news support "
    "help docs academy community customers partners careers jobs press".split()
)
MIN_SUB_BRAND = 3
_CONNECTED = (
    r"integrations?|connectors?|plugins?|add-?ons?|extensions?|accounts?|users?|community|"
    r"team|support|docs|apps?|webhooks?"
)


def _sub_brands(site: str, pages: list[Any]) -> list[str]:
    """The company's names with a product word after them ("Acme Studio") that its home,
    product, pricing and about pages write three times or more, on two pages or more, and
    not as another product's integration ("the Acme Zapier integration")."""
    names = company_names(site)
    short = min(names, key=len) if names else ""
    if not short:
        return []
    # "the Acme Zapier integration" names another company's product, not one of Acme's.
    pattern = re.compile(
        rf"\b{re.escape(short)}[ \t]+([A-Z][\w-]{{1,20}})\b(?![ \t]+(?:{_CONNECTED})\b)"
    )
    counts: dict[str, int] = {}
    seen_on: dict[str, set[str]] = {}
    for page in pages:
        if (page.kind or "") in _BRAND_KINDS:
            for match in pattern.finditer(page.text or ""):
                word = match.group(1)
                if word.casefold() not in GENERIC_WORDS | _NOT_SUB_BRAND:
                    counts[word] = counts.get(word, 0) + 1
                    seen_on.setdefault(word, set()).add(page.url)
    found = [w for w, n in sorted(counts.items(), key=lambda i: -i[1]) if n >= MIN_SUB_BRAND]
    names = [f"{short} {w}" for w in found if len(seen_on[w]) >= 2]
    return [n for n in names if name_ok(n)][:5]


def feature_page(finder: Any, url: str) -> None:
    """The page a Features menu opens presents the company's one product."""
    target = finder.page(url)
    if target is None or (finder.home and layout.same_page(target.url, finder.home.url)):
        return
    if not src.blocked(target, features=True) and target not in finder.main_pages:
        finder.main_pages.append(target)


def linked_features(finder: Any) -> None:
    """The home page's feature blocks whose links (two thirds of them or more) go to one
    product's own pages, pages no other product has ("Routing: send every ticket to the
    right agent" tiles linking to its overview), are that product's features."""
    home = finder.home
    if home is None:
        return
    drafts = list(finder.drafts.values())
    for draft in drafts:
        own = [u for u in [draft.url, *draft.pages] if not layout.same_page(u, home.url)]
        others = [u for d in drafts if d is not draft for u in [d.url, *d.pages]]
        own = [u for u in own if not any(layout.same_page(u, o) for o in others)]
        if not own or len(own) < len({draft.url, *draft.pages}):
            continue  # it shares its pages (or the home page) with another product
        linked = [
            card
            for card in finder.cards(home)
            if 3 * sum(any(layout.same_page(u, o) for o in own) for u, _t in card.links)
            >= 2 * len(card.links)
            > 0
        ]
        if linked:
            finder.read_features(home, linked, [draft])


def bundles(finder: Any) -> None:
    """A plan line that sells a known product with another ("Acme + Acmecast"): the
    other is a sibling product, when the site's text uses its name as a name."""
    known = [d.name for d in finder.drafts.values()] + ([finder.site] if finder.site else [])
    plans = [
        p
        for p in finder.pages
        if src.kind_of(p) == "pricing"
        or (not finder.kinds and re.search(r"(?i)pric|plans", urlsplit(p.url).path))
    ]
    for name, cite in src.bundled_names(plans, known):
        if not name_ok(name) or src.in_prose(name, finder.pages, finder.site, 1) is None:
            continue
        key = finder.add(name, cite.url, "", [])
        other = cite.quote.replace(name, "").strip(" +")
        item = taxonomy.feature_item(f"Bundled with {other}", f"Plan line: {cite.quote}")
        item["cite"] = cite
        if key in finder.drafts:
            add_feature(finder.drafts[key], item)


def add_feature(draft: Any, item: dict[str, Any]) -> None:
    if not any(f["id"] == item["id"] for f in draft.features):
        draft.features.append(dict(item))


def offer_props(offers: list[dict[str, Any]]) -> list[str]:
    props = []
    for offer in offers:
        price = offer.get("price") or offer.get("lowPrice")
        if price:
            label = offer.get("name") or "Price"
            props.append(f"{label}: {price} {offer.get('priceCurrency', '')}".strip())
    return props


def categories(name: str, description: str, features: list[dict], extra: list[str]) -> list:
    text = " ".join([name, description] + [f"{f['name']} {f['description']}" for f in features])
    names = [e for e in extra if e] + taxonomy.categories_for(text)
    items: dict[str, dict[str, str]] = {}
    for category in names:
        item = taxonomy.category_item(category)
        items.setdefault(item["id"], item)
    return list(items.values())
