"""Web pages: home, competitor, intel, jobs and search (issue 13).

Each page shows the record REST answers for the same id, write buttons only to those who
may write, the same 404 page for missing and foreign ids, and crawled text escaped.
"""

from __future__ import annotations

import html
import re
import time

import pytest

from ci_service.services.intel import graph_links as intel_graph
from ci_service.services.intel import items as intel
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection, transaction
from ci_service.store.resources import Offering
from tests.pipeline_fixtures.support import run_jobs

HOSTILE = "<script>alert(1)</script>"
PRICE_CHANGE = {
    "detectedAt": "2030-01-02T10:00:00.000000Z",
    "change": "price_changed",
    "plan": "Pro",
    "old": {"price": 49.0, "currency": "USD", "period": "month", "unit": "per user"},
    "new": {"price": 59.0, "currency": "USD", "period": "month", "unit": "per user"},
    "evidenceIds": [],
}


def text(response) -> str:
    return response.get_data(as_text=True)


def add_competitor(web, name="Globex", url="https://globex.example") -> str:
    answer = web.api.post("/api/competitors", json={"name": name, "websiteUrl": url})
    assert answer.status_code == 200, answer.json
    return answer.json["competitor"]["id"]


def add_product(web, name="OurDesk") -> str:
    body = {"name": name, "description": "Our help desk", "audience": "support teams"}
    answer = web.api.post("/api/products", json=body)
    assert answer.status_code == 200, answer.json
    return answer.json["product"]["id"]


def tab(web, cid: str, name: str) -> str:
    """The competitor page's tab ``name``, from its heading on (the header left out)."""
    page = web.get(f"/competitors/{cid}?tab={name}")
    assert page.status_code == 200, name
    body = text(page)
    return body[body.index('<div class="cp-panel"') :]


def seed_competitor(web, name="Globex") -> dict:
    """A competitor with what a collect would leave: a profile with quotes, an offering
    with features, pricing and a price change, a changed page, news, a person, a deal."""
    cid = add_competitor(web, name)
    ws = web.workspace_id
    quote = {
        "evidenceId": None,
        "quote": "Founded in 2015 in Lisbon.",
        "url": "https://globex.example/about#:~:text=Founded%20in%202015",
    }
    with connection():
        first = intel.record_evidence(
            ws,
            source_type="WEB_PAGE",
            url="https://globex.example/about",
            title="About Globex",
            content="Founded in 2015 in Lisbon.\nWe serve 40 teams.",
            competitor_id=cid,
        ).item
        second = intel.record_evidence(
            ws,
            source_type="WEB_PAGE",
            url="https://globex.example/about",
            title="About Globex",
            content="Founded in 2015 in Lisbon.\nWe serve 4000 teams worldwide.",
            competitor_id=cid,
        ).item
        news = intel.record_evidence(
            ws,
            source_type="NEWS",
            url="https://globex.example/news/series-b",
            title="Globex raises a Series B",
            content="Globex raised 20 million dollars.",
            competitor_id=cid,
        ).item
        quote["evidenceId"] = first.id
        with transaction():
            row = Competitor.get_by_id(cid)
            row.company_profile = {
                "yearFounded": 2015,
                "headquarters": "Lisbon",
                "quotes": {"yearFounded": [quote]},
                "funding": [{"round": "Series B", "amount": "20M", "currency": "USD"}],
                "customers": [{"name": "Initech", "quotes": [quote]}],
            }
            row.save()
            offering = Offering.create(
                workspace=ws,
                competitor=cid,
                name="Globex Desk",
                description="Ticketing",
                features=[{"id": "f1", "name": "SLA timers", "description": "Due dates"}],
                pricing=[
                    {
                        "name": "Pro",
                        "price": 59.0,
                        "currency": "USD",
                        "period": "month",
                        "unit": "per user",
                        "onRequest": False,
                        "features": ["Unlimited tickets"],
                        "quotes": [quote],
                    }
                ],
                pricing_changes=[PRICE_CHANGE],
            )
            intel_graph.link_person(
                ws,
                row,
                "Maria Lopes",
                "CEO",
                properties={"title": "CEO", "evidenceIds": [first.id], "quotes": [quote]},
            )
    deal = web.api.post(
        "/api/deals",
        json={
            "prospectCompanyName": "Hooli",
            "outcome": "LOST",
            "competitorId": cid,
            "arguments": ["cheaper seats"],
        },
    )
    assert deal.status_code == 200, deal.json
    return {
        "id": cid,
        "first": first.id,
        "changed": second.id,
        "news": news.id,
        "offering": offering.id,
        "deal": deal.json["deal"]["id"],
    }


