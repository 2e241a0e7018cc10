"""OAuth clients of the tool server: registration (RFC 7591), client ID metadata documents,
redirect URI matching and scopes (issue 17).

Rules:

- Scopes are ``read`` and ``write`` and mean what a key's scopes mean (services/identity/auth.py);
  ``admin`` is never granted to a client. ``offline_access`` is accepted and ignored:
  refresh tokens are issued to every client that registered the refresh_token grant.
- Redirect URIs are compared exactly, except that a loopback redirect (``http`` to
  ``127.0.0.1``, ``[::1]`` or ``localhost``) matches on any port (RFC 8252 §7.3). Accepted
  at registration: ``https`` URLs, ``http`` loopback URLs and private-use schemes of native
  apps (``com.example.app:/cb``, ``cursor://...``); never a fragment, never ``javascript:``
  and the like.
- Registration is open (MCP clients register themselves), so every field is bounded, one
  client address registers at most ``per_hour`` clients in any rolling hour (counted in the
  database, so the limit holds across processes), and a registered client nobody ever
  connected expires after ``unused_hours``: it is unknown to lookups from then on and the
  next registration deletes it (issue 25). Clients known by a metadata document are not
  registrations and never expire this way.
- A client ID that is an ``https`` URL with a path is a client ID metadata document: it is
  fetched through the SSRF guard (intel/netguard.py), must name itself as ``client_id``,
  must be a public client (``token_endpoint_auth_method`` ``none``), and is cached for
  ``METADATA_DOCUMENT_TTL``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import secrets
import time
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from ci_service.errors import RateLimited
from ci_service.store.db import transaction
from ci_service.store.oauth import OAuthClient
from ci_service.timeutil import utcnow

SCOPES = ("read", "write")
IGNORED_SCOPES = ("offline_access",)
GRANT_TYPES = ("authorization_code", "refresh_token")
AUTH_METHODS = ("none", "client_secret_post", "client_secret_basic")
LOOPBACK_HOSTS = ("127.0.0.1", "[::1]", "localhost")
FORBIDDEN_SCHEMES = ("javascript", "data", "file", "vbscript", "blob", "about", "filesystem")
MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2000
MAX_NAME_LENGTH = 200
MAX_REGISTRATION_BYTES = 16 * 1024
METADATA_DOCUMENT_TTL = timedelta(hours=1)
METADATA_DOCUMENT_MAX_BYTES = 64 * 1024
METADATA_DOCUMENT_TIMEOUT = 5.0
REGISTRATION_WINDOW = timedelta(hours=1)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*$")


class ClientMetadataError(ValueError):
    """The registration or metadata document is unacceptable (``invalid_client_metadata``
    or ``invalid_redirect_uri``, per ``error``)."""

    def __init__(self, description: str, error: str = "invalid_client_metadata"):
        super().__init__(description)
        self.description = description
        self.error = error


def hash_secret(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def parse_scopes(text: Any) -> list[str] | None:
    """Scope string to canonical list (``read`` before ``write``); None when one is unknown."""
    if text is None:
        return []
    if not isinstance(text, str):
        return None
    names = text.split()
    if any(n not in SCOPES and n not in IGNORED_SCOPES for n in names):
        return None
    return [s for s in SCOPES if s in names]


# -- redirect URIs --------------------------------------------------------------------------


def is_loopback(uri: str) -> bool:
    parts = urlsplit(uri)
    host = parts.netloc.rsplit("@", 1)[-1]
    host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return parts.scheme == "http" and host.lower() in LOOPBACK_HOSTS


def _without_port(uri: str) -> tuple[str, str, str, str]:
    parts = urlsplit(uri)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return parts.scheme, host.lower(), parts.path or "/", parts.query


def redirect_matches(registered: list[str], presented: str) -> bool:
    """Exact match, or a loopback redirect with only the port changed (RFC 8252 §7.3)."""
    if not isinstance(presented, str) or not presented:
        return False
    if presented in registered:
        return True
    if not is_loopback(presented):
        return False
    try:
        wanted = _without_port(presented)
        urlsplit(presented).port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        return False
    return any(is_loopback(uri) and _without_port(uri) == wanted for uri in registered)


def check_redirect_uri(uri: Any) -> str:
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI_LENGTH:
        raise ClientMetadataError(
            "each redirect URI must be a non-empty string", "invalid_redirect_uri"
        )
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise ClientMetadataError(f"{uri!r} is not a URI", "invalid_redirect_uri") from None
    scheme = parts.scheme.lower()
    problem = None
    if parts.fragment or "#" in uri:
        problem = "must not have a fragment"
    elif not scheme or not _SCHEME.match(scheme) or scheme in FORBIDDEN_SCHEMES:
        problem = "must be https, http on a loopback address, or an app's own scheme"
    elif scheme == "http" and not is_loopback(uri):
        problem = "http is only allowed on a loopback address (127.0.0.1, [::1], localhost)"
    elif scheme in ("http", "https") and (not parts.hostname or parts.username):
        problem = "must name a host and carry no credentials"
    if problem:
        raise ClientMetadataError(f"redirect URI {uri!r} {problem}", "invalid_redirect_uri")
    return uri


# -- registration ---------------------------------------------------------------------------


def _optional_string(data: dict, name: str, limit: int = MAX_URI_LENGTH) -> str | None:
    value = data.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise ClientMetadataError(f"{name} must be a string of at most {limit} characters")
    return value


def _string_list(data: dict, name: str, default: list[str]) -> list[str]:
    value = data.get(name)
    if value is None:
        return list(default)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ClientMetadataError(f"{name} must be an array of strings")
    return value


def validate_metadata(data: Any, *, metadata_document: bool = False) -> dict[str, Any]:
    """Client metadata (a registration body or a metadata document), checked and normalized."""
    if not isinstance(data, dict):
        raise ClientMetadataError("client metadata must be a JSON object")
    uris = data.get("redirect_uris")
    if not isinstance(uris, list) or not uris or len(uris) > MAX_REDIRECT_URIS:
        raise ClientMetadataError(
            f"redirect_uris must list 1 to {MAX_REDIRECT_URIS} URIs", "invalid_redirect_uri"
        )
    uris = [check_redirect_uri(uri) for uri in uris]
    grant_types = _string_list(data, "grant_types", ["authorization_code"])
    if not grant_types or any(g not in GRANT_TYPES for g in grant_types):
        raise ClientMetadataError(f"grant_types must be among {', '.join(GRANT_TYPES)}")
    if "authorization_code" not in grant_types:
        raise ClientMetadataError("grant_types must include authorization_code")
    response_types = _string_list(data, "response_types", ["code"])
    if response_types != ["code"]:
        raise ClientMetadataError('response_types must be ["code"]')
    default_method = "none" if metadata_document else "client_secret_basic"
    method = data.get("token_endpoint_auth_method") or default_method
    allowed = ("none",) if metadata_document else AUTH_METHODS
    if method not in allowed:
        raise ClientMetadataError(f"token_endpoint_auth_method must be one of {', '.join(allowed)}")
    scopes = parse_scopes(data.get("scope"))
    if scopes is None:
        raise ClientMetadataError(f"scope may name only {' and '.join(SCOPES)}")
    out: dict[str, Any] = {
        "redirect_uris": uris,
        "grant_types": [g for g in GRANT_TYPES if g in grant_types],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "scope": " ".join(scopes or SCOPES),
    }
    for name in ("client_uri", "logo_uri", "tos_uri", "policy_uri"):
        value = _optional_string(data, name)
        if value is not None:
            if urlsplit(value).scheme not in ("http", "https"):
                raise ClientMetadataError(f"{name} must be an http(s) URL")
            out[name] = value
    for name in ("client_name", "software_id", "software_version"):
        value = _optional_string(data, name, MAX_NAME_LENGTH)
        if value is not None:
            out[name] = value.strip()
    contacts = data.get("contacts")
    if contacts is not None:
        if (
            not isinstance(contacts, list)
            or len(contacts) > 10
            or not all(isinstance(c, str) and len(c) <= 320 for c in contacts)
        ):
            raise ClientMetadataError("contacts must be an array of at most 10 strings")
        out["contacts"] = contacts
    return out


def register_client(
    data: Any, *, address: str | None = None, per_hour: int = 0, unused_hours: int = 0
) -> tuple[OAuthClient, str | None]:
    """Register a client; returns (row, client secret shown once, or None for public ones).

    ``address`` is the registering client's address: it may register ``per_hour`` clients in
    any rolling hour (0: no limit), then :class:`RateLimited`. The same transaction deletes
    the registrations never connected for ``unused_hours`` (0: kept)."""
    metadata = validate_metadata(data)
    method = metadata["token_endpoint_auth_method"]
    secret = None if method == "none" else secrets.token_urlsafe(32)
    address = (address or "unknown")[:100]
    with transaction():
        _check_registration_rate(address, per_hour)
        cutoff = _unused_cutoff(unused_hours)
        if cutoff is not None:
            OAuthClient.delete().where(_unused_since(cutoff)).execute()
        row = OAuthClient.create(
            id="ci_client_" + secrets.token_hex(12),
            client_name=metadata.get("client_name"),
            redirect_uris=metadata["redirect_uris"],
            grant_types=metadata["grant_types"],
            response_types=metadata["response_types"],
            scope=metadata["scope"],
            token_endpoint_auth_method=method,
            secret_hash=hash_secret(secret) if secret else None,
            metadata=metadata,
            source="registration",
            registered_from=address,
        )
    return row, secret


def _check_registration_rate(address: str, per_hour: int) -> None:
    """429 when ``address`` made ``per_hour`` registrations in the last hour. Inside the
    registration's transaction: writers are serialized (store/db.py), so two processes
    cannot both take the last place."""
    if per_hour <= 0:
        return
    recent = (
        OAuthClient.select(OAuthClient.created_at)
        .where(
            (OAuthClient.registered_from == address)
            & (OAuthClient.created_at > utcnow() - REGISTRATION_WINDOW)
        )
        .order_by(OAuthClient.created_at)
    )
    count = recent.count()
    if count < per_hour:
        return
    # Room comes back when enough of them have left the window.
    ((leaving,),) = recent.offset(count - per_hour).limit(1).tuples()
    wait = max(1, math.ceil((leaving + REGISTRATION_WINDOW - utcnow()).total_seconds()))
    raise RateLimited(
        f"At most {per_hour} client registrations an hour from one address; "
        f"try again in {wait} seconds",
        details={"retryAfter": wait},
        headers={"Retry-After": str(wait)},
    )


def _unused_cutoff(unused_hours: int) -> datetime | None:
    return utcnow() - timedelta(hours=unused_hours) if unused_hours > 0 else None


def _unused_since(cutoff: datetime):
    """Registrations made before ``cutoff`` that nobody ever connected."""
    return (
        (OAuthClient.source == "registration")
        & OAuthClient.first_connected_at.is_null()
        & (OAuthClient.created_at <= cutoff)
    )


def registration_response(row: OAuthClient, secret: str | None) -> dict[str, Any]:
    body = {**row.metadata, "client_id": row.id, "client_id_issued_at": int(time.time())}
    if secret is not None:
        body.update(client_secret=secret, client_secret_expires_at=0)
    return body


def secret_matches(row: OAuthClient, presented: Any) -> bool:
    if row.secret_hash is None or not isinstance(presented, str):
        return False
    return hmac.compare_digest(row.secret_hash, hash_secret(presented))


def display_name(row: OAuthClient) -> str:
    """What people are shown: the client's own name, else where it sends people back."""
    if row.client_name:
        return row.client_name
    host = urlsplit(row.redirect_uris[0]).netloc if row.redirect_uris else ""
    return host or row.id


