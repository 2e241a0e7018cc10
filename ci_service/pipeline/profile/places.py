"""Places for ``pipeline.profile.extract``: a clean "City, Region" from a phrase or a postal address
block, and the addresses a page states in markup (schema.org ``PostalAddress`` in JSON-LD
or microdata, the page footer).

- ``clean_place``: "Leeds, UK" from a regex match (street lines, postal codes, months
  and words such as "our" or "global" are not places).
- ``address_place``: the city of an address block: a US line "City, ST 12345" or
  "City, State 12345" (state spelt out), else a city before a country line.
- ``markup_addresses``: (place, quote) pairs from JSON-LD ``PostalAddress`` objects (of any
  type: an organization, a place, a contact point), microdata ``itemprop`` address parts
  and street-address blocks in ``<footer>`` or ``<address>`` elements (on a page without
  them, in the elements its class or id marks as the footer).
"""

from __future__ import annotations

import html as html_lib
import re
from itertools import islice
from typing import Any

_MONTH_NAMES = set(
    "jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june "
    "july august september october november december".split()
)
NOT_PLACE = set(
    "the our a an we you it this home contact about pricing blog global corporate company "
    "main world international group regional european emea apac americas asian former "
    "visit get see read learn sign log".split()
)
_STREET_WORD = (
    r"\b(?:street|st|road|rd|avenue|ave|lane|ln|way|drive|dr|boulevard|blvd|crescent|place|pl|"
    r"square|sq|suite|ste|floor|building|house|court|rue|via|calle|avenida|park|unit|po box|"
    r"bulevar|boulevard|ulica|ul|trg|cesta|piazza|viale|plaza|avenue|allee|platz|ring|hwy|"
    r"highway|pkwy|parkway|plass|vei|veien|gate|gata|gade|väg|vägen)\b\.?"
    r"|\w(?:straße|strasse|str\.|gasse|weg|plein|laan|straat|vej|gatan|katu)\b"
)
_STREET = re.compile(rf"^\d+[a-z]?\b|(?:{_STREET_WORD})$", re.I)  # "Main St", not "St. Louis"
_STREET_LINE = re.compile(rf"^(?=[^\n]*\d)(?=[^\n]*(?:{_STREET_WORD}))[^\n]{{4,80}}$", re.I)
US_STATES = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|"
    "Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|"
    "Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|"
    "New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|"
    "Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|"
    "Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming|District of Columbia"
)
# "Austin, TX 78701", "Provo, Utah 84601": a US city line with its ZIP code.
_US_CITY = re.compile(
    rf"\b([A-Z][A-Za-z.'-]*(?:[ \t][A-Z][A-Za-z.'-]*){{0,3}}),[ \t]*({US_STATES}|[A-Z]{{2}})"
    r"[ \t]+\d{5}(?:-\d{4})?\b"
)
_POSTAL = re.compile(r"\b(?:\d{4,6}|[A-Z]{1,2}\d[A-Z\d]?[ \t]*\d[A-Z]{2})\b")
COUNTRIES = {
    c.casefold(): c
    for c in (
        "United Kingdom|UK|U.K.|England|Scotland|Wales|Northern Ireland|Ireland|United States|"
        "United States of America|USA|U.S.A.|US|Canada|Mexico|Brazil|Argentina|Chile|Colombia|"
        "Germany|France|Spain|Portugal|Italy|Netherlands|The Netherlands|Belgium|Luxembourg|"
        "Switzerland|Austria|Sweden|Norway|Denmark|Finland|Iceland|Estonia|Latvia|Lithuania|"
        "Poland|Czech Republic|Czechia|Slovakia|Hungary|Romania|Bulgaria|Greece|Croatia|"
        "Serbia|Ukraine|Turkey|Israel|UAE|United Arab Emirates|Egypt|Nigeria|Kenya|"
        "South Africa|India|China|Hong Kong|Taiwan|Japan|South Korea|Korea|Singapore|Malaysia|"
        "Indonesia|Philippines|Vietnam|Thailand|Australia|New Zealand|Deutschland|España|"
        "Italia|Österreich|Schweiz|Suisse|Nederland|Polska|Česko|Hrvatska|Slovenija|Srbija|"
        "Sverige|Norge|Danmark|Suomi|Brasil|México|Éire"
    ).split("|")
}
MAX_MARKUP = 400_000  # characters of a page's markup read for addresses


