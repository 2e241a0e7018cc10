"""Product names and the sentences that cite them (``products`` discovery helpers).

- :func:`site_name`: the competitor's name (as the site spells it when that is the same
  name: "acme io" -> "Acme.io"), else the site's ``og:site_name`` or the part of the home
  page title other titles share ("Acme | Build apps", "Pricing | Acme" -> "Acme"), else the
  home page's JSON-LD WebSite/Organization name.
- :func:`name_ok`: one to six words, a letter, not a sentence (no final punctuation, not
  opening with we/our/how/why/meet/introducing ...), not a call to action, boilerplate,
  price, date or site chrome ("Reviews", "Glossary"), and not only generic words
  ("Overview", "All products", "Hardware", or the plural of the other products' shared
  kind: "Cloudsuites" beside "Acme Cloudsuite" and "Beta Cloudsuite").
- :func:`natural_case`: an ALL-CAPS or all-lower-case name as the text writes it.
- :func:`mention`: the sentence of the page texts that best names a product (earlier pages
  first; starting with or defining the name, sharing words with its description; never a
  navigation line holding three or more of the page's link texts, never a bare heading
  or a byline; short lines rank below sentences).
- :func:`defining_sentence` / :func:`used_as_product`: whether the company's own name is
  its product ("<Company> is an open-source low-code platform ...", "build with X").
"""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import urlsplit

from ci_service.pipeline import taxonomy
from ci_service.pipeline.evidence import Cite, quote_in, sentences
from ci_service.pipeline.products import layout as layout
from ci_service.pipeline.site import SitePage, SiteSnapshot
from ci_service.pipeline.subject import without_legal_suffix

GENERIC_WORDS = frozenset(
    """overview all our the a an of products product platform platforms solutions solution
    features feature pricing plans plan hardware software services service integrations
    integration partners customers resources docs documentation blog news about company
    careers contact support home enterprise security apps app tools tool more new by for and
    industries industry use cases case teams team tour benefits""".split()
)
PRODUCT_NOUNS = (
    r"platform|software|tool|toolkit|toolbox|app|application|builder|service|solution|"
    r"framework|engine|database|suite|product|system|os|rtos|sdk|api|cms|crm|editor|ide"
)
_NOT_NAME_START = re.compile(
    r"^(?:we|our|your|you|how|why|what|when|where|who|it|this|these|meet|introducing|"
    r"welcome|discover|explore|powering|built|made)\b",
    re.IGNORECASE,
)
TITLE_SPLIT = re.compile(r"\s+[|–—:·-]\s+")
_STOP = frozenset("a an the and or of for to in on with is are be by your you our we it".split())


def site_name(snapshot: SiteSnapshot, company_name: str = "") -> str:
    """``company_name`` (spelled as the site spells the same name), else the site's
    ``og:site_name`` or the part of the home page's title that other titles share ("Acme |
    Build apps" and "Pricing | Acme" -> "Acme"), else the home page's JSON-LD
    WebSite/Organization name."""
    from ci_service.pipeline.products.sources import brand

    if not snapshot.pages:
        return company_name.strip()
    found = brand(snapshot.pages, TITLE_SPLIT, company_name)
    if found:
        return found
    home = next((p for p in snapshot.pages if p.depth == 0), snapshot.pages[0])
    for block in home.json_ld or []:
        if isinstance(block, dict) and block.get("@type") in ("WebSite", "Organization"):
            name = TITLE_SPLIT.split(str(block.get("name") or ""), maxsplit=1)[0].strip()
            if 0 < len(name.split()) <= 4:
                return name
    return ""


def name_ok(name: str) -> bool:
    words = name.split()
    if not 1 <= len(words) <= 6 or len(name) > 60 or not re.search(r"[^\W\d_]", name):
        return False
    if name.endswith((".", "!", "?", ":", ",", ";")) or _NOT_NAME_START.match(name):
        return False
    if layout.junk(name) or "|" in name or layout.chrome_name(name):
        return False
    return not all(w in GENERIC_WORDS for w in taxonomy.normalize(name).split())


def name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])", re.IGNORECASE)


def natural_case(name: str, pages: list[SitePage]) -> str:
    """An ALL-CAPS or all-lower-case name as the text writes it most often ("ACME
    CLOUDSUITE" -> "Acme cloudSuite", "acme" -> "Acme"); title case for ALL CAPS the text
    never writes otherwise."""
    if not (name.isupper() or name.islower()):
        return name
    pattern = name_pattern(name)
    spellings: Counter[str] = Counter()
    for page in pages[:200]:
        spellings.update(
            m.group(0) for m in pattern.finditer(page.text or "") if not m.group(0).isupper()
        )
    mixed = [s for s, _n in spellings.most_common() if not s.islower()]
    if mixed:
        return mixed[0]
    if name.isupper() and len(name) <= 5 and " " not in name:
        return name  # an acronym ("SDK", "CRM")
    return " ".join(w.capitalize() for w in name.split()) if name.isupper() else name


