"""What the PostgreSQL backend adds, and the rules both backends share at the storage edge.

The rest of the suite runs on both backends (tests/conftest.py); these tests look at the
parts that exist because of PostgreSQL: column types, migrations from several processes at
once, the shared rate-limit counter, the vector index catching up with other processes'
writes, and text the database cannot hold.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from ci_service.services.identity.usage import SharedUsageTracker, UsageTracker, make_tracker
from ci_service.services.intel import index as intel_index
from ci_service.services.search import intel_search
from ci_service.store.db import (
    UnsupportedDatabase,
    close_database,
    connection,
    database,
    is_postgres,
    make_database,
    redact_url,
    storable_text,
)
from ci_service.store.migrations import applied_migrations
from tests.intel_helpers import competitor, evidence


def test_storable_text_drops_nul_and_replaces_lone_surrogates():
    assert storable_text("a\x00b") == "ab"
    assert storable_text("x\udaa7y") == "x\ufffdy"
    assert storable_text("héllo ✓") == "héllo ✓"
    assert storable_text("plain") == "plain"


def test_text_the_database_cannot_hold_is_cleaned_not_an_error(api):
    created = api.post(
        "/api/products",
        json={
            "name": "Nul\x00Name \udaa7",
            "description": "d",
            "audience": "a",
            "categories": [{"name": "Cat\x00egory"}],
        },
    )
    assert created.status_code == 200, created.get_data(as_text=True)
    product = created.get_json()["product"]
    again = api.get(f"/api/products/{product['id']}").get_json()["product"]
    assert again["name"] == "NulName \ufffd"
    assert again["categories"][0]["name"] == "Category"


def test_urls_name_the_backend_and_hide_passwords():
    assert redact_url("postgresql://ci:s3cret@db/ci") == "postgresql://ci:***@db/ci"
    assert redact_url("postgresql://ci@db/ci") == "postgresql://ci@db/ci"
    assert redact_url("./ci.db") == "./ci.db"
    with pytest.raises(UnsupportedDatabase, match="postgresql://"):
        make_database("mysql://db/ci")


@pytest.mark.backends("postgresql")
def test_column_types(app, backend):
    with connection():
        rows = database.execute_sql(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema()"
        ).fetchall()
    types = {(table, column): kind for table, column, kind in rows}
    assert types[("competitor", "company_profile")] == "jsonb"
    assert types[("intel_item", "credibility_score")] == "double precision"
    assert types[("competitor", "name")] == "text"
    assert "character varying" not in set(types.values())


@pytest.mark.backends("postgresql")
def test_processes_starting_at_once_migrate_once(make_database_url, backend):
    url = make_database_url(migrated=False)
    script = (
        "import json, sys\n"
        "from ci_service.store.db import close_database, database, open_database\n"
        "from ci_service.store.migrations import migrate\n"
        "db = open_database(sys.argv[1], pool_size=1)\n"
        "with db.connection_context():\n"
        "    print(json.dumps(migrate(db)))\n"
        "close_database(db)\n"
    )
    # open_database migrates; the second migrate() in each process must find nothing to do
    starts = [
        subprocess.Popen([sys.executable, "-c", script, url], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = [process.communicate(timeout=120)[0] for process in starts]
    assert [process.returncode for process in starts] == [0, 0, 0]
    assert [json.loads(out) for out in outputs] == [[], [], []]
    db = make_database(url, pool_size=1)
    with db.connection_context():
        names = applied_migrations(db)
    close_database(db)
    assert len(names) == len(set(names)) >= 13


@pytest.mark.backends("postgresql")
@pytest.mark.parametrize("limit, per_thread", [(10, 5), (100, 38)])
def test_rate_limit_is_exact_across_trackers(
    app, make_workspace, make_key, backend, limit, per_thread
):
    """Two trackers stand for two processes, 8 threads; at a limit of 100 a lease is more
    than one slot (services/identity/usage.py, tests/test_rate_limit_leases.py)."""
    assert isinstance(make_tracker(1.0), SharedUsageTracker)
    _key, row = make_key(make_workspace(), rate_limit=limit)
    trackers = [SharedUsageTracker(), SharedUsageTracker()]
    decisions = []
    lock = threading.Lock()

    def hit(n):
        with connection():
            for i in range(per_thread):
                decision = trackers[(n + i) % 2].hit(row.id, limit)
                with lock:
                    decisions.append(decision)

    threads = [threading.Thread(target=hit, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(decisions) == 8 * per_thread
    assert sum(d.allowed for d in decisions) == limit
    assert sorted(d.remaining for d in decisions if d.allowed) == list(range(limit))
    assert all(d.remaining == 0 for d in decisions if not d.allowed)


@pytest.mark.backends("sqlite")
def test_sqlite_counts_in_memory(app, backend):
    assert not is_postgres()
    assert type(make_tracker(1.0)) is UsageTracker


@pytest.mark.backends("postgresql")
def test_vector_index_catches_up_with_another_process(make_workspace, backend):
    ws = make_workspace()
    rival = competitor(ws.id)
    first = evidence(ws.id, rival.id, "https://rival.example/1", "Quokka analytics").item
    with connection():
        assert [r["id"] for r in intel_search.search_intel(ws.id, "quokka")] == [first.id]
    second = evidence(ws.id, rival.id, "https://rival.example/2", "Wombat storage").item
    # As if another process had written the second item: this process never heard of it.
    index = intel_index.workspace_index(ws.id)
    index.remove([second.id])
    index.stamp = 0
    assert index.get(second.id) is None
    with connection():
        found = intel_search.search_intel(ws.id, "wombat storage")
    assert found[0]["id"] == second.id
    assert index.get(second.id) is not None
    with connection():
        stamp = database.execute_sql("SELECT max(stamp) FROM intel_embedding").fetchone()[0]
    assert index.stamp == stamp
