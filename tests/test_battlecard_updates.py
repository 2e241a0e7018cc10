"""battlecard.updated says a card reads differently, not that its evidence was re-collected
(issue 29): a refresh that only changed dates gives the card new evidence ids and quote links
and no event; a change in what the card says is one."""

from __future__ import annotations

from ci_service.services.battlecards.cards import readable
from ci_service.services.intel import items as intel
from ci_service.store.db import connection
from tests.analysis_support import PAGES, seed_rival
from tests.resource_helpers import ok

pytest_plugins = ["tests.jobs_fixtures"]


def _updates(api) -> list[dict]:
    return ok(api.get("/api/events?type=battlecard.updated"))["events"]


def _record_page(api, competitor_id: str, key: str, content: str) -> str:
    with connection():
        result = intel.record_evidence(
            api.workspace_id,
            source_type="WEB_PAGE",
            url=f"https://rival.example/{key}",
            title=PAGES[key][0],
            content=content,
            competitor_id=competitor_id,
        )
    return result.item.id


def _generate(api, runner, competitor_id: str, product_id: str) -> dict:
    path = f"/api/battlecards/{competitor_id}/generate"
    ok(api.post(path, json={"productId": product_id, "mode": "ATTACK"}))
    runner.run_until_idle()
    cards = ok(api.get(f"/api/battlecards?competitorId={competitor_id}"))["battlecards"]
    return cards[0]


def test_a_date_only_refresh_is_no_update_and_a_new_claim_is_one(make_api, runner):
    api = make_api(plan="PRO")
    product, rival, ids = seed_rival(api)
    first = _generate(api, runner, rival["id"], product["id"])

    # The security page is collected again with only a date added: a new evidence version.
    dated = PAGES["security"][1] + " Last updated March 3, 2026."
    new_id = _record_page(api, rival["id"], "security", dated)
    assert new_id != ids["security"]
    again = _generate(api, runner, rival["id"], product["id"])
    assert again["evidenceIds"] != first["evidenceIds"] or again == first
    assert _updates(api) == []

    # Now the page says something else: the card's claim about SSO changes.
    _record_page(api, rival["id"], "security", "Rival supports SAML single sign-on and SCIM.")
    _generate(api, runner, rival["id"], product["id"])
    [event] = _updates(api)
    assert event["data"]["battlecardId"] == first["id"]


def test_readable_leaves_out_ids_links_and_dates_only():
    card = {
        "killShot": "Rival has no SSO (as of March 3, 2026).",
        "whyWeWin": [
            {
                "title": "SSO included",
                "evidenceIds": ["a1"],
                "quotes": [{"evidenceId": "a1", "quote": "No SSO.", "url": "https://r/#a"}],
            }
        ],
        "generatedAt": "2026-03-03T00:00:00Z",
    }
    moved = {
        "killShot": "Rival has no SSO (as of April 9, 2026).",
        "whyWeWin": [
            {
                "title": "SSO included",
                "evidenceIds": ["b2"],
                "quotes": [{"evidenceId": "b2", "quote": "No SSO.", "url": "https://r/#b"}],
            }
        ],
        "generatedAt": "2026-04-09T00:00:00Z",
    }
    assert readable(card) == readable(moved)
    said = {**moved, "whyWeWin": [{**moved["whyWeWin"][0], "title": "SSO and SCIM included"}]}
    assert readable(card) != readable(said)
    # a format or status word is read, not taken for a time or an id
    assert readable({"format": "ATTACK"}) != readable({"format": "DEFENSE"})
