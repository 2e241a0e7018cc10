"""Analysis tables: matrix cells, solution matrix cells, battlecards and the search index.

Search index: ``search_doc`` holds one row per searchable competitor (its name) and
battlecard (its kill shot, landmines, pricing wedge, why-we-win and why-we-lose text),
keyed by an INTEGER PRIMARY KEY so the ids survive VACUUM. ``competitor_fts`` and
``battlecard_fts`` are FTS5 tables with the ``trigram`` tokenizer (substring matching)
whose rowid is that ``doc_id``, one per kind so that a query for one kind never walks the
other's matches. Everything is kept in step by SQLite triggers, inside the transaction
that writes the source row:

- ``competitor`` insert / rename / delete -> ``search_doc`` (the competitor service is not
  this module's, so triggers rather than explicit writes);
- ``battlecard`` insert / ``search_text`` change / delete -> ``search_doc``;
- ``search_doc`` insert / update / delete -> ``competitor_fts`` or ``battlecard_fts``.

SQLite fires delete triggers for rows removed by ``ON DELETE CASCADE`` as well
(tests/test_search.py checks it), so deleting a workspace, a competitor or a product
cleans the index too. ``rebuild_search_index()`` rebuilds all three from the sources.
"""

from __future__ import annotations

from peewee import CharField, FloatField, ForeignKeyField, IntegerField, TextField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.competitors import Competitor
from ci_service.store.engine import database, is_postgres
from ci_service.store.identity import Workspace
from ci_service.store.resources import Offering, Solution
from ci_service.timeutil import utcnow

CAPABILITY_STATUSES = ("SUPERIOR", "MATCH", "INFERIOR", "UNKNOWN")
BATTLECARD_MODES = ("ATTACK", "DEFENSE")
BATTLECARD_STATUSES = ("GENERATING", "READY", "FAILED")


class MatrixCell(BaseModel):
    """One competitor x one of our products x one category."""

    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    competitor = ForeignKeyField(Competitor, on_delete="CASCADE")
    product = ForeignKeyField(Offering, on_delete="CASCADE")
    category_id = CharField(max_length=64)
    category_name = CharField(max_length=200)
    summary = JSONField(default=list)
    capability_status = CharField(max_length=20, default="UNKNOWN")
    evidence_ids = JSONField(default=list)
    # {matched, theirsOnly, oursOnly, soon}: see services/analysis/matrix_features.py (0020).
    features = JSONField(null=True)
    updated_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = (
            (("competitor", "product", "category_id"), True),
            (("workspace", "product"), False),
        )


class SolutionCell(BaseModel):
    """One solution x one competitor: the weighted level of the mapped category cells."""

    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    solution = ForeignKeyField(Solution, on_delete="CASCADE")
    competitor = ForeignKeyField(Competitor, on_delete="CASCADE")
    aggregated_score = IntegerField()
    raw_score = FloatField()  # the weighted mean before rounding
    contributing_category_ids = JSONField(default=list)  # matrix cell ids
    evidence_ids = JSONField(default=list)
    last_refreshed_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("solution", "competitor"), True), (("workspace", "competitor"), False))


