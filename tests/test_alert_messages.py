"""What an alert message says: the change itself (a page's changed lines, a price's old and
new terms, the quote), the competitor's page and ours as absolute links, crawled text that
cannot make Markdown or links, and an e-mail whose text/plain part (made by Apprise from the
HTML) still carries the URLs and the lines, received by a local SMTP server."""

from __future__ import annotations

import re

import pytest
from apprise.conversion.format import html_to_text, markdown_to_html

from ci_service.jobs.runner import JobRunner
from ci_service.services.alerts import events
from ci_service.services.alerts.messages import (
    MAX_LINE_CHARS,
    change_view,
    event_payload,
    md,
    render,
)
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import connection, transaction
from ci_service.store.secrets_box import encrypt
from tests.jobs_support import competitor

pytest_plugins = ["tests.jobs_fixtures", "tests.alert_fixtures"]

OURS = "https://ci.example.com/competitors/c1"
PAGE = "https://globex.example/security"
PRICING = "https://globex.example/pricing"
QUOTE_URL = PRICING + "#:~:text=Pro%20%E2%80%94%20%2459"
HOSTILE = (
    "[Win a prize](https://evil.example/x) ![pixel](https://evil.example/p.gif) **now** "
    "@everyone <img src=x onerror=alert(1)>"
)


def event(kind, data, title="Globex: something changed", summary="Summary.", link=OURS):
    return {
        "id": "e1",
        "type": kind,
        "title": title,
        "summary": summary,
        "importance": "normal",
        "competitorId": None,
        "link": link,
        "data": data,
    }


def message(row, html):
    payload = {"type": row["type"], "data": {"event": row, "url": row["link"]}}
    return render(payload, html=html)[1]


def page_change(added, removed, **extra):
    return event(
        "competitor.page_changed", {"url": PAGE, "added": added, "removed": removed, **extra}
    )


PRICE = event(
    "competitor.price_changed",
    {
        "plan": "Pro",
        "change": "price_changed",
        "old": {"price": 49, "currency": "USD", "period": "month", "unit": "per seat"},
        "new": {"price": 59, "currency": "USD", "period": "month", "unit": "per seat"},
        "url": PRICING,
        "quote": "Pro — $59 per seat / month, billed annually",
        "quoteUrl": QUOTE_URL,
    },
)
PERSON = event(
    "competitor.person_added",
    {
        "name": "Dana Reyes",
        "title": "VP Sales",
        "url": "https://globex.example/team",
        "quote": "Dana Reyes, VP Sales",
    },
)


@pytest.mark.parametrize("html", [False, True])
def test_a_page_change_shows_its_lines_and_both_links(html):
    added = ["SSO is now on every plan.", "x" * 500, *[f"Added line {n}" for n in range(6)]]
    body = message(page_change(added, ["SSO is on Enterprise only."]), html)
    text = html_to_text(body) if html else body
    plus = r"\+" if not html else "+"
    assert f"{plus} SSO is now on every plan." in text
    assert "− SSO is on Enterprise only." in text
    # at most five each way, each cut to about MAX_LINE_CHARS
    assert "Added line 2" in text and "Added line 3" not in text
    assert "…and 3 more added" in text
    longest = max(len(line) for line in text.splitlines())
    assert "x" * 150 in text and longest < MAX_LINE_CHARS + 20
    assert PAGE in body and OURS in body
    if html:  # the plain text Apprise makes keeps the URLs, not only the link words
        assert f"Their page: {PAGE}" in text and f"In ci-service: {OURS}" in text


@pytest.mark.parametrize("html", [False, True], ids=["markdown", "html"])
def test_price_change_shows_old_and_new_and_the_quote_link(html):
    body = message(PRICE, html)
    text = html_to_text(body) if html else body
    assert "Pro**: $49 per seat/month → $59 per seat/month" in body or (
        "Pro: $49 per seat/month → $59 per seat/month" in text
    )
    assert "“Pro — $59 per seat / month, billed annually”" in text
    assert QUOTE_URL in body and OURS in body  # quoteUrl before url


def test_an_added_plan_on_request():
    added = event(
        "competitor.price_changed",
        {"plan": "Team", "change": "plan_added", "old": None, "new": {"onRequest": True}},
    )
    assert "**Team**: not listed → price on request" in message(added, False)


def test_person_shows_the_quote_and_source_falls_back_to_url():
    body = message(PERSON, False)
    assert "> “Dana Reyes, VP Sales”" in body
    assert "[Their page: globex.example/team](https://globex.example/team)" in body
    assert f"[Open in ci-service]({OURS})" in body


def test_an_event_without_a_change_still_has_its_summary_and_our_link():
    deal = event("deal.recorded", {"dealId": "d1"}, summary="The deal was lost.", link=OURS)
    body = message(deal, False)
    assert "The deal was lost." in body and f"[Open in ci-service]({OURS})" in body
    assert "Their page" not in body and "\n\n\n" not in body


