"""Builders for the matrix, battlecard and search tests (not a test module).

``seed_rival(api)`` creates the fixture used across those tests: our product "Acme Cloud"
(SSO, audit log, API integrations; security and per-user pricing value props) and the
competitor "Rival" with a product, four evidence pages, a strength, a weakness, a claim
and a LOST deal. Scored with the default categories it gives (see services/analysis/scoring.py):

- Security & Compliance: SUPERIOR (we have SSO; their page says they do not support SAML
  single sign-on) with the security page as evidence;
- Analytics & Reporting: INFERIOR (their dashboards and reports, none of ours);
- Integrations: INFERIOR (both have a REST API; Zapier is theirs alone);
- the other five categories: UNKNOWN (no features of theirs in them).
"""

from __future__ import annotations

from ci_service.services.intel import items as intel
from ci_service.services.workspace import offerings
from ci_service.store.db import connection
from tests.resource_helpers import make_competitor, make_deal, make_product, ok

PAGES = {
    "analytics": (
        "Rival Analytics",
        "Rival offers real-time analytics dashboards and custom reports for every team. "
        "The most powerful analytics platform for growing companies.",
    ),
    "security": (
        "Rival Security",
        "Rival does not support SAML single sign-on. Security is limited to passwords.",
    ),
    "pricing": (
        "Rival Pricing",
        "Rival pricing starts at $49 per user per month with a 14-day free trial.",
    ),
    "integrations": (
        "Rival Integrations",
        "Connect Rival with Slack and Zapier through the integrations marketplace and REST API.",
    ),
}


def seed_rival(api, *, name="Rival", product=None, relevant=True):
    """-> (product dict, competitor dict, {page key: intel id})"""
    product = product or make_product(
        api,
        name="Acme Cloud",
        features=[
            {"name": "Single sign-on", "description": "SAML SSO on every plan"},
            {"name": "Audit log", "description": "Every change recorded"},
            {"name": "REST API", "description": "Integrations with any tool"},
        ],
        valueProps=["Enterprise-grade security with SSO included", "Transparent pricing"],
    )
    body = {"relevantProductIds": [product["id"]]} if relevant else {}
    competitor = make_competitor(api, name=name, url=f"https://{name.lower()}.example", **body)[
        "competitor"
    ]
    ok(
        api.patch(
            f"/api/competitors/{competitor['id']}",
            json={
                "companyStrengths": ["Strong analytics dashboards"],
                "companyWeaknesses": ["Limited security certifications"],
                "keyMessaging": ["The most powerful analytics platform"],
                "companyProfile": {"employeeCount": "51-200", "yearFounded": 2015},
            },
        )
    )
    ids = {}
    with connection():
        for key, (title, content) in PAGES.items():
            result = intel.record_evidence(
                api.workspace_id,
                source_type="WEB_PAGE",
                url=f"https://{name.lower()}.example/{key}",
                title=title,
                content=content,
                competitor_id=competitor["id"],
            )
            ids[key] = result.item.id

        def quoted(key: str, sentence: str) -> list[dict[str, str]]:
            return [{"evidenceId": ids[key], "quote": sentence}]

        analytics = PAGES["analytics"][1].split(". ")[0] + "."
        offerings.create_offering(
            api.workspace_id,
            {
                "name": f"{name} Suite",
                "description": "Their suite",
                "audience": "teams",
                "features": [
                    {"name": "Dashboards", "quotes": quoted("analytics", analytics)},
                    {"name": "Reports", "quotes": quoted("analytics", analytics)},
                    {
                        "name": "Zapier",
                        "description": "Integration",
                        "quotes": quoted("integrations", PAGES["integrations"][1]),
                    },
                ],
            },
            competitor_id=competitor["id"],
        )
    make_deal(
        api,
        outcome="LOST",
        competitorId=competitor["id"],
        arguments=["Better analytics dashboards", "Lower price"],
    )
    return product, competitor, ids


def run_jobs(runner):
    """Run every queued job (the runner has no threads)."""
    return runner.run_until_idle()
