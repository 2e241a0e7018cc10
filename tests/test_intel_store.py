"""Intel items: recording evidence, change tracking, credibility, the FTS index in step."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ci_service.errors import NotFound, ValidationFailed
from ci_service.services.intel import items as intel
from ci_service.services.intel.items import credibility_score, site_of
from ci_service.services.workspace import competitors
from ci_service.store.db import connection, database
from ci_service.store.intel import IntelEmbedding, IntelItem
from tests.intel_helpers import competitor, evidence, fts_integrity, fts_rowids

PAGE = "Acme Cloud pricing.\nStarter plan costs 10 dollars.\nEnterprise plan on request."


def test_new_unchanged_changed(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id)
    first = evidence(ws.id, rival.id, "https://rival.example/pricing", PAGE)
    assert first.status == "new" and first.previous_id is None
    assert first.item.type == "EVIDENCE" and first.item.source_type == "WEB_PAGE"

    again = evidence(ws.id, rival.id, "https://rival.example/pricing", PAGE.replace(" ", "  "))
    assert again.status == "unchanged" and again.item.id == first.item.id
    with connection():
        assert IntelItem.select().count() == 1

    changed_text = PAGE.replace("10 dollars", "12 dollars") + "\nNew: a Team plan."
    changed = evidence(ws.id, rival.id, "https://rival.example/pricing", changed_text)
    assert changed.status == "changed" and changed.previous_id == first.item.id
    item = changed.item
    assert item.previous_item_id == first.item.id
    assert item.changes["added"] == ["Starter plan costs 12 dollars.", "New: a Team plan."]
    assert item.changes["removed"] == ["Starter plan costs 10 dollars."]
    assert item.changes["summary"] == "2 passages added, 1 removed"
    with connection():
        assert IntelItem.select().count() == 2
        assert IntelEmbedding.select().count() == 2
        # the newest version is the one compared next time
        assert evidence(ws.id, rival.id, "https://rival.example/pricing", changed_text).status == (
            "unchanged"
        )


def test_same_url_other_owner_is_a_separate_source(make_workspace):
    ws = make_workspace()
    a, b = competitor(ws.id, "A", "https://a.example"), competitor(ws.id, "B", "https://b.example")
    assert evidence(ws.id, a.id, "https://news.example/x", PAGE).status == "new"
    assert evidence(ws.id, b.id, "https://news.example/x", PAGE).status == "new"


def test_changes_are_bounded(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id)
    old = "\n".join(f"old line {i}" for i in range(100))
    new = "\n".join(f"new line {i} " + "x" * 500 for i in range(100))
    evidence(ws.id, rival.id, "https://rival.example/a", old, title="A")
    changes = evidence(ws.id, rival.id, "https://rival.example/a", new, title="B").item.changes
    assert len(changes["added"]) == 20 and len(changes["removed"]) == 20
    assert all(len(p) <= 300 for p in changes["added"])
    assert changes["addedCount"] == 100 and changes["titleChanged"] == {"from": "A", "to": "B"}


def test_record_evidence_errors(make_workspace):
    ws, other = make_workspace(), make_workspace()
    foreign = competitor(other.id)
    with pytest.raises(NotFound):
        evidence(ws.id, foreign.id, "https://x.example", "text")
    with pytest.raises(ValidationFailed):
        evidence(ws.id, None, "https://x.example", "text", source_type="INTERNAL_NOTE")
    with pytest.raises(ValidationFailed):
        evidence(ws.id, foreign.id, "https://x.example", "   ")


def test_offering_and_organization_scopes(make_workspace):
    from ci_service.services.workspace import offerings

    ws = make_workspace()
    rival = competitor(ws.id)
    with connection():
        offering = offerings.create_offering(
            ws.id, {"name": "O", "description": "d", "audience": "a"}, competitor_id=rival.id
        )
        result = intel.record_evidence(
            ws.id,
            source_type="DOCUMENT",
            url="https://rival.example/o.pdf#1",
            title="Datasheet",
            content="Datasheet text",
            offering_id=offering.id,
            scope="offering",
        )
        assert result.item.competitor_id == rival.id and result.item.offering_id == offering.id
        assert result.item.credibility_score == 0.85
        org_item = intel.record_evidence(
            ws.id,
            source_type="NEWS",
            url="https://news.example/us",
            title="About us",
            content="We launched",
            scope="organization",
        ).item
        assert org_item.competitor_id is None and org_item.scope == "organization"


@pytest.mark.parametrize(
    "source_type, url, site, published, expected",
    [
        ("WEB_PAGE", "https://www.rival.example/p", "https://rival.example", None, 0.9),
        ("WEB_PAGE", "https://docs.rival.example/p", "https://www.rival.example/", None, 0.9),
        ("WEB_PAGE", "https://blog.other.example/p", "https://rival.example", None, 0.6),
        ("WEB_PAGE", "https://rival.example/p", None, None, 0.75),
        ("WEB_PAGE", "http://rival.example/p", "https://rival.example", None, 0.85),
        ("DOCUMENT", "https://rival.example/a.pdf", "https://rival.example", None, 0.85),
        ("DOCUMENT", None, None, None, 0.85),
        ("NEWS", "https://news.example/a", "https://rival.example", None, 0.7),
        ("NEWS", "https://rival.example/press", "https://rival.example", None, 0.8),
        ("NEWS", "https://news.example/a", "https://rival.example", datetime(2025, 6, 1), 0.65),
        ("NEWS", "https://news.example/a", "https://rival.example", datetime(2020, 1, 1), 0.6),
        ("INTERNAL_NOTE", None, None, None, 0.6),
        ("WEB_PAGE", "https://shop.acme.co.uk/x", "https://acme.co.uk", None, 0.9),
    ],
)
def test_credibility_rule(source_type, url, site, published, expected):
    now = datetime(2026, 11, 1, tzinfo=UTC)
    published = published.replace(tzinfo=UTC) if published else None
    assert credibility_score(source_type, url, site, published, now=now) == expected


def test_site_of():
    assert site_of("https://WWW.Acme.com:8443/x") == "acme.com"
    assert site_of("https://a.b.acme.co.uk") == "acme.co.uk"
    assert site_of("not a url") is None


def test_fts_follows_insert_update_delete(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id)
    item = evidence(ws.id, rival.id, "https://rival.example/1", "Quantum widgets galore").item
    assert fts_rowids('"quantum widg"') == [item.seq]
    with connection():
        IntelItem.update(content="Plain gadgets").where(IntelItem.id == item.id).execute()
    assert fts_rowids('"quantum"') == []
    assert fts_rowids('"gadgets"') == [item.seq]
    with connection():
        intel.delete_intel(ws.id, item.id)
    assert fts_rowids('"gadgets"') == []
    fts_integrity()


def test_competitor_delete_takes_items_fts_and_vectors(make_workspace):
    ws = make_workspace()
    rival, other = competitor(ws.id), competitor(ws.id, "Other", "https://other.example")
    evidence(ws.id, rival.id, "https://rival.example/1", "Zebrafish platform")
    kept = evidence(ws.id, other.id, "https://other.example/1", "Zebrafish too").item
    assert len(fts_rowids('"zebrafish"')) == 2
    with connection():
        competitors.delete_competitor(ws.id, rival.id)
        assert IntelItem.select().count() == 1
        assert IntelEmbedding.select().count() == 1
    assert fts_rowids('"zebrafish"') == [kept.seq]
    fts_integrity()


def test_fk_cascade_alone_keeps_fts_in_step(make_workspace):
    """SQLite fires the delete trigger for ON DELETE CASCADE rows (no hook involved)."""
    ws = make_workspace()
    rival = competitor(ws.id)
    evidence(ws.id, rival.id, "https://rival.example/1", "Narwhal analytics")
    with connection():
        sql = f"DELETE FROM competitor WHERE id = {database.param}"
        database.execute_sql(sql, (rival.id,))
        assert IntelItem.select().count() == 0
    assert fts_rowids('"narwhal"') == []
    fts_integrity()


@pytest.mark.backends("sqlite")
def test_rebuild_fts(make_workspace, backend):
    ws = make_workspace()
    rival = competitor(ws.id)
    item = evidence(ws.id, rival.id, "https://rival.example/1", "Okapi insights").item
    with connection():
        database.execute_sql("INSERT INTO intel_fts(intel_fts) VALUES ('delete-all')")
    assert fts_rowids('"okapi"') == []
    with connection():
        intel.rebuild_intel_fts()
    assert fts_rowids('"okapi"') == [item.seq]
    fts_integrity()


def test_list_filters_and_order(make_workspace):
    ws = make_workspace()
    a, b = competitor(ws.id, "A", "https://a.example"), competitor(ws.id, "B", "https://b.example")
    first = evidence(ws.id, a.id, "https://a.example/1", "one").item
    second = evidence(ws.id, b.id, "https://b.example/1", "two").item
    with connection():
        note = intel.create_note(ws.id, {"content": "note", "competitorId": a.id}, user_id="u")
        ids = [i.id for i in intel.list_intel(ws.id)]
        assert ids == [note.id, second.id, first.id]
        assert [i.id for i in intel.list_intel(ws.id, competitor_id=a.id)] == [note.id, first.id]
        assert [i.id for i in intel.list_intel(ws.id, type="EVIDENCE")] == [second.id, first.id]
        assert [i.id for i in intel.list_intel(ws.id, ids=[first.id, "nope"])] == [first.id]
        assert [i.id for i in intel.list_intel(ws.id, limit=1, offset=1)] == [second.id]
        with pytest.raises(ValidationFailed):
            intel.list_intel(ws.id, type="NOPE")


def test_deleting_a_version_detaches_the_next(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id)
    first = evidence(ws.id, rival.id, "https://rival.example/v", "one").item
    second = evidence(ws.id, rival.id, "https://rival.example/v", "two").item
    with connection():
        intel.delete_intel(ws.id, first.id)
        assert IntelItem.get_by_id(second.id).previous_item_id is None
        with pytest.raises(NotFound):
            intel.delete_intel(ws.id, first.id)


def test_published_at_accepts_iso_text(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id)
    item = evidence(
        ws.id,
        rival.id,
        "https://n.example/1",
        "News",
        source_type="NEWS",
        published_at="2026-01-02T03:04:05Z",
    ).item
    assert intel.intel_to_dict(item)["publishedAt"] == "2026-01-02T03:04:05.000Z"
