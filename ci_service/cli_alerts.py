"""``ci-service alerts``: subscriptions to change events, for the operator (a thin layer over
``services.subscriptions``; the operator may manage every subscription).

Example::

    ci-service alerts create --workspace acme --name "Pricing" --channel webhook \\
        --target https://hooks.acme.example/ci --types competitor.price_changed
    ci-service alerts create --workspace acme --name "Team chat" --channel apprise \\
        --target slack://T000/B000/XXXX/#intel --scope workspace --digest daily
    ci-service alerts list --workspace acme
"""

from __future__ import annotations

import click

from ci_service.services.events import EVENT_TYPES
from ci_service.store.alerts import CHANNELS, DIGESTS, SCOPES
from ci_service.store.events import IMPORTANCE


@click.group()
def alerts():
    """Subscriptions to change events: webhooks, chat and e-mail."""


def _types(value: str | None) -> list[str]:
    return [t.strip() for t in (value or "").split(",") if t.strip()]


@alerts.command("list")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
def alerts_list(state, workspace, as_json):
    """List a workspace's subscriptions (never a target or secret).

    Example: ci-service alerts list --workspace acme --json
    """
    from ci_service.cli import emit_json, emit_table, service_errors
    from ci_service.services import subscriptions as subs
    from ci_service.services.workspaces import find_workspace

    @service_errors
    def run():
        state.open()
        rows = [
            subs.subscription_to_dict(r)
            for r in subs.list_subscriptions(find_workspace(workspace).id)
        ]
        if as_json:
            emit_json(rows)
            return
        for row in rows:
            row["types"] = ",".join(row["eventTypes"]) or "all"
        emit_table(
            rows, ["id", "name", "scope", "channel", "targetHint", "types", "digest", "status"]
        )

    run()


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
    from ci_service.cli import service_errors
    from ci_service.services import subscriptions as subs
    from ci_service.services.workspaces import find_workspace

    @service_errors
    def run():
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

    run()


@alerts.command("delete")
@click.argument("subscription_id")
@click.pass_obj
def alerts_delete(state, subscription_id):
    """Delete a subscription and its deliveries.

    Example: ci-service alerts delete 3f2a...
    """
    from ci_service.cli import service_errors
    from ci_service.services import subscriptions as subs

    @service_errors
    def run():
        state.open()
        row = subs.find_subscription(subscription_id)
        subs.delete_subscription(row.workspace_id, row.id, None)
        click.echo(f"Deleted subscription {row.id} '{row.name}'")

    run()


@alerts.command("rotate")
@click.argument("subscription_id")
@click.pass_obj
def alerts_rotate(state, subscription_id):
    """New webhook secret, printed alone as the last line; the old one works for 24 hours.

    Example: ci-service alerts rotate 3f2a...
    """
    from ci_service.cli import service_errors
    from ci_service.services import subscriptions as subs

    @service_errors
    def run():
        state.open()
        found = subs.find_subscription(subscription_id)
        row, secret = subs.rotate_secret(found.workspace_id, found.id, None)
        until = row.previous_secret_expires_at.isoformat(timespec="seconds")
        click.echo(f"Rotated the secret of {row.id}; the previous one is valid until {until}")
        click.echo(secret)

    run()


@alerts.command("test")
@click.argument("subscription_id")
@click.pass_obj
def alerts_test(state, subscription_id):
    """Queue a test message (a running ``serve`` sends it); prints the delivery id.

    Example: ci-service alerts test 3f2a...
    """
    from ci_service.cli import service_errors
    from ci_service.services import subscriptions as subs

    @service_errors
    def run():
        state.open()
        found = subs.find_subscription(subscription_id)
        delivery = subs.send_test(found.workspace_id, found.id, None)
        click.echo(f"Queued test delivery {delivery.id} (webhook-id {delivery.message_id})")

    run()


@alerts.command("deliveries")
@click.argument("subscription_id")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
def alerts_deliveries(state, subscription_id, limit, as_json):
    """A subscription's deliveries, newest first: status, attempts, last answer.

    Example: ci-service alerts deliveries 3f2a... --limit 20
    """
    from ci_service.cli import emit_json, emit_table, service_errors
    from ci_service.services import subscriptions as subs

    @service_errors
    def run():
        state.open()
        found = subs.find_subscription(subscription_id)
        rows = subs.list_deliveries(found.workspace_id, found.id, limit=limit)
        data = [subs.delivery_to_dict(r) for r in rows]
        if as_json:
            emit_json(data)
            return
        columns = ["id", "kind", "status", "attempts", "lastStatus", "lastError", "createdAt"]
        emit_table(data, columns)

    run()
