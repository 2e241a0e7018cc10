"""Web pages for solutions: list, create, edit, delete and generate, through the same
service and gates as ``/api/solutions``; the matrix pages' empty states with the way on.

The form maps categories of our products (a checkbox and a weight each); what it saves is
read back through REST. Errors (no category, a weight out of range) re-render the form
with the message and what was typed; a VIEWER reads but cannot change; another
workspace's solution id is the 404 page on every solution page and POST.
"""

from __future__ import annotations

import lxml.html
import pytest

from ci_service.services.analysis import matrix
from ci_service.store.db import connection
from tests.analysis_support import seed_rival
from tests.resource_helpers import make_competitor, make_product, make_solution, ok


def html(response, status=200):
    text = response.get_data(as_text=True)
    assert response.status_code == status, text[:2000]
    return text


def doc_of(response, status=200):
    return lxml.html.fromstring(html(response, status))


def mapping(product_id, category_id):
    return f"{product_id}|{category_id}"


@pytest.fixture
def team(make_web, make_workspace):
    """(OWNER, VIEWER) of one PRO workspace, with our product "Acme Cloud" scored against
    the competitor "Rival" (see tests/analysis_support.py)."""
    workspace = make_workspace(plan="PRO")
    owner = make_web(workspace=workspace)
    viewer = make_web(role="VIEWER", workspace=workspace)
    product, rival, _ = seed_rival(owner.api)
    with connection():
        matrix.build_matrix(owner.api.workspace_id, rival["id"])
    return owner, viewer, product, rival


def test_the_form_offers_the_categories_the_matrix_scores_for_our_product(team):
    owner, _, product, _ = team
    doc = doc_of(owner.get("/solutions/new"))
    values = {i.get("value") for i in doc.xpath("//input[@name='mapping']")}
    # the product has no categories of its own: those its matrix cells were scored on
    assert mapping(product["id"], "security-compliance") in values
    assert mapping(product["id"], "analytics-reporting") in values
    legend = doc.xpath("//fieldset[contains(@class, 'mapping')]/legend")[0].text_content()
    assert legend == "Acme Cloud"
    # every control has a label
    for control in doc.xpath("//form[contains(@class, 'solution-form')]//input[@id]"):
        assert doc.xpath(f"//label[@for='{control.get('id')}']"), control.get("id")


def test_create_a_solution_through_the_form_then_see_it_scored(team):
    owner, _, product, rival = team
    answer = owner.post_form(
        "/solutions",
        {
            "name": "Trust & safety",
            "description": "What a security buyer asks",
            "mapping": [
                mapping(product["id"], "security-compliance"),
                mapping(product["id"], "analytics-reporting"),
            ],
            f"weight|{mapping(product['id'], 'security-compliance')}": "1",
            f"weight|{mapping(product['id'], 'analytics-reporting')}": "0.5",
        },
        csrf_from="/solutions/new",
    )
    assert answer.status_code == 302, answer.get_data(as_text=True)[:2000]
    [saved] = ok(owner.api.get("/api/solutions"))["solutions"]
    assert saved["name"] == "Trust & safety"
    assert saved["description"] == "What a security buyer asks"
    assert saved["productIds"] == [product["id"]]
    assert saved["isAiGenerated"] is False
    assert {(m["categoryId"], m["weight"]) for m in saved["categoryMappings"]} == {
        ("security-compliance", 1.0),
        ("analytics-reporting", 0.5),
    }
    # the list names the mapped categories
    listed = doc_of(owner.get(answer.headers["Location"]))
    card = listed.xpath(f"//li[@data-solution='{saved['id']}']")[0].text_content()
    assert "Security & Compliance" in card and "weight 0.5" in card
    assert "Solution created." in listed.text_content()
    # and the solution matrix scores it: SUPERIOR at 1.0, INFERIOR at 0.5 -> 3
    score = ok(owner.api.get("/api/matrix/solutions"))["cellMap"][saved["id"]][rival["id"]]
    page = doc_of(owner.get("/matrix/solutions"))
    cell = page.xpath(f"//tr[@data-solution='{saved['id']}']/td[@data-competitor='{rival['id']}']")
    summary = cell[0].xpath(".//summary")[0].text_content().strip()
    assert summary == f"{score['aggregatedScore']} / 4" == "3 / 4"


