"""Features read from the layout of a product page (``products`` feature helpers).

With HTML (the cards of ``product_layout.cards``), in the order of the page:

- card grids: three or more cards at one level under one group heading (or two under
  each of several sibling headings, six or more in all), each a heading with a short text
  (one or two paragraphs; a long one gives its first sentences as the description) or
  with a list of two or more lines ("Track your results" over "Review stats.", "Analyze
  responses."): the heading is the feature;
- name/description pairs: one block of three or more short names, each followed by the
  line that says what it is ("Routing" / "Send every ticket to the right agent", ...);
- the lines of a list under a feature heading ("Key features", "Capabilities").

Never features: a grid under a heading for audiences, partners, questions, press logos,
testimonials, comments or pricing (``NOT_FEATURE_GROUP``, unless it also says features), a
card named like its own group, a grid most of whose texts are junk (bylines, quotations,
dates, prices), job titles, and site chrome ("Reviews", "Related products", "Email").
ALL-CAPS headings are written in title case.

Without HTML (:func:`section_features`): the lines under headings that mention features,
else three or more h2/h3 headings that each open a short text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ci_service.pipeline.products.layout import (
    BENEFIT_HEADING,
    FEATURE_HEADING,
    MIN_GRID,
    NOT_FEATURE_GROUP,
    Card,
    chrome_name,
    feature_name_ok,
    junk,
    split_line,
    strip_numbering,
)

MAX_TEXT = 700  # a card text longer than this is an article, not a feature's blurb
MAX_DESCRIPTION = 300
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9“\"(])")
_SMALL = frozenset("a an and as at by for in of on or the to with via vs".split())
_SHORT_WORDS = frozenset("all any get new out our own run see set top up use way".split())
JOB_TITLE = re.compile(
    r"\b(?:ceo|cto|cfo|coo|cmo|founder|co-founder|director|president|vp|vice president|"
    r"head of|manager|engineer|officer|chief|chairman|advisor)\b",
    re.IGNORECASE,
)


@dataclass
class FoundFeature:
    name: str
    description: str
    quotes: list[str]  # verbatim candidates for the cite, best first
    scope: str  # the text around it (group, heading), to tell which product it belongs to


def feature_case(name: str) -> str:
    """An ALL-CAPS heading in title case ("VISUAL PROCESS DESIGN" -> "Visual Process
    Design"); short all-caps words stay as acronyms ("API", "QBD")."""
    if not name.isupper() or len(name) <= 4:
        return name
    words = []
    for index, word in enumerate(name.split()):
        bare = re.sub(r"\W", "", word)
        if index and word.casefold() in _SMALL:
            words.append(word.casefold())
        elif len(bare) <= 3 and bare.casefold() not in _SMALL | _SHORT_WORDS:
            words.append(word)
        else:
            words.append(word[:1] + word[1:].casefold() if word[:1].isalpha() else word.title())
    return " ".join(words)


def first_sentences(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """``text`` up to ``limit`` characters, cut after a sentence (else at a word)."""
    if len(text) <= limit:
        return text
    out = ""
    for part in _SENTENCE_END.split(text):
        if out and len(out) + len(part) + 1 > limit:
            break
        out = f"{out} {part}".strip()
    return out if len(out) <= limit else out[:limit].rsplit(" ", 1)[0]


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text, maxsplit=1)[0]


def _text_member(card: Card) -> bool:
    return (
        not card.items
        and 1 <= len(card.texts) <= 2
        and 2 <= len(card.texts[0].split())
        and len(card.texts[0]) <= MAX_TEXT
    )


def _list_member(card: Card) -> bool:
    return (
        len(card.items) >= 2
        and len(card.texts) <= 1
        and all(len(item) <= 200 for item in card.items)
        and not FEATURE_HEADING.search(card.heading)  # a "Key features" list: its lines
    )


def _member(card: Card) -> bool:
    name = strip_numbering(card.heading)
    if not feature_name_ok(name) or name.casefold() == card.group.strip().casefold():
        return False
    return _text_member(card) or _list_member(card)


def _blurb(card: Card) -> tuple[str, list[str]]:
    """The card's description and the quotes that cite it."""
    if card.items and not card.texts:
        lines = [i for i in card.items if not junk(i)]
        description = "; ".join(i.rstrip(" .;") for i in lines)
        return first_sentences(description), [f"{card.heading} {lines[0]}" if lines else ""]
    text = card.texts[0]
    if junk(text):
        return "", []
    first = _first_sentence(text)
    return first_sentences(text), [f"{card.heading} {first}", first]


def _not_features(group: str) -> bool:
    return bool(NOT_FEATURE_GROUP.search(group)) and not FEATURE_HEADING.search(group)


def _grid(run: list[Card]) -> list[FoundFeature]:
    if _not_features(run[0].group):
        return []
    blurbs = [_blurb(card) for card in run]
    if sum(1 for text, _q in blurbs if text) * 2 <= len(run):
        return []  # mostly bylines, quotations or dates: a list of posts or quotes
    out = []
    for card, (text, quotes) in zip(run, blurbs, strict=True):
        if text and not (len(text.split()) <= 6 and JOB_TITLE.search(text)):
            name = feature_case(strip_numbering(card.heading))
            quotes = [q for q in quotes if q] + [card.heading]
            out.append(FoundFeature(name, text, quotes, f"{card.group} {name}"))
    return out


def _pairs(card: Card) -> list[FoundFeature]:
    """A card whose texts open with three or more short names, each followed by the line
    that describes it (what follows the last pair, a summary or a link, is left)."""
    if len(card.texts) < 2 * MIN_GRID or _not_features(card.heading):
        return []
    pairs: list[tuple[str, str]] = []
    for name, description in zip(card.texts[::2], card.texts[1::2], strict=False):
        short = 1 <= len(name.split()) <= 4 and len(name) <= 40
        if not short or not feature_name_ok(name) or name.endswith((".", ",", ";")):
            break
        if not 3 <= len(description.split()) <= 40 or junk(description):
            break
        if JOB_TITLE.search(description) and len(description.split()) <= 6:
            return []  # names and titles: people, not features
        pairs.append((name, description))
    if len(pairs) < MIN_GRID:
        return []
    scope = f"{card.group} {card.heading}"
    return [FoundFeature(feature_case(n), d, [f"{n} {d}", d, n], f"{scope} {n}") for n, d in pairs]


def _list_lines(card: Card) -> list[FoundFeature]:
    scope = " ".join([card.group, card.heading, *card.texts])
    out = []
    for line in card.items:
        parts = split_line(line)
        if parts and not chrome_name(parts[0]):
            out.append(FoundFeature(parts[0], parts[1], [line, parts[0]], scope))
    return out


def html_features(found_cards: list[Card]) -> list[FoundFeature]:
    """Card grids, name/description pairs and lists under a feature heading (see the module
    docstring)."""
    out: list[FoundFeature] = []
    runs: dict[tuple[int, str], list[Card]] = {}  # the grid cards under each heading
    lists: dict[str, list[Card]] = {}  # the list cards under each features heading
    for card in found_cards:
        if _member(card):
            runs.setdefault((card.level, card.group), []).append(card)
        out.extend(_pairs(card))
        intro = " ".join([card.heading, *card.texts[-1:]])
        if len(card.items) >= 2 and FEATURE_HEADING.search(intro):
            out.extend(_list_lines(card))
        elif len(card.items) >= MIN_GRID and not card.texts and FEATURE_HEADING.search(card.group):
            lists.setdefault(card.group, []).append(card)
    # One list under a features heading ("Acme Features" over "Acme at a glance" and its
    # lines) lists features; several such lists are a grid, whose headings are the features.
    for group_lists in lists.values():
        if len(group_lists) == 1:
            out.extend(_list_lines(group_lists[0]))
    # Three cards make a grid; so do two under each of several sibling headings (a page
    # of feature sections with two or three numbered features each).
    per_level = Counter(level for (level, _g), run in runs.items() if len(run) >= 2 for _ in run)
    for (level, _group), run in runs.items():
        if len(run) >= MIN_GRID or (len(run) >= 2 and per_level[level] >= 2 * MIN_GRID):
            out.extend(_grid(run))
    return out


def benefit_lines(found_cards: list[Card]) -> list[str]:
    """ "Heading: text" of the cards under a "Why ..."/benefits heading."""
    out = []
    for card in found_cards:
        if BENEFIT_HEADING.search(card.group) and card.texts and not junk(card.heading):
            out.append(f"{card.heading}: {card.texts[0]}"[:300])
    return out


def section_features(sections: list[tuple[str, int, str]]) -> list[FoundFeature]:
    """Without HTML: the lines under headings that mention features (else three or more
    h2/h3 headings, each with a short first line)."""
    out: list[FoundFeature] = []
    for heading, _level, text in sections:
        if FEATURE_HEADING.search(heading or ""):
            for line in text.splitlines():
                parts = split_line(line)
                if parts and not chrome_name(parts[0]):
                    out.append(FoundFeature(parts[0], parts[1], [line.strip()], heading))
    if out:
        return out
    for heading, level, text in sections:
        heading = (heading or "").strip()
        if level not in (2, 3) or not feature_name_ok(heading):
            continue
        if FEATURE_HEADING.search(heading) or _not_features(heading):
            continue
        first = text.splitlines()[0].strip() if text else ""
        if len(first.split()) < 3 or len(first) > MAX_TEXT or junk(first):
            continue
        description = first_sentences(first)
        quotes = [f"{heading} {_first_sentence(first)}", _first_sentence(first), heading]
        out.append(FoundFeature(feature_case(heading), description, quotes, heading))
    return out if len(out) >= MIN_GRID else []


def section_benefits(sections: list[tuple[str, int, str]]) -> list[str]:
    """Without HTML: the lines under a "Why ..."/benefits heading."""
    return [
        line.strip()[:300]
        for heading, _level, text in sections
        if BENEFIT_HEADING.search(heading or "")
        for line in text.splitlines()
        if line.strip() and not junk(line)
    ]
