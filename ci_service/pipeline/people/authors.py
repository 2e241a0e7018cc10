"""The company's people named in its posts' author boxes.

Posts never give people by their cards or lines (guests, interviewees and commenters write
there too), but an author box that gives the author's job at the company itself is a
statement about its staff: the author's name on one line, then a job title and the company
on the next ("Jana Novak" / "Founder & CEO @acme", "Head of Sales at Acme", "Leiterin
Vertrieb bei Acme"). The company is recognised by the site's host name ("acme" of
acme.example) or its brand (the part three or more page titles share); the title must be a
job title (``text.clean_title``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ci_service.pipeline.evidence import Cite
from ci_service.pipeline.page_kind_names import POST
from ci_service.pipeline.people.text import clean_name, clean_title
from ci_service.pipeline.site import SiteSnapshot

_TITLE_AT = re.compile(
    r"^(?P<title>.{2,60}?)\s*(?:@|\s(?:at|bei|chez|hos|på|presso|en|bij)\s)\s*"
    r"(?P<org>[\w .&-]{2,40})$"
)
_TITLE_SPLIT = re.compile(r"\s+[|–—·:-]\s+")
MAX_AUTHORS = 10


def _squashed(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.casefold())


def _own_names(snapshot: SiteSnapshot) -> set[str]:
    """The company's names, squashed: its host's first label and the part of the page titles
    that three or more pages share (the brand)."""
    names = set()
    host = (urlsplit(snapshot.start_url).hostname or "").removeprefix("www.")
    if host and not host[0].isdigit() and host != "localhost":
        names.add(_squashed(host.split(".")[0]))
    counts: dict[str, int] = {}
    for page in snapshot.pages[:200]:
        for part in {p.strip() for p in _TITLE_SPLIT.split(page.title or "") if p.strip()}:
            counts[part] = counts.get(part, 0) + 1
    names |= {_squashed(part) for part, n in counts.items() if n >= 3 and len(part.split()) <= 3}
    return {n for n in names if len(n) >= 3}


def post_authors(snapshot: SiteSnapshot) -> list[tuple[str, str, Cite]]:
    """(name, title, cite) of the authors whose boxes on the snapshot's posts give their job
    at the company (see the module docstring)."""
    names = _own_names(snapshot)
    if not names:
        return []
    found: dict[str, tuple[str, str, Cite]] = {}
    for page in snapshot.pages:
        if page.kind != POST:
            continue
        lines = [line.strip() for line in (page.text or "").splitlines()[:40]]
        for above, line in zip(lines, lines[1:], strict=False):
            match = _TITLE_AT.match(line)
            if not match or _squashed(match.group("org")) not in names:
                continue
            name, title = clean_name(above), clean_title(match.group("title"))
            if name and title and name.casefold() not in found:
                found[name.casefold()] = (name, title, Cite(page.url, f"{above} {line}"))
        if len(found) >= MAX_AUTHORS:
            break
    return list(found.values())
