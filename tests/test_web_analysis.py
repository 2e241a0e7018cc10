"""Web pages for analysis: the matrix, the solution matrix, the knowledge graph and deals.

Each page shows what REST answers for the same query (compared cell by cell, node by
node), behind the same gates (PRO plan for the matrix, EDITOR to record a deal), with
hostile names escaped and other workspaces' ids leaking nothing.
"""

from __future__ import annotations

import math
import random
import time

import lxml.html
import pytest

from ci_service.services.analysis import matrix
from ci_service.services.graph import layout as graph_layout
from ci_service.store.db import connection, new_id, transaction
from ci_service.store.graph import GraphEdge, GraphNode
from tests.analysis_support import seed_rival
from tests.resource_helpers import make_competitor, make_deal, make_solution, ok

HOSTILE = "<script>alert(1)</script>"


def build(api, competitor_id):
    with connection():
        return matrix.build_matrix(api.workspace_id, competitor_id)


def html(response, status=200):
    text = response.get_data(as_text=True)
    assert response.status_code == status, text[:2000]
    return text


def page_statuses(text):
    """{(categoryId, competitorId): status word} of the matrix table."""
    doc = lxml.html.fromstring(text)
    out = {}
    for row in doc.xpath("//table[contains(@class, 'matrix')]/tbody/tr[@data-category]"):
        for cell in row.xpath("./td[@data-competitor]"):
            badge = cell.xpath(".//summary/span[contains(@class, 'badge')]")
            if badge:
                word = badge[0].text_content().strip()
                assert word in badge[0].get("class").split()  # colour and word agree
                out[(row.get("data-category"), cell.get("data-competitor"))] = word
    return out


def api_statuses(body):
    return {
        (category_id, competitor_id): cell["capabilityStatus"]
        for category_id, row in body["cellMap"].items()
        for competitor_id, cell in row.items()
    }


@pytest.fixture
def two_rivals(make_web):
    web = make_web(plan="PRO")
    product, rival, pages = seed_rival(web.api)
    _, other, _ = seed_rival(web.api, name="Other", product=product)
    build(web.api, rival["id"])
    build(web.api, other["id"])
    return web, product, rival, other, pages


# -- matrix ------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "productId={product}", "competitorIds={other}"])
def test_matrix_page_shows_the_cells_of_the_api_for_the_same_query(two_rivals, query):
    web, product, rival, other, _ = two_rivals
    query = query.format(product=product["id"], other=other["id"])
    text = html(web.get(f"/matrix?{query}"))
    body = ok(web.api.get(f"/api/matrix?{query}"))
    assert page_statuses(text) == api_statuses(body) and api_statuses(body)
    for category in body["categories"]:
        assert f'data-category="{category["id"]}"' in text


def test_matrix_page_shows_superior_and_inferior_cells(two_rivals):
    web, product, rival, _, _ = two_rivals
    statuses = page_statuses(html(web.get(f"/matrix?productId={product['id']}")))
    assert statuses[("security-compliance", rival["id"])] == "SUPERIOR"
    assert statuses[("analytics-reporting", rival["id"])] == "INFERIOR"


def test_matrix_shows_our_product_column_with_a_product(two_rivals):
    web, product, _, _, _ = two_rivals
    body = ok(web.api.get(f"/api/matrix?productId={product['id']}&includeOurProduct=true"))
    doc = lxml.html.fromstring(html(web.get(f"/matrix?productId={product['id']}")))
    assert doc.xpath("//th[contains(@class, 'ours')]")[0].text_content() == "Our product"
    for category_id, mine in body["ourProduct"]["capabilities"].items():
        cell = doc.xpath(f"//tr[@data-category='{category_id}']/td[contains(@class, 'ours')]")
        assert mine["capabilityStatus"] in cell[0].text_content()
    assert not lxml.html.fromstring(html(web.get("/matrix"))).xpath("//td[@class='ours']")


