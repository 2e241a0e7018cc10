"""/api/search's in-memory windows (services/search/window.py): exact after every write,
in this process and from another, equal to the SQL answers, and bounded in memory."""

from __future__ import annotations

import random

import pytest

from ci_service.services.battlecards import cards as battlecards
from ci_service.services.intel import items as intel
from ci_service.services.search import unified as search_service
from ci_service.services.search import window as search_window
from ci_service.services.search.window import TextWindow, WindowCache
from ci_service.store.db import connection, database, is_postgres, transaction
from tests.analysis_support import seed_rival
from tests.resource_helpers import make_competitor, ok

pytest_plugins = ["tests.jobs_fixtures"]

QUERIES = ["ri", "RI", "al", "qx", "Rival", "rIVAL", "sso", "saml single", "zapier", "an",
           "$4", "%_", "Ün", "nothing at all", "analytics", "s a", "ée"]  # fmt: skip


def search(api, q):
    return ok(api.get("/api/search", query_string={"q": q}))["results"]


def add_item(workspace_id, competitor_id, content, title="Note"):
    with connection():
        return intel.record_evidence(
            workspace_id,
            source_type="WEB_PAGE",
            url=f"https://rival.example/{random.random()}",
            title=title,
            content=content,
            competitor_id=competitor_id,
        ).item.id


@pytest.fixture
def seeded(make_api, runner):
    api = make_api(plan="PRO")
    _product, rival, pages = seed_rival(api)
    make_competitor(api, name="Ünïcode Ltd", url="https://u.example")
    with connection():
        battlecards.refresh_for_competitor(api.workspace_id, rival["id"])
    return api, rival, pages


# -- the window itself ------------------------------------------------------------------


def test_find_equals_a_naive_scan():
    rng = random.Random(7)
    alphabet = "abcAB日ßéÉ K\x00"
    docs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(400)]
    window = TextWindow((d, (i,)) for i, d in enumerate(docs))
    for _ in range(3000):
        needle = "".join(rng.choice(alphabet[:-1]) for _ in range(rng.randint(1, 5)))
        expected = [(i,) for i, d in enumerate(docs) if needle.casefold() in d.casefold()]
        assert window.find(needle, -1) == expected, needle
        assert window.find(needle, 2) == expected[:2], needle
    assert window.find("a\x00b", -1) == []  # a NUL would join two rows: never a match
    assert TextWindow([]).find("ab", 5) == []


@pytest.fixture
def trigrams_at_once(monkeypatch):
    """Row trigrams on windows of any size, from the first search that asks."""
    monkeypatch.setattr(search_window, "GRAMS_MIN_CHARS", 1)
    monkeypatch.setattr(search_window, "GRAMS_AFTER_SCANS", 1)


def test_row_trigrams_find_what_a_scan_finds(trigrams_at_once):
    rng = random.Random(11)
    for alphabet in ("ab K", "abcd K", "abcAB日ßéÉ Kxyz", "ab \u0130\u212a\ufb03"):
        docs = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(300)
        ]
        pairs = [(d, (i,)) for i, d in enumerate(docs)]
        grams, scan = TextWindow(pairs, grams=True), TextWindow(pairs)
        for _ in range(1500):
            needle = "".join(rng.choice(alphabet) for _ in range(rng.randint(3, 12)))
            source = rng.choice(docs)
            if rng.random() < 0.5 and len(source) >= 12:  # one that occurs, spaces and all
                at = rng.randint(0, len(source) - 12)
                needle = source[at : at + rng.randint(3, 12)]
            expected = scan.find(needle, -1)
            assert expected == [
                (i,) for i, d in enumerate(docs) if needle.casefold() in d.casefold()
            ]
            assert grams.find(needle, -1) == expected, (alphabet, needle)
            assert grams.find(needle, 3) == expected[:3], (alphabet, needle)
        assert grams.grams is not None


