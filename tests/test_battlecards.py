"""Battlecards: generation (a job), content in both modes, evidence, regeneration."""

from __future__ import annotations

import pytest

from ci_service.services.battlecards import cards as battlecards
from ci_service.services.workspace import offerings
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


def _quotes_resolve(item, evidence):
    """Every cited sentence is in the content of the evidence item it names."""
    assert item["evidenceIds"] and item["quotes"], item
    for quote in item["quotes"]:
        assert quote["evidenceId"] in item["evidenceIds"]
        assert quote["quote"] in evidence[quote["evidenceId"]]["content"]
        assert "#:~:text=" in quote["url"]


def test_attack_card_content_traces_to_evidence(rival, runner):
    api, product, competitor, pages = rival
    body = generated(api, runner, competitor["id"], product["id"], "ATTACK")
    card, evidence = body["battlecard"], body["evidence"]
    content = card["content"]
    assert card["status"] == "READY" and card["mode"] == "ATTACK"
    # A compared fact: our feature, their own sentence saying they lack it.
    win = content["whyWeWin"][0]
    assert win["title"] == "Acme Cloud has Single sign-on; Rival does not"
    assert win["evidenceIds"] == [pages["security"]]
    assert win["quotes"][0]["quote"] == "Rival does not support SAML single sign-on."
    # Their listed strength, backed by the sentence of their site that bears it out.
    losses = {item["title"]: item for item in content["whyWeLose"]}
    assert list(losses)[:2] == ["Rival offers Dashboards", "Rival offers Reports"]
    assert losses["Rival offers Dashboards"]["state"] == "WE_LACK"
    lose = losses["Rival strength: Strong analytics dashboards"]
    assert lose["evidenceIds"] == [pages["analytics"]]
    objections = [o["objection"] for o in content["objections"]]
    assert objections[0].startswith("Better analytics dashboards (reason in 1 lost deal")
    assert any(o.startswith('Rival says: "The most powerful') for o in objections)
    # "Lower price" shares no sentence of theirs: no evidence, no item.
    assert not any(o.startswith("Lower price") for o in objections)
    # Nothing of ours answers analytics: no response rather than a canned pivot.
    assert content["objections"][0]["response"] == ""
    point = content["talkingPoints"][0]
    assert point["title"] == "Lead with: Acme Cloud has Single sign-on; Rival does not"
    assert point["description"] == "Lead with Single sign-on: Rival states it does not offer it."
    assert content["killShot"] == "Close on Single sign-on, which Rival says it does not offer."
    assert content["killShotQuotes"] == win["quotes"][:1]
    assert content["landmines"][0] == (
        "Ask Rival to show Single sign-on live, on the plan the prospect would buy."
    )
    texts = [
        text
        for key in ("whyWeWin", "whyWeLose", "objections", "talkingPoints")
        for item in content[key]
        for text in (item.get("description"), item.get("response"))
        if text
    ] + [content["killShot"]]
    assert len(texts) == len(set(texts))  # no section repeats another verbatim
    # No pricing fact was read from a pricing page: no wedge rather than a made-up one.
    assert content["pricingWedge"] == "" and content["pricingEvidenceIds"] == []
    assert content["profile"]["competitor"]["employeeCount"] == "51-200"
    for key in ("whyWeWin", "whyWeLose", "objections", "talkingPoints"):
        for item in content[key]:
            _quotes_resolve(item, evidence)
    item_ids = {
        i
        for key in ("whyWeWin", "whyWeLose", "objections", "talkingPoints")
        for item in content[key]
        for i in item["evidenceIds"]
    }
    assert item_ids and item_ids <= set(card["evidenceIds"]) == set(evidence)
    assert set(evidence) <= set(pages.values())
    record = evidence[pages["security"]]
    assert {k: record[k] for k in ("id", "sourceType", "url", "title")} == {
        "id": pages["security"],
        "sourceType": "WEB_PAGE",
        "url": "https://rival.example/security",
        "title": "Rival Security",
    }
    assert record["quote"] == "Rival does not support SAML single sign-on."
    assert "does not support SAML" in record["content"]
    detail = ok(api.get(f"/api/competitors/{competitor['id']}"))["competitor"]
    assert "lastBattlecardAt" in detail