def test_matrix_filters_competitors_and_categories(two_rivals):
    web, product, rival, other, _ = two_rivals
    only = page_statuses(html(web.get(f"/matrix?competitorIds={rival['id']}")))
    assert {c for _, c in only} == {rival["id"]}
    # repeated checkboxes and the REST comma form mean the same
    both = f"competitorIds={rival['id']}&competitorIds={other['id']}"
    assert page_statuses(html(web.get(f"/matrix?{both}"))) == page_statuses(
        html(web.get(f"/matrix?competitorIds={rival['id']},{other['id']}"))
    )
    rows = page_statuses(
        html(web.get("/matrix?categoryIds=security-compliance&categoryIds=usability"))
    )
    assert {c for c, _ in rows} == {"security-compliance", "usability"}
    assert len(rows) == 4
    # the filter form keeps the choices ticked
    text = html(web.get(f"/matrix?productId={product['id']}&competitorIds={other['id']}"))
    doc = lxml.html.fromstring(text)
    assert doc.xpath(f"//option[@value='{product['id']}']")[0].get("selected") is not None
    assert doc.xpath(f"//input[@value='{other['id']}']")[0].get("checked") is not None
    assert doc.xpath(f"//input[@value='{rival['id']}']")[0].get("checked") is None


def test_matrix_cell_opens_its_summary_and_evidence(two_rivals):
    web, product, rival, _, pages = two_rivals
    doc = lxml.html.fromstring(html(web.get(f"/matrix?productId={product['id']}")))
    cell = doc.xpath(
        f"//tr[@data-category='security-compliance']/td[@data-competitor='{rival['id']}']"
    )[0]
    details = cell.xpath(".//details")[0]
    summary = details.xpath(".//ul[@class='summary']")[0].text_content()
    assert "Only Acme Cloud: Single sign-on" in summary
    quotes = [q.text_content() for q in details.xpath(".//blockquote")]
    assert any("Rival does not support SAML single sign-on" in q for q in quotes)
    links = {a.get("href").split("#")[0]: a.text_content() for a in details.xpath(".//a")}
    assert "https://rival.example/security" in links


@pytest.mark.parametrize("path", ["/matrix", "/matrix/solutions"])
def test_matrix_needs_the_pro_plan(make_web, path):
    web = make_web(plan="STARTER")
    text = html(web.get(path), 403)
    assert "Upgrade needed" in text and "PRO" in text
    assert web.api.get(path.replace("/matrix", "/api/matrix", 1)).status_code == 403  # as REST


def test_matrix_escapes_hostile_names_and_links(make_web):
    web = make_web(plan="PRO")
    product, rival, _ = seed_rival(web.api, name="Evil")
    ok(web.api.patch(f"/api/competitors/{rival['id']}", json={"name": HOSTILE}))
    from ci_service.services.intel import items as intel

    with connection():
        intel.record_evidence(
            web.api.workspace_id,
            source_type="WEB_PAGE",
            url="javascript:alert(2)",
            title=HOSTILE,
            content="Evil security: <img src=x onerror=alert(3)> does not support SSO at all.",
            competitor_id=rival["id"],
        )
    build(web.api, rival["id"])
    text = html(web.get(f"/matrix?productId={product['id']}"))
    assert HOSTILE not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<img src=x" not in text and "&lt;img src=x onerror=alert(3)&gt;" in text
    assert 'href="javascript:' not in text and "javascript:" not in text


def test_matrix_ignores_other_workspaces_ids(two_rivals, make_web):
    web, _, rival, _, _ = two_rivals
    stranger = make_web(plan="PRO")
    their_product, theirs, _ = seed_rival(stranger.api, name="Secretco")
    build(stranger.api, theirs["id"])
    text = html(web.get(f"/matrix?competitorIds={theirs['id']}"))
    assert "Secretco" not in text and not page_statuses(text)
    html(web.get(f"/matrix?productId={their_product['id']}"), 404)
    text = html(web.get(f"/matrix/solutions?competitorIds={theirs['id']}"))
    assert "Secretco" not in text
    # and the foreign workspace sees none of ours
    assert rival["id"] not in html(stranger.get("/matrix"))


# -- solution matrix ---------------------------------------------------------------------


