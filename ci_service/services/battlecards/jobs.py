"""Job registrations of the analysis module (imported by ``ci_service.services`` at load).

- the ``collect`` job's build-matrix and build-battlecard steps;
- the ``generate-battlecard`` job type (POST /api/battlecards/{competitorId}/generate),
  whose completion hook finishes cards requested after its step last looked and whose
  failure hook marks pending cards FAILED (see ``services/battlecards/cards.py``).

The job engine never imports this module: loading the services registers these steps.
"""

from __future__ import annotations

from datetime import datetime

from ci_service.jobs.hooks import JobHooks
from ci_service.jobs.registry import COLLECT, GENERATE_BATTLECARD, handles, register
from ci_service.jobs.types import JobContext
from ci_service.services.analysis import matrix
from ci_service.services.battlecards import cards as battlecards
from ci_service.store.jobs import Job

GENERATE = GENERATE_BATTLECARD


@handles(COLLECT, "build-matrix")
def build_matrix_step(ctx: JobContext) -> None:
    """Score the competitor against each relevant product; then its solution cells."""

    ctx.check_cancelled()
    result = matrix.build_matrix(ctx.workspace_id, ctx.competitor_id)
    counts = result["statusCounts"]
    ctx.progress(
        1.0,
        f"{result['cells']} matrix cells: {counts['SUPERIOR']} superior, "
        f"{counts['MATCH']} match, {counts['INFERIOR']} inferior, {counts['UNKNOWN']} unknown",
    )


@handles(COLLECT, "build-battlecard")
def build_battlecard_step(ctx: JobContext) -> None:
    """Regenerate the competitor's battlecards (one per relevant product)."""

    ctx.check_cancelled()
    cards = battlecards.refresh_for_competitor(ctx.workspace_id, ctx.competitor_id)
    ctx.progress(1.0, f"{len(cards)} battle card(s) written")


class CardHooks(JobHooks):
    def on_success(self, job: Job, now: datetime) -> None:

        battlecards.finish_pending(job.workspace_id, job.competitor_id, now)

    def on_failure(self, job: Job, now: datetime) -> None:

        if job.competitor_id is not None:
            battlecards.fail_pending(job.workspace_id, job.competitor_id, job.error)


register(
    GENERATE,
    title="Generating battle card against {competitorName}",
    steps=[("generate", "Generating Battle Card")],
    competitor=True,
    hooks=(CardHooks(),),
)


@handles(GENERATE, "generate")
def generate_step(ctx: JobContext) -> None:

    battlecards.generate_pending(ctx)
