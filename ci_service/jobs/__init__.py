"""Background jobs: registry of job types, enqueueing, and the runner (see runner.py)."""

# The intel pipeline's job types and step handlers register themselves here, so every
# process that loads the job registry (serve, the CLI, tests) runs the real steps. Its
# handlers import their implementations lazily, so this costs next to nothing.
import ci_service.pipeline  # noqa: E402, F401

# Change alerts: the deliver-notifications job type (services/alerts/delivery_jobs.py).
import ci_service.services.alerts.delivery_jobs  # noqa: E402, F401

# The analysis module's steps (build-matrix, build-battlecard) and the generate-battlecard
# job type, registered the same way (services/battlecards/jobs.py).
import ci_service.services.battlecards.jobs  # noqa: E402, F401
