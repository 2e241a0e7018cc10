"""The crawl's order: which page to fetch next when the page cap makes the choice matter.

Pages that say who the company is, what it sells and at what price come first; then the
entries of the start page's menu, whatever their labels; then the rest; then posts (those
whose link announces something before the others); then the pages of a folder past its
budget (:data:`FAMILY_BUDGET`); archives, tags, legal pages and URLs with queries last. A
folder named like a host (a mirror's nested older copy) is not crawled at all
(:func:`is_mirror_copy`).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_INDEX_FILE = re.compile(r"/(?:index|default)\.(?:html?|php|aspx?)$", re.IGNORECASE)
# Crawl order (the page cap makes it matter): pages that say who the company is, what it
# sells and at what price first; archives, tags and legal pages last.
KEY_PAGE = re.compile(
    r"\b(?:about|company|team|people|leadership|management|founders?|board|story|who-we-are|"
    r"mission|pricing|plans?|prices?|products?|platform|solutions?|features?|contact|"
    r"investors?|investment|funding|press|news|newsroom|media|customers?|partners?|"
    r"integrations?|hardware|services?|tour|overview|"
    # the same pages in German, French, Spanish and Serbian/Croatian
    r"preise|produkte?|unternehmen|kontakt|impressum|tarifs|produits?|equipe|contacto|"
    r"precios|productos?|equipo|empresa|o-nama|cene|cijene|cenovnik|cjenik|proizvodi?|tim|"
    r"usluge|kompanija)\b",
    re.IGNORECASE,
)
# A post: a dated path, or a slug under a blog or news section. Posts come after the pages
# that state who the company is and what it sells, however many the blog has.
POST_PAGE = re.compile(
    r"/(?:19|20)\d\d/\d{1,2}/|/(?:blogs?|news|press(?:-releases)?|insights|updates|posts|"
    r"articles|stories|events|webinars)/[^/]+",
    re.IGNORECASE,
)
LOW_VALUE_PAGE = re.compile(
    r"/(?:tags?|categories|category|authors?|archives?|page/\d+|privacy|terms|legal|cookies?|"
    r"login|log-in|signin|sign-in|signup|sign-up|register|cart|checkout|account|search|"
    r"thank-?you|wp-json)(?:/|$|[-_.])",
    re.IGNORECASE,
)
# A post whose link says it announces something (a launch, a release, funding, a hire, an
# award) is company news: it goes before the rest of the blog.
ANNOUNCEMENT = re.compile(
    r"\b(?:launch\w*|unveil\w*|introduc\w*|announc\w*|releas\w*|rais(?:es|ed|ing)|funding|"
    r"acquir\w*|acquisition|partner\w*|appoint\w*|hires?|joins?|joining|available|"
    r"availability|awards?|wins?|named)\b",
    re.IGNORECASE,
)
# The page that says who the company is, in the words sites name it by; when the start
# page links none, the usual addresses of one are tried (:data:`USUAL_ABOUT_PATHS`).
ABOUT_PAGE = re.compile(
    r"(?:^|/)(?:about|about-us|company|team|our-team|people|who-we-are|leadership|"
    r"ueber-uns|uber-uns|über-uns|unternehmen|a-propos|qui-sommes-nous|equipe|quienes-somos|"
    r"nosotros|equipo|empresa|chi-siamo|azienda|over-ons|om-oss|om-os|o-nama|sobre)(?:[/.]|$)",
    re.IGNORECASE,
)
USUAL_ABOUT_PATHS = ("/about/", "/about-us/", "/company/", "/team/")
RANK_START, RANK_KEY, RANK_MENU, RANK_NORMAL, RANK_POST, RANK_DEFERRED, RANK_LOW = range(7)
# Pages of one folder (integration or connector pages, glossary terms, posts, case studies)
# fetched before the rest of the site is reached; the folder's other pages wait until then,
# so two dozen pages of one kind cannot use up the pages where the facts are.
FAMILY_BUDGET = 8


# A first path segment named like a host ("/example.com/about/"): a nested copy of a site
# saved by a mirroring tool, older pages that repeat the live ones.
_HOST_SEGMENT = re.compile(
    r"^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|co|ai|app|dev|info|biz|"
    r"[a-z]{2})$",
    re.IGNORECASE,
)
_PAGE_FILE = re.compile(r"\.(?:html?|php|aspx?|jsp|cgi)$", re.IGNORECASE)


def is_mirror_copy(url: str) -> bool:
    """Whether ``url`` lies in a nested copy of a site (its first folder is a host name)."""
    segments = [s for s in urlsplit(url).path.split("/") if s]
    if len(segments) < 2:
        return False  # "/node.js/" is a page name; "/example.com/team/" is a copy
    return bool(_HOST_SEGMENT.match(segments[0]) and not _PAGE_FILE.search(segments[0]))


def _segments(path: str) -> list[str]:
    """A URL path's segments, an index file ("index.html") left out."""
    return [s for s in path.split("/") if s and not _INDEX_FILE.match("/" + s)]


def family_of(url: str) -> str | None:
    """The folder a page shares with pages like it ("/integrations/" for
    "/integrations/slack/"), or None for a page at the top of the site."""
    segments = _segments(urlsplit(url).path)
    if len(segments) < 2:
        return None
    return "/" + "/".join(segments[:-1]) + "/"


def crawl_rank(url: str, text: str = "", menu: bool = False) -> int:
    """Where a link goes in the crawl order: key pages (by path or label), then the entries
    of the start page's menu whatever their labels, then the rest, then posts, then
    low-value pages."""
    path = urlsplit(url).path
    if LOW_VALUE_PAGE.search(path) or urlsplit(url).query:
        return RANK_LOW
    segments = _segments(path)
    post = POST_PAGE.search(path) is not None
    if len(segments) <= 2 and (KEY_PAGE.search(" ".join(segments)) or KEY_PAGE.search(text)):
        return RANK_POST if post and len(segments) == 2 else RANK_KEY
    if menu and not post:
        return RANK_MENU  # after the pages named as key pages: a menu can be long
    if post and not ANNOUNCEMENT.search(text):
        return RANK_POST
    return RANK_NORMAL
