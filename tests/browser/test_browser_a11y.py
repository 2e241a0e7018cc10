"""axe-core on every page of the app, at 1280 and 375 px: zero serious or critical
violations, and no console error (a missing favicon was one on every page).

The pages come from Flask's url_map (every GET endpoint of the ``pages`` blueprint), filled
with real records seeded here: a competitor collected from a local site, our product, a
battlecard, a deal, a solution, a note, an invite, an OAuth client. An endpoint that is not
visited must be named in ``NOT_PAGES`` with the reason, so a new page cannot be forgotten.
"""

from __future__ import annotations

import secrets

import pytest
from flask import Flask

from tests.browser.conftest import TIMEOUT_MS, Tab, axe_violations
from tests.intel_support import FixtureServer

# GET endpoints that are not HTML pages a person reads (axe has nothing to check there).
NOT_PAGES = {
    "pages.static": "our CSS, JS and icons",
    "pages.battlecard_download": "a file download (PDF/Markdown), not a page",
    "pages.battlecard_status": "JSON polled by battlecard.js",
    "pages.graph_layout_json": "JSON read by graph.js",
    "pages.job_progress": "JSON polled by live.js",
}

SITE = {
    "/": "<h1>Tallowmere Analytics</h1><p>Tallowmere builds dashboards for field sales teams: "
    "territory maps, visit planning and offline notes.</p>",
    "/pricing": "<h1>Pricing</h1><h2>Field</h2><p>$24 per user / month.</p>"
    "<h2>Region</h2><p>$59 per user / month. SSO and audit logs.</p>",
    "/about": "<h1>About Tallowmere</h1><p>Founded in 2017, headquartered in Porto, 60 people.</p>",
    "/news": "<h1>News</h1><article><h2>Tallowmere opens a Madrid office</h2>"
    "<time datetime='2026-03-02'>2 March 2026</time><p>The team grows to 60.</p></article>",
}


def site_html(body: str) -> bytes:
    nav = "<nav><a href='/'>Home</a> <a href='/pricing'>Pricing</a> <a href='/about'>About</a>"
    nav += " <a href='/news'>News</a></nav>"
    return f"<!doctype html><html><head><title>Tallowmere</title></head><body>{nav}{body}".encode()


def page_endpoints() -> dict[str, str]:
    """Every GET endpoint of the pages blueprint and its URL rule."""
    from ci_service.web import pages

    app = Flask("a11y-url-map")
    pages.install(app)
    return {
        rule.endpoint: rule.rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("pages.") and "GET" in rule.methods
    }


class _Loopback:
    """Where the OAuth client says it would receive the code (never reached here)."""

    def url(self, path: str) -> str:
        return "http://127.0.0.1:9" + path


