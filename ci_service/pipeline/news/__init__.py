"""News: dated posts and press from feeds, news lists and articles.

The reading rules live in this package's modules; see ``docs/pipeline.md``."""
