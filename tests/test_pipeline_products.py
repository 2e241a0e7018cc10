"""Products and features from the layouts real sites use (menus, home cards, JSON-LD,
product pages, a platform named like the company), with the sentence each came from; and
features and capabilities from uploaded product sheets."""

from __future__ import annotations

import io

from ci_service.pipeline.evidence import Cite, EvidenceMap
from ci_service.pipeline.products.extract import extract_products
from ci_service.pipeline.site import SitePage, SiteSnapshot, extract_document
from ci_service.services.collection.offering_jobs import (
    features_from_text,
    sheet_items,
    sheet_lines,
)
from ci_service.services.collection.product_store import save_products
from ci_service.store.db import connection
from ci_service.store.resources import Offering
from tests.intel_helpers import competitor
from tests.intel_support import make_pdf

BASE = "https://acme.example"


def page(path, html, title="Acme", depth=1):
    """A crawled page as the crawler keeps it (text, sections, links, JSON-LD, HTML)."""
    from ci_service.intel.extract import extract_html

    read = extract_html(html, BASE + path)
    made = SitePage(
        BASE + path,
        read.title or title,
        read.description,
        read.text,
        [(s.heading, s.level, s.text) for s in read.sections],
        list(read.json_ld),
        [(link.url, link.text) for link in read.links],
        depth,
    )
    made.html = html
    return made


def snapshot(*pages):
    return SiteSnapshot(BASE + "/", pages=list(pages))


def names(drafts):
    return [d.name for d in drafts]


def features(draft):
    return {f["name"]: f for f in draft.features}


NAV = """<header><nav><ul>
  <li><a href="/">Home</a></li>
  <li><a href="/products/">Products</a>
    <ul><li><a href="/products/">Overview</a></li>
        <li><a href="/crm/">Acme CRM</a></li>
        <li><a href="/desk/">Acme Desk</a></li>
        <li><a href="/pricing/">Pricing</a></li>
        <li><a href="/integrations/slack/">Slack</a></li></ul></li>
  <li><a href="/blog/">Blog</a></li><li><a href="/login">Log in</a></li>
</ul></nav></header>"""
FOOTER = """<footer><h3>Company</h3><ul><li><a href="/about/">About</a></li>
  <li><a href="/careers/">Careers</a></li></ul><p>© 2024 Acme. All rights reserved.</p>
  <p>We use cookies to improve your experience.</p></footer>"""


PLAIN_NAV = '<header><nav><a href="/">Home</a> <a href="/blog/">Blog</a></nav></header>'


def html(body, title="Acme", head="", nav=PLAIN_NAV):
    return (
        f"<html><head><title>{title}</title>{head}</head>"
        f"<body>{nav}<main>{body}</main>{FOOTER}</body></html>"
    )


GRID = """<h2>Everything you need</h2>
<div class="grid">
  <div class="card"><h4>Pipeline views</h4><p>Track every deal from lead to close.</p></div>
  <div class="card"><h4>Email sync</h4><p>Two-way sync with Gmail and Outlook.</p></div>
  <div class="card"><h4>Forecasts</h4><p>Predict revenue by rep and by quarter.</p></div>
  <div class="card"><h4>Get started</h4><p>Start your free trial today.</p></div>
</div>
<div class="testimonial"><p>"Acme CRM changed how we sell," says a happy customer.</p></div>
<h2>Plans</h2>
<div><h4>Starter</h4><p>$19 per user per month</p></div>
<div><h4>Growth</h4><p>$49 per user per month</p></div>
<div><h4>Scale</h4><p>$99 per user per month</p></div>"""


def crm_page():
    body = f"<h1>Acme CRM</h1><p>Acme CRM is the sales CRM for small teams.</p>{GRID}"
    return page("/crm/", html(body, "Acme CRM | Acme"))


def desk_page():
    body = """<h1>Acme Desk</h1><p>Acme Desk is a help desk that answers tickets fast.</p>
    <h2>Key features</h2><ul><li>Ticket routing: send each ticket to the right agent</li>
    <li>SLA timers</li><li>Learn more</li></ul>"""
    return page("/desk/", html(body, "Acme Desk | Acme"))


