"""Intel items (evidence and internal notes), their embeddings and the full-text index.

``intel_fts`` is an FTS5 table with the ``trigram`` tokenizer over ``title`` and
``content``. It is an *external content* table (``content='intel_item'``) keyed by the
item's ``seq`` integer, so the text is stored once. Triggers on ``intel_item`` keep it in
step inside the writing transaction; SQLite fires them for foreign-key cascade deletes too
(tests/test_intel_store.py checks it). ``rebuild_intel_fts()`` rebuilds it from the table.

``seq`` is a per-database insertion counter: the FTS rowid, and the "newest first" order.
It is an explicit column rather than SQLite's implicit rowid because VACUUM may renumber
the implicit rowid of a table without an INTEGER PRIMARY KEY.

On PostgreSQL the same searches go through ``pg_trgm`` GIN indexes on ``title`` and
``content`` (``ILIKE`` with a trigram index is the same substring match), so there is no
separate index table to keep in step.
"""

from __future__ import annotations

from peewee import (
    BlobField,
    CharField,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.competitors import Competitor
from ci_service.store.engine import database, is_postgres
from ci_service.store.identity import Workspace
from ci_service.store.resources import Offering
from ci_service.timeutil import utcnow

INTEL_TYPES = ("EVIDENCE", "INTERNAL_NOTE")
SOURCE_TYPES = ("WEB_PAGE", "DOCUMENT", "NEWS", "INTERNAL_NOTE")
SCOPES = ("competitor", "organization", "offering")
# What a fetched page is (``pipeline.page_kinds`` decides it from the page's content).
PAGE_KINDS = (
    "home",
    "product",
    "pricing",
    "team",
    "about",
    "contact",
    "news-list",
    "post",
    "customer",
    "careers",
    "legal",
    "utility",
    "archive",
    "other",
)


class IntelItem(BaseModel):
    seq = IntegerField(unique=True)
    workspace = ForeignKeyField(Workspace, backref="intel_items", on_delete="CASCADE")
    competitor = ForeignKeyField(Competitor, backref="intel_items", null=True, on_delete="CASCADE")
    offering = ForeignKeyField(Offering, backref="intel_items", null=True, on_delete="CASCADE")
    scope = CharField(max_length=20, default="competitor")
    type = CharField(max_length=20)
    source_type = CharField(max_length=20)
    url = CharField(max_length=2048, null=True)
    title = TextField(default="")
    content = TextField(default="")
    content_hash = CharField(max_length=64)
    credibility_score = FloatField()
    metadata = JSONField(default=dict)
    previous_item = ForeignKeyField(
        "self", backref="next_versions", null=True, on_delete="SET NULL", index=True
    )
    changes = JSONField(null=True)
    published_at = UTCDateTimeField(null=True)
    # PAGE_KINDS for web pages and news items; None for documents and notes (migration 0019).
    page_kind = CharField(max_length=20, null=True)
    created_by_user_id = CharField(max_length=64, null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = (
            (("workspace", "seq"), False),
            (("workspace", "competitor", "seq"), False),
            (("workspace", "url"), False),
            (("workspace", "page_kind", "seq"), False),
        )


class IntelEmbedding(Model):
    """The vector of one intel item: float32 bytes, with the model that made it."""

    item = ForeignKeyField(IntelItem, primary_key=True, on_delete="CASCADE")
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    model = CharField(max_length=200)
    dimension = IntegerField()
    vector = BlobField()
    stamp = IntegerField(default=0)  # commit order of writes (migration 0013, next_stamp)

    class Meta:
        database = database
        legacy_table_names = False
        indexes = ((("workspace", "model"), False),)


FTS_SQL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS intel_fts USING fts5("
    "title, content, content='intel_item', content_rowid='seq', tokenize='trigram')",
    "CREATE TRIGGER IF NOT EXISTS intel_item_fts_ai AFTER INSERT ON intel_item BEGIN "
    "INSERT INTO intel_fts(rowid, title, content) VALUES (new.seq, new.title, new.content); "
    "END",
    "CREATE TRIGGER IF NOT EXISTS intel_item_fts_ad AFTER DELETE ON intel_item BEGIN "
    "INSERT INTO intel_fts(intel_fts, rowid, title, content) "
    "VALUES ('delete', old.seq, old.title, old.content); "
    "END",
    "CREATE TRIGGER IF NOT EXISTS intel_item_fts_au AFTER UPDATE OF seq, title, content "
    "ON intel_item BEGIN "
    "INSERT INTO intel_fts(intel_fts, rowid, title, content) "
    "VALUES ('delete', old.seq, old.title, old.content); "
    "INSERT INTO intel_fts(rowid, title, content) VALUES (new.seq, new.title, new.content); "
    "END",
)


PG_TRGM_SQL = (
    "CREATE INDEX IF NOT EXISTS intel_item_title_trgm ON intel_item USING gin (title gin_trgm_ops)",
    "CREATE INDEX IF NOT EXISTS intel_item_content_trgm ON intel_item "
    "USING gin (content gin_trgm_ops)",
)


def ensure_pg_trgm(db) -> None:
    """Create the pg_trgm extension, or say clearly who must."""
    from peewee import ProgrammingError

    try:
        with db.atomic():
            db.execute_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except ProgrammingError as exc:
        raise RuntimeError(
            "the PostgreSQL extension pg_trgm is needed for search: run "
            "'CREATE EXTENSION pg_trgm;' in this database as a superuser, then start again"
        ) from exc


def create_intel_fts(db) -> None:
    if is_postgres(db):
        ensure_pg_trgm(db)
        statements = PG_TRGM_SQL
    else:
        statements = FTS_SQL
    for statement in statements:
        db.execute_sql(statement)


def rebuild_intel_fts() -> None:
    """Rebuild the full-text index from ``intel_item`` (after a restore or a bulk load).
    PostgreSQL's trigram indexes are maintained by the table itself: nothing to do."""
    if not is_postgres():
        database.execute_sql("INSERT INTO intel_fts(intel_fts) VALUES ('rebuild')")


def next_stamp() -> int:
    """The next embedding ``stamp``; call inside the write transaction (it holds the write
    lock, so stamps are handed out, and committed, in order)."""
    row = database.execute_sql("SELECT COALESCE(MAX(stamp), 0) + 1 FROM intel_embedding").fetchone()
    return int(row[0])


def next_seq() -> int:
    """The next ``seq``; call inside the write transaction (it holds the write lock)."""
    row = database.execute_sql("SELECT COALESCE(MAX(seq), 0) + 1 FROM intel_item").fetchone()
    return int(row[0])


def upsert_embeddings(rows: list[dict]) -> None:
    """Insert or replace vectors (``item``, ``workspace``, ``model``, ``dimension``,
    ``vector``), each stamped in commit order; call inside the write transaction."""
    if not rows:
        return
    stamp = next_stamp()
    IntelEmbedding.insert_many([{**row, "stamp": stamp} for row in rows]).on_conflict(
        conflict_target=[IntelEmbedding.item],
        preserve=[
            IntelEmbedding.workspace,
            IntelEmbedding.model,
            IntelEmbedding.dimension,
            IntelEmbedding.vector,
            IntelEmbedding.stamp,
        ],
    ).execute()
