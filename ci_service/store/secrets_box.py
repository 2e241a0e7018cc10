"""Secrets the service must read back (webhook and chat targets, webhook signing secrets),
encrypted at rest with Fernet (``cryptography``: AES-128-CBC and HMAC-SHA256).

Where the key comes from, first match wins:

1. ``CI_SERVICE_SECRET_KEY`` (a Fernet key), on either backend;
2. SQLite: a key file beside the database (``<database>.key``, created on first use with
   mode 0600). A backup of the database without its key file cannot read the stored
   targets: keep both;
3. PostgreSQL: the file named by ``CI_SERVICE_SECRET_KEY_FILE``, else
   ``ci-service-<dbname>.key`` in the working directory (created on first use). Several
   processes on several machines share one database, so they must share one key: set
   ``CI_SERVICE_SECRET_KEY`` (or point ``CI_SERVICE_SECRET_KEY_FILE`` at one file) on
   every process. A database URL is never turned into a file path (issue 15).
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

KEY_ENV = "CI_SERVICE_SECRET_KEY"
KEY_FILE_ENV = "CI_SERVICE_SECRET_KEY_FILE"

_lock = threading.Lock()
_fernets: dict[str, object] = {}


def _database_name(db) -> str | None:
    """``db`` is a peewee database, a database URL or path, or None (the bound one)."""
    from ci_service.store.db import is_postgres_url, sqlite_path

    if isinstance(db, str | os.PathLike):
        text = str(db)
        if is_postgres_url(text):
            return text
        path = sqlite_path(text)  # as make_database names it, so the same key file
        return path if path == ":memory:" else str(Path(path).expanduser())
    if db is None:
        from ci_service.store.db import database as db
    return getattr(db, "database", None)


def _postgres_key_path(url: str) -> Path:
    configured = os.environ.get(KEY_FILE_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    name = unquote(urlsplit(url).path.lstrip("/")) or "postgres"
    # One file name per database, whatever characters its name holds.
    return Path(f"ci-service-{re.sub(r'[^A-Za-z0-9._-]', '_', name)}.key")


def _key_path(db=None) -> Path:
    """The key file of ``db`` (default: the database the models are bound to)."""
    from ci_service.store.db import is_postgres_url

    name = _database_name(db) or "ci-service.db"
    if is_postgres_url(name):
        return _postgres_key_path(name)
    if name == ":memory:":
        name = "ci-service.db"
    return Path(f"{name}.key")


def key_source(db=None) -> str:
    """Where the key of ``db`` comes from, for messages: the variable's name or the file."""
    if os.environ.get(KEY_ENV, "").strip():
        return KEY_ENV
    return str(_key_path(db))


def fernet_for(db=None, *, create: bool = True):
    """The Fernet of database ``db`` (default: the bound one). A missing key file is
    created unless ``create`` is false, then ``FileNotFoundError``."""
    from cryptography.fernet import Fernet

    configured = os.environ.get(KEY_ENV, "").strip()
    source = configured or str(_key_path(db))
    with _lock:
        if source not in _fernets:
            if configured:
                key = configured.encode()
            else:
                path = Path(source)
                if not path.exists():
                    if not create:
                        raise FileNotFoundError(f"no key file at {path}")
                    path.parent.mkdir(parents=True, exist_ok=True)
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "wb") as handle:
                        handle.write(Fernet.generate_key())
                key = path.read_bytes().strip()
            _fernets[source] = Fernet(key)
        return _fernets[source]


def _fernet():
    return fernet_for(None)


def encrypt(plain: str) -> str:
    return _fernet().encrypt(plain.encode("utf-8")).decode("ascii")


def decrypt(token: str) -> str:
    return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
