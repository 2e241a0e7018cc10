"""The ``deliver-notifications`` job type (imported by ``ci_service.jobs``).

A workspace-level job (no competitor) with one step that sends every due pending delivery
of its workspace (``services.delivery.send_due``). It is enqueued in the transaction that
creates deliveries, and by the scheduler's 30-second scan for retries and after a restart.
Only the registry is imported here; the implementation loads when the step runs.
"""

from __future__ import annotations

from ci_service.jobs.registry import handles, register
from ci_service.jobs.types import JobContext

JOB_TYPE = "deliver-notifications"

register(JOB_TYPE, title="Sending notifications", steps=[("send", "Sending Notifications")])


@handles(JOB_TYPE, "send")
def send_step(ctx: JobContext) -> None:
    from ci_service.services import delivery

    clock = ctx.clock or delivery.utcnow
    counts = delivery.send_due(ctx.workspace_id, clock=clock, check=ctx.check_cancelled)
    ctx.progress(
        1.0,
        f"{counts['delivered']} delivered, {counts['retry']} to retry, {counts['failed']} failed",
    )
