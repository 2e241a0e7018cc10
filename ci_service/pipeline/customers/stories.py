"""Customers a site's customer stories name.

- A story's opening sentence "Figurehead Toys uses Acme to ..." (a name that opens the
  sentence, then uses / chose / switched to / relies on the company); a count ("10K Teams
  chose Acme") is no customer.
- A story's headline on a page of customer stories: "How Quanta.io Leverages Acme to ...",
  "Corvid Imaging Gets Better Monitoring With Acme", "Tallyhub Saves 15% Using Acme": one to
  four capitalised words, then a verb of what the story tells (uses, leverages, gets, saves,
  cuts, scales ...), in a heading that names the company or on a story's own page (the
  page's address, or a link of the page, ends in the name: /customers/paperlane/). A name
  that is the company's own, a pronoun or a generic word ("Everyone", "Teams") is none.
"""

from __future__ import annotations

import re

from ci_service.pipeline.customers.names import company_name, is_count
from ci_service.pipeline.customers.pages import slug, spelled
from ci_service.pipeline.evidence import sentence_at
from ci_service.pipeline.html_text import element_text, parse_html
from ci_service.pipeline.records import HEADINGS
from ci_service.pipeline.site import SitePage
from ci_service.pipeline.subject import about_us

MAX_STORIES = 40
_NAME_WORD = r"[A-Z0-9][\w'’&.-]*"
_USES_US = re.compile(
    rf"^({_NAME_WORD}(?:[ \t]+(?:&[ \t]+)?{_NAME_WORD}){{0,4}})[ \t]+(?:uses|used|chose|chooses|"
    r"picked|switched[ \t]+to|relies[ \t]+on|relied[ \t]+on|runs[ \t]+on|built[ \t]+\w+[ \t]+"
    r"\w+[ \t]+with)[ \t]+(\S+(?:[ \t]+\S+)?)",
    re.M,
)
_HEADLINE = re.compile(
    rf"^(?:How[ \t]+)?({_NAME_WORD}(?:[ \t]+(?:&[ \t]+)?{_NAME_WORD}){{0,3}}?)[ \t]+"
    r"(?:uses|used|leverages|leveraged|gets|got|saves|saved|achieves|achieved|cuts|cut|"
    r"scales|scaled|boosts|boosted|improves|improved|reduces|reduced|increases|increased|"
    r"grows|grew|builds|built|drives|drove|streamlines|streamlined|transforms|transformed|"
    r"automates|automated|chooses|chose|switches|switched|relies|relied|runs|ran|powers|"
    r"powered|simplifies|simplified|accelerates|accelerated|doubles|doubled|triples|tripled)"
    r"\b",
    re.I,
)
_NOT_CUSTOMER = set(
    "everyone everybody anyone nobody somebody it he she this that who which our your their "
    "my we you they the a an each every why how what when here there teams companies "
    "businesses customers clients users".split()
)


def _named(name: str, aliases: list[str]) -> str | None:
    name = name.strip()
    if name.split()[0].casefold() in _NOT_CUSTOMER or about_us(name, aliases):
        return None
    return company_name(name)


def customers_using_us(text: str, aliases: list[str]) -> list[tuple[str, tuple[int, int]]]:
    """(name, span) of each "Name uses Acme to ..." sentence opening."""
    out = []
    for match in _USES_US.finditer(text):
        name, target = match.group(1).strip(), match.group(2)
        if not about_us(target, aliases) or is_count(name) or _named(name, aliases) is None:
            continue
        sentence = sentence_at(text, match.start(), match.end())
        if sentence.startswith(name):
            out.append((name, match.span()))
    return out[:MAX_STORIES]


def story_headlines(page: SitePage, aliases: list[str]) -> list[tuple[str, str]]:
    """(name, headline) of each customer story headline of the page (its headings) that
    names the company or is the story's own page."""
    text = " ".join((page.text or "").split())
    doc = parse_html(page.html or "")
    if doc is None:
        return []
    slugs = {slug(url) for url in [page.url, *(url for url, _text in page.links)]}
    out: list[tuple[str, str]] = []
    for heading in doc.iter(*HEADINGS):
        line = element_text(heading)
        found = _HEADLINE.match(line)
        if not found or line not in text:
            continue
        name = _named(found.group(1), aliases)
        if not name or name in (n for n, _ in out):
            continue
        if about_us(line[found.end() :], aliases) or spelled(name) in slugs:
            out.append((name, line))
    return out[:MAX_STORIES]
