"""The ``ci-service`` command line: a thin click layer over the services.

Example::

    ci-service workspaces create acme --plan ENTERPRISE
    ci-service keys create --workspace acme --name laptop
    ci-service serve --port 8000
"""

from __future__ import annotations

import functools
import json
import signal
import sys
import threading

import click
from peewee import OperationalError

from ci_service import __version__
from ci_service.errors import ServiceError
from ci_service.settings import load_settings
from ci_service.store.db import (
    UnsupportedDatabase,
    is_postgres_url,
    keep_writer_connection,
    open_database,
)
from ci_service.store.identity import PLANS, ROLES, SCOPES


class CliState:
    def __init__(self, database: str):
        self.database = database
        self._opened = False

    def open(self) -> None:
        """Open the database (creating or upgrading the schema) once per command."""
        if not self._opened:
            try:
                open_database(self.database)
            except UnsupportedDatabase as exc:
                raise click.ClickException(str(exc)) from None
            self._opened = True


def service_errors(fn):
    """Turn service errors into clear CLI errors (non-zero exit, no traceback)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ServiceError as exc:
            fields = (exc.details or {}).get("fields") if isinstance(exc.details, dict) else None
            if fields:
                detail = "; ".join(f"{k}: {', '.join(v)}" for k, v in fields.items())
                raise click.ClickException(detail) from None
            raise click.ClickException(exc.message) from None

    return wrapper


def json_option(fn):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")(fn)


def emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def emit_table(rows: list[dict], columns: list[str]) -> None:
    if not rows:
        click.echo("(none)")
        return
    widths = {c: max(len(c), *(len(str(r.get(c) or "")) for r in rows)) for c in columns}
    click.echo("  ".join(c.ljust(widths[c]) for c in columns).rstrip())
    for row in rows:
        click.echo("  ".join(str(row.get(c) or "").ljust(widths[c]) for c in columns).rstrip())


@click.group()
@click.option(
    "--database",
    envvar="CI_SERVICE_DATABASE",
    default="./ci-service.db",
    show_default=True,
    help="SQLite file path or sqlite:///path URL (env CI_SERVICE_DATABASE).",
)
@click.version_option(__version__, prog_name="ci-service")
@click.pass_context
def cli(ctx, database):
    """Self-hosted competitive intelligence service."""
    ctx.obj = CliState(database)


def _warm_up_imports() -> None:
    """Import, once serving, what the first write of a kind would otherwise wait for: every
    event goes through the delivery fan-out, whose sender brings httpx (about a second
    of CPU on a small machine). Likewise what app creation leaves to the first request that
    needs it: jsonrpcserver and jsonschema (``/mcp``), Authlib and joserfc (the OAuth
    endpoints and consent page) and numpy (the graph layout, /api/search's windows). Not
    before serving: start-up stays short."""
    import jsonrpcserver  # noqa: F401
    import jsonschema  # noqa: F401
    import numpy  # noqa: F401

    import ci_service.services.delivery  # noqa: F401
    import ci_service.web.oauth_server  # noqa: F401  (Authlib, joserfc)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0 picks a free one).",
)
@click.option(
    "--threads",
    default=8,
    show_default=True,
    type=click.IntRange(1, 256),
    help="HTTP worker threads.",
)
@click.option(
    "--job-workers",
    type=click.IntRange(0, 64),
    default=None,
    help="Background job threads (default 2).",
)
@click.option("--no-scheduler", is_flag=True, help="Do not run periodic refreshes.")
@click.option(
    "--no-jobs",
    is_flag=True,
    help="Web only: run no jobs here (a `ci-service worker` runs them).",
)
@click.option(
    "--public-url",
    default=None,
    help="The address people reach the service at, e.g. https://ci.example.com "
    "(env CI_SERVICE_PUBLIC_URL; default: this server's own address).",
)
@click.option(
    "--trusted-proxy",
    default=None,
    help="Address of the reverse proxy in front, whose X-Forwarded-For/-Proto/-Host "
    "headers are believed, or * (env CI_SERVICE_TRUSTED_PROXY; default: none).",
)
@click.pass_obj
def serve(
    state, host, port, threads, job_workers, no_scheduler, no_jobs, public_url, trusted_proxy
):
    """Serve the REST API, the tool server and the job runner in one process.

    With --no-jobs the process serves requests only; jobs it queues are run by a
    `ci-service worker` (the scheduler still runs here unless --no-scheduler: it only
    queues jobs).

    Behind a TLS proxy, give the public address and the proxy's (README, Deployment):
    ci-service serve --public-url https://ci.example.com --trusted-proxy 127.0.0.1

    Example: ci-service --database ./ci.db serve --port 8000
    """
    from waitress import create_server

    from ci_service.jobs.background import start_background, stop_background
    from ci_service.web.app import create_app, shutdown_app
    from ci_service.web.serving import proxy_options, publish_address

    if no_jobs and job_workers:
        raise click.ClickException("--no-jobs runs no job threads: leave out --job-workers")
    overrides = {
        "database": state.database,
        "job_workers": job_workers,
        "public_url": public_url,
        "trusted_proxy": trusted_proxy,
    }
    if no_scheduler:
        overrides["scheduler"] = False
    try:
        settings = load_settings(**overrides)
        app = create_app(settings, persistent_connections=True)
    except ValueError as exc:  # UnsupportedDatabase, or a malformed CI_SERVICE_* value
        raise click.ClickException(str(exc)) from None
    except OperationalError as exc:  # PostgreSQL unreachable, say
        raise _unreachable(state.database, exc) from None
    _log_to_stderr()
    server = create_server(
        app, host=host, port=port, threads=threads, ident="ci-service", **proxy_options(settings)
    )
    settings = publish_address(app, settings, host, server.effective_port)
    try:
        start_background(app, settings, jobs=not no_jobs)  # recovery, runner, scheduler
    except (ImportError, ValueError) as exc:  # CI_SERVICE_JOB_MODULES, lease, periods
        server.close()
        shutdown_app(app)
        what = "could not load job modules" if isinstance(exc, ImportError) else "bad setting"
        raise click.ClickException(f"{what}: {exc}") from None

    def stop(signum, frame):
        # waitress's loop only leaves on an exception; KeyboardInterrupt is what it expects.
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    from ci_service.store.backup import hold_open

    # So `ci-service restore` sees a running server (SQLite; PostgreSQL has its own).
    presence = None if is_postgres_url(settings.database) else hold_open(settings.database)
    click.echo(
        f"ci-service {__version__} serving on http://{host}:{server.effective_port}", err=True
    )
    threading.Thread(target=_warm_up_imports, name="ci-warm-up", daemon=True).start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        stop_background(app, timeout=10.0)
        shutdown_app(app)
        if presence is not None:
            presence.close()
        click.echo("ci-service stopped", err=True)


@cli.command()
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Job threads (default: the job_workers setting, 2).",
)
@click.option("--no-scheduler", is_flag=True, help="Do not run periodic refreshes here.")
@click.pass_obj
def worker(state, workers, no_scheduler):
    """Run background jobs (and the scheduler) without a web server, until SIGTERM/SIGINT.

    Start any number on one PostgreSQL database; with SQLite, run jobs in one process only
    (this, beside `serve --no-jobs`). On SIGTERM/SIGINT the jobs in progress stop at their
    next step and the worker exits.

    Example: ci-service --database postgresql://ci@db.internal/ci worker --workers 4
    """
    import os
    import threading

    from ci_service.jobs.background import start_background
    from ci_service.store.backup import hold_open
    from ci_service.store.db import close_database

    overrides = {"database": state.database, "job_workers": workers}
    if no_scheduler:
        overrides["scheduler"] = False
    try:
        settings = load_settings(**overrides)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if settings.job_workers < 1:
        raise click.ClickException("a worker needs at least one job thread (--workers N)")
    try:
        db = open_database(settings.database, pool_size=settings.database_pool_size)
        keep_writer_connection(db)  # a long-running writer: one warm connection (store/db.py)
    except UnsupportedDatabase as exc:
        raise click.ClickException(str(exc)) from None
    except OperationalError as exc:
        raise _unreachable(settings.database, exc) from None
    _log_to_stderr()
    stopping = threading.Event()

    def stop(signum, frame):
        stopping.set()  # only a flag: the main thread does the shutting down

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        background = start_background(None, settings)
    except (ImportError, ValueError) as exc:
        close_database(db)
        what = "could not load job modules" if isinstance(exc, ImportError) else "bad setting"
        raise click.ClickException(f"{what}: {exc}") from None
    presence = None if is_postgres_url(settings.database) else hold_open(settings.database)
    scheduler = "; scheduler candidate" if settings.scheduler else ""
    click.echo(
        f"ci-service {__version__} worker ready: {settings.job_workers} threads"
        f"{scheduler} (pid {os.getpid()})",
        err=True,
    )
    try:
        while not stopping.wait(1.0):
            pass
    finally:
        background.stop(timeout=10.0)
        close_database(db)
        if presence is not None:
            presence.close()
        click.echo("ci-service worker stopped", err=True)


def _unreachable(url: str, exc: Exception) -> click.ClickException:
    from ci_service.store.db import redact_url

    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return click.ClickException(f"cannot open the database {redact_url(url)}: {reason}")


def _log_to_stderr() -> None:
    """serve/worker: warnings from every part; job outcomes and scheduler turns at INFO."""
    import logging

    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for name in ("ci_service.jobs", "ci_service.scheduler"):
        logging.getLogger(name).setLevel(logging.INFO)


@cli.group()
def workspaces():
    """Create and list workspaces."""


@workspaces.command("create")
@click.argument("name")
@click.option(
    "--plan",
    type=click.Choice(PLANS, case_sensitive=False),
    default="STARTER",
    show_default=True,
    help="The tenant's plan.",
)
@json_option
@click.pass_obj
@service_errors
def workspaces_create(state, name, plan, as_json):
    """Create a workspace (and its tenant); prints the id as the last line.

    Example: ci-service workspaces create acme --plan ENTERPRISE
    """
    from ci_service.services.workspaces import create_workspace, workspace_to_dict

    state.open()
    workspace = create_workspace(name, plan)
    if as_json:
        emit_json(workspace_to_dict(workspace))
    else:
        click.echo(f"Created workspace '{workspace.name}' on plan {workspace.tenant.plan}")
        click.echo(workspace.id)


@workspaces.command("list")
@json_option
@click.pass_obj
def workspaces_list(state, as_json):
    """List workspaces."""
    from ci_service.services.workspaces import list_workspaces, workspace_to_dict

    state.open()
    rows = [workspace_to_dict(w) for w in list_workspaces()]
    if as_json:
        emit_json(rows)
    else:
        emit_table(rows, ["id", "name", "plan", "createdAt"])


@cli.group()
def keys():
    """Create, list and revoke API keys."""


def _split_scopes(value):
    if value is None:
        return None
    return [s.strip() for s in value.split(",") if s.strip()]


@keys.command("create")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--name", required=True, help="A label for the key (max 100 characters).")
@click.option("--email", default=None, help="The user the key acts for (created if new).")
@click.option(
    "--role",
    type=click.Choice(ROLES, case_sensitive=False),
    default=None,
    help="The user's role (default OWNER for a new user).",
)
@click.option("--scopes", default=None, help=f"Comma-separated subset of {','.join(SCOPES)}.")
@click.option("--expires-at", default=None, help="ISO 8601 date-time; default never.")
@click.option("--rate-limit", type=int, default=None, help="Requests per hour (default 1000).")
@click.option(
    "--allowed-ip",
    "allowed_ips",
    multiple=True,
    help="Allowed client IP or CIDR; repeat for several.",
)
@json_option
@click.pass_obj
@service_errors
def keys_create(
    state, workspace, name, email, role, scopes, expires_at, rate_limit, allowed_ips, as_json
):
    """Mint an API key; prints the full key, alone, as the last line (shown only once).

    Example: ci-service keys create --workspace acme --name laptop --role EDITOR
    """
    from ci_service.services import apikeys
    from ci_service.services.workspaces import find_workspace
    from ci_service.store.db import transaction

    state.open()
    ws = find_workspace(workspace)
    # Validate before creating a user, so a bad option leaves nothing behind.
    apikeys.validate_key_options(
        name=name,
        expires_at=expires_at,
        scopes=_split_scopes(scopes),
        rate_limit=rate_limit,
        allowed_ips=list(allowed_ips) or None,
    )
    with transaction():
        user = apikeys.ensure_user(ws, email, role.upper() if role else None)
        row, key = apikeys.create_key(
            user,
            name=name,
            expires_at=expires_at,
            scopes=_split_scopes(scopes),
            rate_limit=rate_limit,
            allowed_ips=list(allowed_ips) or None,
        )
    if as_json:
        emit_json({**apikeys.key_to_dict(row, detail=True), "role": user.role, "key": key})
        return
    click.echo(
        f"Created API key {row.id} ({row.prefix}...) in workspace '{ws.name}', "
        f"role {user.role}, scopes {','.join(row.scopes)}"
    )
    click.echo(key)


@keys.command("list")
@click.option("--workspace", required=True, help="Workspace name or id.")
@json_option
@click.pass_obj
@service_errors
def keys_list(state, workspace, as_json):
    """List a workspace's API keys (never the keys themselves)."""
    from ci_service.services import apikeys
    from ci_service.services.workspaces import find_workspace

    state.open()
    ws = find_workspace(workspace)
    rows = [apikeys.key_to_dict(r, detail=False) for r in apikeys.list_keys(ws.id)]
    if as_json:
        emit_json(rows)
    else:
        emit_table(
            rows, ["id", "name", "prefix", "createdAt", "lastUsedAt", "expiresAt", "revokedAt"]
        )


@keys.command("revoke")
@click.argument("key_id")
@json_option
@click.pass_obj
@service_errors
def keys_revoke(state, key_id, as_json):
    """Revoke an API key by id (it cannot be restored)."""
    from ci_service.services import apikeys

    state.open()
    row = apikeys.revoke_key(key_id)
    if as_json:
        emit_json(apikeys.key_to_dict(row, detail=False))
    else:
        click.echo(f"Revoked API key {row.id} ({row.prefix}...)")


@cli.group()
def jobs():
    """Follow and cancel background jobs."""


@jobs.command("list")
@click.option("--workspace", default=None, help="Workspace name or id (default: all).")
@click.option("--status", type=click.Choice(["running", "completed", "failed"]), default=None)
@click.option("--competitor", "competitor_id", default=None, help="Only this competitor's jobs.")
@click.option("--type", "job_type", default=None, help="Only jobs of this type, e.g. collect.")
@click.option("--limit", type=click.IntRange(1, 1000), default=None, help="At most N jobs.")
@json_option
@click.pass_obj
@service_errors
def jobs_list(state, workspace, status, competitor_id, job_type, limit, as_json):
    """List jobs, newest first.

    Example: ci-service jobs list --workspace acme --status running
    """
    from ci_service.services import jobs as job_service
    from ci_service.services.workspaces import find_workspace

    state.open()
    workspace_id = find_workspace(workspace).id if workspace else None
    rows = job_service.list_jobs(
        workspace_id, competitor_id=competitor_id, job_type=job_type, status=status, limit=limit
    )
    data = [job_service.job_to_dict(row) for row in rows]
    if as_json:
        emit_json(data)
    else:
        emit_table(
            data, ["id", "type", "status", "progress", "currentStep", "displayTitle", "startedAt"]
        )


@jobs.command("show")
@click.argument("job_id")
@json_option
@click.pass_obj
@service_errors
def jobs_show(state, job_id, as_json):
    """Show one job with its steps.

    Example: ci-service jobs show 4f9c...
    """
    from ci_service.jobs.watch import describe
    from ci_service.services import jobs as job_service

    state.open()
    data = job_service.job_to_dict(job_service.get_job(job_id, None))
    if as_json:
        emit_json(data)
    else:
        click.echo(describe(data))


@jobs.command("watch")
@click.argument("job_id")
@click.option("--interval", type=click.FloatRange(0.05, 60), default=0.5, show_default=True)
@click.option("--timeout", type=click.FloatRange(0), default=None, help="Give up after N s.")
@click.pass_obj
@service_errors
def jobs_watch(state, job_id, interval, timeout):
    """Show a live progress bar until the job ends.

    Exit code 0 when it completed, 1 when it failed, 2 on --timeout.

    Example: ci-service jobs watch 4f9c... --timeout 600
    """
    from ci_service.jobs.watch import watch

    state.open()
    sys.exit(watch(job_id, interval=interval, timeout=timeout))


@jobs.command("cancel")
@click.argument("job_id")
@json_option
@click.pass_obj
@service_errors
def jobs_cancel(state, job_id, as_json):
    """Cancel a running job (it becomes failed, currentStep Cancelled).

    Example: ci-service jobs cancel 4f9c...
    """
    from ci_service.services import jobs as job_service

    state.open()
    row = job_service.cancel_job(job_id, None)
    if as_json:
        summary = {"id": row.id, "status": row.status, "currentStep": row.current_step}
        emit_json({"success": True, "job": summary})
    else:
        click.echo(f"Cancelled job {row.id} ({row.display_title})")


@cli.command("mcp")
@click.option("--workspace", required=True, help="Workspace name or id the agent works in.")
@click.pass_obj
@service_errors
def mcp_stdio(state, workspace):
    """Serve the tool server (MCP / JSON-RPC) over stdin and stdout, for desktop agents.

    The session acts as the workspace's owner (no API key: it reads the database file
    directly). Jobs it starts are picked up by a running `ci-service serve`.

    Example: ci-service --database ./ci.db mcp --workspace acme
    """
    import logging

    from ci_service.mcp.stdio import local_principal, serve_stdio
    from ci_service.mcp.tools import ToolContext
    from ci_service.services.workspaces import find_workspace

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)  # stdout is the protocol
    state.open()
    principal = local_principal(find_workspace(workspace))
    context = ToolContext(principal, load_settings(database=state.database))
    serve_stdio(context, sys.stdin, sys.stdout)