def test_solution_matrix_scores_and_drills_down_to_category_cells(two_rivals):
    web, product, rival, other, _ = two_rivals
    mappings = [
        {"categoryId": "security-compliance", "productId": product["id"], "weight": 1.0},
        {"categoryId": "analytics-reporting", "productId": product["id"], "weight": 1.0},
        {"categoryId": "usability", "productId": product["id"], "weight": 0.5},
    ]
    solution = make_solution(web.api, product["id"], name="Trust", categoryMappings=mappings)
    body = ok(web.api.get("/api/matrix/solutions"))
    score = body["cellMap"][solution["id"]][rival["id"]]["aggregatedScore"]
    assert score == 3  # (4 + 1) / 2 = 2.5 -> 3; usability is UNKNOWN, left out
    doc = lxml.html.fromstring(html(web.get("/matrix/solutions")))
    cell = doc.xpath(
        f"//tr[@data-solution='{solution['id']}']/td[@data-competitor='{rival['id']}']"
    )[0]
    assert cell.xpath(".//summary")[0].text_content().strip() == f"{score} / 4"
    drill = {
        r.xpath("./span[@class='cat']")[0].text_content(): r.xpath("./div")[0].text_content()
        for r in cell.xpath(".//ul[contains(@class, 'drill')]/li")
    }
    assert "SUPERIOR" in drill["Security & Compliance"]
    assert "INFERIOR" in drill["Analytics & Reporting"]
    assert "left out" in drill["usability"]
    assert "does not support SAML" in cell.text_content()  # the cell's evidence, one click on
    only = html(web.get(f"/matrix/solutions?competitorIds={other['id']}"))
    assert f'data-competitor="{rival["id"]}"' not in only
    assert f'data-competitor="{other["id"]}"' in only


# -- knowledge graph -----------------------------------------------------------------------


def test_graph_page_and_layout_hold_every_node_and_edge_of_the_api(make_web):
    web = make_web()
    seed_rival(web.api)
    make_deal(web.api, prospectCompanyName=HOSTILE, arguments=["Faster onboarding"])
    text = html(web.get("/graph"))
    assert 'id="graph-canvas"' in text and "graph.js" in text
    nav = lxml.html.fromstring(text).xpath("//nav[@aria-label='Main']//a/@href")
    assert {"/matrix", "/graph", "/deals"} <= set(nav)
    assert HOSTILE not in text and "&lt;script&gt;" in text
    api = ok(web.api.get("/api/knowledge-graph"))["elements"]
    answer = web.get("/graph/layout.json")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    drawn = answer.get_json()
    api_nodes = {n["data"]["id"]: n["data"] for n in api["nodes"]}
    assert {n["id"] for n in drawn["nodes"]} == set(api_nodes) and len(api_nodes) >= 5
    for node in drawn["nodes"]:
        source = api_nodes[node["id"]]
        assert (node["name"], node["label"], node["color"]) == (
            source["name"],
            source["label"],
            source["color"],
        )
        assert math.isfinite(node["x"]) and math.isfinite(node["y"])
    assert sorted((e["source"], e["target"], e["label"]) for e in drawn["edges"]) == sorted(
        (e["data"]["source"], e["data"]["target"], e["data"]["label"]) for e in api["edges"]
    )
    competitor = next(n for n in drawn["nodes"] if n["label"] == "COMPETITOR")
    rival = ok(web.api.get("/api/competitors"))["competitors"][0]
    assert competitor["url"] == f"/competitors/{rival['id']}"
    deal = next(n for n in drawn["nodes"] if n["label"] == "DEAL")
    assert deal["url"].startswith("/deals#deal-")
    # the no-script list names every node, and the label filter narrows it
    doc = lxml.html.fromstring(text)
    assert len(doc.xpath("//ul[@class='node-list']/li")) == len(api_nodes)
    only = lxml.html.fromstring(html(web.get("/graph?label=COMPETITOR")))
    assert [li.text_content() for li in only.xpath("//ul[@class='node-list']/li")] == ["Rival"]
    assert only.xpath("//input[@id='gl-COMPETITOR']")[0].get("checked") is not None
    assert only.xpath("//input[@id='gl-DEAL']")[0].get("checked") is None


def test_graph_layout_isolates_workspaces(make_web):
    web = make_web()
    stranger = make_web()
    seed_rival(stranger.api, name="Secretco")
    seed_rival(web.api)
    names = {n["name"] for n in web.get("/graph/layout.json").get_json()["nodes"]}
    assert "Secretco" not in names and "Rival" in names
    assert "Secretco" not in html(web.get("/graph"))


