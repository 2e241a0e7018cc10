"""Who is calling and what they may do: API keys (``api_keys``), the principal and its
access checks (``auth``), users, invites and sessions (``users``), team roles (``team``),
per-key rate limits (``usage``), and the tool server's OAuth clients and tokens
(``oauth_clients``, ``oauth_tokens``; the web side is ``ci_service/web/oauth/``, the CLI
``ci_service/cli/oauth.py``).
"""

__all__ = [
    "api_keys",
    "auth",
    "oauth_clients",
    "oauth_tokens",
    "team",
    "usage",
    "users",
]
