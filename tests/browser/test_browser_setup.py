"""The browser tests' own rule: without Chromium they skip locally and fail in CI."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import conftest


@pytest.mark.parametrize(
    ("ci", "outcome"), [("", pytest.skip.Exception), ("true", pytest.fail.Exception)]
)
def test_a_missing_browser_skips_locally_and_fails_in_ci(monkeypatch, ci, outcome):
    monkeypatch.setattr(conftest, "chromium_path", lambda: None)
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome):
        conftest._require_browser()


def test_chromium_launches_with_the_debian_flags(browser):
    page = browser.new_page()
    try:
        page.set_content("<p id=x>ok</p>")
        expect(page.locator("#x")).to_have_text("ok")
    finally:
        page.close()