def seed_big_graph(workspace_id, nodes=3000):
    """A knowledge-graph-shaped graph: hubs (competitors) with offerings, capabilities
    shared between them, documents and people as leaves, competitors linked together."""
    rng = random.Random(5)
    labels = ("DOCUMENT", "PERSON", "MARKET_EVENT", "TOPIC")
    rows, edges = [], []

    def add(label, name):
        rows.append(
            {
                "id": new_id(),
                "workspace": workspace_id,
                "key": f"k{len(rows)}",
                "label": label,
                "name": name,
                "properties": {},
            }
        )
        return rows[-1]["id"]

    hubs = [add("COMPETITOR", f"Competitor {i}") for i in range(100)]
    capabilities = [add("CAPABILITY", f"Capability {i}") for i in range(150)]
    while len(rows) < nodes:
        hub = rng.choice(hubs)
        if rng.random() < 0.1:
            offering = add("OFFERING", f"Offering {len(rows)}")
            edges.append((hub, offering))
            edges.extend((offering, c) for c in rng.sample(capabilities, 3))
        else:
            edges.append((hub, add(rng.choice(labels), f"Leaf {len(rows)}")))
    edges.extend((a, b) for a, b in zip(hubs, rng.sample(hubs, len(hubs)), strict=True) if a != b)
    with transaction():
        for start in range(0, len(rows), 500):
            GraphNode.insert_many(rows[start : start + 500]).execute()
        edge_rows = [
            {"id": new_id(), "workspace": workspace_id, "source": s, "target": t, "label": "X"}
            for s, t in edges
        ]
        for start in range(0, len(edge_rows), 500):
            GraphEdge.insert_many(edge_rows[start : start + 500]).execute()
    return len(rows), len(edges)


def test_layout_of_three_thousand_nodes_is_fast_and_cached(make_web, capsys):
    web = make_web()
    with connection():
        node_count, edge_count = seed_big_graph(web.workspace_id)
    graph_layout.clear_cache()
    started = time.perf_counter()
    first = web.get("/graph/layout.json").get_json()
    cold = time.perf_counter() - started
    started = time.perf_counter()
    again = web.get("/graph/layout.json").get_json()
    warm = time.perf_counter() - started
    with connection():
        nodes = [n["id"] for n in first["nodes"]]
        pairs = [(e["source"], e["target"]) for e in first["edges"]]
        started = time.perf_counter()
        graph_layout.positions_for(web.workspace_id, nodes, pairs)
        hit = time.perf_counter() - started
        graph_layout.clear_cache()
        started = time.perf_counter()
        graph_layout.compute_positions(nodes, pairs)
        compute = time.perf_counter() - started
    with capsys.disabled():
        print(
            f"\n[graph layout] {node_count} nodes, {edge_count} edges: compute {compute:.3f}s, "
            f"layout.json cold {cold:.3f}s, warm {warm:.3f}s, cache hit {hit * 1000:.1f}ms"
        )
    assert len(first["nodes"]) == node_count and len(first["edges"]) == edge_count
    assert all(math.isfinite(n["x"]) and math.isfinite(n["y"]) for n in first["nodes"])
    assert first == again  # the same positions from the cache
    spread = {(round(n["x"]), round(n["y"])) for n in first["nodes"]}
    assert len(spread) > node_count * 0.8  # nodes are spread out, not stacked
    assert compute < 2.0 and hit < 0.05


def test_layout_is_recomputed_when_the_graph_changes(make_web):
    web = make_web()
    seed_rival(web.api)
    before = web.get("/graph/layout.json").get_json()
    make_competitor(web.api, name="Newcomer", url="https://newcomer.example")
    after = web.get("/graph/layout.json").get_json()
    assert len(after["nodes"]) == len(before["nodes"]) + 1
    assert "Newcomer" in {n["name"] for n in after["nodes"]}


def test_compute_positions_handles_small_and_odd_graphs():
    assert graph_layout.compute_positions([], []) == {}
    one = graph_layout.compute_positions(["a"], [])
    assert all(math.isfinite(v) for v in one["a"])
    loops = graph_layout.compute_positions(["a", "b"], [("a", "a"), ("a", "b"), ("a", "zz")])
    assert set(loops) == {"a", "b"}
    same = graph_layout.compute_positions(["a", "b", "c"], [("a", "b"), ("b", "c")])
    assert same == graph_layout.compute_positions(["a", "b", "c"], [("a", "b"), ("b", "c")])


# -- deals -----------------------------------------------------------------------------