# -- home ---------------------------------------------------------------------------------


def test_home_lists_competitors_running_jobs_and_latest_changes(web):
    seeded = seed_competitor(web)
    page = web.get("/")
    body = text(page)
    assert page.status_code == 200
    (listed,) = web.api.get("/api/competitors").json["competitors"]
    assert f'href="/competitors/{listed["id"]}"' in body
    assert listed["name"] in body and listed["tier"] in body and "PENDING" in body
    # The collect job queued with the competitor runs: a progress bar updated by live.js.
    (job,) = web.api.get("/api/jobs?status=running").json["jobs"]
    assert f'data-progress-url="/jobs/{job["id"]}/progress.json"' in body
    assert f'<progress max="100" value="{job["progress"]}"' in body
    assert "/static/live.js" in body
    # Latest changes: the new product, its price change, the news and the changed page.
    assert "New product" in body and "Globex Desk" in body
    assert "Price change" in body and "$49 per user/month → $59 per user/month" in body
    assert f'href="/intel/{seeded["news"]}"' in body and "Globex raises a Series B" in body
    assert f'href="/intel/{seeded["changed"]}"' in body and "Changed page" in body
    # The price change (2030) is the newest.
    assert body.index("Price change") < body.index("Changed page")


def test_add_competitor_form_creates_it_with_its_job_and_tier(web):
    answer = web.post_form(
        "/competitors",
        {"name": "Acme", "websiteUrl": "https://acme.example", "tier": "TIER_1"},
        csrf_from="/",
    )
    assert answer.status_code == 303
    cid = answer.headers["Location"].rsplit("/", 1)[1]
    competitor = web.api.get(f"/api/competitors/{cid}").json
    assert competitor["competitor"]["name"] == "Acme"
    assert competitor["competitor"]["tier"] == "TIER_1"
    assert competitor["competitor"]["refreshRate"] == 7
    (job,) = web.api.get(f"/api/jobs?competitorId={cid}").json["jobs"]
    assert job["type"] == "collect"
    page = web.get(answer.headers["Location"])
    assert page.status_code == 200 and "Acme" in text(page)


def test_add_competitor_form_shows_validation_errors(web):
    answer = web.post_form("/competitors", {"name": "Acme", "websiteUrl": "ftp://x"}, "/")
    assert answer.status_code == 400
    body = text(answer)
    assert 'class="error"' in body and "websiteUrl" in body and 'value="Acme"' in body
    bad_tier = web.post_form(
        "/competitors", {"name": "B", "websiteUrl": "https://b.example", "tier": "TIER_9"}, "/"
    )
    assert bad_tier.status_code == 400 and "must be one of" in text(bad_tier)
    assert web.api.get("/api/competitors").json["competitors"] == []


def test_add_competitor_form_respects_the_starter_limit(make_web):
    web = make_web(plan="STARTER")
    for n in range(3):
        add_competitor(web, f"C{n}", f"https://c{n}.example")
    answer = web.post_form("/competitors", {"name": "D", "websiteUrl": "https://d.example"}, "/")
    assert answer.status_code == 403
    assert "The STARTER plan allows 3 competitors; upgrade to add more" in text(answer)
    assert len(web.api.get("/api/competitors").json["competitors"]) == 3


