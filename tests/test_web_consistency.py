"""REST, the tools and the pages give the same data for the same record: one competitor with
a cited profile, a product, a battlecard and a job, read three ways."""

from __future__ import annotations

import html

from tests.analysis_support import seed_rival
from tests.resource_helpers import ok, tool

pytest_plugins = ["tests.jobs_fixtures"]


def page_text(web, path: str) -> str:
    answer = web.get(path)
    assert answer.status_code == 200, (path, answer.status_code)
    return html.unescape(answer.get_data(as_text=True))


def test_a_competitor_reads_the_same_through_rest_tools_and_pages(web, runner):
    api = web.api
    _product, rival, _pages = seed_rival(api)
    ok(api.patch(f"/api/competitors/{rival['id']}", json={"name": "Rival & <Co>"}))
    rest = ok(api.get(f"/api/competitors/{rival['id']}"))["competitor"]
    through_tool = tool(api, "get_competitor", {"competitorId": rival["id"]})
    through_tool = through_tool.get("competitor", through_tool)
    for key in ("id", "name", "websiteUrl", "status", "tier", "companyProfile"):
        assert through_tool[key] == rest[key], key
    page = page_text(web, f"/competitors/{rival['id']}")
    assert rest["name"] in page and rest["status"] in page and rest["websiteUrl"] in page
    profile = rest["companyProfile"]
    assert str(profile["yearFounded"]) in page and profile["employeeCount"] in page
    for strength in rest["companyStrengths"]:
        assert strength in page
    home = page_text(web, "/")
    assert rest["name"] in home and rest["tier"] in home


def test_a_battlecard_reads_the_same_through_rest_tools_and_pages(web, runner):
    api = web.api
    product, rival, _pages = seed_rival(api)
    started = ok(
        api.post(
            f"/api/battlecards/{rival['id']}/generate",
            json={"productId": product["id"], "mode": "ATTACK"},
        )
    )
    runner.run_until_idle()
    card_id = started["battlecard"]["id"]
    rest = ok(api.get(f"/api/battlecards/{card_id}"))["battlecard"]
    through_tool = tool(
        api, "get_battlecard", {"competitorId": rival["id"], "offeringId": product["id"]}
    )
    through_tool = through_tool.get("battlecard", through_tool)
    assert through_tool["id"] == rest["id"] and through_tool["content"] == rest["content"]
    page = page_text(web, f"/battlecards/{card_id}")
    content = rest["content"]
    assert content["killShot"] in page
    for section in ("whyWeWin", "whyWeLose", "talkingPoints"):
        for item in content[section]:
            assert item["title"] in page and item["description"] in page
            for quote in item["quotes"]:
                assert quote["quote"] in page
    for item in content["objections"]:
        assert item["objection"] in page and item["response"] in page
    exported = api.get(f"/api/battlecards/{card_id}/export?format=markdown")
    assert exported.status_code == 200 and content["killShot"] in exported.get_data(as_text=True)


def test_a_job_reads_the_same_through_rest_and_the_page(web, runner):
    api = web.api
    created = ok(
        api.post("/api/competitors", json={"name": "Jobco", "websiteUrl": "https://jobco.example"})
    )
    job_id = created["jobId"]
    rest = ok(api.get(f"/api/jobs/{job_id}"))["job"]
    live = web.get(f"/jobs/{job_id}/progress.json")
    assert live.status_code == 200 and live.json["job"] == rest
    page = page_text(web, f"/jobs/{job_id}")
    assert rest["type"] in page and rest["status"] in page
