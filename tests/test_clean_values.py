"""Values a sales rep reads as the pages wrote them: money with its currency ("£300,000",
not "300000.0 GBP"), funding dates as stated ("December 2019"), no counts taken for
customers ("15k users"), no raw HTML entities ("I&rsquo;m") in anything stored, and plans
marked "Coming soon" on their own card or row flagged ``comingSoon``. Every page and feed
here is made up."""

from __future__ import annotations

import html
import re

import pytest

from ci_service.pipeline.evidence import EvidenceMap
from ci_service.pipeline.site import SitePage, SiteSnapshot
from ci_service.store.db import connection
from tests.pipeline_fixtures.support import add_competitor, edit_file, run_jobs
from tests.resource_helpers import error, make_product, ok

pytest_plugins = ["tests.pipeline_fixtures.plugin"]

BASE = "https://acme.example"
RAW_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")


def site_page(path, text="", title="", *, html_text="", description="", json_ld=None):
    depth = 0 if path == "/" else 1
    made = SitePage(BASE + path, title or path, description, text, [], json_ld or [], [], depth)
    made.html = html_text
    return made


def profile_of(*pages, company="Acme"):
    from ci_service.pipeline.profile.extract import extract_profile

    evidence = EvidenceMap()
    for number, made in enumerate(pages, 1):
        evidence.add(made.url, f"ev-{number}", made.text)
    snapshot = SiteSnapshot(BASE + "/", list(pages))
    return extract_profile(snapshot, {}, evidence, company_name=company)


def html_page(path, markup, title="Pricing"):
    """A crawled page as the crawler keeps it: its text extracted from ``markup``."""
    from ci_service.intel.extract import extract_html

    text = extract_html(markup, BASE + path).text
    return site_page(path, text, title, html_text=markup)


# -- money and dates ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "amount, currency, written",
    [
        (300000.0, "GBP", "£300,000"),
        (4500000, "USD", "$4,500,000"),
        (19.99, "EUR", "€19.99"),
        (1200000.0, "CHF", "1,200,000 CHF"),
        (0.005, "USD", "$0.005"),
        (250000.0, None, "250,000"),
    ],
)
def test_money_is_written_with_its_currency_and_without_a_trailing_zero(amount, currency, written):
    from ci_service.pipeline.money_format import format_money

    assert format_money(amount, currency) == written


@pytest.mark.parametrize(
    "sentence, date, stated",
    [
        (
            "Acme raised a pre-seed round of £250,000 in November 2019 from Initrode Ventures.",
            "2019-11",
            "November 2019",
        ),
        ("On 5 March 2021 Acme closed a €3M Series B led by Hooli Capital.", "2021-03-05",
         "5 March 2021"),
        ("Acme received a GBP 300k grant from Vandelay Fund in early 2020.", "2020",
         "early 2020"),
    ],
)  # fmt: skip
def test_funding_keeps_the_date_as_the_page_wrote_it_beside_the_machine_date(
    sentence, date, stated
):
    from ci_service.services.common.fields import CompanyProfileSchema

    found = profile_of(site_page("/investors/", f"Investors\n{sentence}", "Investors"))
    [entry] = found["funding"]
    assert (entry["date"], entry["dateText"]) == (date, stated)
    assert stated in entry["quotes"][0]["quote"]
    stored = CompanyProfileSchema().load(found)  # what the competitor service keeps
    assert stored["funding"][0]["dateText"] == stated


def test_competitor_page_shows_funding_money_and_the_stated_date(web):
    from ci_service.services.workspace.competitors import update_competitor

    answer = web.api.post("/api/competitors", json={"name": "Globex", "websiteUrl": BASE})
    cid = ok(answer)["competitor"]["id"]
    funding = [
        {"round": "pre-seed", "amount": 300000.0, "currency": "GBP", "date": "2019-12",
         "dateText": "December 2019", "investors": ["Initrode Ventures"]},
        {"round": "Series A", "amount": 1200000.0, "currency": "CHF", "date": "2021-03"},
    ]  # fmt: skip
    with connection():
        update_competitor(web.workspace_id, cid, {"companyProfile": {"funding": funding}})
    body = html.unescape(web.get(f"/competitors/{cid}").get_data(as_text=True))
    listed = body[body.index("<h3>Funding</h3>") : body.index("</ul>", body.index("<h3>Funding"))]
    assert "pre-seed</strong>: £300,000 (December 2019) · Initrode Ventures" in listed
    assert "Series A</strong>: 1,200,000 CHF (2021-03)" in listed  # no stated text: the date
    assert "300000.0" not in body and "1200000.0" not in body and "(2019-12)" not in body


