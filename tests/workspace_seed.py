"""Data of every kind in one workspace, for the isolation walk and the fuzzer (not a test
module). Every name carries the workspace's tag, so a leak is easy to spot in a body."""

from __future__ import annotations

from dataclasses import dataclass, field

from ci_service.services.alerts import events
from ci_service.services.identity import users as people
from ci_service.services.intel import items as intel
from ci_service.services.intel import trees
from ci_service.services.intel.trees import TreeDocument, TreeSection
from ci_service.services.workspace import offerings
from ci_service.store.db import connection
from tests.resource_helpers import (
    make_competitor,
    make_deal,
    make_offering,
    make_product,
    make_solution,
    ok,
)


@dataclass
class Seeded:
    """Ids of every kind (kind -> list of ids) and the names written."""

    ids: dict[str, list[str]] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    key: str = ""

    def add(self, kind: str, value: str) -> str:
        self.ids.setdefault(kind, []).append(value)
        return value

    def first(self, kind: str) -> str:
        return self.ids[kind][0]

    def markers(self) -> list[str]:
        """Everything that must never show up in another workspace's answers."""
        return sorted({i for ids in self.ids.values() for i in ids} | set(self.names))


def _docs(tag: str, what: str) -> list[TreeDocument]:
    text = (
        f"{tag} {what} ships single sign-on, audit logs and analytics dashboards. "
        f"Pricing for {tag} starts at 49 dollars per user."
    )
    return [
        TreeDocument(
            title=f"{tag} {what} overview",
            url=f"https://{tag.lower()}.example/{what.lower()}",
            sections=[TreeSection(heading=f"{tag} {what} features", text=text)],
        )
    ]


def seed_workspace(api, tag: str, runner=None) -> Seeded:
    """Product, offering, organization, competitor (+ its offering), deal, solution, intel
    note and evidence, knowledge trees (offering, organization, competitor), battlecard,
    jobs, an API key and a webhook subscription in ``api``'s workspace (needs PRO or
    higher; ENTERPRISE for keys).
    ``runner`` (a thread-less JobRunner): run the queued jobs, so the battlecard is written.
    """
    seeded = Seeded()
    ws = api.workspace_id
    names = seeded.names
    names += [f"{tag}Product", f"{tag}Offering", f"{tag}Org", f"{tag}Rival", f"{tag}Prospect"]
    product = make_product(
        api,
        name=f"{tag}Product",
        features=[{"name": "Single sign-on", "description": "SAML"}],
        categories=[{"name": "Security"}],
    )
    seeded.add("product", product["id"])
    seeded.add("offering", make_offering(api, name=f"{tag}Offering")["id"])
    org = ok(
        api.patch(
            "/api/organizations",
            json={"name": f"{tag}Org", "websiteUrl": f"https://{tag.lower()}-org.example"},
        )
    )["organization"]
    seeded.add("organization", org["id"])
    created = make_competitor(
        api,
        name=f"{tag}Rival",
        url=f"https://{tag.lower()}-rival.example",
        relevantProductIds=[product["id"]],
    )
    competitor = created["competitor"]
    seeded.add("competitor", competitor["id"])
    seeded.add("job", created["jobId"])
    deal = make_deal(
        api,
        prospectCompanyName=f"{tag}Prospect",
        outcome="LOST",
        competitorId=competitor["id"],
        arguments=[f"{tag}Argument"],
    )
    seeded.add("deal", deal["id"])
    names.append(f"{tag}Argument")
    seeded.add("solution", make_solution(api, product["id"], name=f"{tag}Solution")["id"])
    names.append(f"{tag}Solution")
    note = ok(
        api.post(
            "/api/intel",
            json={
                "content": f"{tag}Note: their pricing changed",
                "title": f"{tag}NoteTitle",
                "competitorId": competitor["id"],
            },
        )
    )["intelItem"]
    seeded.add("intel", note["id"])
    names += [f"{tag}Note", f"{tag}Evidence", f"{tag}RivalSuite"]
    with connection():
        rival_offering = offerings.create_offering(
            ws,
            {
                "name": f"{tag}RivalSuite",
                "description": "Their suite",
                "audience": "teams",
                "features": [{"name": "Dashboards"}],
            },
            competitor_id=competitor["id"],
        )
        seeded.add("competitor_offering", rival_offering.id)
        evidence = intel.record_evidence(
            ws,
            source_type="WEB_PAGE",
            url=f"https://{tag.lower()}-rival.example/security",
            title=f"{tag}Evidence page",
            content=f"{tag}Evidence: {tag}Rival does not support SAML single sign-on.",
            competitor_id=competitor["id"],
        )
        seeded.add("intel", evidence.item.id)
        # A page change (issue 29: /changes/<event_id>); its one stored version stands for
        # both, so the seed holds no second version of the page.
        page_changed = events.emit(
            ws,
            "competitor.page_changed",
            f"{tag}Rival: “{tag}Evidence page” changed",
            f"The page https://{tag.lower()}-rival.example/security changed.",
            competitor_id=competitor["id"],
            evidence_ids=[evidence.item.id],
            link=f"/competitors/{competitor['id']}",
            data={
                "intelId": evidence.item.id,
                "previousItemId": evidence.item.id,
                "url": f"https://{tag.lower()}-rival.example/security",
                "added": [f"{tag}Evidence: SAML single sign-on"],
                "removed": [],
            },
        )
        seeded.add("event", page_changed.id)
        for entity_type, entity_id in (
            ("OFFERING", seeded.first("offering")),
            ("ORGANIZATION", org["id"]),
            ("COMPETITOR", competitor["id"]),
        ):
            tree = trees.replace_tree(ws, entity_type, entity_id, _docs(tag, entity_type.title()))
            seeded.add("tree", tree.id)
    for tree_id in seeded.ids["tree"]:
        for node in ok(api.get(f"/api/trees/{tree_id}/nodes?excludeEmbeddings=true"))["nodes"]:
            seeded.add("node", node["id"])
    started = ok(
        api.post(
            f"/api/battlecards/{competitor['id']}/generate",
            json={"productId": product["id"], "mode": "ATTACK"},
        )
    )
    seeded.add("battlecard", started["battlecard"]["id"])
    seeded.add("job", started["jobId"])
    if runner is not None:
        runner.run_until_idle()
    key = ok(api.post("/api/api-keys", json={"name": f"{tag}Key", "rateLimit": 1_000_000}))
    seeded.add("api_key", key["apiKey"]["id"])
    seeded.key = key["key"]
    names.append(f"{tag}Key")
    subscription = ok(
        api.post(
            "/api/subscriptions",
            json={
                "name": f"{tag}Alerts",
                "channel": "webhook",
                "target": f"https://{tag.lower()}-hooks.example/ci",
                "competitorIds": [competitor["id"]],
                "scope": "workspace",
            },
        )
    )["subscription"]
    seeded.add("subscription", subscription["id"])
    seeded.add("delivery", _failed_delivery(api.workspace_id, subscription["id"]))
    names.append(f"{tag}Alerts")
    mute = ok(
        api.post(
            "/api/mutes",
            json={"subscriptionId": subscription["id"], "eventType": "competitor.news"},
        )
    )["mute"]
    seeded.add("mute", mute["id"])
    seeded.add("connection", _connect_a_client(api, f"{tag}Assistant"))
    names.append(f"{tag}Assistant")
    with connection():
        _token, pending = people.invite(ws, f"{tag.lower()}-invitee@example.com", "VIEWER")
    seeded.add("invite", pending.id)
    return seeded


