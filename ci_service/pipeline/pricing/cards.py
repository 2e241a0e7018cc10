"""Plan cards in a pricing page's markup (rule 1 of :mod:`ci_service.pipeline.pricing.plans`).

The page (without script, style, nav, footer, aside, dialogs, struck-out ``<del>``/``<s>``
prices, elements whose class or id says nav, menu, footer, cookie, consent, breadcrumb,
sidebar, modal or popup, and shop plumbing: cart, checkout, shipping, payment options,
installments, reviews, ratings, related or recommended products) becomes lines: the text
of each block element without its nested blocks (inline spans joined with spaces, so
``<span>$</span><span>USD</span><span>104</span>`` is "$ USD 104"), a ``<br>`` ending a
line. Lines inside a testimonial or quotation (``blockquote``, ``q``, a class saying
testimonial, quotation or review, or text opening with a quotation mark) are neither prices,
markers nor names. A line is

- a *price* when it states an amount (at most 25 words; a sentence around an amount
  without period or unit, "We saved $2,000 last year.", is prose, not a price), or a
  *marker* when the whole line is "Free", "$0", "Contact sales", "Custom plans" ... outside
  a link or button;
- a *name* when it is a heading, a card ``<header>``, a bold line (not a list item) or sits
  in an element whose class says title, name, plan, tier, package, edition or header (not
  description, subtitle, badge), has at most six words and no amount, and is not a badge
  ("Most popular"), a period ("Monthly"), a call to action, a tagline or sentence ("Simple,
  fast" with a comma, or ending in a full stop), a trial ("14-day trial") or shop words; a
  price line's words before its amount ("Orbit $1,000 / MONTH") are a name too, and so is
  a plain line of one to three capitalised words right before a price line (a badge such
  as "Save 30%" may come between): markup without headings names plans by their place.

A *card group* is the lowest element, above a price or marker line, with two or more
children that each hold a name and a price or marker; those children are the cards (and a
child with a name whose only price word is a button such as "Book a demo" or "Contact us"
is an on-request card). A group where one child holds four or more amounts and markers is
no card group (that child lists several plans: the text rules read them). A card
that holds a card group of its own lends its name (as ``edition``) and its listed features
to the cards inside it and gives no plan itself. A card's plan name is its name line
nearest before its first price (a tagline heading may open the card), else its first name
line; its prices are its price lines (one plan per period, see ``pricing_money.prices``; a price no
line of the page text states as joined is cited by the sentence stating its amount, else
by the joined text); without amounts it is free ("Free" name or line) or on request (an
on-request phrase, buttons included); its features are its list items and checked or
bulleted lines (else the short lines after the price), calls to action, lead-ins ("All of
Free, and:") and descriptions left out. The same plan name and period in a second card
group on the page is named with the heading above that group ("Pro (On-premises)").

A card says its plan is not sold yet (``coming_soon``) by a line of its own that is only a
status ("Coming soon" on its button, a "Beta" badge, "Early access") or by such words
closing its name or price line ("Teams (beta)"); a card holding a card group lends that to
the cards inside it. Status lines are neither names nor features.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ci_service.pipeline.evidence import Cite
from ci_service.pipeline.pricing.drafts import (
    MAX_FEATURES,
    PlanDraft,
    on_request_plan,
    plans_from_price,
)
from ci_service.pipeline.pricing.lines import Line, norm, page_lines, tree
from ci_service.pipeline.pricing.markup_words import (
    DESCRIPTION,
    DISCOUNT,
    GLYPH,
    LIMIT_LABEL,
    NOT_A_NAME,
    TITLE,
)
from ci_service.pipeline.pricing.money import (
    AMOUNT,
    TRIAL,
    Price,
    amount_quote,
    ends_not_yet,
    find_quote,
    is_free,
    is_not_yet,
    is_on_request,
    is_plumbing,
    is_prose,
    is_quoted,
    prices,
)
from ci_service.pipeline.site import SitePage

# Buttons and lines of a card without a price that say its price is asked for.
ASK = re.compile(
    r"\W*(?:(?:book|schedule|request|get|arrange)\s+a\s+(?:demo|call|meeting|consultation)|"
    r"get\s+in\s+touch|contact(?:\s+(?:us|sales|our\s+team))?|enquire(?:\s+now)?|"
    r"inquire(?:\s+now)?|speak\s+to\s+(?:us|sales|an?\s+expert))\W*",
    re.IGNORECASE,
)


def _name_like(text: str) -> bool:
    """A plan name, not a tagline, sentence, trial or shop word ("Simple, fast" is no name)."""
    return not (
        ", " in text
        or text.endswith((".", "!", "?"))
        or TRIAL.search(text)
        or is_plumbing(text)
        or is_quoted(text)
        or DISCOUNT.search(text)
    )


_EXTRA = re.compile(r"\b(?:additional|extra|overage|add-?ons?)\b", re.IGNORECASE)


def _label(line: Line) -> str:
    """The words in front of a price line's first amount, when they can name a plan."""
    match = AMOUNT.search(line.text)
    if not match or line.action or line.quoted:
        return ""
    words = line.text[: match.start()].strip(" :–—-|")
    if not words or len(words.split()) > 4 or re.search(r"\d", words) or not _name_like(words):
        return ""
    if NOT_A_NAME.fullmatch(words) or is_on_request(words) or _EXTRA.search(words):
        return ""  # "Additional credits: $0.001 / credit" prices a plan's extras, names none
    return words


