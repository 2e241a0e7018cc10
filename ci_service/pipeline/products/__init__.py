"""Products: offerings, their features and integrations, read from a site's pages.

The reading rules live in this package's modules; see ``docs/pipeline.md``."""
