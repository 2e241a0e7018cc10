"""Background jobs: registry of job types, enqueueing, and the runner (see runner.py)."""
