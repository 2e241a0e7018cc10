"""Workspace isolation in the web app: every page route that takes an id, walked from the
app's url_map with another workspace's ids, answers the same 404 page as a missing id and
changes nothing; pages with filters never show the other workspace's data. A new page
route with an id fails here until its parameter is in ``PARAMS``."""

from __future__ import annotations

import pytest

from ci_service.store.db import connection
from ci_service.store.identity import ApiKey, User
from tests.workspace_seed import seed_workspace

pytest_plugins = ["tests.jobs_fixtures"]

# Page path parameter -> the seeded kind whose ids fill it.
PARAMS = {
    "competitor_id": "competitor",
    "battlecard_id": "battlecard",
    "item_id": "intel",
    "job_id": "job",
    "product_id": "product",
    "key_id": "api_key",
    "user_id": "user",
    "subscription_id": "subscription",
    "delivery_id": "delivery",
    "mute_id": "mute",
    "connection_id": "connection",
    "solution_id": "solution",
    "invite_id": "invite",
    "event_id": "event",
}
# Not workspace data: the static files and invite tokens (a token is its own secret).
NOT_WALKED = {"pages.static", "pages.accept_invite"}


@pytest.fixture
def world(make_api, make_web, runner):
    """Workspace A seeded with data of every kind; B's OWNER signed in to the web app."""
    a = make_api(plan="ENTERPRISE", rate_limit=1_000_000)
    seeded = seed_workspace(a, "Alpha", runner=runner)
    with connection():
        seeded.add("user", User.get(User.workspace == a.workspace_id).id)
    b = make_web(plan="ENTERPRISE")
    return seeded, b


def page_rules(app):
    return [
        rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("pages.") and rule.endpoint not in NOT_WALKED
    ]


def test_every_page_parameter_is_known(app):
    names = {name for rule in page_rules(app) for name in rule.arguments}
    assert names <= set(PARAMS), f"add {names - set(PARAMS)} to PARAMS"


def test_every_page_with_another_workspaces_id_is_the_404_page(app, world):
    seeded, b = world
    walked = 0
    for rule in page_rules(app):
        if not rule.arguments:
            continue
        path = rule.rule
        for name in rule.arguments:
            path = path.replace(f"<{name}>", seeded.first(PARAMS[name]))
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            if method == "GET":
                answer = b.get(path, headers={"Accept": "text/html"})
            else:
                answer = b.post_form(path, {"mode": "DEFENSE", "role": "VIEWER"}, csrf_from="/")
            walked += 1
            assert answer.status_code == 404, (method, path, answer.status_code)
            body = answer.get_data(as_text=True)
            if answer.mimetype == "text/html":
                assert "not in your workspace" in body, (method, path)
            for marker in seeded.names:
                assert marker not in body, (method, path, marker)
    assert walked >= 15  # every id route of home, competitors, battlecards, jobs, settings
    with connection():  # nothing of A's changed: the key lives, the user stays
        assert ApiKey.get_by_id(seeded.first("api_key")).revoked_at is None
        assert User.get_or_none(User.id == seeded.first("user")) is not None
    still = b.api.client.get(
        f"/api/competitors/{seeded.first('competitor')}", headers={"X-API-Key": seeded.key}
    )
    assert still.status_code in (200, 401)  # 401 only when the seed kept no key of A's


@pytest.mark.parametrize(
    "query",
    [
        "/matrix?productId={product}",
        "/matrix?competitorIds={competitor}",
        "/matrix/solutions?solutionIds={solution}",
        "/jobs?competitorId={competitor}",
        "/search?q=Alpha",
        "/deals?competitorId={competitor}",
        "/changes?competitorId={competitor}",
        "/changes",
        "/graph/layout.json",
        "/",
        "/settings/products",
        "/settings/users",
        "/settings/keys",
        "/settings/alerts",
    ],
)
def test_filters_never_show_another_workspaces_data(world, query):
    seeded, b = world
    path = query.format(**{kind: ids[0] for kind, ids in seeded.ids.items()})
    answer = b.get(path, headers={"Accept": "text/html"})
    assert answer.status_code in (200, 400, 404), (path, answer.status_code)
    body = answer.get_data(as_text=True)
    for marker in seeded.markers():
        assert marker not in body, (path, marker)