class Battlecard(BaseModel):
    """One card per (competitor, our product); regenerating replaces its content and mode."""

    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    competitor = ForeignKeyField(Competitor, on_delete="CASCADE")
    my_product = ForeignKeyField(Offering, on_delete="CASCADE")
    mode = CharField(max_length=10, default="ATTACK")
    requested_mode = CharField(max_length=10, null=True)  # while a generation is pending
    status = CharField(max_length=20, default="GENERATING")
    content = JSONField(default=dict)
    evidence_ids = JSONField(default=list)
    # Hand edits, re-applied on every regeneration (services/battlecards/edits.py).
    edits = JSONField(default=list)
    search_text = TextField(default="")  # what /api/search matches (see search_doc)
    error = TextField(null=True)
    generated_at = UTCDateTimeField(null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = (
            (("competitor", "my_product"), True),
            (("workspace", "updated_at"), False),
        )


KINDS = ("competitor", "battlecard")


def _fts_sql(kind: str) -> tuple[str, ...]:
    table = f"{kind}_fts"
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(text, tokenize='trigram')",
        f"CREATE TRIGGER IF NOT EXISTS search_doc_{kind}_ai AFTER INSERT ON search_doc "
        f"WHEN new.kind = '{kind}' BEGIN "
        f"INSERT INTO {table}(rowid, text) VALUES (new.doc_id, new.text); END",
        f"CREATE TRIGGER IF NOT EXISTS search_doc_{kind}_ad AFTER DELETE ON search_doc "
        f"WHEN old.kind = '{kind}' BEGIN DELETE FROM {table} WHERE rowid = old.doc_id; END",
        f"CREATE TRIGGER IF NOT EXISTS search_doc_{kind}_au AFTER UPDATE OF text ON search_doc "
        f"WHEN new.kind = '{kind}' BEGIN DELETE FROM {table} WHERE rowid = old.doc_id; "
        f"INSERT INTO {table}(rowid, text) VALUES (new.doc_id, new.text); END",
    )


SEARCH_SQL = (
    "CREATE TABLE IF NOT EXISTS search_doc ("
    "doc_id INTEGER PRIMARY KEY, kind TEXT NOT NULL, ref_id TEXT NOT NULL, "
    "workspace_id TEXT NOT NULL, text TEXT NOT NULL DEFAULT '')",
    "CREATE UNIQUE INDEX IF NOT EXISTS search_doc_ref ON search_doc (kind, ref_id)",
    "CREATE INDEX IF NOT EXISTS search_doc_ws ON search_doc (workspace_id, kind)",
    # search_doc -> competitor_fts / battlecard_fts (one index per kind, so a query for
    # one kind never walks the other's matches)
    *_fts_sql("competitor"),
    *_fts_sql("battlecard"),
    # competitor -> search_doc
    "CREATE TRIGGER IF NOT EXISTS competitor_search_ai AFTER INSERT ON competitor BEGIN "
    "INSERT INTO search_doc(kind, ref_id, workspace_id, text) "
    "VALUES ('competitor', new.id, new.workspace_id, new.name); END",
    "CREATE TRIGGER IF NOT EXISTS competitor_search_au AFTER UPDATE OF name ON competitor "
    "BEGIN UPDATE search_doc SET text = new.name "
    "WHERE kind = 'competitor' AND ref_id = old.id; END",
    "CREATE TRIGGER IF NOT EXISTS competitor_search_ad AFTER DELETE ON competitor BEGIN "
    "DELETE FROM search_doc WHERE kind = 'competitor' AND ref_id = old.id; END",
    # battlecard -> search_doc
    "CREATE TRIGGER IF NOT EXISTS battlecard_search_ai AFTER INSERT ON battlecard BEGIN "
    "INSERT INTO search_doc(kind, ref_id, workspace_id, text) "
    "VALUES ('battlecard', new.id, new.workspace_id, new.search_text); END",
    # Re-inserted rather than updated: a new doc_id, so doc_id order is "most recently
    # written first" and the search can stop after the first matches it needs.
    "CREATE TRIGGER IF NOT EXISTS battlecard_search_au AFTER UPDATE OF search_text "
    "ON battlecard BEGIN DELETE FROM search_doc WHERE kind = 'battlecard' AND ref_id = old.id; "
    "INSERT INTO search_doc(kind, ref_id, workspace_id, text) "
    "VALUES ('battlecard', new.id, new.workspace_id, new.search_text); END",
    "CREATE TRIGGER IF NOT EXISTS battlecard_search_ad AFTER DELETE ON battlecard BEGIN "
    "DELETE FROM search_doc WHERE kind = 'battlecard' AND ref_id = old.id; END",
)


