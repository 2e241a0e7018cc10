"""Features read from a page's repeated records (``pipeline.records``): a set of three or
more tiles, each a short name and a line that says what it is ("Geolocation" / "Serve
content by where the shopper is"), however the page marks them up (a bold name and a line
break, list items, ``<dt>``/``<dd>``), in any language.

Never features: a set under a heading for offerings (``product_grids`` reads those),
audiences, customers, questions, news, the team or prices (``NOT_FEATURE_GROUP``); a set
whose records link to pages of their own (a list of pages, not of features); the numbered
steps of a process; quotations, names that are sentences, figures, job titles, prices or
dates.
"""

from __future__ import annotations

import re

from ci_service.pipeline.products.features import JOB_TITLE, FoundFeature, feature_case
from ci_service.pipeline.products.grids import OFFERING_HEADING
from ci_service.pipeline.products.layout import NOT_FEATURE_GROUP, feature_name_ok, junk
from ci_service.pipeline.records import Record, record_sets

MIN_TILES = 3
MAX_NAME_WORDS = 6
# A name needs a word: "3", "<24h", "2014", "5.0☆" are a figure's tiles.
_WORD = re.compile(r"[^\W\d_]{3,}")
# "1. Site assessment", "Step 2": the steps of a process, not what the product does.
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}\s*[.):–-]|step\s+\d)", re.IGNORECASE)
_STEPS_HEADING = re.compile(r"\bhow (?:it|we|this) works?\b|\bsteps?\b|\bprocess\b", re.I)


def _tile(record: Record) -> tuple[str, str] | None:
    """(name, description) of a feature tile, or None."""
    name = " ".join(record.name.split()).strip(" :")
    if record.quoted or not 1 <= len(name.split()) <= MAX_NAME_WORDS or not _WORD.search(name):
        return None
    if name.endswith((".", "!", "?", ",")) or not feature_name_ok(name) or JOB_TITLE.search(name):
        return None
    description = next((line for line in record.lines if len(line.split()) >= 4), "")
    if not description or junk(description) or len(description) > 400:
        return None
    return name, description


def record_features(html: str, base: str, known: set[str]) -> list[FoundFeature]:
    """The feature tiles of the page's record sets (see the module docstring); names in
    ``known`` (casefolded) are left to the rule that found them."""
    out: list[FoundFeature] = []
    for found in record_sets(html, base):
        heading = found.heading
        if NOT_FEATURE_GROUP.search(heading) or OFFERING_HEADING.search(heading):
            continue
        if _STEPS_HEADING.search(heading) or any(_NUMBERED.match(r.name) for r in found.records):
            continue
        if sum(1 for r in found.records if r.link) * 2 > len(found.records):
            continue
        tiles = [t for t in (_tile(r) for r in found.records) if t is not None]
        if len(tiles) < MIN_TILES or len(tiles) < 0.8 * len(found.records):
            continue
        for name, description in tiles:
            if name.casefold() in known:
                continue
            known.add(name.casefold())
            quotes = [f"{name} {description}", description, name]
            out.append(FoundFeature(feature_case(name), description, quotes, f"{heading} {name}"))
    return out
