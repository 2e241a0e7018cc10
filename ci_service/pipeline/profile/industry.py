"""The industry of ``pipeline.profile.extract``: what the company says it is or makes, never a
default. A company describes itself in a few set phrasings:

- "Acme is a / an / the <descriptor>" and the appositive "Acme, a <descriptor>, announced"
  (press releases), on any page with the company's name as the subject;
- "We are a <descriptor>", "Acme / We build / make / develop / provide / offer / create
  <descriptor>" on profile pages and the home page;
- the home page's meta description ("Acme is a simple online survey tool ...", or a bare
  "Accounting software that ..."), its title in those phrasings ("Acme, the complete
  solution for scheduling meetings") and, last, a segment of its title.

The descriptor is the noun phrase up to its head noun (software, platform, tool, provider,
company, ...): "a provider / developer / maker of X" gives X; "a <words> company / startup /
firm" gives the words; praise ("simple", "leading", "cloud-based", "venture-backed") is
dropped, and a phrase left with only generic words ("a powerful platform", "a startup") is
no industry. "software for research and development" keeps its "for" domain when the words
before the head are generic, unless it names an audience ("tools for engineering teams") or
is a verb alone ("a platform for building"; "solution for scheduling meetings" is one).
Testimonials (sentences in quotation marks) are not the company speaking. Order: sentences
of profile and home pages, then the meta description, then sentences of other pages, then
the home title; the sentence is the quote (the meta description and title cite the page).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ci_service.pipeline.evidence import Cite, sentence_at
from ci_service.pipeline.profile import industry_languages as languages
from ci_service.pipeline.profile.rules import COPYRIGHT, MAX_MATCHES, MAX_TEXT, Candidate
from ci_service.pipeline.site import SitePage
from ci_service.pipeline.subject import about_blocks, squash, unaccented

MAX_LABEL = 80
_TOKEN = re.compile(r"[A-Za-z0-9#](?:[\w'’&/+#-]|\.(?=\w))*|[^\w\s]")  # "Node.js", not "x."
_HEADS = set(
    "software platform platforms tool tools toolkit solution solutions service services app "
    "apps application applications company startup provider developer maker vendor supplier "
    "manufacturer creator publisher marketplace agency consultancy studio firm network "
    "framework suite system engine builder editor database api apis sdk crm erp cms saas "
    "paas iaas environment hypervisor library business leader pioneer broker brokerage "
    "clinic practice school academy center centre store shop retailer distributor installer "
    "contractor consultant consultants lab laboratory bank lender insurer doctor dentist "
    "producer integrator reseller rental rentals".split()
)
_OF_HEADS = set("provider developer maker vendor supplier manufacturer creator publisher "
                "leader pioneer".split())  # fmt: skip
_NAME_HEADS = set("company startup firm business".split())  # "a payments company": payments
_STOP = set(
    "that which who whose to with where designed built used allowing helping enabling making "
    "so because since while founded based headquartered located on by from in at like than "
    "into across through via using is are was were has have will can lets let as of for "
    "you your we our it its their this".split()
)
_FILLER = set(
    "simple modern leading innovative powerful ridiculously easy-to-use best-in-class world's "
    "world’s first only new next-generation next-gen award-winning venture-backed vc-backed "
    "fast-growing fastest-growing free complete comprehensive all-in-one ultimate smart "
    "beautiful elegant flexible intuitive easy fast secure trusted global cloud-based "
    "cloud-native premier top unique revolutionary ground-breaking groundbreaking friendly "
    "small big great better best true full-featured very most more really truly extremely "
    "affordable privately-held privately held independent young growing #1 one-stop the a "
    "an".split()
)
# Heads that say nothing alone ("a platform"); "a CRM", "a marketplace", "an agency" do.
_GENERIC = _HEADS - set("marketplace agency consultancy database crm erp cms hypervisor".split())
_GENERIC |= set(
    "cloud online digital web way option answer choice team one alternative product products "
    "technology technologies and & of for the solution-based based".split()
)
_AUDIENCE = set(
    "teams developers engineers companies businesses organizations organisations enterprises "
    "marketers publishers agencies people users customers brands startups professionals "
    "scientists individuals everyone anyone you".split()
)
_IMPERATIVE = set(
    "build create make get start manage deploy ship run try discover meet welcome find grow "
    "automate design connect power bring turn take go join sign learn see explore transform "
    "simplify launch send sell track collect protect secure scale write engage increase drive "
    "generate say stop home log contact".split()
)
_QUOTES = re.compile(r"[\"“”]")
# A title's or description's parts: "Acme | Mortgage broker", "Acme – Pricing".
TITLE_PARTS = re.compile(r"\s+[|–—:-]\s+")


# "family-owned", "owner-managed", "Berlin-based": how the company is held or where it
# sits, not what it does.
_HELD = ("-based", "-owned", "-run", "-managed", "-operated", "-led", "-held")
_SPECIALIZING = set("specializing specialising specialized specialised focused focusing".split())


def _words(tokens: list[str]) -> list[str]:
    return [t for t in tokens if t.casefold() not in _FILLER and not t.casefold().endswith(_HELD)]


def _speciality(tokens: list[str]) -> list[str]:
    """ "specializing in the production of steel structures and ..." -> "production of
    steel structures": what a company says it specializes in."""
    if len(tokens) < 3 or tokens[0].casefold() not in _SPECIALIZING:
        return []
    if tokens[1].casefold() not in ("in", "on"):
        return []
    out: list[str] = []
    for token in tokens[2:12]:
        low = token.casefold()
        if not token[0].isalnum() or (low in _STOP and low != "of") or low == "and":
            break
        if out or low not in ("the", "a", "an"):
            out.append(token)
    return out if out and out[-1].casefold() != "of" else []


