"""Settings → Alerts, Muted: the workspace's mutes in words with who made them, Unmute where
the person may remove one (as ``services.alerts.mutes``), a mute for a subscription from a form,
another workspace's mute a 404, and a VIEWER who reads but changes nothing."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from ci_service.services.alerts import mutes
from ci_service.store.db import connection
from ci_service.store.identity import Workspace
from tests.resource_helpers import make_competitor

CAREERS = "https://globex.example/careers"
ALERTS = "/settings/alerts"


def text(response) -> str:
    return response.get_data(as_text=True)


def subscription(api, name):
    body = {"name": name, "channel": "webhook", "target": "https://hooks.acme.example/ci"}
    answer = api.post("/api/subscriptions", json=body)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["subscription"]["id"]


def muted_section(html: str) -> str:
    start = html.index('<h2 id="muted">')
    return html[start : html.index("</section>", start)]


def unmute_buttons(html: str) -> list[str]:
    return re.findall(r'action="/settings/alerts/mutes/([^/"]+)/delete"', html)


@pytest.fixture
def world(web):
    """Globex, two subscriptions and three mutes made through the service, by the owner."""
    globex = make_competitor(web.api, "Globex", "https://globex.example")["competitor"]["id"]
    pricing = subscription(web.api, "Pricing")
    daily = subscription(web.api, "Daily")
    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
        owner = SimpleNamespace(user_id=web.user_id, role="OWNER")  # as a page acts
        made = {
            "page": mutes.create_mute(
                web.workspace_id, owner, {"competitorId": globex, "url": CAREERS + "/"}
            ),
            "price": mutes.create_mute(
                web.workspace_id,
                owner,
                {
                    "competitorId": globex,
                    "subscriptionId": pricing,
                    "eventType": "competitor.price_changed",
                },
            ),
            "news": mutes.create_mute(
                web.workspace_id, owner, {"subscriptionId": daily, "eventType": "competitor.news"}
            ),
        }
    ids = {name: row.id for name, row in made.items()}
    return {"web": web, "workspace": workspace, "globex": globex, "pricing": pricing, **ids}


def test_the_list_says_each_mute_in_words_with_who_and_when(world):
    web = world["web"]
    page = web.get(ALERTS)
    assert page.status_code == 200
    shown = muted_section(text(page))
    assert f"Page {CAREERS} — Globex — every subscription" in shown
    assert "Price changes — Globex — subscription “Pricing”" in shown
    assert "News — subscription “Daily”" in shown
    assert shown.count(f"by {web.email}") == 3 and "UTC</time>" in shown
    assert "Nothing is muted" not in shown
    # the owner may remove each; and manages both subscriptions, so both can be muted
    assert sorted(unmute_buttons(shown)) == sorted([world["page"], world["price"], world["news"]])
    assert 'name="subscriptionId"' in shown and ">Pricing</option>" in shown


def test_unmute_removes_it(world):
    web = world["web"]
    answer = web.post_form(f"{ALERTS}/mutes/{world['price']}/delete", {}, ALERTS)
    assert answer.status_code == 303
    assert answer.headers["Location"].endswith("/settings/alerts?done=unmuted#muted")
    with connection():
        left = {m.id for m in mutes.list_mutes(web.workspace_id)}
    assert left == {world["page"], world["news"]}
    shown = text(web.get(answer.headers["Location"]))
    assert "Unmuted" in shown and "Price changes — Globex" not in shown
    # the same id again is gone
    again = web.post_form(f"{ALERTS}/mutes/{world['price']}/delete", {}, ALERTS)
    assert again.status_code == 404


def test_an_empty_list_points_to_changes(web):
    shown = muted_section(text(web.get(ALERTS)))
    assert "Nothing is muted. Mute a page or a kind of change from" in shown
    assert 'href="/changes"' in shown
    assert "Mute for a subscription" not in shown  # no subscription to mute for


def test_a_viewer_sees_the_list_without_buttons_and_cannot_unmute(world, make_web):
    viewer = make_web(role="VIEWER", workspace=world["workspace"])
    shown = muted_section(text(viewer.get(ALERTS)))
    assert "News — subscription “Daily”" in shown
    assert unmute_buttons(shown) == [] and "Mute for a subscription" not in shown
    answer = viewer.post_form(f"{ALERTS}/mutes/{world['news']}/delete", {}, ALERTS)
    assert answer.status_code == 403
    made = viewer.post_form(
        f"{ALERTS}/mutes", {"subscriptionId": world["pricing"], "url": CAREERS}, ALERTS
    )
    assert made.status_code == 403
    with connection():
        assert len(mutes.list_mutes(world["web"].workspace_id)) == 3


def test_an_editor_unmutes_only_what_the_service_lets_them(world, make_web):
    """An EDITOR may remove a competitor's mute (EDITOR) but not one of the owner's
    personal subscriptions: the button follows ``mutes.can_remove``."""
    editor = make_web(role="EDITOR", workspace=world["workspace"])
    shown = muted_section(text(editor.get(ALERTS)))
    assert unmute_buttons(shown) == [world["page"]]
    assert "Mute for a subscription" not in shown  # manages none of them
    refused = editor.post_form(f"{ALERTS}/mutes/{world['news']}/delete", {}, ALERTS)
    assert refused.status_code == 403 and "owner" in text(refused)


def test_another_workspaces_mute_is_the_404_page(world, make_web):
    stranger = make_web()
    answer = stranger.post_form(f"{ALERTS}/mutes/{world['news']}/delete", {}, ALERTS)
    assert answer.status_code == 404
    # nor can its subscription be muted from here
    made = stranger.post_form(
        f"{ALERTS}/mutes", {"subscriptionId": world["pricing"], "url": CAREERS}, ALERTS
    )
    assert made.status_code == 404
    with connection():
        assert len(mutes.list_mutes(world["web"].workspace_id)) == 3


def test_the_form_mutes_a_page_or_a_kind_for_one_subscription(world):
    web = world["web"]
    answer = web.post_form(
        f"{ALERTS}/mutes",
        {
            "subscriptionId": world["pricing"],
            "eventType": "competitor.page_changed",
            "url": "https://globex.example/pricing/",
            "competitorId": world["globex"],
        },
        ALERTS,
    )
    assert answer.status_code == 303
    with connection():
        made = mutes.list_mutes(web.workspace_id, subscription_id=world["pricing"])[-1]
    assert made.event_type == "competitor.page_changed"
    assert made.url == "https://globex.example/pricing" and made.competitor_id == world["globex"]
    shown = text(web.get(answer.headers["Location"]))
    words = "Page changes on page https://globex.example/pricing — Globex — subscription “Pricing”"
    assert words in shown and "no longer tells of it" in shown


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"url": "careers"}, "Page URL: an http(s) URL of a page"),
        ({}, "Kind of change or page URL (or both) is required"),
        ({"eventType": "competitor.gossip"}, "Kind of change: one of"),
        ({"url": CAREERS, "competitorId": "nope"}, "Competitor: unknown competitor id"),
        ({"url": CAREERS, "subscriptionId": ""}, "Subscription: choose one of your"),
    ],
)
def test_a_bad_mute_form_is_shown_again_with_its_message(world, form, message):
    web = world["web"]
    data = {"subscriptionId": world["pricing"], **form}
    answer = web.post_form(f"{ALERTS}/mutes", data, ALERTS)
    assert answer.status_code == 400
    body = text(answer)
    assert 'role="alert"' in body and message in body
    if form.get("url"):
        assert f'value="{form["url"]}"' in body  # what was typed is kept
    with connection():
        assert len(mutes.list_mutes(web.workspace_id)) == 3
