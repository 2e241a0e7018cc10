"""Background jobs: registry of job types, enqueueing, and the runner (see runner.py).

The job types and step handlers of the services register themselves when
``ci_service.services`` loads; this package never imports a layer above it.
"""