@cli.group()
def tools():
    """The tool server's tools."""


@tools.command("list")
@json_option
def tools_list(as_json):
    """List the tools agents can call, with their arguments (* = required).

    Example: ci-service tools list
    """
    from ci_service.mcp.tools import list_tools

    described = [t.describe() for t in list_tools()]
    if as_json:
        emit_json(described)
        return
    for item in described:
        schema = item["inputSchema"]
        required = set(schema.get("required", []))
        arguments = ", ".join(
            f"{name}{'*' if name in required else ''}: {spec.get('type', 'any')}"
            for name, spec in schema.get("properties", {}).items()
        )
        click.echo(f"{item['name']}({arguments})")
        click.echo(f"    {item['description']}")


@cli.command("reindex")
@click.option("--workspace", default=None, help="Workspace name or id (default: all).")
@click.option("--all", "force", is_flag=True, help="Re-embed everything, not only stale rows.")
@click.option("--rebuild-fts", is_flag=True, help="Also rebuild the intel full-text index.")
@json_option
@click.pass_obj
@service_errors
def reindex(state, workspace, force, rebuild_fts, as_json):
    """Re-embed intel items and knowledge-tree nodes with the current embedding provider.

    Only rows embedded by another model (or not at all) unless --all.

    Example: CI_SERVICE_EMBEDDINGS=minilm ci-service reindex --workspace acme
    """
    from ci_service.services import intel_search
    from ci_service.services.intel import rebuild_intel_fts
    from ci_service.services.workspaces import find_workspace
    from ci_service.store.db import connection

    state.open()
    with connection():
        workspace_id = find_workspace(workspace).id if workspace else None
        counts = intel_search.reindex_counts(workspace_id, force=force)
        if rebuild_fts:
            rebuild_intel_fts()
    counts["ftsRebuilt"] = bool(rebuild_fts)
    if as_json:
        emit_json(counts)
    else:
        click.echo(
            f"Re-embedded {counts['intelItems']} intel items and {counts['treeNodes']} tree "
            f"nodes ({counts['trees']} trees) with {counts['model']} ({counts['dimension']} dims)"
            + ("; rebuilt the full-text index" if rebuild_fts else "")
        )