def test_deals_page_lists_the_deals_of_the_api(make_web):
    web = make_web()
    _, rival, _ = seed_rival(web.api)
    make_deal(web.api, prospectCompanyName="Globex", dealSize="$10k", decisionDate="2024-05-01")
    doc = lxml.html.fromstring(html(web.get("/deals")))
    api = ok(web.api.get("/api/deals"))["deals"]
    rows = doc.xpath("//table[@class='deals']/tbody/tr[starts-with(@id, 'deal-')]")
    assert [r.get("id") for r in rows] == [f"deal-{d['id']}" for d in api]
    globex = doc.xpath(f"//tr[@id='deal-{api[1]['id']}']")[0].text_content()
    assert "Globex" in globex and "$10k" in globex and "2024-05-01" in globex and "WON" in globex
    lost = doc.xpath(f"//tr[@id='deal-{api[0]['id']}']")[0]
    assert "LOST" in lost.text_content() and "Rival" in lost.text_content()
    assert lost.xpath(".//a")[0].get("href") == f"/competitors/{rival['id']}"
    filtered = lxml.html.fromstring(html(web.get(f"/deals?competitorId={rival['id']}")))
    assert len(filtered.xpath("//tr[starts-with(@id, 'deal-')]")) == 1


def test_editor_records_a_deal_through_the_form(make_web, make_workspace):
    workspace = make_workspace()
    owner = make_web(workspace=workspace)
    editor = make_web(workspace=workspace, role="EDITOR")
    rival = make_competitor(owner.api)["competitor"]
    answer = editor.post_form(
        "/deals",
        {
            "outcome": "LOST",
            "competitorId": rival["id"],
            "prospectCompanyName": "Initech",
            "prospectIndustry": "Software",
            "dealSize": "$50,000",
            "decisionDate": "2024-06-30",
            "arguments": "Price too high\r\n\r\n  Missing SSO  \n",
        },
    )
    assert answer.status_code == 302 and "created=" in answer.headers["Location"]
    (deal,) = ok(owner.api.get("/api/deals"))["deals"]
    assert deal["prospectCompanyName"] == "Initech" and deal["outcome"] == "LOST"
    assert deal["competitorId"] == rival["id"] and deal["dealSize"] == "$50,000"
    assert deal["arguments"] == ["Price too high", "Missing SSO"]
    assert deal["decisionDate"] == "2024-06-30" and deal["createdByUserId"] == editor.user_id
    assert "The deal was recorded" in html(editor.get(answer.headers["Location"]))
    # a WON deal with every optional field empty
    ok_won = editor.post_form("/deals", {"outcome": "WON", "prospectCompanyName": "Hooli"})
    assert ok_won.status_code == 302
    won = ok(owner.api.get("/api/deals"))["deals"][1]
    assert won["competitorId"] is None and won["arguments"] == [] and won["dealSize"] is None


def test_deal_form_errors_re_render_with_the_messages(make_web):
    web = make_web()
    rival = make_competitor(web.api)["competitor"]
    answer = web.post_form(
        "/deals",
        {"outcome": "LOST", "prospectCompanyName": "Umbrella", "arguments": "Too slow"},
    )
    text = html(answer, 400)
    doc = lxml.html.fromstring(text)
    assert "is required when outcome is LOST" in doc.xpath("//p[@id='err-competitorId']")[0].text
    assert doc.xpath("//input[@id='prospectCompanyName']")[0].get("value") == "Umbrella"
    assert doc.xpath("//textarea[@id='arguments']")[0].text == "Too slow"
    assert doc.xpath("//input[@id='outcome-lost']")[0].get("checked") is not None
    won = html(
        web.post_form(
            "/deals",
            {"outcome": "WON", "competitorId": rival["id"], "prospectCompanyName": "Acme"},
        ),
        400,
    )
    assert "must be null when outcome is WON" in won
    bad = html(web.post_form("/deals", {"outcome": "MAYBE", "decisionDate": "yesterday"}), 400)
    assert "err-outcome" in bad and "err-prospectCompanyName" in bad and "err-decisionDate" in bad
    assert ok(web.api.get("/api/deals"))["deals"] == []
    # without the CSRF token nothing is recorded
    missing = web.client.post("/deals", data={"outcome": "WON", "prospectCompanyName": "X"})
    assert missing.status_code == 400 and ok(web.api.get("/api/deals"))["deals"] == []


