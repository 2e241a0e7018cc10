"""Search paths issue 31 added for a million items: a competitor's common words are found
by reading its own items, with the same answer as the index's."""

from __future__ import annotations

from ci_service.services.search import intel_search
from ci_service.store.db import connection
from tests.intel_helpers import competitor, evidence


def test_competitor_walk_finds_what_the_index_finds(make_workspace, monkeypatch):
    ws = make_workspace()
    a = competitor(ws.id, "A", "https://a.example")
    b = competitor(ws.id, "B", "https://b.example")
    for n in range(7):
        for rival in (a, b):
            text = f"Item {n}: " + ("ANALYTICS suite" if n % 2 else "storage only")
            evidence(ws.id, rival.id, f"https://{rival.name}.example/{n}", text, title=f"T{n}")
    with connection():
        by_index = intel_search._newest_matching(ws.id, "analytics", a.id, 2)
        monkeypatch.setattr(intel_search, "DF_CAP", 1)  # every word counts as common
        monkeypatch.setattr(intel_search, "COMPETITOR_PAGE", 2)  # several pages
        intel_search._df_cache.clear()
        intel_search._newest_cache.clear()
        by_walk = intel_search._newest_matching(ws.id, "analytics", a.id, 2)
        everything = intel_search._newest_matching(ws.id, "analytics", a.id, 10)
        found = intel_search.search_intel(ws.id, "analytics suite", competitor_id=a.id)
    assert by_walk == by_index and len(by_walk) == 2
    assert len(everything) == 3 and everything == sorted(everything, reverse=True)
    assert all(r["competitorId"] == a.id for r in found)
    assert all("ANALYTICS" in r["content"] for r in found[:3])  # exact hits first


def test_newest_matches_are_cached_until_the_items_change(make_workspace, monkeypatch):
    ws = make_workspace()
    a = competitor(ws.id, "A", "https://a.example")
    evidence(ws.id, a.id, "https://a.example/1", "Quokka analytics", title="One")
    calls = []
    real = intel_search._index_newest_matching
    monkeypatch.setattr(
        intel_search, "_index_newest_matching", lambda *args: calls.append(args) or real(*args)
    )
    with connection():
        first = intel_search._newest_matching(ws.id, "quokka", None, 5)
        assert intel_search._newest_matching(ws.id, "quokka", None, 5) == first
        assert len(calls) == 1 and len(first) == 1
    evidence(ws.id, a.id, "https://a.example/2", "Quokka storage", title="Two")
    with connection():
        again = intel_search._newest_matching(ws.id, "quokka", None, 5)
    assert len(calls) == 2 and len(again) == 2 and again[1] == first[0]