# PostgreSQL: the same search_doc table kept by plpgsql triggers, and one pg_trgm index on
# its text instead of the per-kind FTS5 tables.
PG_SEARCH_SQL = (
    "CREATE TABLE IF NOT EXISTS search_doc ("
    "doc_id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, ref_id TEXT NOT NULL, "
    "workspace_id TEXT NOT NULL, text TEXT NOT NULL DEFAULT '')",
    "CREATE UNIQUE INDEX IF NOT EXISTS search_doc_ref ON search_doc (kind, ref_id)",
    "CREATE INDEX IF NOT EXISTS search_doc_ws ON search_doc (workspace_id, kind)",
    "CREATE INDEX IF NOT EXISTS search_doc_text_trgm ON search_doc USING gin (text gin_trgm_ops)",
    "CREATE OR REPLACE FUNCTION ci_competitor_search_doc() RETURNS trigger "
    "LANGUAGE plpgsql AS $body$ BEGIN "
    "IF TG_OP = 'INSERT' THEN "
    "INSERT INTO search_doc(kind, ref_id, workspace_id, text) "
    "VALUES ('competitor', NEW.id, NEW.workspace_id, NEW.name); "
    "ELSIF TG_OP = 'UPDATE' THEN "
    "UPDATE search_doc SET text = NEW.name WHERE kind = 'competitor' AND ref_id = OLD.id; "
    "ELSE DELETE FROM search_doc WHERE kind = 'competitor' AND ref_id = OLD.id; "
    "END IF; RETURN NULL; END $body$",
    "CREATE TRIGGER competitor_search_doc AFTER INSERT OR DELETE OR UPDATE OF name "
    "ON competitor FOR EACH ROW EXECUTE FUNCTION ci_competitor_search_doc()",
    # Re-inserted on update, as on SQLite: doc_id order is "most recently written first".
    "CREATE OR REPLACE FUNCTION ci_battlecard_search_doc() RETURNS trigger "
    "LANGUAGE plpgsql AS $body$ BEGIN "
    "IF TG_OP <> 'INSERT' THEN "
    "DELETE FROM search_doc WHERE kind = 'battlecard' AND ref_id = OLD.id; END IF; "
    "IF TG_OP <> 'DELETE' THEN "
    "INSERT INTO search_doc(kind, ref_id, workspace_id, text) "
    "VALUES ('battlecard', NEW.id, NEW.workspace_id, NEW.search_text); END IF; "
    "RETURN NULL; END $body$",
    "CREATE TRIGGER battlecard_search_doc AFTER INSERT OR DELETE OR UPDATE OF search_text "
    "ON battlecard FOR EACH ROW EXECUTE FUNCTION ci_battlecard_search_doc()",
)


def create_search_index(db) -> None:
    if is_postgres(db):
        from ci_service.store.intel import ensure_pg_trgm

        ensure_pg_trgm(db)
        statements = PG_SEARCH_SQL
    else:
        statements = SEARCH_SQL
    for statement in statements:
        db.execute_sql(statement)
    _fill_search_doc(db)


def _fill_search_doc(db) -> None:
    # Rows already indexed are skipped (ON CONFLICT DO NOTHING: both backends).
    for kind, text in (("competitor", "name"), ("battlecard", "search_text")):
        db.execute_sql(
            "INSERT INTO search_doc(kind, ref_id, workspace_id, text) "
            f"SELECT '{kind}', id, workspace_id, {text} FROM {kind} WHERE true "
            "ON CONFLICT (kind, ref_id) DO NOTHING"
        )


def rebuild_search_index() -> None:
    """Rebuild ``search_doc`` (and, on SQLite, the per-kind FTS tables) from competitors
    and battlecards (call in a transaction; e.g. after a restore or a bulk load that
    bypassed the triggers)."""
    database.execute_sql("DELETE FROM search_doc")
    if not is_postgres():
        for kind in KINDS:
            database.execute_sql(f"DELETE FROM {kind}_fts")
    _fill_search_doc(database)
    # search_doc writes do not bump data versions (store/data_version.py); /api/search
    # keeps windows of it per version (services/search/window.py), so say it changed.
    database.execute_sql("UPDATE workspace SET data_version = data_version + 1")
