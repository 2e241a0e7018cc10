"""Plan cards in a pricing page's markup (rule 1 of :mod:`ci_service.pipeline.pricing`).

The page (without script, style, nav, footer, aside, dialogs, struck-out ``<del>``/``<s>``
prices and elements whose class or id says nav, menu, footer, cookie, consent, breadcrumb,
sidebar, modal or popup) becomes lines: the text of each block element without its nested
blocks, a ``<br>`` ending a line. A line is

- a *price* when it states an amount (at most 25 words: longer ones are prose, rule 4), or a
  *marker* when the whole line is "Free", "$0", "Contact sales", "Custom" ... outside a link
  or button;
- a *name* when it is a heading or sits in an element whose class says title, name, plan,
  tier, package or edition (not description, subtitle, badge), has at most six words and no
  amount, and is not a badge ("Most popular"), a period ("Monthly") or a call to action; a
  price line's words before its amount ("Zephyr $1,000 / MONTH") are a name too.

A *card group* is the lowest element, above a price or marker line, with two or more
children that each hold a name and a price or marker; those children are the cards. A card
that holds a card group of its own lends its name (as ``edition``) and its listed features
to the cards inside it and gives no plan itself. A card's plan name is its first name line;
its prices are its price lines (one plan per period, see ``pricing.prices``); without
amounts it is free ("Free" name or line) or on request (an on-request phrase, buttons
included); its features are its list items and checked or bulleted lines (else the short
lines after the price), calls to action, lead-ins ("All of Free, and:") and descriptions
left out. The same plan name and period in a second card group on the page is named with
the heading above that group ("Pro (Self-hosted)").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ci_service.intel.boilerplate import strip_chrome
from ci_service.pipeline import pricing
from ci_service.pipeline.pricing import PlanDraft
from ci_service.pipeline.site import SitePage

BLOCKS = frozenset(
    "p div li ul ol dl dt dd table thead tbody tfoot tr td th h1 h2 h3 h4 h5 h6 section "
    "article main header blockquote pre form fieldset figure figcaption details summary "
    "address center".split()
)
HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
# Besides chrome (intel.boilerplate.strip_chrome): code, forms' selects, frames, and struck-out
# prices ("<del>$12</del> $9").
DROP = ("script style svg select iframe del s strike").split()
TITLE = re.compile(r"title|name|plan|tier|package|edition|heading", re.IGNORECASE)
DESCRIPTION = re.compile(r"desc|subtitle|tagline|summary|badge|ribbon|lead\b", re.IGNORECASE)
PRICE_CLASS = re.compile(r"price|amount|cost", re.IGNORECASE)
NOT_A_NAME = re.compile(
    r"\W*(?:most\s+popular|popular|recommended|best\s+value|new|save\s+\d+\s*%?|\d+\s*%\s+off|"
    r"limited\s+offer|coming\s+soon|get\s+started|sign\s+up|buy\s+now|start\s+(?:free\s+)?trial|"
    r"try\s+(?:it\s+)?(?:for\s+)?free|learn\s+more|monthly|annually|yearly|annual|per\s+month|"
    r"per\s+year|billed\s+\w+|from|only|starting\s+at|just|pricing|plans?|features?)\W*",
    re.IGNORECASE,
)
GLYPH = re.compile(r"^[✓✔✅☑•·*+–-]\s*")
MAX_LINES = 5000


@dataclass
class Line:
    text: str
    el: Any  # the block element whose own text this is
    heading: bool
    classes: str  # class and id of the block and of the inline elements in the line
    action: bool  # all its text is inside links or buttons
    listed: bool  # a list item, or a line starting with a check mark or bullet


def _attrs(el: Any) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}".strip()


def _tree(html: str) -> Any:
    import lxml.html

    try:
        parser = lxml.html.HTMLParser(encoding="utf-8")  # the markup is decoded text already
        doc = lxml.html.document_fromstring(html.encode("utf-8", "replace"), parser=parser)
    except Exception:  # empty or unparseable markup: no cards
        return None
    body = doc.find("body")
    root = body if body is not None else doc
    return strip_chrome(root, DROP)


def _lines(root: Any) -> list[Line]:
    out: list[Line] = []

    def walk(el: Any, in_action: bool) -> None:
        parts: list[tuple[str, bool, str]] = []

        def flush() -> None:
            text = " ".join(" ".join(t for t, _a, _c in parts).split())
            if text and len(out) < MAX_LINES:
                action = all(a for t, a, _c in parts if t.strip())
                classes = " ".join([_attrs(el)] + [c for _t, _a, c in parts if c])
                listed = el.tag in ("li", "dd") or bool(GLYPH.match(text))
                out.append(Line(text, el, el.tag in HEADINGS, classes, action, listed))
            parts.clear()

        if el.text:
            parts.append((el.text, in_action, ""))
        for child in el:
            if isinstance(child.tag, str):
                action = in_action or child.tag in ("a", "button")
                if child.tag == "br":
                    flush()
                elif child.tag in BLOCKS or any(
                    isinstance(d.tag, str) and d.tag in BLOCKS for d in child.iterdescendants()
                ):
                    flush()
                    walk(child, action)
                else:
                    parts.append((child.text_content(), action, _attrs(child)))
            if child.tail:
                parts.append((child.tail, in_action, ""))
        flush()

    walk(root, False)
    return out


def _label(line: Line) -> str:
    """The words in front of a price line's first amount, when they can name a plan."""
    match = pricing.AMOUNT.search(line.text)
    if not match or line.action:
        return ""
    words = line.text[: match.start()].strip(" :–—-|")
    if not words or len(words.split()) > 4 or re.search(r"\d", words):
        return ""
    if NOT_A_NAME.fullmatch(words) or pricing.is_on_request(words):
        return ""
    return words


