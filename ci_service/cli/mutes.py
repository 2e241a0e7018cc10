"""``ci-service alerts mute|mutes|unmute``: muted pages and event types, for the operator (a
thin layer over ``services.alerts.mutes``; the operator may manage every mute). The ``alerts`` group
(cli/alerts.py) adds these commands: this module does not know it.

Example::

    ci-service alerts mute --workspace acme --competitor 7c1e... \\
        --url https://globex.example/careers
    ci-service alerts mute --workspace acme --subscription 3f2a... --type competitor.news
    ci-service alerts mutes --workspace acme
    ci-service alerts unmute 9b0d...
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, emit_table, service_errors
from ci_service.store.events import EVENT_TYPES


@click.command("mute")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--subscription", default=None, help="Mute for this subscription only.")
@click.option("--competitor", default=None, help="A competitor id (alone: for every subscription).")
@click.option("--type", "event_type", type=click.Choice(EVENT_TYPES), default=None)
@click.option("--url", default=None, help="A page: events whose data.url is this page.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
@service_errors
def alerts_mute(state, workspace, subscription, competitor, event_type, url, as_json):
    """Mute a page (--url) or an event type (--type) for a subscription or a competitor.

    Example: ci-service alerts mute --workspace acme --competitor 7c1e...
    --url https://globex.example/careers
    """
    from ci_service.services.alerts import mutes
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    ws = find_workspace(workspace)
    data = {
        "subscriptionId": subscription,
        "competitorId": competitor,
        "eventType": event_type,
        "url": url,
    }
    row = mutes.create_mute(ws.id, None, {k: v for k, v in data.items() if v is not None})
    if as_json:
        emit_json(mutes.mute_to_dict(row))
        return
    click.echo(f"Muted {_what(row)} for {_whom(row)} (mute {row.id})")


@click.command("mutes")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
@service_errors
def alerts_mutes(state, workspace, as_json):
    """List a workspace's mutes.

    Example: ci-service alerts mutes --workspace acme --json
    """
    from ci_service.services.alerts import mutes
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    rows = [mutes.mute_to_dict(r) for r in mutes.list_mutes(find_workspace(workspace).id)]
    if as_json:
        emit_json(rows)
        return
    columns = ["id", "subscriptionId", "competitorId", "eventType", "url", "createdAt"]
    emit_table(rows, columns)


@click.command("unmute")
@click.argument("mute_id")
@click.pass_obj
@service_errors
def alerts_unmute(state, mute_id):
    """Delete a mute: its events are sent again from now on.

    Example: ci-service alerts unmute 9b0d...
    """
    from ci_service.services.alerts import mutes

    state.open()
    row = mutes.find_mute(mute_id)
    mutes.delete_mute(row.workspace_id, None, row.id)
    click.echo(f"Unmuted {_what(row)} for {_whom(row)}")


def _what(row) -> str:
    parts = [p for p in (row.event_type, row.url) if p]
    return " on ".join(parts)


def _whom(row) -> str:
    if row.subscription_id is None:
        return f"every subscription (competitor {row.competitor_id})"
    scope = f" (competitor {row.competitor_id})" if row.competitor_id else ""
    return f"subscription {row.subscription_id}{scope}"