def clean_place(raw: str) -> str | None:
    """A place string ("Leeds, UK") from a regex match, or None when it is not one."""
    raw = re.split(r"(?<=[a-z]{3})\.\s", raw)[0]
    parts: list[str] = []
    for part in raw.split(","):
        words = [w.strip(".'’") if len(w) > 4 else w for w in part.split()]
        words = [w for w in words if w and not any(ch.isdigit() for ch in w)]
        while words and words[-1].casefold() in ("hq", "headquarters", "head", "office"):
            words.pop()
        if not words or words[0].casefold() in NOT_PLACE or len(words) > 4:
            break
        if words[0].rstrip(".").casefold() in _MONTH_NAMES:
            break  # "in March 2020" is a date; "Novi Sad", "Marseille" are places
        if _STREET.search(" ".join(words)):
            continue
        name = " ".join(words).rstrip(".,;:")
        if name and name.casefold() not in (p.casefold() for p in parts):
            parts.append(name)
    place = ", ".join(parts[:3])
    return place if 2 <= len(place) <= 80 else None


def _us_city(match: re.Match[str]) -> str | None:
    """ "Fairview, CA" from "12 W. Canyon Hwy Fairview, CA 90210": the words after the street."""
    words = match.group(1).split()
    last = max((i for i, w in enumerate(words) if _STREET.search(w) or w[0].isdigit()), default=-1)
    city = clean_place(" ".join(words[last + 1 :]))
    return f"{city}, {match.group(2)}" if city else None


def address_place(block: str) -> str | None:
    """City (and country) of a postal address block, or None."""
    if (match := _US_CITY.search(block)) and (city := _us_city(match)):
        return city
    parts = [p.strip() for p in re.split(r",|\n|;|\s[|•·]\s", block) if p.strip()]
    for index, part in enumerate(parts):
        bare = " ".join(w for w in part.split() if not any(ch.isdigit() for ch in w))
        country = COUNTRIES.get(bare.strip(" .").casefold())
        if not country or index == 0:
            continue
        for before in reversed(parts[max(0, index - 2) : index]):
            city = clean_place(_POSTAL.sub("", before))
            street = _STREET.search(_POSTAL.sub("", before).strip())
            if city and not street and city.casefold() != country.casefold():
                return f"{city}, {country}"
        return country if _POSTAL.search(part) or _STREET.search(parts[index - 1]) else None
    return None


# "Sjøgata 12, 0150 Oslo", "Kaiserstraße 5 13187 Berlin", "Dlouhá 1954/22, 101 00 Praha": a
# street and house number, then a postal code (five digits may be written "NNN NN", as in
# Czechia, Slovakia, Sweden and Greece) and the city, on one line or run together.
_POSTCODE_CITY = re.compile(
    r"\b[A-ZÀ-Þ][\w'’.-]+(?:[ \t][^\W\d_][\w'’.-]*){0,3}[ \t]\d{1,4}(?:/\d{1,4})?[a-zA-Z]?,?"
    r"[ \t\n]+"
    r"(?:[A-Z]{1,2}-)?(?:\d{4,5}|\d{3}[ \t]\d{2})[ \t]+"
    r"([A-ZÀ-Þ][a-zà-ÿ'’-]+(?:[ -][A-ZÀ-Þ][a-zà-ÿ'’-]+)?)\b"
)


def _country_at(text: str) -> bool:
    """Whether ``text`` opens with a country's name ("Czech Republic ...")."""
    words = text.split()[:3]
    return any(COUNTRIES.get(" ".join(words[:n]).strip(" .,").casefold()) for n in (1, 2, 3))


def postal_cities(text: str) -> list[tuple[str, int, int]]:
    """(city, start, end) of each postal address written in running text: a US street
    ending "..., ST 12345" (the city is the words after the street's last street word), or
    a street and house number followed by a postal code and a city (Europe)."""
    out = []
    for match in _US_CITY.finditer(text):
        if city := _us_city(match):
            out.append((city, match.start(), match.end()))
    for match in _POSTCODE_CITY.finditer(text):
        name = match.group(1)
        first, _, second = name.partition(" ")
        if second and _country_at(text[match.start(1) + len(first) :]):
            name = first  # "Fulnek Czech Republic": the city, then its country
        city = clean_place(name)
        if city and not _STREET.search(city):
            out.append((city, match.start(), match.end()))
    return sorted(out, key=lambda found: found[1])


def address_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of a street line ("12 Market Street", "Kaiserstraße 5") and the next 3."""
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    spans = []
    for i, (start, end) in enumerate(lines):
        if _STREET_LINE.match(text[start:end].strip()):
            spans.append((start, lines[min(i + 3, len(lines) - 1)][1]))
    return spans


def city_line_end(block: str, place: str) -> int:
    """Where the last line of ``block`` naming a part of ``place`` ends (the whole block when
    none does): an address's quote ends with its city or country line."""
    parts = [p.strip() for p in place.split(",") if p.strip()]
    ends = [m.end() for m in re.finditer(r"[^\n]+", block) if any(p in m.group(0) for p in parts)]
    return max(ends) if ends else len(block)


