"""Which events a subscription's mutes keep out: asked by fan-out and digests.

Below ``mutes`` (create, list, delete, who may), which imports the subscription rules, so
delivery can ask it without importing them.
"""

from __future__ import annotations

from collections.abc import Callable

from ci_service.intel.urls import normalize_url
from ci_service.store import statements
from ci_service.store.alerts import Mute, Subscription
from ci_service.store.events import Event


def normal_url(value: str | None) -> str | None:
    """The form URLs are stored and compared in: the crawler's (``intel.urls.normalize_url``:
    lower-case scheme and host, no default port, userinfo or fragment, so a ``#:~:text=``
    quote link is the same page) without a trailing slash; None for what is not an http(s)
    URL with a host."""
    if not value:
        return None
    url = normalize_url(str(value))
    return url.rstrip("/") if url else None


# -- the rule ----------------------------------------------------------------------------


def _matches(mute: Mute, subscription_id: str, event: Event, url: str | None) -> bool:
    return (
        (mute.competitor_id is None or mute.competitor_id == event.competitor_id)
        and (mute.subscription_id is None or mute.subscription_id == subscription_id)
        and (mute.event_type is None or mute.event_type == event.type)
        and (mute.url is None or mute.url == url)
    )


def muted_for(event: Event) -> Callable[[Subscription], bool]:
    """``is_muted(subscription)`` for ``event``: the workspace's mutes that can match the
    event are read once (one query), so fan-out asks per subscription for nothing."""
    sql = statements.select_sql(
        Mute,
        "t.workspace_id = {param} AND (t.competitor_id IS NULL OR t.competitor_id = {param})"
        " AND (t.event_type IS NULL OR t.event_type = {param})",
        "muted-for",
    )  # asked by every event's fan-out: a statement built once (store/statements.py)
    rows = statements.select_models(
        Mute, sql, [event.workspace_id, event.competitor_id, event.type]
    )
    url = normal_url((event.data or {}).get("url"))
    mutes = [m for m in rows if m.url is None or m.url == url]

    def is_muted(subscription: Subscription) -> bool:
        return any(_matches(m, subscription.id, event, url) for m in mutes)

    return is_muted


def muted(subscription: Subscription, event: Event) -> bool:
    """Is ``event`` muted for ``subscription``? One query; for many subscriptions use
    :func:`muted_for`."""
    return muted_for(event)(subscription)


def unmuted(subscription: Subscription, events: list[Event]) -> list[Event]:
    """``events`` without those muted for ``subscription`` (a digest's period): the
    subscription's mutes are read once (one query)."""
    mutes = list(
        Mute.select().where(
            Mute.workspace == subscription.workspace_id,
            Mute.subscription.is_null() | (Mute.subscription == subscription.id),
        )
    )
    if not mutes:
        return list(events)
    kept = []
    for event in events:
        url = normal_url((event.data or {}).get("url"))
        if not any(_matches(m, subscription.id, event, url) for m in mutes):
            kept.append(event)
    return kept