# -- client ID metadata documents -------------------------------------------------------------


def is_metadata_document_id(client_id: Any) -> bool:
    if not isinstance(client_id, str) or len(client_id) > MAX_URI_LENGTH:
        return False
    parts = urlsplit(client_id)
    return parts.scheme == "https" and bool(parts.hostname) and parts.path not in ("", "/")


def _fetch_document(url: str, allow_private: bool) -> Any:
    """GET the document through the SSRF guard; bounded in time and size."""
    import httpx

    from ci_service.intel.errors import BlockedUrl
    from ci_service.intel.netguard import check_url, deadline_scope

    try:
        check_url(url, allow_private=allow_private)
        transport = transport_factory(allow_private)
        deadline = time.monotonic() + METADATA_DOCUMENT_TIMEOUT
        with httpx.Client(transport=transport, timeout=METADATA_DOCUMENT_TIMEOUT) as http:
            with (
                deadline_scope(deadline),
                http.stream("GET", url, headers={"Accept": "application/json"}) as answer,
            ):
                if answer.status_code != 200:
                    raise ClientMetadataError(f"the document answered HTTP {answer.status_code}")
                body = b""
                for chunk in answer.iter_bytes():
                    body += chunk
                    if len(body) > METADATA_DOCUMENT_MAX_BYTES:
                        raise ClientMetadataError("the document is too large")
    except BlockedUrl as exc:
        # The bare reason: the refusal's own message may carry advice for the operator
        # (an environment variable), which means nothing to the person connecting.
        raise ClientMetadataError(f"the document's address is not allowed ({exc.reason})") from None
    except (httpx.HTTPError, OSError) as exc:
        raise ClientMetadataError(
            f"the document could not be fetched ({type(exc).__name__})"
        ) from None
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ClientMetadataError("the document is not JSON") from None