def home(body, title="Acme | Software for teams", head="", nav=PLAIN_NAV):
    return page("/", html(body, title, head, nav), depth=0)


def test_products_from_the_navigation_menu_with_their_features():
    found = extract_products(
        snapshot(home("<h1>Software for growing teams</h1>", nav=NAV), crm_page(), desk_page())
    )
    assert names(found) == ["Acme CRM", "Acme Desk"]  # not Overview, Pricing, Slack, Blog
    crm, desk = found
    assert crm.url == BASE + "/crm/" and crm.cite.url == BASE + "/crm/"
    assert crm.cite.quote == "Acme CRM is the sales CRM for small teams."
    assert set(features(crm)) == {"Pipeline views", "Email sync", "Forecasts"}
    # card grid: the heading and its text are one quote of the page text
    assert features(crm)["Email sync"]["description"] == "Two-way sync with Gmail and Outlook."
    assert features(crm)["Email sync"]["cite"] == Cite(
        BASE + "/crm/", "Email sync Two-way sync with Gmail and Outlook."
    )
    # a list under a feature heading, "Name: detail" split, calls to action dropped
    assert features(desk)["Ticket routing"]["description"] == "send each ticket to the right agent"
    assert set(features(desk)) == {"Ticket routing", "SLA timers"}


CARDS = """<h1>One suite for payments</h1>
<section><h6>01</h6><h3>Acme Pay</h3><p>Accept card payments online and in store.</p>
  <a href="/pay/">Learn more</a></section>
<section><h6>02</h6><h3>Acme Billing</h3><p>Send invoices and collect recurring revenue.</p>
  <a href="/billing/">More about Acme Billing</a></section>
<section><h3>POWERING CONNECTED PRODUCTS</h3><p>Software platforms for the modern world.</p>
  <a href="/products/">VIEW PRODUCTS</a></section>
<section><h6>1. DATA</h6><h3>Start with or without data</h3>
  <p>Connect to a data source or start from scratch.</p></section>"""


def test_home_page_cards_that_link_to_their_product():
    pay = page("/pay/", html("<h1>Acme Pay</h1><p>Acme Pay takes card payments.</p>", "Acme Pay"))
    found = extract_products(snapshot(home(CARDS), pay))
    assert names(found) == ["Acme Pay", "Acme Billing"]
    assert found[0].description == "Accept card payments online and in store."
    assert found[0].pages == [BASE + "/pay/"]
    assert found[1].cite == Cite(BASE + "/", "Acme Billing")  # its card's heading line


def test_all_caps_card_names_take_the_case_the_text_uses():
    body = """<h2>LINUX MICROPLATFORM</h2><p>The Linux microPlatform is a secure Linux base.</p>
    <a href="/products/">MORE ABOUT LINUX MICROPLATFORM</a>"""
    listing = page("/products/", html("<h1>Platforms</h1><p>Our platforms.</p>"))
    assert names(extract_products(snapshot(home(body), listing))) == ["Linux microPlatform"]


def test_json_ld_products_under_any_path_but_never_a_blog_post():
    ld = (
        '<script type="application/ld+json">{"@type": "SoftwareApplication", '
        '"name": "Widgeteer", "description": "Widgeteer builds widgets."}</script>'
    )
    tool = page(
        "/tools/widgeteer", html("<h1>Make widgets</h1><p>Widgeteer builds widgets.</p>", "W", ld)
    )
    review_ld = ld.replace("Widgeteer", "Gadgetron")
    post = page(
        "/blog/2023/05/best-tools/",
        html("<h1>Best tools</h1><p>Gadgetron builds widgets too.</p>", "Best tools", review_ld),
    )
    found = extract_products(snapshot(home("<h1>Widgets</h1>"), tool, post))
    assert names(found) == ["Widgeteer"]
    assert found[0].description == "Widgeteer builds widgets."


