"""Competitor workflows in the web app (issue 28): edit (relevant products included), delete
with what deleting removes, the duplicate-website warning of the add form, and the
first-run checklist of the home page."""

from __future__ import annotations

import html
import re

import pytest

from ci_service.services.workspace import competitors
from ci_service.store.analysis import MatrixCell
from ci_service.store.db import connection
from tests.test_web_overview import add_competitor, add_product, seed_competitor, text


def competitor_of(web, cid) -> dict:
    return web.api.get(f"/api/competitors/{cid}").json["competitor"]


def listed(web) -> list[dict]:
    return web.api.get("/api/competitors").json["competitors"]


# -- edit -----------------------------------------------------------------------------------


def test_edit_form_shows_the_competitor_and_saves_through_the_patch_service(web):
    cid = add_competitor(web, "Globex", "https://globex.example")
    desk, crm = add_product(web, "OurDesk"), add_product(web, "OurCRM")
    page = web.get(f"/competitors/{cid}/edit")
    body = text(page)
    assert page.status_code == 200
    assert 'value="Globex"' in body and 'value="https://globex.example"' in body
    assert '<option value="TIER_3" selected>' in body
    assert f'value="{desk}"' in body and "OurCRM" in body and " checked" not in body
    answer = web.post_form(
        f"/competitors/{cid}/edit",
        {
            "name": "Globex Corp",
            "websiteUrl": "https://globex.example/",
            "tier": "TIER_1",
            "relevantProductIds": [desk, crm],
        },
    )
    assert answer.status_code == 303
    assert answer.headers["Location"].endswith(f"/competitors/{cid}")
    saved = competitor_of(web, cid)
    assert saved["name"] == "Globex Corp" and saved["websiteUrl"] == "https://globex.example/"
    assert saved["tier"] == "TIER_1" and saved["refreshRate"] == 7
    assert saved["relevantProductIds"] == [desk, crm]
    # The matrix's product filter now finds it (REST's productId rule).
    assert [
        c["id"] for c in web.api.get(f"/api/competitors?productId={crm}").json["competitors"]
    ] == [cid]
    reopened = text(web.get(f"/competitors/{cid}/edit"))
    assert len(re.findall(r'name="relevantProductIds" value="[^"]+" checked', reopened)) == 2
    # Unticking every box clears the list (the checkboxes are the whole choice).
    web.post_form(
        f"/competitors/{cid}/edit",
        {"name": "Globex Corp", "websiteUrl": "https://globex.example", "tier": "TIER_1"},
    )
    assert competitor_of(web, cid)["relevantProductIds"] == []


def test_edit_validation_errors_keep_what_was_typed(web):
    cid = add_competitor(web, "Globex", "https://globex.example")
    product = add_product(web)
    answer = web.post_form(
        f"/competitors/{cid}/edit",
        {
            "name": "",
            "websiteUrl": "ftp://typed.example",
            "tier": "TIER_2",
            "relevantProductIds": [product],
        },
    )
    assert answer.status_code == 400
    body = text(answer)
    assert 'class="error"' in body
    assert 'id="edit-name-error"' in body and 'id="edit-url-error"' in body
    assert 'value="ftp://typed.example"' in body
    assert '<option value="TIER_2" selected>' in body
    assert f'value="{product}" checked' in body
    unchanged = competitor_of(web, cid)
    assert unchanged["name"] == "Globex" and unchanged["tier"] == "TIER_3"
    assert unchanged["relevantProductIds"] == []
    unknown = web.post_form(
        f"/competitors/{cid}/edit",
        {"name": "Globex", "websiteUrl": "https://globex.example", "relevantProductIds": ["nope"]},
    )
    assert unknown.status_code == 400 and "unknown product ids: nope" in text(unknown)


