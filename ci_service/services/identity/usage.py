"""Per-key rate limiting and lastUsedAt, kept in memory and written behind.

The window is a fixed clock hour. Counting happens under one lock, so many threads serving
one key never let more than ``rateLimit`` requests through. Counts and lastUsedAt are
persisted at most every ``flush_seconds`` (and at shutdown), so reads do not each become a
write, and a restart resumes the window where it was; a SIGKILL can forget at most the last
flush interval of counts. ``serve`` flushes from a thread of its own (``start_flusher``), so
no request writes them at all; an app without that thread (the tests') flushes after a
request when one is due.

On PostgreSQL several processes serve one key, so a count in one process's memory is not
the count. There ``SharedUsageTracker`` counts each request with one atomic upsert on the
key's ``rate_limit_counter`` row (``RETURNING count``): exact across processes, no lock held
past the statement, and nothing else to run. Redis would do the same with INCR, but the
database is already there, already backed up and already transactional, so it is the one
source of truth. lastUsedAt stays written behind.

When the database goes away (issue 25): a request is counted once however often it runs
(a read that lost its connection runs again, web/outages.py: ``begin_request`` hands the
tracker the request's record of what it counted). A flush that finds its connection lost
writes again at once on a new one; one that fails otherwise keeps everything for the next
flush. Flushes write absolute counts, so writing the same counter twice never adds.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from ci_service.store.connection_health import LOST
from ci_service.store.db import connection, discard_connection, outage, transaction
from ci_service.store.identity import ApiKey, RateLimitCounter
from ci_service.store.oauth import OAuthGrant

WINDOW_SECONDS = 3600
OAUTH_PREFIX = "oauth:"  # key_id of a bearer token's principal: "oauth:<connection id>"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    remaining: int
    reset: int  # Unix seconds when the window ends

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }

    def retry_after(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        return max(1, int(self.reset - now))


class UsageTracker:
    def __init__(self, flush_seconds: float = 1.0, clock=time.time):
        self.flush_seconds = flush_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._counters: dict[str, list[int]] = {}  # key_id -> [window_start, count]
        self._dirty: set[str] = set()
        self._last_used: dict[str, float] = {}
        self._last_flush = clock()
        self._request = threading.local()  # the running request's counted decisions
        self._flusher: threading.Thread | None = None
        self._stop_flusher = threading.Event()

    def begin_request(self, counted: dict) -> None:
        """Count this thread's request once: ``counted`` (kept by the caller for every run
        of one request) maps each key already counted to its decision."""
        self._request.counted = counted

    def end_request(self) -> None:
        self._request.counted = None

    def hit(self, key_id: str, limit: int) -> RateDecision:
        """Count one request for ``key_id`` and say whether it is allowed (inside a request
        that was counted already, its decision again)."""
        counted = getattr(self._request, "counted", None)
        if counted is None:
            return self._count(key_id, limit)
        decision = counted.get(key_id)
        if decision is None:
            decision = counted[key_id] = self._count(key_id, limit)
        return decision

    def _load(self, key_id: str, window_start: int) -> list[int]:
        row = RateLimitCounter.get_or_none(RateLimitCounter.id == key_id)
        if row is not None and row.window_start == window_start:
            return [window_start, row.count]
        return [window_start, 0]

    def _count(self, key_id: str, limit: int) -> RateDecision:
        now = self.clock()
        window_start = int(now // WINDOW_SECONDS) * WINDOW_SECONDS
        reset = window_start + WINDOW_SECONDS
        counter = self._counters.get(key_id)
        if counter is None:
            loaded = self._load(key_id, window_start)  # outside the lock: a DB read
        with self._lock:
            counter = self._counters.get(key_id)
            if counter is None:
                counter = self._counters[key_id] = loaded
            if counter[0] != window_start:
                counter[0], counter[1] = window_start, 0
            allowed = counter[1] < limit
            if allowed:
                counter[1] += 1
                self._dirty.add(key_id)
            self._last_used[key_id] = now
            remaining = max(0, limit - counter[1])
        return RateDecision(allowed, limit, remaining, reset)

    def maybe_flush(self) -> None:
        """After a request: flush when due, unless a flusher thread does (then never)."""
        if self._flusher is None and self.clock() - self._last_flush >= self.flush_seconds:
            self.flush()

    def start_flusher(self) -> None:
        """Flush every ``flush_seconds`` from a thread of its own (``serve``), so that no
        request writes: a read stays a read (issue 31). ``stop_flusher`` ends it."""
        if self._flusher is not None:
            return
        self._stop_flusher.clear()
        interval = max(0.05, self.flush_seconds)

        def loop() -> None:
            while not self._stop_flusher.wait(interval):
                self.flush()

        self._flusher = threading.Thread(target=loop, name="ci-usage-flush", daemon=True)
        self._flusher.start()

    def stop_flusher(self, timeout: float = 10.0) -> None:
        """End the flusher thread (if any), then flush what is left; idempotent."""
        flusher, self._flusher = self._flusher, None
        if flusher is not None:
            self._stop_flusher.set()
            flusher.join(timeout)
        self.flush()

    def flush(self) -> None:
        """Persist counters and lastUsedAt; safe to call from any thread."""
        if not self._flush_lock.acquire(blocking=False):
            return  # another thread is flushing right now
        try:
            with self._lock:
                counters = {k: tuple(self._counters[k]) for k in self._dirty}
                last_used, self._last_used = self._last_used, {}
                self._dirty = set()
                self._last_flush = self.clock()
            if not counters and not last_used:
                return
            try:
                self._write(counters, last_used)
            except Exception as exc:
                if outage(exc) != LOST:
                    raise
                discard_connection()  # a restart closed it: once more on a new one
                self._write(counters, last_used)
        except Exception:
            log.exception("could not persist API key usage; will retry")
            with self._lock:
                self._dirty.update(k for k in counters if k not in self._dirty)
                for key_id, when in last_used.items():
                    self._last_used.setdefault(key_id, when)
        finally:
            self._flush_lock.release()

    @staticmethod
    def _write(counters: dict[str, tuple[int, int]], last_used: dict[str, float]) -> None:
        with connection(), transaction():
            for key_id, (window_start, count) in counters.items():
                RateLimitCounter.insert(
                    id=key_id, window_start=window_start, count=count
                ).on_conflict(
                    conflict_target=[RateLimitCounter.id],
                    update={
                        RateLimitCounter.window_start: window_start,
                        RateLimitCounter.count: count,
                    },
                ).execute()
            for key_id, when in last_used.items():
                stamp = datetime.fromtimestamp(when, UTC)
                if key_id.startswith(OAUTH_PREFIX):  # a tool server connection (issue 17)
                    grant_id = key_id[len(OAUTH_PREFIX) :]
                    OAuthGrant.update(last_used_at=stamp).where(OAuthGrant.id == grant_id).execute()
                else:
                    ApiKey.update(last_used_at=stamp).where(ApiKey.id == key_id).execute()


# One statement: the count of the key's current window, +1 (a new window starts at 1).
_COUNT_SQL = (
    "INSERT INTO rate_limit_counter (id, window_start, count) VALUES (%s, %s, 1) "
    "ON CONFLICT (id) DO UPDATE SET count = CASE "
    "WHEN rate_limit_counter.window_start = EXCLUDED.window_start "
    "THEN rate_limit_counter.count + 1 ELSE 1 END, window_start = EXCLUDED.window_start "
    "RETURNING count"
)


class SharedUsageTracker(UsageTracker):
    """Rate limits counted in the database (PostgreSQL, several processes): see above.

    A refused request is counted too (the count passes the limit), which changes nothing:
    a request is allowed while the count, its own included, is at most the limit."""

    def _count(self, key_id: str, limit: int) -> RateDecision:
        from ci_service.store.db import database

        now = self.clock()
        window_start = int(now // WINDOW_SECONDS) * WINDOW_SECONDS
        with connection():
            count = database.execute_sql(_COUNT_SQL, (key_id, window_start)).fetchone()[0]
        with self._lock:
            self._last_used[key_id] = now
        return RateDecision(
            count <= limit, limit, max(0, limit - count), window_start + WINDOW_SECONDS
        )


def make_tracker(flush_seconds: float) -> UsageTracker:
    """The tracker for the bound database: in memory on SQLite, shared on PostgreSQL."""
    from ci_service.store.db import is_postgres

    cls = SharedUsageTracker if is_postgres() else UsageTracker
    return cls(flush_seconds=flush_seconds)
