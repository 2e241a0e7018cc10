"""A company that sells one product under its own short name: the product found from how
the text uses the name ("the Brava can ...", a page headed "Brava Features"), its features
from the one list under the features heading, the Features menu whose label sits inside its
link, and link labels whose parts are separate elements. Every page here is made up."""

from __future__ import annotations

import lxml.html

from ci_service.intel.page_links import label_text
from ci_service.pipeline.products import layout as product_layout
from ci_service.pipeline.products.extract import extract_products
from ci_service.pipeline.products.names import company_names, used_as_product
from ci_service.pipeline.subject import without_legal_suffix
from tests.test_pipeline_product_layouts import BASE, page, site

NAV = (
    "<nav><ul>"
    '<li><a href="/features/"><strong>Features</strong><span>See What It Does</span></a>'
    '<ul><li><a href="/specs/">Tech Specs</a></li><li><a href="/uses/">Applications</a></li>'
    "</ul></li>"
    '<li><a href="/news/"><strong>News</strong><span>Our Updates</span></a></li>'
    "</ul></nav>"
)


def _brava_site():
    home = page(
        "/",
        "<h2>Brava is your pocket weather station</h2>"
        "<p>The Brava can read the wind, the rain and the pressure wherever you hike.</p>"
        "<p>Clip it to a bag and forget it.</p>",
        "",
        "home",
        nav=NAV,
        depth=0,
    )
    features = page(
        "/features/",
        "<h2>BRAVA Features - Made for Hikers</h2><div><h3>Brava at a glance</h3><ul>"
        "<li>Reads wind speed every second</li><li>Storm warning on the watch</li>"
        "<li>Solar charging lid</li><li>Made in Portugal</li></ul></div>",
        "Features",
        "product",
        nav=NAV,
    )
    specs = page("/specs/", "<h1>Tech Specs</h1><p>Weight 40 g.</p>", "Tech Specs", "product")
    return site(home, features, specs)


def test_link_labels_keep_their_parts_apart():
    link = lxml.html.fromstring('<a href="/n"><b>News</b><span>Our updates</span></a>')
    assert label_text(link) == "News Our updates"
    word = lxml.html.fromstring('<a href="/x">Brava <b>cloud</b> sync</a>')
    assert label_text(word) == "Brava cloud sync"


def test_a_label_inside_its_link_opens_the_menu_of_that_link():
    markup = f"<html><body>{NAV}</body></html>"
    menus = {m.label: m for m in product_layout.menus(markup, BASE + "/")}
    assert menus["Features"].url == BASE + "/features/"
    assert [text for _url, text in menus["Features"].items][1:] == ["Tech Specs", "Applications"]


def test_the_company_names_its_product_may_go_by():
    assert without_legal_suffix("Brava Instruments, LLC") == "Brava Instruments"
    assert without_legal_suffix("Nordlys Digital AB") == "Nordlys Digital"
    assert company_names("Brava Instruments, LLC") == [
        "Brava Instruments, LLC",
        "Brava Instruments",
        "Brava",
    ]
    assert company_names("Software Labs") == ["Software Labs"]  # a generic first word


def test_the_short_name_is_a_product_when_the_text_uses_it_as_one():
    snapshot = _brava_site()
    assert used_as_product("Brava", snapshot.pages)
    assert not used_as_product("Brava Instruments", snapshot.pages)
    drafts = extract_products(snapshot, "Brava Instruments, LLC")
    assert [d.name for d in drafts] == ["Brava"]
    names = [f["name"] for f in drafts[0].features]
    assert names == [
        "Reads wind speed every second",
        "Storm warning on the watch",
        "Solar charging lid",
        "Made in Portugal",
    ]
    # Pages the Features menu lists by generic names are not features.
    assert "Tech Specs" not in names and "Applications" not in names


def test_no_product_from_a_short_name_the_text_never_uses_as_one():
    home = page(
        "/",
        "<h1>Brava Instruments</h1><p>We design measuring tools for labs.</p>",
        "Brava Instruments",
        "home",
        depth=0,
    )
    assert extract_products(site(home), "Brava Instruments, LLC") == []


def test_the_companys_products_named_like_it_with_a_product_word():
    home = page(
        "/",
        "<h1>Voices for every story</h1><p>Brava Studio turns a script into speech.</p>"
        "<p>Brava Studio is free to try. Brava Listen transcribes any recording.</p>"
        "<p>Brava Listen runs offline. The Brava Team answers within a day.</p>",
        "Brava",
        "home",
        depth=0,
    )
    pricing = page(
        "/pricing/",
        "<h1>Pricing</h1><p>Brava Studio from $5 a month; Brava Listen is open source.</p>",
        "Pricing",
        "pricing",
    )
    drafts = extract_products(site(home, pricing), "Brava")
    assert sorted(d.name for d in drafts) == ["Brava Listen", "Brava Studio"]


def test_another_products_integration_is_no_product_of_the_company():
    home = page(
        "/",
        "<h1>Brava</h1><p>Brava is an open-source low-code platform for internal tools.</p>"
        "<p>Connect the Brava Zapier integration. The Brava Zapier integration is free.</p>",
        "Brava",
        "home",
        depth=0,
    )
    tools = page(
        "/integrations/",
        "<h1>Integrations</h1><p>Use the Brava Zapier integration to automate.</p>",
        "Integrations",
        "product",
    )
    assert [d.name for d in extract_products(site(home, tools), "Brava")] == ["Brava"]
