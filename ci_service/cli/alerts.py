"""``ci-service alerts``: subscriptions to change events, for the operator (a thin layer over
``services.alerts.subscriptions``; the operator may manage every subscription).

Example::

    ci-service alerts create --workspace acme --name "Pricing" --channel webhook \\
        --target https://hooks.acme.example/ci --types competitor.price_changed
    ci-service alerts create --workspace acme --name "Team chat" --channel apprise \\
        --target slack://T000/B000/XXXX/#intel --scope workspace --digest daily
    ci-service alerts list --workspace acme
    ci-service alerts retry 3f2a... 9c1b...        # send a failed or missed delivery again
    ci-service alerts digest 3f2a... --now         # a digest of what happened since the last
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, emit_table, service_errors
from ci_service.cli.mutes import alerts_mute, alerts_mutes, alerts_unmute
from ci_service.store.alerts import CHANNELS, DIGESTS, SCOPES
from ci_service.store.events import EVENT_TYPES, IMPORTANCE


@click.group()
def alerts():
    """Subscriptions to change events: webhooks, chat and e-mail."""


def _types(value: str | None) -> list[str]:
    return [t.strip() for t in (value or "").split(",") if t.strip()]


@alerts.command("list")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
@service_errors
def alerts_list(state, workspace, as_json):
    """List a workspace's subscriptions (never a target or secret).

    Example: ci-service alerts list --workspace acme --json
    """
    from ci_service.services.alerts import subscriptions as subs
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    rows = subs.subscriptions_to_dicts(subs.list_subscriptions(find_workspace(workspace).id))
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        row["types"] = ",".join(row["eventTypes"]) or "all"
    emit_table(rows, ["id", "name", "scope", "channel", "targetHint", "types", "digest", "status"])


@alerts.command("create")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--name", required=True, help="A label for the subscription.")
@click.option("--channel", required=True, type=click.Choice(CHANNELS))
@click.option("--target", required=True, help="Webhook URL, or an Apprise URL (slack://...).")
@click.option(
    "--types",
    default=None,
    help=f"Comma-separated event types (default all): {', '.join(EVENT_TYPES)}.",
)
@click.option("--competitor", "competitors", multiple=True, help="A competitor id; repeat.")
@click.option("--min-importance", type=click.Choice(IMPORTANCE), default="low", show_default=True)
@click.option("--digest", type=click.Choice(DIGESTS), default="none", show_default=True)
@click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default=None,
    help="personal (needs --email) or workspace; default personal with --email, else workspace.",
)
@click.option("--email", default=None, help="The owner's e-mail (a user of the workspace).")
@click.pass_obj
@service_errors
def alerts_create(
    state,
    workspace,
    name,
    channel,
    target,
    types,
    competitors,
    min_importance,
    digest,
    scope,
    email,
):
    """Subscribe; for a webhook, prints the signing secret alone as the last line (shown once).

    Example: ci-service alerts create --workspace acme --name Pricing --channel webhook
    --target https://hooks.acme.example/ci --types competitor.price_changed --min-importance high
    """
    from ci_service.services.alerts import subscriptions as subs
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    ws = find_workspace(workspace)
    owner_id = subs.owner_for_email(ws.id, email)
    data = {
        "name": name,
        "channel": channel,
        "target": target,
        "eventTypes": _types(types),
        "competitorIds": list(competitors),
        "minImportance": min_importance,
        "digest": digest,
        "scope": scope or ("personal" if owner_id else "workspace"),
    }
    row, secret = subs.create_subscription(ws.id, None, data, owner_id=owner_id)
    click.echo(
        f"Created subscription {row.id} '{row.name}' ({row.channel} to {row.target_hint}) "
        f"in workspace '{ws.name}'"
    )
    if secret:
        click.echo("Signing secret (shown only once):", err=True)
        click.echo(secret)


@alerts.command("delete")
@click.argument("subscription_id")
@click.pass_obj
@service_errors
def alerts_delete(state, subscription_id):
    """Delete a subscription and its deliveries.

    Example: ci-service alerts delete 3f2a...
    """
    from ci_service.services.alerts import subscriptions as subs

    state.open()
    row = subs.find_subscription(subscription_id)
    subs.delete_subscription(row.workspace_id, row.id, None)
    click.echo(f"Deleted subscription {row.id} '{row.name}'")


@alerts.command("rotate")
@click.argument("subscription_id")
@click.pass_obj
@service_errors
def alerts_rotate(state, subscription_id):
    """New webhook secret, printed alone as the last line; the old one works for 24 hours.

    Example: ci-service alerts rotate 3f2a...
    """
    from ci_service.services.alerts import subscriptions as subs

    state.open()
    found = subs.find_subscription(subscription_id)
    row, secret = subs.rotate_secret(found.workspace_id, found.id, None)
    until = row.previous_secret_expires_at.isoformat(timespec="seconds")
    click.echo(f"Rotated the secret of {row.id}; the previous one is valid until {until}")
    click.echo(secret)


@alerts.command("test")
@click.argument("subscription_id")
@click.pass_obj
@service_errors
def alerts_test(state, subscription_id):
    """Queue a test message (a running ``serve`` sends it); prints the delivery id.

    Example: ci-service alerts test 3f2a...
    """
    from ci_service.services.alerts import subscriptions as subs

    state.open()
    found = subs.find_subscription(subscription_id)
    delivery = subs.send_test(found.workspace_id, found.id, None)
    click.echo(f"Queued test delivery {delivery.id} (webhook-id {delivery.message_id})")


@alerts.command("deliveries")
@click.argument("subscription_id")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
@service_errors
def alerts_deliveries(state, subscription_id, limit, as_json):
    """A subscription's deliveries, newest first: status, attempts, last answer.

    Example: ci-service alerts deliveries 3f2a... --limit 20
    """
    from ci_service.services.alerts import subscriptions as subs

    state.open()
    found = subs.find_subscription(subscription_id)
    rows = subs.list_deliveries(found.workspace_id, found.id, limit=limit)
    data = [subs.delivery_to_dict(r) for r in rows]
    if as_json:
        emit_json(data)
        return
    columns = ["id", "kind", "status", "attempts", "lastStatus", "lastError", "createdAt"]
    emit_table(data, columns)


def _delivery_line(data: dict) -> str:
    return f"{data['id']} ({data['kind']}, webhook-id {data['messageId']}): {data['status']}" + (
        f", next attempt {data['nextAttemptAt']}" if data["nextAttemptAt"] else ""
    )


@alerts.command("retry")
@click.argument("subscription_id")
@click.argument("delivery_id", required=False)
@click.option("--all-failed", is_flag=True, help="Every failed delivery of the subscription.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
@service_errors
def alerts_retry(state, subscription_id, delivery_id, all_failed, as_json):
    """Send a failed or missed delivery again (same webhook-id); a running ``serve`` or
    ``worker`` sends it. A delivered or pending one, or a paused subscription's, is refused.

    Example: ci-service alerts retry 3f2a... 9c1b...   (or: --all-failed)
    """
    from ci_service.services.alerts import replay
    from ci_service.services.alerts import subscriptions as subs

    if bool(delivery_id) == bool(all_failed):
        raise click.UsageError("give a DELIVERY_ID or --all-failed (not both)")

    state.open()
    found = subs.find_subscription(subscription_id)
    if all_failed:
        rows = replay.retry_failed(found.workspace_id, found.id, None)
    else:
        rows = [replay.retry_delivery(found.workspace_id, found.id, delivery_id, None)]
    data = [subs.delivery_to_dict(r) for r in rows]
    if as_json:
        emit_json(data if all_failed else data[0])
        return
    if not data:
        click.echo("No failed deliveries to retry")
    for item in data:
        click.echo("Queued again: " + _delivery_line(item))


@alerts.command("send-missed")
@click.argument("subscription_id")
@click.pass_obj
@service_errors
def alerts_send_missed(state, subscription_id):
    """Queue what an active subscription missed while it was paused or disabled.

    Example: ci-service alerts send-missed 3f2a...
    """
    from ci_service.services.alerts import replay
    from ci_service.services.alerts import subscriptions as subs

    state.open()
    found = subs.find_subscription(subscription_id)
    count = replay.send_missed(found.workspace_id, found.id, None)
    click.echo(f"Queued {count} missed deliver{'y' if count == 1 else 'ies'}")


@alerts.command("digest")
@click.argument("subscription_id")
@click.option("--now", "now", is_flag=True, help="Make and queue a digest now.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
@service_errors
def alerts_digest(state, subscription_id, now, as_json):
    """With --now: a digest of the matching events since the last digest (else the last
    day, or week for a weekly one) up to now, sent by a running ``serve`` or ``worker``. The
    scheduled digest still comes. Without --now: when the last scheduled digest ended.

    Example: ci-service alerts digest 3f2a... --now
    """
    from ci_service.services.alerts import replay
    from ci_service.services.alerts import subscriptions as subs

    state.open()
    found = subs.find_subscription(subscription_id)
    if not now:
        last = subs.subscription_to_dict(found)["lastDigestAt"] or "never"
        click.echo(f"{found.name}: digest {found.digest}, last scheduled digest up to {last}")
        click.echo("Add --now to send one now.")
        return
    row, reason = replay.digest_now(found.workspace_id, found.id, None)
    if as_json:
        emit_json(replay.replay_result(row, reason))
    elif row is None:
        click.echo(f"No digest: {reason}")
    else:
        click.echo("Queued digest " + _delivery_line(subs.delivery_to_dict(row)))


for _mute_command in (alerts_mute, alerts_mutes, alerts_unmute):
    alerts.add_command(_mute_command)  # cli/mutes.py
