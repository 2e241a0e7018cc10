"""The crawler decodes pages by their declared charset, else UTF-8 (not lxml's Latin-1)."""

from __future__ import annotations

import pytest

from ci_service.intel.crawl import html_for_extraction
from ci_service.intel.extract import extract_html
from ci_service.intel.fetch import FetchResult

TITLE = "Über uns – Café Müller"


def result(body: bytes, content_type: str) -> FetchResult:
    return FetchResult(
        url="https://example.test/",
        status=200,
        headers={"content-type": content_type},
        content=body,
        elapsed=0.0,
        requested_url="https://example.test/",
    )


@pytest.mark.parametrize(
    "body, content_type",
    [
        # no charset anywhere: UTF-8 is assumed
        (f"<html><head><title>{TITLE}</title></head></html>".encode(), "text/html"),
        # the header names the charset
        (f"<html><head><title>{TITLE}</title></head></html>".encode("latin-1", "replace")
         .replace(b"?", b"-"), "text/html; charset=ISO-8859-1"),
        # only a meta tag names it
        (f'<html><head><meta charset="windows-1252"><title>{TITLE}</title></head></html>'
         .encode("cp1252"), "text/html"),
    ],
)  # fmt: skip
def test_titles_survive_decoding(body, content_type):
    page = extract_html(html_for_extraction(result(body, content_type)), "https://example.test/")
    # Latin-1 has no en dash, so that fixture carries "-" in its place.
    assert page.title.replace(" - ", " – ") == TITLE