@cli.command("optimize-index")
@json_option
@click.pass_obj
@service_errors
def optimize_index(state, as_json):
    """Merge the full-text search indexes into one segment each (SQLite).

    What the scheduler does daily; safe while `serve` runs (one short write transaction
    per step). Worth running after a large import. On PostgreSQL there is nothing to do.

    Example: ci-service --database ./ci.db optimize-index
    """
    from ci_service.services.search_upkeep import optimize_indexes
    from ci_service.store.db import connection

    state.open()
    with connection():
        report = optimize_indexes()
    if as_json:
        emit_json(report)
    elif not report:
        click.echo("Nothing to do: PostgreSQL maintains its trigram indexes itself")
    else:
        for table, row in report.items():
            click.echo(
                f"{table}: {row['before']} → {row['after']} segments "
                f"in {row['steps']} steps, {row['seconds']:.2f}s"
            )


@cli.command("backup")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@json_option
@click.pass_obj
def backup(state, path, force, as_json):
    """Copy the database to the file PATH; safe while `serve` is writing.

    Uses SQLite's online backup API (a consistent snapshot of committed data), checks the
    copy's integrity and only then moves it into place. On PostgreSQL: pg_dump
    --format=custom (one snapshot), listed back before it is moved into place.

    Example: ci-service --database ./ci.db backup ./backups/ci-2026-03-31.db
    """
    from ci_service.store.backup import BackupError, backup_database

    try:
        result = backup_database(state.database, path, force=force)
    except (BackupError, UnsupportedDatabase) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        emit_json(result)
    else:
        what = f"{result['pages']} pages" if "pages" in result else result["format"]
        click.echo(
            f"Backed up {what} ({result['size']} bytes) to "
            f"{result['path']} in {result['seconds']:.2f}s"
        )


