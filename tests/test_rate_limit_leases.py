"""Rate limits on PostgreSQL without a write per request (issue 31): each process leases
slots of the key's window from its counter row and numbers its requests from them
(services/identity/usage.py ``SharedUsageTracker``)."""

from __future__ import annotations

import pytest

from ci_service.services.identity import usage
from ci_service.services.identity.usage import LEASE_MAX, SharedUsageTracker
from ci_service.store.db import connection
from ci_service.store.identity import RateLimitCounter

pytestmark = pytest.mark.backends("postgresql")


def stored_count(key_id: str) -> int:
    with connection():
        return RateLimitCounter.get_by_id(key_id).count


@pytest.fixture()
def leases(monkeypatch):
    """Every lease taken: (key id, slots asked for)."""
    taken: list[tuple[str, int]] = []
    original = SharedUsageTracker._lease

    def counted(key_id, window_start, limit, last):
        lease = original(key_id, window_start, limit, last)
        taken.append((key_id, lease.end - lease.next + 1))
        return lease

    monkeypatch.setattr(SharedUsageTracker, "_lease", staticmethod(counted))
    return taken


def test_a_read_writes_once_per_lease_not_once_per_request(app, make_workspace, make_key, leases):
    _key, row = make_key(make_workspace(), rate_limit=1_000_000)
    tracker = SharedUsageTracker()
    with connection():
        decisions = [tracker.hit(row.id, 1_000_000) for _ in range(200)]
    assert all(d.allowed for d in decisions)
    # Every request its own slot, in order: 999999, 999998, ...
    assert [d.remaining for d in decisions] == list(range(999_999, 999_799, -1))
    assert leases[0][1] == 1  # knowing nothing of the window yet: one slot
    assert all(size == LEASE_MAX for _, size in leases[1:])
    assert len(leases) == 1 + -(-199 // LEASE_MAX)  # 8 statements for 200 requests
    assert 200 <= stored_count(row.id) < 200 + LEASE_MAX


def test_unused_slots_go_back_once_the_process_is_idle(app, make_workspace, make_key, leases):
    _key, row = make_key(make_workspace(), rate_limit=1_000_000)
    tracker = SharedUsageTracker()
    with connection():
        for _ in range(50):
            tracker.hit(row.id, 1_000_000)
    assert stored_count(row.id) > 50  # leased ahead
    tracker.flush()  # used since the last flush: kept
    assert stored_count(row.id) > 50
    tracker.flush()  # idle for a whole flush: given back
    assert stored_count(row.id) == 50
    with connection():
        assert tracker.hit(row.id, 1_000_000).remaining == 1_000_000 - 51


def test_slots_another_process_leased_after_are_never_given_back_twice(
    app, make_workspace, make_key
):
    _key, row = make_key(make_workspace(), rate_limit=1_000_000)
    first, second = SharedUsageTracker(), SharedUsageTracker()
    with connection():
        for _ in range(3):  # leases of 1 and LEASE_MAX slots: the mark is at 1 + 32
            first.hit(row.id, 1_000_000)
        seen = [second.hit(row.id, 1_000_000).remaining for _ in range(3)]
    mark = stored_count(row.id)
    assert mark == 1 + LEASE_MAX + 1 + LEASE_MAX
    first.stop_flusher()  # its unused slots lie below the second's: kept as used
    assert stored_count(row.id) == mark
    second.stop_flusher()  # the mark is still the second's: its unused slots go back
    assert stored_count(row.id) == mark - (LEASE_MAX - 2)
    # No slot was handed out twice.
    assert len(set(seen)) == 3 and min(seen) > 1_000_000 - mark


def test_a_lease_never_takes_more_than_an_eighth_of_what_is_left(
    app, make_workspace, make_key, leases
):
    _key, row = make_key(make_workspace(), rate_limit=100)
    tracker = SharedUsageTracker()
    with connection():
        for _ in range(120):
            tracker.hit(row.id, 100)
    sizes = [size for _, size in leases]
    assert sizes[0] == 1 and sizes[1] == (100 - 1) // usage.LEASE_SHARE
    assert max(sizes) <= LEASE_MAX and sizes[-1] == 1


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_threads_that_find_a_flush_due_at_once_flush_once(app, make_workspace, make_key):
    """Stop 38's CI failure: two back-to-back flushes counted as a whole idle flush, so a
    busy process gave its lease back (and lost slots: 47 of 50 requests allowed)."""
    _key, row = make_key(make_workspace(), rate_limit=1_000_000)
    clock = Clock()
    tracker = SharedUsageTracker(flush_seconds=1.0, clock=clock)
    with connection():
        for _ in range(50):
            tracker.hit(row.id, 1_000_000)
    clock.now += 1.0
    tracker.maybe_flush()  # the lease was used since the last flush: kept, now idle
    tracker.flush(only_if_due=True)  # a second thread that also found it due: no flush
    assert stored_count(row.id) > 50
    clock.now += 1.0
    tracker.maybe_flush()  # idle for a whole flush: given back
    assert stored_count(row.id) == 50


def test_no_lease_is_taken_while_unused_slots_go_back(app, make_workspace, make_key, monkeypatch):
    """A lease taken between forgetting a lease and giving its slots back would move the
    mark past them, and they would be lost to the window."""
    from ci_service.store.db import database

    _key, row = make_key(make_workspace(), rate_limit=1_000_000)
    tracker = SharedUsageTracker()
    with connection():
        for _ in range(5):
            tracker.hit(row.id, 1_000_000)
    held: list[bool] = []
    bound = database.obj  # the proxy's database
    execute = bound.execute_sql

    def watched(sql, params=None, *args, **kwargs):
        if sql == usage._RETURN_SQL:
            held.append(tracker._lease_lock.locked())
        return execute(sql, params, *args, **kwargs)

    monkeypatch.setattr(bound, "execute_sql", watched)
    tracker.stop_flusher()
    assert held == [True]
    assert stored_count(row.id) == 5
