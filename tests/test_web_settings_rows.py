"""Settings pages: our pricing as rows of inputs with per-row validation, and pending
invites listed with "New link" and "Revoke" (issue 28)."""

from __future__ import annotations

import html
import re

from tests.web_support import PASSWORD, csrf_of


def text(response) -> str:
    return response.get_data(as_text=True)


def plan(number: int, name: str, price: str = "", **extra: str) -> dict[str, str]:
    """The form fields of plan row ``number``."""
    fields = {"name": name, "price": price, **extra}
    return {f"plan-{number}-{key}": value for key, value in fields.items()}


PRODUCT = {"name": "Orbit", "description": "Our helpdesk", "audience": "Support teams"}


def new_product(web) -> str:
    answer = web.api.post("/api/products", json={**PRODUCT, "pricing": []})
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["product"]["id"]


def stored_pricing(web, product_id: str) -> list[dict]:
    answer = web.api.get(f"/api/products/{product_id}")
    assert answer.status_code == 200
    return answer.get_json()["product"]["pricing"]


def test_rows_are_saved_as_structured_pricing_and_blank_rows_are_ignored(web):
    product_id = new_product(web)
    form = {
        **PRODUCT,
        **plan(0, "Team", "15", currency="usd", period="month", unit="per user"),
        **plan(1, "", ""),  # a blank row, as the page draws two
        **plan(5, "Enterprise", "", onRequest="1"),  # numbers only order the rows
        **plan(2, "Starter", "1,200.50", currency="€", period="year", unit="flat"),
    }
    answer = web.post_form(f"/settings/products/{product_id}", form)
    assert answer.status_code == 302, text(answer)
    pricing = stored_pricing(web, product_id)
    assert [p["name"] for p in pricing] == ["Team", "Starter", "Enterprise"]
    team, starter, enterprise = pricing
    assert (team["price"], team["currency"], team["period"], team["unit"]) == (
        15,
        "USD",
        "month",
        "per user",
    )
    assert (starter["price"], starter["currency"], starter["unit"]) == (1200.5, "EUR", "flat")
    assert enterprise["onRequest"] is True and enterprise["price"] is None

    page = text(web.get(f"/settings/products/{product_id}"))
    assert re.search(r'name="plan-0-name" value="Team"', page)
    assert re.search(r'name="plan-1-price" value="1200.5"', page)
    assert re.search(r'name="plan-2-onRequest" value="1" checked', page)
    assert re.search(r'name="plan-4-name" value=""', page)  # two blank rows under the plans
    assert 'name="plan-5-name"' not in page
    assert 'id="edit-plan-template"' in page and "Add row" in page


def test_a_price_typed_in_the_name_is_a_clear_error_and_nothing_is_saved(web):
    product_id = new_product(web)
    form = {
        **PRODUCT,
        **plan(0, "Team $15/user/month"),
        **plan(1, "Pro", "", currency="USD"),
        **plan(2, "Scale", "cheap"),
        **plan(3, "Basic", "9"),
    }
    answer = web.post_form(f"/settings/products/{product_id}", form)
    assert answer.status_code == 400
    body = html.unescape(text(answer))
    assert (
        'Team $15/user/month: put the price in its own fields: name "Team", price 15, '
        "currency USD, period month, unit per user"
    ) in body
    assert 'Pro: enter a price, e.g. 15, or tick "On request"' in body
    assert 'Scale: the price "cheap" is not a number' in body
    # Each bad input is marked and points at its message; the good row is not marked.
    for field in ("0-name", "1-price", "2-price"):
        assert re.search(
            rf'id="edit-plan-{field}" name="plan-{field}" aria-invalid="true" '
            rf'aria-describedby="edit-plan-{field}-error"',
            body,
        ), field
        assert f'id="edit-plan-{field}-error"' in body
    assert re.search(r'name="plan-3-name" value="Basic"', body)  # what was typed is kept
    assert 'value="Team $15/user/month"' in body and 'value="cheap"' in body
    assert 'name="plan-5-name"' in body  # and two blank rows again
    assert stored_pricing(web, product_id) == []
    # A new product refused for its pricing is not created either.
    create = web.post_form("/settings/products", {**PRODUCT, **plan(0, "Team $15/user/month")})
    assert create.status_code == 400
    assert web.api.get("/api/products").get_json()["products"] == [
        {**web.api.get(f"/api/products/{product_id}").get_json()["product"]}
    ]


def test_the_services_messages_land_on_their_row(web):
    product_id = new_product(web)
    twice = {**PRODUCT, **plan(0, "Team", "5"), **plan(1, "team", "6")}
    answer = web.post_form(f"/settings/products/{product_id}", twice)
    assert answer.status_code == 400 and "given twice" in html.unescape(text(answer))
    too_long = {**PRODUCT, **plan(0, "Team", "5", currency="USD", unit="u" * 600)}
    answer = web.post_form(f"/settings/products/{product_id}", too_long)
    assert answer.status_code == 400
    assert 'id="edit-plan-0-unit" name="plan-0-unit" aria-invalid="true"' in text(answer)
    assert stored_pricing(web, product_id) == []


def test_features_of_a_plan_survive_an_edit_of_its_row(web):
    answer = web.api.post(
        "/api/products",
        json={**PRODUCT, "pricing": [{"name": "Team", "price": 9, "features": ["SSO"]}]},
    )
    product_id = answer.get_json()["product"]["id"]
    saved = web.post_form(f"/settings/products/{product_id}", {**PRODUCT, **plan(0, "Team", "12")})
    assert saved.status_code == 302
    (team,) = stored_pricing(web, product_id)
    assert team["price"] == 12 and team["features"] == ["SSO"]


