"""Job types for the real-process tests, loaded by ``serve`` through
``CI_SERVICE_JOB_MODULES=tests.jobs_plugin`` (the same hook a deployment uses to add types).

``test-block`` waits in its first step until the file named by ``payload["release"]``
exists (writing ``payload["started"]`` when it begins), so a test controls when it ends.
"""

from __future__ import annotations

from pathlib import Path

from ci_service.jobs.registry import handles, register
from ci_service.jobs.types import StepError
from tests.waiting import wait_for

BLOCK = "test-block"
QUICK = "test-quick"


def register_types() -> None:
    register(BLOCK, title="Blocking test job", steps=[("wait", "Waiting"), ("after", "After")])
    register(QUICK, title="Quick test job", steps=[("only", "Only Step")])
    handles(BLOCK, "wait")(wait_for_release)


def wait_for_release(ctx):
    Path(ctx.payload["started"]).write_text(ctx.job.id)
    release = Path(ctx.payload["release"])

    def released() -> bool:
        if release.exists():
            return True
        ctx.check_cancelled()  # raises when the job is cancelled or serve stops
        return False

    try:
        wait_for(released, float(ctx.payload.get("maxSeconds", 60)), message="the release file")
    except AssertionError:
        raise StepError("the test never released this job") from None


register_types()
