"""Tuning or check: a fixed rule on the site's public host, decided before its pages are read.

The host is lower-cased and stripped of its scheme and a leading ``www.``; a site whose
host's SHA-256, read as a number, leaves 0 when divided by 3 is a **check** site (about a
third): it is only scored, never read or debugged. Every other site is a **tuning** site.
"""

from __future__ import annotations

import hashlib
import sys

CHECK, TUNING = "check", "tuning"


def normal_host(host: str) -> str:
    host = host.strip().lower()
    for prefix in ("https://", "http://"):
        host = host.removeprefix(prefix)
    return host.split("/", 1)[0].removeprefix("www.")


def group_of(host: str) -> str:
    digest = hashlib.sha256(normal_host(host).encode()).hexdigest()
    return CHECK if int(digest, 16) % 3 == 0 else TUNING


def main(argv: list[str]) -> int:
    for host in argv:
        print(f"{normal_host(host)}\t{group_of(host)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
