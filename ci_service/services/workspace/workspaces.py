"""Tenants and workspaces (created from the CLI)."""

from __future__ import annotations

from ci_service.errors import NotFound, ValidationFailed
from ci_service.store.db import transaction
from ci_service.store.identity import PLANS, Tenant, Workspace


def create_workspace(name: str, plan: str) -> Workspace:
    """Create a tenant holding ``plan`` and its workspace ``name`` (one write)."""
    name = (name or "").strip()
    plan = (plan or "").upper()
    if not name or len(name) > 200:
        raise ValidationFailed.field("name", "must be 1 to 200 characters")
    if plan not in PLANS:
        raise ValidationFailed.field("plan", f"must be one of {', '.join(PLANS)}")
    with transaction():
        if Workspace.select().where(Workspace.name == name).exists():
            raise ValidationFailed.field("name", f"a workspace named '{name}' already exists")
        tenant = Tenant.create(name=name, plan=plan)
        return Workspace.create(tenant=tenant, name=name)


def list_workspaces() -> list[Workspace]:
    return list(Workspace.select(Workspace, Tenant).join(Tenant).order_by(Workspace.created_at))


def find_workspace(name_or_id: str) -> Workspace:
    """A workspace by id or by name."""
    query = Workspace.select(Workspace, Tenant).join(Tenant)
    found = query.where(Workspace.id == name_or_id).first()
    found = found or query.where(Workspace.name == name_or_id).first()
    if found is None:
        raise NotFound(f"workspace '{name_or_id}' not found")
    return found


def workspace_to_dict(workspace: Workspace) -> dict:
    from ci_service.timeutil import iso

    return {
        "id": workspace.id,
        "name": workspace.name,
        "tenantId": workspace.tenant_id,
        "plan": workspace.tenant.plan,
        "createdAt": iso(workspace.created_at),
    }
