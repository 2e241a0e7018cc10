"""Per-key rate limiting and lastUsedAt, kept in memory and written behind.

The window is a fixed clock hour. Counting happens under one lock, so many threads serving
one key never let more than ``rateLimit`` requests through. Counts and lastUsedAt are
persisted at most every ``flush_seconds`` (and at shutdown), so reads do not each become a
write, and a restart resumes the window where it was; a SIGKILL can forget at most the last
flush interval of counts.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from ci_service.store.db import connection, transaction
from ci_service.store.identity import ApiKey, RateLimitCounter

WINDOW_SECONDS = 3600
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

    def _load(self, key_id: str, window_start: int) -> list[int]:
        row = RateLimitCounter.get_or_none(RateLimitCounter.id == key_id)
        if row is not None and row.window_start == window_start:
            return [window_start, row.count]
        return [window_start, 0]

    def hit(self, key_id: str, limit: int) -> RateDecision:
        """Count one request for ``key_id`` and say whether it is allowed."""
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
        if self.clock() - self._last_flush >= self.flush_seconds:
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
                    ApiKey.update(last_used_at=stamp).where(ApiKey.id == key_id).execute()
        except Exception:
            log.exception("could not persist API key usage; will retry")
            with self._lock:
                self._dirty.update(k for k in counters if k not in self._dirty)
                for key_id, when in last_used.items():
                    self._last_used.setdefault(key_id, when)
        finally:
            self._flush_lock.release()