class _Page:
    def __init__(self, page: SitePage, root: Any) -> None:
        self.page = page
        self.lines = page_lines(root)
        self.price: list[list[Price]] = []
        self.marker: list[bool] = []
        self.name: list[str] = []
        for i, line in enumerate(self.lines):
            nxt = self.lines[i + 1].text if i + 1 < len(self.lines) else ""
            short = len(line.text.split()) <= 25 and not line.quoted
            found = prices(line.text, nxt) if short else []
            question = line.text.rstrip().endswith("?")
            if question or is_prose(line.text, found) or self._limited(i, found):
                found = []
            self.price.append(found)
            self.marker.append(
                not found
                and not line.action
                and not line.quoted
                and (is_free(line.text) or is_on_request(line.text))
            )
            self.name.append(self._name(line) or (_label(line) if found else ""))
        self.by_place: set[int] = set()  # lines named only by their place before a price
        for i, line in enumerate(self.lines):
            if not self.name[i] and self._named_by_place(i):
                self.name[i] = _tidy(line.text)
                self.by_place.add(i)
        self.inside: dict[Any, list[int]] = {}
        for i, line in enumerate(self.lines):
            for el in (line.el, *line.el.iterancestors()):
                self.inside.setdefault(el, []).append(i)

    def _limited(self, i: int, found: list[Price]) -> bool:
        """An amount without a period under a limit's label ("Max credit line" / "$50,000")."""
        if not found or any(p.period for p in found) or i == 0:
            return False
        label = self.lines[i - 1].text
        return len(label.split()) <= 8 and bool(LIMIT_LABEL.fullmatch(label))

    def _named_by_place(self, i: int) -> bool:
        """A plain line that names the price right after it ("Hobbyist" over "$5" "/mo",
        perhaps a badge between): one to three capitalised words, no amount, no sentence.
        Markup without headings or title classes names its plans only by their place."""
        line = self.lines[i]
        words = line.text.split()
        if not 1 <= len(words) <= 3 or self.price[i] or self.marker[i]:
            return False
        if line.el.tag in ("td", "th") or any(a.tag == "table" for a in line.el.iterancestors()):
            return False  # a table's cells: the table rule reads them
        if line.action or line.quoted or line.listed or not line.text[:1].isupper():
            return False
        if re.search(r"[\d.,:;!?]", line.text) or not _name_like(line.text):
            return False
        if NOT_A_NAME.fullmatch(line.text) or is_not_yet(line.text) or TRIAL.search(line.text):
            return False
        for j in (i + 1, i + 2):
            if j < len(self.lines) and self.price[j]:
                between = self.lines[i + 1].text
                return j == i + 1 or bool(DISCOUNT.search(between) or NOT_A_NAME.fullmatch(between))
        return False

    def _name(self, line: Line) -> str:
        text = line.text.strip(" :")
        if line.action or line.quoted or not text or len(text.split()) > 6:
            return ""
        if AMOUNT.search(text) or not _name_like(text):
            return ""
        titled = line.heading or TITLE.search(line.classes) or (line.bold and not line.listed)
        if not titled or DESCRIPTION.search(line.classes):
            return ""
        if NOT_A_NAME.fullmatch(text) or is_on_request(text) or is_not_yet(text):
            return ""
        return "" if LIMIT_LABEL.fullmatch(text) else text

    def priced(self, i: int) -> bool:
        return bool(self.price[i]) or self.marker[i]

    def cardish(self, el: Any) -> bool:
        held = self.inside.get(el, [])
        return any(self.priced(i) for i in held) and any(self.name[i] for i in held)

    def asking(self, el: Any) -> bool:
        """A card without a price whose button asks for one ("Enterprise" + "Book a demo")."""
        held = self.inside.get(el, [])
        texts = [self.lines[i].text for i in held]
        return any(self.name[i] for i in held) and any(ASK.fullmatch(t) for t in texts)

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


# "Setup fee: Add": a label and the first words of the sentence that states its price.
_LABEL_THEN_WORDS = re.compile(r"^([^:]{3,60}):\s+\S+(?:\s+\S+)?$")


