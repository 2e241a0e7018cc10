"""The page_changed rule: changes only in dates, times, counters, tracking parameters,
boilerplate, case or spacing are not meaningful; anything else is."""

from __future__ import annotations

import pytest

from ci_service.services.alerts.change_filter import (
    SiteChrome,
    meaningful_change,
    meaningful_passages,
    normalize_passage,
    repeated_lines,
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Last updated March 1, 2026", "Last updated 2026-03-05"),
        ("Last updated 1 Mar 2026", "Last updated 5th of March, 2026"),
        ("Published 03/01/2026", "Published 05.03.2026"),
        ("Posted on Monday", "Posted on Thu."),
        ("Updated 2026-03-01T09:00:00Z", "Updated 2026-03-05 14:05"),
        ("Next webinar at 9:30 am UTC", "Next webinar at 14:00"),
        ("Posted 3 days ago", "Posted yesterday"),
        ("Trusted by 1,234 teams", "Trusted by 1,301 teams"),
        ("12k stars on GitHub", "12.5k stars on GitHub"),
        ("Join 500+ customers", "Join 650+ customers"),
        ("Read https://x.test/blog?utm_source=a&s=1", "Read https://x.test/blog?utm_source=b"),
        ("Read https://x.test/blog#top", "Read https://x.test/blog"),
        ("Fast  Help   Desk", "fast help desk"),
    ],
)
def test_noise_only_changes_are_not_meaningful(old, new):
    assert normalize_passage(old) == normalize_passage(new)
    assert not meaningful_change([new], [old])


@pytest.mark.parametrize(
    "passage",
    [
        "© 2026 Globex Software. All rights reserved.",
        "Copyright 2025 Globex",
        "We use cookies to improve your experience. Accept all",
        "Tue, 03 Mar 2026 09:00:00 GMT",
        "2026-03-05",
        "1,234",
    ],
)
def test_boilerplate_and_bare_dates_or_numbers_count_for_nothing(passage):
    assert normalize_passage(passage) == ""
    assert not meaningful_change([passage], [])
    assert not meaningful_change([], [passage])


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Pro: $49 per agent per month", "Pro: $59 per agent per month"),
        ("Pro: 49 EUR per month", "Pro: 59 EUR per month"),
        ("Storage: 10 GB per seat", "Storage: 50 GB per seat"),
        ("99.9% uptime guarantee", "99.5% uptime guarantee"),
        ("Single sign-on on every plan", "Single sign-on on Enterprise only"),
    ],
)
def test_prices_sizes_percentages_and_words_are_meaningful(old, new):
    assert meaningful_change([new], [old])


def test_a_new_or_removed_passage_is_meaningful():
    assert meaningful_change(["We now support WhatsApp"], [])
    assert meaningful_change([], ["Phone support included"])


def test_meaningful_passages_keeps_only_the_passages_that_differ():
    added = ["Updated March 5, 2026", "Now with live chat", "Trusted by 1,301 teams"]
    removed = ["Updated March 1, 2026", "Trusted by 1,234 teams", "Email only"]
    assert meaningful_passages(added, removed) == (["Now with live chat"], ["Email only"])


def test_repeated_passages_are_counted():
    assert meaningful_passages(["Buy now", "Buy now"], ["Buy now"]) == (["Buy now"], [])


def test_bad_input_is_no_change():
    assert not meaningful_change(None, None)  # type: ignore[arg-type]
    assert not meaningful_change([None, 3], [""])  # type: ignore[list-item]


def test_an_entity_decoded_since_is_not_a_change():
    # Text stored before collection decoded entities reads as the same text collected now.
    old = "We&rsquo;ve added R&amp;D dashboards &amp; reports for every plan."
    new = "We’ve added R&D dashboards & reports for every plan."
    assert normalize_passage(old) == normalize_passage(new)
    assert normalize_passage(old) != normalize_passage("We’ve added R&D dashboards only.")


SENTENCES = [
    "Globex was founded in Austin in 2011 by two support engineers.",
    "Today 250 employees build help desk software.",
    "Last year we reported revenue of $40 million.",
]
LINES = [
    "Globex was founded in Austin in 2011 by two support engineers. Today 250",
    "employees build help desk software. Last year we",
    "reported revenue of $40 million.",
]


def test_a_paragraph_broken_into_other_lines_is_no_change():
    assert meaningful_passages(LINES, SENTENCES) == ([], [])
    assert meaningful_passages(SENTENCES, LINES) == ([], [])


def test_a_changed_word_in_a_broken_paragraph_keeps_its_passages():
    changed = [LINES[0], LINES[1].replace("help desk", "chat"), LINES[2]]
    assert meaningful_passages(changed, SENTENCES) == ([changed[1]], [SENTENCES[1]])


def test_menu_entries_and_lines_repeated_across_pages_are_chrome():
    chrome = SiteChrome.of(
        ["Home", "About", "Careers", "Pricing plans", "Read the whole FlowDesk 3 story here"],
        repeated_lines(["Menu\nFree trial\nA", "Free trial\nB", "free  trial!\nC"]),
    )
    assert chrome.covers("About Careers") and chrome.covers("Pricing plans")
    assert chrome.covers("Free trial")  # on three pages
    assert not chrome.covers("About our careers")  # a word beyond the link texts
    assert not chrome.covers("Read the whole FlowDesk 3 story here")  # a long link: content
    assert not chrome.covers("Menu")  # on one page only
    added, removed = ["About Careers", "Now with live chat"], ["About", "Free trial"]
    assert meaningful_passages(added, removed, chrome) == (["Now with live chat"], [])
    assert not meaningful_change(["Careers"], [], chrome)
