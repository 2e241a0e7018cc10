"""Who a sentence is about, for the profile and customers readers: the company (its names,
"we", "our", "the company"), or someone else ("Foundation X was founded in 1995 ...",
"Before Acme, Jane co-founded ...").

- ``about_us``: a company name (compared also without dots, dashes, apostrophes and
  accents: "Acme.io" is "acmeio", "Ac-me" is "acme", "Café" is "cafe"), or with
  ``first_person`` "we / our / us / the company", occurs in the text.
- ``subject_before``: the words of the sentence before a position (a sentence ends at
  ". " before a capital, as ``pipeline.evidence`` splits them, so "Acme, Inc. has" stays one).
- ``names_another``: the last name before a match (a run of capitalised words, less
  function words, months, legal suffixes, datelines and an opening "Originally,") is
  someone else's when none of its words is the company's ("Acme Software was" is ours).
- ``about_blocks``: the text after an "About Acme" line (a press release's boilerplate):
  its sentences are about the company whatever their subject ("The company was ...").
"""

from __future__ import annotations

import re
import unicodedata

FIRST_PERSON = re.compile(r"\b(?:we|our|us|the company)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9£$€])|\n")
_SQUASH = re.compile(r"[.\-_'’·]")
_FUNCTION = set(
    "a an the it its this that these those our we us in on at since back today then after "
    "before when while as and or but so also now by for of with from to here there once "
    "his her he she they their i my you your what who which how why where during between "
    "about over under later soon".split()
)
_MONTHS = set(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_LEGAL = set("inc ltd llc co corp gmbh plc limited ag sa bv srl pty".split())
_LEGAL_SUFFIX = re.compile(
    r"[,\s]+(?:inc|ltd|llc|gmbh|plc|limited|corp|co|s\.?a|b\.?v|ab|as|oy|srl|pty)\.?$", re.I
)
_NAME_RUN = re.compile(r"[A-Z][\w'’.&-]*(?:[ \t]+[A-Z][\w'’.&-]*)*")  # "Acme Software"
ABOUT_BLOCK = 1500  # characters after an "About Acme" line that are the company's boilerplate
_ABOUT_LINE = re.compile(r"^[ \t]*About[ \t]+([^\n]{2,60}?)[ \t]*:?[ \t]*$", re.M)


def squash(text: str) -> str:
    """Case-folded, without dots, dashes, apostrophes and accents ("Café" is "cafe")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return _SQUASH.sub("", "".join(c for c in decomposed if not unicodedata.combining(c)))


def unaccented(text: str) -> str:
    """``text`` with each accented letter as its base letter, one character for one, so
    that a match's positions are the text's ("Café is" -> "Cafe is")."""
    return "".join(unicodedata.normalize("NFKD", c)[:1] or c for c in text)


def without_legal_suffix(name: str) -> str:
    """``name`` without a trailing legal form ("Acme Audio, LLC" -> "Acme Audio")."""
    return _LEGAL_SUFFIX.sub("", name.strip())


def about_us(text: str, aliases: list[str], first_person: bool = False) -> bool:
    low = text.casefold()
    if any(alias in low for alias in aliases):
        return True
    squashed = squash(low)
    if any(len(squash(a)) >= 3 and squash(a) in squashed for a in aliases):
        return True
    return first_person and bool(FIRST_PERSON.search(low))


def subject_before(text: str, start: int) -> str:
    return _SENTENCE_END.split(text[max(0, start - 200) : start])[-1]


def _ours(word: str, aliases: list[str]) -> bool:
    token = squash(word.strip(".,'’"))
    return any((len(token) >= 3 and token in squash(a)) or squash(a) in token for a in aliases if a)


def names_another(subject: str, aliases: list[str]) -> bool:
    """Whether the last name before a match is someone else's ("Foundation X was ..."): the
    company's own name (also with more words: "Acme Software was"), "we" / "the company", or
    no name at all are not."""
    for found in reversed(list(_NAME_RUN.finditer(subject))):
        run = found.group(0)
        opening = not subject[: found.start()].strip()
        if opening and " " not in run and (run.endswith("ly") or subject[found.end() :][:1] == ","):
            continue  # "Originally, the company ...": an opening word, no name
        words = [
            word
            for word in run.split()
            if word.strip(".,'’").casefold() not in _FUNCTION | _MONTHS | _LEGAL
            and not (word.isupper() and about_us(subject, aliases))  # a dateline: "DENVER -"
        ]
        if words:
            return not any(_ours(word, aliases) for word in words)
    return False


def about_blocks(text: str, aliases: list[str]) -> list[tuple[int, int]]:
    """(start, end) of the text after each "About <company>" line."""
    return [
        (match.end(), match.end() + ABOUT_BLOCK)
        for match in _ABOUT_LINE.finditer(text)
        if about_us(match.group(1), aliases)
    ][:10]
