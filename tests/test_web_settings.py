"""Settings pages: organization profile, products, users and API keys, on the services REST
uses; role and plan gates as in the API; keys and invite links shown once."""

from __future__ import annotations

import re

import pytest

from ci_service.web.pages import settings_forms as forms
from tests.web_support import PASSWORD, csrf_of

HOSTILE = "<script>alert(1)</script>"


def text(response) -> str:
    return response.get_data(as_text=True)


def new_product(web, name="Atlas", **extra) -> str:
    body = {"name": name, "description": "Our CRM", "audience": "Sales teams", **extra}
    answer = web.api.post("/api/products", json=body)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["product"]["id"]


# -- organization ---------------------------------------------------------------------------


def test_the_first_save_creates_the_organization_as_the_rest_patch_does(web):
    page = web.get("/settings")
    assert page.status_code == 200
    assert "no profile yet" in text(page) and "Create the profile" in text(page)
    assert 'href="/account/password"' in text(page)
    answer = web.post_form(
        "/settings",
        {
            "name": "Acme",
            "websiteUrl": "https://www.acme.example",
            "industry": "Software",
            "yearFounded": "2011",
            "strengths": "Fast setup\n\n  Great support  ",
            "weaknesses": "Small team",
            "messaging": "The CRM that sells itself",
            "links": "Docs | https://docs.acme.example\nhttps://acme.example/blog",
        },
    )
    assert answer.status_code == 302 and answer.headers["Location"] == "/settings?saved=1"
    org = web.api.get("/api/organizations").get_json()["organization"]
    assert org["name"] == "Acme" and org["domain"] == "acme.example"
    assert org["companyStrengths"] == ["Fast setup", "Great support"]
    assert org["companyProfile"]["yearFounded"] == 2011
    assert org["companyProfile"]["industry"] == "Software"
    assert org["referenceLinks"] == [
        {"label": "Docs", "url": "https://docs.acme.example"},
        {"label": "https://acme.example/blog", "url": "https://acme.example/blog"},
    ]
    shown = text(web.get("/settings?saved=1"))
    assert "Saved." in shown and "The CRM that sells itself" in shown
    assert "Edit the profile" in shown and "Docs | https://docs.acme.example" in shown


def test_a_bad_profile_form_is_shown_again_with_its_messages(web):
    answer = web.post_form(
        "/settings", {"name": "Acme", "websiteUrl": "ftp://acme.example", "yearFounded": "soon"}
    )
    assert answer.status_code == 400
    body = text(answer)
    assert "websiteUrl" in body and "yearFounded" in body
    assert 'value="ftp://acme.example"' in body  # what was typed is kept
    assert web.api.get("/api/organizations").get_json()["organization"] is None
    empty = web.post_form("/settings", {"name": ""})
    assert empty.status_code == 400 and "name" in text(empty)


def test_organization_text_is_escaped(web):
    web.api.patch("/api/organizations", json={"name": HOSTILE, "keyMessaging": [HOSTILE]})
    body = text(web.get("/settings"))
    assert HOSTILE not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body


# -- products -------------------------------------------------------------------------------

PRODUCT_FORM = {
    "name": "Atlas CRM",
    "description": "Pipeline and forecasting",
    "audience": "Mid-market sales teams",
    "valueProps": "Set up in a day\nForecasts you trust",
    "features": "SSO: SAML and OIDC\nAudit log",
    "categories": "CRM: customer records",
}
PLAN_ROWS = {
    **{"plan-0-name": "Team", "plan-0-price": "49", "plan-0-currency": "usd"},
    **{"plan-0-period": "month", "plan-0-unit": "per user"},
    **{"plan-1-name": "Enterprise", "plan-1-onRequest": "1"},
    **{"plan-2-name": "Starter", "plan-2-price": "1,200", "plan-2-currency": "EUR"},
    **{"plan-2-period": "year", "plan-3-name": "", "plan-3-price": ""},  # a blank row
}