def test_section_features_without_html():
    made = SitePage(
        BASE + "/products/flow",
        "Flow – ticketing | Acme",
        "",
        "Flow\nFlow routes tickets.\nFeatures\nTicket routing: to the right agent\nAudit logs",
        [
            ("Flow", 1, "Flow routes tickets."),
            ("Features", 2, "Ticket routing: to the right agent\nAudit logs"),
        ],
        [],
        [],
        1,
    )
    (flow,) = extract_products(snapshot(made))
    assert flow.name == "Flow"
    assert set(features(flow)) == {"Ticket routing", "Audit logs"}
    assert features(flow)["Audit logs"]["cite"] == Cite(made.url, "Audit logs")


BUDI_HOME = """<h1>Build internal tools on your own infrastructure</h1>
<div><h5>Ship 50x faster</h5><p>Build and ship custom software in minutes.</p></div>
<div><h5>Self-hosting</h5><p>Self-host Budiform and your apps on your own servers.</p></div>
<div><h5>Build offline</h5><p>Build and test your applications offline.</p></div>
<h2>Powering businesses of all shapes and sizes</h2>
<div><h5>Education</h5><p>Provide students with an online platform.</p></div>
<div><h5>Finance</h5><p>Analyse and visualize data in a way which suits you.</p></div>
<div><h5>Retail</h5><p>Transform sales data into beautiful applications.</p></div>
<h2>FAQs</h2><p>Can I build a website with Budiform?</p>
<p>Budiform is for building internal tools and custom software.</p>"""
BUDI_NAV = """<header><nav><ul><li><a href="/product">Product</a></li>
<li><a href="/integration/">Integrations</a></li><li><a href="/pricing">Pricing</a></li>
<li><a href="https://app.budiform.example/signup">Get started</a></li></ul></nav></header>"""
BUDI_PRODUCT = """<h1>The Internal Toolbox</h1>
<p>Budiform is the open source development platform that keeps on giving.</p>
<h3>Data tools</h3>
<div><h5>Connect data sources</h5><p>Connect and pull in data from external data sources</p></div>
<div><h5>Access controls</h5><p>Create and assign access roles to different users</p></div>
<div><h5>Login screens</h5><p>A functional login screen out of the box</p></div>
<h3>Automation tools</h3>
<div><h5>Webhooks</h5><p>Pull data into your apps and push data out using webhooks</p></div>
<div><h5>Triggers</h5><p>Choose from a number of triggers to start your automation</p></div>
<div><h5>Send email</h5><p>Send an email if a trigger is activated</p></div>"""


def budi(path, body, title, description="", depth=1):
    meta = f'<meta name="description" content="{description}">' if description else ""
    markup = (
        f"<html><head><title>{title}</title>{meta}</head>"
        f"<body>{BUDI_NAV}<main>{body}</main></body></html>"
    )
    made = page(path, markup, title, depth)
    made.html = markup
    return made


def budiform_site():
    return snapshot(
        budi(
            "/",
            BUDI_HOME,
            "Budiform | Build internal tools",
            "Budiform is an open-source low-code platform to build internal tools. Try it.",
            depth=0,
        ),
        budi("/product/", BUDI_PRODUCT, "Budiform | The Fastest Visual Development Platform"),
        budi(
            "/build-a-web-app/",
            "<h1>Build a web app</h1><p>Web apps with Budiform take minutes to build.</p>",
            "Build a web app | Budiform",
        ),
    )


def test_a_platform_named_like_the_company_is_its_product():
    found = extract_products(budiform_site(), company_name="Budiform")
    assert names(found) == ["Budiform"]  # not "The Internal Toolbox", not the use-case page
    (product,) = found
    assert product.description == (
        "Budiform is an open-source low-code platform to build internal tools."
    )
    assert product.url == BASE + "/product/"
    assert product.cite.url == BASE + "/product/" and "Budiform" in product.cite.quote
    assert set(features(product)) == {
        "Connect data sources",
        "Access controls",
        "Login screens",
        "Webhooks",
        "Triggers",
        "Send email",
    }
    # the site name stands in for a competitor name it is not given; a name typed in
    # lower case takes the case the site writes it in
    assert names(extract_products(budiform_site())) == ["Budiform"]
    assert names(extract_products(budiform_site(), company_name="budiform")) == ["Budiform"]


