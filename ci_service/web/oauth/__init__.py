"""The tool server's OAuth 2.1 authorization server, the web side (issue 17).

``/mcp`` is an OAuth protected resource, and this package is the authorization server that
mints its tokens:

- ``common``: small helpers with no Authlib (the issuer, the ``/mcp`` resource URL, safe
  error text), imported when the app is created;
- ``routes``: the endpoints machines call (metadata, token, registration, revocation), a
  blueprint that ``install()`` mounts;
- ``server``: the Authlib server and its adapters to our rows, imported on the first
  request that needs it (Authlib costs about 0.1 s of start-up).

The other parts live elsewhere: the rules and rows in services/identity/oauth_clients.py
and services/identity/oauth_tokens.py (the models in store/oauth.py), the consent page
``/oauth/authorize`` in web/pages/oauth_consent.py, the connected clients' REST routes in
web/routes/oauth_connections.py, the CLI in cli/oauth.py, and the protected resource
itself in web/mcp_http.py.
"""

__all__ = ["common", "routes", "server"]
