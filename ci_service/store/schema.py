"""The ordered list of migrations. Append new ones at the end; never edit a shipped one."""

from __future__ import annotations

from ci_service.store.analysis import Battlecard, MatrixCell, SolutionCell, create_search_index
from ci_service.store.base import JSONField
from ci_service.store.competitors import Competitor
from ci_service.store.graph import GraphEdge, GraphNode
from ci_service.store.identity import ApiKey, RateLimitCounter, Tenant, User, Workspace
from ci_service.store.intel import IntelEmbedding, IntelItem, create_intel_fts
from ci_service.store.jobs import Job
from ci_service.store.migration_registry import add_column_if_missing, migration
from ci_service.store.resources import Deal, Offering, Organization, Solution
from ci_service.store.trees import KnowledgeTree, TreeNode


@migration("0001_identity")
def create_identity(db):
    db.create_tables([Tenant, Workspace, User, ApiKey, RateLimitCounter])


@migration("0002_jobs")
def create_jobs(db):
    db.create_tables([Job])


@migration("0003_competitors")
def create_competitors(db):
    db.create_tables([Competitor])


@migration("0004_resources")
def create_resources(db):
    db.create_tables([Offering, Deal, Organization, Solution, GraphNode, GraphEdge])


@migration("0005_intel")
def create_intel(db):
    db.create_tables([IntelItem, IntelEmbedding, KnowledgeTree, TreeNode])
    create_intel_fts(db)


@migration("0006_analysis")
def create_analysis(db):
    db.create_tables([MatrixCell, SolutionCell, Battlecard])
    create_search_index(db)


@migration("0007_graph_node_properties")
def add_graph_node_properties(db):
    # A new field, not the model's: later model changes must not change this migration.
    add_column_if_missing(db, "graph_node", "properties", JSONField(default=dict))


@migration("0008_offering_pricing")
def add_offering_pricing(db):
    # New fields, not the model's: later model changes must not change this migration.
    add_column_if_missing(db, "offering", "pricing", JSONField(default=list))
    add_column_if_missing(db, "offering", "pricing_changes", JSONField(default=list))


@migration("0009_people")
def create_people(db):
    from ci_service.store.people import PEOPLE_MODELS

    db.create_tables(PEOPLE_MODELS)


@migration("0010_battlecard_edits")
def add_battlecard_edits(db):
    # A new field, not the model's: later model changes must not change this migration.
    add_column_if_missing(db, "battlecard", "edits", JSONField(default=list))


@migration("0011_events")
def create_events(db):
    from ci_service.store.events import Event

    db.create_tables([Event])


@migration("0012_alerts")
def create_alerts(db):
    from ci_service.store.alerts import ALERT_MODELS

    db.create_tables(ALERT_MODELS)


@migration("0013_scale_out")
def add_scale_out_columns(db):
    # New fields, not the model's: later model changes must not change this migration.
    from peewee import IntegerField

    from ci_service.store.base import UTCDateTimeField
    from ci_service.store.jobs import JobUpload

    db.create_tables([JobUpload])
    # A claimed job's lease: renewed by its worker, taken over by any process once past.
    add_column_if_missing(db, "job", "lease_expires_at", UTCDateTimeField(null=True))
    # Commit-ordered stamp of each stored vector: other processes' in-memory indexes read
    # the vectors stamped after the last one they hold (services/intel/index.py).
    add_column_if_missing(db, "intel_embedding", "stamp", IntegerField(default=0))
    db.execute_sql(
        "CREATE INDEX IF NOT EXISTS intel_embedding_workspace_stamp "
        "ON intel_embedding (workspace_id, stamp)"
    )


@migration("0014_data_version")
def add_data_version(db):
    # Bumped by triggers in every writer's transaction; the REST response cache keys by it
    # (store/data_version.py, issue 16). A new field, not the model's (see 0007).
    from peewee import IntegerField

    from ci_service.store.data_version import install_triggers

    add_column_if_missing(db, "workspace", "data_version", IntegerField(default=0))
    install_triggers(db)


@migration("0015_oauth")
def create_oauth(db):
    # OAuth 2.1 for the tool server (issue 17). No workspace_id column: not workspace data.
    from ci_service.store.oauth import OAUTH_MODELS

    db.create_tables(OAUTH_MODELS)


@migration("0016_lean_write_indexes")
def drop_redundant_indexes(db):
    # Each was the leading column of a wider index on the same table, so it served no
    # query the wider one doesn't, and every deal wrote it a dozen times (issue 16). The
    # models no longer ask for them (store/graph.py, store/events.py).
    for index in REDUNDANT_INDEXES:
        db.execute_sql(f'DROP INDEX IF EXISTS "{index}"')


REDUNDANT_INDEXES = (
    "graph_node_workspace_id",  # (workspace_id, key) is unique
    "graph_edge_source_id",  # (source_id, target_id, label) is unique
    "event_workspace_id",  # (workspace_id, created_at)
)