def test_viewer_has_no_edit_or_delete(web, make_web):
    from ci_service.store.identity import Workspace

    cid = add_competitor(web)
    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    viewer = make_web(role="VIEWER", workspace=workspace)
    assert viewer.get(f"/competitors/{cid}/edit").status_code == 403
    assert viewer.get(f"/competitors/{cid}/delete").status_code == 403
    home = text(viewer.get("/"))
    assert "Add competitor" not in home and "/competitors/new" not in home
    for path, data in (
        (f"/competitors/{cid}/edit", {"name": "Hacked", "websiteUrl": "https://h.example"}),
        (f"/competitors/{cid}/delete", {}),
        ("/competitors/new", {"name": "X", "websiteUrl": "https://x.example"}),
    ):
        assert viewer.post_form(path, data, csrf_from="/").status_code == 403, path
    assert [c["name"] for c in listed(web)] == ["Globex"]


@pytest.mark.parametrize("action", ["edit", "delete"])
def test_another_workspaces_competitor_is_the_404_page(web, make_web, action):
    cid = add_competitor(web)
    other = make_web()
    path = f"/competitors/{cid}/{action}"
    answer = other.get(path)
    assert answer.status_code == 404 and "not in your workspace" in text(answer)
    assert "Globex" not in text(answer)
    posted = other.post_form(
        path, {"name": "Mine now", "websiteUrl": "https://m.example"}, csrf_from="/"
    )
    assert posted.status_code == 404
    assert other.get("/competitors/nope/edit").status_code == 404
    assert competitor_of(web, cid)["name"] == "Globex"


# -- delete ---------------------------------------------------------------------------------


def test_delete_page_counts_what_goes_and_what_stays_then_deletes(web):
    seeded = seed_competitor(web)
    cid = seeded["id"]
    product = add_product(web)
    generated = web.api.post(
        f"/api/battlecards/{cid}/generate", json={"productId": product, "mode": "ATTACK"}
    )
    assert generated.status_code == 200, generated.json
    with connection():
        for n in range(2):
            MatrixCell.create(
                workspace=web.workspace_id,
                competitor=cid,
                product=product,
                category_id=f"cat{n}",
                category_name=f"Category {n}",
            )
        summary = competitors.deletion_summary(web.workspace_id, cid)
    assert summary == {
        "intelItems": 3,
        "offerings": 1,
        "battlecards": 1,
        "matrixCells": 2,
        "solutionCells": 0,
        "people": 1,
        "dealsDetached": 1,
        "jobsKept": 2,
    }
    page = web.get(f"/competitors/{cid}/delete")
    body = text(page)
    assert page.status_code == 200
    for line in (
        "3</strong> intel items",
        "1</strong> product or offering",
        "1</strong> battlecard",
        "2</strong> feature matrix cells",
        "1</strong> person",
        "1</strong> deal: kept",
        "2</strong> jobs in the job history",
    ):
        assert line in body, line
    answer = web.post_form(f"/competitors/{cid}/delete")
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/?deleted=1")
    assert web.api.get(f"/api/competitors/{cid}").status_code == 404
    assert web.api.get(f"/api/battlecards?competitorId={cid}").json["battlecards"] == []
    deal = web.api.get(f"/api/deals/{seeded['deal']}").json["deal"]
    assert deal["competitorId"] is None  # kept, detached
    home = text(web.get(answer.headers["Location"]))
    assert "The competitor was deleted" in home
    table = re.search(r'data-live-region="competitors".*?</table>', home, re.S).group(0)
    assert "Globex" not in table and "No competitors yet." in table
    assert web.get(f"/competitors/{cid}/delete").status_code == 404


def test_delete_without_csrf_is_400_and_deletes_nothing(web):
    cid = add_competitor(web)
    answer = web.client.post(f"/competitors/{cid}/delete", data={})
    assert answer.status_code == 400 and "The form expired" in text(answer)
    forged = web.client.post(f"/competitors/{cid}/delete", data={"csrf_token": "forged"})
    assert forged.status_code == 400
    assert [c["id"] for c in listed(web)] == [cid]


# -- add: duplicate website warning -----------------------------------------------------------


@pytest.mark.parametrize(
    "variant",
    [
        "https://globex.example",
        "http://globex.example/",
        "https://www.globex.example",
        "HTTPS://WWW.Globex.Example/",
        "globex.example",
    ],
)
def test_adding_a_tracked_website_warns_with_a_link_and_creates_nothing(web, variant):
    cid = add_competitor(web, "Globex", "https://globex.example/")
    answer = web.post_form(
        "/competitors/new", {"name": "Globex again", "websiteUrl": variant}, csrf_from="/"
    )
    assert answer.status_code == 409
    body = text(answer)
    assert "This website is already tracked" in body
    assert f'<a href="/competitors/{cid}">Globex</a>' in body
    assert 'name="addAnyway"' in body and html.escape("Globex again") in body
    assert len(listed(web)) == 1
    assert len(web.api.get("/api/jobs").json["jobs"]) == 1