def test_add_and_edit_a_product_with_features_categories_and_pricing(web):
    answer = web.post_form("/settings/products", {**PRODUCT_FORM, **PLAN_ROWS})
    assert answer.status_code == 302
    product_id = answer.headers["Location"].split("/settings/products/")[1].split("?")[0]
    product = web.api.get(f"/api/products/{product_id}").get_json()["product"]
    assert product["valueProps"] == ["Set up in a day", "Forecasts you trust"]
    assert [(f["name"], f["description"]) for f in product["features"]] == [
        ("SSO", "SAML and OIDC"),
        ("Audit log", ""),
    ]
    assert [c["name"] for c in product["categories"]] == ["CRM"]
    team, enterprise, starter = product["pricing"]
    assert (team["price"], team["currency"], team["period"], team["unit"]) == (
        49,
        "USD",
        "month",
        "per user",
    )
    assert enterprise["onRequest"] is True and enterprise["price"] is None
    assert (starter["price"], starter["period"], starter["unit"]) == (1200, "year", None)

    page = text(web.get(f"/settings/products/{product_id}"))
    assert "SSO: SAML and OIDC" in page  # the textarea round-trips
    assert re.search(r'name="plan-0-name" value="Team"', page)  # the rows round-trip
    assert re.search(r'name="plan-0-price" value="49"', page)
    assert re.search(r'name="plan-1-onRequest" value="1" checked', page)
    listing = text(web.get("/settings/products"))
    assert "Atlas CRM" in listing and "On request" in listing and "USD 49" in listing

    sso_id = product["features"][0]["id"]
    crm_id = product["categories"][0]["id"]
    edited = dict(PRODUCT_FORM, features="Audit log: who did what\nSSO: SAML only", categories="")
    edited |= {"plan-0-name": "Team", "plan-0-price": "59", "plan-0-currency": "USD"}
    answer = web.post_form(f"/settings/products/{product_id}", edited)
    assert answer.status_code == 302
    product = web.api.get(f"/api/products/{product_id}").get_json()["product"]
    assert [f["name"] for f in product["features"]] == ["Audit log", "SSO"]
    assert product["features"][1] == {"id": sso_id, "name": "SSO", "description": "SAML only"}
    assert product["categories"] == [] and crm_id
    assert [p["price"] for p in product["pricing"]] == [59]


def test_a_bad_product_form_is_shown_again_with_its_messages(web):
    bad_price = web.post_form(
        "/settings/products", dict(PRODUCT_FORM, **{"plan-0-name": "Team", "plan-0-price": "cheap"})
    )
    assert bad_price.status_code == 400
    assert "cheap" in text(bad_price) and "is not a number" in text(bad_price)
    assert "Atlas CRM" in text(bad_price)
    week = {"plan-0-name": "Team", "plan-0-price": "5", "plan-0-period": "week"}
    bad_period = web.post_form("/settings/products", dict(PRODUCT_FORM, **week))
    assert bad_period.status_code == 400 and "the period is one of" in text(bad_period)
    no_name = web.post_form("/settings/products", dict(PRODUCT_FORM, name=""))
    assert no_name.status_code == 400 and "name" in text(no_name)
    assert web.api.get("/api/products").get_json()["products"] == []
    product_id = new_product(web)
    bad_edit = web.post_form(f"/settings/products/{product_id}", dict(PRODUCT_FORM, name=""))
    assert bad_edit.status_code == 400
    assert web.api.get(f"/api/products/{product_id}").get_json()["product"]["name"] == "Atlas"


def test_delete_a_product(web):
    product_id = new_product(web)
    answer = web.post_form(
        f"/settings/products/{product_id}/delete", csrf_from=f"/settings/products/{product_id}"
    )
    assert answer.status_code == 302 and answer.headers["Location"] == "/settings/products"
    assert web.api.get(f"/api/products/{product_id}").status_code == 404
    assert web.get(f"/settings/products/{product_id}").status_code == 404


@pytest.mark.parametrize("path", ["/settings/products", "/settings/products/{product}"])
def test_product_text_is_escaped(web, path):
    product_id = new_product(
        web, name=HOSTILE, features=[{"name": HOSTILE, "description": HOSTILE}]
    )
    body = text(web.get(path.format(product=product_id)))
    assert HOSTILE not in body and "&lt;script&gt;" in body


