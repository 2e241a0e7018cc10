"""Pricing layouts seen on real sites, on small made-up pages: cards with header names and
testimonials, tables in both orientations, lists, JSON-LD, split spans, "from" prices,
units, one-time prices, on-request wording, numbers that are no prices, decimal precision
and conventions, and shop plumbing that is never a plan."""

from __future__ import annotations

import pytest

from ci_service.pipeline.evidence import EvidenceMap
from ci_service.pipeline.pricing.plans import extract_pricing, number, page_plans, pricing_pages
from ci_service.pipeline.site import SitePage, SiteSnapshot
from ci_service.services.collection.pricing_store import save_pricing
from ci_service.store.db import connection
from ci_service.store.resources import Offering
from tests.intel_helpers import competitor

BASE = "https://shop.example"


def page(path, html="", text=None, title="Pricing", json_ld=None, kind="", language=""):
    """A crawled page; ``text`` is what the crawler keeps of it (the stored evidence)."""
    if text is None:
        from ci_service.intel.extract import extract_html

        text = extract_html(html, BASE + path).text
    made = SitePage(BASE + path, title, "", text, [], json_ld or [], [], depth=1)
    made.html, made.kind, made.language = html, kind, language
    return made


def terms(plans):
    return [(p.name, p.price, p.currency, p.period, p.unit, p.on_request) for p in plans]


def assert_cited(plans, made):
    evidence = EvidenceMap()
    evidence.add(made.url, "ev-page", made.text)
    for plan in plans:
        assert plan.cite is not None and evidence.resolve(plan.cite) is not None, plan


def cards(*bodies, wrapper="div"):
    inner = "".join(f'<div class="col"><div class="box">{b}</div></div>' for b in bodies)
    return f"<html><body><main><{wrapper} class='row'>{inner}</{wrapper}></main></body></html>"


# -- cards ----------------------------------------------------------------------------------

TAGLINE_AND_TESTIMONIAL = """<html><body><main>
<div class="intro"><h1>Clever forms, happy teams</h1><p>Start for free or talk to us.</p></div>
<div class="flex">
  <div class="cell"><div class="box"><header class="box-header">Starter</header>
    <div class="box-subheader">Free</div><ul><li>Unlimited forms</li><li>Basic themes</li></ul>
    <footer><a href="/signup">Sign up</a></footer></div></div>
  <div class="cell"><div class="box"><header class="box-header">Growth</header>
    <div class="box-subheader"><span>$120 / year</span></div>
    <ul><li>20,000 responses/month</li><li>Export data</li></ul></div></div>
  <div class="cell"><div class="box"><header class="box-header">Corporate</header>
    <div class="box-subheader">Custom plans</div><ul><li>White label</li></ul>
    <a href="/contact">Request info</a></div></div>
</div>
<div class="promise"><h3>Our promise</h3><p>We make it right, whatever it takes.</p></div>
<h3>What people are saying</h3>
<div class="slides">
  <div class="slide media-testimonial"><p>"We love it. One form brought in 9,000 leads and
    $40,000 in revenue."</p><p class="name">Jane Roe</p></div>
  <div class="slide media-testimonial"><p>"Setup took an hour and saved us $2,500 a month in
    agency fees."</p><p class="name">John Doe</p></div>
</div>
</main></body></html>"""


def test_plan_names_come_from_the_card_header_not_the_tagline_or_a_testimonial():
    made = page("/pricing/", TAGLINE_AND_TESTIMONIAL)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Starter", 0.0, None, None, None, False),
        ("Growth", 120.0, "USD", "year", None, False),
        ("Corporate", None, None, None, None, True),
    ]
    assert plans[1].features == ["20,000 responses/month", "Export data"]
    assert plans[0].cite.quote == "Starter Free"
    assert_cited(plans, made)


def test_a_figure_in_a_quotation_or_a_sentence_is_not_a_plan():
    html = """<body><div class="row">
      <div class="c"><h3>Our results</h3>
        <p>Customers saw $75,000 in extra revenue last year.</p></div>
      <div class="c"><h3>Our guarantee</h3>
        <blockquote>It paid for itself: $9,000 saved.</blockquote></div>
    </div></body>"""
    assert page_plans(page("/pricing/", html)) == []
    text = '"Great tool. It made us $5,000 per month within a quarter," says a customer.'
    assert page_plans(page("/pricing/", text=text)) == []


