"""A per-workspace data version, bumped by database triggers in the writer's transaction.

``workspace.data_version`` changes with every INSERT, UPDATE or DELETE of a row that holds
the workspace's data, in the same transaction as the write, whoever writes it (a REST route,
a tool, a job, the CLI, a page, raw SQL). The REST response cache keys its entries by it
(web/response_cache.py, issue 16), so a read after a committed write never gets an older
answer, in any process.

What is data: every table with a ``workspace_id`` column, ``tree_node`` (through its
``knowledge_tree``), the workspace row itself (its name) and the tenant's plan and name.
What is bookkeeping and does not bump (a read never returns it, or it changes per request):

- ``rate_limit_counter``, ``sign_in_throttle``, ``web_session``, ``login``,
  ``schema_migrations``, ``job_upload`` (an upload's bytes until its job reads them);
- ``search_doc`` and the ``*_fts`` tables: derived by triggers from ``competitor`` and
  ``battlecard``/``intel_item`` rows, whose own writes bump;
- ``api_key.last_used_at`` written alone (the usage flush): GET /api/api-keys shows it,
  so that route is not cached;
- ``job`` writes of only ``claimed_at``, ``claimed_by``, ``started_at`` and
  ``lease_expires_at`` (a claim, a lease renewal): they run outside the write lock on
  PostgreSQL, where taking the workspace row there could deadlock with a writer; GET
  /api/jobs shows ``startedAt``, so the job routes are not cached.

A later migration that adds a column to ``job`` or ``api_key`` calls
``install_triggers(db)`` again (it drops and recreates them from the current columns).
"""

from __future__ import annotations

from peewee import Database

from ci_service.store.engine import database, is_postgres

SKIP_TABLES = frozenset({"search_doc"})
# Columns whose writes alone are bookkeeping (see above).
BOOKKEEPING_COLUMNS = {
    "api_key": ("last_used_at",),
    "job": ("claimed_at", "claimed_by", "started_at", "lease_expires_at"),
}
WORKSPACE_DATA_COLUMNS = ("name", "tenant_id")
TENANT_DATA_COLUMNS = ("name", "plan")

_BUMP = "UPDATE workspace SET data_version = data_version + 1 WHERE id = {}"


def workspace_tables(db: Database) -> list[str]:
    """Tables with a ``workspace_id`` column that hold data (all but ``SKIP_TABLES``)."""
    out = []
    for table in sorted(db.get_tables()):
        if table in SKIP_TABLES or table == "workspace":
            continue
        if "workspace_id" in {c.name for c in db.get_columns(table)}:
            out.append(table)
    return out


def _update_columns(db: Database, table: str) -> str:
    """``UPDATE OF`` list: every column but the table's bookkeeping ones."""
    skip = set(BOOKKEEPING_COLUMNS.get(table, ()))
    return ", ".join(f'"{c.name}"' for c in db.get_columns(table) if c.name not in skip)


def _trigger_names(table: str) -> list[str]:
    return [f"{table}_dv_ai", f"{table}_dv_au", f"{table}_dv_ad"]


def install_triggers(db: Database) -> None:
    """(Re)create the bump triggers on every data table."""
    if is_postgres(db):
        _install_postgres(db)
    else:
        _install_sqlite(db)


