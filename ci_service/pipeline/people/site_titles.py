"""What the rest of a site says about the people its team pages name.

A team page may give a joke title ("Chief Wizard") where a post or press release states the
formal one ("Jane Doe, Co-Founder & Managing Director, said ..."). :func:`title_mentions`
finds a formal title written next to a name: "Name, Title", "Name - Title", "Name (Title)",
"Name is our Title" / "serves as" / "joined Acme as", and "Title Name" ("Acme's CTO Jane
Doe"). A formal title (``people_text.is_formal``) is job-title vocabulary only, so "Jane
Doe, our Chief Wizard" states none. :func:`improve_people` gives each person the first
formal title the site states for them when their own title is a joke title (keeping the
formal part of a mixed one: "Dragon Tamer & CEO" only gives way to a title that says CEO), and
marks founders the site names as such ("co-founder Jane Doe", "founders A B and Jane Doe",
"founded by ... Jane Doe"). It never adds a person.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ci_service.pipeline.evidence import Cite, sentence_at
from ci_service.pipeline.people.text import (
    ROLE_WORDS,
    clean_title,
    formal_parts,
    is_formal,
    vocabulary,
)

_JOINERS = frozenset("and & of for the in".split())
_DETERMINERS = frozenset("our the its their his her a an".split())
_AFTER_NAME = re.compile(r"^\s*(?:,|\(|\s[-–—]|[–—:])\s*(?:who\s+is\s+)?")
_VERB_AFTER = re.compile(
    r"^\s+(?:is|serves\s+as|has\s+been\s+(?:named|appointed)(?:\s+as)?|was\s+(?:named|"
    r"appointed)(?:\s+as)?|(?:joins|joined)\s+(?:\S+\s+){1,3}?as)\s+",
    re.IGNORECASE,
)
_TRAILING = ',.;:)!?"”’'
_FOUNDER = re.compile(r"founder", re.IGNORECASE)


def _title_token(token: str) -> str | None:
    """Whether ``token`` is job-title vocabulary ("word"), and/&/of ("join") or neither."""
    core = token.strip(_TRAILING + '("“‘')
    if core == "&" or core.lower() in _JOINERS:
        return "join"
    words = re.findall(r"[^\W\d_]+", core)
    if core and words and not re.search(r"\d", core) and all(vocabulary(w) for w in words):
        return "word"
    return None


def _forward(rest: str) -> str | None:
    """The title run at the start of ``rest``, ending where a sentence goes on."""
    tokens = rest.split()
    if tokens and (tokens[0].lower() in _DETERMINERS or re.search(r"['’]s$", tokens[0])):
        tokens = tokens[1:]
    run: list[str] = []
    for number, token in enumerate(tokens):
        kind = _title_token(token)
        if kind is None:
            if run and run[-1].lower() in ("of", "at", "for") and token[:1].isupper():
                run.pop()  # "CEO of Acme": the title is "CEO"
            elif token[:1].isupper():
                return None  # "Chief Wizard": the title goes on with another word
            break
        run.append(token)
        if token[-1] in _TRAILING:
            following = tokens[number + 1] if number + 1 < len(tokens) else ""
            if token[-1] != "," or _title_token(following) != "word":
                break
    return _trimmed(run)


def _backward(before: str) -> str | None:
    """The title run just before a name: "Acme's CTO Jane Doe", "co-founder Jane Doe"."""
    run: list[str] = []
    for number, token in enumerate(reversed(before.split())):
        if token[-1] in _TRAILING and (number or token[-1] != ","):
            break
        if _title_token(token) is None:
            break
        run.insert(0, token)
    return _trimmed(run)


def _trimmed(run: list[str]) -> str | None:
    while run and _title_token(run[0]) == "join":
        run = run[1:]
    while run and _title_token(run[-1]) == "join":
        run = run[:-1]
    title = " ".join(run).strip(_TRAILING + "(")
    return title or None


def _formal(title: str | None) -> str | None:
    if not title or not clean_title(title) or not is_formal(title):
        return None
    for word in re.findall(r"[^\W\d_]+", title.lower()):
        if word.endswith("s") and word[:-1] in ROLE_WORDS:
            return None  # "co-founders", "directors": several people
    return title


def _runs(line: str, start: int, end: int, bio_only: bool, founder: bool = False) -> list[str]:
    """Title runs next to the name at ``line[start:end]``; one before the name counts as a
    title only with a capital ("Acme CTO Jane Doe"; "our engineer Jane Doe" is prose)."""
    after, runs = line[end:], []
    if verb := _VERB_AFTER.match(after):
        runs.append(_forward(after[verb.end() :]))
    if not bio_only:
        if sep := _AFTER_NAME.match(after):
            runs.append(_forward(after[sep.end() :]))
        before = _backward(line[:start])
        if before and (founder or any(c.isupper() for c in before)):
            runs.append(before)
    return [run for run in runs if run]


def _name_pattern(name: str) -> str:
    return r"(?<![\w-])" + r"[^\S\n]+".join(map(re.escape, name.split())) + r"(?![\w-])"


def title_mentions(text: str, name: str, bio_only: bool = False) -> list[tuple[str, str]]:
    """(formal title, quote) for each place ``text`` states one next to ``name``;
    ``bio_only``: only "Name is our Title" forms (a bio paragraph naming its person)."""
    found = []
    for match in re.finditer(_name_pattern(name), text):
        found.extend(_mentions_at(text, match.start(), match.end(), bio_only))
    return found


def _mentions_at(text: str, start: int, end: int, bio_only: bool) -> list[tuple[str, str]]:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    found = []
    for run in _runs(line, start - line_start, end - line_start, bio_only):
        if title := _formal(run):
            where = line.find(run)
            low = min(start, line_start + where) if where >= 0 else start
            high = max(end, line_start + where + len(run)) if where >= 0 else end
            found.append((title, sentence_at(text, low, high)))
    return found


def _founder_at(text: str, start: int, end: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    runs = _runs(line, start - line_start, end - line_start, False, founder=True)
    if any(_FOUNDER.search(run) for run in runs):
        return True
    before = line[max(0, start - line_start - 120) : start - line_start]
    return bool(
        re.search(r"[Ff]ounders?\s+(?:[A-Z][\w'’-]+,?\s+){1,4}(?:and|&)\s+$", before)
        or re.search(r"[Ff]ounded\b[^.\n]{0,80}\bby\b[^.\n]{0,80}$", before)
    )


def improve_people(people: Iterable[Any], sources: Iterable[tuple[str, str]]) -> None:
    """Formal titles and founder marks for ``people`` (drafts with name, title, cite,
    founder) from ``sources`` ((url, text), best first); see the module docstring."""
    by_key = {" ".join(p.name.split()).casefold(): p for p in people}
    if not by_key:
        return
    names = sorted((p.name for p in by_key.values()), key=len, reverse=True)
    pattern = re.compile("|".join(_name_pattern(name) for name in names))
    upgraded: set[int] = set()
    for url, text in sources:
        for match in pattern.finditer(text or ""):
            draft = by_key.get(" ".join(match.group(0).split()).casefold())
            if draft is None:
                continue
            start, end = match.start(), match.end()
            draft.founder = draft.founder or _founder_at(text, start, end)
            if id(draft) in upgraded or is_formal(draft.title):
                continue
            keep = [part.casefold() for part in formal_parts(draft.title)]
            for title, quote in _mentions_at(text, start, end, False):
                if all(part in title.casefold() for part in keep):
                    draft.title, draft.cite = title, Cite(url, quote)
                    upgraded.add(id(draft))
                    break