def test_split_spans_join_into_one_price_cited_by_the_joined_text():
    price = "<span>$</span><span>USD</span><span>104</span><span>/month</span>"
    made = page(
        "/pricing/", cards(f"<h3>Team</h3><p>{price}</p>", "<h3>Solo</h3><p>$9 / month</p>")
    )
    plans = page_plans(made)
    assert terms(plans)[0] == ("Team", 104.0, "USD", "month", None, False)
    assert_cited(plans, made)
    # The kept text glues the spans: the quote is still the page's own characters.
    glued = page("/pricing/", made.html, text="Team\n$USD104/month\nSolo\n$9 / month")
    plans = page_plans(glued)
    assert terms(plans)[0] == ("Team", 104.0, "USD", "month", None, False)
    assert "$USD104/month" in plans[0].cite.quote
    assert_cited(plans, glued)
    # No line of the kept text states it at all: the plan keeps the joined text as its quote.
    bare = page("/pricing/", made.html, text="Team\nSolo")
    team = page_plans(bare)[0]
    assert (team.price, team.cite.quote) == (104.0, "$ USD 104 /month")


def test_prices_in_a_list_are_plans_named_by_their_label():
    html = """<body><main><h2>Plans</h2><ul class="plans">
      <li>Starter – $9/month</li><li>Team – $29 per user / month</li>
      <li>Enterprise – Contact sales</li></ul></main></body>"""
    made = page("/pricing/", html)
    plans = page_plans(made)
    assert terms(plans)[:2] == [
        ("Starter", 9.0, "USD", "month", None, False),
        ("Team", 29.0, "USD", "month", "per user", False),
    ]
    assert_cited(plans, made)


def test_from_prices_per_unit_and_one_time_prices():
    made = page(
        "/pricing/",
        cards(
            "<h3>Storage</h3><p>from $0.10 per GB / month</p>",
            "<h3>Seats</h3><p>$8 per seat / month</p>",
            "<h3>Lifetime</h3><p>$499 one-time</p>",
            "<h3>Messages</h3><p>$0.005 per message</p>",
        ),
    )
    plans = page_plans(made)
    assert terms(plans) == [
        ("Storage", 0.1, "USD", "month", "per GB", False),
        ("Seats", 8.0, "USD", "month", "per seat", False),
        ("Lifetime", 499.0, "USD", "one-time", None, False),
        ("Messages", 0.005, "USD", None, "per message", False),
    ]
    assert_cited(plans, made)
    alone = page_plans(page("/pricing/", text="Hosting for every team: plans from $19 per month."))
    assert terms(alone) == [("Starting price", 19.0, "USD", "month", None, False)]


@pytest.mark.parametrize(
    "wording",
    ["Request a quote", "Request for Quotation", "Contact sales", "Custom", "Custom plans",
     "Price on request", "Get a quote"],
)  # fmt: skip
def test_on_request_wording_gives_an_on_request_plan(wording):
    made = page(
        "/pricing/", cards("<h3>Basic</h3><p>$5 / month</p>", f"<h3>Fleet</h3><p>{wording}</p>")
    )
    plans = page_plans(made)
    assert terms(plans)[1] == ("Fleet", None, None, None, None, True)
    assert_cited(plans, made)


def test_trial_lengths_counts_and_years_are_never_prices():
    html = cards(
        "<h3>Pro</h3><p>2 Week Free Trial</p><p>$29 / month</p>"
        "<ul><li>50,000 engagements</li></ul>",
        "<h3>2 Week Free Trial</h3><p>14-day trial, no card needed</p>",
        "<h3>Agency</h3><p>Since 2019 $99 / month</p><p>© 2019</p>",
    )
    plans = page_plans(page("/pricing/", html))
    assert terms(plans) == [
        ("Pro", 29.0, "USD", "month", None, False),
        ("Agency", 99.0, "USD", "month", None, False),
    ]
    text = "Pro\n14-day trial\n$12 / month\nTeam\n50,000 engagements\nFounded\n2019"
    assert terms(page_plans(page("/pricing/", text=text))) == [
        ("Pro", 12.0, "USD", "month", None, False)
    ]
    # A trial's length written under a currency sign is no price of a plan.
    signed = cards("<h3>Pro</h3><p>$29 / month</p>", "<h3>Try it</h3><p>$ 2 Week Free Trial</p>")
    assert terms(page_plans(page("/pricing/", signed))) == [
        ("Pro", 29.0, "USD", "month", None, False)
    ]