@cli.command("restore")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Replace the database if it already exists.")
@json_option
@click.pass_obj
def restore(state, path, force, as_json):
    """Restore the backup file PATH into the database (--database); stop `serve` first.

    The backup must be an intact ci-service database; it is upgraded to the current schema.
    A database that exists is replaced only with --force, and never while a server has it
    open. On PostgreSQL: pg_restore --clean --if-exists --no-owner of a pg_dump archive made
    by `backup`, in one transaction, refused while other sessions are connected.

    Example: ci-service --database ./ci.db restore ./backups/ci-2026-03-31.db --force
    """
    from ci_service.store.backup import BackupError, restore_database

    try:
        result = restore_database(path, state.database, force=force)
    except (BackupError, UnsupportedDatabase) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        emit_json(result)
    else:
        applied = len(result["migrationsApplied"])
        what = f"{result['pages']} pages" if "pages" in result else result["format"]
        click.echo(
            f"Restored {path} into {result['path']} ({what}"
            + (f", {applied} migrations applied" if applied else "")
            + ")"
        )


def main() -> None:  # pragma: no cover - console entry
    cli(prog_name="ci-service")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def _add_command_groups() -> None:
    from ci_service.cli_alerts import alerts
    from ci_service.cli_data import migrate_data
    from ci_service.cli_mutes import alerts_mute  # noqa: F401  (adds to the alerts group)
    from ci_service.cli_oauth import oauth
    from ci_service.cli_users import users

    cli.add_command(users)
    cli.add_command(alerts)
    cli.add_command(migrate_data)
    cli.add_command(oauth)


_add_command_groups()
