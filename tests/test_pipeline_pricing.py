"""Pricing plans from pricing pages (cards, tables, JSON-LD, sentences), stored on the
competitor's offerings with their evidence, and the price changes between collections."""

from __future__ import annotations

import pytest

from ci_service.pipeline.evidence import Cite, EvidenceMap
from ci_service.pipeline.pricing.plans import PlanDraft, extract_pricing, page_plans, pricing_pages
from ci_service.pipeline.site import SitePage, SiteSnapshot
from ci_service.services.collection.pricing_store import save_pricing
from ci_service.services.workspace.offerings import create_offering
from ci_service.store.db import connection
from ci_service.store.resources import Offering
from ci_service.web.routes import offerings as offering_routes
from ci_service.web.routes import products as product_routes
from tests.intel_helpers import competitor
from tests.resource_helpers import error, make_competitor, make_product, ok

BASE = "https://acme.example"


def page(path, html="", text=None, title="Pricing", json_ld=None, links=None):
    """A crawled page; ``text`` is what the crawler keeps of it (the stored evidence)."""
    if text is None:
        from ci_service.intel.extract import extract_html

        text = extract_html(html, BASE + path).text
    made = SitePage(BASE + path, title, "", text, [], json_ld or [], links or [], depth=1)
    made.html = html
    return made


def terms(plans):
    return [(p.name, p.price, p.currency, p.period, p.unit, p.on_request) for p in plans]


def assert_cited(plans, made):
    for plan in plans:
        assert plan.cite is not None and plan.cite.url == made.url, plan
        assert EvidenceMap_for(made).resolve(plan.cite) is not None, plan.cite


def EvidenceMap_for(made):  # noqa: N802
    evidence = EvidenceMap()
    evidence.add(made.url, "ev-page", made.text)
    return evidence


CARDS = """<html><body>
<header><nav><a href="/">Home</a><a href="/pricing">Pricing from $5</a></nav></header>
<main><h1>Simple pricing</h1>
<div class="plans">
  <div class="plan"><span class="badge">Most popular</span><h3>Free</h3>
    <p>For individuals getting started</p><h4>$0 <span>/ month</span></h4>
    <a class="btn" href="/signup">Get started</a>
    <ul><li>3 projects</li><li>Community support</li></ul></div>
  <div class="plan"><h3>Team</h3><p>For growing teams</p>
    <h4>$12 <span>per seat / month</span></h4><a class="btn" href="/buy">Buy now</a>
    <p>Everything in Free, and:</p>
    <p>✓ Unlimited projects</p><p>✓ SSO</p></div>
  <div class="plan"><h3>Enterprise</h3><p>For large organisations</p>
    <h4>Contact sales</h4><ul><li>Audit logs</li><li>24/7 support</li></ul></div>
</div></main>
<footer><p>Acme raised $1,000,000 in 2020.</p><p>Plans from $99 per month</p></footer>
</body></html>"""


def test_cards_give_name_price_period_unit_features_and_cites():
    made = page("/pricing/", CARDS)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Free", 0.0, "USD", "month", None, False),
        ("Team", 12.0, "USD", "month", "per seat", False),
        ("Enterprise", None, None, None, None, True),
    ]
    assert plans[0].features == ["3 projects", "Community support"]
    assert plans[1].features == ["Unlimited projects", "SSO"]  # lead-in and button left out
    assert plans[2].features == ["Audit logs", "24/7 support"]
    assert plans[1].price_text == "$12 per seat / month"
    assert plans[1].cite.quote == "$12 per seat / month"
    assert_cited(plans, made)


def test_nav_and_footer_prices_are_not_plans():
    plans = page_plans(page("/pricing/", CARDS))
    assert {p.price for p in plans} == {0.0, 12.0, None}
    assert not any("99" in (p.price_text or "") or "5" == str(p.price) for p in plans)


def test_monthly_and_annual_prices_are_two_records_and_billed_annually_is_yearly():
    html = """<body><section class="tiers">
      <div class="tier"><div class="title">PERSONAL</div><ul>
        <li class="description">Evaluation subscription</li>
        <li>Continuous updates</li><li>Community support</li>
        <li class="price">$10 / MONTH [ $89 / YEAR ]</li></ul></div>
      <div class="tier"><div class="title">BUSINESS</div><ul>
        <li>Priority support</li>
        <li class="price">$8 per user / month, billed annually</li></ul></div>
    </section></body>"""
    made = page("/pricing/", html)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Personal", 10.0, "USD", "month", None, False),
        ("Personal", 89.0, "USD", "year", None, False),
        ("Business", 96.0, "USD", "year", "per user", False),
    ]
    assert plans[0].features == ["Continuous updates", "Community support"]
    assert plans[1].cite.quote == "$10 / MONTH [ $89 / YEAR ]"
    assert_cited(plans, made)