def transport_factory(allow_private: bool):
    """The HTTP transport for metadata documents (tests swap in a fake server here)."""
    from ci_service.intel.netguard import GuardedTransport

    return GuardedTransport(allow_private=allow_private)


def resolve_metadata_document(client_id: str, allow_private: bool = False) -> OAuthClient:
    """The client behind a metadata document URL, fetched when unknown or stale.

    Raises :class:`ClientMetadataError` when it cannot be fetched or is not acceptable.
    Call it outside a transaction: it may wait on the network."""
    row = OAuthClient.get_or_none(OAuthClient.id == client_id)
    if row is not None and row.fetched_at and row.fetched_at + METADATA_DOCUMENT_TTL > utcnow():
        return row
    document = _fetch_document(client_id, allow_private)
    if not isinstance(document, dict) or document.get("client_id") != client_id:
        raise ClientMetadataError("the document's client_id must be its own URL")
    metadata = validate_metadata(document, metadata_document=True)
    values = {
        "client_name": metadata.get("client_name"),
        "redirect_uris": metadata["redirect_uris"],
        "grant_types": metadata["grant_types"],
        "response_types": metadata["response_types"],
        "scope": metadata["scope"],
        "token_endpoint_auth_method": "none",
        "secret_hash": None,
        "metadata": metadata,
        "source": "metadata_document",
        "fetched_at": utcnow(),
    }
    with transaction():
        if OAuthClient.get_or_none(OAuthClient.id == client_id) is None:
            return OAuthClient.create(id=client_id, **values)
        OAuthClient.update(**values).where(OAuthClient.id == client_id).execute()
    return OAuthClient.get_by_id(client_id)


