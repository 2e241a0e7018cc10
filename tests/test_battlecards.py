"""Battlecards: generation (a job), content in both modes, evidence, regeneration."""

from __future__ import annotations

import pytest

from ci_service.services import battlecards, offerings
from ci_service.store.analysis import Battlecard
from ci_service.store.db import connection
from tests.analysis_support import seed_rival
from tests.resource_helpers import error, make_competitor, make_product, ok

pytest_plugins = ["tests.jobs_fixtures"]


def generate(api, competitor_id, product_id, mode="ATTACK"):
    body = {"productId": product_id, "mode": mode}
    return ok(api.post(f"/api/battlecards/{competitor_id}/generate", json=body))


def generated(api, runner, competitor_id, product_id, mode="ATTACK"):
    started = generate(api, competitor_id, product_id, mode)
    runner.run_until_idle()
    job = ok(api.get(f"/api/jobs/{started['jobId']}"))["job"]
    assert job["status"] == "completed", job
    return ok(api.get(f"/api/battlecards/{started['battlecard']['id']}?includeEvidence=true"))


@pytest.fixture
def rival(make_api):
    api = make_api(plan="PRO")
    product, competitor, pages = seed_rival(api)
    return api, product, competitor, pages


def test_generate_returns_the_initial_card_and_a_job(rival, runner):
    api, product, competitor, _ = rival
    started = generate(api, competitor["id"], product["id"])
    card = started["battlecard"]
    assert card["competitorId"] == competitor["id"] and card["myProductId"] == product["id"]
    assert card["mode"] == "ATTACK" and card["status"] == "GENERATING"
    assert card["content"]["whyWeWin"] == [] and card["content"]["objections"] == []
    assert card["evidenceIds"] == [] and card["createdAt"].endswith("Z")
    job = ok(api.get(f"/api/jobs/{started['jobId']}"))["job"]
    assert job["type"] == "generate-battlecard" and job["competitorId"] == competitor["id"]
    assert job["metadata"]["battlecardId"] == card["id"]
    assert [s["name"] for s in job["steps"]] == ["Generating Battle Card"]


@pytest.mark.parametrize(
    ("competitor", "body", "status", "field"),
    [
        ("missing", {"productId": "P", "mode": "ATTACK"}, 404, None),
        ("C", {"productId": "missing", "mode": "ATTACK"}, 404, None),
        ("C", {"productId": "OFFERING", "mode": "ATTACK"}, 404, None),
        ("C", {"productId": "P", "mode": "attack"}, 400, "mode"),
        ("C", {"productId": "P"}, 400, "mode"),
        ("C", {"mode": "DEFENSE"}, 400, "productId"),
        ("C", {"productId": 7, "mode": "DEFENSE"}, 400, "productId"),
    ],
)
def test_generate_errors(make_api, competitor, body, status, field):
    api = make_api()
    product = make_product(api)
    rival = make_competitor(api)["competitor"]
    with connection():  # a competitor's offering is not one of our products
        theirs = offerings.create_offering(
            api.workspace_id,
            {"name": "Theirs", "description": "d", "audience": "a"},
            competitor_id=rival["id"],
        )
    ids = {"C": rival["id"], "P": product["id"], "OFFERING": theirs.id}
    payload = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    response = api.post(
        f"/api/battlecards/{ids.get(competitor, competitor)}/generate", json=payload
    )
    if status == 404:
        error(response, 404, "NOT_FOUND")
    else:
        fields = error(response, 400, "VALIDATION_ERROR")["details"]["fields"]
        assert field in fields


def test_generate_needs_write_and_editor(make_api):
    owner = make_api()
    product = make_product(owner)
    rival = make_competitor(owner)["competitor"]
    from ci_service.store.identity import Workspace

    with connection():
        workspace = Workspace.get_by_id(owner.workspace_id)
    viewer = make_api(role="VIEWER", workspace=workspace)
    body = {"productId": product["id"], "mode": "ATTACK"}
    error(viewer.post(f"/api/battlecards/{rival['id']}/generate", json=body), 403, "FORBIDDEN")
    reader = make_api(workspace=workspace, scopes=["read"])
    response = reader.post(f"/api/battlecards/{rival['id']}/generate", json=body)
    error(response, 403, "INSUFFICIENT_SCOPE")
    ok(viewer.get("/api/battlecards"))


