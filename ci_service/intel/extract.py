"""Turn fetched bytes into text: HTML pages, PDF, DOCX and RSS/Atom feeds.

Heavy libraries (lxml, trafilatura, pypdf, python-docx, feedparser) are imported inside the
functions, so importing this module costs only the standard library.

Entities: the HTML parser decodes a page's character references; what is still written as
one afterwards ("R&amp;amp;D" in a meta description, "&rsquo;" in a JSON-LD string or a
twice-escaped title) is decoded once more (``feeds.decode_entities``) in the title,
description, section text, link texts and JSON-LD strings, so no stored text or quote
carries a raw ``&rsquo;``.

Contract: :func:`extract_html` never raises on bad markup (it returns what it could read);
:func:`extract_pdf`, :func:`extract_docx` and :func:`parse_feed` raise
:class:`~ci_service.intel.errors.ExtractionError` for input they cannot read, and nothing else.
"""

from __future__ import annotations

import io
import re
import threading
import zipfile
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin

from ci_service.intel.boilerplate import drop_page_boilerplate, section_text, strip_chrome
from ci_service.intel.errors import ExtractionError
from ci_service.intel.feeds import FeedEntry, decode_entities, parse_feed
from ci_service.intel.jsonld import parse_json_ld
from ci_service.intel.page_links import Link, page_links

MAX_HTML_CHARS = 5_000_000
MAX_KEPT_HTML = 2_000_000
MAX_PDF_PAGES = 500
MAX_DOCX_UNCOMPRESSED = 100 * 1024 * 1024
# trafilatura's main content is used unless it leaves out more than this share of the lines
# the page shows outside its chrome.
MISSING_LINES_SHARE = 0.25
_PRICE = re.compile(
    r"[$€£¥₹]\s?\d|\d\s?[$€£]|\b(?:USD|EUR|GBP|CHF|CAD|AUD|JPY|INR)\s?\d|\d\s?(?:USD|EUR|GBP)\b",
    re.IGNORECASE,
)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_SPACE = re.compile(r"[ \t\r\f\v\u00a0]+")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = frozenset(
    "p div li td th dd dt blockquote pre section article main header footer tr ul ol table".split()
)


@dataclass
class Section:
    """A heading and the text under it, up to the next heading. ``level`` 0 = before any."""

    heading: str
    level: int
    text: str


@dataclass
class Page:
    """What one HTML page says. ``text`` is the main content (boilerplate removed)."""

    url: str
    title: str = ""
    description: str = ""
    text: str = ""
    language: str | None = None
    links: list[Link] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)
    json_ld: list[dict[str, Any]] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    # ``<link rel="canonical">`` made absolute ("" when absent): the crawl's identity of the
    # page, so a page reached under several URLs is one source.
    canonical: str = ""
    # Where ``<meta http-equiv="refresh" content="0; url=...">`` sends a reader at once
    # (within a few seconds), made absolute; "" when the page stays.
    refresh: str = ""
    # The markup as decoded text (capped), for extractors that read the page's structure
    # (cards, tables, definition lists) rather than its main text.
    html: str = ""


@dataclass
class Document:
    """Text of a PDF or DOCX. PDF sections are pages; DOCX sections follow heading styles."""

    title: str
    text: str
    sections: list[Section]
    pages: int | None = None


