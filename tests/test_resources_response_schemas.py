"""Responses match the documented response schemas (what a schema-driven fuzzer checks)."""

from __future__ import annotations

from ci_service.store.competitors import Competitor
from ci_service.store.db import connection
from ci_service.timeutil import utcnow
from ci_service.web.routes import (
    competitors,
    deals,
    knowledge_graph,
    offerings,
    organizations,
    products,
    solutions,
)
from tests.resource_helpers import make_competitor, make_deal, make_product, make_solution, ok


def valid(schema, body):
    errors = schema().validate(body)
    assert errors == {}, errors


def test_every_response_matches_its_schema(make_api):
    api = make_api(plan="PRO")
    valid(organizations.OrganizationMaybeSchema, ok(api.get("/api/organizations")))
    org = ok(
        api.patch(
            "/api/organizations",
            json={
                "name": "Acme",
                "websiteUrl": "https://acme.example",
                "companyProfile": {"yearFounded": 2000, "newsFeed": [{"title": "t"}]},
                "referenceLinks": [{"label": "l", "url": "https://acme.example/l"}],
            },
        )
    )
    valid(organizations.OrganizationResponseSchema, org)
    valid(
        organizations.OrganizationResponseSchema,
        ok(api.get(f"/api/organizations/{org['organization']['id']}")),
    )
    product = make_product(
        api,
        features=[{"name": "f"}],
        categories=[{"name": "c"}],
        capabilities=[{"id": "cap", "name": "Cap"}],
    )
    valid(products.ProductResponseSchema, {"product": product})
    valid(products.ProductListSchema, ok(api.get("/api/products")))
    valid(offerings.OfferingResponseSchema, ok(api.get(f"/api/offerings/{product['id']}")))
    valid(offerings.OfferingListSchema, ok(api.get("/api/offerings")))

    created = make_competitor(api, relevantProductIds=[product["id"]])
    valid(competitors.CompetitorCreatedSchema, created)
    competitor_id = created["competitor"]["id"]
    ok(
        api.patch(
            f"/api/competitors/{competitor_id}",
            json={"categories": [{"name": "x"}], "products": [{"name": "p"}]},
        )
    )
    with connection():
        Competitor.update(last_refresh_at=utcnow(), last_battlecard_at=utcnow()).execute()
    detail = ok(api.get(f"/api/competitors/{competitor_id}"))
    assert "lastRefreshAt" in detail["competitor"]
    valid(competitors.CompetitorDetailSchema, detail)
    valid(competitors.CompetitorListSchema, ok(api.get("/api/competitors")))

    deal = make_deal(api, outcome="LOST", competitorId=competitor_id, decisionDate="2026-01-02")
    valid(deals.DealResponseSchema, {"deal": deal})
    valid(deals.DealListSchema, ok(api.get("/api/deals")))

    solution = make_solution(api, product["id"])
    valid(solutions.SolutionResponseSchema, {"solution": solution})
    valid(solutions.SolutionListSchema, ok(api.get("/api/solutions")))

    valid(knowledge_graph.GraphSchema, ok(api.get("/api/knowledge-graph")))