def test_another_workspaces_product_is_the_404_page(web, make_web):
    other = make_web()
    product_id = new_product(other)
    assert web.get(f"/settings/products/{product_id}").status_code == 404
    assert (
        web.post_form(
            f"/settings/products/{product_id}", PRODUCT_FORM, csrf_from="/settings"
        ).status_code
        == 404
    )
    gone = web.post_form(f"/settings/products/{product_id}/delete", csrf_from="/settings")
    assert gone.status_code == 404
    assert other.api.get(f"/api/products/{product_id}").get_json()["product"]["name"] == "Atlas"


# -- roles and plans ------------------------------------------------------------------------


@pytest.fixture
def viewer_of(web, make_web):
    """(a VIEWER of ``web``'s workspace, the id of a product the OWNER added there)."""
    from ci_service.store.db import connection
    from ci_service.store.identity import Workspace

    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    viewer = make_web(workspace=workspace, role="VIEWER")
    web.post_form("/settings", {"name": "Acme"})
    return viewer, new_product(web)


@pytest.mark.parametrize(
    "path", ["/settings", "/settings/products", "/settings/products/{product}"]
)
def test_a_viewer_reads_settings_without_write_forms(viewer_of, path):
    viewer, product_id = viewer_of
    page = viewer.get(path.format(product=product_id))
    body = text(page)
    assert page.status_code == 200
    assert 'method="post" action="/settings' not in body
    assert "<textarea" not in body and "Delete" not in body


def test_a_viewer_sees_the_products_but_no_link_to_people(viewer_of):
    viewer, _ = viewer_of
    assert "Atlas" in text(viewer.get("/settings/products"))
    assert 'href="/settings/users"' not in text(viewer.get("/settings"))


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/settings", {"name": "Changed"}),
        ("/settings/products", PRODUCT_FORM),
        ("/settings/products/{product}", PRODUCT_FORM),
        ("/settings/products/{product}/delete", {}),
    ],
)
def test_a_viewers_settings_posts_are_refused(web, viewer_of, path, data):
    viewer, product_id = viewer_of
    posted = viewer.post_form(path.format(product=product_id), data, csrf_from="/settings")
    assert posted.status_code == 403
    assert web.api.get(f"/api/products/{product_id}").status_code == 200


@pytest.mark.parametrize("path", ["/settings/users", "/settings/keys"])
def test_an_editor_may_not_open_people_or_keys(make_web, path):
    page = make_web(role="EDITOR").get(path)
    assert page.status_code == 403 and "Not allowed" in text(page)


def test_an_editor_edits_products_but_not_people_or_keys(make_web):
    editor = make_web(role="EDITOR")
    assert editor.post_form("/settings/products", PRODUCT_FORM).status_code == 302
    assert "Add the product" in text(editor.get("/settings/products"))
    assert (
        editor.post_form(
            "/settings/users/invite", {"email": "x@example.com", "role": "VIEWER"}, csrf_from="/"
        ).status_code
        == 403
    )
    assert editor.post_form("/settings/keys", {"name": "k"}, csrf_from="/").status_code == 403
    assert 'href="/settings/keys"' not in text(editor.get("/settings"))


@pytest.mark.parametrize("plan", ["STARTER", "PRO"])
def test_keys_need_enterprise_but_people_do_not(make_web, plan):
    owner = make_web(plan=plan)
    keys = owner.get("/settings/keys")
    assert keys.status_code == 403
    assert "Upgrade needed" in text(keys) and "ENTERPRISE" in text(keys)
    assert owner.post_form("/settings/keys", {"name": "k"}, csrf_from="/").status_code == 403
    assert owner.get("/settings/users").status_code == 200


# -- API keys -------------------------------------------------------------------------------


def test_a_new_key_is_shown_once_and_works(web):
    page = web.get("/settings/keys")
    assert page.status_code == 200 and "Create the key" in text(page)
    answer = web.post_form(
        "/settings/keys",
        {"name": "CI bot", "scopes": ["read"], "rateLimit": "50", "allowedIps": ""},
    )
    assert answer.status_code == 200
    key = re.search(r'id="new-key"[^>]*value="(svc_live_[0-9a-f]{32})"', text(answer)).group(1)
    assert "shown only this once" in text(answer)
    listing = text(web.get("/settings/keys"))
    assert key not in listing and "CI bot" in listing and key[:17] in listing
    from tests.conftest import ApiClient

    bot = ApiClient(web.client.application.test_client(), key, web.workspace_id, None)
    assert bot.get("/api/competitors").status_code == 200
    assert bot.post("/api/competitors", json={"name": "X"}).status_code == 403  # read only
    keys = web.api.get("/api/api-keys").get_json()["apiKeys"]
    made = next(k for k in keys if k["name"] == "CI bot")
    revoked = web.post_form(f"/settings/keys/{made['id']}/revoke", csrf_from="/settings/keys")
    assert revoked.status_code == 302
    assert bot.get("/api/competitors").status_code == 401
    assert "revoked" in text(web.get("/settings/keys?done=revoked"))


