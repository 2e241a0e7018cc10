"""Periodic refreshes. The scheduler only enqueues; workers do the work.

Nothing about schedules is stored twice: APScheduler keeps no job store. One scan runs at
start and every ``SCAN_MINUTES`` and reads due-ness from the rows each time, so a changed
``refreshRate`` or a new organization is picked up by the next scan (``rescan_soon()``
brings it forward).

- A competitor is due when ``refreshRate`` days (> 0) have passed since the later of its
  ``lastRefreshAt`` and its latest collect job's creation (so a failed refresh is retried
  a period later, not every scan). A competitor with neither is due at once. One with an
  active collect job is skipped.
- Each workspace with an organization gets a ``refresh-organization-news`` job when no
  organization refresh job has been created for it in the last day.
- Every ``DELIVERY_SCAN_SECONDS`` (and at start) each workspace with pending deliveries
  due within a minute gets a ``deliver-notifications`` job queued for the earliest one
  (``run_after``: a retry leaves at its time, not at the next scan) unless one is queued
  for sooner or running: retries, and deliveries whose job was interrupted by a crash
  (``services/alerts/schedule.py``).
- Every ``DIGEST_SCAN_MINUTES`` (and at start) the daily and weekly digests of the last
  complete period are made (``services/alerts/digest.py``).
- Every ``UPKEEP_HOURS`` (first ``UPKEEP_DELAY`` after start) the SQLite full-text indexes
  with more than one segment are merged into one (``services/search/upkeep.py``): the
  one task here that works rather than enqueues, so it has a thread of its own and stops
  between merge steps when the scheduler stops.

Several processes on one PostgreSQL database (issue 15): the scans run in one of them at a
time, the leader (``leadership.py``: a lease with a heartbeat, issue 25); "at start" means
when a process takes the lead.
``CI_SERVICE_SCHEDULER_SCAN_SECONDS`` shortens the refresh scan's period (tests and demos).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from peewee import fn

from ci_service.jobs.queue import enqueue
from ci_service.jobs.registry import COLLECT, ORGANIZATION_NEWS, ORGANIZATION_REFRESH, REGISTRY
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection, database
from ci_service.store.jobs import Job
from ci_service.timeutil import utcnow

log = logging.getLogger("ci_service.scheduler")

SCAN_MINUTES = 15
NEWS_PERIOD = timedelta(days=1)
SCAN_JOB_ID = "refresh-scan"
DELIVERY_SCAN_SECONDS = 30
DELIVERY_SCAN_JOB_ID = "delivery-scan"
DIGEST_SCAN_MINUTES = 60
DIGEST_SCAN_JOB_ID = "digest-scan"
UPKEEP_HOURS = 24
UPKEEP_DELAY = timedelta(minutes=10)  # after start-up's own work (recovery, first scans)
UPKEEP_JOB_ID = "search-index-upkeep"
RETRY_SECONDS = 5.0  # how often a candidate tries to take the lead (PostgreSQL)
RETRY_ENV = "CI_SERVICE_SCHEDULER_RETRY_SECONDS"
SCAN_SECONDS_ENV = "CI_SERVICE_SCHEDULER_SCAN_SECONDS"


def _latest_created(types: tuple[str, ...], key) -> dict[str, datetime]:
    rows = (
        Job.select(key.alias("key"), fn.MAX(Job.created_at).alias("latest"))
        .where(Job.type.in_(types), key.is_null(False))
        .group_by(key)
        .dicts()
    )
    return {r["key"]: _as_datetime(r["latest"]) for r in rows}


def _as_datetime(value) -> datetime:
    # peewee converts MAX(created_at) with the field's python_value on some versions only.
    return value if isinstance(value, datetime) else Job.created_at.python_value(value)


def _active(types: tuple[str, ...], key) -> set[str]:
    rows = Job.select(key.alias("key")).where(Job.type.in_(types), Job.status == "running")
    return {r["key"] for r in rows.dicts()}


def is_due(competitor: Competitor, latest_job: datetime | None, now: datetime) -> bool:
    if competitor.refresh_rate is None or competitor.refresh_rate <= 0:
        return False  # refreshRate 0: no automatic refresh
    marks = [m for m in (competitor.last_refresh_at, latest_job) if m is not None]
    if not marks:
        return True
    return max(marks) + timedelta(days=competitor.refresh_rate) <= now


def enqueue_due_refreshes(now: datetime | None = None) -> list[Job]:
    """Enqueue a collect job for every competitor that is due at ``now``; return them."""
    now = now or utcnow()
    active = _active((COLLECT,), Job.competitor_id)
    latest = _latest_created((COLLECT,), Job.competitor_id)
    queued = []
    for competitor in Competitor.select().order_by(Competitor.created_at):
        if competitor.id in active or not is_due(competitor, latest.get(competitor.id), now):
            continue
        queued.append(
            enqueue(
                competitor.workspace_id,
                COLLECT,
                competitor_id=competitor.id,
                metadata={
                    "competitorName": competitor.name,
                    "isFirstRun": False,
                    "productIds": list(competitor.relevant_product_ids or []),
                    "trigger": "schedule",
                },
            )
        )
    return queued


def _organization_model():
    """The Organization model, or None while that table does not exist."""
    try:
        from ci_service.store.resources import Organization
    except ImportError:  # pragma: no cover - the table ships with the resources issue
        return None
    return Organization if database.table_exists(Organization._meta.table_name) else None


def enqueue_due_news(now: datetime | None = None) -> list[Job]:
    """Enqueue the daily news refresh for each workspace that has an organization."""
    now = now or utcnow()
    organization = _organization_model()
    if organization is None or ORGANIZATION_NEWS not in REGISTRY:
        return []
    types = (ORGANIZATION_NEWS, ORGANIZATION_REFRESH)
    workspace_key = Job.workspace
    active = _active(types, workspace_key)
    latest = _latest_created(types, workspace_key)
    queued = []
    for (workspace_id,) in organization.select(organization.workspace).tuples():
        if workspace_id in active:
            continue
        last = latest.get(workspace_id)
        if last is not None and last + NEWS_PERIOD > now:
            continue
        queued.append(enqueue(workspace_id, ORGANIZATION_NEWS, metadata={"trigger": "schedule"}))
    return queued


def scan(now: datetime | None = None) -> list[Job]:
    """One scheduler tick: both scans, each failing alone (logged) without stopping the other."""
    queued: list[Job] = []
    with connection():
        for part in (enqueue_due_refreshes, enqueue_due_news):
            try:
                queued.extend(part(now))
            except Exception:
                log.exception("scheduled scan %s failed", part.__name__)
    if queued:
        log.info("scheduler queued %d job(s)", len(queued))
    return queued


# The work behind the delivery, digest and search-index scans belongs to the services: they
# provide it when ci_service.services loads (``provide``), so this layer never imports them.
_WORK: dict[str, Callable] = {}


def provide(name: str, work: Callable) -> None:
    """Register the function a periodic scan calls: ``delivery``, ``digest`` or ``upkeep``."""
    _WORK[name] = work


def _work(name: str) -> Callable:
    try:
        return _WORK[name]
    except KeyError:
        raise RuntimeError(f"no {name} work registered (is ci_service.services loaded?)") from None


def delivery_scan(now: datetime | None = None) -> list[Job]:
    """Queue the delivery job of every workspace with due deliveries (logged, never raises)."""
    with connection():
        try:
            return _work("delivery")(now)
        except Exception:
            log.exception("scheduled delivery scan failed")
            return []


def digest_scan(now: datetime | None = None) -> int:
    """Make the due digests; returns how many were made (logged, never raises)."""
    with connection():
        try:
            return len(_work("digest")(now))
        except Exception:
            log.exception("scheduled digest scan failed")
            return 0


def search_index_upkeep(stopping=lambda: False) -> dict:
    """Merge the full-text indexes that need it; returns the report (logged, never raises)."""
    with connection():
        try:
            report = _work("upkeep")(stopping=stopping)
        except Exception:
            log.exception("search index upkeep failed")
            return {}
    for table, row in report.items():
        if row["steps"]:
            log.info("search index upkeep: %s %d -> %d segments in %.1fs", table,
                     row["before"], row["after"], row["seconds"])  # fmt: skip
    return report


class Scheduler:
    """APScheduler in a background thread, running the scans while this process leads.

    On SQLite the process always leads: the scans run at start and every period. On
    PostgreSQL (``database_url``, or the database the models are bound to) it is a
    candidate (``leadership.py``): a thread tries to take the lead every
    ``retry_seconds`` (env ``CI_SERVICE_SCHEDULER_RETRY_SECONDS``, default 5); the new
    leader scans at once and then every period. The same thread renews the leader's lease
    of ``lease_seconds`` every third of it; a leader that cannot renew stops scanning at
    once, and every scan first checks that the lease is still held and unexpired, so a
    process that was frozen past its lease never scans on the lead it lost. Taking the
    lead and each scan are logged at INFO.
    """

    def __init__(
        self,
        minutes: float | None = None,
        *,
        database_url: str | None = None,
        retry_seconds: float | None = None,
        lease_seconds: float | None = None,
        delivery_seconds: float = DELIVERY_SCAN_SECONDS,
        digest_minutes: float = DIGEST_SCAN_MINUTES,
    ):
        from apscheduler.executors.pool import ThreadPoolExecutor
        from apscheduler.schedulers.background import BackgroundScheduler

        from ci_service.jobs.leadership import DEFAULT_LEASE_SECONDS, Leadership, bound_database_url

        if minutes is None:
            scan_seconds = _seconds_from_env(SCAN_SECONDS_ENV)
            minutes = scan_seconds / 60 if scan_seconds is not None else SCAN_MINUTES
        if retry_seconds is None:
            retry_seconds = _seconds_from_env(RETRY_ENV) or RETRY_SECONDS
        if not (minutes > 0 and retry_seconds > 0):
            raise ValueError("the scheduler's periods must be more than 0")
        self.minutes = minutes
        self.delivery_seconds = delivery_seconds
        self.digest_minutes = digest_minutes
        self.retry_seconds = retry_seconds
        self.leadership = Leadership(
            database_url or bound_database_url(),
            lease_seconds=DEFAULT_LEASE_SECONDS if lease_seconds is None else lease_seconds,
        )
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._candidate: threading.Thread | None = None
        self._scheduler = BackgroundScheduler(
            timezone=UTC,
            executors={"default": ThreadPoolExecutor(1), "upkeep": ThreadPoolExecutor(1)},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300},
        )

    @property
    def running(self) -> bool:
        return self._scheduler.running

    @property
    def leading(self) -> bool:
        """Whether this process runs the scans (at the last check)."""
        return self.running and self.leadership.leading

    def start(self) -> None:
        global _current
        with self._lock:
            if self._scheduler.running:
                return
            self._stopping.clear()
            self._scheduler.start()
            _current = self
            if not self.leadership.contested:
                log.info("scheduler: this process runs the scans (pid %d)", os.getpid())
                self._add_scans()
                return
            self._candidate = threading.Thread(
                target=self._campaign, name="ci-scheduler-leadership", daemon=True
            )
            self._candidate.start()

    def _campaign(self) -> None:
        """Try to lead every ``retry_seconds``, and renew the lead every third of the lease
        while leading; scans follow the lead, as it comes and goes."""
        scanning = False
        while not self._stopping.is_set():
            leading = self.leadership.try_lead()
            with self._lock:
                if self._stopping.is_set():
                    break
                if leading and not scanning:
                    log.info("scheduler: this process is the leader now (pid %d)", os.getpid())
                    self._add_scans()
                elif scanning and not leading:
                    log.warning("scheduler: no longer the leader (pid %d)", os.getpid())
                    self._scheduler.remove_all_jobs()
                scanning = leading
            pause = self.leadership.heartbeat_seconds if leading else self.retry_seconds
            self._stopping.wait(pause)

    def _add_scans(self) -> None:
        now = datetime.now(UTC)
        for job_id, function, period in (
            (SCAN_JOB_ID, scan, {"minutes": self.minutes}),
            (DELIVERY_SCAN_JOB_ID, delivery_scan, {"seconds": self.delivery_seconds}),
            (DIGEST_SCAN_JOB_ID, digest_scan, {"minutes": self.digest_minutes}),
        ):
            self._scheduler.add_job(
                self._run,
                "interval",
                args=(job_id, function),
                id=job_id,
                next_run_time=now,
                replace_existing=True,
                **period,
            )
        upkeep = functools.partial(search_index_upkeep, stopping=self._stopping.is_set)
        self._scheduler.add_job(
            self._run,
            "interval",
            args=(UPKEEP_JOB_ID, upkeep),
            id=UPKEEP_JOB_ID,
            executor="upkeep",
            next_run_time=now + UPKEEP_DELAY,
            replace_existing=True,
            hours=UPKEEP_HOURS,
        )

    def _run(self, job_id: str, function) -> None:
        # Checked live on PostgreSQL: a leader that was frozen (or lost its connection) may
        # have been replaced already, and two leaders must never scan at once. Only an
        # unexpired lease held now counts, never one this process would take afresh here.
        if self.leadership.contested and not self.leadership.confirm():
            log.info("scheduler: %s skipped, this process no longer leads", job_id)
            return
        log.info("scheduler: %s runs (pid %d)", job_id, os.getpid())
        function()

    def rescan_soon(self) -> None:
        """Bring the refresh scan forward, when this process leads (else the leader scans
        at its next period)."""
        with self._lock:
            if self._scheduler.running and self._scheduler.get_job(SCAN_JOB_ID) is not None:
                self._scheduler.modify_job(SCAN_JOB_ID, next_run_time=datetime.now(UTC))

    def stop(self) -> None:
        """Idempotent. Waits for a scan in progress (scans only enqueue; they are short),
        then gives the lead up so another process takes it over at once."""
        global _current
        self._stopping.set()
        candidate, self._candidate = self._candidate, None
        if candidate is not None:
            candidate.join()
        with self._lock:
            if self._scheduler.running:
                self._scheduler.shutdown(wait=True)
            if _current is self:
                _current = None
        self.leadership.release()


def _seconds_from_env(name: str) -> float | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {raw!r}") from None
    if not value > 0:
        raise ValueError(f"{name} must be more than 0, not {raw!r}")
    return value


_current: Scheduler | None = None


def rescan_soon() -> None:
    """Ask the running scheduler (if any, in this process) to scan now: schedules changed."""
    current = _current
    if current is not None:
        current.rescan_soon()
