"""Analysis: the feature matrix (competitor x our product, per category), the solution
matrix, and the claims both are scored from.

Public: ``matrix`` (build, read), ``solution_matrix``, ``scoring`` (the category scorer and
its optional language-model refiner), ``feature_presence`` (does a competitor have one of
our features, decided by meaning, with the quote), ``feature_terms``, ``claims`` (Claim and
Facts, what a battlecard is made of), ``feature_claims``. Inside: ``cells`` (a cell as
REST shows it), ``matrix_features``.
"""

__all__ = [
    "claims",
    "feature_claims",
    "feature_presence",
    "feature_terms",
    "matrix",
    "scoring",
    "solution_matrix",
]
