"""What may be stored as a customer's or partner's name.

A name is one to five words, at most 60 characters, opening with a capital or a digit,
that is neither a sentence nor a call to action ("Read case study", "Learn more"), nor a
figure of a stats row ("500+", "4.9★", "98%", "24h") or a date ("April 2026"). A logo's
alternative text gives a name once "logo", "image" and file-name noise are taken off, and
the words most logos of a page share at their end ("Crumbly Finder", "Pebble Tea Finder":
the caption of what was built for each) are no part of a name. A count of people, sign-ups or
companies ("12,000 signups", "2M+ developers", "over 500 teams") is never a name ("3M"
alone, or "3M to ...", is one).
"""

from __future__ import annotations

import re
from collections import Counter

MAX_NAME_WORDS = 5
MAX_NAME_CHARS = 60
MIN_SHARED = 3
_LOGO_NOISE = re.compile(
    r"\b(?:logo|logotype|icon|image|img|client|customer)\b|\.(?:png|jpe?g|svg|webp|gif)$|[_-]",
    re.IGNORECASE,
)
_NOT_A_NAME = re.compile(
    r"[.!?:]$|\b(?:read|learn|view|see|more|download|watch|case study|contact|get)\b",
    re.IGNORECASE,
)
# A figure of a stats row ("500+", "4.9", "98%", "$2.1B+") and a year ("NZ · April 2026").
_FIGURE = re.compile(r"^(?:[$€£¥]|\W*[\d.,]+\s*[%+★☆]*\W*$)|\d\w*\+$")
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
_COUNTED = (
    r"sign-?ups?|users?|customers?|clients?|members?|subscribers?|downloads?|installs?|"
    r"installations?|teams?|compan(?:y|ies)|businesses|organi[sz]ations?|developers?|people|"
    r"brands?|accounts?|stores?|shops?|(?:web)?sites?|apps?|creators?|marketers?|makers?|"
    r"professionals?|students?|learners?|schools?|agencies|startups?|enterprises?|"
    r"employees?|engineers?|publishers?|merchants?|visitors?|readers?|countries|cities"
)
_COUNT = re.compile(
    r"^\W*(?:(?:over|more[ \t]+than|about|around|nearly|almost|approximately|some|up[ \t]+to)"
    r"[ \t]+)?(?:\d{1,3}(?:[,.][ \t]?\d{3})+|\d+(?:\.\d+)?)[ \t]*(?:k|m|mm|bn|b|million|"
    rf"billion|thousand|hundred)?\+?[ \t]+(?:[\w-]+[ \t]+){{0,2}}(?:{_COUNTED}|[a-z-]+s)\b",
    re.I,
)


def is_count(text: str) -> bool:
    """Whether ``text`` opens with a count of people, sign-ups or companies ("12,000
    signups", "2M+ developers"): a figure, never a customer's name."""
    return bool(_COUNT.match(text))


def company_name(text: str) -> str | None:
    """``text`` as a customer's or partner's name, or None (see the module docstring)."""
    name = " ".join(text.split()).strip(" ,;|·–—-")
    words = name.split()
    if not 1 <= len(words) <= MAX_NAME_WORDS or len(name) > MAX_NAME_CHARS:
        return None
    if _NOT_A_NAME.search(name) or is_count(name) or _FIGURE.match(name) or _YEAR.search(name):
        return None
    letters = [c for c in name if c.isalpha()]
    if len(letters) < 2 and not any(c.isupper() for c in letters):
        return None  # "24h", "4.9★": a figure; "3M" is a name
    if not (name[0].isupper() or name[0].isdigit()):
        return None
    return name


def logo_text(alt: str) -> str:
    """A logo's alternative text without "logo", "image" and file-name noise."""
    return " ".join(_LOGO_NOISE.sub(" ", alt).split())


def without_shared_words(texts: list[str]) -> list[str]:
    """``texts`` without the trailing words that three or more of them and a fifth of
    them share (a wall's caption of what each logo is: "Crumbly Finder", "Pebble Tea Finder",
    "Crumbly Local Landing Pages"); a text is never cut to nothing."""
    words = [t.split() for t in texts]
    while True:
        counts = Counter(w[-1].casefold() for w in words if len(w) > 1)
        shared = {k for k, n in counts.items() if n >= MIN_SHARED and n * 5 >= len(words)}
        if not shared:
            return [" ".join(w) for w in words]
        words = [w[:-1] if len(w) > 1 and w[-1].casefold() in shared else w for w in words]