def test_no_category_ticked_re_renders_the_form_with_what_was_typed(team):
    owner, _, product, _ = team
    answer = owner.post_form(
        "/solutions",
        {"name": "Half typed", "description": "Kept as typed"},
        csrf_from="/solutions/new",
    )
    doc = doc_of(answer, 400)
    alert = doc.xpath("//*[@role='alert']")[0].text_content()
    assert "at least one category mapping is required" in alert
    assert doc.xpath("//input[@id='name']")[0].get("value") == "Half typed"
    assert doc.xpath("//textarea[@id='description']")[0].text_content() == "Kept as typed"
    assert ok(owner.api.get("/api/solutions"))["solutions"] == []
    # the REST rule is the same: VALIDATION_ERROR
    body = {"name": "x", "productIds": [product["id"]], "categoryMappings": []}
    rest = owner.api.post("/api/solutions", json=body)
    assert rest.status_code == 400 and rest.get_json()["error"]["code"] == "VALIDATION_ERROR"


def test_a_weight_out_of_range_keeps_the_ticks_and_weights_typed(team):
    owner, _, product, _ = team
    key = mapping(product["id"], "integrations")
    answer = owner.post_form(
        "/solutions",
        {"name": "Connect", "mapping": [key], f"weight|{key}": "7"},
        csrf_from="/solutions/new",
    )
    doc = doc_of(answer, 400)
    assert "weight" in doc.xpath("//*[@role='alert']")[0].text_content()
    box = doc.xpath(f"//input[@name='mapping'][@value='{key}']")[0]
    assert box.get("checked") is not None
    assert doc.xpath(f"//input[@name='weight|{key}']")[0].get("value") == "7"
    answer = owner.post_form(
        "/solutions",
        {"name": "Connect", "mapping": [key], f"weight|{key}": "lots"},
        csrf_from="/solutions/new",
    )
    assert "weight" in doc_of(answer, 400).xpath("//*[@role='alert']")[0].text_content()
    assert ok(owner.api.get("/api/solutions"))["solutions"] == []


def test_edit_shows_the_saved_mappings_and_saves_changes(team):
    owner, _, product, _ = team
    mappings = [
        {"categoryId": "security-compliance", "productId": product["id"], "weight": 0.25},
        {"categoryId": "made-by-a-script", "productId": product["id"], "weight": 1.0},
    ]
    solution = make_solution(owner.api, product["id"], name="Old", categoryMappings=mappings)
    path = f"/solutions/{solution['id']}/edit"
    doc = doc_of(owner.get(path))
    assert doc.xpath("//input[@id='name']")[0].get("value") == "Old"
    ticked = {i.get("value") for i in doc.xpath("//input[@name='mapping'][@checked]")}
    # a mapping the form does not offer any more stays on it (saving keeps it)
    assert ticked == {
        mapping(product["id"], "security-compliance"),
        mapping(product["id"], "made-by-a-script"),
    }
    key = mapping(product["id"], "security-compliance")
    assert doc.xpath(f"//input[@name='weight|{key}']")[0].get("value") == "0.25"
    answer = owner.post_form(
        f"/solutions/{solution['id']}",
        {"name": "Renamed", "mapping": [key], f"weight|{key}": "0.75"},
        csrf_from=path,
    )
    assert answer.status_code == 302
    saved = ok(owner.api.get(f"/api/solutions/{solution['id']}"))["solution"]
    assert saved["name"] == "Renamed"
    assert saved["categoryMappings"] == [
        {"categoryId": "security-compliance", "productId": product["id"], "weight": 0.75}
    ]
    # unticking everything is refused, and nothing changes
    answer = owner.post_form(f"/solutions/{solution['id']}", {"name": "Empty"}, csrf_from=path)
    assert "at least one category mapping" in html(answer, 400)
    assert ok(owner.api.get(f"/api/solutions/{solution['id']}"))["solution"]["name"] == "Renamed"


