"""Extraction: HTML main text and sections, JSON-LD facts, PDF, DOCX and feeds."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime

import pytest

from ci_service.intel import ExtractionError
from ci_service.intel.extract import (
    Section,
    extract_docx,
    extract_html,
    extract_pdf,
    parse_feed,
)
from ci_service.intel.jsonld import (
    organization_facts,
    parse_json_ld,
    product_facts,
    standalone_offers,
    types_of,
)
from tests.intel_support import SITE, make_pdf

BASE = "https://acme.test"


def fixture(name: str) -> str:
    return (SITE / name).read_text(encoding="utf-8").replace("{base}", BASE)


# -- HTML -----------------------------------------------------------------------------------


def test_about_page_text_sections_and_organization():
    page = extract_html(fixture("about.html"), f"{BASE}/about")
    assert page.title == "About us – Acme Widgets"
    assert page.language == "en"
    assert [(s.heading, s.level) for s in page.sections] == [
        ("About Acme Widgets", 1),
        ("Leadership", 2),
    ]
    assert "founded in Berlin in 1999" in page.sections[0].text
    assert "Jane Doe" in page.text
    assert {t for obj in page.json_ld for t in types_of(obj)} == {"WebSite", "Organization"}
    assert organization_facts(page.json_ld) == [
        {
            "type": "Organization",
            "name": "Acme Widgets GmbH",
            "legalName": "Acme Widgets GmbH",
            "url": f"{BASE}/",
            "foundingDate": "1999-04-01",
            "address": "Hauptstraße 1, 10115 Berlin, DE",
            "numberOfEmployees": 120,
            "sameAs": ["https://www.linkedin.com/company/acme-widgets"],
        }
    ]


def test_index_page_links_feeds_and_boilerplate():
    page = extract_html(fixture("index.html").encode("utf-8"), f"{BASE}/")
    assert page.description == "Acme builds industrial widgets."
    assert page.feeds == [f"{BASE}/news/rss.xml"]
    urls = [link.url for link in page.links]
    assert f"{BASE}/products/widget-b" in urls  # fragment dropped
    assert f"{BASE}/products/widget-c" in urls  # relative link resolved
    assert not [u for u in urls if u.startswith(("mailto:", "javascript:"))]
    assert len(urls) == len(set(urls))
    assert "reliable industrial widgets since 1999" in page.text
    assert "© Acme Widgets" not in page.text  # footer boilerplate removed by trafilatura


def test_product_page_offers():
    page = extract_html(fixture("products/widget-a.html"), f"{BASE}/products/widget-a")
    assert product_facts(page.json_ld) == [
        {
            "type": "Product",
            "name": "Widget A",
            "description": "The A-series industrial widget.",
            "brand": "Acme",
            "sku": "W-A",
            "offers": [{"price": "49.00", "priceCurrency": "EUR", "availability": "InStock"}],
        }
    ]


def test_pricing_table_text():
    page = extract_html(fixture("pricing.html"), f"{BASE}/pricing")
    assert "Starter | 49 EUR per month" in page.text
    assert "Pro | 99 EUR per month" in page.text


def test_base_href_is_used_for_links():
    html = '<html><head><base href="/docs/"></head><body><a href="guide">G</a></body></html>'
    assert [link.url for link in extract_html(html, f"{BASE}/x").links] == [f"{BASE}/docs/guide"]


def test_fallback_text_when_trafilatura_finds_nothing():
    html = "<html><head><title>T</title></head><body><h2>Plans</h2><p>Starter</p></body></html>"
    page = extract_html(html, BASE)
    assert page.sections == [Section("Plans", 2, "Starter")]
    assert page.text == "Plans\nStarter"


@pytest.mark.parametrize(
    "html",
    [
        "",
        "   \n ",
        b"\x00\xff\xfe\x00garbage",
        "<<<>>><html><body><p>unclosed <div><table><tr><td>cell",
        '<?xml version="1.0" encoding="utf-8"?><html><body><p>declared</p></body></html>',
        "<div>" * 5000 + "deep",
        "<html><body><script>while(1){}</script><p>x</p></body></html>",
        make_pdf([["not html"]]),
        "<html><head><title>\x00</title><meta name=description></head><body></body></html>",
        '<script type="application/ld+json">{"@graph": [[[[[[[[{"@type": "X"}]]]]]]]]}</script>',
    ],
    ids=range(10),
)
def test_malformed_html_never_raises(html):
    page = extract_html(html, BASE)
    assert isinstance(page.text, str) and isinstance(page.links, list)


# -- JSON-LD --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blocks", "names"),
    [
        (['{"@type": "Organization", "name": "A"}'], ["A"]),
        (
            ['[{"@type": "Organization", "name": "A"}, {"@type": "Product", "name": "B"}]'],
            ["A", "B"],
        ),
        (['{"@context": "x", "@graph": [{"@type": "Product", "name": "B"}]}'], ["B"]),
        (['<!-- {"@type": "Organization", "name": "A"} -->'], ["A"]),
        (['{"@type": "Organization", "name": "A"};'], ["A"]),
        (['{"@type": "Organization", "name": "line\nbreak"}'], ["line\nbreak"]),
        (["{not json", '{"@type": "Organization", "name": "A"}', "", "42"], ["A"]),
    ],
)
def test_json_ld_is_parsed_tolerantly(blocks, names):
    assert [obj.get("name") for obj in parse_json_ld(blocks)] == names


def test_json_ld_facts_from_varied_shapes():
    objects = parse_json_ld(
        [
            json.dumps(
                {
                    "@type": ["schema:Corporation", "Thing"],
                    "name": "Beta Corp",
                    "numberOfEmployees": {
                        "@type": "QuantitativeValue",
                        "minValue": 50,
                        "maxValue": "200",
                    },
                    "address": "1 Road, Springfield",
                    "foundingDate": 2004,
                }
            ),
            json.dumps(
                {
                    "@type": "http://schema.org/SoftwareApplication",
                    "name": "Beta Cloud",
                    "applicationCategory": "BusinessApplication",
                    "offers": {
                        "@type": "AggregateOffer",
                        "lowPrice": 10,
                        "highPrice": 99.5,
                        "priceCurrency": "USD",
                        "offers": [
                            {
                                "@type": "Offer",
                                "name": "Team",
                                "priceSpecification": {"price": 25, "priceCurrency": "USD"},
                            }
                        ],
                    },
                }
            ),
            json.dumps(
                {"@type": "Offer", "name": "Launch deal", "price": "0", "priceCurrency": "EUR"}
            ),
        ]
    )
    assert organization_facts(objects) == [
        {
            "type": "Corporation",
            "name": "Beta Corp",
            "foundingDate": "2004",
            "address": "1 Road, Springfield",
            "numberOfEmployees": {"min": 50, "max": 200},
        }
    ]
    assert product_facts(objects) == [
        {
            "type": "SoftwareApplication",
            "name": "Beta Cloud",
            "category": "BusinessApplication",
            "offers": [
                {"lowPrice": "10", "highPrice": "99.5", "priceCurrency": "USD"},
                {"name": "Team", "price": "25", "priceCurrency": "USD"},
            ],
        }
    ]
    assert standalone_offers(objects) == [
        {"name": "Launch deal", "price": "0", "priceCurrency": "EUR"}
    ]


# -- PDF ------------------------------------------------------------------------------------


def test_pdf_text_title_and_pages():
    data = make_pdf(
        [["Acme Whitepaper", "Widgets (industrial) cost 49 EUR"], ["Second page"]],
        title="Acme Whitepaper 2026",
    )
    document = extract_pdf(data)
    assert document.title == "Acme Whitepaper 2026"
    assert document.pages == 2
    assert document.sections == [
        Section("Page 1", 1, "Acme Whitepaper\nWidgets (industrial) cost 49 EUR"),
        Section("Page 2", 1, "Second page"),
    ]
    assert "cost 49 EUR" in document.text


def test_pdf_title_falls_back_to_first_line():
    assert extract_pdf(make_pdf([["", "First line here"]])).title == "First line here"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello, not a pdf",
        b"%PDF-1.4\nnothing useful here",
        make_pdf([["truncated"]])[:200],
        make_pdf([["x"]]).replace(b"/Kids", b"/Kidz").replace(b"/Count 1", b"/Count 0"),
    ],
    ids=["empty", "not-pdf", "header-only", "truncated", "no-pages"],
)
def test_broken_pdf_raises_extraction_error(data):
    with pytest.raises(ExtractionError):
        extract_pdf(data)


# -- DOCX -----------------------------------------------------------------------------------


def make_docx() -> bytes:
    import docx

    document = docx.Document()
    document.core_properties.title = ""
    document.add_paragraph("Prepared for partners.")
    document.add_heading("Acme Brochure", level=0)
    document.add_paragraph("Acme builds industrial widgets.")
    document.add_heading("Products", level=1)
    document.add_paragraph("Widget A and Widget B.")
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, [("Plan", "Price"), ("Starter", "49 EUR")], strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_heading("Support", level=2)
    document.add_paragraph("Five-year warranty.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_docx_sections_follow_heading_styles():
    document = extract_docx(make_docx())
    assert document.title == "Acme Brochure"
    assert document.sections == [
        Section("", 0, "Prepared for partners."),
        Section("Acme Brochure", 1, "Acme builds industrial widgets."),
        Section("Products", 1, "Widget A and Widget B.\nPlan | Price\nStarter | 49 EUR"),
        Section("Support", 2, "Five-year warranty."),
    ]
    assert "Starter | 49 EUR" in document.text


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    "data",
    [b"", b"PK\x03\x04 broken", make_pdf([["pdf"]]), _zip({"hello.txt": b"not a docx"})],
    ids=["empty", "broken-zip", "pdf", "zip-not-docx"],
)
def test_broken_docx_raises_extraction_error(data):
    with pytest.raises(ExtractionError):
        extract_docx(data)


def test_docx_that_unpacks_too_large_is_refused():
    with pytest.raises(ExtractionError, match="unpacks to"):
        extract_docx(_zip({"word/document.xml": b"\0" * 200_000}), max_uncompressed=100_000)


# -- feeds ----------------------------------------------------------------------------------


def test_rss_feed_entries():
    entries = parse_feed(fixture("news/rss.xml").encode(), f"{BASE}/news/rss.xml")
    assert [(e.title, e.url, e.guid) for e in entries] == [
        ("Widget C launched", f"{BASE}/products/widget-c", "acme-news-2"),
        ("Prices for 2027", f"{BASE}/news/prices-2027", "acme-news-1"),
    ]
    assert entries[0].published == datetime(2026, 11, 3, 9, 0, tzinfo=UTC)
    assert entries[1].published == datetime(2026, 10, 12, 6, 30, tzinfo=UTC)
    assert entries[0].summary == "Our fastest widget yet."
    assert {e.source for e in entries} == {"Acme Widgets News"}


def test_atom_feed_entries():
    atom = b"""<?xml version="1.0" encoding="utf-8"?>
    <feed xmlns="http://www.w3.org/2005/Atom">
      <title>Beta blog</title>
      <entry>
        <title>Beta raises prices</title>
        <link href="posts/prices"/>
        <id>urn:beta:1</id>
        <updated>2026-09-01T12:00:00Z</updated>
        <summary type="html">&lt;em&gt;Pro&lt;/em&gt; now costs 59 USD.</summary>
      </entry>
    </feed>"""
    (entry,) = parse_feed(atom, "https://beta.test/blog/atom.xml")
    assert entry.title == "Beta raises prices"
    assert entry.url == "https://beta.test/blog/posts/prices"
    assert entry.published == datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
    assert (entry.summary, entry.source, entry.guid) == (
        "Pro now costs 59 USD.",
        "Beta blog",
        "urn:beta:1",
    )


@pytest.mark.parametrize(
    "data",
    [b"", b"<html><body><p>not a feed</p></body></html>", b"\x00\x01 binary", make_pdf([["x"]])],
    ids=["empty", "html", "binary", "pdf"],
)
def test_non_feeds_raise_extraction_error(data):
    with pytest.raises(ExtractionError):
        parse_feed(data, f"{BASE}/feed")


def test_parse_feed_refuses_str_input():
    with pytest.raises(TypeError):
        parse_feed("https://example.com/feed", BASE)  # feedparser would fetch a str URL
