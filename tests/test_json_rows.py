"""Lists the database writes as JSON (store/json_rows.py) say what the Python path says:
the same objects, keys, order, filters and pages, on both backends; rows the database
can't write faithfully send the list down the Python path."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest

from ci_service.services.workspace import competitors as competitor_service
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection, transaction
from ci_service.store.json_rows import JsonList, JsonText, Key
from tests.resource_helpers import make_competitor, make_product, ok

ODD_TEXT = 'Ünïcode "quotes" \\ back\tslash <script>alert(1)</script> \u2028 😀'


def python_path(workspace_id, product_id=None, limit=1000, offset=None):
    rows = competitor_service.list_competitors(workspace_id, product_id, limit=limit, offset=offset)
    return [competitor_service.competitor_to_dict(r) for r in rows]


def database_path(workspace_id, product_id=None, limit=1000, offset=None):
    listed = competitor_service.list_competitors_json(
        workspace_id, product_id, limit=limit, offset=offset
    )
    return None if listed is None else orjson.loads(listed.text)


@pytest.fixture
def rivals(api):
    """Competitors with every kind of value: nulls, unicode, nested JSON, both optional
    timestamps set on some; one made relevant to a product."""
    product = make_product(api)
    made = [
        make_competitor(api, name="Plain"),
        make_competitor(
            api,
            name=ODD_TEXT,
            tags=["a", ODD_TEXT],
            relevantProductIds=[product["id"]],
            companyProfile={"founded": 1999, "hq": {"city": ODD_TEXT}, "ratio": 0.5},
            companyStrengths=["fast"],
            keyMessaging=["x" * 500],
        ),
        make_competitor(api, name="Third", priority=3, tier="TIER_1"),
    ]
    ids = [m["competitor"]["id"] for m in made]
    with connection(), transaction():
        Competitor.update(last_refresh_at=datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)).where(
            Competitor.id == ids[0]
        ).execute()
        Competitor.update(
            last_refresh_at=datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
            last_battlecard_at=datetime(2026, 11, 25, tzinfo=UTC),
        ).where(Competitor.id == ids[2]).execute()
    return product, ids


def test_same_list_as_the_python_path(app, api, rivals):
    with connection():
        fast = database_path(api.workspace_id)
        assert fast == python_path(api.workspace_id)
    assert [c["name"] for c in fast] == ["Plain", ODD_TEXT, "Third"]
    assert "lastBattlecardAt" not in fast[0] and fast[0]["lastRefreshAt"].endswith(".678Z")
    assert "lastRefreshAt" not in fast[1] and "lastBattlecardAt" not in fast[1]
    assert fast[2]["lastRefreshAt"] == "1999-12-31T23:59:59.999Z"
    assert fast[2]["lastBattlecardAt"] == "2026-11-25T00:00:00.000Z"
    assert list(fast[1]) == list(python_path(api.workspace_id)[1])  # key order too


@pytest.mark.parametrize(
    "args",  # (product id, limit, offset); PRODUCT: the fixture's product
    [("PRODUCT",), ("no-such-product",), (None, 1, 1), (None, 2, 0), (None, 5, 3),
     ("PRODUCT", 1, 1)],
)  # fmt: skip
def test_filter_and_pages_match(app, api, rivals, args):
    product, _ids = rivals
    args = tuple(product["id"] if a == "PRODUCT" else a for a in args)
    with connection():
        assert database_path(api.workspace_id, *args) == python_path(api.workspace_id, *args)


def test_the_product_filter_and_the_workspace_narrow_the_list(app, api, rivals):
    product, ids = rivals
    with connection():
        assert [c["id"] for c in database_path(api.workspace_id, product["id"])] == [ids[1]]
        assert database_path("another-workspace") == []


@pytest.mark.parametrize(
    "path",
    [
        "/api/competitors",
        "/api/competitors?productId={product}",
        "/api/competitors?limit=2&offset=1",
    ],
)
def test_rest_answer_is_the_python_paths(app, api, rivals, path):
    product, _ids = rivals
    path = path.format(product=product["id"])
    body = ok(api.get(path))
    query = dict(p.split("=") for p in path.partition("?")[2].split("&") if p)
    with connection():
        expected = python_path(
            api.workspace_id,
            query.get("productId"),
            int(query.get("limit", 1000)),
            int(query["offset"]) if "offset" in query else None,
        )
    assert body == {"competitors": expected}


def test_a_timestamp_stored_in_another_form_takes_the_python_path(app, api, rivals):
    _product, ids = rivals
    with connection(), transaction():  # an older version's unpadded year, read back as null
        Competitor.update(last_refresh_at="1-01-01T00:00:00.000000Z").where(
            Competitor.id == ids[1]
        ).execute()
    with connection():
        assert database_path(api.workspace_id) is None
    body = ok(api.get("/api/competitors"))
    with connection():
        assert body == {"competitors": python_path(api.workspace_id)}
    assert body["competitors"][1]["lastRefreshAt"] == "0001-01-01T00:00:00.000Z"


@pytest.mark.backends("sqlite")
def test_malformed_json_in_a_sqlite_column_is_declined(app, api, rivals):
    _product, ids = rivals
    with connection(), transaction():
        Competitor._meta.database.execute_sql(
            "UPDATE competitor SET products = ? WHERE id = ?", ("{not json", ids[2])
        )
    with connection():  # the database declines instead of failing the request
        assert database_path(api.workspace_id) is None


def test_sorted_or_pretty_json_parses_the_embedded_list(app):
    provider = app.json
    value = {"b": JsonText('[{"z":1,"a":[true,null]}]'), "a": 1}
    assert orjson.loads(provider.dumps(value)) == {"b": [{"z": 1, "a": [True, None]}], "a": 1}
    assert provider.dumps(value, sort_keys=True) == '{"a": 1, "b": [{"a": [true, null], "z": 1}]}'


def test_more_than_three_optional_keys_is_refused():
    keys = tuple(Key(f"k{i}", f"c{i}", omit_null=True) for i in range(4))
    with pytest.raises(ValueError):
        JsonList(table="t", keys=keys, where="1 = 1", order="id").sql(False)
