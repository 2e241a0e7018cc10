"""A deal's graph nodes are written after the deal (issue 31; services/graph/projection.py):
whoever reads the graph finds them, the projector thread writes them soon after the
commit, many deals at a time give the graph one deal at a time would, and no deal is
left waiting or written twice."""

from __future__ import annotations

from ci_service.services.graph import nodes as graph_nodes
from ci_service.services.graph import projection
from ci_service.store import migrations
from ci_service.store.db import connection, database
from ci_service.store.graph import GraphEdge, GraphNode
from tests.resource_helpers import make_competitor, make_deal, ok
from tests.waiting import wait_for


def _pending(api) -> int:
    with connection():
        return projection.pending_count(api.workspace_id)


def _graph(api) -> tuple[set, set]:
    """The workspace's graph with node ids replaced by keys."""
    with connection():
        nodes = list(GraphNode.select().where(GraphNode.workspace == api.workspace_id))
        key = {n.id: n.key for n in nodes}
        edges = GraphEdge.select().where(GraphEdge.workspace == api.workspace_id)
        return (
            {(key[n.id], n.label, n.name, n.ref_type) for n in nodes},
            {(key[e.source_id], e.label, key[e.target_id]) for e in edges},
        )


def _deal_bodies(rival_id: str) -> list[dict]:
    return [
        {"prospectCompanyName": "Acme", "outcome": "LOST", "competitorId": rival_id,
         "arguments": ["price", "support"]},
        {"prospectCompanyName": "ACME ", "outcome": "WON", "arguments": ["speed"]},
        {"prospectCompanyName": "Globex", "outcome": "WON", "competitorIds": [rival_id]},
        {"prospectCompanyName": "Initech", "outcome": "LOST", "competitorId": rival_id},
    ]  # fmt: skip


def test_a_new_deal_waits_and_any_graph_read_writes_it(api):
    rival = make_competitor(api)["competitor"]
    deal = make_deal(api, outcome="LOST", competitorId=rival["id"], arguments=["price"])
    assert _pending(api) == 1
    nodes = ok(api.get("/api/knowledge-graph"))["elements"]["nodes"]
    assert {"Prospect Co (LOST)", "Prospect Co", "price", "Rival"} <= {
        n["data"]["name"] for n in nodes
    }
    assert _pending(api) == 0
    with connection():
        assert graph_nodes.find_node(api.workspace_id, f"DEAL:{deal['id']}") is not None


def test_the_graph_page_and_counts_catch_up_too(make_web):
    web = make_web()
    make_deal(web.api, arguments=["fast"])
    assert _pending(web.api) == 1
    page = web.client.get("/graph")
    assert page.status_code == 200
    assert "Prospect Co (WON)" in page.get_data(as_text=True)
    assert _pending(web.api) == 0


def test_many_deals_at_once_give_the_graph_of_one_at_a_time(make_api):
    one_by_one, batched = make_api(), make_api()
    for api in (one_by_one, batched):
        ok(api.patch("/api/organizations", json={"name": "Us"}))
        rival = make_competitor(api)["competitor"]["id"]
        for body in _deal_bodies(rival):
            ok(api.post("/api/deals", json=body))
            if api is one_by_one:
                with connection():
                    assert projection.project_pending(api.workspace_id) == 1
    assert _pending(batched) == 4
    with connection():
        assert projection.project_pending(batched.workspace_id) == 4
    nodes, edges = _graph(batched)
    alone_nodes, alone_edges = _graph(one_by_one)

    def without_ids(found):  # the deal and competitor keys hold ids of their own
        return sorted((label, name, ref) for _key, label, name, ref in found)

    assert without_ids(nodes) == without_ids(alone_nodes)
    assert sorted(e[1] for e in edges) == sorted(e[1] for e in alone_edges)
    # one prospect node for "Acme" and "ACME ", named as the later deal writes it
    prospects = sorted(name for _k, _label, name, ref in nodes if ref == "prospect")
    assert prospects == ["ACME", "Globex", "Initech"]
    assert ("ORGANIZATION:own", "HAS_DEAL") in {(s, label) for s, label, _t in edges}


def test_editing_or_deleting_a_waiting_deal_settles_it(api):
    rival = make_competitor(api)["competitor"]
    edited = make_deal(api, arguments=["one"])
    deleted = make_deal(api, prospectCompanyName="Gone Co", arguments=["two"])
    assert _pending(api) == 2
    body = {"outcome": "LOST", "competitorId": rival["id"], "arguments": ["new"]}
    ok(api.patch(f"/api/deals/{edited['id']}", json=body))
    ok(api.delete(f"/api/deals/{deleted['id']}"))
    assert _pending(api) == 0
    nodes = {n["data"]["name"] for n in ok(api.get("/api/knowledge-graph"))["elements"]["nodes"]}
    assert {"Prospect Co (LOST)", "new"} <= nodes
    assert not {"Gone Co", "Gone Co (WON)", "two", "one"} & nodes


def test_the_projector_writes_deals_soon_after_their_commit(api):
    projector = projection.DealProjector().start()
    try:
        for n in range(12):
            make_deal(api, prospectCompanyName=f"Busy {n}", arguments=[f"reason {n}"])
        wait_for(lambda: _pending(api) == 0, message="the projector to write the deals")
        with connection():
            names = {
                n.name
                for n in GraphNode.select().where(
                    GraphNode.workspace == api.workspace_id, GraphNode.label == "DEAL"
                )
            }
        assert names == {f"Busy {n} (WON)" for n in range(12)}
        assert projector.runs >= 1
    finally:
        projector.stop()


def test_deals_left_waiting_by_a_stopped_process_are_written_at_start(api):
    for n in range(3):
        make_deal(api, prospectCompanyName=f"Left {n}")
    assert _pending(api) == 3  # no projector ran: as after a crash right after the commits
    projector = projection.DealProjector().start()
    try:
        wait_for(lambda: _pending(api) == 0, message="the first run to write the deals")
    finally:
        projector.stop()


def test_stopping_the_projector_leaves_nothing_waiting(api):
    projector = projection.DealProjector().start()
    wait_for(lambda: projector._thread is not None)
    projection._wake.clear()
    # made with the projector running; stop() then runs it a last time before it ends
    for n in range(5):
        make_deal(api, prospectCompanyName=f"Late {n}")
    projector.stop()
    assert _pending(api) == 0


def test_the_migration_adds_the_flag_to_a_database_with_deals(api):
    deal = make_deal(api, arguments=["kept"])
    ok(api.get("/api/knowledge-graph"))  # written, as every deal of the release before was
    name = "0024_deal_graph_pending"
    with connection():
        db = database.obj
        # The database as the release before made it: no index, no column, not applied.
        db.execute_sql("DROP INDEX deal_graph_pending")
        db.execute_sql('ALTER TABLE deal DROP COLUMN "graph_pending"')
        db.execute_sql(f"DELETE FROM schema_migrations WHERE name = {db.param}", (name,))
        assert migrations.migrate(db) == [name]
        assert projection.pending_count() == 0  # old deals have their nodes already
        assert name in migrations.applied_migrations(db)
    # the column takes new writes, and the old deal is still in the graph once
    make_deal(api, prospectCompanyName="After Co")
    assert _pending(api) == 1
    nodes = [n["data"]["name"] for n in ok(api.get("/api/knowledge-graph"))["elements"]["nodes"]]
    assert nodes.count("Prospect Co (WON)") == 1 and "After Co (WON)" in nodes
    assert _pending(api) == 0 and deal["id"]
