"""Per-key rate limiting and lastUsedAt, kept in memory and written behind.

The window is a fixed clock hour. Counting happens under one lock, so many threads serving
one key never let more than ``rateLimit`` requests through. Counts and lastUsedAt are
persisted at most every ``flush_seconds`` (and at shutdown), so reads do not each become a
write, and a restart resumes the window where it was; a SIGKILL can forget at most the last
flush interval of counts. ``serve`` flushes from a thread of its own (``start_flusher``), so
no request writes them at all; an app without that thread (the tests') flushes after a
request when one is due.

On PostgreSQL several processes serve one key, so a count in one process's memory is not
the count. There ``SharedUsageTracker`` leases slots of the window from the key's
``rate_limit_counter`` row (one atomic upsert, ``RETURNING`` the new mark) and numbers its
requests from them: exact across processes, and a read writes only when its process's
lease runs out, one statement per up to ``LEASE_MAX`` requests (issue 31). Redis would do
the same with INCRBY, but the database is already there, already backed up and already
transactional, so it is the one source of truth. lastUsedAt stays written behind.

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
from ci_service.store.db import connection, connection_lost, outage, transaction
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
        if self._flusher is None and self._due():
            self.flush(only_if_due=True)

    def _due(self) -> bool:
        return self.clock() - self._last_flush >= self.flush_seconds

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

    def flush(self, *, only_if_due: bool = False) -> None:
        """Persist counters and lastUsedAt; safe to call from any thread. ``only_if_due``:
        unless another thread has just flushed (threads that found a flush due at once
        flush once)."""
        if not self._flush_lock.acquire(blocking=False):
            return  # another thread is flushing right now
        try:
            if not only_if_due or self._due():
                self._flush_held()
        finally:
            self._flush_lock.release()

    def _flush_held(self) -> None:
        """One flush, under the flush lock."""
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
                connection_lost()  # a restart closed it: once more on a new one
                self._write(counters, last_used)
        except Exception:
            log.exception("could not persist API key usage; will retry")
            with self._lock:
                self._dirty.update(k for k in counters if k not in self._dirty)
                for key_id, when in last_used.items():
                    self._last_used.setdefault(key_id, when)

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


# One statement: ``%s`` more slots of the key's current window (a new window starts at
# them); the new high-water mark comes back.
_LEASE_SQL = (
    "INSERT INTO rate_limit_counter (id, window_start, count) VALUES (%s, %s, %s) "
    "ON CONFLICT (id) DO UPDATE SET count = CASE "
    "WHEN rate_limit_counter.window_start = EXCLUDED.window_start "
    "THEN rate_limit_counter.count + EXCLUDED.count ELSE EXCLUDED.count END, "
    "window_start = EXCLUDED.window_start "
    "RETURNING count"
)
# Unused slots go back only while nobody has leased after them (the mark is still ours).
_RETURN_SQL = (
    "UPDATE rate_limit_counter SET count = count - %s "
    "WHERE id = %s AND window_start = %s AND count = %s"
)
LEASE_MAX = 32  # slots one lease takes at most
LEASE_SHARE = 8  # and at most this fraction of what the window has left


class _Lease:
    """Slots ``next`` .. ``end`` of a key's window, this process's to hand out."""

    __slots__ = ("window_start", "next", "end", "used")

    def __init__(self, window_start: int, end: int, size: int) -> None:
        self.window_start = window_start
        self.next = end - size + 1
        self.end = end
        self.used = True  # since the last flush


class SharedUsageTracker(UsageTracker):
    """Rate limits counted in the database (PostgreSQL, several processes): see above.

    Each process leases slots of the key's window from its ``rate_limit_counter`` row (one
    atomic upsert, ``RETURNING`` the new mark) and numbers its requests from them, so no
    two requests anywhere get the same slot and none past ``rateLimit`` is allowed: the
    count stays exact while a read does not write. A lease takes up to ``LEASE_MAX``
    slots, never more than an eighth of what the window has left, so near the limit a
    lease is one slot and no process sits on slots another needs. Slots a process leased
    and did not use go back at the next flush once it has been idle for one (and at
    shutdown), when nobody has leased after them; a process killed outright keeps at most
    ``LEASE_MAX`` slots of each key until the hour ends.

    A refused request takes a slot too (past the limit), which changes nothing: a request
    is allowed while its slot is at most the limit."""

    def __init__(self, flush_seconds: float = 1.0, clock=time.time):
        super().__init__(flush_seconds, clock)
        self._leases: dict[str, _Lease] = {}
        self._lease_lock = threading.Lock()  # one lease statement at a time

    def _count(self, key_id: str, limit: int) -> RateDecision:
        now = self.clock()
        window_start = int(now // WINDOW_SECONDS) * WINDOW_SECONDS
        with self._lease_lock:
            lease = self._leases.get(key_id)
            if lease is None or lease.window_start != window_start or lease.next > lease.end:
                lease = self._leases[key_id] = self._lease(key_id, window_start, limit, lease)
            slot = lease.next
            lease.next += 1
            lease.used = True
        with self._lock:
            self._last_used[key_id] = now
        return RateDecision(
            slot <= limit, limit, max(0, limit - slot), window_start + WINDOW_SECONDS
        )

    @staticmethod
    def _lease(key_id: str, window_start: int, limit: int, last: _Lease | None) -> _Lease:
        from ci_service.store.db import database

        # Sized from the mark this process last saw: one slot when it knows nothing yet.
        seen = last.end if last is not None and last.window_start == window_start else None
        size = 1 if seen is None else max(1, min(LEASE_MAX, (limit - seen) // LEASE_SHARE))
        with connection():
            (end,) = database.execute_sql(_LEASE_SQL, (key_id, window_start, size)).fetchone()
        return _Lease(window_start, end, size)

    def _flush_held(self) -> None:
        # Under the flush lock: two threads finding a flush due at once must not count as
        # two idle flushes in a row, or a busy lease would go back (stop 38's CI failure).
        super()._flush_held()  # lastUsedAt
        self._return_leases(idle_only=True)

    def stop_flusher(self, timeout: float = 10.0) -> None:
        super().stop_flusher(timeout)
        self._return_leases(idle_only=False)

    def _return_leases(self, *, idle_only: bool) -> None:
        """Give back the unused slots of idle leases (of every lease: ``idle_only`` False).

        Under the lease lock throughout: a lease this process took between forgetting a
        lease and giving its slots back would move the mark, and those slots would be lost
        to the window (the CI failure of stop 38: 47 of 50 requests allowed)."""
        from ci_service.store.db import database

        with self._lease_lock:
            returning = []
            for key_id, lease in list(self._leases.items()):
                if idle_only and lease.used:
                    lease.used = False  # idle if still unused at the next flush
                    continue
                del self._leases[key_id]
                if lease.next <= lease.end:
                    returning.append((key_id, lease))
            if not returning:
                return
            try:
                with connection():  # each statement on its own: no write lock needed
                    for key_id, lease in returning:
                        unused = lease.end - lease.next + 1
                        params = (unused, key_id, lease.window_start, lease.end)
                        database.execute_sql(_RETURN_SQL, params)
            except Exception:
                # Not given back: the window counts them as used, which refuses no more
                # than they number, and only until the hour ends.
                log.warning("could not give back unused rate-limit slots", exc_info=True)


def make_tracker(flush_seconds: float) -> UsageTracker:
    """The tracker for the bound database: in memory on SQLite, shared on PostgreSQL."""
    from ci_service.store.db import is_postgres

    cls = SharedUsageTracker if is_postgres() else UsageTracker
    return cls(flush_seconds=flush_seconds)