def test_a_card_of_cards_gives_the_inner_plans_with_its_features():
    html = """<body><div class="row">
      <div class="col"><div class="title">Starter</div><ul><li>One device</li>
        <li class="price">€5 / month</li></ul></div>
      <div class="col"><div class="title">Enterprise</div><ul><li>Unlimited devices</li>
        <li class="price">
          <div><p><span>Zephyr</span> $1,000 / MONTH<br>$10,000 / YEAR</p></div>
          <div><p><span>Linux</span> $2,500 / MONTH<br>$25,000 / YEAR</p></div></li></ul></div>
    </div></body>"""
    made = page("/pricing/", html)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Starter", 5.0, "EUR", "month", None, False),
        ("Zephyr", 1000.0, "USD", "month", None, False),
        ("Zephyr", 10000.0, "USD", "year", None, False),
        ("Linux", 2500.0, "USD", "month", None, False),
        ("Linux", 25000.0, "USD", "year", None, False),
    ]
    assert plans[1].edition == "Enterprise" and plans[1].features == ["Unlimited devices"]
    assert plans[1].cite.quote == "Zephyr $1,000 / MONTH"
    assert_cited(plans, made)


@pytest.mark.parametrize(
    ("price_html", "expected"),
    [
        ("£20 per user per month", (20.0, "GBP", "month", "per user")),
        ("49,99 € / Monat pro Nutzer", (49.99, "EUR", "month", "per user")),
        ("USD 1,200 / year", (1200.0, "USD", "year", None)),
        ("CHF 15 per end-user / month", (15.0, "CHF", "month", "per end-user")),
        ("A$30 flat / mo", (30.0, "AUD", "month", "flat")),
        ("$99 one-time", (99.0, "USD", "one-time", None)),
    ],
)
def test_currency_symbols_codes_periods_and_units(price_html, expected):
    html = f"""<body><div class="p">
      <div><h3>Basic</h3><p class="price">$1 / month</p></div>
      <div><h3>Pro</h3><p class="price">{price_html}</p></div></div></body>"""
    plans = page_plans(page("/pricing/", html))
    assert (plans[1].name, plans[1].price, plans[1].currency, plans[1].period, plans[1].unit) == (
        "Pro",
        *expected,
    )


def test_free_card_without_amount_and_custom_price():
    html = """<body><div class="grid">
      <div class="card"><h2>Community</h2><div class="price">Free</div><li>Forum</li></div>
      <div class="card"><h2>Scale</h2><div class="price">Custom</div>
        <a href="/talk">Talk to sales</a></div></div></body>"""
    made = page("/pricing/", html)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Community", 0.0, None, None, None, False),
        ("Scale", None, None, None, None, True),
    ]
    assert plans[0].features == ["Forum"]
    assert_cited(plans, made)


def test_table_with_plan_columns_and_a_price_row():
    text = """Compare plans
Plan | Basic | Pro | Enterprise
Price | £10 / month | £25 / month | Contact us
Storage | 10 GB | 100 GB | Unlimited
SSO | | ✓ | ✓"""
    made = page("/pricing/", text=text)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Basic", 10.0, "GBP", "month", None, False),
        ("Pro", 25.0, "GBP", "month", None, False),
        ("Enterprise", None, None, None, None, True),
    ]
    assert plans[1].cite.quote == "Price | £10 / month | £25 / month | Contact us"
    assert plans[1].features == ["Storage: 100 GB", "SSO"]
    assert_cited(plans, made)


def test_json_ld_offers_cite_the_sentence_with_the_price():
    json_ld = [
        {
            "@type": "SoftwareApplication",
            "name": "Acme",
            "offers": [
                {
                    "@type": "Offer",
                    "name": "Growth",
                    "price": "49",
                    "priceCurrency": "EUR",
                    "priceSpecification": {
                        "@type": "UnitPriceSpecification",
                        "price": 49,
                        "billingDuration": "P1M",
                        "unitText": "user",
                    },
                },
                {"@type": "Offer", "name": "Hidden", "price": "77", "priceCurrency": "EUR"},
            ],
        }
    ]
    text = "Our plans\nGrowth costs €49 for each user, every month."
    made = page("/pricing/", text=text, json_ld=json_ld)
    plans = page_plans(made)
    growth = next(p for p in plans if p.name == "Growth")
    assert (growth.price, growth.currency, growth.period, growth.unit) == (
        49.0,
        "EUR",
        "month",
        "per user",
    )
    assert growth.cite.quote == "Growth costs €49 for each user, every month."
    hidden = next(p for p in plans if p.name == "Hidden")
    assert hidden.cite is None  # the page never states it: dropped when saved