# -- counts are no customers -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, names",
    [
        ("Acme is loved by 15k users worldwide.", []),
        ("Acme is trusted by 2M+ developers and Initech.", []),
        ("Acme is used by 3 Million Users around the world.", []),
        ("Our customers include 12,000 signups from every continent.", []),
        # the organisations a sign-up count names are kept; the count is not stored
        ("To date, Acme has over 12,000 signups from Initech, Umbrella and Hooli.",
         ["Initech", "Umbrella", "Hooli"]),
        ("Acme is trusted by 3M, Initech and Umbrella.", ["3M", "Initech", "Umbrella"]),
    ],
)  # fmt: skip
def test_a_count_of_users_or_signups_is_never_a_customer(text, names):
    found = profile_of(site_page("/", text, "Acme"))
    customers = [c["name"] for c in found.get("customers", [])]
    assert customers == names
    assert not any(re.search(r"\d.*\b(?:signups|users|developers)\b", n) for n in customers)


def test_a_counted_crowd_using_the_product_is_no_customer_story():
    story = "10K Teams chose Acme to ship faster.\nInitech uses Acme to route every ticket."
    found = profile_of(site_page("/customers/", story, "Customers"))
    assert [c["name"] for c in found["customers"]] == ["Initech"]


@pytest.mark.parametrize(
    "text, counted",
    [
        ("12,000 signups", True),
        ("over 500 teams", True),
        ("2M+ developers", True),
        ("3M", False),
        ("1Password", False),
        ("Initech", False),
    ],
)
def test_what_counts_as_a_count(text, counted):
    from ci_service.pipeline.profile.rules import is_count

    assert is_count(text) is counted


# -- HTML entities -----------------------------------------------------------------------

FEED = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Acme news &amp;amp; notes</title>
<item><title>Q&amp;amp;A: I&amp;rsquo;m the new CTO</title>
  <link>https://acme.example/blog/cto/</link>
  <pubDate>Tue, 03 Mar 2026 09:00:00 GMT</pubDate>
  <description>We&amp;rsquo;ve hired a CTO &amp;ndash; Tom &amp;amp; Jerry say hi.</description>