def test_a_bad_key_form_is_shown_again(web):
    answer = web.post_form(
        "/settings/keys", {"name": "bot", "rateLimit": "lots", "allowedIps": "not-an-ip"}
    )
    assert answer.status_code == 400
    body = text(answer)
    assert "rateLimit" in body and "allowedIps" in body and "scopes" in body
    assert "svc_live_" not in body.split("<table", 1)[0]
    past = web.post_form(
        "/settings/keys", {"name": "bot", "scopes": ["read"], "expires": "2001-01-01"}
    )
    assert past.status_code == 400 and "expiresAt" in text(past)


def test_another_workspaces_key_is_the_404_page(web, make_web):
    other = make_web()
    key_id = other.api.get("/api/api-keys").get_json()["apiKeys"][0]["id"]
    answer = web.post_form(f"/settings/keys/{key_id}/revoke", csrf_from="/settings/keys")
    assert answer.status_code == 404
    assert other.api.get("/api/api-keys").status_code == 200  # still works


def test_key_text_is_escaped(web):
    web.post_form("/settings/keys", {"name": HOSTILE, "scopes": ["read"]})
    body = text(web.get("/settings/keys"))
    assert HOSTILE not in body and "&lt;script&gt;" in body


# -- users ----------------------------------------------------------------------------------


def test_an_invite_link_is_shown_once_and_lets_the_person_join(web, app):
    page = web.get("/settings/users")
    assert page.status_code == 200 and web.email in text(page)
    answer = web.post_form(
        "/settings/users/invite",
        {"email": "New@Example.com", "role": "EDITOR"},
        csrf_from="/settings/users",
    )
    assert answer.status_code == 200
    link = re.search(r'id="invite-link"[^>]*value="([^"]+)"', text(answer)).group(1)
    assert link.startswith("http://localhost/invite/")
    assert link not in text(web.get("/settings/users"))

    newcomer = app.test_client()
    path = link.removeprefix("http://localhost")
    form = newcomer.get(path)
    assert form.status_code == 200 and "new@example.com" in text(form)
    joined = newcomer.post(
        path,
        data={"csrf_token": csrf_of(text(form)), "password": PASSWORD, "confirm": PASSWORD},
    )
    assert joined.status_code == 302 and joined.headers["Location"] == "/"
    settings = newcomer.get("/settings")
    assert settings.status_code == 200 and '<span class="role">EDITOR</span>' in text(settings)
    listing = text(web.get("/settings/users"))
    assert "new@example.com" in listing
    assert newcomer.get(path).status_code == 404  # used once


def test_change_a_role_and_remove_a_person(web, make_web):
    from ci_service.store.db import connection
    from ci_service.store.identity import Workspace

    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    viewer = make_web(workspace=workspace, role="VIEWER")
    answer = web.post_form(
        f"/settings/users/{viewer.user_id}/role", {"role": "EDITOR"}, csrf_from="/settings/users"
    )
    assert answer.status_code == 302
    assert "Role changed." in text(web.get(answer.headers["Location"]))
    assert '<span class="role">EDITOR</span>' in text(viewer.get("/settings"))  # at once
    bad = web.post_form(
        f"/settings/users/{viewer.user_id}/role", {"role": "KING"}, csrf_from="/settings/users"
    )
    assert bad.status_code == 400 and "role" in text(bad)
    removed = web.post_form(f"/settings/users/{viewer.user_id}/remove", csrf_from="/settings/users")
    assert removed.status_code == 302
    assert viewer.email not in text(web.get("/settings/users"))
    assert viewer.get("/settings").status_code == 302  # their session ended
    myself = web.post_form(f"/settings/users/{web.user_id}/remove", csrf_from="/settings/users")
    assert myself.status_code == 400 and "cannot remove yourself" in text(myself)