def test_home_renders_100_competitors_fast(web, capsys):
    from ci_service.services.workspace import competitors as service

    with connection():
        for n in range(100):
            service.create_competitor(
                web.workspace_id, {"name": f"Rival {n}", "websiteUrl": f"https://r{n}.example"}
            )
    seed_competitor(web)
    web.get("/")  # warm up templates
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        page = web.get("/")
        timings.append(time.perf_counter() - started)
        assert page.status_code == 200
    best = min(timings)
    with capsys.disabled():
        print(f"\nhome at 101 competitors: best {best * 1000:.0f} ms of 5")
    assert "Rival 99" in text(page)
    assert best < 0.2


# -- competitor ---------------------------------------------------------------------------


def test_competitor_page_shows_the_rest_records(web):
    seeded = seed_competitor(web)
    cid = seeded["id"]
    product = add_product(web)
    generated = web.api.post(
        f"/api/battlecards/{cid}/generate", json={"productId": product, "mode": "DEFENSE"}
    )
    assert generated.status_code == 200
    card_id = generated.json["battlecard"]["id"]
    page = web.get(f"/competitors/{cid}")
    assert page.status_code == 200
    body = text(page)
    competitor = web.api.get(f"/api/competitors/{cid}").json["competitor"]
    assert f"<h1>{competitor['name']}" in body
    # Profile with its quote, a link opening the page at the sentence, the evidence.
    assert "Founded" in body and "2015" in body and "Lisbon" in body
    quote = competitor["companyProfile"]["quotes"]["yearFounded"][0]
    assert html.escape(quote["url"]) in body and quote["quote"] in body
    assert f'href="/intel/{seeded["first"]}"' in body
    assert "Series B" in body and "Initech" in body
    # The summary: what they sell, the price table, people, the news and the latest card.
    offering = web.api.get(f"/api/offerings/{seeded['offering']}").json["offering"]
    assert offering["name"] in body and "Ticketing" in body and "$59 per user/month" in body
    assert "Maria Lopes" in body and "Globex raises a Series B" in body
    assert f'href="/battlecards/{card_id}"' in body
    # The tabs: products with features and pricing, as /api/offerings shows them.
    products = tab(web, cid, "products")
    assert offering["name"] in products and "SLA timers" in products
    assert "Unlimited tickets" in products and "$59 per user/month" in products
    # Intel timeline newest first with the diff of the changed page.
    items = web.api.get(f"/api/intel?competitorId={cid}").json["intelItems"]
    timeline = tab(web, cid, "intel")
    positions = [timeline.index(f'href="/intel/{i["id"]}"') for i in items]
    assert positions == sorted(positions)
    changed = next(i for i in items if i["id"] == seeded["changed"])
    assert changed["changes"]["added"] and all(
        html.escape(p) in timeline for p in changed["changes"]["added"]
    )
    assert 'class="diff-removed"' in timeline
    # People, news, deals and battlecards.
    assert "Maria Lopes" in tab(web, cid, "people") and "CEO" in tab(web, cid, "people")
    assert "Globex raises a Series B" in tab(web, cid, "news")
    deals = tab(web, cid, "deals")
    assert "Hooli" in deals and "cheaper seats" in deals and "LOST" in deals
    cards = tab(web, cid, "battlecards")
    assert f'href="/battlecards/{card_id}"' in cards and "DEFENSE" in cards
    # Write buttons for an OWNER.
    assert "Refresh" in body and "Generate battlecard" in body


def test_refresh_and_generate_buttons_start_jobs_with_live_progress(web):
    cid = add_competitor(web)
    product = add_product(web)
    run_jobs()  # the first collect ends (the site does not resolve: failed)
    refreshed = web.post_form(f"/competitors/{cid}/refresh", csrf_from=f"/competitors/{cid}")
    assert refreshed.status_code == 303
    job_id = refreshed.headers["Location"].split("job=", 1)[1]
    job = web.api.get(f"/api/jobs/{job_id}").json["job"]
    assert job["type"] == "collect" and job["status"] == "running"
    page = text(web.get(refreshed.headers["Location"]))
    assert f'data-progress-url="/jobs/{job_id}/progress.json"' in page
    assert f'href="/jobs/{job_id}"' in page
    generated = web.post_form(
        f"/competitors/{cid}/battlecards",
        {"productId": product, "mode": "DEFENSE"},
        csrf_from=f"/competitors/{cid}",
    )
    assert generated.status_code == 303
    gen_id = generated.headers["Location"].split("job=", 1)[1]
    gen_job = web.api.get(f"/api/jobs/{gen_id}").json["job"]
    assert gen_job["metadata"]["mode"] == "DEFENSE"
    (card,) = web.api.get(f"/api/battlecards?competitorId={cid}").json["battlecards"]
    assert card["mode"] == "DEFENSE" and card["status"] == "GENERATING"
    bad = web.post_form(
        f"/competitors/{cid}/battlecards",
        {"productId": product, "mode": "BOTH"},
        f"/competitors/{cid}",
    )
    assert bad.status_code == 400 and "mode" in text(bad)


