"""The company profile: headquarters, founding year, industry, funding, customers and partners.

The reading rules live in this package's modules; see ``docs/pipeline.md``."""