def test_attack_card_content_traces_to_evidence(rival, runner):
    api, product, competitor, pages = rival
    body = generated(api, runner, competitor["id"], product["id"], "ATTACK")
    card, evidence = body["battlecard"], body["evidence"]
    content = card["content"]
    assert card["status"] == "READY" and card["mode"] == "ATTACK"
    win = content["whyWeWin"][0]
    assert win["title"] == "Security & Compliance: Acme Cloud is stronger"
    assert win["evidenceIds"] == [pages["security"]]
    assert content["whyWeLose"][0]["title"] == "Analytics & Reporting: Rival is stronger"
    assert content["whyWeLose"][0]["evidenceIds"] == [pages["analytics"]]
    objections = [o["objection"] for o in content["objections"]]
    assert objections[0].startswith("Better analytics dashboards (reason in 1 lost deal")
    assert any(o.startswith('Rival says: "The most powerful') for o in objections)
    assert all(set(o) == {"objection", "response", "evidenceIds"} for o in content["objections"])
    assert all(set(t) == {"title", "description", "evidenceIds"} for t in content["talkingPoints"])
    assert content["talkingPoints"][0]["title"] == "Enterprise-grade security with SSO included"
    assert content["killShot"].startswith("Acme Cloud beats Rival on Security & Compliance")
    assert content["landmines"][0].startswith("Ask Rival to demonstrate security & compliance")
    assert "$49 per user per month" in content["pricingWedge"]
    assert content["pricingEvidenceIds"] == [pages["pricing"]]
    assert content["profile"]["competitor"]["employeeCount"] == "51-200"
    # every evidence id of every item resolves through includeEvidence=true
    item_ids = {
        i
        for key in ("whyWeWin", "whyWeLose", "objections", "talkingPoints")
        for item in content[key]
        for i in item["evidenceIds"]
    }
    assert item_ids and item_ids <= set(card["evidenceIds"]) == set(evidence)
    assert set(evidence) <= set(pages.values())
    record = evidence[pages["security"]]
    assert record == {
        "id": pages["security"],
        "content": record["content"],
        "sourceType": "WEB_PAGE",
        "url": "https://rival.example/security",
        "title": "Rival Security",
        "credibilityScore": record["credibilityScore"],
    }
    assert "does not support SAML" in record["content"]
    detail = ok(api.get(f"/api/competitors/{competitor['id']}"))["competitor"]
    assert "lastBattlecardAt" in detail


def test_defense_differs_and_regenerating_replaces(rival, runner):
    api, product, competitor, _pages = rival
    attack = generated(api, runner, competitor["id"], product["id"], "ATTACK")["battlecard"]
    defense = generated(api, runner, competitor["id"], product["id"], "DEFENSE")["battlecard"]
    assert defense["id"] == attack["id"] and defense["mode"] == "DEFENSE"
    a, d = attack["content"], defense["content"]
    assert d["killShot"].startswith('When Rival says "The most powerful analytics platform"')
    assert d["killShot"] != a["killShot"] and d["landmines"] != a["landmines"]
    assert d["landmines"][0].startswith("Rival will push analytics & reporting")
    assert d["talkingPoints"][0]["title"].startswith('Answer: Rival says: "The most powerful')
    assert d["objections"][0]["objection"].startswith("Rival says:")
    assert a["objections"][0]["objection"].startswith("Better analytics dashboards")
    listed = ok(api.get("/api/battlecards"))["battlecards"]
    assert [c["id"] for c in listed] == [attack["id"]]
    with connection():
        assert Battlecard.select().count() == 1
    body = ok(api.get(f"/api/battlecards/{attack['id']}?includeEvidence=true"))
    assert set(body["evidence"]) == set(body["battlecard"]["evidenceIds"])
    assert "evidence" not in ok(api.get(f"/api/battlecards/{attack['id']}"))


