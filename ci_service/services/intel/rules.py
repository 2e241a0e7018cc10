"""The rules behind intel items: credibility scores and change tracking (pure functions).

Re-exported by ``ci_service.services.intel.items``; see docs/intel.md for the documented rules.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from ci_service.timeutil import utcnow

MAX_CHANGES = 20
MAX_CHANGE_CHARS = 300

# -- credibility ------------------------------------------------------------------------

_SECOND_LEVEL = {"co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"}


def site_of(url: str | None) -> str | None:
    """The registrable part of a URL's host (``www.acme.co.uk`` -> ``acme.co.uk``)."""
    if not url:
        return None
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return None
    labels = [label for label in host.split(".") if label]
    if len(labels) < 2:
        return host or None
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def credibility_score(
    source_type: str,
    url: str | None,
    owner_website_url: str | None = None,
    published_at: datetime | None = None,
    *,
    now: datetime | None = None,
) -> float:
    """How far a collected item can be trusted, 0.1 to 1.0 (two decimals).

    Base by source and provenance ("first party" = the URL's registrable domain equals the
    owner's website's; a document without a URL is an upload, so first party):

    ============== =========== =========== ==================
    source type    first party third party owner site unknown
    ============== =========== =========== ==================
    WEB_PAGE       0.90        0.60        0.75
    DOCUMENT       0.85        0.60        0.75
    NEWS           0.80        0.70        0.70
    INTERNAL_NOTE  0.60 (always)
    ============== =========== =========== ==================

    Then -0.05 for a plain ``http`` URL, and for dated items (``published_at``) -0.05 when
    older than one year, -0.10 when older than two.
    """
    if source_type == "INTERNAL_NOTE":
        return 0.6
    site, owner = site_of(url), site_of(owner_website_url)
    if source_type == "DOCUMENT" and not url:
        first_party: bool | None = True
    elif owner is None or site is None:
        first_party = None
    else:
        first_party = site == owner
    table = {
        "WEB_PAGE": (0.9, 0.6, 0.75),
        "DOCUMENT": (0.85, 0.6, 0.75),
        "NEWS": (0.8, 0.7, 0.7),
    }.get(source_type, (0.6, 0.5, 0.5))
    score = table[0] if first_party else table[2] if first_party is None else table[1]
    if url and url.lower().startswith("http://"):
        score -= 0.05
    if published_at is not None:
        age_days = ((now or utcnow()) - published_at).days
        if age_days > 730:
            score -= 0.10
        elif age_days > 365:
            score -= 0.05
    return round(min(1.0, max(0.1, score)), 2)


# -- change tracking --------------------------------------------------------------------

_SPACE = re.compile(r"[ \t\f\v\u00a0]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def normalize_text(text: str) -> str:
    lines = (_SPACE.sub(" ", line).strip() for line in (text or "").splitlines())
    return "\n".join(line for line in lines if line)


def content_hash(title: str, content: str) -> str:
    data = f"{normalize_text(title)}\n\x00\n{normalize_text(content)}".encode()
    return hashlib.sha256(data).hexdigest()


def passages(text: str) -> list[str]:
    """Lines of the normalised text; a long line is split into sentences."""
    out: list[str] = []
    for line in normalize_text(text).split("\n"):
        out.extend(_SENTENCE.split(line) if len(line) > 200 else [line])
    return [p for p in out if p]


def diff_changes(old_title: str, old: str, new_title: str, new: str) -> dict[str, Any]:
    old_parts, new_parts = passages(old), passages(new)
    old_set, new_set = set(old_parts), set(new_parts)
    added = list(dict.fromkeys(p for p in new_parts if p not in old_set))
    removed = list(dict.fromkeys(p for p in old_parts if p not in new_set))
    summary = f"{len(added)} passages added, {len(removed)} removed"
    changes: dict[str, Any] = {
        "summary": summary,
        "added": [p[:MAX_CHANGE_CHARS] for p in added[:MAX_CHANGES]],
        "removed": [p[:MAX_CHANGE_CHARS] for p in removed[:MAX_CHANGES]],
        "addedCount": len(added),
        "removedCount": len(removed),
    }
    if normalize_text(old_title) != normalize_text(new_title):
        changes["titleChanged"] = {"from": old_title[:MAX_CHANGE_CHARS], "to": new_title[:300]}
        changes["summary"] = f"title changed; {summary}"
    return changes