def test_a_card_that_opens_with_a_tagline_is_named_by_the_name_above_its_price():
    html = cards(
        '<p class="plan-heading">Plan your week faster</p><h4>Personal</h4><p>$0</p>',
        '<p class="plan-heading">Scheduling for teams</p><h4>Business</h4><p>$12 / month</p>',
    )
    made = page("/pricing/", html)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Personal", 0.0, "USD", None, None, False),
        ("Business", 12.0, "USD", "month", None, False),
    ]
    assert_cited(plans, made)


# -- tables ---------------------------------------------------------------------------------


def test_table_with_one_row_per_plan():
    html = """<body><main><h1>Pricing</h1><table>
      <tr><th>Plan</th><th>Price</th><th>Includes</th></tr>
      <tr><td>Starter</td><td>$19/month</td><td>5 users, email support</td></tr>
      <tr><td>Pro</td><td>$49/month</td><td>Unlimited users, SSO</td></tr>
      <tr><td>Enterprise</td><td>Request a quote</td><td>Audit logs</td></tr>
    </table></main></body>"""
    made = page("/pricing/", html)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Starter", 19.0, "USD", "month", None, False),
        ("Pro", 49.0, "USD", "month", None, False),
        ("Enterprise", None, None, None, None, True),
    ]
    assert plans[1].features == ["Unlimited users", "SSO"]
    assert not any(p.name in ("Price", "Includes", "Plan") for p in plans)
    assert_cited(plans, made)


def test_table_rows_with_period_columns():
    text = "Tier | Monthly | Yearly | Seats\nLite | €9 | €90 | 1\nPlus | €19 | €190 | 5"
    plans = page_plans(page("/pricing/", text=text))
    assert terms(plans) == [
        ("Lite", 9.0, "EUR", "month", None, False),
        ("Lite", 90.0, "EUR", "year", None, False),
        ("Plus", 19.0, "EUR", "month", None, False),
        ("Plus", 190.0, "EUR", "year", None, False),
    ]
    assert plans[2].features == ["Seats: 5"]


def test_table_with_plans_as_columns_from_markup():
    html = """<body><main><h1>Compare</h1><table>
      <tr><th></th><th>Basic</th><th>Pro</th></tr>
      <tr><td>Price</td><td>£10 / month</td><td>£25 / month</td></tr>
      <tr><td>Projects</td><td>3</td><td>Unlimited</td></tr>
    </table></main></body>"""
    made = page("/pricing/", html)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Basic", 10.0, "GBP", "month", None, False),
        ("Pro", 25.0, "GBP", "month", None, False),
    ]
    assert plans[1].features == ["Projects: Unlimited"]
    assert_cited(plans, made)


# -- JSON-LD --------------------------------------------------------------------------------


def test_json_ld_offers_with_units_and_precision():
    json_ld = [
        {
            "@context": "https://schema.org",
            "@type": "Product",
            "name": "Relay",
            "offers": {
                "@type": "AggregateOffer",
                "offers": [
                    {"@type": "Offer", "name": "Relay Basic", "price": "0.005",
                     "priceCurrency": "usd",
                     "priceSpecification": {"@type": "UnitPriceSpecification",
                                            "price": 0.005, "unitText": "message"}},
                    {"@type": "Offer", "name": "Relay Plus", "price": 29, "priceCurrency": "EUR",
                     "priceSpecification": {"billingDuration": "P1M"}},
                ],
            },
        }
    ]  # fmt: skip
    text = "Relay Basic costs $0.005 per message.\nRelay Plus is €29 a month."
    made = page("/pricing/", text=text, json_ld=json_ld)
    plans = {p.name: p for p in page_plans(made)}
    basic, plus = plans["Relay Basic"], plans["Relay Plus"]
    assert (basic.price, basic.currency, basic.unit) == (0.005, "USD", "per message")
    assert (plus.price, plus.currency, plus.period) == (29.0, "EUR", "month")
    assert_cited([basic, plus], made)


# -- numbers and currencies -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "decimal", "expected"),
    [
        ("0.005", None, 0.005),
        ("0,005", ",", 0.005),
        ("9,99", None, 9.99),
        ("1.000", ",", 1000.0),
        ("1.000", None, 1000.0),
        ("1,000", None, 1000.0),
        ("1.125", ".", 1.125),
        ("1.000,50", None, 1000.5),
        ("1,000.50", None, 1000.5),
        ("12.5", None, 12.5),
        ("1,000,000", None, 1000000.0),
    ],
)
def test_numbers_keep_their_precision_and_the_page_convention(raw, decimal, expected):
    assert number(raw, decimal) == expected