def test_without_a_product_page_the_home_cards_are_its_features_not_audiences():
    site = budiform_site()
    site.pages = [site.pages[0]]
    (product,) = extract_products(site, company_name="Budiform")
    assert set(features(product)) == {"Ship 50x faster", "Self-hosting", "Build offline"}


def test_no_products_from_blog_posts_tags_careers_integrations_or_menus_of_junk():
    pages = [
        home("<h1>Acme</h1><p>We make things.</p>"),
        page(
            "/blog/our-new-release/", html("<h1>Our new release</h1><p>Our new release ships.</p>")
        ),
        page("/tags/product/", html("<h1>product</h1><p>Posts tagged product.</p>")),
        page("/careers/engineer/", html("<h1>Engineer</h1><p>Join the Engineer team.</p>")),
        page("/integrations/slack/", html("<h1>Slack</h1><p>Slack integration for Acme.</p>")),
        page("/pricing/", html("<h1>Pricing</h1><p>Pricing for all.</p>")),
    ]
    assert extract_products(snapshot(*pages)) == []


def test_hostile_markup_never_raises():
    broken = page("/products/x", "<html><body><h1>" + "<div>" * 3000 + "X</h1>\x00\ufffd")
    broken.html = "<<<>>>\x00" * 100
    extract_products(snapshot(home("<h1>Hi</h1>"), broken))
    empty = SitePage(BASE + "/", "", "", "", [], [{"@type": ["Product"], "name": 5}], [], 0)
    assert extract_products(snapshot(empty)) == []
    assert extract_products(SiteSnapshot(BASE + "/")) == []


# -- saving with evidence ---------------------------------------------------------------------


def test_saving_keeps_resolving_evidence_and_drops_the_rest(api):
    rival = competitor(api.workspace_id, "Acme", BASE)
    crm = crm_page()
    drafts = extract_products(snapshot(home("<h1>Acme</h1>", nav=NAV), crm, desk_page()))
    evidence = EvidenceMap()
    # the stored CRM page lost its "Forecasts" card; the desk page was never stored
    evidence.add(crm.url, "item-crm", crm.text.replace("Forecasts", "").replace("Predict", ""))
    with connection():
        rows = save_products(api.workspace_id, rival.id, drafts, evidence)
        stored = {o.name: o for o in Offering.select().where(Offering.competitor == rival.id)}
    assert [r.name for r in rows] == ["Acme CRM"] and set(stored) == {"Acme CRM"}
    by_name = {f["name"]: f for f in stored["Acme CRM"].features}
    assert set(by_name) == {"Pipeline views", "Email sync"}
    sync = by_name["Email sync"]
    assert sync["evidenceIds"] == ["item-crm"] and "cite" not in sync
    assert sync["quotes"][0]["quote"] == "Email sync Two-way sync with Gmail and Outlook."
    assert sync["quotes"][0]["url"].startswith(BASE + "/crm/#:~:text=Email%20sync")
    # the product itself keeps the sentence that states it, and the API shows it
    (source,) = stored["Acme CRM"].sources
    assert source["evidenceId"] == "item-crm" and "Acme CRM" in source["quote"]
    listed = api.get("/api/offerings").get_json()["offerings"]
    shown = next(o for o in listed if o["name"] == "Acme CRM")
    assert shown["evidenceIds"] == ["item-crm"] and shown["quotes"] == [source]

    # a second collect keeps the feature ids and takes the newest evidence
    again = extract_products(snapshot(home("<h1>Acme</h1>", nav=NAV), crm_page()))
    evidence.add(crm.url, "item-crm-2", crm.text)
    with connection():
        save_products(api.workspace_id, rival.id, again, evidence)
        row = Offering.get(Offering.id == stored["Acme CRM"].id)
    by_name = {f["name"]: f for f in row.features}
    assert by_name["Email sync"]["id"] == sync["id"]
    assert by_name["Email sync"]["evidenceIds"] == ["item-crm-2"]
    assert "Forecasts" in by_name
    assert [s["evidenceId"] for s in row.sources] == ["item-crm-2"]