def test_delete_removes_the_solution(team):
    owner, _, product, _ = team
    solution = make_solution(owner.api, product["id"], name="Short lived")
    answer = owner.post_form(f"/solutions/{solution['id']}/delete", csrf_from="/solutions")
    assert answer.status_code == 302
    assert owner.api.get(f"/api/solutions/{solution['id']}").status_code == 404
    assert "Solution deleted." in html(owner.get(answer.headers["Location"]))


def test_generate_makes_themes_from_our_categories_and_says_so(make_web):
    web = make_web(plan="PRO")
    categories = [{"id": "cat-sec", "name": "Security"}, {"id": "cat-rep", "name": "Reports"}]
    make_product(web.api, name="Acme Cloud", categories=categories)
    answer = web.post_form("/solutions/generate", csrf_from="/solutions")
    assert answer.status_code == 302
    text = html(web.get(answer.headers["Location"]))
    assert "Generated 2 new and updated 0 solution themes." in text
    made = ok(web.api.get("/api/solutions"))["solutions"]
    assert sorted(s["name"] for s in made) == ["Reports", "Security"]
    assert all(s["isAiGenerated"] for s in made)
    # again: nothing new, and the page says they are up to date
    answer = web.post_form("/solutions/generate", csrf_from="/solutions")
    assert "already up to date" in html(web.get(answer.headers["Location"]))
    assert len(ok(web.api.get("/api/solutions"))["solutions"]) == 2


def test_generate_without_products_says_what_to_do_first(make_web):
    web = make_web(plan="PRO")
    answer = web.post_form("/solutions/generate", csrf_from="/solutions")
    assert "No products yet" in html(web.get(answer.headers["Location"]))
    # the address cannot make the page say something else
    assert "Hacked" not in html(web.get("/solutions?generated=Hacked"))


def test_a_viewer_reads_but_cannot_change(team):
    owner, viewer, product, _ = team
    # no solution yet: the viewer is told who can make them, and offered no button
    empty = doc_of(viewer.get("/matrix/solutions"))
    assert "An editor can create or generate them" in empty.text_content()
    assert not empty.xpath("//a[@href='/solutions/new'] | //form[@action='/solutions/generate']")
    solution = make_solution(owner.api, product["id"], name="Visible")
    doc = doc_of(viewer.get("/solutions"))
    assert "Visible" in doc.text_content()
    assert not doc.xpath("//a[contains(@href, '/edit')]")
    assert not doc.xpath("//form[@method='post'][contains(@action, '/solutions')]")
    assert viewer.get("/solutions/new").status_code == 403
    assert viewer.get(f"/solutions/{solution['id']}/edit").status_code == 403
    key = mapping(product["id"], "usability")
    posts = {
        "/solutions": {"name": "Nope", "mapping": [key]},
        f"/solutions/{solution['id']}": {"name": "Nope", "mapping": [key]},
        f"/solutions/{solution['id']}/delete": {},
        "/solutions/generate": {},
    }
    for path, form in posts.items():
        assert viewer.post_form(path, form, csrf_from="/solutions").status_code == 403, path
    assert [s["name"] for s in ok(owner.api.get("/api/solutions"))["solutions"]] == ["Visible"]
    assert not doc_of(viewer.get("/matrix/solutions")).xpath("//a[contains(@href, '/edit')]")
    assert doc_of(owner.get("/matrix/solutions")).xpath("//a[contains(@href, '/edit')]")


