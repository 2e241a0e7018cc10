"""A deal names the competitors in it (``competitorIds``, beyond the contract, issue 28):
REST create/patch/validation/isolation, the competitor delete, the graph, the win-rate
rule, the page form and the migration on a database that already holds deals."""

from __future__ import annotations

import lxml.html
import pytest

from ci_service.services.graph import nodes as graph_nodes
from ci_service.services.workspace import deal_stats
from ci_service.store import migrations
from ci_service.store.db import connection, database
from ci_service.store.graph import GraphEdge, GraphNode
from tests.resource_helpers import error, make_competitor, make_deal, ok
from tests.test_deal_write_statements import MAX_CREATE_STATEMENTS, Statements


@pytest.fixture
def rivals(api):
    """Three competitors of ``api``'s workspace: (north, south, east)."""
    return tuple(
        make_competitor(api, name=name, url=f"https://{name.lower()}.example")["competitor"]["id"]
        for name in ("Northwind", "Southgate", "Eastbay")
    )


def _deal(api, deal_id):
    return ok(api.get(f"/api/deals/{deal_id}"))["deal"]


def test_create_keeps_order_drops_repeats_and_puts_the_lost_one_first(api, rivals):
    north, south, east = rivals
    won = make_deal(api, competitorIds=[south, north, south])
    assert won["competitorId"] is None and won["competitorIds"] == [south, north]
    lost = make_deal(api, outcome="LOST", competitorId=east, competitorIds=[north, east])
    assert lost["competitorIds"] == [east, north]
    assert make_deal(api)["competitorIds"] == []
    assert make_deal(api, outcome="LOST", competitorId=south)["competitorIds"] == [south]
    listed = {d["id"]: d["competitorIds"] for d in ok(api.get("/api/deals"))["deals"]}
    assert listed[won["id"]] == [south, north] and listed[lost["id"]] == [east, north]
    assert _deal(api, won["id"]) == won


@pytest.mark.parametrize(
    "ids",  # NORTH: this workspace's competitor; FOREIGN: another workspace's
    [["nope"], ["NORTH", "FOREIGN"], "x", [""], [None]],
    ids=["unknown", "one-foreign", "not-a-list", "empty-id", "null-id"],
)
def test_unknown_or_foreign_ids_are_refused_on_create_and_patch(api, rivals, make_api, ids):
    north = rivals[0]
    foreign = make_competitor(make_api(), name="Elsewhere")["competitor"]["id"]
    if isinstance(ids, list):
        ids = [{"NORTH": north, "FOREIGN": foreign}.get(i, i) for i in ids]
    deal = make_deal(api, competitorIds=[north])
    body = {"prospectCompanyName": "P", "outcome": "WON", "competitorIds": ids}
    got = error(api.post("/api/deals", json=body), 400, "VALIDATION_ERROR")
    assert any(f.startswith("competitorIds") for f in got["details"]["fields"])
    got = error(
        api.patch(f"/api/deals/{deal['id']}", json={"competitorIds": ids}),
        400,
        "VALIDATION_ERROR",
    )
    assert any(f.startswith("competitorIds") for f in got["details"]["fields"])
    assert _deal(api, deal["id"])["competitorIds"] == [north]  # untouched
    assert len(ok(api.get("/api/deals"))["deals"]) == 1  # nothing half-written


def test_patch_rules(api, rivals):
    north, south, east = rivals
    deal = make_deal(api, competitorIds=[north])
    got = ok(api.patch(f"/api/deals/{deal['id']}", json={"competitorIds": [south, north]}))
    assert got["deal"]["competitorIds"] == [south, north]
    got = ok(api.patch(f"/api/deals/{deal['id']}", json={"arguments": ["faster rollout"]}))
    assert got["deal"]["competitorIds"] == [south, north]  # kept when not given
    lost = {"outcome": "LOST", "competitorId": east}
    got = ok(api.patch(f"/api/deals/{deal['id']}", json=lost))["deal"]
    assert got["competitorIds"] == [east, south, north]
    # a LOST competitor corrected to another: the old one was there only as competitorId
    got = ok(api.patch(f"/api/deals/{deal['id']}", json={"competitorId": north}))["deal"]
    assert got["competitorIds"] == [north, south]
    # the one lost to stays in the list even when the list given omits it
    got = ok(api.patch(f"/api/deals/{deal['id']}", json={"competitorIds": [east]}))["deal"]
    assert got["competitorIds"] == [north, east]
    # turned WON: whoever was in the deal stays in it
    won = {"outcome": "WON", "competitorId": None}
    got = ok(api.patch(f"/api/deals/{deal['id']}", json=won))["deal"]
    assert got["competitorId"] is None and got["competitorIds"] == [north, east]
    got = ok(api.patch(f"/api/deals/{deal['id']}", json={"competitorIds": []}))["deal"]
    assert got["competitorIds"] == []


def test_deleting_a_competitor_removes_it_from_deals(api, rivals):
    north, south, east = rivals
    won = make_deal(api, competitorIds=[north, south, east])
    lost = make_deal(api, outcome="LOST", competitorId=south, competitorIds=[east])
    other = make_deal(api, competitorIds=[east])
    ok(api.delete(f"/api/competitors/{south}"))
    assert _deal(api, won["id"])["competitorIds"] == [north, east]
    kept = _deal(api, lost["id"])
    assert kept["competitorId"] is None and kept["competitorIds"] == [east]
    assert _deal(api, other["id"])["competitorIds"] == [east]
    # the deal whose LOST competitor is gone can still be edited
    got = ok(api.patch(f"/api/deals/{lost['id']}", json={"dealSize": "12k"}))["deal"]
    assert got["competitorIds"] == [east]