# -- intel ----------------------------------------------------------------------------------


def test_intel_page_shows_the_rest_record_and_its_diff(web):
    seeded = seed_competitor(web)
    item = web.api.get(f"/api/intel/{seeded['changed']}").json["intelItem"]
    page = web.get(f"/intel/{item['id']}")
    assert page.status_code == 200
    body = text(page)
    assert item["title"] in body and item["sourceType"] in body
    assert f'href="{item["url"]}"' in body
    assert item["createdAt"] in body and f"{item['credibilityScore']:.2f}" in body
    assert html.escape(item["content"]) in body
    assert item["changes"]["summary"] in body
    assert f'href="/intel/{item["previousItemId"]}"' in body
    assert f'href="/competitors/{seeded["id"]}"' in body


# -- jobs -----------------------------------------------------------------------------------


def test_jobs_list_filters_like_the_api(web):
    first = add_competitor(web, "Alpha", "https://alpha.example")
    second = add_competitor(web, "Beta", "https://beta.example")
    run_jobs()  # both collects end
    web.api.post("/api/organizations", json={"name": "Us", "websiteUrl": "https://us.example"})
    refreshed = web.post_form(f"/competitors/{first}/refresh", csrf_from=f"/competitors/{first}")
    assert refreshed.status_code == 303

    def listed(query: str) -> list[str]:
        page = web.get(f"/jobs{query}")
        assert page.status_code == 200
        return re.findall(r'<a href="/jobs/([^"/]+)">', text(page))

    for query in (
        "",
        "?status=running",
        "?status=failed",
        f"?competitorId={first}",
        f"?competitorId={second}",
        "?type=collect",
        "?type=generate",
        f"?status=running&competitorId={first}",
    ):
        expected = [j["id"] for j in web.api.get(f"/api/jobs{query}").json["jobs"]]
        assert listed(query) == expected, query
    assert len(listed(f"?competitorId={first}")) == 2
    assert web.get("/jobs?status=bogus").status_code == 400


def test_job_page_progress_json_and_cancel(web):
    cid = add_competitor(web)
    (job,) = web.api.get(f"/api/jobs?competitorId={cid}").json["jobs"]
    page = web.get(f"/jobs/{job['id']}")
    body = text(page)
    assert page.status_code == 200
    assert job["displayTitle"] in body and "Cancel job" in body
    for step in job["steps"]:
        assert f'data-step-id="{step["id"]}"' in body and step["name"] in body
    progress = web.get(f"/jobs/{job['id']}/progress.json")
    assert progress.status_code == 200 and progress.mimetype == "application/json"
    assert progress.json == web.api.get(f"/api/jobs/{job['id']}").json
    cancelled = web.post_form(f"/jobs/{job['id']}/cancel", csrf_from="/jobs")
    assert cancelled.status_code == 303
    after = web.api.get(f"/api/jobs/{job['id']}").json["job"]
    assert after["status"] == "failed" and after["currentStep"] == "Cancelled"
    assert web.get(f"/jobs/{job['id']}/progress.json").json["job"] == after
    again = web.post_form(f"/jobs/{job['id']}/cancel", csrf_from="/jobs")
    assert again.status_code == 400 and "only a running job can be cancelled" in text(again)
    assert "Cancel job" not in text(web.get(f"/jobs/{job['id']}"))


# -- search ---------------------------------------------------------------------------------


