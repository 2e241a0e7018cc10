"""Secrets the service must read back (webhook and chat targets, webhook signing secrets),
encrypted at rest with Fernet (``cryptography``: AES-128-CBC and HMAC-SHA256).

The key comes from ``CI_SERVICE_SECRET_KEY`` (a Fernet key) or, by default, a key file beside
the database (``<database>.key``, created on first use with mode 0600). A backup of the
database without its key file cannot read the stored targets: keep both, or set the
environment variable on every process.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

_lock = threading.Lock()
_fernets: dict[str, object] = {}


def _key_path() -> Path:
    from ci_service.store.db import database

    name = getattr(database, "database", None) or "ci-service.db"
    if name == ":memory:":
        name = "ci-service.db"
    return Path(f"{name}.key")


def _fernet():
    from cryptography.fernet import Fernet

    configured = os.environ.get("CI_SERVICE_SECRET_KEY", "").strip()
    source = configured or str(_key_path())
    with _lock:
        if source not in _fernets:
            if configured:
                key = configured.encode()
            else:
                path = Path(source)
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "wb") as handle:
                        handle.write(Fernet.generate_key())
                key = path.read_bytes().strip()
            _fernets[source] = Fernet(key)
        return _fernets[source]


def encrypt(plain: str) -> str:
    return _fernet().encrypt(plain.encode("utf-8")).decode("ascii")


def decrypt(token: str) -> str:
    return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
