"""What the SQLite backup (backup.py) and the PostgreSQL one (pg_backup.py) share: the
error they raise and the migrations a restore ends with.

Split out of backup.py so there are no import cycles: backup.py hands a ``postgresql://``
URL to pg_backup.py, and both import this module, which imports neither.
"""

from __future__ import annotations

from ci_service.store.db import close_database, database, make_database
from ci_service.store.migrations import migrate


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why."""


def migrate_database(url_or_path: str) -> list[str]:
    """Bring a restored database's schema up to date (the same migrations ``serve`` runs);
    the models end bound to whatever they were bound to before."""
    previous = database.obj
    db = make_database(url_or_path, pool_size=1)
    try:
        database.initialize(db)  # migrations use the models, which are bound to the proxy
        with db.connection_context():
            return migrate(db)
    finally:
        database.initialize(previous)
        close_database(db)