def descriptor(rest: str, strict: bool = False) -> str | None:
    """The industry a noun phrase states ("simple online survey tool that ..." -> "online survey
    tool"), or None; ``strict``: only "a provider of X" / "an X company" phrasings."""
    tokens = _TOKEN.findall(rest[:240])
    pre: list[str] = []
    head, i = "", 0
    while i < len(tokens) and len(pre) <= 7:
        token, low = tokens[i], tokens[i].casefold()
        i += 1
        if token == ",":
            continue  # "a modern, open source platform": a list of adjectives
        if not (token[0].isalnum() or token[0] == "#") or low in _STOP:
            return None
        if low in _HEADS:
            head = token
            break
        pre.append(token)
    while head and i < len(tokens) and tokens[i].casefold() in _HEADS:  # "CRM software"
        pre, head, i = [*pre, head], tokens[i], i + 1
    if not head or (strict and head.casefold() not in _OF_HEADS | _NAME_HEADS):
        return None
    follow = tokens[i].casefold() if i < len(tokens) else ""
    tail: list[str] = []
    for token in tokens[i + 1 : i + 9] if follow in ("of", "for") else ():
        if not token[0].isalnum() or token.casefold() in _STOP - {"and", "for", "of"}:
            break
        tail.append(token)
    if head.casefold() in _OF_HEADS:
        return descriptor(" ".join(tail)) if follow == "of" and tail else None
    core = _words(pre)
    if head.casefold() in _NAME_HEADS and not [w for w in core if w.casefold() not in _GENERIC]:
        if speciality := _speciality(tokens[i:]):
            return _label(speciality)  # "a family company specializing in X"
    if head.casefold() in _NAME_HEADS:
        words = core
    else:
        words = [*core, head]
    specific = [w for w in core if w.casefold() not in _GENERIC]
    if not specific and head.casefold() in _GENERIC:
        domain = [w for w in tail if w.casefold() not in _FILLER]
        if follow != "for" or not domain or domain[-1].casefold() in _AUDIENCE:
            return None
        if head.casefold() in _NAME_HEADS:
            return None
        if domain[0].casefold().endswith("ing") and len(domain) < 2:
            return None  # "a platform for building": what it builds is not said
        words = [head, "for", *domain]
    return _label(words)


