"""People: the company's team, read from cards, grids, text, JSON-LD and humans.txt.

The reading rules live in this package's modules; see ``docs/pipeline.md``."""
