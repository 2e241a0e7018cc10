"""People read from a page's repeated records (``pipeline.records``): a team grid.

A record set is a team when most of its records are named like people and either most of
them carry a title in their first lines, or the page is about the team (by kind) and the set
is the page's people: a grid of names without titles. In a titled grid on a page about the
team a first name alone ("Maja", "CTO & Co-Founder") is a person; the title may be any short
one the site states on a page about the team, and must be a standard job title elsewhere. A
set under a heading about people who are not the company's (customers, members, community,
students, speakers, investors, reviews, patients, in several languages, and no team word) names
none of its people. A name written in lower case that the stylesheet capitalizes ("jane roe")
takes the capitals the page shows. In an untitled grid a name needs two words and its record
nothing else (no link text, date or line). A set of cards with a person's full name and a
phone number or e-mail address each is a staff directory in any language; the title is the
card's short line that is neither. A set under a heading that says its people have left
(former, alumni, past, in memoriam) is not the company's people, and neither is a set of
quotations (testimonials, reviews): the people quoted are customers.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ci_service.pipeline.people.text import (
    NOT_NAME_WORDS,
    ROLE_WORDS,
    card_title,
    clean_name,
    clean_title,
)
from ci_service.pipeline.records import Record, record_sets

# Most of a set's records must be people, and most of a titled grid's people titled.
NAMED_SHARE = 0.7
MIN_DIRECTORY = 3
TITLED_SHARE = 0.6
_FIRST_NAME = re.compile(r"[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ'’-]{1,19}")
# A phone number or an e-mail address on its own line of a card: a staff directory's.
_CONTACT_LINE = re.compile(r"@[\w-]+\.\w|\+?\d[\d\s()./-]{6,}\d")
_GONE = re.compile(
    r"\b(?:former|alumni|alumnae|past|previous|in memoriam|ehemalige|anciens?|antiguos?|"
    r"voormalige|tidigare|bivši|ex-)\b",
    re.IGNORECASE,
)


# A set of people who are not the company's: its customers, members, community, students,
# speakers, investors, sponsors, the press, guests, reviewers, patients (English, French,
# German, Spanish, Dutch, Swedish, Italian).
_NOT_STAFF = re.compile(
    r"\b(?:customers?|clients?|testimonials?|reviews?|members?|membres|mitglieder|miembros|"
    r"leden|medlemmar|membri|community|communauté|comunidad|gemeenschap|coworkers?|"
    r"résidents?|residents?|students?|étudiants?|studenten|estudiantes|graduates?|speakers?|"
    r"intervenants?|referenten|ponentes|sprekers|talare|relatori|investors?|investisseurs|"
    r"investoren|inversores|sponsors?|press|presse|prensa|guests?|"
    r"invités|participants?|teilnehmer|kunden|klanten|kunder|clientes|clienti|avis|"
    r"bewertungen|reseñas|recensies|recensioner|recensioni|patients?|patiënten|patienten|"
    r"pacientes|pazienti)\b",
    re.IGNORECASE,
)


# "Team members", "Les membres de l'équipe", "Board members": the company's people.
_TEAM_WORD = re.compile(
    r"\b(?:team|teams|staff|board|crew|équipe|equipo|equipe|mitarbeiter|medewerkers|personal|"
    r"personeel|personalen|bestuur|vorstand|directie)\b",
    re.IGNORECASE,
)


def _first_name(raw: str, exclude: Collection[str]) -> str | None:
    """A single given name as a titled team card writes it ("Maja")."""
    text = " ".join(raw.split()).strip(" ,;:|·")
    if not _FIRST_NAME.fullmatch(text):
        return None
    bare = text.lower()
    if bare in NOT_NAME_WORDS or bare in ROLE_WORDS or text.casefold() in exclude:
        return None
    return text


def _lower_name(raw: str, exclude: Collection[str]) -> str | None:
    """A name a stylesheet capitalizes ("jane roe"), as the page shows it."""
    text = " ".join(raw.split())
    if not text.islower() or not 2 <= len(text.split()) <= 3:
        return None
    return clean_name(text.title(), exclude)


def _title_of(record: Record, name: str, about_the_team: bool) -> str | None:
    """The record's title: any short title the site states on a team page, a standard
    job title elsewhere."""
    read = card_title if about_the_team else clean_title
    for line in record.lines[:3]:
        if name.casefold() in line.casefold():
            continue
        if title := read(line):
            return title
    return None


def _directory(full: list[tuple[str | None, Record]]) -> list[tuple[str, str | None]]:
    """A staff directory: cards with a person's full name and a phone number or e-mail
    address, in any language; the title is the card's short line that is neither."""
    named = [(n, r) for n, r in full if n]
    reachable = [(n, r) for n, r in named if any(_CONTACT_LINE.search(line) for line in r.lines)]
    if len(reachable) < MIN_DIRECTORY or len(reachable) < NAMED_SHARE * len(full):
        return []
    out = []
    for name, record in named:
        title = next(
            (
                line
                for line in record.lines
                if not _CONTACT_LINE.search(line)
                and not re.search(r"\d", line)
                and 1 <= len(line.split()) <= 6
                and line[0].isupper()
                and name.casefold() not in line.casefold()
            ),
            None,
        )
        out.append((name, title))
    return out


def _quotations(records: list[Record]) -> bool:
    """A set of testimonials or reviews: the people quoted are customers, not the team."""
    return sum(1 for r in records if r.quoted) * 2 >= len(records)


def people_in_records(
    html: str, base: str, exclude: Collection[str], about_the_team: bool
) -> list[tuple[str, str | None]]:
    """(name, title or None) of the page's team grids, in page order."""
    out: list[tuple[str, str | None]] = []
    for found in record_sets(html, base):
        if _GONE.search(found.heading) or _quotations(found.records):
            continue
        if _NOT_STAFF.search(found.heading) and not _TEAM_WORD.search(found.heading):
            continue  # customers, members, speakers ...: people, not the company's
        full = [(clean_name(r.name, exclude), r) for r in found.records]
        first = [
            (
                n
                or _lower_name(r.name, exclude)
                or (about_the_team and _first_name(r.name, exclude))
                or None,
                r,
            )
            for n, r in full
        ]
        titled = [(n, _title_of(r, n, about_the_team)) for n, r in first if n]
        with_title = sum(1 for _n, t in titled if t)
        if len(titled) >= NAMED_SHARE * len(found.records) and with_title >= TITLED_SHARE * len(
            titled
        ):
            out.extend(titled)
            continue
        directory = _directory(full)
        if directory:
            out.extend(directory)
            continue
        # A grid of bare names (a photo and a name each): no link, date or other line
        # that would make it a list of something else.
        untitled = [(n, None) for n, r in full if n and not r.lines]
        if about_the_team and with_title == 0 and len(untitled) >= NAMED_SHARE * len(full):
            out.extend(untitled)
    return out
