"""WAL checkpoints off the request path (SQLite, issue 31).

SQLite copies the write-ahead log back into the database file once it has grown past
``wal_autocheckpoint`` pages (1,000), in the commit that crossed the line, while that
connection still holds the process's write lock. Copying is quick; the two fsyncs around
it are not (about 8 of a checkpoint's 9 ms here). For ``serve`` that meant one deal in
about thirty paid them for everyone's pages, and every write behind it waited.

The long-running processes (``keep_writer_connection``) raise that limit on their writer
connection to ``WRITER_AUTOCHECKPOINT`` (a backstop) and checkpoint from a thread of their
own, on a connection of their own, a few times a second. A PASSIVE checkpoint takes no
write lock: writes and reads go on while it copies and syncs. But the log only starts
again from its beginning when a write begins with every page of it copied, which never
happens while writes go on during the copy: so once the log holds ``RESTART_PAGES``, the
thread checkpoints once more holding the process's write lock, which copies only what
came in meanwhile. Other processes on the file (the CLI) keep SQLite's automatic
checkpoints.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable

CHECKPOINT_SECONDS = 0.25  # between two checkpoints
RESTART_PAGES = 4_000  # the log's length (16 MB at 4 KB pages) at which it starts again
LOCK_WAIT_SECONDS = 1.0  # for the write lock at most, then the next round
# The writer connection's own automatic checkpoint, kept as a backstop should the thread
# fall behind or fail: never reached while it keeps the log near ``RESTART_PAGES``.
WRITER_AUTOCHECKPOINT = 4 * RESTART_PAGES
log = logging.getLogger(__name__)


class Checkpointer:
    """A thread that checkpoints a WAL database every ``interval`` seconds until ``stop``.
    ``lock`` is the process's write lock, ``idle`` says whether its holder may checkpoint
    (no transaction open on the writer connection)."""

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection],
        lock: threading.Lock,
        idle: Callable[[], bool],
        interval: float | None = None,
    ) -> None:
        self._connect = connect
        self._lock = lock
        self._idle = idle
        self.interval = CHECKPOINT_SECONDS if interval is None else interval
        self.checkpoints = 0  # checkpoints run (tests read it)
        self.restarts = 0  # of them, under the write lock
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ci-wal-checkpoint", daemon=True)

    def start(self) -> Checkpointer:
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        conn = None
        while not self._stopping.wait(self.interval):
            try:
                if conn is None:
                    conn = self._connect()
                self._checkpoint(conn)
            except sqlite3.Error:
                # The file went away or another process is checkpointing it: the next
                # round tries again, on a new connection.
                log.debug("WAL checkpoint failed; trying again", exc_info=True)
                if conn is not None:
                    conn.close()
                    conn = None
        if conn is not None:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        # Returns at once when the log holds nothing new; never waits for a lock.
        _busy, pages, _copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.checkpoints += 1
        # Queued with the writers (each waits for a write, not for the whole log).
        if pages < RESTART_PAGES or not self._lock.acquire(timeout=LOCK_WAIT_SECONDS):
            return
        try:
            if self._idle():
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                self.checkpoints += 1
                self.restarts += 1
        finally:
            self._lock.release()
