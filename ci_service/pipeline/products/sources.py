"""What a page may give the product extractor, and the site's navigation (``products``
helpers). Content rules only: no site's path, label or wording is named here.

- Page kinds (``SitePage.kind``, from ``pipeline.page_kinds``): offerings and features are
  never read from legal, utility, archive, post, news-list, careers, team, contact,
  customer or about pages (:func:`blocked`); a page of unknown kind ("" when the site was
  read without the classifier) is judged by the URL rules of ``products``.
- Shop plumbing (:func:`shop_plumbing`): a shop item page (add-to-cart markup) selling a
  payment, deposit, invoice, fee, donation or gift card is not a product.
- Navigation (:func:`nav_entries`): every link of the page's menus, header and footer with
  the label of the menu item it hangs under ("Acme Suite" > "Overview"), so a
  menu of any label can name a product; its target page decides (``products``).
- :func:`in_prose`: a name used as a proper noun in running text (a sentence of six words
  or more, mostly lower case, with the name capitalized as given and, for a single
  capitalized word, not only at a sentence's start). Menu labels and headings ("Our
  Mission", "Press Kit", "Resources") are not prose.
- :func:`bundled_names`: the other name of a plan line that bundles a known product with
  another ("White label", "Acme + Acmecast"): a sibling product sold with it.
- :func:`brand`: the name as the site writes it ("acme-io" given, "Acme.io" in titles).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ci_service.intel.page_links import label_text
from ci_service.pipeline.evidence import Cite, sentences

NO_OFFERING_KINDS = frozenset(
    "legal utility archive post news-list careers team contact customer about".split()
)
# Pricing pages name products in plan lines but list plan features, not product features.
NO_FEATURE_KINDS = NO_OFFERING_KINDS | {"pricing"}
_SHOP_MARKUP = re.compile(
    r"add[-_ ]to[-_ ]cart|single_add_to_cart|woocommerce|product_meta|data-product_id|"
    r"shopify-product-form|\bcart-form\b",
    re.IGNORECASE,
)
_PAYMENT_ITEM = re.compile(
    r"\b(?:payments?|pay|deposit|invoice|fees?|donations?|donate|gift ?cards?|vouchers?|"
    r"top[- ]?up|balance|retainer|checkout|cart|shipping)\b",
    re.IGNORECASE,
)
_STOP = frozenset(
    """a an the and or of for to in on with is are was be by your you our we it its this
    that as at from into can will has have not more all any each every their them they
    who which what how than so if when""".split()
)
_NAV_TAGS = frozenset(("nav", "header", "footer"))
MIN_PROSE_WORDS = 6


def kind_of(page: Any) -> str:
    return str(getattr(page, "kind", "") or "")


def blocked(page: Any, *, features: bool = False) -> bool:
    """A page that never gives offerings (``features``: nor features)."""
    return kind_of(page) in (NO_FEATURE_KINDS if features else NO_OFFERING_KINDS)


def kinds_known(pages: list[Any]) -> bool:
    return any(kind_of(p) for p in pages)


def shop_plumbing(page: Any, name: str) -> bool:
    """A shop item page that sells a payment, fee or the like, not a product."""
    html = getattr(page, "html", "") or ""
    return bool(_SHOP_MARKUP.search(html[:400_000])) and bool(_PAYMENT_ITEM.search(name))


# -- navigation -------------------------------------------------------------------------------


@dataclass
class NavEntry:
    url: str
    text: str
    parent: str = ""  # the label of the menu item it hangs under ("" at the top level)
    parent_url: str = ""


def _in_navigation(el: Any) -> bool:
    from ci_service.intel.boilerplate import is_chrome_element

    for node in (el, *el.iterancestors()):
        if not isinstance(node.tag, str) or node.tag in ("body", "html", "main", "article"):
            continue
        if node.tag in _NAV_TAGS or is_chrome_element(node):
            return True
    return False


def _parent_item(anchor: Any) -> Any:
    """The ``li`` of the menu item a link hangs under (its own ``li``'s enclosing one)."""
    own = next(anchor.iterancestors("li"), None)
    return next(own.iterancestors("li"), None) if own is not None else None


def nav_entries(html: str, base: str) -> list[NavEntry]:
    """Every link of the page's navigation (menus, header, footer), in page order, with the
    label of the menu item it hangs under."""
    from ci_service.pipeline.html_text import parse_html
    from ci_service.pipeline.products.layout import _href

    doc = parse_html(html)
    if doc is None:
        return []
    out: list[NavEntry] = []
    seen: set[tuple[str, str]] = set()
    try:
        for anchor in doc.iter("a"):
            url, text = _href(anchor, base), label_text(anchor)
            if not url or not text or len(text) > 60 or (url, text) in seen:
                continue
            if not _in_navigation(anchor):
                continue
            seen.add((url, text))
            parent, parent_url = "", ""
            item = _parent_item(anchor)
            label = next(item.iter("a"), None) if item is not None else None
            if label is not None and label is not anchor:
                parent, parent_url = label_text(label), _href(label, base)
            out.append(NavEntry(url, text, parent, parent_url))
    except (ValueError, RecursionError):  # hostile markup: keep what was read
        pass
    return out


# -- names ------------------------------------------------------------------------------------


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])")