@migration("0017_job_retries")
def add_job_retries(db):
    # Issue 25: an interrupted job runs again (its run number, its limit, and the earliest
    # time it may be claimed again), and the scheduler's lead is a lease row with a
    # heartbeat instead of a session lock. New fields, not the model's (see 0007).
    from peewee import IntegerField

    from ci_service.store.base import UTCDateTimeField
    from ci_service.store.leases import Lease

    add_column_if_missing(db, "job", "attempt", IntegerField(default=1))
    add_column_if_missing(db, "job", "max_attempts", IntegerField(default=3))
    add_column_if_missing(db, "job", "run_after", UTCDateTimeField(null=True))
    db.create_tables([Lease])


@migration("0018_oauth_hardening")
def add_oauth_hardening(db):
    # Issue 25: the registration throttle counts a client address's registrations of the
    # last hour; registrations never connected expire. New fields, not the model's (0007).
    from peewee import CharField

    from ci_service.store.base import UTCDateTimeField

    table = "oauth_client"
    add_column_if_missing(db, table, "registered_from", CharField(max_length=100, null=True))
    add_column_if_missing(db, table, "first_connected_at", UTCDateTimeField(null=True))
    db.execute_sql(
        "CREATE INDEX IF NOT EXISTS oauth_client_registered_from "
        "ON oauth_client (registered_from, created_at)"
    )
    # Clients connected before this release are used ones: without this, they would expire
    # as "never connected" and take their connections with them.
    db.execute_sql(
        "UPDATE oauth_client SET first_connected_at = (SELECT MIN(g.created_at) FROM "
        "oauth_grant g WHERE g.client_id = oauth_client.id) WHERE first_connected_at IS NULL"
    )


@migration("0019_page_kinds")
def add_page_kinds(db):
    # Issue 26: the kind of page an intel item was read from (home, pricing, post, legal
    # ...), a filter of GET /api/intel. New field, not the model's (see 0007).
    from peewee import CharField

    add_column_if_missing(db, "intel_item", "page_kind", CharField(max_length=20, null=True))
    db.execute_sql(
        "CREATE INDEX IF NOT EXISTS intel_item_workspace_id_page_kind_seq "
        "ON intel_item (workspace_id, page_kind, seq)"
    )


@migration("0020_matrix_cell_features")
def add_matrix_cell_features(db):
    # Issue 27: a cell says which features matched, which are theirs alone and which are
    # ours alone, each with its quote. New field, not the model's (see 0007).
    from ci_service.store.base import JSONField

    add_column_if_missing(db, "matrix_cell", "features", JSONField(null=True))


@migration("0021_deal_competitors")
def add_deal_competitors(db):
    # Issue 28: every competitor in a deal (beyond the contract: a WON deal can name whom we
    # beat). One ALTER with a literal default (see add_column_if_missing), then a LOST
    # deal's competitor becomes its list's first entry, as services/workspace/deals.py writes it.
    from ci_service.store.engine import is_postgres

    add_column_if_missing(db, "deal", "competitor_ids", JSONField(default="[]"))
    array = "jsonb_build_array" if is_postgres(db) else "json_array"
    db.execute_sql(
        f"UPDATE deal SET competitor_ids = {array}(competitor_id) "
        "WHERE competitor_id IS NOT NULL AND outcome = 'LOST'"
    )


@migration("0022_event_reads")
def create_event_reads(db):
    # Issue 29: who has read which event (the Changes page's unread marks, per person).
    from ci_service.store.events import EventRead

    db.create_tables([EventRead])


@migration("0023_mutes")
def create_mutes(db):
    # Issue 29: a subscription's (or a competitor's) muted pages and event types. The table
    # holds workspace data, so the data-version triggers are reinstalled to cover it.
    from ci_service.store.alerts import Mute
    from ci_service.store.data_version import install_triggers

    db.create_tables([Mute])
    install_triggers(db)


@migration("0024_deal_graph_pending")
def add_deal_graph_pending(db):
    # Issue 31: a deal whose graph nodes are still to be written (services/graph/
    # projection.py). One ALTER with a literal default (see add_column_if_missing); the
    # partial index finds the waiting deals (few, and none most of the time) without
    # growing with the table. Queries compare with the same literal, so SQLite uses it.
    from ci_service.store.engine import is_postgres

    if "graph_pending" not in {c.name for c in db.get_columns("deal")}:
        kind = "BOOLEAN" if is_postgres(db) else "INTEGER"
        db.execute_sql(
            f'ALTER TABLE "deal" ADD COLUMN "graph_pending" {kind} NOT NULL DEFAULT FALSE'
        )
    db.execute_sql(
        "CREATE INDEX IF NOT EXISTS deal_graph_pending ON deal (workspace_id, created_at) "
        "WHERE graph_pending = TRUE"
    )


@migration("0025_offering_sources")
def add_offering_sources(db):
    # A competitor's product keeps the sentence that states it, as its features and plans
    # do. One ALTER with a literal default (see add_column_if_missing).
    add_column_if_missing(db, "offering", "sources", JSONField(default="[]"))