def test_row_trigrams_pick_the_rows_of_a_rare_needle(trigrams_at_once):
    docs = [f"card {n}: vendor{n % 50:04d} pricing and onboarding" for n in range(1000)]
    window = TextWindow([(d, (i,)) for i, d in enumerate(docs)], grams=True)
    assert window.find("VENDOR0021", -1) == [(i,) for i in range(21, 1000, 50)]
    runs = window.grams.runs("vendor0021")
    assert runs is not None and sum(last - first for first, last in runs) < 100
    assert window.grams.runs("pricing") is None  # in every row: the plain scan
    # A phrase of common words: the 9 characters around its space pick its rows.
    phrase = TextWindow(
        [(f"{'alpha beta' if n % 40 == 0 else 'beta alpha'} gamma {n}", (n,)) for n in range(800)],
        grams=True,
    )
    assert phrase.find("alpha beta", -1) == [(n,) for n in range(0, 800, 40)]
    runs = phrase.grams.runs("alpha beta")
    assert runs is not None and sum(last - first for first, last in runs) < 80
    assert window.find("ve", 2) == [(0,), (1,)]  # 2 characters: the scan
    assert window.size > TextWindow([(d, (i,)) for i, d in enumerate(docs)]).size


def test_row_trigrams_wait_for_repeated_searches(monkeypatch):
    # A small window has none (and no room planned for them).
    assert TextWindow([("tiny", (1,))], grams=True).size == TextWindow([("tiny", (1,))]).size
    monkeypatch.setattr(search_window, "GRAMS_MIN_CHARS", 1)
    window = TextWindow([(f"row {n} alpha beta", (n,)) for n in range(50)], grams=True)
    for _ in range(search_window.GRAMS_AFTER_SCANS - 1):
        assert window.find("row 7 ", -1) == [(7,)]
        assert window.grams is None
    assert window.find("row 7 ", -1) == [(7,)]
    assert window.grams is not None


def test_wide_text_uses_hashed_pairs():
    window = TextWindow([("Straße 日本語", (1,)), ("ÄÖÜ abc", (2,)), ("xyz", (3,))])
    assert window.find("STRASSE", -1) == [(1,)] and window.find("日本", -1) == [(1,)]
    assert window.find("äö", -1) == [(2,)] and window.find("語x", -1) == []
    narrow = TextWindow([("plain café", (1,))])
    assert narrow.find("CAFÉ", -1) == [(1,)] and narrow.find("日本", -1) == []


def test_cache_keeps_one_version_per_key_and_its_budget():
    small = TextWindow([("x" * 1000, (1,))])
    cache = WindowCache(budget_bytes=3 * small.size)
    cache.store(("w1", "battlecard"), 5, small)
    assert cache.lookup(("w1", "battlecard"), 5) is small
    assert cache.lookup(("w1", "battlecard"), 6) is None  # another version: a miss
    cache.store(("w1", "battlecard"), 4, TextWindow([]))  # older than what is there
    assert cache.lookup(("w1", "battlecard"), 5) is small
    for n in range(5):
        cache.store((f"w{n + 2}", "intel"), 1, TextWindow([("y" * 1000, (n,))]))
    assert cache.bytes <= cache.max_bytes and len(cache) == 3
    assert cache.lookup(("w1", "battlecard"), 5) is None  # least recently used went first


# -- exact through the API ---------------------------------------------------------------


def test_same_answers_as_sql(seeded, app):
    api, _rival, _pages = seeded
    with_windows = {q: search(api, q) for q in QUERIES}
    search_window.configure(0)
    try:
        assert {q: search(api, q) for q in QUERIES} == with_windows
    finally:
        search_window.configure(app.config["CI_SETTINGS"].search_cache_mb)


def test_window_over_its_cap_falls_back_to_sql(seeded, monkeypatch):
    api, _rival, _pages = seeded
    expected = {q: search(api, q) for q in QUERIES}
    monkeypatch.setattr(search_window, "WINDOW_MAX_CHARS", 10)
    with connection():
        database.execute_sql("UPDATE workspace SET data_version = data_version + 1")
    assert {q: search(api, q) for q in QUERIES} == expected