def _failed_delivery(workspace_id: str, subscription_id: str) -> str:
    """A failed test delivery: the second id of the retry route (issue 29)."""
    from ci_service.services.alerts.delivery import new_message_id
    from ci_service.store.alerts import Delivery

    with connection():
        row = Delivery.create(
            workspace=workspace_id,
            subscription=subscription_id,
            kind="test",
            message_id=new_message_id(),
            status="failed",
        )
    return row.id


def _connect_a_client(api, name: str) -> str:
    """An OAuth connection of the key's person to a registered MCP client (issue 17)."""
    from ci_service.services.identity import oauth_clients, oauth_tokens
    from ci_service.store.identity import User

    metadata = {"client_name": name, "redirect_uris": ["http://127.0.0.1/cb"]}
    with connection():
        client, _secret = oauth_clients.register_client(metadata)
        user_id = api.user_id or User.get(User.workspace == api.workspace_id).id
        grant = oauth_tokens.connect(client, user_id, ["read", "write"], "http://localhost/mcp")
    return grant.id


# Path parameter name -> the kinds of seeded id it takes (fuzz and isolation tests).
PATH_KINDS = {
    "product_id": ("product",),
    "offering_id": ("offering", "product", "competitor_offering"),
    "competitor_id": ("competitor",),
    "deal_id": ("deal",),
    "organization_id": ("organization",),
    "solution_id": ("solution",),
    "item_id": ("intel",),
    "job_id": ("job",),
    "key_id": ("api_key",),
    "battlecard_id": ("battlecard",),
    "tree_id": ("tree",),
    "subscription_id": ("subscription",),
    "delivery_id": ("delivery",),
    "mute_id": ("mute",),
    "connection_id": ("connection",),
}
