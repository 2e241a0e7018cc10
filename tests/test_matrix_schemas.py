"""Matrix, battlecard and search responses match their documented OpenAPI schemas."""

from __future__ import annotations

from ci_service.services.analysis import matrix
from ci_service.store.db import connection
from ci_service.web.routes import battlecards, search
from ci_service.web.routes import matrix as matrix_routes
from tests.analysis_support import seed_rival
from tests.resource_helpers import make_solution, ok

pytest_plugins = ["tests.jobs_fixtures"]


def valid(schema, body):
    assert schema().validate(body) == {}, schema().validate(body)


def test_responses_match_their_schemas(make_api, runner):
    api = make_api(plan="PRO")
    product, rival, _ = seed_rival(api)
    with connection():
        matrix.build_matrix(api.workspace_id, rival["id"])
    make_solution(
        api,
        product["id"],
        categoryMappings=[
            {"categoryId": "security-compliance", "productId": product["id"], "weight": 1}
        ],
    )
    body = ok(api.get(f"/api/matrix?productId={product['id']}&includeOurProduct=true"))
    valid(matrix_routes.MatrixSchema, body)
    valid(matrix_routes.SolutionMatrixSchema, ok(api.get("/api/matrix/solutions")))
    started = ok(
        api.post(
            f"/api/battlecards/{rival['id']}/generate",
            json={"productId": product["id"], "mode": "ATTACK"},
        )
    )
    valid(battlecards.GenerateResponseSchema, started)
    runner.run_until_idle()
    card_id = started["battlecard"]["id"]
    valid(
        battlecards.BattlecardResponseSchema,
        ok(api.get(f"/api/battlecards/{card_id}?includeEvidence=true")),
    )
    valid(battlecards.BattlecardListSchema, ok(api.get("/api/battlecards")))
    valid(search.SearchResponseSchema, ok(api.get("/api/search?q=rival")))
