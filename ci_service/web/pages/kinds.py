"""How pages name a kind of change (an event type): "Price change" on a Changes item,
"price changes" in "Mute price changes from Globex" and in Settings → Alerts' list of
mutes. One mapping, so the Changes page and the mutes it makes read the same."""

from __future__ import annotations

KIND_LABELS = {
    "competitor.price_changed": "Price change",
    "competitor.product_added": "New product",
    "competitor.product_removed": "Product removed",
    "competitor.news": "News",
    "competitor.person_added": "Person added",
    "competitor.person_removed": "Person left",
    "competitor.page_changed": "Page changed",
    "battlecard.updated": "Battle card updated",
    "deal.recorded": "Deal recorded",
    "job.failed": "Job failed",
    "subscription.paused": "Alert paused",
    "subscription.disabled": "Alert disabled",
}
# "Mute <these> from <competitor>": the kind in the plural, as a button reads it.
KIND_PLURALS = {
    "competitor.price_changed": "price changes",
    "competitor.product_added": "new products",
    "competitor.product_removed": "removed products",
    "competitor.news": "news",
    "competitor.person_added": "new people",
    "competitor.person_removed": "people leaving",
    "competitor.page_changed": "page changes",
    "battlecard.updated": "battle card updates",
    "deal.recorded": "deals recorded",
    "job.failed": "failed jobs",
}


def kind_label(event_type: str) -> str:
    return KIND_LABELS.get(event_type) or event_type.split(".")[-1].replace("_", " ").title()


def kind_plural(event_type: str) -> str:
    return KIND_PLURALS.get(event_type) or kind_label(event_type).lower()
