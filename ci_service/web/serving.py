"""How ``serve`` sits behind a reverse proxy (issue 25): which peer's ``X-Forwarded-*``
headers waitress believes, and the public address every absolute link and the OAuth issuer
name (``Settings.base_url``)."""

from __future__ import annotations

import ipaddress
import logging
import os

from flask import Flask

from ci_service.settings import Settings

log = logging.getLogger("ci_service")

FORWARDED_HEADERS = frozenset(
    {"x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"}
)


def proxy_options(settings: Settings) -> dict:
    """waitress's options for a trusted reverse proxy. From that peer only, the client's
    address (X-Forwarded-For: ``allowedIps`` and per-address limits see the real client),
    scheme, host and port are believed; from any other peer those headers are dropped."""
    if not settings.trusted_proxy:
        return {}
    return {
        "trusted_proxy": settings.trusted_proxy,
        "trusted_proxy_count": settings.trusted_proxy_count,
        "trusted_proxy_headers": set(FORWARDED_HEADERS),
        "clear_untrusted_proxy_headers": True,
    }


def own_address(host: str, port: int) -> str:
    """``http://host:port`` of a listening socket, as a browser on this machine reaches it."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"http://{host}:{port}"  # a host name
    if address.is_unspecified:  # 0.0.0.0 or ::: no one address names the server
        log.warning(
            "serving on every address without a public URL: OAuth, invites and alert links "
            "name http://127.0.0.1:%s; set --public-url (CI_SERVICE_PUBLIC_URL)",
            port,
        )
        return f"http://127.0.0.1:{port}"
    return f"http://[{host}]:{port}" if address.version == 6 else f"http://{host}:{port}"


def publish_address(app: Flask, settings: Settings, host: str, port: int) -> Settings:
    """The settings with ``public_url`` decided (as configured, else this server's own
    address), given to the app and published to the process's environment: the parts that
    read the settings themselves (jobs, alert links) then name the same address."""
    if settings.public_url:
        if settings.trusted_proxy and not settings.public_is_https:
            log.warning("a trusted proxy is set but the public URL is not https://")
    else:
        if settings.trusted_proxy:
            log.warning("a trusted proxy is set without a public URL (--public-url)")
        settings = settings.with_overrides(public_url=own_address(host, port))
    os.environ["CI_SERVICE_PUBLIC_URL"] = settings.base_url
    app.config["CI_SETTINGS"] = settings
    return settings