def _capitalized(word: str) -> bool:
    word = word.strip("\"“”‘’'()[],;:")
    return bool(word) and word[:1].isupper()


def in_prose(name: str, pages: list[Any], site: str = "", uses: int = 2) -> Cite | None:
    """The first sentence that uses ``name`` (as written) as a proper noun in running text,
    or None (see the module docstring). Inside a longer run of capitalized words ("Ten-
    Step Guide To Better Routing In") it is part of a title, not a name; a word before it may
    be ``site`` ("Acme Flow"). A single capitalized word needs ``uses`` such sentences."""
    if not name.strip():
        return None
    pattern = _pattern(name)
    single = len(name.split()) == 1 and name[:1].isupper() and name[1:].islower()
    found: list[Cite] = []
    for page in pages:
        for sentence in sentences(getattr(page, "text", "") or ""):
            if len(sentence) > 500:
                continue
            for match in pattern.finditer(sentence):
                before = sentence[: match.start()].split()
                after = sentence[match.end() :].split()
                rest = before + after
                if len(rest) + len(name.split()) < MIN_PROSE_WORDS:
                    break
                caps = sum(1 for w in rest if _capitalized(w))
                stops = sum(1 for w in rest if w.casefold() in _STOP)
                if caps * 2 > len(rest) or stops < 2:
                    break  # a title-case heading or a list of names
                if not before and single:
                    continue  # capitalized only as a sentence's first word
                if (
                    len(before) > 1
                    and _capitalized(before[-1])
                    and before[-1] not in (site, *name.split())
                ):
                    continue  # the end of a longer capitalized name or title
                if after and _capitalized(after[0]) and not after[0].isupper():
                    continue
                found.append(Cite(page.url, sentence))
                break
            if found and (not single or len({c.quote for c in found}) >= uses):
                return found[0]
    return None


def prefixed(name: str, site: str, pages: list[Any]) -> str:
    """``"<site> <name>"`` when the text writes the name so most of the time ("Flow" ->
    "Acme Flow"), else ``name``."""
    if not site or name.casefold().startswith(site.casefold()):
        return name
    full = f"{site} {name}"
    alone = both = 0
    for page in pages[:200]:
        text = getattr(page, "text", "") or ""
        alone += len(_pattern(name).findall(text))
        both += len(_pattern(full).findall(text))
    return full if both >= 2 and both * 3 >= alone * 2 else name


def subject_sentence(name: str, pages: list[Any]) -> str:
    """The first sentence whose subject is ``name`` ("The cloud-based Acme Flow links your
    data ...", "Acme Desk is a help desk ..."): what the product does."""
    verb = re.compile(
        r"^(?:the\s+)?(?:[\w-]+\s+){0,2}?" + re.escape(name) + r"(?:'s)?\s+(?:is|are|[a-z]{3,}s)\b"
    )
    for page in pages:
        for sentence in sentences(getattr(page, "text", "") or ""):
            if 6 <= len(sentence.split()) <= 60 and verb.match(sentence):
                return sentence
    return ""


_BUNDLE = re.compile(r"^\s*(.{2,40}?)\s+\+\s+(.{2,40}?)\s*[.!]?\s*$")


def bundled_names(pages: list[Any], known: list[str]) -> list[tuple[str, Cite]]:
    """(name, cite) of the other product in plan lines "Known + Other" / "Other + Known"."""
    wanted = {k.casefold() for k in known}
    out: list[tuple[str, Cite]] = []
    for page in pages:
        for line in (getattr(page, "text", "") or "").splitlines():
            match = _BUNDLE.match(line)
            if not match:
                continue
            first, second = match.group(1).strip(), match.group(2).strip()
            other = second if first.casefold() in wanted else first
            if {first.casefold(), second.casefold()} & wanted and other.casefold() not in wanted:
                out.append((other, Cite(page.url, line.strip())))
    return out


def _alnum(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _og_site_name(html: str) -> str:
    match = re.search(
        r"<meta[^>]+property=[\"']og:site_name[\"'][^>]*content=[\"']([^\"']{1,60})[\"']",
        html[:100_000],
        re.IGNORECASE,
    )
    return " ".join(match.group(1).split()) if match else ""


def brand(pages: list[Any], title_split: re.Pattern[str], company_name: str = "") -> str:
    """The site's own name: its ``og:site_name``, else the part of the home page title that
    other titles share. With ``company_name``, the site's spelling when it is the same name
    ("acme io" -> "Acme.io"), else ``company_name``."""
    if not pages:
        return company_name.strip()
    home = next((p for p in pages if getattr(p, "depth", 1) == 0), pages[0])
    found = _og_site_name(getattr(home, "html", "") or "")
    if not found:
        counts: Counter[str] = Counter()
        for page in pages:
            counts.update({p.strip() for p in title_split.split(page.title or "") if p.strip()})
        parts = [p.strip() for p in title_split.split(home.title or "") if 1 <= len(p.split()) <= 3]
        shared = sorted(parts, key=lambda p: -counts[p])
        found = shared[0] if shared and counts[shared[0]] >= 2 else ""
    company = company_name.strip()
    if company and found and _alnum(found) == _alnum(company):
        return found
    return company or found