def test_an_admin_cannot_grant_or_take_owner(web, make_web):
    from ci_service.store.db import connection
    from ci_service.store.identity import Workspace

    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    admin = make_web(workspace=workspace, role="ADMIN")
    page = text(admin.get("/settings/users"))
    assert '<option value="OWNER"' not in page
    invite = admin.post_form(
        "/settings/users/invite",
        {"email": "boss@example.com", "role": "OWNER"},
        csrf_from="/settings/users",
    )
    assert invite.status_code == 403 and "Only an OWNER" in text(invite)
    demote = admin.post_form(
        f"/settings/users/{web.user_id}/role", {"role": "VIEWER"}, csrf_from="/settings/users"
    )
    assert demote.status_code == 403
    remove = admin.post_form(f"/settings/users/{web.user_id}/remove", csrf_from="/settings/users")
    assert remove.status_code == 403
    assert web.get("/settings/users").status_code == 200  # still OWNER


@pytest.mark.parametrize(("action", "data"), [("role", {"role": "VIEWER"}), ("remove", {})])
def test_another_workspaces_user_is_the_404_page(web, make_web, action, data):
    other = make_web()
    answer = web.post_form(
        f"/settings/users/{other.user_id}/{action}", data, csrf_from="/settings/users"
    )
    assert answer.status_code == 404
    assert other.get("/settings/users").status_code == 200


def test_user_text_is_escaped(web):
    from ci_service.services.identity import users as people
    from ci_service.store.db import connection

    with connection():
        people.create_user(web.workspace_id, "<script>alert(1)</script>@x.example", "VIEWER")
    body = text(web.get("/settings/users"))
    assert "<script>alert(1)" not in body and "&lt;script&gt;alert(1)&lt;/script&gt;@x" in body


# -- CSRF -----------------------------------------------------------------------------------


def test_every_settings_form_needs_its_csrf_token(web, make_web):
    product_id = new_product(web)
    other = make_web(workspace=None)
    paths = [
        "/settings",
        "/settings/products",
        f"/settings/products/{product_id}",
        f"/settings/products/{product_id}/delete",
        "/settings/users/invite",
        f"/settings/users/{other.user_id}/role",
        f"/settings/users/{other.user_id}/remove",
        "/settings/keys",
        "/settings/keys/x/revoke",
    ]
    for path in paths:
        answer = web.client.post(path, data={"name": "Changed", "role": "VIEWER"})
        assert answer.status_code == 400 and "form expired" in text(answer), path
    assert web.api.get(f"/api/products/{product_id}").get_json()["product"]["name"] == "Atlas"
    assert web.api.get("/api/organizations").get_json()["organization"] is None


# -- the form helpers -----------------------------------------------------------------------


def test_plans_and_items_round_trip_through_the_form():
    form = {
        **{"plan-0-name": "Pro", "plan-0-price": "49.5", "plan-0-currency": "usd"},
        **{"plan-0-period": "month", "plan-0-unit": "per seat", "plan-7-name": "Big"},
        **{"plan-7-price": "contact sales", "plan-3-name": " ", "plan-3-price": ""},
    }
    plans = forms.parse_plan_rows(forms.submitted_rows(form))
    assert plans[0] == {
        "name": "Pro",
        "onRequest": False,
        "price": 49.5,
        "currency": "USD",
        "period": "month",
        "unit": "per seat",
    }
    assert len(plans) == 2 and plans[1]["onRequest"] is True and plans[1]["currency"] is None
    rows = forms.plan_rows(plans, blanks=1)
    assert rows[0] == {**form_row("Pro", "49.5", "USD", "month", "per seat")}
    assert rows[1]["onRequest"] is True and rows[1]["price"] == ""
    assert rows[2] == forms.blank_row()
    items = forms.parse_items("A: one: two\nB", [{"id": "i1", "name": "a", "evidenceIds": ["e"]}])
    assert items[0] == {"name": "A", "description": "one: two", "id": "i1", "evidenceIds": ["e"]}
    assert forms.items_text([{"name": "B", "description": ""}]) == "B"


def form_row(name, price, currency="", period="", unit="", on_request=False):
    return {
        "name": name,
        "price": price,
        "currency": currency,
        "period": period,
        "unit": unit,
        "onRequest": on_request,
    }