def test_other_paths_and_hosts_are_not_duplicates(web):
    add_competitor(web, "Globex", "https://globex.example/")
    with connection():
        assert competitors.tracked_website(web.workspace_id, "https://globex.example/eu") is None
        assert competitors.tracked_website(web.workspace_id, "https://shop.globex.example") is None
        assert competitors.tracked_website(web.workspace_id, "https://globex.example:8443/") is None
    answer = web.post_form(
        "/competitors/new",
        {"name": "Globex EU", "websiteUrl": "https://globex.example/eu"},
        csrf_from="/",
    )
    assert answer.status_code == 303
    assert len(listed(web)) == 2


def test_add_anyway_creates_the_second_competitor(web):
    add_competitor(web, "Globex", "https://globex.example")
    product = add_product(web)
    answer = web.post_form(
        "/competitors/new",
        {
            "name": "Globex 2",
            "websiteUrl": "https://www.globex.example/",
            "tier": "TIER_2",
            "relevantProductIds": [product],
            "addAnyway": "1",
        },
        csrf_from="/",
    )
    assert answer.status_code == 303
    cid = answer.headers["Location"].rsplit("/", 1)[1]
    made = competitor_of(web, cid)
    assert made["name"] == "Globex 2" and made["tier"] == "TIER_2"
    assert made["relevantProductIds"] == [product]
    (job,) = web.api.get(f"/api/jobs?competitorId={cid}").json["jobs"]
    assert job["type"] == "collect"


def test_add_form_errors_keep_what_was_typed(web):
    product = add_product(web)
    answer = web.post_form(
        "/competitors/new",
        {"name": "Acme", "websiteUrl": "ftp://x", "relevantProductIds": [product]},
        csrf_from="/",
    )
    assert answer.status_code == 400
    body = text(answer)
    assert 'id="add-url-error"' in body and 'value="Acme"' in body
    assert f'value="{product}" checked' in body
    assert listed(web) == []


def test_add_form_without_csrf_is_400(web):
    answer = web.client.post(
        "/competitors/new", data={"name": "X", "websiteUrl": "https://x.example"}
    )
    assert answer.status_code == 400
    assert listed(web) == []


# -- home: first-run checklist and live regions ---------------------------------------------------


def checklist_states(body: str) -> list[str]:
    section = re.search(r'<section class="card checklist".*?</section>', body, re.S)
    if section is None:
        return []
    return re.findall(r'<li class="(done|todo)">', section.group(0))


def test_first_run_checklist_follows_the_workspace_until_all_is_done(web):
    home = text(web.get("/"))
    assert checklist_states(home) == ["todo", "todo", "todo"]
    assert 'href="/settings/products"' in home and 'href="#add-title"' in home
    product = add_product(web)
    assert checklist_states(text(web.get("/"))) == ["done", "todo", "todo"]
    cid = add_competitor(web)
    home = text(web.get("/"))
    assert checklist_states(home) == ["done", "done", "todo"]
    assert f'a <a href="/competitors/{cid}">competitor page</a>' in home
    generated = web.api.post(
        f"/api/battlecards/{cid}/generate", json={"productId": product, "mode": "ATTACK"}
    )
    assert generated.status_code == 200, generated.json
    home = text(web.get("/"))
    assert checklist_states(home) == [] and "Get started" not in home


def test_home_marks_live_regions_and_pending_badges(web):
    add_competitor(web)  # PENDING until its collect runs
    body = text(web.get("/"))
    assert 'data-live-region="competitors"' in body and 'data-live-region="changes"' in body
    assert '<span class="badge PENDING" data-live-pending>PENDING</span>' in body
    assert "/static/live.js" in body and "/static/home.css" in body
    assert 'action="/competitors/new"' in body