def test_a_viewer_cannot_save_and_another_workspaces_product_is_404(web, make_web):
    from ci_service.store.db import connection
    from ci_service.store.identity import Workspace

    product_id = new_product(web)
    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    viewer = make_web(workspace=workspace, role="VIEWER")
    page = text(viewer.get(f"/settings/products/{product_id}"))
    assert "Add row" not in page and 'name="plan-0-name"' not in page
    refused = viewer.post_form(
        f"/settings/products/{product_id}", {**PRODUCT, **plan(0, "Team", "1")}, csrf_from="/"
    )
    assert refused.status_code == 403
    assert stored_pricing(web, product_id) == []

    other = make_web()
    foreign = other.post_form(
        f"/settings/products/{product_id}", {**PRODUCT, **plan(0, "Team", "1")}, csrf_from="/"
    )
    assert foreign.status_code == 404
    assert other.get(f"/settings/products/{product_id}").status_code == 404
    assert stored_pricing(web, product_id) == []


# -- invites --------------------------------------------------------------------------------


def invite(web, email: str, role: str = "EDITOR"):
    return web.post_form(
        "/settings/users/invite", {"email": email, "role": role}, csrf_from="/settings/users"
    )


def link_of(answer) -> str:
    return re.search(r'id="invite-link"[^>]*value="([^"]+)"', text(answer)).group(1)


def invite_id_of(page: str, email: str) -> str:
    row = re.search(rf'<tr id="invite-([^"]+)">\s*<td data-label="E-mail address">{email}', page)
    assert row, email
    return row.group(1)


def test_pending_invites_are_listed_and_a_revoked_link_fails_clearly(web, app):
    created = invite(web, "dana@example.com")
    assert created.status_code == 200
    link = link_of(created)
    assert 'class="secondary copy-link" data-source="invite-link"' in text(created)
    page = text(web.get("/settings/users"))
    invite_id = invite_id_of(page, "dana@example.com")
    assert "Pending invites" in page and "EDITOR" in page
    assert link.rsplit("/", 1)[1] not in page  # only a hash is stored: no link in the list

    revoked = web.post_form(
        f"/settings/users/invites/{invite_id}/revoke", csrf_from="/settings/users"
    )
    assert revoked.status_code == 302
    page = text(web.get(revoked.headers["Location"]))
    assert "Invite revoked" in page and "dana@example.com" not in page
    newcomer = app.test_client()
    opened = newcomer.get(link.removeprefix("http://localhost"))
    assert opened.status_code == 404 and "This invite link is not valid" in text(opened)
    again = web.post_form(
        f"/settings/users/invites/{invite_id}/revoke", csrf_from="/settings/users"
    )
    assert again.status_code == 404


def test_a_new_link_replaces_the_old_one(web, app):
    old_link = link_of(invite(web, "eli@example.com", "VIEWER"))
    invite_id = invite_id_of(text(web.get("/settings/users")), "eli@example.com")
    renewed = web.post_form(
        f"/settings/users/invites/{invite_id}/renew", csrf_from="/settings/users"
    )
    assert renewed.status_code == 200
    new_link = link_of(renewed)
    assert new_link != old_link
    newcomer = app.test_client()
    assert newcomer.get(old_link.removeprefix("http://localhost")).status_code == 404
    form = newcomer.get(new_link.removeprefix("http://localhost"))
    assert form.status_code == 200 and "eli@example.com" in text(form)
    assert "VIEWER" in text(form)
    joined = newcomer.post(
        new_link.removeprefix("http://localhost"),
        data={"csrf_token": csrf_of(text(form)), "password": PASSWORD, "confirm": PASSWORD},
    )
    assert joined.status_code == 302
    assert "eli@example.com" not in text(web.get("/settings/users")).split("Pending invites")[1]


def test_expired_and_used_invites_are_not_listed(web):
    from datetime import timedelta

    from ci_service.services.identity import users as people
    from ci_service.store.db import connection

    with connection():
        people.invite(web.workspace_id, "old@example.com", "VIEWER", timedelta(seconds=-1))
        listed = people.list_pending_invites(web.workspace_id)
    assert listed == []
    assert "No pending invites." in text(web.get("/settings/users"))


def test_invite_rules_another_workspace_and_roles(web, make_web):
    from ci_service.store.db import connection
    from ci_service.store.identity import Workspace

    invite(web, "boss@example.com", "OWNER")
    invite(web, "helper@example.com", "VIEWER")
    page = text(web.get("/settings/users"))
    owner_invite = invite_id_of(page, "boss@example.com")
    viewer_invite = invite_id_of(page, "helper@example.com")

    other = make_web()
    for action in ("revoke", "renew"):
        answer = other.post_form(
            f"/settings/users/invites/{viewer_invite}/{action}", csrf_from="/settings/users"
        )
        assert answer.status_code == 404, action

    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    admin = make_web(workspace=workspace, role="ADMIN")
    refused = admin.post_form(
        f"/settings/users/invites/{owner_invite}/revoke", csrf_from="/settings/users"
    )
    assert refused.status_code == 403 and "Only an OWNER" in text(refused)
    editor = make_web(workspace=workspace, role="EDITOR")
    assert editor.get("/settings/users").status_code == 403
    denied = editor.post_form(f"/settings/users/invites/{viewer_invite}/revoke", csrf_from="/")
    assert denied.status_code == 403
    no_token = web.client.post(f"/settings/users/invites/{viewer_invite}/revoke")
    assert no_token.status_code == 400
    page = text(web.get("/settings/users"))
    assert "boss@example.com" in page and "helper@example.com" in page  # both still pending