def test_defense_differs_and_regenerating_replaces(rival, runner):
    api, product, competitor, _pages = rival
    attack = generated(api, runner, competitor["id"], product["id"], "ATTACK")["battlecard"]
    defense = generated(api, runner, competitor["id"], product["id"], "DEFENSE")["battlecard"]
    assert defense["id"] == attack["id"] and defense["mode"] == "DEFENSE"
    a, d = attack["content"], defense["content"]
    # DEFENSE leads with their strongest point and our answer to it.
    assert d["killShot"] == (
        "Their strongest point: Dashboards, which Acme Cloud does not offer. "
        "Then close on Single sign-on, which Rival says it does not offer."
    )
    assert d["killShot"] != a["killShot"] and d["landmines"] != a["landmines"]
    assert d["landmines"][0].startswith("Rival will push Dashboards, which Acme Cloud does not")
    assert d["talkingPoints"][0]["title"] == "They will say: Rival offers Dashboards"
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


@pytest.mark.parametrize(
    ("name", "slogan"),
    [
        ("Easy to Use", True),
        ("Fast & Secure", True),
        ("Powerful", True),
        ("Lifetime Maintenance", False),
        ("SAML single sign-on", False),
        ("Secure bootloader", False),
    ],
)
def test_praise_alone_is_not_a_feature_to_argue_from(name, slogan):
    from ci_service.services.battlecards.facts import is_slogan

    assert is_slogan(name) is slogan


def test_possessive_of_names_ending_in_s():
    from ci_service.services.battlecards.facts import possessive

    assert possessive("Acme Apps") == "Acme Apps'" and possessive("Rival") == "Rival's"


def _fact_builder(their_features, our_features):
    """A FactBuilder over plain records: one evidence page holding every cited line."""
    from types import SimpleNamespace

    from ci_service.services.battlecards.facts import FactBuilder

    page = SimpleNamespace(
        id="ev-1",
        url="https://rival.example/x",
        content="\n".join(f["name"] for f in their_features),
        source_type="WEB_PAGE",
        title="Rival",
        published_at=None,
    )

    def cited(feature):
        quote = {"evidenceId": "ev-1", "quote": feature["name"], "url": page.url}
        return {**feature, "evidenceIds": ["ev-1"], "quotes": [quote]}

    features = [cited(f) for f in their_features]
    offerings = [
        SimpleNamespace(name=f"Rival {n}", features=features, capabilities=[], pricing=[])
        for n in ("One", "Two")  # both products list the same features
    ]
    competitor = SimpleNamespace(name="Rival", company_profile={})
    ours = SimpleNamespace(name="Acme", features=our_features, capabilities=[], pricing=[])
    return FactBuilder(competitor, ours, offerings, None, [page]).build()


def test_integrations_are_one_claim_and_shared_features_are_argued_once():
    integrations = [
        {"name": n, "description": "Integration"} for n in ("Slack", "Zapier", "MongoDB", "S3")
    ]
    theirs = [*integrations, {"name": "Audit trail", "description": "Every change kept"}]
    theirs.append({"name": "Easy to Use", "description": "Anyone can build"})
    facts = _fact_builder(theirs, [{"name": "Slack"}])
    titles = [c.title for c in facts.losses]
    assert "Rival lists 3 integrations and supported platforms" in titles  # Slack is ours too
    assert titles.count("Rival offers Audit trail") == 1
    assert not any("Easy to Use" in t or "offers Zapier" in t for t in titles)
    claim = next(c for c in facts.losses if c.topic == "integrations")
    assert "Zapier, MongoDB and S3" in claim.description and claim.citations


def test_fewer_than_three_integrations_make_no_claim():
    facts = _fact_builder([{"name": "Slack", "description": "Integration"}], [])
    assert not facts.losses
