"""/api/intel: notes, lists, filters, errors and response schemas."""

from __future__ import annotations

import pytest

from ci_service.web.routes.intel import IntelListSchema, IntelResponseSchema
from tests.intel_helpers import evidence
from tests.resource_helpers import error, make_competitor, ok


def valid(schema, body):
    assert schema().validate(body) == {}, schema().validate(body)
    return body


def test_note_lifecycle(api):
    rival = make_competitor(api)["competitor"]
    body = ok(
        api.post(
            "/api/intel",
            json={"content": "They discount 30% in Q4", "title": "Q4", "competitorId": rival["id"]},
        )
    )
    valid(IntelResponseSchema, body)
    note = body["intelItem"]
    assert note["type"] == "INTERNAL_NOTE" and note["sourceType"] == "INTERNAL_NOTE"
    assert note["credibilityScore"] == 0.6 and note["competitorId"] == rival["id"]
    assert note["metadata"]["sourceType"] == "INTERNAL_NOTE"
    assert note["createdByUserId"] == api.user_id
    assert ok(api.get(f"/api/intel/{note['id']}"))["intelItem"] == note
    listed = valid(IntelListSchema, ok(api.get("/api/intel")))
    assert [i["id"] for i in listed["intelItems"]] == [note["id"]]
    assert ok(api.delete(f"/api/intel/{note['id']}")) == {"success": True}
    error(api.get(f"/api/intel/{note['id']}"), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "content"),
        ({"content": ""}, "content"),
        ({"content": "   "}, "content"),
        ({"content": 5}, "content"),
        ({"content": "x", "title": ["t"]}, "title"),
        ({"content": "x", "competitorId": 7}, "competitorId"),
        ({"content": "x", "competitorId": "missing"}, "competitorId"),
        ({"content": "x", "url": "ftp://x"}, "url"),
    ],
)
def test_note_validation(api, body, field):
    err = error(api.post("/api/intel", json=body), 400, "VALIDATION_ERROR")
    assert field in err["details"]["fields"], err


def test_note_for_foreign_competitor_is_400(make_api):
    mine, theirs = make_api(), make_api()
    foreign = make_competitor(theirs)["competitor"]["id"]
    err = error(
        mine.post("/api/intel", json={"content": "x", "competitorId": foreign}),
        400,
        "VALIDATION_ERROR",
    )
    assert "competitorId" in err["details"]["fields"]


def test_viewer_cannot_write(make_api, api):
    viewer = make_api(role="VIEWER", workspace=None)
    error(viewer.post("/api/intel", json={"content": "x"}), 403, "FORBIDDEN")
    note = ok(api.post("/api/intel", json={"content": "x"}))["intelItem"]
    error(viewer.delete(f"/api/intel/{note['id']}"), 403, "FORBIDDEN")
    assert ok(viewer.get("/api/intel"))["intelItems"] == []


def test_foreign_items_are_404(make_api):
    mine, theirs = make_api(), make_api()
    note = ok(theirs.post("/api/intel", json={"content": "secret"}))["intelItem"]
    error(mine.get(f"/api/intel/{note['id']}"), 404, "NOT_FOUND")
    error(mine.delete(f"/api/intel/{note['id']}"), 404, "NOT_FOUND")
    assert ok(mine.get("/api/intel"))["intelItems"] == []
    assert ok(theirs.get(f"/api/intel/{note['id']}"))


def test_list_filters(api):
    a = make_competitor(api, "A", "https://a.example")["competitor"]["id"]
    b = make_competitor(api, "B", "https://b.example")["competitor"]["id"]
    page = evidence(api.workspace_id, a, "https://a.example/", "Alpha page").item
    ok(api.post("/api/intel", json={"content": "b note", "competitorId": b}))
    body = valid(IntelListSchema, ok(api.get("/api/intel", query_string={"competitorId": a})))
    assert [i["id"] for i in body["intelItems"]] == [page.id]
    evidence_only = ok(api.get("/api/intel?type=EVIDENCE"))["intelItems"]
    assert [i["id"] for i in evidence_only] == [page.id]
    assert evidence_only[0]["credibilityScore"] == 0.9
    notes = ok(api.get("/api/intel?type=INTERNAL_NOTE"))["intelItems"]
    assert [n["competitorId"] for n in notes] == [b]
    assert len(ok(api.get("/api/intel?limit=1"))["intelItems"]) == 1
    assert len(ok(api.get("/api/intel?limit=1&offset=1"))["intelItems"]) == 1
    assert ok(api.get("/api/intel?competitorId=unknown"))["intelItems"] == []


@pytest.mark.parametrize(
    "query, field",
    [("type=NEWS", "type"), ("limit=-1", "limit"), ("limit=x", "limit"), ("offset=-2", "offset")],
)
def test_bad_list_filters(api, query, field):
    err = error(api.get(f"/api/intel?{query}"), 400, "VALIDATION_ERROR")
    assert field in err["details"]["fields"]


def test_changed_evidence_shows_changes(api):
    rival = make_competitor(api)["competitor"]["id"]
    evidence(api.workspace_id, rival, "https://rival.example/p", "Price is 10.")
    newer = evidence(api.workspace_id, rival, "https://rival.example/p", "Price is 12.").item
    body = valid(IntelResponseSchema, ok(api.get(f"/api/intel/{newer.id}")))
    assert body["intelItem"]["changes"]["added"] == ["Price is 12."]
    assert body["intelItem"]["previousItemId"] == newer.previous_item_id


def test_page_kind_is_a_field_and_a_filter(api):
    rival = make_competitor(api)["competitor"]
    url = rival["websiteUrl"].rstrip("/")
    pricing = evidence(
        api.workspace_id, rival["id"], url + "/costs", "Pro $49", page_kind="pricing"
    )
    evidence(api.workspace_id, rival["id"], url + "/privacy", "Our terms", page_kind="legal")
    note = ok(api.post("/api/intel", json={"content": "A note", "competitorId": rival["id"]}))
    listed = valid(IntelListSchema, ok(api.get("/api/intel?pageKind=pricing")))
    assert [i["id"] for i in listed["intelItems"]] == [pricing.item.id]
    assert listed["intelItems"][0]["pageKind"] == "pricing"
    assert ok(api.get(f"/api/intel/{note['intelItem']['id']}"))["intelItem"]["pageKind"] is None
    both = ok(api.get(f"/api/intel?competitorId={rival['id']}&pageKind=legal"))["intelItems"]
    assert [i["pageKind"] for i in both] == ["legal"]
    err = error(api.get("/api/intel?pageKind=brochure"), 400, "VALIDATION_ERROR")
    assert "pageKind" in err["details"]["fields"], err


def test_an_unchanged_page_read_as_another_kind_keeps_one_item(api):
    rival = make_competitor(api)["competitor"]
    url = rival["websiteUrl"].rstrip("/") + "/plans"
    first = evidence(api.workspace_id, rival["id"], url, "Plans from $9", page_kind="other")
    again = evidence(api.workspace_id, rival["id"], url, "Plans from $9", page_kind="pricing")
    assert again.status == "unchanged" and again.item.id == first.item.id
    assert ok(api.get(f"/api/intel/{first.item.id}"))["intelItem"]["pageKind"] == "pricing"
