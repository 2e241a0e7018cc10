"""The site's imprint: the legal notice that names who runs the site and where.

Many countries require a commercial site to name its provider's postal address on a page of
its own ("Impressum" under German and Austrian law, "Mentions légales", "Colofon", "Aviso
legal", "Note legali", "Imprint"). Other legal texts are never read for the profile (they
name other parties' addresses: processors, courts, hosting providers), but the imprint's
first postal address, before any other party is named, is the provider's own: its city is
the headquarters, as weighty as an address block on a contact page.
"""

from __future__ import annotations

import re

from ci_service.pipeline.evidence import Cite
from ci_service.pipeline.profile.places import postal_cities
from ci_service.pipeline.profile.rules import Candidate, segments
from ci_service.pipeline.site import SitePage

IMPRINT = re.compile(
    r"^(?:impressum|imprint|imprints|colofon|colophon|kolofon|impresszum|"
    r"mentions[- _]?l[ée]gales|informations[- _]?l[ée]gales|aviso[- _]?legal|note[- _]?legali|"
    r"legal[- _]?notice|site[- _]?notice|offenlegung)(?:\.html?|\.php)?$",
    re.IGNORECASE,
)
# The provider's block comes first; these start the parts about others (the supervisory
# body, the host, the person responsible for content elsewhere, a dispute board).
_OTHERS = re.compile(
    r"aufsichtsbeh|hosting|hoster|h[ée]bergeur|h[ée]bergement|streitschlichtung|"
    r"haftung|disclaimer|datenschutz|privacy|registergericht|handelsregister|bildnachweis",
    re.IGNORECASE,
)
MAX_PROVIDER_BLOCK = 600  # characters from the top in which the provider's address stands


def is_imprint(page: SitePage) -> bool:
    parts = segments(page)
    title = re.split(r"\s+[|–—·:-]\s+", page.title or "")
    return bool(
        (parts and IMPRINT.match(parts[-1])) or any(IMPRINT.match(t.strip()) for t in title)
    )


def imprint_candidates(page: SitePage, index: int) -> list[Candidate]:
    """The headquarters an imprint page states (see the module docstring)."""
    if not is_imprint(page):
        return []
    text = page.text or ""
    others = _OTHERS.search(text)
    block = text[: min(MAX_PROVIDER_BLOCK, others.start() if others else len(text))]
    for place, start, end in postal_cities(block)[:1]:
        cite = Cite(page.url, text[start:end])
        return [Candidate("headquarters", place, cite, (0, 1, 0, index, start), page.url)]
    return []