def _label(words: list[str]) -> str | None:
    if not words:
        return None
    titled = sum(w[:1].isupper() for w in words) > len(words) / 2
    if titled:  # "Private Computing": a title's capitals are no names
        words = [w if w.isupper() or any(c.isupper() for c in w[1:]) else w.lower() for w in words]
    label = " ".join(words).replace(" ,", ",")
    label = label[:1].upper() + label[1:]
    return label if 3 <= len(label) <= MAX_LABEL else None


def _alias_pattern(aliases: list[str]) -> str:
    """The company's names, with or without their dots and dashes ("Acme.io", "acmeio"),
    without accents: the text is matched without its accents too (``unaccented``)."""
    forms = sorted({squash(a) for a in aliases if len(squash(a)) >= 3}, key=len, reverse=True)
    return "|".join(r"[.\-'’]?".join(map(re.escape, form)) for form in forms)


Reader = Callable[[str, bool], "str | None"]  # (text after the match, strict) -> industry


def _rules(aliases: list[str], language: str = "") -> list[tuple[re.Pattern[str], bool, Reader]]:
    """(pattern whose match ends where the descriptor starts, profile and home pages only,
    the descriptor's reader): the English phrasings, and the page's language's
    (``profile.industry_languages``; only where the company is surely the subject)."""
    names = _alias_pattern(aliases)
    spoken = languages.language_of(language)

    def foreign(rest: str, strict: bool) -> str | None:
        return None if strict else languages.descriptor(spoken, rest)

    english = [(re.compile(rx, re.I), home_only, descriptor) for rx, home_only in _english(names)]
    # The text is matched without its accents ("vi är" as "vi ar"), so are the phrasings.
    return english + [
        (re.compile(unaccented(rx), re.I), home_only, foreign)
        for rx, home_only in languages.phrasings(spoken, names)
    ]


def _english(names: str) -> list[tuple[str, bool]]:
    # "Acme Software, Inc.": the name, more words of it, a legal suffix
    legal = (
        r"(?-i:(?:[ \t]+[A-Z][\w.-]*){0,2})(?:,?[ \t]+(?:Inc|Ltd|LLC|GmbH|Corp|Co|Limited|plc)\.?)?"
    )
    rules = [
        (r"\b(?:we[ \t]+are|we['’]re)[ \t]+(?:a|an|the)[ \t]+", True),
        (r"\bwe[ \t]+(?:build|make|develop|provide|offer|create)[ \t]+", True),
    ]
    if names:
        rules += [
            (rf"(?<![\w.])(?:{names}){legal}[ \t]+(?:is|was)[ \t]+(?:a|an|the)[ \t]+", False),
            (rf"(?<![\w.])(?:{names}){legal}[ \t]*,[ \t]+(?:a|an|the)[ \t]+", False),
            (rf"(?<![\w.])(?:{names}){legal}[ \t]+(?:builds|makes|develops|provides|offers|creates)"
             r"[ \t]+", True),
        ]  # fmt: skip
    return rules


_PREPOSITION = re.compile(
    r"\b(?:like|than|unlike|vs|versus|with|from|to|by|of|as|and|or)\W*$", re.I
)


def industry_candidates(
    page: SitePage, rank: int, index: int, aliases: list[str]
) -> list[Candidate]:
    """The industry each self-description of ``page`` states (see the module docstring)."""
    text = page.text[:MAX_TEXT]
    found: list[Candidate] = []
    # Elsewhere than profile and home pages (a blog post: "Acme is a complex system") only
    # "a provider of X", "an X company" or the "About Acme" boilerplate say what it is.
    blocks = about_blocks(text, aliases)
    plain = unaccented(text)
    for pattern, home_only, read in _rules(aliases, page.language):
        if home_only and rank > 1:
            continue
        for match in list(pattern.finditer(plain))[:MAX_MATCHES]:
            sentence = sentence_at(text, match.start(), match.end())
            before = text[max(0, match.start() - 30) : match.start()]
            if (
                _QUOTES.search(sentence)
                or COPYRIGHT.search(sentence)
                or _PREPOSITION.search(before)
            ):
                continue  # a testimonial, a footer, "tools like Acme, a ..."
            strict = rank > 1 and not any(a <= match.start() < b for a, b in blocks)
            if (label := read(text[match.end() :], strict)) and not _named(label, aliases):
                order = (0 if rank <= 1 else 2, rank, index, match.start())
                found.append(
                    Candidate("industry", label, Cite(page.url, sentence), order, page.url)
                )
    if rank == 1:  # the home page
        found += _home_candidates(page, index, aliases)
    return found