def test_crawled_markdown_cannot_make_links_images_emphasis_or_pings():
    row = page_change([HOSTILE, "# Heading", "1. listed", "- bullet"], [])
    row["title"] = "Globex: [Click](https://evil.example/t)"
    row["data"]["url"] = "javascript:alert(1)"  # never a link
    body = message(row, False)
    rendered = markdown_to_html(body)
    hrefs = re.findall(r'href="([^"]*)"', rendered)
    assert hrefs == [OURS]  # our link only: no crawled link, no javascript: source
    assert "<img" not in rendered and "<em>" not in rendered and "<h1>" not in rendered
    assert "<strong>now</strong>" not in rendered and "<ol>" not in rendered
    assert "@everyone" not in body and "@\u200beveryone" in body
    # escaped, not dropped: the words are all there
    assert "[Win a prize](https://evil.example/x)" in html_to_text(rendered)
    assert md("a_b *c* <d>") == r"a\_b \*c\* \<d\>"


def test_html_is_escaped_and_hostile_urls_are_not_links():
    row = page_change(["<script>alert(1)</script>"], [])
    row["data"]["quoteUrl"] = "javascript:alert(1)"
    body = message(row, True)
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert "javascript:" not in body and f'href="{PAGE}"' in body


def test_digest_lists_each_change_with_its_lines_and_links():
    digest = {
        "key": "daily:2026-11-24",
        "period": "daily",
        "start": "2026-11-24T00:00:00.000Z",
        "end": "2026-11-25T00:00:00.000Z",
        "eventCount": 3,
        "omitted": 0,
        "competitors": [
            {
                "competitorId": "c1",
                "competitorName": "Globex",
                "url": OURS,
                "events": [
                    {**PRICE, "url": OURS},
                    {**page_change(["SSO on every plan"], ["SSO on Enterprise"]), "url": OURS},
                    {**PERSON, "url": OURS},
                ],
            }
        ],
    }
    payload = {"type": "digest.daily", "data": {"digest": digest}}
    markdown = render(payload, html=False)[1]
    text = html_to_text(render(payload, html=True)[1])
    for out in (markdown, text):
        assert "$49 per seat/month → $59 per seat/month" in out
        assert "SSO on every plan" in out and "− SSO on Enterprise" in out
        assert "“Dana Reyes, VP Sales”" in out
        assert QUOTE_URL in out and PAGE in out and OURS in out
    assert "  - \\+ SSO on every plan" in markdown  # nested under its event
    assert "+ SSO on every plan" in text


def test_change_view_keeps_only_http_links():
    view = change_view(page_change(["a"], [], quoteUrl="data:text/html,x"), None)
    assert view["source"] == PAGE and view["link"] == OURS
    assert change_view(event("job.failed", {}, link="/jobs/1"), None)["link"] is None


def test_webhook_payload_link_is_absolute(make_workspace):
    ws = make_workspace()
    with connection(), transaction():
        row = events.emit(ws.id, "deal.recorded", "Deal won", link="/deals", data={"dealId": "d"})
    payload = event_payload(row, "https://ci.example.com/")
    assert payload["data"]["event"]["link"] == "https://ci.example.com/deals"
    assert payload["data"]["url"] == "https://ci.example.com/deals"


# -- a real e-mail -------------------------------------------------------------------------


def test_email_text_part_carries_the_urls_and_lines(make_workspace, monkeypatch, app, smtp):
    monkeypatch.setenv("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("CI_SERVICE_PUBLIC_URL", "https://ci.example.com")
    ws = make_workspace()
    globex = competitor(ws, "Globex")
    target = (
        f"mailto://127.0.0.1:{smtp.port}?from=alerts@example.com&to=team@example.com&mode=insecure"
    )
    with connection():
        Subscription.create(
            workspace=ws,
            name="mail",
            channel="apprise",
            target_encrypted=encrypt(target),
            target_hint="mailto://127.0.0.1",
        )
        with transaction():
            events.emit(
                ws.id,
                "competitor.page_changed",
                "Globex: “Security” changed",
                f"The page {PAGE} now says one new line and no longer says one.",
                competitor_id=globex.id,
                link=f"/competitors/{globex.id}",
                data={
                    "url": PAGE,
                    "quoteUrl": PAGE + "#:~:text=SSO",
                    "added": ["SSO (SAML) is now included on every plan."],
                    "removed": ["SSO is available on Enterprise only."],
                },
            )
    runner = JobRunner(0)
    try:
        runner.run_until_idle()
    finally:
        runner.stop(5)
    with connection():
        assert [d.status for d in Delivery.select()] == ["delivered"]
    [mail] = smtp.messages
    text = mail.get_body(("plain",)).get_content()
    assert f"https://ci.example.com/competitors/{globex.id}" in text
    assert PAGE + "#:~:text=SSO" in text
    assert "+ SSO (SAML) is now included on every plan." in text
    assert "− SSO is available on Enterprise only." in text
    assert "Open in ci-service" not in text  # no link words without their URL