def _install_sqlite(db: Database) -> None:
    for table in [*workspace_tables(db), "tree_node"]:
        ws = "(SELECT workspace_id FROM knowledge_tree WHERE id = {}.tree_id)"
        new = ws.format("NEW") if table == "tree_node" else "NEW.workspace_id"
        old = ws.format("OLD") if table == "tree_node" else "OLD.workspace_id"
        for name in _trigger_names(table):
            db.execute_sql(f'DROP TRIGGER IF EXISTS "{name}"')
        ai, au, ad = _trigger_names(table)
        cols = _update_columns(db, table) if table in BOOKKEEPING_COLUMNS else ""
        of = f"OF {cols} " if cols else ""
        db.execute_sql(
            f'CREATE TRIGGER "{ai}" AFTER INSERT ON "{table}" BEGIN {_BUMP.format(new)}; END'
        )
        db.execute_sql(
            f'CREATE TRIGGER "{au}" AFTER UPDATE {of}ON "{table}" BEGIN '
            f"{_BUMP.format(new)}; {_BUMP.format(old)} AND {old} IS NOT {new}; END"
        )
        db.execute_sql(
            f'CREATE TRIGGER "{ad}" AFTER DELETE ON "{table}" BEGIN {_BUMP.format(old)}; END'
        )
    db.execute_sql('DROP TRIGGER IF EXISTS "workspace_dv_au"')
    db.execute_sql(
        f'CREATE TRIGGER "workspace_dv_au" AFTER UPDATE OF {", ".join(WORKSPACE_DATA_COLUMNS)} '
        f"ON workspace BEGIN {_BUMP.format('NEW.id')}; END"
    )
    db.execute_sql('DROP TRIGGER IF EXISTS "tenant_dv_au"')
    db.execute_sql(
        f'CREATE TRIGGER "tenant_dv_au" AFTER UPDATE OF {", ".join(TENANT_DATA_COLUMNS)} '
        "ON tenant BEGIN UPDATE workspace SET data_version = data_version + 1 "
        "WHERE tenant_id = NEW.id; END"
    )


_PG_FUNCTIONS = """
CREATE OR REPLACE FUNCTION ci_bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE workspace SET data_version = data_version + 1 WHERE id = OLD.workspace_id;
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.workspace_id IS DISTINCT FROM
      OLD.workspace_id) THEN
    UPDATE workspace SET data_version = data_version + 1 WHERE id = NEW.workspace_id;
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION ci_bump_data_version_tree() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE workspace SET data_version = data_version + 1
     WHERE id = (SELECT workspace_id FROM knowledge_tree WHERE id = OLD.tree_id);
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.tree_id IS DISTINCT FROM OLD.tree_id) THEN
    UPDATE workspace SET data_version = data_version + 1
     WHERE id = (SELECT workspace_id FROM knowledge_tree WHERE id = NEW.tree_id);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION ci_bump_data_version_workspace() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.data_version := OLD.data_version + 1;
  RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION ci_bump_data_version_tenant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE workspace SET data_version = data_version + 1 WHERE tenant_id = NEW.id;
  RETURN NULL;
END $$;
"""


def _install_postgres(db: Database) -> None:
    db.execute_sql(_PG_FUNCTIONS)
    for table in [*workspace_tables(db), "tree_node"]:
        function = "ci_bump_data_version_tree" if table == "tree_node" else "ci_bump_data_version"
        ai, au, ad = _trigger_names(table)
        for name in (ai, au, ad):
            db.execute_sql(f'DROP TRIGGER IF EXISTS "{name}" ON "{table}"')
        cols = _update_columns(db, table) if table in BOOKKEEPING_COLUMNS else ""
        of = f"OF {cols} " if cols else ""
        for name, event in ((ai, "INSERT"), (au, f"UPDATE {of}"), (ad, "DELETE")):
            db.execute_sql(
                f'CREATE TRIGGER "{name}" AFTER {event} ON "{table}" '
                f"FOR EACH ROW EXECUTE FUNCTION {function}()"
            )
    db.execute_sql('DROP TRIGGER IF EXISTS "workspace_dv_au" ON workspace')
    db.execute_sql(
        f'CREATE TRIGGER "workspace_dv_au" BEFORE UPDATE OF {", ".join(WORKSPACE_DATA_COLUMNS)} '
        "ON workspace FOR EACH ROW EXECUTE FUNCTION ci_bump_data_version_workspace()"
    )
    db.execute_sql('DROP TRIGGER IF EXISTS "tenant_dv_au" ON tenant')
    db.execute_sql(
        f'CREATE TRIGGER "tenant_dv_au" AFTER UPDATE OF {", ".join(TENANT_DATA_COLUMNS)} '
        "ON tenant FOR EACH ROW EXECUTE FUNCTION ci_bump_data_version_tenant()"
    )


def read_version(workspace_id: str) -> int | None:
    """The workspace's data version now (None: no such workspace)."""
    sql = f"SELECT data_version FROM workspace WHERE id = {database.param}"
    row = database.execute_sql(sql, (workspace_id,)).fetchone()
    return None if row is None else row[0]