def _tidy(name: str) -> str:
    name = " ".join(name.split()).strip(" :–—-")
    if labelled := _LABEL_THEN_WORDS.match(name):
        name = labelled.group(1).strip()
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
        and not is_not_yet(GLYPH.sub("", page.lines[i].text))
        and len(page.lines[i].text.split()) <= 20
    ]
    listed = [i for i in rest if page.lines[i].listed]
    if not listed:
        first_price = next((i for i in held if page.priced(i)), None)
        listed = [i for i in rest if first_price is not None and i > first_price]
    items = [GLYPH.sub("", page.lines[i].text).strip()[:200] for i in listed]
    return list(dict.fromkeys(i for i in items if i))[:MAX_FEATURES]


def _not_yet(page: _Page, held: list[int], name_at: int | None) -> bool:
    """Whether the card's own lines say it is not sold yet (see the module rules)."""
    for i in held:
        line = page.lines[i].text
        if is_not_yet(GLYPH.sub("", line)):
            return True
        if (i == name_at or page.price[i]) and ends_not_yet(line):
            return True
    return False


def _name_at(page: _Page, held: list[int]) -> int | None:
    """The card's plan name: its name line nearest before its first price (a card that
    opens with a tagline heading, "Plan your week faster", then "Personal" and
    "$ 0", is the Personal plan), else its first name line."""
    first_price = next((i for i in held if page.priced(i)), None)
    if (shown := _named_elsewhere(page, held, first_price)) is not None:
        return shown
    before = [i for i in held if page.name[i] and (first_price is None or i < first_price)]
    marked = [i for i in before if i not in page.by_place]  # a heading or a title class
    if marked or before:
        return (marked or before)[-1]
    return next((i for i in held if page.name[i]), None)


def _named_elsewhere(page: _Page, held: list[int], first_price: int | None) -> int | None:
    """A line before the card's price that the page shows as a name outside the card (the
    plan's column in a comparison table: "Personal" over a tagline "Boost your week"): the
    plan's name, whatever its markup."""
    for i in _shown_names(page, held):
        if first_price is not None and i >= first_price:
            break
        page.name[i] = page.lines[i].text.strip(" :")
        return i
    return None


def _shown_names(page: _Page, held: list[int]) -> list[int]:
    """The card's lines that the page shows as names outside the card (a name line, or a
    table's header cell)."""
    inside = set(held)
    outside = {
        (page.name[i] or page.lines[i].text).casefold()
        for i in range(len(page.lines))
        if i not in inside and (page.name[i] or page.lines[i].el.tag == "th")
    } - {page.name[i].casefold() for i in held if page.name[i]}
    out = []
    for i in held:
        text = page.lines[i].text.strip(" :")
        if text.casefold() in outside and _name_like(text) and not page.priced(i):
            out.append(i)
    return out


def _card(
    page: _Page, held: list[int], edition: str, inherited: list[str], soon: bool = False
) -> list[PlanDraft]:
    name_at = _name_at(page, held)
    if name_at is None:
        return []
    plans = _card_plans(page, held, name_at, edition, inherited)
    soon = soon or _not_yet(page, held, name_at)
    for plan in plans:
        plan.coming_soon = soon
    return plans


def _card_plans(
    page: _Page, held: list[int], name_at: int, edition: str, inherited: list[str]
) -> list[PlanDraft]:
    text, url = page.page.text, page.page.url
    name = _tidy(page.name[name_at])
    name_line = page.lines[name_at].text
    features = _features(page, held, {name_at}) or inherited
    extra = {"edition": edition, "features": features}
    plans: list[PlanDraft] = []
    discounted = any(DISCOUNT.search(page.lines[i].text) for i in held)
    for pos, i in enumerate(held):
        if not page.price[i]:
            continue
        line = page.lines[i].text
        before = page.lines[held[pos - 1]].text if pos and held[pos - 1] == name_at else ""
        quote = find_quote(text, f"{before} {line}" if before else "", line)
        for plan in plans_from_price(name, page.price[i], url, quote, **extra):
            if plan.cite is None:
                # No line of the text holds the price as the markup joins it (split spans):
                # the sentence stating the amount, else the joined text itself.
                found = amount_quote(text, plan.price or 0.0, name)
                plan.cite = Cite(url, found or line)
            if all(p.period != plan.period for p in plans):
                plans.append(plan)
            elif discounted and plan.price is not None:
                # An old price and the offer's, in one currency and period: the offer's.
                for k, kept in enumerate(plans):
                    if (kept.period, kept.currency) == (plan.period, plan.currency) and (
                        kept.price is not None and plan.price < kept.price
                    ):
                        plans[k] = plan
    if plans:
        return plans
    lines = [page.lines[i].text for i in held]
    free = next((x for x in lines if is_free(x)), None)
    if free is not None or re.match(r"free\b", name, re.IGNORECASE):
        quote = find_quote(text, f"{name_line} {free or ''}", free or "", name_line)
        cite = Cite(url, quote) if quote else None
        plan = PlanDraft(name, 0.0, None, None, None, price_text=free or name, cite=cite)
        plan.page_url, plan.edition, plan.features = url, edition, features
        return [plan]
    asked = next((x for x in lines if is_on_request(x)), None)
    asked = asked or next((x for x in lines if ASK.fullmatch(x)), None)
    if asked is None:
        return []
    quote = find_quote(text, f"{name_line} {asked}", asked, name_line)
    plan = on_request_plan(name, asked, url, quote, edition=edition)
    plan.features = features
    return [plan]


