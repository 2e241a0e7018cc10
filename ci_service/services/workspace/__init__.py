"""The workspace's records: workspaces, competitors, our offerings and products,
organizations, solutions (and their generation), deals and deal statistics; the overview
the home and competitor pages read, the first-run checklist (``onboarding``) and jobs as
REST, tools and the CLI see them (``jobs``).
"""

__all__ = [
    "competitor_import",
    "competitors",
    "deal_stats",
    "deals",
    "jobs",
    "offerings",
    "onboarding",
    "organizations",
    "overview",
    "products",
    "solution_generation",
    "solutions",
    "workspaces",
]