def test_windows_are_built_once_per_version(seeded, monkeypatch):
    api, rival, _pages = seeded
    loads = []
    real = search_service._WINDOW_LOADERS["competitor"]
    monkeypatch.setitem(
        search_service._WINDOW_LOADERS, "competitor", lambda ws: loads.append(ws) or real(ws)
    )
    ok(api.patch(f"/api/competitors/{rival['id']}", json={"name": "Rival Prime"}))
    for _ in range(3):
        assert search(api, "prime")[0]["title"] == "Rival Prime"
    assert len(loads) == 1
    ok(api.patch(f"/api/competitors/{rival['id']}", json={"name": "Rival Zed"}))
    assert search(api, "prime") == [] and search(api, "zed")[0]["title"] == "Rival Zed"
    assert len(loads) == 2


def test_read_after_write_for_every_kind(seeded, runner):
    api, rival, pages = seeded
    assert search(api, "qj") == []
    # intel: a 2-character query scans the newest items' window
    item_id = add_item(api.workspace_id, rival["id"], "Now with QJ export")
    assert [r["id"] for r in search(api, "qj")] == [item_id]
    ok(api.delete(f"/api/intel/{item_id}"))
    assert search(api, "qj") == []
    # competitors: created, renamed, deleted
    made = make_competitor(api, name="Qjord", url="https://qjord.example")["competitor"]
    assert [r["id"] for r in search(api, "qj")] == [made["id"]]
    ok(api.patch(f"/api/competitors/{made['id']}", json={"name": "Nord"}))
    assert search(api, "qj") == [] and search(api, "no")[0]["title"] == "Nord"
    ok(api.delete(f"/api/competitors/{made['id']}"))
    assert all(r["title"] != "Nord" for r in search(api, "no"))
    # battlecards: deleted by plain SQL (a cascade, a script): the triggers bump
    assert [r["type"] for r in search(api, "live, on the plan")] == ["battlecard"]
    with connection():
        database.execute_sql(
            f"DELETE FROM battlecard WHERE competitor_id = {database.param}", [rival["id"]]
        )
    assert search(api, "live, on the plan") == []


def test_a_write_from_another_process_is_seen(seeded, app):
    """The version lives in the database: a write through another connection (another
    process's) bumps it, and the next search rebuilds."""
    api, rival, _pages = seeded
    assert [r["title"] for r in search(api, "rival")][:1] == ["Rival"]
    url = app.config["CI_SETTINGS"].database
    if is_postgres():
        import psycopg2

        conn = psycopg2.connect(url)
        with conn, conn.cursor() as cursor:
            cursor.execute("UPDATE competitor SET name = 'Quux' WHERE id = %s", [rival["id"]])
        conn.close()
    else:
        import sqlite3

        from ci_service.store.db import sqlite_path

        conn = sqlite3.connect(sqlite_path(url))
        with conn:
            conn.execute("UPDATE competitor SET name = 'Quux' WHERE id = ?", [rival["id"]])
        conn.close()
    assert search(api, "quux")[0]["title"] == "Quux"
    assert search(api, "qu")[0]["title"] == "Quux"
    assert all(r["type"] != "competitor" for r in search(api, "rival"))


def test_rebuilding_the_index_bumps_versions(seeded):
    from ci_service.store.analysis import rebuild_search_index

    api, *_ = seeded
    assert search(api, "rival")[0]["type"] == "competitor"
    with connection():
        database.execute_sql("DELETE FROM search_doc")  # behind the triggers' back
    with connection(), transaction():
        rebuild_search_index()
    assert [r["type"] for r in search(api, "rival")][:2] == ["competitor", "battlecard"]


def test_workspaces_never_share_a_window(seeded, make_api):
    api, *_ = seeded
    other = make_api()
    make_competitor(other, name="Rival Two", url="https://two.example")
    assert [r["title"] for r in search(other, "ri")] == ["Rival Two"]
    assert "Rival Two" not in [r["title"] for r in search(api, "ri")]
