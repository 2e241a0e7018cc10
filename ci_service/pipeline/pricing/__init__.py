"""Pricing: the plans a site states, read from cards, tables, text and JSON-LD.

The reading rules live in this package's modules; see ``docs/pipeline.md``."""
