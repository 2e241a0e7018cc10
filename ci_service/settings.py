"""Service settings, declared once as data.

Each setting is (name, default, help). The tuple drives the `Settings` object, the
environment overrides (``CI_SERVICE_<NAME>``) and a docs test that checks every setting is
documented (docs/configuration.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

MIB = 1024 * 1024
# Where serve listens unless told otherwise; links made outside serve (a worker's alerts)
# fall back to it when ``public_url`` is not set.
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8000"


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "database",
        "./ci-service.db",
        "SQLite file path or sqlite:///path URL, or postgresql://user@host/db",
    ),
    Setting("database_pool_size", 20, "Most PostgreSQL connections one process opens"),
    Setting("max_json_bytes", 1 * MIB, "Largest accepted JSON request body, in bytes"),
    Setting("max_upload_bytes", 20 * MIB, "Largest accepted document upload, in bytes"),
    Setting("list_cap", 1000, "Most items a list endpoint returns without limit/offset"),
    Setting("competitor_limit_starter", 3, "Competitors allowed on the STARTER plan"),
    Setting("competitor_limit_pro", 25, "Competitors allowed on the PRO plan"),
    Setting("competitor_limit_enterprise", 0, "Competitors on ENTERPRISE (0 = unlimited)"),
    Setting("allow_private_urls", False, "Let fetchers reach loopback/private addresses"),
    Setting("job_workers", 2, "Threads that run background jobs (0 = run jobs inline)"),
    Setting("scheduler", True, "Run the periodic refresh scheduler inside serve"),
    Setting("job_lease_seconds", 60.0, "Lease of a claimed job; renewed while it runs"),
    Setting("job_max_attempts", 3, "Runs of a job before an interruption fails it for good"),
    Setting("job_retry_delay_seconds", 30.0, "Wait before an interrupted job runs again (doubles)"),
    Setting(
        "scheduler_lease_seconds", 30.0, "Lease of the scheduler's lead, renewed by its leader"
    ),
    Setting("usage_flush_seconds", 1.0, "How often rate-limit counters and lastUsedAt persist"),
    Setting("response_cache_mb", 32, "Memory of the REST GET response cache, in MB (0 = off)"),
    Setting("search_cache_mb", 32, "Memory of /api/search's text windows, in MB (0 = off)"),
    Setting(
        "vector_dir",
        "",
        "Where the shared vector index files live (default: beside the SQLite file; temp dir)",
    ),
    # Intel pipeline (ci_service/pipeline): crawl limits of the collect and discovery jobs.
    Setting("crawl_max_pages", 50, "Most HTML pages one crawl of a site fetches"),
    Setting("crawl_delay_seconds", 1.0, "Least seconds between two requests to one host"),
    Setting(
        "crawl_concurrency",
        32,
        "Jobs run at once, most waiting on websites; job_workers of them process at a time",
    ),
    Setting("crawl_memory_mb", 512, "Site snapshots held in memory before new crawls wait, MB"),
    Setting("fetch_deadline_seconds", 60.0, "Wall-clock limit of one fetch, retries included"),
    Setting("fetch_max_bytes", 10 * MIB, "Largest fetched body, in bytes, after decompression"),
    # Deployment behind a reverse proxy (issue 25): the address people and clients use.
    Setting(
        "public_url",
        "",
        "The address users reach the service at (https://ci.example.com); default: serve's own",
    ),
    Setting("trusted_proxy", "", "Address of the proxy whose X-Forwarded-* headers are trusted"),
    Setting("trusted_proxy_count", 1, "How many trusted proxies add X-Forwarded-* entries"),
    Setting("allowed_origins", "", "Browser origins (comma-separated) that may call /mcp"),
    # OAuth for the tool server (web/oauth/): registration limits and refresh retries.
    Setting(
        "oauth_registrations_per_hour", 20, "Client registrations per address an hour (0: no limit)"
    ),
    Setting(
        "oauth_unused_client_hours", 24, "Hours a registered client never connected lasts (0: ever)"
    ),
    Setting(
        "oauth_refresh_grace_seconds", 30.0, "Seconds a rotated refresh token works for retries"
    ),
    # Change alerts (services/delivery*): where they may go, and the limits of one send.
    Setting(
        "alerts_allow_private_urls", False, "Let webhook and chat targets be private addresses"
    ),
    Setting("delivery_timeout_seconds", 10.0, "Wall-clock limit of one webhook or chat send"),
    Setting("delivery_max_answer_bytes", 64 * 1024, "Most bytes of a receiver's answer read"),
    Setting("delivery_pause_after_days", 3.0, "Days of failing sends before a subscription pauses"),
)

_TRUE = {"1", "true", "yes", "on"}


def _coerce(value: str, default: Any) -> Any:
    if isinstance(default, bool):
        return value.strip().lower() in _TRUE
    if isinstance(default, int):
        return int(value)
    if isinstance(default, float):
        return float(value)
    return value


@dataclass(frozen=True)
class Settings:
    values: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "values")
        if name in values:
            return values[name]
        raise AttributeError(name)

    def with_overrides(self, **overrides: Any) -> Settings:
        unknown = set(overrides) - {s.name for s in SETTINGS}
        if unknown:
            raise TypeError(f"unknown settings: {sorted(unknown)}")
        return replace(self, values={**self.values, **overrides})

    @property
    def base_url(self) -> str:
        """The service's public origin without a trailing slash (``public_url``, else serve's
        default address): the OAuth issuer and the base of every absolute link. Never taken
        from a request's Host header, which a client chooses."""
        return (self.values.get("public_url") or DEFAULT_PUBLIC_URL).rstrip("/")

    @property
    def public_is_https(self) -> bool:
        return self.base_url.startswith("https://")

    def competitor_limit(self, plan: str) -> int | None:
        """The plan's competitor limit, or None when unlimited."""
        limit = self.values[f"competitor_limit_{plan.lower()}"]
        return limit if limit > 0 else None


def check_public_url(text: str) -> str:
    """``text`` as an origin (``scheme://host[:port]``, http or https, no path, query or
    user), without a trailing slash; ValueError naming the setting otherwise."""
    from urllib.parse import urlsplit

    problem = "public_url must look like https://ci.example.com (scheme, host, optional port)"
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018  (raises ValueError on a bad port)
    except ValueError:
        raise ValueError(problem) from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.username is not None
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise ValueError(problem)
    return f"{parts.scheme}://{parts.netloc}"


def load_settings(environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
    """Defaults, then ``CI_SERVICE_*`` environment variables, then explicit overrides."""
    environ = os.environ if environ is None else environ
    values = {}
    for setting in SETTINGS:
        raw = environ.get(f"CI_SERVICE_{setting.name.upper()}")
        values[setting.name] = setting.default if raw is None else _coerce(raw, setting.default)
    if values["public_url"]:
        values["public_url"] = check_public_url(values["public_url"])
    settings = Settings(values)
    explicit = {k: v for k, v in overrides.items() if v is not None}
    settings = settings.with_overrides(**explicit) if explicit else settings
    if explicit.get("public_url"):
        settings = settings.with_overrides(public_url=check_public_url(explicit["public_url"]))
    return settings


__all__ = [
    "DEFAULT_PUBLIC_URL",
    "SETTINGS",
    "Setting",
    "Settings",
    "check_public_url",
    "load_settings",
]
