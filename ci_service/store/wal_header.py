"""A SQLite database's commits seen without asking SQLite (issue 31).

In WAL mode every connection to a database file, in any process, shares the WAL index: the
``-shm`` file beside it, memory-mapped by each. Its first 96 bytes are the index header,
written twice (two copies of 48 bytes) by every commit: the number of frames in the log,
their checksum and the log's salts (https://www.sqlite.org/walformat.html, "The WAL-Index
Header"). A commit appends frames, so it always leaves a header that differs from every
earlier one; a checkpoint that starts the log again writes new salts. Reading the same 96
bytes twice therefore means nothing was committed between the readings, in this process
or any other: what ``PRAGMA data_version`` says, for a memory read instead of a statement
(about 40 ns against 2.4 µs here, and no release of the GIL).

The reading is only sound while the file mapped here is the one SQLite uses: the last
connection to close a WAL database deletes its ``-shm``, and the first to open one
truncates it and starts it again. Both are kept off by a shared lock that SQLite holds on
the index for as long as any connection of the process has it open, so ``WalHeader`` keeps
a connection of its own open on the database, having read from it.

That lock is a POSIX record lock, and closing *any* descriptor of a file drops all of a
process's locks on it: opening the ``-shm`` file here and closing it again, or letting
Python's ``mmap`` duplicate a descriptor and close its copy, would silently take SQLite's
locks away (another process would then truncate the index under this one's mapping: a
SIGBUS). So the header is mapped with libc's ``mmap`` on the descriptor SQLite itself
opened, found by its inode; no descriptor is opened or closed here. Where that cannot be
done (no ``/proc/self/fd`` or ``/dev/fd``, no libc), ``open`` gives None and callers ask
SQLite. The module is imported on the first key check (``SQLiteDatabase.commit_signal``),
not at start-up: ``ctypes`` is not needed before.

A header read while a commit writes it may mix old and new bytes: that only differs from
the old header, so it costs one extra read, never a missed commit.
"""

from __future__ import annotations

import ctypes
import logging
import mmap
import os
import sqlite3

HEADER_BYTES = 96  # both copies of the WAL-index header
FD_DIRECTORIES = ("/proc/self/fd", "/dev/fd")
log = logging.getLogger(__name__)


class WalHeader:
    """The WAL-index header of one database file, mapped read-only; ``read`` returns its
    bytes now. Made with ``open``, which gives None where there is none to read."""

    def __init__(self, conn: sqlite3.Connection, address: int) -> None:
        self._conn = conn  # holds SQLite's lock on the index (the module says why)
        self._bytes = (ctypes.c_char * HEADER_BYTES).from_address(address)

    def read(self) -> bytes:
        return self._bytes.raw

    @classmethod
    def open(cls, path: str) -> WalHeader | None:
        """The header of the database at ``path``; None for an in-memory database, one not
        in WAL mode, or one whose index cannot be mapped (callers then ask SQLite)."""
        if path == ":memory:" or path.startswith("file:"):
            return None
        conn = None
        try:
            conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
            if str(mode).lower() == "wal":
                # A read opens and maps the index; the connection keeps it open.
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                address = _map_header(path + "-shm")
                if address is not None:
                    return cls(conn, address)
        except (OSError, ValueError, sqlite3.Error) as exc:
            log.debug("no WAL-index header to read for %s: %s", path, exc)
        if conn is not None:
            conn.close()
        return None

    def close(self) -> None:
        """Close the connection. The mapping (one page) stays until the process exits: a
        request thread that took this header just before may still read it, and reading
        unmapped memory would kill the process."""
        self._conn.close()


def _map_header(shm_path: str) -> int | None:
    """The address of the index file's first ``HEADER_BYTES``, mapped read-only from the
    descriptor SQLite opened on it; None when it is not found or cannot be mapped."""
    st = os.stat(shm_path)
    if st.st_size < HEADER_BYTES:
        return None
    fd = _open_descriptor(st.st_dev, st.st_ino)
    libc = _libc()
    if fd is None or libc is None:
        return None
    address = libc.mmap(None, HEADER_BYTES, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if address in (None, ctypes.c_void_p(-1).value):  # MAP_FAILED
        return None
    return address


def _open_descriptor(device: int, inode: int) -> int | None:
    """A descriptor this process holds open on the file (``fstat`` opens nothing)."""
    for directory in FD_DIRECTORIES:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            try:
                st = os.fstat(int(name))
            except (OSError, ValueError):
                continue  # the listing's own descriptor, gone since
            if (st.st_dev, st.st_ino) == (device, inode):
                return int(name)
    return None


def _libc():
    """libc's ``mmap``, typed, from the symbols the interpreter itself links (no search
    for the library); None where it is not there."""
    global _LIBC
    if _LIBC is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mmap  # noqa: B018 - there, or None
        except (OSError, AttributeError):
            return None
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [
            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
            ctypes.c_long,
        ]  # fmt: skip
        _LIBC = libc
    return _LIBC


_LIBC = None
