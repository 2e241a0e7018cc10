"""``ci-service serve`` and ``ci-service worker``: the long-running processes, the web
server with its job runner and scheduler, and a job runner without one.

Example::

    ci-service --database ./ci.db serve --port 8000
    ci-service --database postgresql://ci@db.internal/ci worker --workers 4
"""

from __future__ import annotations

import signal
import sys
import threading

import click
from peewee import OperationalError

from ci_service import __version__
from ci_service.gc_tuning import collection_paused, keep_start_up_out_of_collections
from ci_service.settings import load_settings
from ci_service.store.db import (
    UnsupportedDatabase,
    is_postgres_url,
    keep_writer_connection,
    open_database,
)


def _warm_up_imports(first_answer: threading.Event, api) -> None:
    """Import, once serving, what the first request of a kind would otherwise wait for:
    httpx and the SSRF guard (a webhook sent or checked, a crawl; the web app leaves them
    out of start-up, services/alerts/send.py). Likewise what app creation leaves to the
    first request that needs it: jsonrpcserver and jsonschema (``/mcp``), Authlib and
    joserfc (the OAuth endpoints and consent page) and numpy (the graph layout,
    /api/search's windows), and the OpenAPI document (web/api.py). Not before serving,
    and not before the first answer (or a second): start-up stays short, and the first
    request does not share the CPU with this."""
    first_answer.wait(WARM_UP_AFTER_SECONDS)
    import jsonrpcserver  # noqa: F401
    import jsonschema  # noqa: F401
    import numpy  # noqa: F401

    import ci_service.intel.netguard  # noqa: F401  (httpx, httpcore)
    import ci_service.web.oauth.server  # noqa: F401  (Authlib, joserfc)

    api.spec  # noqa: B018  (written on first read)


WARM_UP_AFTER_SECONDS = 1.0


def _on_first_answer(app) -> threading.Event:
    """An event set when ``app`` has answered its first request."""
    from flask import request_finished

    answered = threading.Event()

    def finished(sender, **extra) -> None:
        answered.set()
        request_finished.disconnect(finished, app)

    request_finished.connect(finished, app, weak=False)
    return answered


@click.command()
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

    Behind a TLS proxy, give the public address and the proxy's (docs/deployment.md):
    ci-service serve --public-url https://ci.example.com --trusted-proxy 127.0.0.1

    Example: ci-service --database ./ci.db serve --port 8000
    """
    with collection_paused():  # loading and building the app (ci_service/gc_tuning.py)
        from waitress import create_server

        from ci_service.jobs.background import start_background, stop_background
        from ci_service.malloc_tuning import fix_mmap_threshold
        from ci_service.services.graph.projection import DealProjector
        from ci_service.web.app import create_app, shutdown_app
        from ci_service.web.serving import proxy_options, publish_address, task_dispatcher

        if no_jobs and job_workers:
            raise click.ClickException("--no-jobs runs no job threads: leave out --job-workers")
        fix_mmap_threshold()  # before the threads allocate (ci_service/malloc_tuning.py)
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
        # Rate-limit counts and lastUsedAt written behind from a thread of their own: no request
        # writes them (issue 31; services/identity/usage.py).
        app.extensions["ci_usage"].start_flusher()
        dispatcher = task_dispatcher(threads)
        try:
            server = create_server(
                app,
                host=host,
                port=port,
                threads=threads,
                ident="ci-service",
                _dispatcher=dispatcher,
                **proxy_options(settings),
            )
        except OSError as exc:  # the port is taken, the address is not this machine's
            dispatcher.shutdown()
            shutdown_app(app)
            raise click.ClickException(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}"
            ) from None
        settings = publish_address(app, settings, host, server.effective_port)
        # Frozen before any job runs: nothing of a job or request in flight is kept from
        # the collector for good (ci_service/gc_tuning.py).
        keep_start_up_out_of_collections()
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
    # New deals' graph nodes, written many at a time right after the deals commit.
    projector = DealProjector().start()
    warm_up = (_on_first_answer(app), app.extensions["ci_api"])
    threading.Thread(target=_warm_up_imports, args=warm_up, name="ci-warm-up", daemon=True).start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        projector.stop()
        stop_background(app, timeout=10.0)
        shutdown_app(app)
        if presence is not None:
            presence.close()
        click.echo("ci-service stopped", err=True)


@click.command()
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

    # Loading the services registers every job type's steps, hooks and scheduled work.
    import ci_service.services  # noqa: F401
    from ci_service.jobs.background import start_background
    from ci_service.malloc_tuning import fix_mmap_threshold
    from ci_service.store.backup import hold_open
    from ci_service.store.db import close_database

    fix_mmap_threshold()  # the embedding jobs' batches too (ci_service/malloc_tuning.py)
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
    keep_start_up_out_of_collections()  # before any job runs (ci_service/gc_tuning.py)
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

    from ci_service.web.serving import summarize_queue_warnings

    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for name in ("ci_service.jobs", "ci_service.scheduler"):
        logging.getLogger(name).setLevel(logging.INFO)
    summarize_queue_warnings()  # waitress's busy-server warning: not a line per request