def test_comma_decimal_page_reads_euro_prices():
    html = cards(
        "<h3>Solo</h3><p>9,99 € / Monat</p>",
        "<h3>Team</h3><p>1.000 € / Jahr</p>",
        "<h3>Basis</h3><p>£4,50 per user / month</p>",
    )
    made = page("/preise/", html, language="de")
    plans = page_plans(made)
    assert [(p.name, p.price, p.currency) for p in plans] == [
        ("Solo", 9.99, "EUR"),
        ("Team", 1000.0, "EUR"),
        ("Basis", 4.5, "GBP"),
    ]


def test_dot_decimal_page_keeps_three_decimals():
    html = cards("<h3>Small</h3><p>$1.125 / hour</p>", "<h3>Large</h3><p>$4.50 / hour</p>")
    plans = page_plans(page("/pricing/", html))
    assert [p.price for p in plans] == [1.125, 4.5]


def test_sub_cent_prices_are_stored_unrounded(make_workspace):
    made = page("/pricing/", cards("<h3>Send</h3><p>$0.005 per message</p>",
                                   "<h3>Bulk</h3><p>$0.0042 per message</p>"))  # fmt: skip
    plans = page_plans(made)
    ws = make_workspace()
    rival = competitor(ws.id, "Relay Co", BASE)
    evidence = EvidenceMap()
    evidence.add(made.url, "ev-1", made.text)
    with connection():
        counts = save_pricing(ws.id, rival.id, plans, evidence, "Relay Co")
        stored = [p for row in Offering.select() for p in (row.pricing or [])]
    assert counts["plans"] == 2
    assert sorted(p["price"] for p in stored) == [0.0042, 0.005]


# -- what is never a plan -------------------------------------------------------------------

SHOP = """<html><body><main>
<div class="product"><h1>Desk Lamp</h1><p class="price">$49.00</p>
  <form class="cart"><button>Add to cart</button></form>
  <div class="payment-options"><p>Or 4 interest-free payments of $12.25</p></div>
  <div class="shipping"><h4>Shipping</h4><p>Standard $4.99</p></div>
</div>
<div class="reviews"><h3>Reviews</h3><div class="review"><h4>Great lamp</h4>
  <p>Worth every $ – I paid $49 and love it.</p></div></div>
<section class="related products"><h2>Related products</h2><ul>
  <li class="product"><h3>Floor Lamp</h3><span class="price">$89.00</span></li>
  <li class="product"><h3>Wall Lamp</h3><span class="price">$59.00</span></li></ul></section>
<div class="summary"><p>Subtotal $49.00</p><p>Shipping $4.99</p><p>Total $53.99</p></div>
</main></body></html>"""


def test_shop_plumbing_never_becomes_a_plan():
    plans = page_plans(page("/pricing/", SHOP))
    names = {p.name for p in plans}
    assert not names & {"Shipping", "Reviews", "Great lamp", "Floor Lamp", "Wall Lamp"}
    assert not any(p.price in (12.25, 4.99, 53.99, 89.0, 59.0) for p in plans)
    text = "Cart\nSubtotal $49.00\nShipping\n$4.99\nTotal\n$53.99\nPay in 4 installments of $12.25"
    assert page_plans(page("/pricing/", text=text)) == []


def test_savings_and_old_prices_are_not_the_price():
    made = page("/pricing/", cards("<h3>Annual</h3><p>$290 / year, save $58</p>",
                                   "<h3>Monthly</h3><p>Was $39, now $29 / month</p>"))  # fmt: skip
    assert [(p.name, p.price) for p in page_plans(made)] == [("Annual", 290.0), ("Monthly", 29.0)]


@pytest.mark.parametrize("kind", ["legal", "utility", "archive", "post"])
def test_legal_utility_archive_and_post_pages_are_not_read_for_plans(kind):
    priced = page("/pricing/", text="Pro\n$10 / month", kind=kind)
    plain = page("/plans/", text="Team\n$20 / month", kind="pricing")
    snapshot = SiteSnapshot(BASE + "/", [priced, plain])
    assert [p.url for p in pricing_pages(snapshot)] == [plain.url]
    assert [p.name for p in extract_pricing(snapshot)] == ["Team"]


# -- more card shapes -----------------------------------------------------------------------


