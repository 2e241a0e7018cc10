"""A deal is written in a handful of statements, and its graph nodes, written after it,
in a handful per batch of deals (issue 16, issue 31).

A functional guard, not a timing one: the statements sent to the database are counted by
wrapping ``execute_sql``, so a return to one statement per node or edge fails here. The
graph the statements leave behind is checked too.
"""

from __future__ import annotations

from collections import Counter

import pytest

from ci_service.services.graph import projection
from ci_service.services.workspace import deals
from ci_service.store.db import connection, database
from ci_service.store.graph import GraphEdge, GraphNode
from tests.resource_helpers import make_competitor, ok

# One LOST deal: begin, read the competitor, insert the deal; the deal.recorded event
# (insert, subscriptions; it joins the deal's transaction: no savepoint, and the
# competitor read once); on PostgreSQL the write lock. However many arguments it has, and
# no graph statement: its nodes are written after it (services/graph/projection.py).
MAX_CREATE_STATEMENTS = 7
# The waiting deals' graph, however many deals and arguments: begin, read the deals, their
# competitors, the nodes they share, one node upsert, one edge insert, clear the flags;
# on PostgreSQL the write lock.
MAX_PROJECTION_STATEMENTS = 9


class Statements:
    def __init__(self, monkeypatch):
        self.sql: list[str] = []
        db = database.obj
        original = db.execute_sql

        def counted(sql, params=None, *args, **kwargs):
            self.sql.append(sql)
            return original(sql, params, *args, **kwargs)

        monkeypatch.setattr(db, "execute_sql", counted)

    def __len__(self) -> int:
        return len(self.sql)


@pytest.fixture
def rival(api):
    return make_competitor(api)["competitor"]


def _body(rival, arguments):
    return {
        "prospectCompanyName": "Load Prospect 1",
        "outcome": "LOST",
        "competitorId": rival["id"],
        "decisionDate": "2026-03-31",
        "dealSize": "50000",
        "arguments": arguments,
    }


def _graph_of(workspace_id, deal_id):
    node = GraphNode.get(GraphNode.workspace == workspace_id, GraphNode.key == f"DEAL:{deal_id}")
    edges = GraphEdge.select().where(GraphEdge.source == node.id)
    return {(GraphNode.get_by_id(e.target_id).key, e.label) for e in edges}


@pytest.mark.parametrize("count", [3, 30])
def test_create_deal_statement_count_does_not_grow_with_arguments(api, rival, monkeypatch, count):
    ok(api.patch("/api/organizations", json={"name": "Us"}))  # adds the HAS_DEAL edge
    arguments = [f"reason {i}" for i in range(count)]
    with connection():
        statements = Statements(monkeypatch)
        row = deals.create_deal(api.workspace_id, _body(rival, arguments))
        monkeypatch.undo()
        assert len(statements) <= MAX_CREATE_STATEMENTS, statements.sql
        assert not any("graph_node" in sql or "graph_edge" in sql for sql in statements.sql)
        assert projection.pending_count(api.workspace_id) == 1

        statements = Statements(monkeypatch)
        assert projection.project_pending(api.workspace_id) == 1
        monkeypatch.undo()
        assert len(statements) <= MAX_PROJECTION_STATEMENTS, statements.sql
        assert projection.pending_count(api.workspace_id) == 0
        got = _graph_of(api.workspace_id, row.id)
    assert got == {
        ("PROSPECT:load prospect 1", "FOR_PROSPECT"),
        (f"COMPETITOR:{rival['id']}", "AGAINST_COMPETITOR"),
        *((f"ARGUMENT:{row.id}:{i}", "HAS_ARGUMENT") for i in range(count)),
    }
    edges = ok(api.get("/api/knowledge-graph"))["elements"]["edges"]
    assert Counter(e["data"]["label"] for e in edges)["HAS_DEAL"] == 1


def test_many_waiting_deals_take_the_same_statements_as_one(api, rival, monkeypatch):
    other = make_competitor(api, name="Other", url="https://other.example")["competitor"]
    made = []
    for n in range(40):
        body = _body(rival if n % 2 else other, [f"reason {i}" for i in range(n % 5)])
        body["prospectCompanyName"] = f"Prospect {n % 7}"
        made.append(ok(api.post("/api/deals", json=body))["deal"]["id"])
    with connection():
        assert projection.pending_count(api.workspace_id) == 40
        statements = Statements(monkeypatch)
        assert projection.project_pending(api.workspace_id) == 40
        monkeypatch.undo()
        assert len(statements) <= MAX_PROJECTION_STATEMENTS, statements.sql
        prospects = GraphNode.select().where(
            GraphNode.workspace == api.workspace_id, GraphNode.ref_type == "prospect"
        )
        assert sorted(n.name for n in prospects) == [f"Prospect {i}" for i in range(7)]
        assert all(_graph_of(api.workspace_id, deal_id) for deal_id in made)


def test_update_deal_statements_stay_bounded(api, rival):
    other = make_competitor(api, name="Other", url="https://other.example")["competitor"]
    deal = ok(api.post("/api/deals", json=_body(rival, [f"r{i}" for i in range(20)])))["deal"]
    ok(api.post("/api/deals", json={"prospectCompanyName": "Kept", "outcome": "WON"}))
    body = {"prospectCompanyName": "Kept", "competitorId": other["id"], "arguments": ["only"]}
    with connection(), pytest.MonkeyPatch.context() as monkeypatch:
        statements = Statements(monkeypatch)
        deals.update_deal(api.workspace_id, deal["id"], body)
    # get, competitor, save, nodes, upsert, edges read, stale edges, new edges, the 19
    # dropped arguments (their edges, the nodes), the old prospect's prune; + PG lock.
    assert len(statements) <= 12, statements.sql
    with connection():
        got = _graph_of(api.workspace_id, deal["id"])
        prospects = {
            n.key
            for n in GraphNode.select().where(
                GraphNode.workspace == api.workspace_id, GraphNode.ref_type == "prospect"
            )
        }
    assert got == {
        ("PROSPECT:kept", "FOR_PROSPECT"),
        (f"COMPETITOR:{other['id']}", "AGAINST_COMPETITOR"),
        (f"ARGUMENT:{deal['id']}:0", "HAS_ARGUMENT"),
    }
    assert prospects == {"PROSPECT:kept"}  # the old prospect lost its last deal