def test_viewer_sees_no_form_and_cannot_post(make_web, make_workspace):
    workspace = make_workspace()
    owner = make_web(workspace=workspace)
    viewer = make_web(workspace=workspace, role="VIEWER")
    make_deal(owner.api, prospectCompanyName="Visible Co")
    text = html(viewer.get("/deals"))
    assert "Visible Co" in text and "Record a deal" not in text
    assert not lxml.html.fromstring(text).xpath("//form[@method='post'][@action='/deals']")
    answer = viewer.post_form(
        "/deals", {"outcome": "WON", "prospectCompanyName": "Sneaky"}, csrf_from="/deals"
    )
    assert answer.status_code == 403
    assert [d["prospectCompanyName"] for d in ok(owner.api.get("/api/deals"))["deals"]] == [
        "Visible Co"
    ]
    assert "Record a deal" in html(owner.get("/deals"))


def test_win_rates_and_loss_reasons(make_web):
    web = make_web()
    alpha = make_competitor(web.api, name="Alpha", url="https://alpha.example")["competitor"]
    beta = make_competitor(web.api, name="Beta", url="https://beta.example")["competitor"]
    make_competitor(web.api, name="Gamma", url="https://gamma.example")  # no deal: left out
    lost = [
        (alpha, ["Price too high", "Missing SSO"]),
        (alpha, ["price too high.", "No mobile app"]),
        (beta, ["  Price   too high ", "Missing SSO"]),
        (beta, ["Missing SSO"]),
    ]
    for competitor, arguments in lost:
        make_deal(web.api, outcome="LOST", competitorId=competitor["id"], arguments=arguments)
    make_deal(web.api, arguments=["Beat Alpha on support"])
    make_deal(web.api, arguments=["alpha had no SSO", "Alphabet soup"])  # Alpha once
    make_deal(web.api, arguments=["Cheaper than BETA"])
    make_deal(web.api, arguments=["Great demo"])  # names nobody
    doc = lxml.html.fromstring(html(web.get("/deals")))
    big = doc.xpath("//p[@class='big']")[0].text_content()
    assert big == "50%"  # 4 won of 8
    rates = {
        r.xpath("./td")[0].text_content(): [t.text_content() for t in r.xpath("./td")[1:]]
        for r in doc.xpath("//table[@class='rates']/tbody/tr")
    }
    assert rates == {"Alpha": ["2", "2", "50%"], "Beta": ["1", "2", "33%"]}
    reasons = [
        (li.xpath("./span[@class='reason']")[0].text, li.xpath("./span")[1].text_content())
        for li in doc.xpath("//ol[@class='reasons']/li")
    ]
    assert [r for r, _ in reasons] == ["Price too high", "Missing SSO", "No mobile app"]
    assert reasons[0][1] == "× 3 · Alpha, Beta" and reasons[2][1] == "× 1 · Alpha"
    chart = doc.xpath("//svg[@class='chart']")[0]
    bars = chart.xpath(".//*[local-name()='rect'][contains(@class, 'bar')]")
    assert [b.get("width") for b in bars] == ["180.0", "120.0"]
    assert "Alpha 50%" in chart.xpath(".//*[local-name()='title']")[0].text_content()
    assert "style=" not in html(web.get("/deals"))


def test_deals_escape_hostile_text_and_ignore_foreign_ids(make_web):
    web = make_web()
    stranger = make_web()
    evil = make_competitor(web.api, name=HOSTILE, url="https://evil.example")["competitor"]
    make_deal(
        web.api,
        outcome="LOST",
        competitorId=evil["id"],
        prospectCompanyName=HOSTILE,
        arguments=[HOSTILE],
    )
    secret = make_competitor(stranger.api, name="Secretco", url="https://s.example")["competitor"]
    make_deal(
        stranger.api,
        outcome="LOST",
        competitorId=secret["id"],
        prospectCompanyName="Hidden deal",
        arguments=["secret reason"],
    )
    text = html(web.get("/deals"))
    assert HOSTILE not in text and text.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 4
    foreign = html(web.get(f"/deals?competitorId={secret['id']}"))
    assert "Hidden deal" not in foreign and "Secretco" not in foreign
    assert "secret reason" not in foreign
    # recording a deal against another workspace's competitor is refused like REST
    answer = web.post_form(
        "/deals",
        {"outcome": "LOST", "competitorId": secret["id"], "prospectCompanyName": "Try"},
    )
    assert "no such competitor in this workspace" in html(answer, 400)
