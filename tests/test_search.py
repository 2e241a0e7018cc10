"""GET /api/search: order, limits, substring rules, FTS safety and index sync."""

from __future__ import annotations

import pytest

from ci_service.services.battlecards import cards as battlecards
from ci_service.store.db import connection, database
from tests.analysis_support import seed_rival
from tests.resource_helpers import error, make_competitor, make_product, ok

pytest_plugins = ["tests.jobs_fixtures"]


def search(api, q):
    return ok(api.get("/api/search", query_string={"q": q}))["results"]


def kinds(results):
    return [r["type"] for r in results]


def index_rows(kind=None):
    sql = "SELECT count(*) FROM search_doc" + (f" WHERE kind = {database.param}" if kind else "")
    with connection():
        return database.execute_sql(sql, [kind] if kind else []).fetchone()[0]


def fts_ok():
    """Each FTS table passes its integrity check and holds exactly its kind's documents
    (SQLite; on PostgreSQL search_doc's trigram index is part of the table)."""
    from ci_service.store.db import is_postgres

    if is_postgres():
        return
    with connection():
        for kind in ("competitor", "battlecard"):
            table = f"{kind}_fts"
            database.execute_sql(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
            docs = database.execute_sql(
                f"SELECT count(*) FROM search_doc d JOIN {table} f ON f.rowid = d.doc_id "
                "WHERE d.kind = ? AND f.text = d.text",
                [kind],
            ).fetchone()[0]
            assert database.execute_sql(f"SELECT count(*) FROM {table}").fetchone()[0] == docs
            assert index_rows(kind) == docs


@pytest.fixture
def seeded(make_api, runner):
    api = make_api(plan="PRO")
    product, rival, pages = seed_rival(api)
    with connection():
        card = battlecards.refresh_for_competitor(api.workspace_id, rival["id"])[0]
    return api, product, rival, pages, card


def test_order_shape_and_case(seeded):
    api, product, rival, pages, card = seeded
    results = search(api, "RIVAL")
    assert kinds(results) == ["competitor", "battlecard"] + ["intel"] * 4
    assert results[0] == {
        "type": "competitor",
        "id": rival["id"],
        "title": "Rival",
        "subtitle": "https://rival.example",
        "url": f"/competitors/{rival['id']}",
        "score": None,
    }
    assert results[1]["id"] == card.id and results[1]["url"] == f"/battlecards/{card.id}"
    assert results[1]["title"] == "Acme Cloud vs Rival (ATTACK)"
    assert {r["id"] for r in results[2:]} == set(pages.values())
    assert all(r["url"] == f"/intel/{r['id']}" and r["score"] is None for r in results[2:])
    # battlecards match kill shot / why-we-win text; intel matches content only
    only_card = search(api, "live, on the plan")
    assert kinds(only_card) == ["battlecard"]
    assert kinds(search(api, "sAmL SiNgLe")) == ["battlecard", "intel"]
    assert search(api, "Rival Integrations") == []  # an intel title, not content


def test_two_character_queries(seeded):
    api, _product, rival, _pages, card = seeded
    results = search(api, "RI")
    assert kinds(results)[:2] == ["competitor", "battlecard"] and "intel" in kinds(results)
    assert search(api, " $4 ")[0]["type"] in ("battlecard", "intel")
    assert search(api, "qx") == []
    make_competitor(api, name="Ünïcode Ltd", url="https://u.example")
    assert [r["title"] for r in search(api, "üN")] == ["Ünïcode Ltd"]
    assert [r["title"] for r in search(api, "ÜNÏC")] == ["Ünïcode Ltd"]


def test_twenty_results_at_most_filled_in_order(make_api):
    api = make_api()
    product = make_product(api)
    for n in range(22):
        make_competitor(api, name=f"Zeta {n:02d}", url=f"https://z{n}.example")
    results = search(api, "zeta")
    assert len(results) == 20 and kinds(results) == ["competitor"] * 20
    assert [r["title"] for r in results] == [f"Zeta {n:02d}" for n in range(20)]
    assert len(search(api, "ze")) == 20
    assert product


@pytest.mark.parametrize(
    "query", [{}, {"q": ""}, {"q": " a "}, {"q": "x" * 501}], ids=["none", "empty", "one", "long"]
)
def test_query_validation(make_api, query):
    api = make_api()
    body = error(api.get("/api/search", query_string=query), 400, "VALIDATION_ERROR")
    assert "q" in body["details"]["fields"]


@pytest.mark.parametrize(
    "query",
    ['"', '""', '"a', "*", "a*", "NEAR", "NEAR(a b)", "(", "(a", "-", "-a", "a -b", "AND",
     "OR", "NOT", "a:b", "^a", "'", "%", "_", "\\", "a\x00b", "col : x", "{a b}"],
)  # fmt: skip
def test_fts_syntax_never_errors(make_api, query):
    api = make_api()
    make_competitor(api, name='Odd "(name)*" -NEAR: 100%_ \\', url="https://odd.example")
    response = api.get("/api/search", query_string={"q": query})
    assert response.status_code in (200, 400), response.get_json()
    if response.status_code == 400:
        assert len(query.replace("\x00", "").strip()) < 2


@pytest.fixture
def odd_and_plain(make_api):
    """(api, id of a competitor named with FTS and LIKE operators); a plain one beside it."""
    api = make_api()
    odd = make_competitor(api, name='Odd "(name)*" -NEAR: 100%_', url="https://odd.example")
    make_competitor(api, name="Plain", url="https://plain.example")
    return api, odd["competitor"]["id"]


@pytest.mark.parametrize("query", ['"(name)*"', "-NEAR:", "100%_", "%_", '"(', "(n"])
def test_special_characters_match_literally(odd_and_plain, query):
    api, odd = odd_and_plain
    assert [r["id"] for r in search(api, query)] == [odd]


def test_percent_is_a_character_not_a_wildcard(odd_and_plain):
    api, _ = odd_and_plain
    assert search(api, "0%") and search(api, "%x") == []


def test_index_follows_competitor_rename_and_delete(seeded):
    api, _product, rival, _pages, card = seeded
    ok(api.patch(f"/api/competitors/{rival['id']}", json={"name": "Nemesis"}))
    assert [r["title"] for r in search(api, "nemesis")] == ["Nemesis"]
    assert "competitor" not in kinds(search(api, "rival"))
    ok(api.delete(f"/api/competitors/{rival['id']}"))
    assert search(api, "nemesis") == [] and search(api, "rival") == []
    assert index_rows() == 0
    fts_ok()


def test_index_follows_battlecard_regeneration_and_delete(seeded, runner):
    api, product, rival, _pages, card = seeded
    assert kinds(search(api, "live, on the plan")) == ["battlecard"]
    body = {"productId": product["id"], "mode": "DEFENSE"}
    ok(api.post(f"/api/battlecards/{rival['id']}/generate", json=body))
    runner.run_until_idle()
    assert search(api, "live, on the plan") == []
    assert kinds(search(api, "their strongest point")) == ["battlecard"]
    assert index_rows("battlecard") == 1
    ok(api.delete(f"/api/products/{product['id']}"))
    assert search(api, "their strongest point") == [] and index_rows("battlecard") == 0
    fts_ok()


def test_index_follows_intel_delete(seeded):
    api, _product, _rival, pages, _card = seeded
    assert [r["id"] for r in search(api, "slack and zapier")] == [pages["integrations"]]
    assert [r["id"] for r in search(api, "Zapier")] == [pages["integrations"]]
    ok(api.delete(f"/api/intel/{pages['integrations']}"))
    assert search(api, "slack and zapier") == [] and search(api, "Zapier") == []


def test_cascade_deletes_fire_the_index_triggers(seeded):
    api, _product, rival, _pages, _card = seeded
    assert index_rows("competitor") == 1 and index_rows("battlecard") == 1
    with connection():
        # No service code: a plain DELETE, the battlecard goes by ON DELETE CASCADE.
        sql = f"DELETE FROM competitor WHERE id = {database.param}"
        database.execute_sql(sql, [rival["id"]])
    assert index_rows() == 0
    assert search(api, "rival") == [] or kinds(search(api, "rival")) == []
    fts_ok()


def test_other_workspaces_never_appear(seeded, make_api):
    api, *_ = seeded
    other = make_api()
    make_competitor(other, name="Rival Two", url="https://two.example")
    assert kinds(search(other, "rival")) == ["competitor"]
    assert kinds(search(other, "ri")) == ["competitor"]
    assert "Rival Two" not in [r["title"] for r in search(api, "rival")]
    assert all(r["title"] != "Rival Two" for r in search(api, "ri"))


def test_rebuild_restores_the_index(seeded):
    from ci_service.store.analysis import rebuild_search_index
    from ci_service.store.db import transaction

    api, *_ = seeded
    with connection():
        database.execute_sql("DELETE FROM search_doc")
    assert search(api, "rival")[0]["type"] == "intel"
    with connection(), transaction():
        rebuild_search_index()
    assert kinds(search(api, "rival"))[:2] == ["competitor", "battlecard"]
    fts_ok()


ODD_TEXT = "Plan (USD) 1.5x + [beta] a|b \\path ^caret$ {2} ?q *star C++ e.g. #tag"


@pytest.mark.parametrize(
    "query",
    ["(usd)", "1.5x", "[BETA]", "a|b", "\\path", "^caret$", "{2}", "?q", "*star", "c++", "e.g.",
     "#tag", "plan (usd) 1.5x"],
)  # fmt: skip
def test_intel_special_characters_match_literally(make_api, query):
    # PostgreSQL matches an ASCII query as a regular expression (intel_search._pg_match):
    # none of its characters may act as an operator.
    api = make_api()
    odd = ok(api.post("/api/intel", json={"content": ODD_TEXT}))["intelItem"]["id"]
    ok(api.post("/api/intel", json={"content": "Plan USD 1x5x beta ab path caret 2 q star"}))
    assert [(r["type"], r["id"]) for r in search(api, query)] == [("intel", odd)]


@pytest.mark.parametrize("query", ["pla.", "usd.*star", "zzz|plan", "^plan", "[s]tar", "caret$"])
def test_intel_regex_operators_are_not_operators(make_api, query):
    # Each would match the text as a regular expression; as text it is not in it.
    api = make_api()
    ok(api.post("/api/intel", json={"content": ODD_TEXT.replace("^caret$", "caret!")}))
    assert search(api, query) == []


@pytest.mark.backends("postgresql")
@pytest.mark.parametrize(
    "query", ["49,99 €", "(netto)", "— café", "*NEU*", "[beta]", "a|b", "\\x", "^$", "{1}", "?"]
)
def test_regex_literal_matches_exactly_its_text(make_api, query):
    from ci_service.services.search.text import regex_literal

    make_api()  # a migrated database of this run
    text = "Preis: 49,99 € (netto) — Café *neu* [beta] a|b \\x ^$ {1} ?"
    sql = "SELECT %s ~* %s, %s ~* %s"
    with connection():
        found, elsewhere = database.execute_sql(
            sql, [text, regex_literal(query), "a.b ab x 1 11 beta", regex_literal(query)]
        ).fetchone()
    assert found and not elsewhere