class _Page:
    def __init__(self, page: SitePage, root: Any) -> None:
        self.page = page
        self.lines = _lines(root)
        self.price: list[list[pricing.Price]] = []
        self.marker: list[bool] = []
        self.name: list[str] = []
        for i, line in enumerate(self.lines):
            nxt = self.lines[i + 1].text if i + 1 < len(self.lines) else ""
            short = len(line.text.split()) <= 25
            found = pricing.prices(line.text, nxt) if short else []
            self.price.append(found)
            self.marker.append(
                not found
                and not line.action
                and (pricing.is_free(line.text) or pricing.is_on_request(line.text))
            )
            self.name.append(self._name(line) or (_label(line) if found else ""))
        self.inside: dict[Any, list[int]] = {}
        for i, line in enumerate(self.lines):
            for el in (line.el, *line.el.iterancestors()):
                self.inside.setdefault(el, []).append(i)

    def _name(self, line: Line) -> str:
        text = line.text.strip(" :")
        if line.action or not text or len(text.split()) > 6 or pricing.AMOUNT.search(text):
            return ""
        if not (line.heading or TITLE.search(line.classes)) or DESCRIPTION.search(line.classes):
            return ""
        if NOT_A_NAME.fullmatch(text) or pricing.is_on_request(text):
            return ""
        return text

    def priced(self, i: int) -> bool:
        return bool(self.price[i]) or self.marker[i]

    def cardish(self, el: Any) -> bool:
        held = self.inside.get(el, [])
        return any(self.priced(i) for i in held) and any(self.name[i] for i in held)

    def groups(self) -> list[Any]:
        found: list[Any] = []
        for i in range(len(self.lines)):
            if not self.priced(i):
                continue
            child = self.lines[i].el
            parent = child.getparent()
            while parent is not None:
                if parent in found or sum(self.cardish(c) for c in parent) >= 2:
                    if parent not in found:
                        found.append(parent)
                    break
                child, parent = parent, parent.getparent()
        return found


def _tidy(name: str) -> str:
    name = " ".join(name.split()).strip(" :–—-")
    return name.title() if name.isupper() and len(name) > 3 else name


def _features(page: _Page, held: list[int], skip: set[int]) -> list[str]:
    rest = [
        i
        for i in held
        if i not in skip
        and not page.priced(i)
        and not page.lines[i].action
        and not page.lines[i].text.endswith(":")
        and not DESCRIPTION.search(page.lines[i].classes)
        and not NOT_A_NAME.fullmatch(page.lines[i].text)
        and len(page.lines[i].text.split()) <= 20
    ]
    listed = [i for i in rest if page.lines[i].listed]
    if not listed:
        first_price = next((i for i in held if page.priced(i)), None)
        listed = [i for i in rest if first_price is not None and i > first_price]
    items = [GLYPH.sub("", page.lines[i].text).strip()[:200] for i in listed]
    return list(dict.fromkeys(i for i in items if i))[: pricing.MAX_FEATURES]


