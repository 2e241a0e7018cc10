"""ci-service: a self-hosted competitive intelligence service."""

__version__ = "0.1.0"