def test_a_json_ld_offer_without_a_period_takes_the_one_its_sentence_states():
    json_ld = [{"@type": "Product", "name": "Vaultly",
                "offers": {"@type": "Offer", "name": "Vaultly", "price": "2400",
                           "priceCurrency": "EUR"}}]  # fmt: skip
    text = "Prezzo\nLicenza perpetua: 2.400 € una tantum per postazione, IVA esclusa."
    made = page("/vaultly/", text=text, json_ld=json_ld)
    made.language = "it"
    (plan,) = page_plans(made)
    assert (plan.price, plan.period, plan.unit) == (2400.0, "one-time", "per seat")


def test_sentences_name_plans_and_from_prices():
    text = (
        "You will pay $1,000/month (Zephyr) or $2,500/month (Linux) for updates.\n"
        "The Pro plan costs $49 per user per month.\n"
        "Our revenue was $3 million in 2020."
    )
    plans = page_plans(page("/pricing/", text=text))
    assert terms(plans) == [
        ("Zephyr", 1000.0, "USD", "month", None, False),
        ("Linux", 2500.0, "USD", "month", None, False),
        ("Pro", 49.0, "USD", "month", "per user", False),
    ]
    alone = page_plans(page("/pricing/", text="Simple pricing for everyone: plans from $29/month."))
    assert terms(alone) == [("Starting price", 29.0, "USD", "month", None, False)]


def test_text_only_cards_without_markup():
    text = """Starter
For small teams
$9 / month
✓ 5 users
✓ Email support
Scale
$29 / month
✓ 50 users
Enterprise
Let's talk
Ultimate
Contact sales for single sign-on and audit logs."""
    made = page("/plans/", text=text)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Starter", 9.0, "USD", "month", None, False),
        ("Scale", 29.0, "USD", "month", None, False),
        ("Enterprise", None, None, None, None, True),
        ("Ultimate", None, None, None, None, True),
    ]
    assert plans[0].features == ["5 users", "Email support"]
    assert plans[3].cite.quote == "Ultimate Contact sales for single sign-on and audit logs."
    assert page_plans(page("/plans/", text="Custom\nCustom domains for every site")) == []
    assert plans[1].cite.quote == "Scale $29 / month"
    assert_cited(plans, made)


def test_pricing_pages_by_url_title_and_link_text_not_blog_posts():
    home = page("/", text="Welcome", title="Acme", links=[(BASE + "/self-host", "Self-host plans")])
    snapshot = SiteSnapshot(
        BASE + "/",
        [
            home,
            page("/self-host/", text="Free\n$0", title="Self-hosting"),
            page("/blog/our-new-pricing/", text="Pro\n$5 / month", title="Our new pricing"),
            page("/pricing/", text="Pro\n$10 / month"),
            page("/about/", text="About", title="About"),
        ],
    )
    assert [p.url for p in pricing_pages(snapshot)] == [BASE + "/pricing/", BASE + "/self-host/"]


def test_the_same_plan_on_two_pages_keeps_both_under_the_page_label():
    cloud = page("/pricing/", text="Standard\n$6 per end-user / month\nEnterprise\nContact us")
    own = page("/self-host/", text="Standard\n$5 per end-user / month", title="Self-host")
    links = [(BASE + "/self-host/", "Self-hosting plans")]
    home = page("/", text="Home", title="Acme", links=links)
    plans = extract_pricing(SiteSnapshot(BASE + "/", [home, own, cloud]))
    assert [(p.name, p.price) for p in plans] == [
        ("Standard", 6.0),
        ("Enterprise", None),
        ("Standard (Self-host)", 5.0),
    ]


@pytest.mark.parametrize(
    "html",
    ["", "<<<>>>", "<html><body>" + "<div>" * 3000 + "$5" + "</div>" * 3000, "\x00\xff$"],
)
def test_hostile_markup_never_raises(html):
    made = page("/pricing/", html, text="$ 5 5 $ | | |")
    assert isinstance(extract_pricing(SiteSnapshot(BASE + "/", [made])), list)


