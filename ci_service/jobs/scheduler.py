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
- Every ``DELIVERY_SCAN_SECONDS`` (and at start) each workspace with due pending deliveries
  gets a ``deliver-notifications`` job unless one is queued or running: retries, and
  deliveries whose job was interrupted by a crash (``services/delivery.py``).
- Every ``DIGEST_SCAN_MINUTES`` (and at start) the daily and weekly digests of the last
  complete period are made (``services/delivery_digest.py``).
"""

from __future__ import annotations

import logging
import threading
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


def delivery_scan(now: datetime | None = None) -> list[Job]:
    """Queue the delivery job of every workspace with due deliveries (logged, never raises)."""
    from ci_service.services.delivery import wake

    with connection():
        try:
            return wake(now)
        except Exception:
            log.exception("scheduled delivery scan failed")
            return []


def digest_scan(now: datetime | None = None) -> int:
    """Make the due digests; returns how many were made (logged, never raises)."""
    from ci_service.services.delivery_digest import enqueue_due_digests

    with connection():
        try:
            return len(enqueue_due_digests(now))
        except Exception:
            log.exception("scheduled digest scan failed")
            return 0


class Scheduler:
    """APScheduler in a background thread, running ``scan`` at start and periodically."""

    def __init__(self, minutes: float = SCAN_MINUTES):
        from apscheduler.executors.pool import ThreadPoolExecutor
        from apscheduler.schedulers.background import BackgroundScheduler

        self.minutes = minutes
        self._lock = threading.Lock()
        self._scheduler = BackgroundScheduler(
            timezone=UTC,
            executors={"default": ThreadPoolExecutor(1)},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300},
        )

    @property
    def running(self) -> bool:
        return self._scheduler.running

    def start(self) -> None:
        global _current
        with self._lock:
            if self._scheduler.running:
                return
            self._scheduler.add_job(
                scan,
                "interval",
                minutes=self.minutes,
                id=SCAN_JOB_ID,
                next_run_time=datetime.now(UTC),
                replace_existing=True,
            )
            self._scheduler.add_job(
                delivery_scan,
                "interval",
                seconds=DELIVERY_SCAN_SECONDS,
                id=DELIVERY_SCAN_JOB_ID,
                next_run_time=datetime.now(UTC),
                replace_existing=True,
            )
            self._scheduler.add_job(
                digest_scan,
                "interval",
                minutes=DIGEST_SCAN_MINUTES,
                id=DIGEST_SCAN_JOB_ID,
                next_run_time=datetime.now(UTC),
                replace_existing=True,
            )
            self._scheduler.start()
            _current = self

    def rescan_soon(self) -> None:
        with self._lock:
            if self._scheduler.running:
                self._scheduler.modify_job(SCAN_JOB_ID, next_run_time=datetime.now(UTC))

    def stop(self) -> None:
        """Idempotent. Waits for a scan in progress (scans only enqueue; they are short)."""
        global _current
        with self._lock:
            if self._scheduler.running:
                self._scheduler.shutdown(wait=True)
            if _current is self:
                _current = None


_current: Scheduler | None = None


def rescan_soon() -> None:
    """Ask the running scheduler (if any, in this process) to scan now: schedules changed."""
    current = _current
    if current is not None:
        current.rescan_soon()
