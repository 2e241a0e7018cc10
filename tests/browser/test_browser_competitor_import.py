"""In a real browser: importing competitors from a CSV file (issue 31), from the home page's
link through the preview to the competitors it created."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.intel_support import FixtureServer


@pytest.fixture(scope="module")
def site():
    """A site answering 404 to every page: the imported competitors' collects end fast."""
    with FixtureServer() as server:
        yield server


def test_import_from_csv_preview_then_create(signed_in, live, site, shot, axe):
    tag = secrets.token_hex(3)
    product = live.api(
        "POST",
        "/api/products",
        json={"name": f"Ledgerly {tag}", "description": "d", "audience": "a"},
    ).json()["product"]
    base = f"http://localhost:{site.port}"
    csv = (
        "Name,Website,Tier,Relevant products\n"
        f"Quillmark {tag},{base}/quill-{tag},TIER_1,ledgerly {tag}\n"
        f"Paperjam {tag},{base}/paper-{tag},,\n"
        f"Quillmark again {tag},{base}/quill-{tag}/,,\n"
        f"Broken {tag},{base}/broken-{tag},GOLD,Nope\n"
    )
    page = signed_in.page
    signed_in.go("/")
    with page.expect_navigation():
        page.get_by_role("link", name="Import from CSV").click()
    expect(page.locator("h1")).to_have_text("Import competitors from CSV")
    assert axe(signed_in) == []
    shot(signed_in, "competitor-import-form")
    page.get_by_label("CSV file").set_input_files(
        files=[{"name": "rivals.csv", "mimeType": "text/csv", "buffer": csv.encode()}]
    )
    with page.expect_navigation():
        page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("heading", name="Preview of rivals.csv")).to_be_visible()
    expect(page.locator("#import-create")).to_contain_text(f"Quillmark {tag}")
    expect(page.locator("#import-duplicates")).to_contain_text("same website as row 2")
    errors = page.locator("#import-errors")
    expect(errors).to_contain_text("must be one of TIER_1, TIER_2, TIER_3")
    expect(errors).to_contain_text("unknown product “Nope”")
    assert axe(signed_in) == []
    shot(signed_in, "competitor-import-preview")
    page.set_viewport_size({"width": 375, "height": 800})  # a phone: the tables scroll alone
    assert axe(signed_in) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(signed_in, "competitor-import-preview-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    assert not any(name.endswith(tag) for name in _names(live))  # the preview created nothing

    with page.expect_navigation():
        page.get_by_role("button", name="Import 2 competitors").click()
    expect(page.locator("#import-done")).to_contain_text(
        "Created 2 competitors and queued 2 analysis jobs"
    )
    shot(signed_in, "competitor-import-done")
    assert sorted(n for n in _names(live) if n.endswith(tag)) == [
        f"Paperjam {tag}",
        f"Quillmark {tag}",
    ]
    with page.expect_navigation():
        page.locator("#import-create").get_by_role("link", name=f"Quillmark {tag}").click()
    expect(page).to_have_url(re.compile(r"/competitors/[^/]+$"))
    quill = next(
        c
        for c in live.api("GET", "/api/competitors").json()["competitors"]
        if c["name"] == f"Quillmark {tag}"
    )
    assert quill["tier"] == "TIER_1" and quill["relevantProductIds"] == [product["id"]]
    assert signed_in.errors == [] and signed_in.dialogs == []
    assert signed_in.console_errors == []


def _names(live) -> list[str]:
    return [c["name"] for c in live.api("GET", "/api/competitors").json()["competitors"]]