def test_saving_without_evidence_keeps_everything_but_the_cite(api):
    rival = competitor(api.workspace_id, "Acme", BASE)
    site = snapshot(home("<h1>Acme</h1>", nav=NAV), crm_page(), desk_page())
    with connection():
        rows = save_products(api.workspace_id, rival.id, extract_products(site))
    assert [r.name for r in rows] == ["Acme CRM", "Acme Desk"]
    assert all("cite" not in f and "quotes" not in f for r in rows for f in r.features)


# -- product sheets ----------------------------------------------------------------------------

SHEET = """FlowDesk product sheet
Feature: Visual workflow builder - drag and drop automations
Capability: Single sign-on – SAML and OIDC for every agent
Features:
• SLA timers: pause and resume per ticket
• Audit logs
Get started today
Capabilities:
- Data residency - EU and US regions
Pricing: 49 USD per agent per month
FlowDesk keeps every team on time, every time, for every customer they serve."""


def test_product_sheet_lines():
    assert sheet_lines(SHEET) == [
        (
            "feature",
            "Visual workflow builder",
            "drag and drop automations",
            "Feature: Visual workflow builder - drag and drop automations",
        ),
        (
            "capability",
            "Single sign-on",
            "SAML and OIDC for every agent",
            "Capability: Single sign-on – SAML and OIDC for every agent",
        ),
        (
            "feature",
            "SLA timers",
            "pause and resume per ticket",
            "• SLA timers: pause and resume per ticket",
        ),
        ("feature", "Audit logs", "", "• Audit logs"),
        (
            "capability",
            "Data residency",
            "EU and US regions",
            "- Data residency - EU and US regions",
        ),
    ]
    assert [f["name"] for f in features_from_text(SHEET)] == [
        "Visual workflow builder",
        "SLA timers",
        "Audit logs",
    ]


def docx_sheet() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("FlowDesk", level=1)
    document.add_paragraph("FlowDesk is the help desk for growing teams.")
    document.add_paragraph("Feature: Ticket routing - send each ticket to the right agent")
    document.add_paragraph("Capability: Audit trail - every change is recorded")
    document.add_heading("Features:", level=2)
    document.add_paragraph("Canned replies", style="List Bullet")
    document.add_paragraph("Contact sales", style="List Bullet")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def recorded(document):
    """The EvidenceMap ``ingest.record_document`` would give: one item per section."""
    evidence = EvidenceMap()
    for number, (_heading, text) in enumerate(document.sections, start=1):
        evidence.add(f"{document.url}#section-{number}", f"item-{number}", text)
    return evidence


def test_docx_product_sheet_gives_cited_features_and_capabilities():
    document = extract_document(docx_sheet(), "docx", "upload:o1/sheet.docx", title="sheet.docx")
    found, capabilities = sheet_items(document, recorded(document))
    by_name = {f["name"]: f for f in found}
    assert set(by_name) == {"Ticket routing", "Canned replies"}  # not "Contact sales"
    routing = by_name["Ticket routing"]
    assert routing["description"] == "send each ticket to the right agent"
    assert routing["quotes"][0]["quote"] == (
        "Feature: Ticket routing - send each ticket to the right agent"
    )
    assert routing["evidenceIds"] and routing["quotes"][0]["url"].startswith(
        "upload:o1/sheet.docx#:~:text=Feature%3A%20Ticket"
    )
    assert [(c["id"], c["name"], c["description"]) for c in capabilities] == [
        ("cap-audit-trail", "Audit trail", "every change is recorded")
    ]
    assert capabilities[0]["evidenceIds"] == routing["evidenceIds"]


def test_pdf_product_sheet_and_no_evidence():
    lines = SHEET.replace("•", "-").replace("–", "-").splitlines()
    pdf = make_pdf([lines], title="FlowDesk")
    document = extract_document(pdf, "pdf", "upload:o1/sheet.pdf")
    found, capabilities = sheet_items(document, recorded(document))
    assert [f["name"] for f in found] == ["Visual workflow builder", "SLA timers", "Audit logs"]
    assert all(f["evidenceIds"] == ["item-1"] for f in found)
    assert {c["name"] for c in capabilities} == {"Single sign-on", "Data residency"}
    plain, _ = sheet_items(document)
    assert plain and all("quotes" not in f for f in plain)
