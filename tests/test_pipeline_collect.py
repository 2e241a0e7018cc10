"""The collect pipeline end to end: a fixture site through POST /api/competitors
(isFirstRun true) to a COMPLETE competitor with profile, products, intel, tree and graph."""

from __future__ import annotations

from ci_service.services.intel import trees
from ci_service.store.db import connection
from tests.pipeline_fixtures.support import add_competitor, graph_labels, job, run_jobs

pytest_plugins = ["tests.pipeline_fixtures.plugin"]


def intel_items(api, competitor_id):
    response = api.get(f"/api/intel?competitorId={competitor_id}")
    assert response.status_code == 200, response.json
    return response.json["intelItems"]


def test_first_run_builds_a_complete_competitor(api, site):
    competitor_id, job_id = add_competitor(api, site.url("/"))
    assert run_jobs() == 1
    done = job(api, job_id)
    assert done["status"] == "completed", done
    assert [s["status"] for s in done["steps"]] == ["completed"] * 4

    competitor = api.get(f"/api/competitors/{competitor_id}").json["competitor"]
    assert competitor["status"] == "COMPLETE" and "lastRefreshAt" in competitor
    profile = competitor["companyProfile"]
    assert profile["yearFounded"] == 2011
    assert "Austin" in profile["headquarters"]
    assert profile["employeeCount"] == "250"
    assert profile["revenue"] == "$40 million"
    assert profile["industry"] == "Help desk and analytics software"  # as the site says
    assert [link["url"] for link in profile["pricingLinks"]] == [site.url("/pricing")]
    assert {link["url"] for link in profile["offeringLinks"]} == {
        site.url("/products/flowdesk"),
        site.url("/products/insightboard"),
    }
    assert all(link["discoveredAt"].endswith("Z") for link in profile["pricingLinks"])
    news = profile["newsFeed"]
    assert [item["title"] for item in news[:2]] == [
        "FlowDesk 3 launches with workflow automation",
        "Globex raises Series B",
    ]
    assert news[0]["date"] == "2026-03-03" and news[0]["source"] == "Globex news"

    offerings = [
        o for o in api.get("/api/offerings").json["offerings"] if o["competitorId"] == competitor_id
    ]
    by_name = {o["name"]: o for o in offerings}
    assert set(by_name) == {"FlowDesk", "InsightBoard"}
    flowdesk = by_name["FlowDesk"]
    assert flowdesk["description"].startswith("FlowDesk is the help desk")
    features = {f["name"]: f["description"] for f in flowdesk["features"]}
    assert features["Ticket routing"] == "send each ticket to the agent who can solve it"
    assert {"Workflow automation", "Single sign-on", "Audit logs"} <= set(features)
    assert "Pro: 49 USD" in flowdesk["valueProps"]
    assert "cap-single-sign-on" in flowdesk["capabilityIds"]
    assert {"Custom dashboards", "Real-time analytics"} <= {
        f["name"] for f in by_name["InsightBoard"]["features"]
    }
    assert {c["name"] for c in competitor["categories"]} >= {
        "Customer Support",
        "Analytics & Reporting",
        "Security & Compliance",
    }

    items = intel_items(api, competitor_id)
    urls = {item["url"] for item in items}
    assert site.url("/products/flowdesk") in urls and site.url("/about") in urls
    assert {item["sourceType"] for item in items} == {"WEB_PAGE", "DOCUMENT", "NEWS"}
    pdf = [i for i in items if i["sourceType"] == "DOCUMENT"]
    assert pdf and "Visual workflow builder" in pdf[0]["content"]
    assert pdf[0]["url"] == site.url("/docs/datasheet.pdf") + "#section-1"
    assert all(i["type"] == "EVIDENCE" and 0 < i["credibilityScore"] <= 1 for i in items)
    # robots.txt excludes /internal/: never fetched, never stored.
    assert site.hits("/internal/roadmap") == 0
    assert not any("/internal/" in url for url in urls)
    assert not any("SECRET-ROADMAP" in i["content"] for i in items)

    with connection():
        tree = trees.tree_for_entity(api.workspace_id, "COMPETITOR", competitor_id)
        nodes = trees.get_nodes(api.workspace_id, tree.id, exclude_embeddings=True)
    kinds = {n["metadata"]["type"] for n in nodes}
    assert kinds == {"root", "document", "section", "chunk"}
    assert any("Visual workflow builder" in n["text"] for n in nodes)
    assert not any("SECRET-ROADMAP" in n["text"] for n in nodes)

    labels = graph_labels(api)
    assert "Globex" in labels["COMPETITOR"]
    assert len(labels["DOCUMENT"]) >= 8
    assert any(name.startswith("Maria Lopez") for name in labels["PERSON"])
    assert any("Globex raises Series B" in name for name in labels["MARKET_EVENT"])
    assert labels["TOPIC"]
    assert "Single sign-on" in labels["CAPABILITY"]
    assert {"FlowDesk", "InsightBoard"} <= set(labels["OFFERING"])


def test_recollecting_an_unchanged_site_adds_nothing(api, site):
    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    before_items = intel_items(api, competitor_id)
    before_graph = api.get("/api/knowledge-graph").json["elements"]
    before_offerings = api.get("/api/offerings").json["offerings"]

    with connection():
        from ci_service.services.workspace.jobs import start_competitor_refresh

        again = start_competitor_refresh(api.workspace_id, competitor_id, is_first_run=True)
    run_jobs()
    assert job(api, again.id)["status"] == "completed"
    assert len(intel_items(api, competitor_id)) == len(before_items)
    after_graph = api.get("/api/knowledge-graph").json["elements"]
    assert len(after_graph["nodes"]) == len(before_graph["nodes"])
    assert len(after_graph["edges"]) == len(before_graph["edges"])
    after_offerings = api.get("/api/offerings").json["offerings"]
    assert [(o["id"], o["features"]) for o in after_offerings] == [
        (o["id"], o["features"]) for o in before_offerings
    ]


def test_a_changed_page_adds_a_new_item_with_its_changes(api, site):
    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    pricing = site.root / "pricing.html"
    pricing.write_text(pricing.read_text().replace("$49 per agent", "$59 per agent"))
    with connection():
        from ci_service.services.workspace.jobs import start_competitor_refresh

        again = start_competitor_refresh(api.workspace_id, competitor_id)
    run_jobs()
    assert job(api, again.id)["status"] == "completed"
    items = [i for i in intel_items(api, competitor_id) if i["url"] == site.url("/pricing")]
    assert len(items) == 2
    newest, oldest = items
    assert newest["previousItemId"] == oldest["id"]
    assert any("$59 per agent" in line for line in newest["changes"]["added"])
    assert any("$49 per agent" in line for line in newest["changes"]["removed"])
    # the tree follows the site: only the new price is in it
    with connection():
        tree = trees.tree_for_entity(api.workspace_id, "COMPETITOR", competitor_id)
        texts = " ".join(n["text"] for n in trees.get_nodes(api.workspace_id, tree.id))
    assert "$59 per agent" in texts and "$49 per agent" not in texts