def _home_candidates(page: SitePage, index: int, aliases: list[str]) -> list[Candidate]:
    """The home page's meta description, then its title's segments (not the brand's)."""
    found = []
    description = " ".join((page.description or "").split())
    label = None
    rules = _rules(aliases, page.language)
    plain = unaccented(description)
    for pattern, _home_only, read in rules:
        if match := pattern.search(plain):
            label = read(description[match.end() :], False)
            break
    else:
        label = _bare(description, aliases)
    if label and not _named(label, aliases):
        found.append(Candidate("industry", label, None, (1, 1, index, 0), page.url))
    title = " ".join((page.title or "").split())
    plain = unaccented(title)
    for pattern, _home_only, read in rules:  # "Acme, the complete solution for ..."
        match = pattern.search(plain)
        if match and (label := read(title[match.end() :], False)) and not _named(label, aliases):
            found.append(Candidate("industry", label, None, (2, 1, index, 0), page.url))
            break
    parts = [p for p in TITLE_PARTS.split(page.title or "")[:4] if p]
    for part in parts:
        if not any(squash(a) in squash(part) for a in aliases):
            if (label := _bare(part, aliases)) and not _named(label, aliases):
                found.append(Candidate("industry", label, None, (3, 1, index, 0), page.url))
                return found
    if page.language and not page.language.startswith("en"):
        # No phrasing rules for this language: the title's (or a short description's)
        # segment beside the brand says what the company is ("Brand | Mortgage broker").
        if len(description.split()) <= 12:
            parts += [p for p in TITLE_PARTS.split(description) if p]
        for part in parts:
            if label := _segment_label(part, page, aliases):
                found.append(Candidate("industry", label, None, (4, 1, index, 0), page.url))
                break
    return found


def _segment_label(part: str, page: SitePage, aliases: list[str]) -> str | None:
    """A title segment that can name a trade: two to seven words, not a sentence, not the
    brand's, no year or price, and not a page of the site (a link text: "Home", "Blog")."""
    text = " ".join(part.split()).strip(" ,;")
    if not 2 <= len(text.split()) <= 7 or text.endswith((".", "!", "?")) or text.isupper():
        return None
    if _named(text, aliases) or re.search(r"\b(?:19|20)\d\d\b|[$€£¥%]", text):
        return None
    if text.casefold() in {" ".join(t.split()).casefold() for _u, t in page.links}:
        return None
    return _label(text.split())


def _named(label: str, aliases: list[str]) -> bool:
    """Whether ``label`` holds the company's name ("Acme software" is no industry)."""
    return any(squash(a) in squash(label) for a in aliases if len(squash(a)) >= 3)


def _verb_ing(words: list[str]) -> bool:
    """A phrase opened by a verb in -ing ("Building the future", "Helping teams grow"); an
    -ing noun of a trade ("Marketing agency", "Accounting software") opens an industry."""
    first = words[0].casefold()
    if not first.endswith("ing"):
        return False
    after = words[1].casefold().strip(",.") if len(words) > 1 else ""
    return not after or after in _STOP or after in _AUDIENCE or after in _FILLER


def _bare(phrase: str, aliases: list[str]) -> str | None:
    """A bare noun phrase that opens a description or title ("Accounting software that")."""
    words = phrase.split()
    while words and (
        words[0].casefold() in ("the", "a", "an") or _named(words[0].strip(",.:"), aliases)
    ):
        words = words[1:]  # "The Acme CRM software ..." -> "CRM software ..."
    first = words[0].casefold().strip(",.") if words else ""
    if not first or first in _IMPERATIVE or first in _STOP or _verb_ing(words):
        return None
    return descriptor(" ".join(words))
