"""The ``deliver-notifications`` job type (registered when ``ci_service.services`` loads).

A workspace-level job (no competitor) with one step that sends every due pending delivery
of its workspace (``services.alerts.delivery.send_due``), then queues the workspace's next run for
the earliest retry due within a minute (``delivery.arm_next``: the job row waits with a
``run_after``, so no worker thread sleeps and any process may run it). It is enqueued in the
transaction that creates deliveries, and by the scheduler's 30-second scan for later
retries and after a restart. Only the registry is imported here; the implementation loads
when the step runs.
"""

from __future__ import annotations

from ci_service.jobs.registry import handles, register
from ci_service.jobs.types import JobContext

JOB_TYPE = "deliver-notifications"

register(JOB_TYPE, title="Sending notifications", steps=[("send", "Sending Notifications")])


@handles(JOB_TYPE, "send")
def send_step(ctx: JobContext) -> None:
    from ci_service.services.alerts import delivery
    from ci_service.timeutil import iso

    clock = ctx.clock or delivery.utcnow
    counts = delivery.send_due(ctx.workspace_id, clock=clock, check=ctx.check_cancelled)
    message = (
        f"{counts['delivered']} delivered, {counts['retry']} to retry, {counts['failed']} failed"
    )
    upcoming = delivery.arm_next(ctx.workspace_id, clock(), besides=ctx.job.id)
    if upcoming is not None:
        message += f"; next try at {iso(upcoming)}"
    ctx.progress(1.0, message)