def find_client(client_id: Any, unused_hours: int = 0) -> OAuthClient | None:
    """A known client by id (never fetches); a registration never connected in
    ``unused_hours`` (0: no expiry) is unknown, as if already deleted."""
    if not isinstance(client_id, str) or not client_id or len(client_id) > MAX_URI_LENGTH:
        return None
    known = OAuthClient.id == client_id
    cutoff = _unused_cutoff(unused_hours)
    if cutoff is not None:
        known &= ~_unused_since(cutoff)
    return OAuthClient.get_or_none(known)


def list_clients(unused_hours: int = 0) -> list[OAuthClient]:
    """The clients the server knows, oldest first (expired registrations left out)."""
    query = OAuthClient.select().order_by(OAuthClient.created_at, OAuthClient.id)
    cutoff = _unused_cutoff(unused_hours)
    if cutoff is not None:
        query = query.where(~_unused_since(cutoff))
    return list(query)


def client_to_dict(row: OAuthClient) -> dict[str, Any]:
    from ci_service.timeutil import iso

    return {
        "id": row.id,
        "name": display_name(row),
        "redirectUris": list(row.redirect_uris),
        "source": row.source,
        "createdAt": iso(row.created_at),
        "firstConnectedAt": iso(row.first_connected_at),
    }