def mention(name: str, pages: list[SitePage], description: str = "") -> Cite | None:
    """The sentence that best names ``name``: earlier pages first; a sentence that starts
    with the name or defines it ("X is ..."), or shares words with ``description``, wins."""
    pattern = name_pattern(name)
    starts = re.compile(r"^(?:the\s+)?" + re.escape(name) + r"(?![\w])", re.IGNORECASE)
    defines = re.compile(re.escape(name) + r"(?:'s)?\W+(?:is|are)\b", re.IGNORECASE)
    wanted = set(taxonomy.normalize(description).split()) - _STOP
    best: tuple[float, Cite] | None = None
    for rank, page in enumerate(pages):
        labels = {t.casefold() for _u, t in page.links if 3 <= len(t) <= 40}
        for sentence in sentences(page.text or ""):
            if len(sentence) > 400 or not pattern.search(sentence) or layout.junk(sentence):
                continue
            lowered = sentence.casefold()
            if sum(label in lowered for label in labels) >= 3:
                continue  # a navigation line ("Home Products Acme CRM Pricing ...")
            words = set(taxonomy.normalize(sentence).split())
            score = min(len(words & wanted), 6) - 2 * rank
            score += 2 * bool(starts.search(sentence)) + 2 * bool(defines.search(sentence))
            if taxonomy.normalize(sentence) == taxonomy.normalize(name):
                score -= 3  # a heading that only names it says nothing about it
            elif len(sentence.split()) < 4:
                score -= 2  # a label or a byline ("CEO, Acme"), not a sentence about it
            if best is None or score > best[0]:
                best = (score, Cite(page.url, sentence))
    return best[1] if best else None


def cite_for(page: SitePage, quotes: list[str]) -> Cite:
    """The first candidate quote found verbatim in the page text (else the first one,
    which then does not resolve: the fact is dropped when saved with evidence)."""
    for quote in quotes:
        if quote and quote_in(page.text or "", quote):
            return Cite(page.url, quote)
    return Cite(page.url, quotes[0] if quotes else "")


def defining_sentence(name: str, pages: list[SitePage]) -> str | None:
    """ "<name> is a/an/the ... platform|software|tool ..." in a page's meta description or
    text: what the company's product is."""
    pattern = re.compile(
        r"^(?:the\s+)?" + re.escape(name) + r"(?:'s)?\s+(?:is|are)\s+(?:a|an|the)\b[^.]{0,120}?"
        rf"\b(?:{PRODUCT_NOUNS})s?\b",
        re.IGNORECASE,
    )
    for page in pages:
        for text in (page.description or "", page.text or ""):
            for sentence in sentences(text):
                if pattern.search(sentence) and len(sentence) <= 400:
                    return sentence
    return None


def company_names(site: str) -> list[str]:
    """The names the company's own product may go by: the site's name, without its legal
    form, and the first word of a longer name ("Acme Audio, LLC" -> "Acme Audio", "Acme")."""
    bare = without_legal_suffix(site)
    names = list(dict.fromkeys(n for n in (site.strip(), bare) if n))
    words = bare.split()
    first = words[0] if words else ""
    if len(words) >= 2 and len(first) >= 3 and first[:1].isupper() and first.isalpha():
        if first.casefold() not in GENERIC_WORDS:
            names.append(first)
    return names


def used_as_product(name: str, pages: list[SitePage]) -> bool:
    """Two or more sentences use ``name`` as a product ("build with X", "X lets you", "the
    X can"), or a page is headed by its features ("X Features")."""
    escaped = re.escape(name)
    pattern = re.compile(
        rf"\b(?:with|using|use|try|self-host|deploy|install|download)\s+(?:the\s+)?{escaped}\b|"
        rf"\b{escaped}\s+(?:auto-generates|lets|helps|allows|enables|supports|outputs|exposes|"
        r"runs|ships|automates|integrates with)\b|"
        rf"\bthe\s+{escaped}\s+(?:is|lets?|can|has|gives|makes|comes|will|does)\b",
        re.IGNORECASE,
    )
    headed = re.compile(rf"^{escaped}\s+(?:features|specifications|specs)\b", re.IGNORECASE)
    if any(headed.match(h or "") for page in pages for h, _level, _text in page.sections):
        return True  # a page headed "X Features" presents the product X
    return sum(len(pattern.findall(page.text or "")) for page in pages) >= 2


def heading_name(page: SitePage) -> str:
    """The name a page is headed by: its h1 when that is a name, else its title's first
    part ("Rent A Car | Acme" -> "Rent A Car")."""
    for heading, level, _text in page.sections:
        if level == 1 and heading.strip() and name_ok(heading.strip()):
            return heading.strip()
    return TITLE_SPLIT.split(page.title or "", maxsplit=1)[0].strip()


def same_words(one: str, other: str) -> bool:
    """The same words whatever their case and punctuation ("RENT A CAR", "Rent a car")."""
    return re.findall(r"\w+", one.casefold()) == re.findall(r"\w+", other.casefold())


def slug_words(url: str) -> set[str]:
    """The words of a URL's last path segment, less generic ones ("/products/acme-flow")."""
    try:
        segments = [s for s in (urlsplit(url).path or "/").lower().split("/") if s]
    except ValueError:
        return set()
    return set(taxonomy.normalize(segments[-1]).split()) - GENERIC_WORDS if segments else set()


def host_of(url: str) -> str:
    """A URL's host without "www." ("" for a malformed one)."""
    try:
        return (urlsplit(url).hostname or "").lower().removeprefix("www.")
    except ValueError:
        return ""
