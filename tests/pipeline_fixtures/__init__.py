"""Fixture site and helpers for the pipeline tests (tests/test_pipeline_*.py)."""
