"""Citations (pipeline/evidence.py) and the integrations / supported-platform extractor."""

from __future__ import annotations

from urllib.parse import unquote

from ci_service.pipeline.evidence import (
    Cite,
    EvidenceMap,
    fragment_url,
    quote_in,
    sentence_at,
    sentences,
)
from ci_service.pipeline.products.integrations import extract_supported
from ci_service.pipeline.site import SitePage, SiteSnapshot

TEXT = (
    "About us\n"
    "Acme was founded in 2012. We are headquartered in Cambridge, UK, with an office in "
    "Boulder.\n"
    "Our team of 40 builds tools."
)


def test_sentence_at_returns_the_sentence_holding_the_span():
    start = TEXT.index("Cambridge")
    assert sentence_at(TEXT, start, start + 9) == (
        "We are headquartered in Cambridge, UK, with an office in Boulder."
    )
    start = TEXT.index("2012")
    assert sentence_at(TEXT, start, start + 4) == "Acme was founded in 2012."
    start = TEXT.index("40")
    assert sentence_at(TEXT, start) == "Our team of 40 builds tools."


def test_sentences_are_verbatim_pieces_of_lines():
    parts = sentences(TEXT)
    assert parts[0] == "About us"
    assert "Acme was founded in 2012." in parts
    assert all(p in TEXT for p in parts)


def test_fragment_url_encodes_the_directive_and_drops_an_old_fragment():
    url = fragment_url("https://acme.example/about#team", "Acme was founded in 2012.")
    assert url == "https://acme.example/about#:~:text=Acme%20was%20founded%20in%202012."
    long = "We are headquartered in Cambridge, UK, with an office in Boulder - and more."
    url = fragment_url("https://acme.example/about", long)
    start, end = url.split("#:~:text=")[1].split(",")
    assert unquote(start) == "We are headquartered in" and unquote(end) == "Boulder - and more."
    assert "-" not in url.split("#:~:text=")[1]  # the directive reserves "-"
    assert "%2C" in fragment_url("https://a.example/", "Cambridge, UK")  # "," is syntax


def test_evidence_map_resolves_only_quotes_found_in_the_stored_content():
    evidence = EvidenceMap()
    evidence.add("https://acme.example/about", "item-1", TEXT)
    resolved = evidence.resolve(Cite("https://acme.example/about", "Acme  was founded in 2012."))
    assert resolved == {
        "evidenceId": "item-1",
        "quote": "Acme was founded in 2012.",
        "url": "https://acme.example/about#:~:text=Acme%20was%20founded%20in%202012.",
    }
    assert evidence.resolve(Cite("https://acme.example/about", "Acme was founded in 1999.")) is None
    assert evidence.resolve(Cite("https://acme.example/other", "Acme was founded in 2012.")) is None
    assert quote_in(TEXT, "our TEAM of 40") and not quote_in(TEXT, "")


def _page(url: str, title: str, sections: list[tuple[str, int, str]]) -> SitePage:
    text = "\n\n".join("\n".join(p for p in (h if lvl else "", t) if p) for h, lvl, t in sections)
    return SitePage(url, title, "", text, sections, [], [])


def test_integration_detail_pages_and_supported_device_lists():
    pages = [
        _page(
            "https://acme.example/integrations/airtable/",
            "Airtable integration with Acme | Acme",
            [
                ("Airtable Integration", 1, "Connect Airtable to Acme"),
                ("Airtable", 2, "Acme integrates with Airtable so you can use it as data."),
            ],
        ),
        _page(
            "https://acme.example/hardware/",
            "Hardware",
            [
                (
                    "Supported devices",
                    2,
                    "Linux reference devices\nRaspberry Pi 3\nToradex Colibri iMX7 *\n"
                    "Zephyr reference devices\nNXP Freedom K64F\nGet started",
                ),
                ("Why us", 2, "We test every board in our lab. It takes a long time to do."),
            ],
        ),
        _page(
            "https://acme.example/blog/why/",
            "Why",
            [("Thoughts", 2, "Short line\nAnother Line")],
        ),
    ]
    found = {
        s.name: s for s in extract_supported(SiteSnapshot("https://acme.example/", pages), "Acme")
    }
    assert set(found) == {"Airtable", "Raspberry Pi 3", "Toradex Colibri iMX7", "NXP Freedom K64F"}
    assert found["Airtable"].kind == "Integration"
    assert found["Airtable"].cite.quote == "Airtable Integration"
    assert found["Raspberry Pi 3"].kind == "Linux reference devices"
    assert found["NXP Freedom K64F"].kind == "Zephyr reference devices"
    assert found["Toradex Colibri iMX7"].cite.quote == "Toradex Colibri iMX7 *"