def test_two_products_requested_together_share_the_job(rival, runner):
    api, product, competitor, _pages = rival
    second = make_product(api, name="Acme Edge", valueProps=["Fast analytics dashboards"])
    first_job = generate(api, competitor["id"], product["id"])["jobId"]
    second_job = generate(api, competitor["id"], second["id"], "DEFENSE")["jobId"]
    assert second_job == first_job  # one active job of a type per competitor
    runner.run_until_idle()
    cards = ok(api.get(f"/api/battlecards?competitorId={competitor['id']}"))["battlecards"]
    assert sorted((c["myProductId"], c["mode"], c["status"]) for c in cards) == sorted(
        [(product["id"], "ATTACK", "READY"), (second["id"], "DEFENSE", "READY")]
    )
    only = ok(api.get(f"/api/battlecards?productId={second['id']}"))["battlecards"]
    assert [c["myProductId"] for c in only] == [second["id"]]


def test_cancelled_job_marks_the_card_failed(rival, runner):
    api, product, competitor, _pages = rival
    started = generate(api, competitor["id"], product["id"])
    ok(api.post(f"/api/jobs/{started['jobId']}/cancel"))
    card = ok(api.get(f"/api/battlecards/{started['battlecard']['id']}"))["battlecard"]
    assert card["status"] == "FAILED" and card["content"]["whyWeWin"] == []


def test_cards_of_another_workspace_are_not_found(rival, runner, make_api):
    api, product, competitor, _pages = rival
    card = generated(api, runner, competitor["id"], product["id"])["battlecard"]
    other = make_api(plan="PRO")
    error(other.get(f"/api/battlecards/{card['id']}"), 404, "NOT_FOUND")
    assert ok(other.get("/api/battlecards"))["battlecards"] == []
    body = {"productId": product["id"], "mode": "ATTACK"}
    error(other.post(f"/api/battlecards/{competitor['id']}/generate", json=body), 404, "NOT_FOUND")
    mine = make_product(other)
    body = {"productId": mine["id"], "mode": "ATTACK"}
    error(other.post(f"/api/battlecards/{competitor['id']}/generate", json=body), 404, "NOT_FOUND")
    with connection():
        found = battlecards.battlecard_for(api.workspace_id, competitor["id"], product["id"])
        assert found.id == card["id"]
        with pytest.raises(Exception, match="not found"):
            battlecards.battlecard_for(other.workspace_id, competitor["id"], product["id"])


@pytest.mark.parametrize("what", ["competitor", "product"])
def test_deleting_the_competitor_or_product_removes_the_card(rival, runner, what):
    api, product, competitor, _pages = rival
    card = generated(api, runner, competitor["id"], product["id"])["battlecard"]
    path = (
        f"/api/competitors/{competitor['id']}"
        if what == "competitor"
        else (f"/api/products/{product['id']}")
    )
    ok(api.delete(path))
    error(api.get(f"/api/battlecards/{card['id']}"), 404, "NOT_FOUND")


def test_generation_without_a_mode_keeps_the_cards_mode(rival, runner):
    api, product, competitor, _pages = rival
    with connection():
        card, job = battlecards.start_generation_default_mode(
            api.workspace_id, competitor["id"], product["id"]
        )
    assert card.mode == "ATTACK" and job.metadata["battlecardId"] == card.id
    runner.run_until_idle()
    generated(api, runner, competitor["id"], product["id"], "DEFENSE")
    with connection():
        card, _job = battlecards.start_generation_default_mode(
            api.workspace_id, competitor["id"], product["id"]
        )
    runner.run_until_idle()
    with connection():
        assert battlecards.get_battlecard(api.workspace_id, card.id).mode == "DEFENSE"