def test_another_workspaces_solution_is_404_on_every_page_and_post(team, make_web):
    owner, _, product, _ = team
    stranger = make_web(plan="PRO")
    their_product = make_product(stranger.api, name="Theirs")
    theirs = make_solution(stranger.api, their_product["id"], name="Secret plan")
    sid = theirs["id"]
    text = html(owner.get(f"/solutions/{sid}/edit"), 404)
    assert "Secret plan" not in text
    key = mapping(product["id"], "usability")
    for path, form in {
        f"/solutions/{sid}": {"name": "Taken", "mapping": [key]},
        f"/solutions/{sid}/delete": {},
    }.items():
        answer = owner.post_form(path, form, csrf_from="/solutions")
        assert answer.status_code == 404, path
    assert ok(stranger.api.get(f"/api/solutions/{sid}"))["solution"]["name"] == "Secret plan"
    assert "Secret plan" not in html(owner.get("/solutions"))
    # mapping their product through our form is refused by the service
    their_key = mapping(their_product["id"], "usability")
    answer = owner.post_form(
        "/solutions", {"name": "Sneaky", "mapping": [their_key]}, csrf_from="/solutions/new"
    )
    assert "unknown product ids" in html(answer, 400)


@pytest.mark.parametrize("path", ["/solutions", "/solutions/new"])
def test_solution_pages_need_the_pro_plan(make_web, path):
    web = make_web(plan="STARTER")
    assert "Upgrade needed" in html(web.get(path), 403)


# -- the matrix pages' empty states ------------------------------------------------------


def test_no_solution_yet_offers_create_and_generate(team):
    owner, _, _, _ = team
    doc = doc_of(owner.get("/matrix/solutions"))
    empty = doc.xpath("//section[contains(@class, 'empty-state')]")[0]
    assert "No solution yet" in empty.text_content()
    assert empty.xpath(".//a[@href='/solutions/new'][normalize-space()='Create a solution']")
    form = empty.xpath(".//form[@action='/solutions/generate']")[0]
    assert form.xpath(".//button")[0].text_content().strip() == "Generate solutions"
    assert form.xpath(".//input[@name='csrf_token']")


def test_a_product_no_competitor_names_says_why_and_links_each_competitor(make_web):
    web = make_web(plan="PRO")
    ours = make_product(web.api, name="Acme Cloud")
    other = make_product(web.api, name="Acme Desk")
    alpha = make_competitor(web.api, name="Alpha", url="https://alpha.example")["competitor"]
    make_competitor(
        web.api, name="Beta", url="https://beta.example", relevantProductIds=[other["id"]]
    )
    doc = doc_of(web.get(f"/matrix?productId={ours['id']}&categoryIds=usability"))
    empty = doc.xpath("//section[contains(@class, 'empty-state')]")[0]
    text = " ".join(empty.text_content().split())
    assert "No competitor is marked relevant to Acme Cloud" in text
    items = [" ".join(li.text_content().split()) for li in empty.xpath(".//li")]
    assert [i.split(" not marked")[0] for i in items] == ["Alpha", "Beta"]
    assert all("not marked relevant" in i for i in items)
    show_all = empty.xpath(".//a[normalize-space()='Show all competitors']")[0].get("href")
    assert "productId" not in show_all and "categoryIds=usability" in show_all
    shown = doc_of(web.get(show_all))
    assert shown.xpath("//table//thead//th[normalize-space()='Alpha']")
    edit = empty.xpath(".//a[starts-with(normalize-space(), 'Edit Alpha')]")
    from flask import current_app

    with web.client.application.app_context():
        installed = "pages.edit_competitor" in current_app.view_functions
    if installed:
        assert edit and alpha["id"] in edit[0].get("href")
    else:
        assert not edit


def test_an_empty_workspace_matrix_offers_to_add_a_competitor(make_web):
    web = make_web(plan="PRO")
    empty = doc_of(web.get("/matrix")).xpath("//section[contains(@class, 'empty-state')]")[0]
    assert "No competitor yet" in empty.text_content()
    assert empty.xpath(".//a[contains(@href, '#add-title')]")
