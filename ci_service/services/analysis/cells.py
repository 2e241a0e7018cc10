"""A matrix cell as REST, tools and pages show it (read by the matrix and the solution matrix)."""

from __future__ import annotations

from typing import Any

from ci_service.store.analysis import MatrixCell
from ci_service.timeutil import iso


def cell_to_dict(cell: MatrixCell) -> dict[str, Any]:
    return {
        "id": cell.id,
        "workspaceId": cell.workspace_id,
        "competitorId": cell.competitor_id,
        "productId": cell.product_id,
        "categoryId": cell.category_id,
        "categoryName": cell.category_name,
        "summary": list(cell.summary or []),
        "capabilityStatus": cell.capability_status,
        "evidenceIds": list(cell.evidence_ids or []),
        "features": cell.features,
        "updatedAt": iso(cell.updated_at),
    }