@pytest.fixture(scope="module")
def seeded(live):
    """Real records behind every page with an id, made through REST as a client would."""
    server = FixtureServer()
    for path, body in SITE.items():
        server.routes[path] = lambda h, body=body: h.send(200, site_html(body))
    with server:
        tag = secrets.token_hex(2)
        product = live.api(
            "POST",
            "/api/products",
            json={
                "name": f"Fieldbook {tag}",
                "description": "Route planning for reps",
                "audience": "Field sales",
                "categories": [{"id": "security-compliance", "name": "Security"}],
            },
        )
        assert product.status_code == 200, product.text
        product = product.json()["product"]
        competitor, job_id = live.add_competitor(f"Tallowmere {tag}", server.url("/"))
    live.api("PATCH", f"/api/competitors/{competitor['id']}",
             json={"relevantProductIds": [product["id"]]})  # fmt: skip
    generated = live.api(
        "POST",
        f"/api/battlecards/{competitor['id']}/generate",
        json={"productId": product["id"], "mode": "ATTACK"},
    )
    assert generated.status_code == 200, generated.text
    live.wait_for_job(generated.json()["jobId"], timeout=120)
    deal = live.api(
        "POST",
        "/api/deals",
        json={"prospectCompanyName": f"Quarry Bay {tag}", "outcome": "LOST",
              "competitorId": competitor["id"], "arguments": ["Cheaper per seat"]},
    )  # fmt: skip
    assert deal.status_code == 200, deal.text
    solution = live.api(
        "POST",
        "/api/solutions",
        json={"name": f"Secure rollout {tag}", "productIds": [product["id"]],
              "categoryMappings": [{"categoryId": "security-compliance",
                                    "productId": product["id"], "weight": 1}]},
    )  # fmt: skip
    assert solution.status_code == 201, solution.text
    note = live.api(
        "POST",
        "/api/intel",
        json={"title": f"Q4 discount {tag}", "content": "They discount 30% in Q4",
              "competitorId": competitor["id"]},
    )  # fmt: skip
    assert note.status_code in (200, 201), note.text
    from tests.browser.test_browser_oauth import Client

    client = Client.register(live, _Loopback())
    alert = live.api(
        "POST",
        "/api/subscriptions",
        json={"name": f"Rival watch {tag}", "channel": "webhook", "scope": "workspace",
              "target": "https://hooks.globex.example/a11y"},
    )  # fmt: skip
    assert alert.status_code == 200, alert.text
    alert = alert.json()["subscription"]
    live.api("POST", f"/api/subscriptions/{alert['id']}/test")  # a row on its deliveries page
    for mute in (  # Settings → Alerts lists them, each with Unmute
        {"subscriptionId": alert["id"], "eventType": "competitor.news"},
        {"competitorId": competitor["id"], "url": f"https://tallowmere-{tag}.example/careers"},
    ):
        assert live.api("POST", "/api/mutes", json=mute).status_code == 200
    deal_event = live.api("GET", "/api/events?type=deal.recorded").json()["events"][0]
    return {
        "page_event": _page_change(live, competitor["id"], tag),
        "deal_event": deal_event["id"],
        "alert": alert,
        "competitor": competitor,
        "product": product,
        "battlecard": generated.json()["battlecard"],
        "deal": deal.json()["deal"],
        "solution": solution.json().get("solution", solution.json()),
        "intel": note.json()["intelItem"],
        "job_id": job_id,
        "invite": live.invite(f"a11y-{tag}@acme.example", "EDITOR"),
        "oauth_url": client.authorize_url(),
    }


def _page_change(live, competitor_id: str, tag: str) -> str:
    """A page change of the competitor (two versions of its pricing page and the event),
    written into the live database as the collect would: /changes/<id> shows its diff."""
    from ci_service.services.alerts import events
    from ci_service.services.intel import items as intel
    from ci_service.store.db import close_database, connection, open_database, transaction

    # Asked before the transaction opens: a write transaction held here would make the
    # server's own writes for this request (API key use, usage) wait on it.
    ws = live.api("GET", f"/api/competitors/{competitor_id}").json()["competitor"]
    open_database(live.database)
    try:
        with connection(), transaction():
            versions = [
                intel.record_evidence(
                    ws["workspaceId"],
                    source_type="WEB_PAGE",
                    url=f"https://tallowmere-{tag}.example/pricing",
                    title="Pricing",
                    content=f"Pricing\nField\n${price} per user / month.\nSSO and audit logs.",
                    competitor_id=competitor_id,
                ).item
                for price in (24, 29)
            ]
            return events.emit(
                ws["workspaceId"],
                "competitor.page_changed",
                "Tallowmere: “Pricing” changed",
                "The page now says one thing and no longer says another.",
                competitor_id=competitor_id,
                evidence_ids=[v.id for v in versions],
                data={
                    "intelId": versions[1].id,
                    "previousItemId": versions[0].id,
                    "url": f"https://tallowmere-{tag}.example/pricing",
                    "added": ["$29 per user / month."],
                    "removed": ["$24 per user / month."],
                },
            ).id
    finally:
        close_database()  # the test process keeps nothing open on the live database