def _clean(text: str | None) -> str:
    """Collapse runs of spaces in each line and drop blank lines."""
    if not text:
        return ""
    lines = (_SPACE.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


# -- HTML -----------------------------------------------------------------------------------


def _parse_html(html: str | bytes) -> Any:
    import lxml.html

    if isinstance(html, str):
        # lxml refuses str input that carries an XML encoding declaration; bytes are fine.
        data, parser = html.encode("utf-8", "replace"), lxml.html.HTMLParser(encoding="utf-8")
    else:
        data, parser = html, lxml.html.HTMLParser()
    try:
        return lxml.html.document_fromstring(data, parser=parser)
    except Exception:  # empty or unparseable input: no tree, an empty Page
        return None


def _meta(doc: Any, *names: str) -> str:
    for name in names:
        for attr in ("name", "property"):
            for value in doc.xpath(f"//meta[@{attr}=$n]/@content", n=name):
                if value.strip():
                    return _one_line(value)
    return ""


def _canonical(doc: Any, base: str) -> str:
    for link in doc.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        href = (link.get("href") or "").strip()
        if "canonical" in rel and href:
            url = urldefrag(urljoin(base, href))[0]
            return url if url.startswith(("http://", "https://")) else ""
    return ""


MAX_REFRESH_SECONDS = 5  # a longer delay is a page to read, not a redirect
_REFRESH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[;,]\s*(?:url\s*=\s*)?['\"]?([^'\"]+)", re.I)


def _refresh(doc: Any, base: str) -> str:
    """The URL a meta refresh sends a reader to at once, or ""."""
    for meta in doc.iter("meta"):
        if (meta.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        found = _REFRESH.match(meta.get("content") or "")
        if found and float(found.group(1)) <= MAX_REFRESH_SECONDS:
            url = urldefrag(urljoin(base, found.group(2).strip()))[0]
            return url if url.startswith(("http://", "https://")) else ""
    return ""


_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)


def _decoded(html: str | bytes) -> str:
    """``html`` as text: bytes by their ``<meta charset>`` (UTF-8 when absent or unknown)."""
    if isinstance(html, str):
        return html[:MAX_KEPT_HTML]
    match = _META_CHARSET.search(html[:4096])
    encoding = match.group(1).decode("ascii", "replace") if match else "utf-8"
    try:
        return html[:MAX_KEPT_HTML].decode(encoding, errors="replace")
    except LookupError:
        return html[:MAX_KEPT_HTML].decode("utf-8", errors="replace")


def _block_text(element: Any) -> str:
    if element.tag == "list":
        return "\n".join(_one_line(" ".join(item.itertext())) for item in element.iter("item"))
    if element.tag == "table":
        rows = (
            " | ".join(_one_line(" ".join(c.itertext())) for c in r) for r in element.iter("row")
        )
        return "\n".join(row for row in rows if row.strip(" |"))
    return _one_line(" ".join(element.itertext()))


def _sections_from_trafilatura(xml: str, title: str) -> list[Section]:
    from lxml import etree

    root = etree.fromstring(xml.encode("utf-8"), etree.XMLParser(resolve_entities=False))
    main = root.find("main")
    sections = [Section(title, 0, "")]
    body: list[list[str]] = [[]]
    for element in main if main is not None else []:
        if element.tag == "head":
            level = _HEADINGS.get(element.get("rend", ""), 2)
            sections.append(Section(_one_line(" ".join(element.itertext())), level, ""))
            body.append([])
        elif text := _block_text(element):
            body[-1].append(text)
    for section, parts in zip(sections, body, strict=True):
        section.text = "\n".join(parts)
    return [s for s in sections if s.text or s.level]


def _sections_from_tree(doc: Any, title: str) -> list[Section]:
    """Fallback when trafilatura finds no main content: all visible text, split at headings."""
    from lxml import etree

    body = doc.find("body")
    root = body if body is not None else doc
    etree.strip_elements(
        root, "head", "script", "style", "noscript", "template", "svg", with_tail=False
    )
    sections = [Section(title, 0, "")]
    parts: list[list[str]] = [[]]
    heading_el, block_el = None, None
    for node in root.xpath(".//text()"):
        owner = node.getparent() if node.is_text else node.getparent().getparent()
        if owner is None or not isinstance(owner.tag, str):
            continue
        heading = next((el for el in owner.iterancestors() if el.tag in _HEADINGS), None)
        heading = owner if owner.tag in _HEADINGS else heading
        if heading is not None:
            if heading is not heading_el:
                heading_el = heading
                sections.append(
                    Section(_one_line(heading.text_content()), _HEADINGS[heading.tag], "")
                )
                parts.append([])
            continue
        block = (
            owner
            if owner.tag in _BLOCKS
            else next((el for el in owner.iterancestors() if el.tag in _BLOCKS), root)
        )
        if block is not block_el and parts[-1]:
            parts[-1].append("\n")
        block_el = block
        parts[-1].append(str(node))
    for section, chunks in zip(sections, parts, strict=True):
        section.text = _clean(" ".join(chunks))
    return [s for s in sections if s.text or s.level]


def extract_html(html: str | bytes, url: str) -> Page:
    """Title, description, main text, sections, links, feeds and JSON-LD of a page.

    Never raises on bad markup: an unreadable page gives a :class:`Page` with empty fields.
    """
    html = html[:MAX_HTML_CHARS]
    page = Page(url=url)
    doc = _parse_html(html)
    if doc is None:
        return page
    page.title = _one_line(doc.findtext(".//title")) or _meta(doc, "og:title")
    page.description = _meta(doc, "description", "og:description", "twitter:description")
    page.language = (doc.get("lang") or "").strip() or None
    base_href = next(iter(doc.xpath("//base/@href")), "")
    base = urljoin(url, base_href.strip()) if base_href else url
    page.links, page.feeds = page_links(doc, base)
    page.canonical = _canonical(doc, base)
    page.refresh = _refresh(doc, base)
    page.html = _decoded(html)
    page.json_ld = parse_json_ld(
        script.text_content()
        for script in doc.iter("script")
        if (script.get("type") or "").split(";")[0].strip().lower() == "application/ld+json"
    )
    if not page.title:
        page.title = next((_one_line(h.text_content()) for h in doc.iter("h1")), "")
    link_texts = [link.text for link in page.links]
    # Both candidates are compared after their boilerplate is dropped: trafilatura may
    # merge a menu and the content into one line that the navigation rule then removes.
    sections = drop_page_boilerplate(_main_sections(html, url, page.title), link_texts)
    visible = drop_page_boilerplate(
        _sections_from_tree(_without_chrome(doc), page.title), link_texts
    )
    # trafilatura keeps the main content but drops short blocks real sites put facts in
    # (pricing cards' "<h5>$6 / month</h5>", "Name / Title" team cards): when it left out
    # more than a quarter of the lines the page shows outside its navigation, footer and
    # sidebars, or left out a line stating a price, the page's visible text wins.
    if _missing_share(sections, visible) > MISSING_LINES_SHARE:
        sections = visible
    page.sections = sections
    _decode_page(page)
    page.text = section_text(page.sections)
    return page


def _decode_page(page: Page) -> None:
    """The page's texts with what the parser left as entities decoded (module docstring)."""
    page.title = decode_entities(page.title)
    page.description = decode_entities(page.description)
    for section in page.sections:
        section.heading = decode_entities(section.heading)
        section.text = decode_entities(section.text)
    for link in page.links:
        link.text = decode_entities(link.text)
    page.json_ld = [_decoded_json(block) for block in page.json_ld]


def _decoded_json(value: Any, depth: int = 0) -> Any:
    """A JSON-LD value with its strings' entities decoded (nesting bounded like the parser's)."""
    if isinstance(value, str):
        return decode_entities(value)
    if depth > 12:
        return value
    if isinstance(value, list):
        return [_decoded_json(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {key: _decoded_json(item, depth + 1) for key, item in value.items()}
    return value


def _missing_share(main: list[Section], visible: list[Section]) -> float:
    """The share of the lines of ``visible``'s text that ``main``'s text does not hold (1.0
    when a line states a price, or main is empty). Compared as the page text is written:
    headings of level 1 and below, not the title."""
    if not main:
        return 1.0
    held = _one_line(section_text(main)).casefold()
    lines = [_one_line(line).casefold() for line in section_text(visible).splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return 0.0
    missing = [line for line in lines if line not in held]
    if any(_PRICE.search(line) for line in missing):
        return 1.0
    return len(missing) / len(lines)


def _without_chrome(doc: Any) -> Any:
    """A copy of ``doc`` without navigation, footers, sidebars, banners and dialogs."""
    import copy

    tree = strip_chrome(copy.deepcopy(doc))
    for row in tree.iter("tr"):
        # One line per table row, its cells apart, as trafilatura writes tables.
        cells = [_one_line(cell.text_content()) for cell in row if cell.tag in ("td", "th")]
        if cells:
            for child in list(row):
                row.remove(child)
            # lxml refuses control characters in text it is given (the page had them).
            row.text = _NOT_XML.sub(" ", " | ".join(cells))
    return tree


_TRAFILATURA_LOCK = threading.Lock()


def _trafilatura():
    """trafilatura with its jusText stop words (150,000) built once: it builds them on
    first use without a lock, jusText caches a copy per list, and crawl threads parsing
    their first pages at once each built and kept one (hundreds of MB)."""
    import trafilatura
    from trafilatura import external

    with _TRAFILATURA_LOCK:
        if not getattr(external, "JT_STOPLIST", None):
            external.jt_stoplist_init()
    return trafilatura


def _main_sections(html: str | bytes, url: str, title: str) -> list[Section]:
    """The main content's sections as trafilatura finds it ([] when it finds none)."""
    try:
        trafilatura = _trafilatura()

        xml = trafilatura.extract(
            html,
            url=url,
            output_format="xml",
            include_formatting=True,
            include_tables=True,
            include_comments=False,
            favor_recall=True,
        )
        return _sections_from_trafilatura(xml, title) if xml else []
    except Exception:  # trafilatura is heuristic; a failure there must not lose the page
        return []


# -- PDF and DOCX ---------------------------------------------------------------------------


def extract_pdf(data: bytes, *, max_pages: int = MAX_PDF_PAGES) -> Document:
    """Text per page (one :class:`Section` each). Raises ExtractionError for a broken PDF."""
    if b"%PDF-" not in data[:1024]:
        raise ExtractionError("not a PDF: no %PDF- header")
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ExtractionError("the PDF is encrypted")
        count = len(reader.pages)
        sections = []
        for number, pdf_page in enumerate(reader.pages[:max_pages], start=1):
            sections.append(Section(f"Page {number}", 1, _clean(pdf_page.extract_text())))
        title = _one_line(reader.metadata.title if reader.metadata else None)
    except ExtractionError:
        raise
    except Exception as exc:
        raise ExtractionError(f"unreadable PDF: {type(exc).__name__}: {exc}") from exc
    if count == 0:
        raise ExtractionError("the PDF has no pages")
    text = "\n\n".join(s.text for s in sections if s.text)
    if not title:
        title = next((line for line in text.splitlines() if line.strip()), "")[:200]
    return Document(title=title, text=text, sections=sections, pages=count)


def _docx_heading_level(paragraph: Any) -> int | None:
    try:
        name = (paragraph.style.name or "") if paragraph.style is not None else ""
    except Exception:  # a missing or odd style definition: treat as body text
        return None
    if name == "Title":
        return 1
    match = re.fullmatch(r"Heading (\d)", name)
    return int(match.group(1)) if match else None


def extract_docx(data: bytes, *, max_uncompressed: int = MAX_DOCX_UNCOMPRESSED) -> Document:
    """Paragraphs and tables in order; "Title"/"Heading N" styles start sections."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            size = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ExtractionError(f"not a DOCX file: {exc}") from exc
    if size > max_uncompressed:
        raise ExtractionError(f"DOCX unpacks to {size} bytes, over the {max_uncompressed} limit")
    try:
        import docx
        from docx.table import Table

        document = docx.Document(io.BytesIO(data))
        title = _one_line(document.core_properties.title)
        sections = [Section(title, 0, "")]
        parts: list[list[str]] = [[]]
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                rows = (" | ".join(_one_line(c.text) for c in row.cells) for row in block.rows)
                parts[-1].extend(row for row in rows if row.strip(" |"))
                continue
            text = _one_line(block.text)
            level = _docx_heading_level(block)
            if level is not None and text:
                title = title or text
                sections.append(Section(text, level, ""))
                parts.append([])
            elif text:
                parts[-1].append(text)
    except Exception as exc:
        raise ExtractionError(f"unreadable DOCX: {type(exc).__name__}: {exc}") from exc
    for section, chunks in zip(sections, parts, strict=True):
        section.text = "\n".join(chunks)
    sections = [s for s in sections if s.text or s.level]
    text = "\n\n".join(
        "\n".join(part for part in (s.heading if s.level else "", s.text) if part) for s in sections
    )
    return Document(title=title, text=text, sections=sections)


__all__ = [
    "Document",
    "FeedEntry",
    "Link",
    "Page",
    "Section",
    "decode_entities",
    "extract_docx",
    "extract_html",
    "extract_pdf",
    "parse_feed",
]