# -- saving ---------------------------------------------------------------------------------

PRICING_URL = BASE + "/pricing/"


def plan(name, price, period="month", quote=None, **extra):
    quote = quote or f"{name} ${price} / {period}"
    return PlanDraft(
        name=name,
        price=price,
        currency="USD",
        period=period,
        unit=extra.pop("unit", None),
        on_request=False,
        price_text=quote,
        features=extra.pop("features", []),
        cite=Cite(extra.pop("url", PRICING_URL), quote),
        page_url=PRICING_URL,
        **extra,
    )


def evidence_for(*plans, url=PRICING_URL, evidence_id="ev-1"):
    evidence = EvidenceMap()
    evidence.add(url, evidence_id, "\n".join(p.cite.quote for p in plans))
    return evidence


def offerings_of(workspace_id, competitor_id):
    with connection():
        return {
            o.name: o
            for o in Offering.select().where(
                Offering.workspace == workspace_id, Offering.competitor == competitor_id
            )
        }


def test_plans_go_to_the_offering_they_name_else_the_first(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "Foundries.io", BASE)
    with connection():
        for name in ("Linux microPlatform", "Zephyr microPlatform"):
            data = {"name": name, "description": "", "audience": ""}
            create_offering(ws.id, data, competitor_id=rival.id, view="product")
    plans = [plan("Personal", 10), plan("Zephyr", 1000), plan("Linux", 2500)]
    with connection():
        counts = save_pricing(ws.id, rival.id, plans, evidence_for(*plans), "Foundries.io")
    assert counts == {"plans": 3, "dropped": 0, "changes": 0}
    rows = offerings_of(ws.id, rival.id)
    assert [p["name"] for p in rows["Zephyr microPlatform"].pricing] == ["Zephyr"]
    assert [p["name"] for p in rows["Linux microPlatform"].pricing] == ["Personal", "Linux"]
    stored = rows["Zephyr microPlatform"].pricing[0]
    assert (
        stored["evidenceIds"] == ["ev-1"] and stored["quotes"][0]["quote"] == "Zephyr $1000 / month"
    )
    assert stored["quotes"][0]["url"].startswith(PRICING_URL + "#:~:text=")
    assert rows["Zephyr microPlatform"].pricing_changes == []


def test_without_offerings_one_named_after_the_company_is_made(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "Budibase", BASE)
    plans = [plan("Standard", 6), plan("Ghost", 9, url=BASE + "/elsewhere/")]
    with connection():
        counts = save_pricing(ws.id, rival.id, plans, evidence_for(plans[0]), "Budibase")
    assert counts["plans"] == 1 and counts["dropped"] == 1  # the uncited plan is dropped
    rows = offerings_of(ws.id, rival.id)
    assert list(rows) == ["Budibase"] and rows["Budibase"].pricing[0]["price"] == 6.0


def test_changes_between_collections_are_recorded_with_old_and_new(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "Acme", BASE)
    first = [plan("Pro", 49, unit="per user"), plan("Team", 99), plan("Legacy", 5)]
    with connection():
        assert save_pricing(ws.id, rival.id, first, evidence_for(*first), "Acme")["changes"] == 0
        again = save_pricing(ws.id, rival.id, first, evidence_for(*first), "Acme")
    assert again["changes"] == 0  # an unchanged re-collect records nothing
    assert offerings_of(ws.id, rival.id)["Acme"].pricing_changes == []

    second = [plan("Pro", 59, unit="per user"), plan("Team", 99), plan("Scale", 199)]
    with connection():
        counts = save_pricing(ws.id, rival.id, second, evidence_for(*second, evidence_id="ev-2"))
    assert counts["changes"] == 3
    row = offerings_of(ws.id, rival.id)["Acme"]
    changes = {c["change"]: c for c in row.pricing_changes}
    assert changes["price_changed"]["plan"] == "Pro"
    assert changes["price_changed"]["old"] == {
        "price": 49,
        "currency": "USD",
        "period": "month",
        "unit": "per user",
        "onRequest": False,
    }
    assert changes["price_changed"]["new"]["price"] == 59
    assert changes["price_changed"]["evidenceIds"] == ["ev-2"]
    assert changes["plan_added"]["plan"] == "Scale" and changes["plan_added"]["old"] is None
    assert changes["plan_removed"]["plan"] == "Legacy" and changes["plan_removed"]["new"] is None
    assert changes["plan_removed"]["evidenceIds"] == ["ev-2"]  # the page that no longer lists it
    assert all(c["detectedAt"].endswith("Z") for c in row.pricing_changes)
    assert [p["name"] for p in row.pricing] == ["Pro", "Team", "Scale"]