def test_bold_names_free_allowances_and_a_card_that_only_asks_for_a_call():
    html = """<body><main><div class="tiers">
      <div class="t"><p><strong>Hobby</strong></p><p>Free for up to 3 users</p>
        <ul><li>1 project</li></ul></div>
      <div class="t"><p><strong>Studio</strong></p><p>€15 per user / month</p>
        <ul><li><strong>Everything in Hobby</strong></li><li>Unlimited projects</li></ul></div>
      <div class="t"><p><b>Scale</b></p><ul><li>Dedicated support</li></ul>
        <a class="btn" href="/demo">Book a demo</a></div>
    </div></main></body>"""
    made = page("/pricing/", html)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Hobby", 0.0, None, None, None, False),
        ("Studio", 15.0, "EUR", "month", "per user", False),
        ("Scale", None, None, None, None, True),
    ]
    assert plans[2].features == ["Dedicated support"]
    assert_cited(plans, made)


def test_a_free_trial_card_is_not_a_free_plan():
    html = cards(
        "<h3>Trial</h3><p>Free for 14 days</p>",
        "<h3>Pro</h3><p>$20 / month</p>",
        "<h3>Team</h3><p>$50 / month</p>",
    )
    assert [p.name for p in page_plans(page("/pricing/", html))] == ["Pro", "Team"]


def test_a_block_holding_several_plans_prices_is_not_one_card():
    # Two sibling blocks: all plans in one (without card markup), a promise in the other.
    html = """<body><main><div class="wrap">
      <div class="top"><h2>Plans for everyone</h2>
        <p>Solo</p><p>Free</p><p>Duo</p><p>$10 / month</p><p>Crew</p><p>$30 / month</p>
        <p>Fleet</p><p>Custom</p></div>
      <div class="bottom"><h2>Extras</h2><p>Add seats at $5 per user / month</p></div>
    </div></main></body>"""
    plans = page_plans(page("/pricing/", html))
    assert "Plans for everyone" not in {p.name for p in plans}
    assert terms(plans)[:4] == [
        ("Solo", 0.0, None, None, None, False),
        ("Duo", 10.0, "USD", "month", None, False),
        ("Crew", 30.0, "USD", "month", None, False),
        ("Fleet", None, None, None, None, True),
    ]


def test_a_sub_cent_price_is_shown_as_stated():
    from ci_service.services.battlecards.facts import price_terms

    plan = {"price": 0.005, "currency": "USD", "unit": "per message", "period": None}
    assert price_terms(plan) == "$0.005 per message"
    assert price_terms({"price": 19.99, "currency": "EUR", "period": "month"}) == "€19.99/month"
    assert price_terms({"price": 1000.0, "currency": "USD"}) == "$1,000"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("€ 25,- per maand", (25.0, "EUR", "month")),
        ("vanaf € 12,50 per maand", (12.5, "EUR", "month")),
        ("€ 30/mese", (30.0, "EUR", "month")),
        ("R$ 49,90/mês", (49.9, "BRL", "month")),
        ("99 € pro Jahr", (99.0, "EUR", "year")),
        ("€ 480 per jaar", (480.0, "EUR", "year")),
        ("€ 5/m", (5.0, "EUR", None)),  # one letter after a slash says no period
    ],
)
def test_periods_in_any_language_come_from_cldr(line, expected):
    from ci_service.pipeline.pricing.money import prices

    (found,) = prices(line)
    assert (found.amount, found.currency, found.period) == expected


TIERS_AND_NOTES = """<html><body><main><section><h2>Connectivity plans</h2>
<div class="tiers">
 <div class="tier"><h3>Basic</h3><div class="price">$30<span>/mo per line</span></div>
  <ul><li>2 GB of data</li><li>Gateway included</li></ul></div>
 <div class="tier"><h3>Fixed IP</h3><div class="price">$40<span>/mo per line</span></div>
  <ul><li>Everything in Basic</li><li>A fixed address</li></ul></div>
 <div class="tier"><h3>Managed</h3><div class="price">$45<span>/mo per line</span></div>
  <ul><li>Everything in Basic</li><li>Alerts when offline</li></ul></div>
</div>
<p class="notice"><strong>Hardware lease:</strong> Add $20-$30/mo to lease the router.</p>
</section></main></body></html>"""


def test_a_section_around_plan_cards_does_not_state_them_again():
    made = page("/connect", TIERS_AND_NOTES)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Basic", 30.0, "USD", "month", None, False),
        ("Fixed IP", 40.0, "USD", "month", None, False),
        ("Managed", 45.0, "USD", "month", None, False),
        ("Hardware lease", 20.0, "USD", "month", None, False),
    ]
    assert_cited(plans, made)


