"""Request schemas are made once per class and shared by every request and thread (issue 16):
a shared instance must validate each body on its own, with no state carried from one load
to the next."""

from __future__ import annotations

from ci_service.errors import ValidationFailed
from ci_service.services.common.fields import load, schema_instance
from ci_service.services.workspace.deals import DealCreateSchema, DealUpdateSchema
from ci_service.web.routes import deals as deal_routes
from tests.concurrency_support import all_at_once
from tests.resource_helpers import error


def _body(n: int) -> dict:
    return {
        "prospectCompanyName": f"Prospect {n}",
        "outcome": "WON",
        "dealSize": str(n),
        "arguments": [f"reason {n}", f"other {n}"],
    }


def test_one_instance_per_class():
    assert schema_instance(DealCreateSchema) is schema_instance(DealCreateSchema)
    assert schema_instance(DealCreateSchema) is not schema_instance(DealUpdateSchema)
    assert type(schema_instance(DealUpdateSchema)) is DealUpdateSchema


def test_routes_parse_with_the_shared_instance():
    # webargs keeps the schema it was given; a class would be instantiated per request.
    wrapped = deal_routes.create_deal
    documented = [
        p["schema"] for p in wrapped._apidoc["arguments"]["parameters"] if p["in"] == "json"
    ]
    assert documented == [schema_instance(DealCreateSchema)]


def test_threads_sharing_an_instance_get_their_own_results():
    def work(worker: int) -> list[str]:
        failures = []
        for i in range(200):
            n = worker * 1000 + i
            if i % 7 == 0:  # a bad body between good ones leaves nothing behind
                try:
                    load(DealCreateSchema, {"outcome": "TIED", "arguments": [""]})
                except ValidationFailed as exc:
                    fields = exc.details["fields"]
                    if set(fields) != {"prospectCompanyName", "outcome", "arguments.0"}:
                        failures.append(f"errors {fields}")
                else:
                    failures.append("a bad body loaded")
                continue
            values = load(DealCreateSchema, _body(n))
            if values != _body(n):
                failures.append(f"{n}: {values}")
        return failures

    assert all_at_once(8, work) == [[]] * 8


def test_a_bad_request_then_a_good_one_over_rest(api):
    bad = error(api.post("/api/deals", json={"outcome": "TIED"}), 400, "VALIDATION_ERROR")
    assert set(bad["details"]["fields"]) == {"prospectCompanyName", "outcome"}
    good = api.post("/api/deals", json=_body(1))
    assert good.status_code == 200, good.get_json()
    assert good.get_json()["deal"]["prospectCompanyName"] == "Prospect 1"
    again = error(
        api.post("/api/deals", json={"prospectCompanyName": "X"}), 400, "VALIDATION_ERROR"
    )
    assert set(again["details"]["fields"]) == {"outcome"}
