"""Alerts: what changed, and telling people (issue 18, 29).

Public modules, what the web app, REST, the CLI and the tool server call:

- ``events``: the change feed (``emit``, ``list_events``, ``event_to_dict``)
- ``changes``: the change events the pipeline and the resource services raise, in words
- ``subscriptions``: who is told what, where (create, change, delete, test)
- ``mutes``: what a subscription or a competitor stays quiet about
- ``replay``: retry a delivery, send missed alerts, a digest on demand
- ``reads``: read marks of the Changes page
- ``change_diff``: a page change as a side-by-side or inline diff
- ``change_filter``: which page lines are a change and which are site chrome
- ``delivery``, ``digest``, ``delivery_jobs``: sending, from the job runner

Inside: ``access`` (who may change a subscription), ``muting`` (the mute rule),
``messages`` (templates), ``send`` (webhooks and Apprise), ``schedule`` (retry times),
``apprise_urls``.
"""

__all__ = [
    "change_diff",
    "change_filter",
    "changes",
    "delivery",
    "delivery_jobs",
    "digest",
    "events",
    "mutes",
    "reads",
    "replay",
    "subscriptions",
]
