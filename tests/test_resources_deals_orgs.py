"""Deals (WON/LOST rules) and the workspace organization."""

from __future__ import annotations

import pytest

from tests.resource_helpers import error, make_competitor, make_deal, ok


@pytest.fixture
def rival(api):
    return make_competitor(api)["competitor"]


def test_create_won_deal_shape(api):
    deal = make_deal(api, prospectIndustry="Retail", decisionDate="2026-03-31", arguments=["x"])
    assert set(deal) == {
        "id",
        "workspaceId",
        "prospectCompanyName",
        "prospectIndustry",
        "outcome",
        "competitorId",
        "decisionDate",
        "dealSize",
        "arguments",
        "competitorIds",  # beyond the contract (issue 28)
        "createdAt",
        "createdByUserId",
    }
    assert deal["competitorId"] is None and deal["dealSize"] is None
    assert deal["competitorIds"] == []
    assert deal["decisionDate"] == "2026-03-31"
    assert deal["createdByUserId"] == api.user_id
    assert ok(api.get(f"/api/deals/{deal['id']}"))["deal"] == deal


def test_a_lost_deal_names_its_competitor(api, rival):
    deal = make_deal(api, outcome="LOST", competitorId=rival["id"], dealSize="$10k")
    assert deal["competitorId"] == rival["id"]


@pytest.mark.parametrize(
    "body",  # RIVAL: this workspace's competitor; FOREIGN: another workspace's
    [
        {"outcome": "LOST"},
        {"outcome": "LOST", "competitorId": None},
        {"outcome": "LOST", "competitorId": "nope"},
        {"outcome": "LOST", "competitorId": "FOREIGN"},
        {"outcome": "WON", "competitorId": "RIVAL"},
    ],
    ids=["lost-none", "lost-null", "lost-unknown", "lost-foreign", "won-with-one"],
)
def test_lost_deal_needs_an_existing_competitor(api, rival, make_api, body):
    foreign = make_competitor(make_api())["competitor"]
    ids = {"RIVAL": rival["id"], "FOREIGN": foreign["id"]}
    body = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    got = error(
        api.post("/api/deals", json={"prospectCompanyName": "P", **body}),
        400,
        "VALIDATION_ERROR",
    )
    assert "competitorId" in got["details"]["fields"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"outcome": "WON"}, "prospectCompanyName"),
        ({"prospectCompanyName": "P"}, "outcome"),
        ({"prospectCompanyName": "P", "outcome": "TIED"}, "outcome"),
        ({"prospectCompanyName": "P", "outcome": "won"}, "outcome"),
        (
            {"prospectCompanyName": "P", "outcome": "WON", "decisionDate": "2026-13-01"},
            "decisionDate",
        ),
        (
            {"prospectCompanyName": "P", "outcome": "WON", "decisionDate": "2026-03-01T00:00:00Z"},
            "decisionDate",
        ),
        ({"prospectCompanyName": "P", "outcome": "WON", "arguments": "x"}, "arguments"),
        ({"prospectCompanyName": None, "outcome": "WON"}, "prospectCompanyName"),
    ],
)
def test_deal_validation(api, body, field):
    got = error(api.post("/api/deals", json=body), 400, "VALIDATION_ERROR")
    assert field in got["details"]["fields"]


def test_patch_revalidates_combined_result(api, rival):
    deal = make_deal(api)
    error(api.patch(f"/api/deals/{deal['id']}", json={"outcome": "LOST"}), 400, "VALIDATION_ERROR")
    lost = ok(
        api.patch(f"/api/deals/{deal['id']}", json={"outcome": "LOST", "competitorId": rival["id"]})
    )["deal"]
    assert lost["outcome"] == "LOST" and lost["competitorId"] == rival["id"]
    error(api.patch(f"/api/deals/{deal['id']}", json={"outcome": "WON"}), 400, "VALIDATION_ERROR")
    error(
        api.patch(f"/api/deals/{deal['id']}", json={"competitorId": None}), 400, "VALIDATION_ERROR"
    )
    won = ok(api.patch(f"/api/deals/{deal['id']}", json={"outcome": "WON", "competitorId": None}))[
        "deal"
    ]
    assert won["competitorId"] is None
    got = ok(api.patch(f"/api/deals/{deal['id']}", json={"arguments": ["price"]}))["deal"]
    assert got["arguments"] == ["price"] and got["prospectCompanyName"] == "Prospect Co"


def test_competitor_filter_and_delete(api, rival):
    lost = make_deal(api, outcome="LOST", competitorId=rival["id"])
    make_deal(api)
    assert [d["id"] for d in ok(api.get(f"/api/deals?competitorId={rival['id']}"))["deals"]] == [
        lost["id"]
    ]
    assert len(ok(api.get("/api/deals"))["deals"]) == 2
    ok(api.delete(f"/api/deals/{lost['id']}"))
    error(api.get(f"/api/deals/{lost['id']}"), 404, "NOT_FOUND")
    error(api.delete(f"/api/deals/{lost['id']}"), 404, "NOT_FOUND")
    error(api.patch(f"/api/deals/{lost['id']}", json={}), 404, "NOT_FOUND")


def test_organization_null_then_created_then_updated(api):
    assert ok(api.get("/api/organizations")) == {"organization": None}
    org = ok(
        api.patch(
            "/api/organizations",
            json={"name": "Acme", "websiteUrl": "https://www.acme.example/about"},
        )
    )["organization"]
    assert org["name"] == "Acme" and org["domain"] == "acme.example"
    assert org["companyProfile"] == {} and org["referenceLinks"] == []
    body = {
        "companyProfile": {
            "yearFounded": 2001,
            "newsFeed": [{"date": "2026-01-01", "title": "T", "url": "https://n.example"}],
            "pricingLinks": [
                {
                    "label": "Pricing",
                    "url": "https://acme.example/p",
                    "discoveredAt": "2026-01-01T00:00:00Z",
                }
            ],
        },
        "companyStrengths": ["s"],
        "companyWeaknesses": ["w"],
        "referenceLinks": [{"label": "Docs", "url": "https://acme.example/docs"}],
        "keyMessaging": ["m"],
    }
    updated = ok(api.patch("/api/organizations", json=body))["organization"]
    assert updated["id"] == org["id"] and updated["name"] == "Acme"
    for key, value in body.items():
        assert updated[key] == value, key
    assert ok(api.get("/api/organizations"))["organization"] == updated
    assert ok(api.get(f"/api/organizations/{org['id']}"))["organization"] == updated
    error(api.get("/api/organizations/nope"), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": 5}, "name"),
        ({"websiteUrl": "acme"}, "websiteUrl"),
        ({"companyProfile": {"yearFounded": "1999"}}, "companyProfile.yearFounded"),
        ({"companyProfile": []}, "companyProfile"),
        ({"referenceLinks": [{"label": "x"}]}, "referenceLinks.0.url"),
        ({"companyStrengths": "strong"}, "companyStrengths"),
        ({"keyMessaging": [1]}, "keyMessaging.0"),
    ],
)
def test_organization_validation(api, body, field):
    got = error(api.patch("/api/organizations", json=body), 400, "VALIDATION_ERROR")
    assert field in got["details"]["fields"]
    assert ok(api.get("/api/organizations")) == {"organization": None}


def test_organization_before_creation_by_id_is_404(api):
    error(api.get("/api/organizations/anything"), 404, "NOT_FOUND")