</item>
<item><title><![CDATA[R&amp;D update]]></title>
  <link>https://acme.example/blog/rd/</link>
  <description><![CDATA[<p>Our R&amp;amp;D team&rsquo;s &#8220;lab&#8221; opened.</p>]]>
  </description>
</item></channel></rss>"""


def test_feed_titles_and_summaries_are_decoded_text():
    from ci_service.intel.feeds import parse_feed

    first, second = parse_feed(FEED, BASE + "/index.xml")
    assert first.title == "Q&A: I’m the new CTO"
    assert first.summary == "We’ve hired a CTO – Tom & Jerry say hi."
    assert first.source == "Acme news & notes"
    assert second.title == "R&D update"
    assert second.summary == "Our R&D team’s “lab” opened."


PAGE = """<!doctype html><html><head><meta charset="utf-8">
<title>I&amp;rsquo;m Acme &amp;amp; co</title>
<meta name="description" content="R&amp;amp;D labs&amp;nbsp;love Acme&amp;rsquo;s tools.">
<script type="application/ld+json">{"@type": "BlogPosting",
  "headline": "We&rsquo;re live &amp; ready"}</script></head>
<body><main><h1>Acme&amp;rsquo;s story</h1>
<p>SPRINGFIELD,&amp;nbsp;May 4, 2024 &ndash; Acme&amp;rsquo;s R&amp;amp;D team ships. AT&amp;T and
Tom &amp; Jerry stay as written.</p>
<p><a href="/blog/">Read the Q&amp;amp;A</a></p></main></body></html>"""


def test_page_title_description_text_links_and_json_ld_are_decoded():
    from ci_service.intel.extract import extract_html

    page = extract_html(PAGE, BASE + "/about/")
    assert page.title == "I’m Acme & co"
    assert page.description == "R&D labs love Acme’s tools."
    assert page.json_ld[0]["headline"] == "We’re live & ready"
    assert "Acme’s R&D team ships." in page.text and "SPRINGFIELD, May 4, 2024" in page.text
    assert "AT&T and Tom & Jerry stay as written." in " ".join(page.text.split())
    assert [link.text for link in page.links] == ["Read the Q&A"]
    for value in (page.title, page.description, page.text, *(s.heading for s in page.sections)):
        assert not RAW_ENTITY.search(value), value


def test_news_list_entries_are_decoded():
    from ci_service.pipeline.news.extract import list_entries

    markup = """<html><body><main><h1>Blog</h1>
    <article><h2><a href="/blog/qa/">Q&amp;amp;A with our CTO</a></h2>
    <time datetime="2024-05-04">May 4, 2024</time>
    <p>Our CTO answers what you&amp;rsquo;ve asked about the roadmap.</p></article>
    <article><h2><a href="/blog/rd/">R&amp;amp;D at Acme</a></h2>
    <time datetime="2024-04-01">April 1, 2024</time>
    <p>How the R&amp;amp;D team works in a week of launches.</p></article>
    </main></body></html>"""
    made = html_page("/blog/", markup, "Blog")
    entries = list_entries(made)
    assert [(e.title, e.summary) for e in entries] == [
        ("Q&A with our CTO", "Our CTO answers what you’ve asked about the roadmap."),
        ("R&D at Acme", "How the R&D team works in a week of launches."),
    ]


# -- plans not sold yet ------------------------------------------------------------------

CARDS = """<html><body><main><h1>Pricing</h1>
<p class="lead">New plans coming soon</p>
<p>Coming soon</p>
<div class="plans">
  <div class="plan"><h3>Free</h3><h4>$0 / month</h4>
    <a class="btn" href="/signup">Get started</a>
    <ul><li>3 projects</li><li>SSO (beta)</li></ul></div>
  <div class="plan"><h3>Team</h3><h4>$12 per seat / month</h4>
    <button class="btn" disabled>Coming soon</button>
    <ul><li>Unlimited projects</li></ul></div>
  <div class="plan"><span class="badge">Beta</span><h3>Scale</h3><h4>$40 per seat / month</h4>
    <ul><li>Audit logs</li></ul></div>
  <div class="plan"><h3>Enterprise</h3><h4>Contact sales</h4>
    <a href="/waitlist">Join the waitlist</a><ul><li>24/7 support</li></ul></div>
</div></main></body></html>"""


def test_cards_marked_coming_soon_beta_or_waitlist_are_flagged_from_their_own_lines():
    from ci_service.pipeline.pricing.plans import page_plans

    plans = page_plans(html_page("/pricing/", CARDS))
    assert [(p.name, p.coming_soon) for p in plans] == [
        ("Free", False),  # the page's own "coming soon" and a feature's "(beta)" are not its
        ("Team", True),
        ("Scale", True),
        ("Enterprise", True),
    ]
    assert plans[0].features == ["3 projects", "SSO (beta)"]
    assert plans[2].features == ["Audit logs"]  # the badge is no feature


def test_table_rows_and_text_cards_say_so_for_their_own_plan_only():
    from ci_service.pipeline.pricing.plans import page_plans

    table = (
        "Pricing\nPlan | Price | Status\nBasic | $10 / month | Available\n"
        "Growth | $30 / month | Coming soon\nTeams (beta) | $50 / month | Available"
    )
    plans = page_plans(site_page("/pricing/", table, "Pricing"))
    assert [(p.name, p.coming_soon) for p in plans] == [
        ("Basic", False),
        ("Growth", True),
        ("Teams (beta)", True),
    ]
    text = "Pricing\nStarter\n$19 per agent per month\nPro\n$49 per agent per month\nComing soon\n"
    text += "Scale\n$99 per agent per month\n✓ Audit logs"
    plans = page_plans(site_page("/pricing/", text, "Pricing"))
    assert [(p.name, p.coming_soon) for p in plans] == [
        ("Starter", False),
        ("Pro", True),
        ("Scale", False),
    ]


def test_json_ld_pre_order_offers_are_not_sold_yet():
    from ci_service.pipeline.pricing.plans import page_plans

    offers = {"@type": "Product", "name": "Acme", "offers": [
        {"@type": "Offer", "name": "Solo", "price": "9", "priceCurrency": "USD"},
        {"@type": "Offer", "name": "Crew", "price": "29", "priceCurrency": "USD",
         "availability": "https://schema.org/PreOrder"},
    ]}  # fmt: skip
    made = site_page("/pricing/", "Solo $9. Crew $29.", "Pricing", json_ld=[offers])
    assert [(p.name, p.coming_soon) for p in page_plans(made)] == [
        ("Solo", False),
        ("Crew", True),
    ]


def test_coming_soon_is_stored_only_on_the_plans_it_marks(make_workspace):
    from ci_service.pipeline.evidence import Cite
    from ci_service.pipeline.pricing.plans import PlanDraft
    from ci_service.services.collection.pricing_store import save_pricing
    from ci_service.store.resources import Offering
    from tests.intel_helpers import competitor

    ws = make_workspace()
    rival = competitor(ws.id, "Acme", BASE)
    url = BASE + "/pricing/"
    sold = PlanDraft("Solo", 9.0, "USD", "month", None, cite=Cite(url, "Solo $9 / month"))
    soon = PlanDraft("Crew", 29.0, "USD", "month", None, cite=Cite(url, "Crew $29 / month"))
    soon.coming_soon = True
    evidence = EvidenceMap()
    evidence.add(url, "ev-1", "Solo $9 / month\nCrew $29 / month\nComing soon")
    with connection():
        save_pricing(ws.id, rival.id, [sold, soon], evidence, "Acme")
        (row,) = Offering.select().where(Offering.competitor == rival.id)
    by_name = {p["name"]: p for p in row.pricing}
    assert by_name["Crew"]["comingSoon"] is True
    assert "comingSoon" not in by_name["Solo"]


def test_rest_plans_accept_and_return_coming_soon(api):
    plans = [
        {"name": "Solo", "price": 9, "currency": "USD", "period": "month"},
        {"name": "Crew", "price": 29, "currency": "USD", "period": "month", "comingSoon": True},
    ]
    product = make_product(api, pricing=plans)
    assert [p.get("comingSoon") for p in product["pricing"]] == [None, True]
    bad = {"pricing": [{"name": "Crew", "price": 29, "comingSoon": "soon"}]}
    error(api.patch(f"/api/products/{product['id']}", json=bad), 400, "VALIDATION_ERROR")


# -- a collect end to end ------------------------------------------------------------------


def test_a_collect_stores_clean_values(web, site):
    """A served site whose pages and feed escape twice, state funding and a signup count,
    and mark a plan "Coming soon": what the collect stores and the competitor page shows."""
    root = site.root
    edit_file(
        root / "about.html",
        "    <h2>Leadership</h2>",
        "    <p>Globex Software raised a seed round of £250,000 in November 2019 from Initrode"
        " Ventures.</p>\n    <p>Today over 12,000 signups from Initech, Umbrella and Hooli"
        " use FlowDesk, and FlowDesk is loved by 20k agents.</p>\n    <h2>Leadership</h2>",
    )
    edit_file(
        root / "about.html",
        "<title>About us – Globex Software</title>",
        '<title>About us – Globex Software</title>\n  <meta name="description" '
        'content="Globex&amp;rsquo;s R&amp;amp;D team builds help desks.">',
    )
    edit_file(
        root / "news" / "feed.xml",
        "<title>Globex raises Series B</title>",
        "<title>Globex raises Series B &amp;amp; opens a lab</title>",
    )
    edit_file(
        root / "news" / "feed.xml",
        "<description>Globex Software raised $30 million",
        "<description>We&amp;rsquo;re growing: Globex Software raised $30 million",
    )
    edit_file(
        root / "pricing.html",
        "    <h2>Enterprise</h2>",
        "    <h2>Scale</h2>\n    <p>$99 per agent per month.</p>\n    <p>Coming soon</p>\n"
        "    <h2>Enterprise</h2>",
    )
    competitor_id, _job = add_competitor(web.api, site.url("/"))
    assert run_jobs() == 1

    competitor = ok(web.api.get(f"/api/competitors/{competitor_id}"))["competitor"]
    profile = competitor["companyProfile"]
    [funding] = [f for f in profile["funding"] if f.get("round") == "seed"]
    assert (funding["amount"], funding["currency"]) == (250000, "GBP")
    assert (funding["date"], funding["dateText"]) == ("2019-11", "November 2019")
    assert [c["name"] for c in profile["customers"]] == ["Initech", "Umbrella", "Hooli"]

    items = ok(web.api.get(f"/api/intel?competitorId={competitor_id}"))["intelItems"]
    for item in items:
        for key in ("title", "content", "summary"):
            assert not RAW_ENTITY.search(item.get(key) or ""), (key, item.get(key))
    titles = {item["title"] for item in items}
    assert "Globex raises Series B & opens a lab" in titles
    assert any("We’re growing" in item["content"] for item in items)
    for entry in profile["newsFeed"]:
        assert not RAW_ENTITY.search(entry["title"] + entry.get("summary", "")), entry

    offerings = ok(web.api.get("/api/offerings"))["offerings"]
    plans = {p["name"]: p for o in offerings if o["competitorId"] == competitor_id
             for p in o["pricing"]}  # fmt: skip
    assert plans["Scale"].get("comingSoon") is True
    assert not any(plans[name].get("comingSoon") for name in ("Starter", "Pro", "Enterprise"))

    body = html.unescape(web.get(f"/competitors/{competitor_id}").get_data(as_text=True))
    assert "£250,000 (November 2019)" in body and "250000" not in body
    products = web.get(f"/competitors/{competitor_id}?tab=products").get_data(as_text=True)
    assert re.search(r"Scale <span class=\"badge\">coming soon</span>", products)