def test_a_plan_whose_page_was_not_read_is_kept_not_removed(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "Acme", BASE)
    cloud = plan("Cloud", 10)
    own = plan("Self-host", 5, url=BASE + "/self-host/")
    evidence = evidence_for(cloud)
    evidence.add(BASE + "/self-host/", "ev-sh", own.cite.quote)
    with connection():
        save_pricing(ws.id, rival.id, [cloud, own], evidence, "Acme")
        dearer = plan("Cloud", 12)
        counts = save_pricing(ws.id, rival.id, [dearer], evidence_for(dearer))
    row = offerings_of(ws.id, rival.id)["Acme"]
    assert counts["changes"] == 1 and [c["change"] for c in row.pricing_changes] == [
        "price_changed"
    ]
    assert sorted(p["name"] for p in row.pricing) == ["Cloud", "Self-host"]


def test_on_request_to_priced_is_one_price_change(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "Acme", BASE)
    asked = plan("Enterprise", None, period=None, quote="Enterprise Contact sales")
    asked.on_request = True
    priced = plan("Enterprise", 500, period="month")
    with connection():
        save_pricing(ws.id, rival.id, [asked], evidence_for(asked), "Acme")
        save_pricing(ws.id, rival.id, [priced], evidence_for(priced), "Acme")
    (change,) = offerings_of(ws.id, rival.id)["Acme"].pricing_changes
    assert change["change"] == "price_changed"
    assert change["old"]["onRequest"] is True and change["old"]["price"] is None
    assert change["new"] == {
        "price": 500,
        "currency": "USD",
        "period": "month",
        "unit": None,
        "onRequest": False,
    }


# -- REST -----------------------------------------------------------------------------------


def test_rest_shows_competitor_pricing_and_changes(api):
    competitor_id = make_competitor(api)["competitor"]["id"]
    first, second = [plan("Pro", 49)], [plan("Pro", 39)]
    with connection():
        save_pricing(api.workspace_id, competitor_id, first, evidence_for(*first), "Rival")
        save_pricing(api.workspace_id, competitor_id, second, evidence_for(*second), "Rival")
    listed = ok(api.get("/api/offerings"))
    offering_routes.OfferingListSchema().load(listed)  # documented schema holds
    (offering,) = [o for o in listed["offerings"] if o["competitorId"] == competitor_id]
    assert offering["pricing"][0]["price"] == 39 and offering["pricing"][0]["quotes"]
    (change,) = offering["pricingChanges"]
    assert (change["change"], change["old"]["price"], change["new"]["price"]) == (
        "price_changed",
        49,
        39,
    )
    assert ok(api.get(f"/api/offerings/{offering['id']}"))["offering"]["pricingChanges"]


def test_our_product_accepts_pricing_on_create_and_patch(api):
    product = make_product(
        api, pricing=[{"name": "Pro", "price": 29, "currency": "USD", "period": "month"}]
    )
    assert product["pricing"] == [
        {
            "name": "Pro",
            "price": 29,
            "currency": "USD",
            "period": "month",
            "unit": None,
            "onRequest": False,
            "priceText": None,
            "features": [],
            "evidenceIds": [],
            "quotes": [],
        }
    ]
    body = {"pricing": [{"name": "Enterprise", "price": 10, "onRequest": True}]}
    patched = ok(api.patch(f"/api/products/{product['id']}", json=body))["product"]
    assert [(p["name"], p["price"], p["onRequest"]) for p in patched["pricing"]] == [
        ("Enterprise", None, True)
    ]
    product_routes.ProductResponseSchema().load({"product": patched})
    offering = ok(api.get(f"/api/offerings/{product['id']}"))["offering"]
    assert offering["pricing"] == patched["pricing"] and offering["pricingChanges"] == []
    twice = {"pricing": [{"name": "Pro", "period": "month"}, {"name": "pro", "period": "month"}]}
    error(api.patch(f"/api/products/{product['id']}", json=twice), 400, "VALIDATION_ERROR")
    bad = {"pricing": [{"name": "Pro", "period": "weekly"}]}
    error(api.patch(f"/api/offerings/{product['id']}", json=bad), 400, "VALIDATION_ERROR")