def signed_in_paths(seeded, live) -> dict[str, list[str]]:
    """endpoint -> the paths to check signed in as the OWNER (some endpoints more than once:
    a filter or a second state renders other parts of the page)."""
    competitor, product = seeded["competitor"], seeded["product"]
    oauth = seeded["oauth_url"].removeprefix(live.url)
    return {
        "pages.home": ["/"],
        "pages.change_password": ["/account/password"],
        "pages.battlecard": [f"/battlecards/{seeded['battlecard']['id']}"],
        "pages.competitor": [f"/competitors/{competitor['id']}", "/competitors/nope-404"],
        "pages.deals": ["/deals"],
        "pages.changes": ["/changes", "/changes?unread=1&type=competitor.news"],
        "pages.change_detail": [
            f"/changes/{seeded['page_event']}",
            f"/changes/{seeded['page_event']}?view=inline",
            f"/changes/{seeded['deal_event']}",
        ],
        "pages.graph": ["/graph"],
        "pages.intel_item": [f"/intel/{seeded['intel']['id']}"],
        "pages.jobs": ["/jobs"],
        "pages.job_detail": [f"/jobs/{seeded['job_id']}"],
        "pages.matrix": ["/matrix", f"/matrix?productId={product['id']}&includeOurProduct=true"],
        "pages.solution_matrix_page": ["/matrix/solutions"],
        "pages.oauth_authorize": [oauth, "/oauth/authorize"],  # consent, then the error page
        "pages.search": ["/search?q=Tallowmere", "/search?q=zzqx-nothing"],
        "pages.settings": ["/settings"],
        "pages.settings_alerts": ["/settings/alerts"],
        "pages.settings_alerts_deliveries": [
            f"/settings/alerts/{seeded['alert']['id']}/deliveries"
        ],
        "pages.settings_connections": ["/settings/connections"],
        "pages.settings_keys": ["/settings/keys"],
        "pages.settings_products": ["/settings/products"],
        "pages.settings_product": [f"/settings/products/{product['id']}"],
        "pages.settings_users": ["/settings/users"],
        "pages.pick_workspace": ["/workspaces"],
        "pages.edit_competitor": [f"/competitors/{competitor['id']}/edit"],
        "pages.delete_competitor": [f"/competitors/{competitor['id']}/delete"],
        "pages.competitor_import_form": ["/competitors/import"],
        "pages.solutions": ["/solutions"],
        "pages.new_solution": ["/solutions/new"],
        "pages.edit_solution": [f"/solutions/{seeded['solution']['id']}/edit"],
    }


def signed_out_paths(seeded, live) -> dict[str, list[str]]:
    invite = seeded["invite"].removeprefix(live.url)
    return {"pages.signin": ["/signin"], "pages.accept_invite": [invite, "/invite/expired-x"]}


def test_every_page_endpoint_is_visited_or_excused(seeded, live):
    endpoints = page_endpoints()
    covered = set(signed_in_paths(seeded, live)) | set(signed_out_paths(seeded, live))
    missing = {
        endpoint: rule
        for endpoint, rule in endpoints.items()
        if endpoint not in covered and endpoint not in NOT_PAGES
    }
    assert missing == {}, (
        "pages the accessibility check does not visit: add them to signed_in_paths() with "
        f"a seeded record, or to NOT_PAGES with the reason: {missing}"
    )


def check(tab: Tab, path: str, width: int) -> list[str]:
    """The page's problems: axe serious/critical violations, console errors, a 5xx."""
    tab.console_errors.clear()
    tab.errors.clear()
    response = tab.go(path)
    problems = []
    if response is None or response.status >= 500:
        problems.append(f"status {response.status if response else 'none'}")
    problems += axe_violations(tab)
    # A page shown with an error status on purpose (the 404 page) logs its own status.
    own = f"status of {response.status if response else 0} " if response else "-"
    problems += [
        f"console error: {m}"
        for m in tab.console_errors
        if not (own in m and m.endswith(f"({tab.page.url})"))
    ]
    problems += [f"script error: {m}" for m in tab.errors]
    return [f"{width}px {path}: {p}" for p in problems]


@pytest.mark.parametrize("width", [1280, 375])
def test_every_page_passes_axe_and_logs_no_console_error(browser, live, seeded, width):
    endpoints = page_endpoints()
    context = browser.new_context(
        viewport={"width": width, "height": 900}, is_mobile=width < 500, has_touch=width < 500
    )
    context.set_default_timeout(TIMEOUT_MS)
    problems: list[str] = []
    visited = 0
    try:
        tab = Tab(context.new_page(), live)
        for paths in signed_out_paths(seeded, live).values():
            for path in paths:
                problems += check(tab, path, width)
                visited += 1
        problems += check(tab, "/no-such-page", width)  # the 404 page, signed out
        tab.sign_in(live.owner)
        for endpoint, paths in signed_in_paths(seeded, live).items():
            if endpoint not in endpoints:
                continue  # a page another change has not added (yet)
            for path in paths:
                problems += check(tab, path, width)
                visited += 1
    finally:
        context.close()
    assert visited >= 20
    assert problems == [], "\n".join(problems)


def test_the_favicon_answers_and_every_page_links_it(live):
    import httpx

    icon = httpx.get(live.url + "/favicon.ico", timeout=30)
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.lstrip().startswith("<svg")
    signin = httpx.get(live.url + "/signin", timeout=30).text
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in signin
    assert httpx.get(live.url + "/static/favicon.svg", timeout=30).status_code == 200