def _container(page: _Page, held: list[int]) -> bool:
    """A block holding several plans' prices (four amounts or markers, or two plans the
    page's comparison table names), not one plan's card: its group is no card group."""
    if len({page.lines[i].text.casefold() for i in _shown_names(page, held)}) >= 2:
        return True
    amounts = {(p.currency, p.amount) for i in held for p in page.price[i]}
    if len(amounts) + sum(page.marker[i] for i in held) < 4:
        return False
    # One plan's card may state its price twice (an old price and the offer) in two
    # currencies: four amounts, but one name and at most two in a currency.
    per_currency = Counter(currency for currency, _amount in amounts)
    if len(per_currency) < 2 or max(per_currency.values()) > 2:
        return True
    return sum(bool(page.name[i]) for i in held) > 1


def _heading_before(page: _Page, first: int, limit: int = 60) -> str:
    for i in range(first - 1, -1, -1):
        if page.lines[i].heading and not page.price[i]:
            return _tidy(page.lines[i].text)[:limit]
    return ""


def card_plans(page: SitePage, skipped: set[str] | None = None) -> list[PlanDraft]:
    """The plans of the page's card groups (see the module rules). ``skipped`` receives the
    (normalized) lines no rule may read a plan from: shop plumbing and quotations."""
    root = tree(page.html, skipped)
    if root is None:
        return []
    parsed = _Page(page, root)
    if skipped is not None:
        skipped.update(norm(line.text) for line in parsed.lines if line.quoted)
    groups = parsed.groups()
    cards = {id(g): [c for c in g if parsed.cardish(c) or parsed.asking(c)] for g in groups}
    outer: dict[int, tuple[str, list[str], bool]] = {}  # id(group) -> (edition, features, soon)
    for group in groups:
        for card in cards[id(group)]:
            inner = [g for g in groups if g is not group and card in set(g.iterancestors())]
            inner_lines = {i for g in inner for i in parsed.inside.get(g, [])}
            held = [i for i in parsed.inside.get(card, []) if i not in inner_lines]
            name_at = next((i for i in held if parsed.name[i]), None)
            for g in inner:
                edition = _tidy(parsed.name[name_at]) if name_at is not None else ""
                skip = {name_at} if name_at is not None else set()
                soon = _not_yet(parsed, held, name_at)
                outer[id(g)] = (edition, _features(parsed, held, skip), soon)
    plans: list[PlanDraft] = []
    seen: set[tuple[str, str | None]] = set()
    stated: set[tuple[str, float | None, str | None, str | None]] = set()
    for group in groups:
        edition, inherited, soon = outer.get(id(group), ("", [], False))
        if _heading_before(parsed, min(parsed.inside.get(group, [0])), 300).endswith("?"):
            continue  # cards under a question: a worked example or an answer, not plans
        found: list[PlanDraft] = []
        for card in cards[id(group)]:
            if any(g is not group and card in set(g.iterancestors()) for g in groups):
                continue  # an outer card: its inner cards are the plans
            if _container(parsed, parsed.inside.get(card, [])):
                found = []
                break
            found += _card(parsed, parsed.inside.get(card, []), edition, inherited, soon)
        # A wrapper around cards already read (a section holding the plan row and a note)
        # states those plans again: the same name, amount and period is the same plan.
        found = [p for p in found if _plan_key(p) not in stated]
        if any((p.name.casefold(), p.period) in seen for p in found):
            first = min(parsed.inside.get(group, [0]))
            label = edition or _heading_before(parsed, first)
            for plan in found:
                plan.name = f"{plan.name} ({label})" if label else plan.name
        for plan in found:
            if (plan.name.casefold(), plan.period) not in seen:
                seen.add((plan.name.casefold(), plan.period))
                stated.add(_plan_key(plan))
                plans.append(plan)
    return plans


def _plan_key(plan: PlanDraft) -> tuple[str, float | None, str | None, str | None]:
    return (plan.name.casefold(), plan.price, plan.currency, plan.period)