def _card(page: _Page, held: list[int], edition: str, inherited: list[str]) -> list[PlanDraft]:
    text, url = page.page.text, page.page.url
    name_at = next((i for i in held if page.name[i]), None)
    if name_at is None:
        return []
    name = _tidy(page.name[name_at])
    name_line = page.lines[name_at].text
    features = _features(page, held, {name_at}) or inherited
    extra = {"edition": edition, "features": features}
    plans: list[PlanDraft] = []
    for pos, i in enumerate(held):
        if not page.price[i]:
            continue
        line = page.lines[i].text
        before = page.lines[held[pos - 1]].text if pos and held[pos - 1] == name_at else ""
        quote = pricing.find_quote(text, f"{before} {line}" if before else "", line)
        for plan in pricing.plans_from_price(name, page.price[i], url, quote, **extra):
            if plan.cite is None:
                found = pricing.amount_quote(text, plan.price or 0.0, name)
                plan.cite = pricing.Cite(url, found) if found else None
            if all(p.period != plan.period for p in plans):
                plans.append(plan)
    if plans:
        return plans
    lines = [page.lines[i].text for i in held]
    free = next((x for x in lines if pricing.is_free(x)), None)
    if free is not None or re.match(r"free\b", name, re.IGNORECASE):
        quote = pricing.find_quote(text, free or "", name_line)
        cite = pricing.Cite(url, quote) if quote else None
        plan = PlanDraft(name, 0.0, None, None, None, price_text=free or name, cite=cite)
        plan.page_url, plan.edition, plan.features = url, edition, features
        return [plan]
    asked = next((x for x in lines if pricing.is_on_request(x)), None)
    if asked is None:
        return []
    quote = pricing.find_quote(text, f"{name_line} {asked}", asked)
    plan = pricing.on_request_plan(name, asked, url, quote, edition=edition)
    plan.features = features
    return [plan]


def _heading_before(page: _Page, first: int) -> str:
    for i in range(first - 1, -1, -1):
        if page.lines[i].heading and not page.price[i]:
            return _tidy(page.lines[i].text)[:60]
    return ""


def card_plans(page: SitePage) -> list[PlanDraft]:
    """The plans of the page's card groups (see the module rules)."""
    root = _tree(page.html)
    if root is None:
        return []
    parsed = _Page(page, root)
    groups = parsed.groups()
    cards = {id(g): [c for c in g if parsed.cardish(c)] for g in groups}
    outer: dict[int, tuple[str, list[str]]] = {}  # id(group) -> (edition, features)
    for group in groups:
        for card in cards[id(group)]:
            inner = [g for g in groups if g is not group and card in set(g.iterancestors())]
            inner_lines = {i for g in inner for i in parsed.inside.get(g, [])}
            held = [i for i in parsed.inside.get(card, []) if i not in inner_lines]
            name_at = next((i for i in held if parsed.name[i]), None)
            for g in inner:
                edition = _tidy(parsed.name[name_at]) if name_at is not None else ""
                skip = {name_at} if name_at is not None else set()
                outer[id(g)] = (edition, _features(parsed, held, skip))
    plans: list[PlanDraft] = []
    seen: set[tuple[str, str | None]] = set()
    for group in groups:
        edition, inherited = outer.get(id(group), ("", []))
        found: list[PlanDraft] = []
        for card in cards[id(group)]:
            if any(g is not group and card in set(g.iterancestors()) for g in groups):
                continue  # an outer card: its inner cards are the plans
            found += _card(parsed, parsed.inside.get(card, []), edition, inherited)
        if any((p.name.casefold(), p.period) in seen for p in found):
            first = min(parsed.inside.get(group, [0]))
            label = edition or _heading_before(parsed, first)
            for plan in found:
                plan.name = f"{plan.name} ({label})" if label else plan.name
        for plan in found:
            if (plan.name.casefold(), plan.period) not in seen:
                seen.add((plan.name.casefold(), plan.period))
                plans.append(plan)
    return plans
