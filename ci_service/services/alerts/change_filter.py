"""Is a page change worth telling anyone about? (the ``competitor.page_changed`` rule)

A changed page comes with the passages only the new text has (``added``) and those only
the old one had (``removed``). Pages change all the time without saying anything new: a
"last updated" date, a clock, a visitor counter ("1,234 users", "3 days ago"), a copyright
year or a tracking parameter in a link. So each passage is normalised before comparing:

- dates in the usual forms become one token: ISO (``2026-03-03``, with a time),
  numeric (``03/03/2026``, ``3.3.2026``), written (``March 3, 2026``, ``3 Mar 2026``,
  ``Mar 3``, ``March 2026``), and weekday names;
- times (``09:00``, ``9:30 pm``, ``09:00:00 GMT``) and relative times (``3 days ago``,
  ``yesterday``, ``just now``) become the same token, and a run of them ("March 3, 2026
  at 9:30 am") one token;
- numbers (``1,234``, ``12.5k``, ``500+``) become one token, except money (a currency
  symbol or code next to it), percentages and sizes (``10 GB``), which are terms a
  customer cares about;
- a URL loses its query string and fragment (tracking parameters, session ids);
- case, punctuation and whitespace are ignored;
- a passage that is boilerplate (copyright, "all rights reserved", cookie notices) or has
  no word left once those tokens and punctuation are gone counts for nothing.

The change is meaningful when some normalised added passage is not among the normalised
removed ones, or the other way round, and the words left on the two sides, read in order,
differ: a paragraph the extractor now breaks into other lines (a line where a sentence was)
says nothing new. :func:`meaningful_passages` returns the original passages that make it
so (for the event's ``added``/``removed``).

Site chrome (:class:`SiteChrome`, built by the pipeline for each page of a crawl) counts for
nothing either, so a menu that gains or loses an entry changes no page:

- a passage made only of the page's link texts of up to ``MAX_LINK_WORDS`` words each
  ("About", "About Careers": menu entries the extractor kept as text);
- a line found on ``REPEATED_PAGES`` or more pages of the same crawl, or of the
  competitor's pages as stored before it (a menu entry the site has just removed
  everywhere is on no page now, but was on every page then).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
WEEKDAYS = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?\.?"
CURRENCY = r"(?:[$€£¥₹]|\b(?:usd|eur|gbp|chf|cad|aud|jpy|inr|sek|nok|dkk)\b)"
UNITS = r"(?:%|\s?(?:kb|mb|gb|tb|pb|ghz|mhz)\b)"
NUMBER = r"\d[\d,.']*\d|\d"
MAX_LINK_WORDS = 4  # menu entries are short; a linked headline is content
REPEATED_PAGES = 3
MAX_WORD_PAIRS = 250_000  # words added x words removed compared in order, at most

_PATTERNS = [
    # URLs: keep scheme, host and path only.
    (re.compile(r"((?:https?://|www\.)[^\s?#]*)[?#]\S*"), r"\1"),
    # ISO date-times and dates.
    (
        re.compile(
            r"\b\d{4}-\d{1,2}-\d{1,2}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
            r"(?:z|[+-]\d{2}:?\d{2})?)?\b"
        ),
        " ‹date› ",
    ),
    # Numeric dates: 03/03/2026, 3.3.26, 2026/03/03.
    (re.compile(r"\b\d{1,4}[/.]\d{1,2}[/.]\d{1,4}\b"), " ‹date› "),
    # Written dates: "March 3, 2026", "Mar 3rd", "3 March 2026", "March 2026".
    (
        re.compile(
            rf"\b(?:{MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
            rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTHS}(?:,?\s+\d{{4}})?"
            rf"|{MONTHS}\s+\d{{4}})(?!\w)"
        ),
        " ‹date› ",
    ),
    (re.compile(rf"\b{WEEKDAYS}(?!\w)"), " ‹date› "),
    # Times: 09:00, 9:30 pm, 09:00:00 GMT.
    (
        re.compile(
            r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?(?:\s*(?:utc|gmt|[a-z]st|[a-z]dt))?"
            r"(?!\w)|\b\d{1,2}\s*[ap]\.?m\.?(?!\w)"
        ),
        " ‹time› ",
    ),
    # Relative times.
    (
        re.compile(
            r"\b(?:\d+|an?|one|a few)\s+(?:second|minute|min|hour|hr|day|week|month|year)s?"
            r"\s+ago\b|\b(?:just now|yesterday|today|tomorrow)\b"
        ),
        " ‹time› ",
    ),
]
_MONEY = re.compile(rf"{CURRENCY}\s?(?:{NUMBER})|(?:{NUMBER})\s?{CURRENCY}|(?:{NUMBER}){UNITS}")
_COUNT = re.compile(rf"(?<![\w‹])(?:{NUMBER})(?:\s?[km]\b|\+)?")
_BOILERPLATE = re.compile(
    r"©|\(c\)\s*\d|\bcopyright\b|all rights reserved|\bcookies?\b.*\b(?:use|accept|consent)"
    r"|skip to (?:main )?content|^\s*(?:loading|advertisement)\W*$"
)
_TOKEN = re.compile(r"‹\w+›")
_WHEN_RUN = re.compile(r"‹when›(?:[\s,.@–-]*(?:at|on|from)?[\s,.@–-]*‹when›)+")
_WORD = re.compile(r"[^\W\d_]{2,}")


def normalize_passage(text: str) -> str:
    """The passage with dates, times, counters, URL queries, case and spacing made equal;
    "" for boilerplate or a passage with no word of its own."""
    # Entities decoded: text stored before entities were decoded at collection ("We&rsquo;ve")
    # reads the same as the same text collected since ("We’ve"), not as a change.
    value = " ".join(html.unescape(str(text or "")).split()).casefold()
    if not value or _BOILERPLATE.search(value):
        return ""
    for pattern, repl in _PATTERNS:
        value = pattern.sub(repl, value)
    kept: list[str] = []

    def keep(match: re.Match) -> str:  # money, percentages and sizes stay as written
        kept.append(re.sub(r"\s+", "", match.group(0)))
        return f" ‹kept{len(kept) - 1}› "

    value = _MONEY.sub(keep, value)
    value = _COUNT.sub(" ‹n› ", value)
    # "March 3, 2026 at 9:30 am" and "2026-03-03 09:30" are one moment either way.
    value = _WHEN_RUN.sub(" ‹when› ", value.replace("‹date›", "‹when›").replace("‹time›", "‹when›"))
    if not _WORD.search(_TOKEN.sub(" ", value)) and not kept:
        return ""
    value = " ".join(re.sub(r"[^\w‹›]+", " ", value).split())  # punctuation says nothing
    for number, text_kept in enumerate(kept):
        value = value.replace(f"‹kept{number}›", text_kept)
    return value


@dataclass
class SiteChrome:
    """What counts as site chrome on one page: its link texts and the lines the site
    repeats on several pages (normalised with :func:`normalize_passage`)."""

    link_texts: frozenset[str] = frozenset()
    repeated: frozenset[str] = frozenset()
    _ordered: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    @classmethod
    def of(cls, link_texts: Iterable[str], repeated: Iterable[str] = ()) -> SiteChrome:
        """``link_texts`` as the page lists them (raw); ``repeated`` normalised lines."""
        texts = set()
        for text in link_texts:
            norm = normalize_passage(text)
            if norm and len(norm.split()) <= MAX_LINK_WORDS:
                texts.add(norm)
        return cls(frozenset(texts), frozenset(repeated))

    def __post_init__(self) -> None:
        # Longest first, so "pricing plans" is taken before "pricing".
        self._ordered = sorted(self.link_texts, key=len, reverse=True)

    def covers(self, passage: str) -> bool:
        """Whether ``passage`` (raw) is chrome: a repeated line or only link texts."""
        norm = normalize_passage(passage)
        if not norm:
            return False
        if norm in self.repeated:
            return True
        if not self._ordered:
            return False
        padded = f" {norm} "
        for text in self._ordered:
            while f" {text} " in padded:
                padded = padded.replace(f" {text} ", " ", 1)
        return not padded.strip()


def repeated_lines(texts: Iterable[str], min_pages: int = REPEATED_PAGES) -> frozenset[str]:
    """Normalised lines found in ``min_pages`` or more of ``texts`` (one text a page)."""
    counts: Counter[str] = Counter()
    for text in texts:
        lines = {normalize_passage(line) for line in str(text or "").splitlines()}
        counts.update(line for line in lines if line)
    return frozenset(line for line, count in counts.items() if count >= min_pages)


def meaningful_passages(
    added: list[str], removed: list[str], chrome: SiteChrome | None = None
) -> tuple[list[str], list[str]]:
    """The added and removed passages whose normalised form the other side lacks, less
    ``chrome`` and less passages that only break the same words into other lines."""

    def usable(passages: list[str]) -> list[tuple[str, str]]:
        out = []
        for passage in passages or []:
            if isinstance(passage, str) and not (chrome and chrome.covers(passage)):
                out.append((passage, normalize_passage(passage)))
        return out

    new, old = usable(added), usable(removed)
    new_counts = Counter(n for _p, n in new if n)
    old_counts = Counter(n for _p, n in old if n)
    only_new = new_counts - old_counts
    only_old = old_counts - new_counts

    def pick(items: list[tuple[str, str]], wanted: Counter) -> list[tuple[str, str]]:
        out = []
        for passage, norm in items:
            if norm and wanted[norm] > 0:
                wanted[norm] -= 1
                out.append((passage, norm))
        return out

    return _reworded(pick(new, only_new), pick(old, only_old))


def _reworded(
    new: list[tuple[str, str]], old: list[tuple[str, str]]
) -> tuple[list[str], list[str]]:
    """The passages holding a word the other side does not have at that place: the words
    of each side are read in order and matched (``difflib``), so a paragraph now broken
    into other lines or sentences drops out and a changed word keeps its passage."""
    if not new or not old:
        return [p for p, _n in new], [p for p, _n in old]

    def words(items: list[tuple[str, str]]) -> tuple[list[str], list[int]]:
        tokens, owner = [], []
        for number, (_passage, norm) in enumerate(items):
            for token in norm.split():
                tokens.append(token)
                owner.append(number)
        return tokens, owner

    (new_words, new_owner), (old_words, old_owner) = words(new), words(old)
    if len(new_words) * len(old_words) > MAX_WORD_PAIRS:
        # A rewrite this large is a change whatever its line breaks; matching it word by
        # word (quadratic without difflib's junk heuristic) would stall the collect.
        return [p for p, _n in new], [p for p, _n in old]
    matcher = SequenceMatcher(None, old_words, new_words, autojunk=False)
    new_changed: set[int] = set()
    old_changed: set[int] = set()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            old_changed.update(old_owner[i] for i in range(i1, i2))
            new_changed.update(new_owner[j] for j in range(j1, j2))
    return (
        [p for number, (p, _n) in enumerate(new) if number in new_changed],
        [p for number, (p, _n) in enumerate(old) if number in old_changed],
    )


def meaningful_change(
    added: list[str], removed: list[str], chrome: SiteChrome | None = None
) -> bool:
    """True when the change says something beyond dates, times, counters, tracking
    parameters, boilerplate, case, spacing, line breaks and site chrome."""
    more, fewer = meaningful_passages(added, removed, chrome)
    return bool(more or fewer)