def test_search_groups_the_api_results(web):
    seeded = seed_competitor(web, "Globex")
    add_competitor(web, "Globetrotter", "https://trot.example")
    page = web.get("/search?q=glob")
    assert page.status_code == 200
    body = text(page)
    results = web.api.get("/api/search?q=glob").json["results"]
    assert {r["type"] for r in results} == {"competitor", "intel"}
    for result in results:
        assert f'href="{result["url"]}"' in body
    assert "<h2" in body and "Competitors" in body and "Intel" in body
    assert body.index("Competitors") < body.index(f'href="/intel/{seeded["news"]}"')
    assert web.get("/search?q=zzzz-nothing").status_code == 200
    short = web.get("/search?q=a")
    assert short.status_code == 400 and "at least 2 characters" in text(short)
    assert web.get("/search").status_code == 200


# -- access, isolation, escaping, CSRF -------------------------------------------------------


def test_viewer_sees_no_write_buttons_and_cannot_post(web, make_web, make_workspace):
    from ci_service.store.identity import Workspace

    seeded = seed_competitor(web)
    cid = seeded["id"]
    product = add_product(web)
    (job,) = web.api.get(f"/api/jobs?competitorId={cid}").json["jobs"]
    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    viewer = make_web(role="VIEWER", workspace=workspace)
    home = text(viewer.get("/"))
    assert "Add competitor" not in home and 'action="/competitors"' not in home
    page = text(viewer.get(f"/competitors/{cid}"))
    assert "Globex Desk" in page
    assert "Refresh" not in page and "Generate battlecard" not in page
    job_page = text(viewer.get(f"/jobs/{job['id']}"))
    assert "Cancel job" not in job_page
    assert viewer.get(f"/jobs/{job['id']}/progress.json").status_code == 200
    posts = [
        ("/competitors", {"name": "X", "websiteUrl": "https://x.example"}),
        (f"/competitors/{cid}/refresh", {}),
        (f"/competitors/{cid}/battlecards", {"productId": product, "mode": "ATTACK"}),
        (f"/jobs/{job['id']}/cancel", {}),
    ]
    for path, data in posts:
        answer = viewer.post_form(path, data, csrf_from="/")
        assert answer.status_code == 403, path
    assert len(web.api.get("/api/competitors").json["competitors"]) == 1
    assert web.api.get(f"/api/jobs/{job['id']}").json["job"]["status"] == "running"
    assert web.api.get(f"/api/battlecards?competitorId={cid}").json["battlecards"] == []


def test_another_workspaces_ids_are_the_404_page(web, make_web):
    seeded = seed_competitor(web)
    (job,) = web.api.get(f"/api/jobs?competitorId={seeded['id']}").json["jobs"]
    other = make_web()
    gets = [
        f"/competitors/{seeded['id']}",
        f"/intel/{seeded['changed']}",
        f"/jobs/{job['id']}",
        f"/jobs/{job['id']}/progress.json",
        f"/jobs?competitorId={seeded['id']}",
    ]
    for path in gets:
        answer = other.get(path)
        assert answer.status_code == 404, path
        assert "not in your workspace" in text(answer)
        assert "Globex" not in text(answer)
    posts = [
        f"/competitors/{seeded['id']}/refresh",
        f"/competitors/{seeded['id']}/battlecards",
        f"/jobs/{job['id']}/cancel",
    ]
    product = add_product(other)
    for path in posts:
        answer = other.post_form(path, {"productId": product, "mode": "ATTACK"}, csrf_from="/")
        assert answer.status_code == 404, path
    assert web.api.get(f"/api/jobs/{job['id']}").json["job"]["status"] == "running"
    assert len(web.api.get(f"/api/jobs?competitorId={seeded['id']}").json["jobs"]) == 1


@pytest.mark.parametrize(
    "path", ["/competitors/nope", "/intel/nope", "/jobs/nope", "/jobs/nope/progress.json"]
)
def test_unknown_ids_are_the_404_page(web, path):
    assert web.get(path).status_code == 404