def _against(workspace_id, deal_id):
    with connection():
        graph_nodes.up_to_date(workspace_id)  # what every read of the graph does first
        node = GraphNode.get(
            GraphNode.workspace == workspace_id, GraphNode.key == f"DEAL:{deal_id}"
        )
        edges = GraphEdge.select().where(
            GraphEdge.source == node.id, GraphEdge.label == "AGAINST_COMPETITOR"
        )
        return {GraphNode.get_by_id(e.target_id).ref_id for e in edges}


def test_each_competitor_in_the_deal_gets_the_graph_relationship(api, rivals):
    north, south, east = rivals
    deal = make_deal(api, competitorIds=[north, south])
    assert _against(api.workspace_id, deal["id"]) == {north, south}
    ok(api.patch(f"/api/deals/{deal['id']}", json={"competitorIds": [east]}))
    assert _against(api.workspace_id, deal["id"]) == {east}
    lost = {"outcome": "LOST", "competitorId": north}
    ok(api.patch(f"/api/deals/{deal['id']}", json=lost))
    assert _against(api.workspace_id, deal["id"]) == {north, east}


def test_a_won_deal_with_competitors_costs_no_more_statements(api, rivals, monkeypatch):
    body = {"prospectCompanyName": "Budget Co", "outcome": "WON", "competitorIds": list(rivals)}
    from ci_service.services.workspace import deals

    with connection():
        statements = Statements(monkeypatch)
        deals.create_deal(api.workspace_id, body)
        monkeypatch.undo()
    assert len(statements) <= MAX_CREATE_STATEMENTS, statements.sql


def test_win_rate_rule(api, rivals):
    north, south, east = rivals
    # Won against both named ones; the argument naming Eastbay does not count: the list,
    # when there is one, says who was in the deal.
    make_deal(api, competitorIds=[north, south], arguments=["Eastbay was slower"])
    # No list: the older rule (a competitor named in an argument).
    make_deal(api, arguments=["Beat Eastbay on price"])
    # Lost to Northwind with Southgate also in the deal: lost against both.
    make_deal(api, outcome="LOST", competitorId=north, competitorIds=[south])
    with connection():
        stats = deal_stats.deal_stats(api.workspace_id)
    rows = {r["name"]: (r["won"], r["lost"], r["winRate"]) for r in stats["competitors"]}
    assert rows == {"Northwind": (1, 1, 0.5), "Southgate": (1, 1, 0.5), "Eastbay": (1, 0, 1.0)}
    # the loss reasons still name only the competitor the deal was lost to
    make_deal(api, outcome="LOST", competitorId=east, competitorIds=[north], arguments=["No API"])
    with connection():
        reasons = deal_stats.deal_stats(api.workspace_id)["lossReasons"]
    assert reasons == [{"reason": "No API", "count": 1, "competitorIds": [east]}]


def test_migration_fills_the_list_of_existing_deals(api, rivals):
    north = rivals[0]
    lost = make_deal(api, outcome="LOST", competitorId=north)
    won = make_deal(api, arguments=["Northwind lagged"])
    name = "0021_deal_competitors"
    with connection():
        db = database.obj
        # The database as the release before made it: no column, the migration not applied.
        db.execute_sql('ALTER TABLE deal DROP COLUMN "competitor_ids"')
        db.execute_sql(f"DELETE FROM schema_migrations WHERE name = {db.param}", (name,))
        assert "competitor_ids" not in {c.name for c in db.get_columns("deal")}
        assert migrations.migrate(db) == [name]
        assert name in migrations.applied_migrations(db)
    assert _deal(api, lost["id"])["competitorIds"] == [north]
    assert _deal(api, won["id"])["competitorIds"] == []
    # and the column takes new writes
    assert make_deal(api, competitorIds=[north])["competitorIds"] == [north]


def _form(**extra):
    return {"prospectCompanyName": "Form Prospect", "outcome": "WON", **extra}


def test_page_form_records_the_competitors(make_web, make_api):
    web = make_web()
    north = make_competitor(web.api, name="Northwind")["competitor"]["id"]
    south = make_competitor(web.api, name="Southgate", url="https://s.example")["competitor"]
    doc = lxml.html.fromstring(web.get("/deals").get_data(as_text=True))
    box = doc.xpath(f"//input[@type='checkbox'][@name='competitorIds'][@value='{north}']")[0]
    assert doc.xpath(f"//label[@for='{box.get('id')}']")[0].text_content() == "Northwind"
    answer = web.post_form("/deals", _form(competitorIds=[south["id"], north]))
    assert answer.status_code == 302
    deal = ok(web.api.get("/api/deals"))["deals"][0]
    assert deal["competitorIds"] == [south["id"], north]
    page = lxml.html.fromstring(web.get("/deals").get_data(as_text=True))
    cell = page.xpath(f"//tr[@id='deal-{deal['id']}']/td[contains(@class, 'in-deal')]")[0]
    assert [a.text_content() for a in cell.xpath(".//a")] == ["Southgate", "Northwind"]
    rates = {
        r.xpath("./td")[0].text_content(): r.xpath("./td")[1].text_content()
        for r in page.xpath("//table[@class='rates']/tbody/tr")
    }
    assert rates == {"Northwind": "1", "Southgate": "1"}

    # another workspace's competitor: refused like REST, the boxes ticked stay ticked
    foreign = make_competitor(make_api(), name="Elsewhere")["competitor"]["id"]
    answer = web.post_form("/deals", _form(competitorIds=[north, foreign]))
    assert answer.status_code == 400
    again = lxml.html.fromstring(answer.get_data(as_text=True))
    assert again.xpath("//*[@id='err-competitorIds']")
    ticked = again.xpath("//input[@name='competitorIds'][@checked]/@value")
    assert ticked == [north]
    assert len(ok(web.api.get("/api/deals"))["deals"]) == 1