def _postal_objects(value: Any, budget: int = 2000) -> list[dict[str, Any]]:
    """Every ``PostalAddress``-like dict inside a JSON-LD value (at most ``budget`` values
    visited: hostile JSON-LD can be wide and deep)."""
    found, stack = [], [value]
    while stack and budget > 0:
        budget -= 1
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item[:100]))
        elif isinstance(item, dict):
            kinds = item.get("@type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if any(str(k).rsplit("/", 1)[-1] == "PostalAddress" for k in kinds):
                found.append(item)
            else:
                stack.extend(reversed(list(item.values())[:100]))
    return found[:20]


def _named(value: Any) -> str:
    value = value.get("name") if isinstance(value, dict) else value
    return " ".join(str(value).split()) if isinstance(value, str | int) else ""


def _postal_place(parts: dict[str, str]) -> str | None:
    locality, region = parts.get("addressLocality", ""), parts.get("addressRegion", "")
    country = parts.get("addressCountry", "")
    names = [locality, region or country] if locality else [region, country]
    place = clean_place(", ".join(n for n in names if n))
    return place if place and locality else None


_ITEMPROP = re.compile(
    r"itemprop=[\"'](streetAddress|addressLocality|addressRegion|addressCountry|postalCode)"
    r"[\"'][^>]{0,300}>([^<]{1,120})<",
    re.I,
)
_FOOTER = re.compile(r"<(footer|address)\b[^>]{0,500}>", re.I)
MAX_FOOTER = 20_000  # characters of a footer or address element read
_BREAKS = re.compile(r"<br\s*/?>|</?(?:p|div|li|span|h\d|tr|td|section|ul|ol|dd|dt)\b[^>]*>", re.I)


def _text_of(markup: str) -> str:
    text = re.sub(r"<[^>]{0,2000}>", " ", _BREAKS.sub("\n", markup))
    lines = (" ".join(line.split()) for line in html_lib.unescape(text).split("\n"))
    return "\n".join(line for line in lines if line)


def markup_addresses(json_ld: list[dict[str, Any]], markup: str) -> list[tuple[str, str]]:
    """(place, quote) of each address the page states in JSON-LD, microdata or its footer;
    the quote is the address as written (street, city, region, code)."""
    found: list[tuple[str, str]] = []
    for postal in _postal_objects(json_ld):
        parts = {
            k: _named(postal.get(k))
            for k in ("streetAddress", "addressLocality", "addressRegion", "addressCountry")
        }
        if place := _postal_place(parts):
            found.append((place, ", ".join(v for v in parts.values() if v)))
    markup = markup[:MAX_MARKUP]
    micro: dict[str, str] = {}
    for match in islice(_ITEMPROP.finditer(markup), 50):
        micro.setdefault(match.group(1), " ".join(html_lib.unescape(match.group(2)).split()))
    if place := _postal_place(micro):
        found.append((place, ", ".join(micro.values())))
    lowered = markup.lower()
    footers = []
    for match in list(islice(_FOOTER.finditer(markup), 10)):
        limit = match.end() + MAX_FOOTER
        close = lowered.find(f"</{match.group(1).lower()}", match.end(), limit)
        footers.append(markup[match.end() : close if close > 0 else limit])
    if not footers:
        footers = _classed_footers(markup)
    for part in footers:
        text = _text_of(part)
        for start, end in address_blocks(text):
            if place := address_place(text[start:end]):
                found.append((place, text[start:end]))
                break
        else:
            if us_city := _US_CITY.search(text):
                found.append((f"{us_city.group(1)}, {us_city.group(2)}", us_city.group(0)))
    return found


def _classed_footers(markup: str) -> list[str]:
    """The markup of the elements a page without a ``<footer>`` marks as its footer by class
    or id (``<div class="site-footer">``), outermost first."""
    import lxml.html

    from ci_service.intel.boilerplate import marks
    from ci_service.pipeline.html_text import parse_html

    doc = parse_html(markup)
    if doc is None:
        return []
    out: list[str] = []
    for el in doc.iter("div", "section"):
        tokens = marks(el).lower().replace("_", "-").split()
        if any(t == "footer" or t.startswith("footer-") or t.endswith("-footer") for t in tokens):
            if not any(a in out for a in el.iterancestors()):
                out.append(el)
        if len(out) >= 3:
            break
    return [lxml.html.tostring(el, encoding="unicode")[:MAX_FOOTER] for el in out]