def test_hostile_names_and_crawled_text_are_escaped(web):
    cid = add_competitor(web, HOSTILE, "https://evil.example")
    with connection():
        item = intel.record_evidence(
            web.workspace_id,
            source_type="NEWS",
            url="https://evil.example/news",
            title=f"Title {HOSTILE}",
            content=f"Body {HOSTILE} <img src=x onerror=alert(2)>",
            competitor_id=cid,
        ).item
        with transaction():
            row = Competitor.get_by_id(cid)
            row.reference_links = [{"label": "click me", "url": "javascript:alert(3)"}]
            row.company_profile = {
                "headquarters": HOSTILE,
                "quotes": {
                    "headquarters": [
                        {"evidenceId": item.id, "quote": HOSTILE, "url": "javascript:alert(4)"}
                    ]
                },
            }
            row.save()
            intel.IntelItem.update(url="javascript:alert(5)").where(
                intel.IntelItem.id == item.id
            ).execute()
    for path in ("/", f"/competitors/{cid}", f"/intel/{item.id}", "/search?q=script", "/jobs"):
        page = web.get(path)
        assert page.status_code == 200, path
        body = text(page)
        assert HOSTILE not in body and "<img src=x" not in body, path
        assert 'href="javascript:' not in body, path
        assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    competitor_page = text(web.get(f"/competitors/{cid}"))
    assert html.escape(HOSTILE) in competitor_page
    assert "click me" in competitor_page  # shown as text, not as a link
    intel_page = text(web.get(f"/intel/{item.id}"))
    assert "javascript:alert(5)" in intel_page and 'href="javascript' not in intel_page


@pytest.mark.parametrize(
    "path",
    [
        "/competitors",
        "/competitors/{cid}/refresh",
        "/competitors/{cid}/battlecards",
        "/jobs/{job}/cancel",
    ],
)
def test_posts_without_csrf_are_400(web, path):
    cid = add_competitor(web)
    (job,) = web.api.get("/api/jobs").json["jobs"]
    target = path.format(cid=cid, job=job["id"])
    answer = web.client.post(target, data={"name": "X", "websiteUrl": "https://x.example"})
    assert answer.status_code == 400
    assert "The form expired" in text(answer)
    wrong = web.client.post(target, data={"csrf_token": "forged"})
    assert wrong.status_code == 400
    assert len(web.api.get("/api/competitors").json["competitors"]) == 1
    assert len(web.api.get("/api/jobs").json["jobs"]) == 1


@pytest.mark.parametrize(
    ("path", "section"),
    [
        ("/", "<h2>Latest changes</h2>"),
        ("/competitors/{cid}", 'id="latest-news"'),
        ("/competitors/{cid}?tab=news", 'id="news"'),
    ],
)
def test_news_shows_newest_first_by_the_date_the_page_states(web, path, section):
    """A collect stores a site's news newest first, so the newest stored item is the oldest
    post: the home page and the competitor page order news by the stated date."""
    from datetime import UTC, datetime

    cid = add_competitor(web)
    with connection():
        for day, title in ((20, "Newest post"), (10, "Middle post"), (1, "Oldest post")):
            intel.record_evidence(
                web.workspace_id,
                source_type="NEWS",
                url=f"https://globex.example/journal/{day}",
                title=title,
                content=f"{title} text",
                competitor_id=cid,
                published_at=datetime(2019, 5, day, tzinfo=UTC),
                page_kind="post",
            )
    body = text(web.get(path.format(cid=cid))).split(section, 1)[1]
    positions = [body.index(t) for t in ("Newest post", "Middle post", "Oldest post")]
    assert positions == sorted(positions)
    assert "2019-05-20" in body


def test_intel_page_shows_the_page_kind(web):
    cid = add_competitor(web)
    with connection():
        result = intel.record_evidence(
            web.workspace_id,
            source_type="WEB_PAGE",
            url="https://globex.example/what-it-costs",
            title="What it costs",
            content="Pro $49 per user per month",
            competitor_id=cid,
            page_kind="pricing",
        )
    body = text(web.get(f"/intel/{result.item.id}"))
    assert "Page kind" in body and '<span class="badge">pricing</span>' in body