LABELLED_CARDS = """<html><body><main><h1>Plans</h1><div class="plans">
 <div class="plan"><h3>Starter</h3><p>For a first try.</p>
  <div><h4>Subscription price</h4><div><span>$</span><span>49</span><span>/mo</span></div></div>
  <div><h4>Max credit line per customer</h4><div><span>$</span><span>50,000</span></div></div>
  <ul><li>Invoices</li><li>Reminders</li></ul></div>
 <div class="plan"><h3>Growth</h3><p>For a growing book.</p>
  <div><h4>Subscription price</h4><div><span>$</span><span>199</span><span>/mo</span></div></div>
  <div><h4>Max credit line per customer</h4><div><span>$</span><span>250,000</span></div></div>
  <ul><li>Invoices</li><li>Reminders</li></ul></div>
</div>
<h2>How is a $1,000 invoice paid?</h2><div class="steps">
 <div><h4>Send invoice</h4><p>$873.90</p></div><div><h4>A day later</h4><p>$873.90</p></div>
</div></main></body></html>"""


def test_card_labels_limits_and_a_worked_example_are_no_plans():
    made = page("/pricing", LABELLED_CARDS)
    plans = page_plans(made)
    assert terms(plans) == [
        ("Starter", 49.0, "USD", "month", None, False),
        ("Growth", 199.0, "USD", "month", None, False),
    ]


FEE_TABLE = """<html lang="de"><body><main><h1>Preise</h1><table>
<thead><tr><th>Leistung</th><th>Preis</th></tr></thead><tbody>
<tr><td><strong>Lektorat</strong> (Zeichenhonorar)</td><td>ab 7,50 € pro 1000 Zeichen</td></tr>
<tr><td><strong>Lektorat</strong> (Stundenhonorar)</td><td>60 €/h</td></tr>
</tbody></table></main></body></html>"""


def test_a_fee_table_with_headers_in_the_pages_language():
    made = page("/preise/", FEE_TABLE, title="Preise", language="de")
    plans = page_plans(made)
    assert terms(plans) == [
        ("Lektorat (Zeichenhonorar)", 7.5, "EUR", None, None, False),
        ("Lektorat (Stundenhonorar)", 60.0, "EUR", None, "per hour", False),
    ]
    assert_cited(plans, made)


def test_a_fee_table_names_each_fee_by_its_description_not_its_code():
    text = (
        "Tarieven\nCode | Omschrijving | Tarief\nC11 | Periodiek mondonderzoek | € 23,69\n"
        "M01 | Preventieve voorlichting per 5 minuten | € 13,72"
    )
    made = page("/tarieven/", text=text, title="Tarieven", language="nl")
    plans = page_plans(made)
    assert terms(plans) == [
        ("Periodiek mondonderzoek", 23.69, "EUR", None, None, False),
        ("Preventieve voorlichting per 5 minuten", 13.72, "EUR", None, None, False),
    ]


PLAIN_DIVS = """<html><body><main><h1>Get started!</h1><div class="x1">
 <div class="x2"><div class="x3">Hobby</div><div class="x4"><div>$5</div><div>/mo</div></div>
  <ul><li>Additional credits: $0.002 / credit</li><li>Voice cloning</li></ul></div>
 <div class="x2"><div class="x3">Studio</div><div class="x5">Save 30%</div>
  <div class="x4"><div>$50</div><div>/mo</div></div>
  <ul><li>Additional credits: $0.001 / credit</li><li>API access</li></ul></div>
</div></main></body></html>"""


def test_plans_named_only_by_their_place_before_the_price():
    made = page("/pricing/", PLAIN_DIVS)
    plans = page_plans(made)
    assert [(p.name, p.price, p.period) for p in plans if p.unit is None] == [
        ("Hobby", 5.0, "month"),
        ("Studio", 50.0, "month"),
    ]
    # The extras' rate belongs to its plan and names none.
    assert {p.name for p in plans} == {"Hobby", "Studio"}
    assert_cited(plans, made)


def test_a_sentence_that_leads_to_a_price_names_no_plan():
    from ci_service.pipeline.pricing.plans import plan_name_ok

    assert not plan_name_ok("Start with Acme at")
    assert not plan_name_ok("Prices start from")
    assert plan_name_ok("Pay as you go")
    assert plan_name_ok("Starter")
