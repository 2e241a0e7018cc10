"""Small OAuth helpers shared by the authorization server, its endpoints, the consent page
and ``/mcp`` (issue 17).

Nothing here imports Authlib: the modules that only need these helpers are imported when
the app is created, and Authlib (with joserfc) costs about 0.1 s of start-up. Authlib is
imported with web/oauth/server.py, when the first request needs the server.
"""

from __future__ import annotations

import re

from flask import current_app

CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]
_UNSAFE = re.compile(r"[^\x20-\x21\x23-\x5b\x5d-\x7e]")


def safe_text(text: str, limit: int = 300) -> str:
    """Text allowed in ``error_description`` (RFC 6749 §4.1.2.1: no quote, no backslash)."""
    return _UNSAFE.sub("?", str(text))[:limit]


def issuer() -> str:
    """This server's public origin (the ``public_url`` setting, issue 25): the issuer and the
    resource's base. Never the request's scheme and Host: behind a TLS proxy those say
    ``http``, and a client picks the Host it sends."""
    return current_app.config["CI_SETTINGS"].base_url


def mcp_resource() -> str:
    """The protected resource (RFC 8707, RFC 9728): this server's tool server."""
    return issuer() + "/mcp"
