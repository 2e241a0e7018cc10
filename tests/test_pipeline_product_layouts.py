"""Products and features from the layouts of sites whose menus do not say "Products": menus
of any label judged by their target page's kind, a dropdown named like the product, a
"Tour" page, a plan that bundles a sibling product, the brand as the site spells it; and
never a product or feature from menus of company pages, comment forms, bylines, dates,
press logos, shop plumbing or posts. Every page here is made up; kinds are set the way
``page_kinds`` sets them when a site is read."""

from __future__ import annotations

import pytest

from ci_service.pipeline.products import features as product_features
from ci_service.pipeline.products import layout as product_layout
from ci_service.pipeline.products import sources as product_sources
from ci_service.pipeline.products.extract import extract_products
from ci_service.pipeline.products.integrations import extract_supported
from ci_service.pipeline.site import SitePage, SiteSnapshot

BASE = "https://zentro.example"


def page(path, body, title, kind, *, nav="", head="", depth=1, footer=""):
    """A crawled page with its kind. Its text and sections are its content blocks line by
    line, as on a crawled site once the lines every page repeats (menus) are dropped."""
    from ci_service.intel.extract import extract_html

    markup = (
        f"<html><head><title>{title}</title>{head}</head><body>{nav}<main>{body}</main>"
        f"{footer}</body></html>"
    )
    read = extract_html(markup, BASE + path)
    lines, sections = [], []
    for block in product_layout.blocks(markup, BASE + path):
        lines.append(block.text)
        if block.kind == "heading":
            sections.append((block.text, block.level, ""))
        elif sections:
            heading, level, text = sections[-1]
            sections[-1] = (heading, level, f"{text}\n{block.text}".strip())
    return SitePage(
        BASE + path,
        read.title or title,
        read.description,
        "\n".join(lines),
        sections,
        list(read.json_ld),
        [(link.url, link.text) for link in read.links],
        depth,
        html=markup,
        kind=kind,
    )


def plain(path, heading, text, kind, nav=""):
    """A page of one heading and one paragraph."""
    return page(path, f"<h1>{heading}</h1><p>{text}</p>", f"{heading} | Zentro", kind, nav=nav)


def site(*pages):
    return SiteSnapshot(BASE + "/", pages=list(pages))


def names(drafts):
    return [d.name for d in drafts]


def features(draft):
    return {f["name"]: f for f in draft.features}


# -- a flat menu in product words: "SUITE OVERVIEW", "VISION", "CASE STUDIES", "MORE" -------

FLAT_NAV = """<header><nav class="Header-nav">
  <a href="/suite-overview">SUITE OVERVIEW</a> <a href="/vision">VISION</a>
  <a href="/case-studies">CASE STUDIES</a> <a href="/#foot">MORE</a>
  <a href="/contact">Contact</a></nav></header>"""
FOOTER_TABLE = """<footer><table>
  <tr><td><p><span>Product</span></p></td><td><p><span>Company</span></p></td></tr>
  <tr><td><a href="/suite-overview">Suite Overview</a></td>
  <td><a href="/vision">Vision</a></td></tr>
  <tr><td><a href="/case-studies">Case Studies</a></td><td><a href="/values">Values</a></td></tr>
  <tr><td><a href="/events">Events</a></td><td><a href="/team">Team</a></td></tr>
</table></footer>"""
FLAT_HOME = """<h1>Zentro Lab Environment</h1>
<p>The cloud-based Zentro Suite links experiment designs and data across your teams.</p>
<h1>Elegant, modular design</h1>
<h2>The Zentro Suite covers every step of discovery</h2>
<p><a href="/suite-overview#plan">Plan</a></p>
<p><a href="/suite-overview#plan">Drag-and-drop experiment planning</a></p>
<p><a href="/suite-overview#track">Track</a></p>
<p><a href="/suite-overview#track">Trace samples and instruments</a></p>
<p><a href="/suite-overview#learn">Learn</a></p>
<p><a href="/suite-overview#learn">Find cause and effect in your data</a></p>
<p>Connect every sample to its results across the whole product lifecycle.</p>
<p><a href="/video">Watch a video</a></p>"""
FLAT_OVERVIEW = """<h1>Zentro Suite overview</h1>
<h2>Design for science</h2>
<h3>1. VISUAL PROCESS DESIGN</h3><p>With the Zentro Suite you define every handling step of
an experiment, its parameters and its specification limits in one drawing.</p>
<h3>2. VERSIONING</h3><p>Every version of a process is kept, so you can compare changes.</p>
<h2>Execute flawless experiments</h2>
<h3>1. GUIDED RUNS</h3><p>Operators follow each step of the process on a tablet.</p>
<h3>2. INSTRUMENT CAPTURE</h3><p>Data comes straight from instruments and databases.</p>
<h2>Collaborate</h2>
<h3>1. SHARING</h3><p>Share designs and data with view or edit permissions.</p>
<h3>2. OPEN API</h3><p>A read/write API gives you all of your data in open formats.</p>
<p>As you collect it, the Zentro Suite maps your data to the process that made it.</p>"""


def flat_site():
    nav = FLAT_NAV
    return site(
        page("/", FLAT_HOME, "Zentro | Discover", "home", nav=nav, depth=0, footer=FOOTER_TABLE),
        page("/suite-overview", FLAT_OVERVIEW, "Suite Overview | Zentro", "product", nav=nav),
        plain("/vision", "Our Vision", "We believe science should be reproducible.", "about", nav),
        plain("/case-studies", "Case Studies", "How a lab halved its cycle time.", "customer", nav),
        plain("/events", "Upcoming Events", "Meet the team at these shows.", "news-list", nav),
    )


def test_a_menu_in_product_words_names_the_product_its_page_presents():
    (suite,) = extract_products(flat_site(), company_name="zentro")
    # "SUITE OVERVIEW" less the generic word, in the form the text writes it
    assert suite.name == "Zentro Suite"
    assert suite.url == BASE + "/suite-overview"
    assert suite.description.startswith("The cloud-based Zentro Suite links")
    found = features(suite)
    # two numbered features under each of three sibling headings, in title case
    assert {"Visual Process Design", "Versioning", "Guided Runs", "Sharing", "Open API"} <= set(
        found
    )
    # the home page's name/description tiles that link to the product's page
    assert found["Plan"]["description"] == "Drag-and-drop experiment planning"
    assert {"Track", "Learn"} <= set(found)
    assert not {"Vision", "Case Studies", "Events", "More"} & set(found)


def test_a_footer_table_column_is_one_menu():
    home = flat_site().pages[0]
    (menu,) = [m for m in product_layout.menus(home.html, home.url) if m.items]
    assert menu.label == "Product"
    assert [text for _url, text in menu.items] == ["Suite Overview", "Case Studies", "Events"]


# -- a dropdown named like the product, a Resources menu, a blog post with a comment form ---

DROPDOWN_NAV = """<header><nav><ul class="menu">
  <li><a href="/">Home</a></li>
  <li><a href="/vault/">Acme Vault</a><ul class="sub-menu">
      <li><a href="/vault/">Vault Overview</a></li>
      <li><a href="/vault/features/">Features and Benefits</a></li></ul></li>
  <li><a href="/solutions/">Solutions</a><ul class="sub-menu">
      <li><a href="/solutions/briefs/">Solution Briefs</a></li></ul></li>
  <li><a href="/resources/">Resources</a><ul class="sub-menu">
      <li><a href="/resources/side-attacks/">Side Attacks</a></li>
      <li><a href="/blog/">Blog</a></li></ul></li>
</ul></nav></header>"""
VAULT = """<h1>Trustworthy servers with Acme Vault</h1>
<p>Acme Vault secures servers in untrusted places from malware and insiders.</p>"""
VAULT_FEATURES = """<h1>Vault Features and Benefits</h1>
<h2>Server Attestation</h2><p>Server security starts with knowing what runs on it.</p>
<h4>Detects Persistent Threats</h4><p>Attackers hide in firmware. Vault Manager checks every
layer of the boot chain against a known good state before a server joins the pool, and it
keeps checking while the server runs, so that a change made by an attacker shows up at once
in the console and the server can be taken out of service before any data reaches it.</p>
<h4>Cryptographic Proof</h4><p>Each attestation answer is signed by a key rooted in the chip.</p>
<h4>Remote Seal</h4><p>Secrets are released only to servers that pass attestation.</p>
<h2>Data In Use Encryption</h2><p>Data is protected while the server computes on it.</p>
<h4>Encrypted Memory</h4><p>Vault Host keeps all of main memory encrypted at all times.</p>
<h4>Transparent Encryption</h4><p>Applications run unchanged on top of the hypervisor.</p>
<h4>Custom Ciphers</h4><p>Plug in your own encryption modules where rules require it.</p>"""
POST = """<article><h1>Can you trust your server hardware?</h1>
<div class="entry-meta"><span class="byline">By Jane Doe</span> <time>October 1, 2013</time>
<a href="/category/server-security/">Server Security</a></div>
<p>Hardware supply chains are long, and every hop is a chance to tamper with a board.</p>
<h3>Supported hardware</h3><ul><li>By Jane Doe</li><li>October 1, 2013</li>
<li>Name (required)</li><li>Email (required)</li></ul>
<div id="respond" class="comment-respond"><h3>Leave A Comment</h3>
<form><p><label>Name (required)</label></p><p><label>Email (required)</label></p>
<p><label>Website</label></p><p><label>Comment</label></p></form></div></article>"""


def dropdown_site():
    nav = DROPDOWN_NAV
    return site(
        page(
            "/",
            "<h1>Private computing</h1><p>We make servers you can trust.</p>",
            "Home | Acme",
            "home",
            nav=nav,
            depth=0,
        ),
        page("/vault/", VAULT, "Acme Vault | Acme", "product", nav=nav),
        page("/vault/features/", VAULT_FEATURES, "Vault Features | Acme", "product", nav=nav),
        page(
            "/solutions/briefs/",
            "<h1>Solution Briefs</h1><ul><li><a href='/a.pdf'>Protecting edge servers</a></li>"
            "<li><a href='/b.pdf'>Securing points of presence</a></li></ul>",
            "Solution Briefs | Acme",
            "product",
            nav=nav,
        ),
        page(
            "/resources/side-attacks/",
            "<h1>Side Attacks</h1><p>This talk describes Protection Against Cache-Based Side "
            "Attacks In The Cloud.</p><p>Acme Vault helps mitigate some side attacks.</p>",
            "Side Attacks | Acme",
            "product",
            nav=nav,
        ),
        page(
            "/blog/can-you-trust/",
            POST,
            "Can you trust your server hardware? | Acme",
            "post",
            nav=nav,
        ),
    )


def test_a_dropdown_named_like_the_product_and_its_features_page():
    (vault,) = extract_products(dropdown_site(), company_name="Acme")
    assert vault.name == "Acme Vault"  # not "Solution Briefs", not "Side Attacks"
    assert vault.description == (
        "Acme Vault secures servers in untrusted places from malware and insiders."
    )
    found = features(vault)
    assert {"Detects Persistent Threats", "Cryptographic Proof", "Encrypted Memory"} <= set(found)
    # a long text gives its first sentence(s), at most 300 characters
    assert found["Detects Persistent Threats"]["description"] == "Attackers hide in firmware."
    junk = {"By Jane Doe", "October 1, 2013", "Name (required)", "Comment", "Website"}
    assert not junk & set(found)


def test_no_supported_items_from_a_post_its_byline_date_or_comment_form():
    assert extract_supported(dropdown_site(), "Acme") == []
    post = dropdown_site().pages[-1]
    post.kind = "other"  # even where the kind says nothing, dates and form fields are no items
    items = extract_supported(site(post), "Acme")
    assert not {i.name for i in items} & {"By Jane Doe", "October 1, 2013", "Name (required)"}


def test_comment_forms_bylines_and_post_meta_are_not_content_blocks():
    post = dropdown_site().pages[-1]
    texts = " ".join(b.text for b in product_layout.blocks(post.html, post.url))
    assert "Hardware supply chains are long" in texts
    # (the list under "Supported hardware" is content; the meta line and the form are not)
    for junk in ("Server Security", "Leave A Comment", "Website", "Comment"):
        assert junk not in texts


# -- one product: a "Tour" page, a home page with press logos, a plan that bundles another --

TOUR_NAV = """<div class="nav-bar"><ul class="top_menu nav">
  <li><a href="/tour/">Tour</a></li><li><a href="/pricing/">Pricing</a></li>
  <li><a href="/stories/">Stories</a></li><li><a href="/team/">Our team</a></li></ul></div>"""
QUIZ_HOME = """<h1>Create, embed, and share your own quizzes</h1>
<h2>Drive social traffic · Generate leads</h2><p>Watch a quick video</p>
<h2>The most simple and elegant quiz tool</h2>
<h4>Create a quiz in minutes</h4><ul><li>Create graded and outcome quizzes.</li>
<li>Customize your background.</li></ul>
<h4>Embed and share it</h4><ul><li>Embed quizzes with one line of code.</li>
<li>Share it on every network.</li></ul>
<h4>Track your results</h4><ul><li>Review stats.</li><li>Analyze responses.</li></ul>
<h3>What people are saying</h3>
<p>“Quizly makes it easy and fun to build quizzes,” says a happy editor.</p>
<h3>As seen on</h3><p>Big Paper</p><p>Tech Daily</p><p>News Weekly</p>"""
QUIZ_TOUR = """<h1>Take a look under the hood</h1>
<p>Quizly is a robust tool that can deliver powerful results for publishers.</p>
<h2>Tour</h2>
<div><h4>Drive social traffic</h4><p>Launch a viral quiz and send the traffic back to your site.</p>
<p><a href="/uses/social/">Learn more</a></p></div>
<div><h4>Generate qualified leads</h4><p>Capture leads with the answers tied to each one.</p>
<p><a href="/uses/leads/">Learn more</a></p></div>
<div><h4>Present targeted offers</h4><p>Send people who take your quiz to the right offer.</p>
<p><a href="/uses/offers/">Learn more</a></p></div>
<div><h4>Tour</h4><p>Quizly makes it easy to create quizzes for your site.</p>
<p><a href="/pricing/">Get started</a></p></div>"""
QUIZ_PRICING = """<h1>Simple tool, powerful results</h1>
<h3>Pro</h3><p>$299 per year</p><ul><li>50,000 engagements per month</li></ul>
<h3>Enterprise</h3><p>Custom plans</p><ul><li>White label</li><li>Quizly + Pollster</li>
<li>Multiple brands</li></ul>"""
QUIZ_POST = """<article><h1>Five quiz ideas for the holidays</h1><p>Posted on July 2, 2015</p>
<p>Which idea is the most appealing to you? Take the poll (made with our sister tool
Pollster) and see what other people chose.</p></article>"""


def quiz_site():
    nav = TOUR_NAV
    return site(
        page(
            "/",
            QUIZ_HOME,
            "Free Online Quiz Tool - Create Quizzes | Quizly",
            "home",
            nav=nav,
            depth=0,
        ),
        page("/tour/", QUIZ_TOUR, "Quiz Maker Software | Quizly", "product", nav=nav),
        page("/pricing/", QUIZ_PRICING, "Pricing | Quizly", "pricing", nav=nav),
        page("/blog/five-ideas/", QUIZ_POST, "Five quiz ideas | Quizly", "post", nav=nav),
        page(
            "/team/",
            "<h1>Meet the team</h1><p>Jane Roe · CEO</p><p>John Poe · CTO</p>",
            "Our team | Quizly",
            "team",
            nav=nav,
        ),
    )


def test_a_tour_page_is_the_one_products_feature_page_and_a_plan_bundles_a_sibling():
    quizly, pollster = extract_products(quiz_site(), company_name="quizly")
    assert quizly.name == "Quizly"  # the competitor's name as the site writes it
    assert quizly.url == BASE + "/tour/"
    assert set(features(quizly)) == {
        "Drive social traffic",
        "Generate qualified leads",
        "Present targeted offers",
    }  # not "Tour" (its own group's name), not the home's slogans or "As seen on"
    assert pollster.name == "Pollster"
    (bundle,) = pollster.features
    assert bundle["name"] == "Bundled with Quizly"
    assert bundle["cite"].quote == "Quizly + Pollster"
    assert bundle["cite"].url == BASE + "/pricing/"


def test_home_bullet_columns_are_features_but_press_logos_and_quotes_are_not():
    home = quiz_site().pages[0]
    found = product_features.html_features(
        product_layout.cards(product_layout.blocks(home.html, home.url))
    )
    assert [f.name for f in found] == [
        "Create a quiz in minutes",
        "Embed and share it",
        "Track your results",
    ]
    assert found[2].description == "Review stats; Analyze responses"


# -- the brand as the site spells it; the home page is the product page ----------------------

BRAND_HOME = """<h1>Dealing with servers doesn't have to hurt</h1>
<h2>Say goodbye to hand-made servers</h2>
<p>Tired of complex tools? exampl.io is like version control for operations.</p>
<h3>Deploy your own machines on any cloud</h3><p>A platform as a service locks you out of
your infrastructure. With exampl.io you use your own cloud account and keep full access to
every machine you run. Start with the smallest test box, grow to the biggest database server,
move between clouds when prices change, and keep every change in the history of your repository
where the whole team can see it and roll it back.</p>
<h3>Stop configuring machines by hand</h3><p>Pick a stack and it is set up in minutes.</p>
<h3>Give your whole team access</h3><p>Everyone on the team sees every server and task.</p>
<h2>How does it work?</h2><p>With exampl.io you manage servers like code: with files in Git.</p>
<h4>Web server updated</h4><p>"Installing the web server" by ninjacoder</p>
<h4>Deploy task removed</h4><p>"Removing the old pipeline" by coderbuddy</p>
<h4>Deploy task run failed</h4><p>Triggered manually by ninjacoder</p>"""


def test_the_brand_as_the_site_spells_it_with_the_home_pages_features():
    meta = '<meta name="description" content="Manage and automate all your servers with Git.">'
    pages = [
        page("/", BRAND_HOME, "Build your own servers | exampl.io", "home", depth=0, head=meta),
        page("/pricing/", "<h1>Pricing</h1><p>$49 per month</p>", "Pricing | exampl.io", "pricing"),
        page(
            "/privacy/",
            "<h1>Privacy policy</h1><p>We keep your data.</p>",
            "Privacy | exampl.io",
            "legal",
        ),
    ]
    (product,) = extract_products(site(*pages), company_name="examplio")
    assert product.name == "exampl.io"
    assert product.description == "Manage and automate all your servers with Git."
    assert set(features(product)) == {
        "Deploy your own machines on any cloud",
        "Stop configuring machines by hand",
        "Give your whole team access",
    }  # not the bylines of the activity feed under "How does it work?"
    # a long text gives its first sentences, at most 300 characters
    described = features(product)["Deploy your own machines on any cloud"]["description"]
    assert described.startswith("A platform as a service locks you out of your infrastructure.")
    assert described.endswith("full access to every machine you run.") and len(described) <= 300


# -- shop plumbing, posts and listing labels ---------------------------------------------------

SHOP = """<div class="product type-product"><h1>{name}</h1>
<p class="price">$50.00</p><form class="cart"><button name="add-to-cart"
class="single_add_to_cart_button">Add to cart</button></form>
<div class="product_meta">SKU: 12 Category: Services</div>
<div class="woocommerce-tabs"><h2>Description</h2><p>{text}</p>
<h2>Reviews (0)</h2><p>There are no reviews yet.</p></div>
<section class="related products"><h2>Related products</h2><h3>Gift card</h3></section></div>"""
BUILDER_FOOTER = """<div class="builder builder-location-footer"><section>
<h3>Phone</h3><p>+1 555 0100 every weekday</p><h3>Email</h3><p>hello at zentro example</p>
<h3>Location</h3><p>12 Harbour Street, Portsmouth</p>
<h3>Let's Connect</h3><p>Follow us for news and offers</p></section></div>"""
LAMP = "The Zentro Lamp is a desk lamp that dims itself when the sun comes up."
LAMP_FEATURES = """<h3>Key features</h3><ul><li>Daylight sensor: dims with the sun</li>
<li>USB-C charging</li></ul><h2>Reviews (0)</h2>"""
POST_LD = (
    '<script type="application/ld+json">{"@type": "SoftwareApplication", '
    '"name": "Gadgetron", "description": "Gadgetron builds widgets."}</script>'
)


def test_shop_payment_items_posts_and_shop_chrome_are_not_products_or_features():
    home = page("/", "<h1>Lamps</h1><p>We make lamps.</p>", "Home | Zentro", "home", depth=0)
    payment = SHOP.format(name="Invoice Payment", text="Pay your Zentro invoice online.")
    lamp = SHOP.format(name="Zentro Lamp", text=LAMP).replace("<h2>Reviews (0)</h2>", LAMP_FEATURES)
    pages = [
        home,
        page("/product/invoice-payment/", payment, "Invoice Payment | Zentro", "product"),
        page("/product/zentro-lamp/", lamp + BUILDER_FOOTER, "Zentro Lamp | Zentro", "product"),
        page(
            "/gadgetron",
            "<h1>Gadgetron</h1><p>Gadgetron builds widgets.</p>",
            "Gadgetron",
            "post",
            head=POST_LD,
        ),
    ]
    (product,) = extract_products(site(*pages))  # not the payment, not the post's JSON-LD
    assert product.name == "Zentro Lamp"
    # not the shop's tabs, related items or the page builder's footer
    assert set(features(product)) == {"Daylight sensor", "USB-C charging"}
    assert product_sources.shop_plumbing(pages[1], "Invoice Payment")
    assert not product_sources.shop_plumbing(pages[2], "Zentro Lamp")


@pytest.mark.parametrize(
    "name", ["Reviews", "Related products", "Let's connect", "Phone", "Glossary"]
)
def test_shop_chrome_names_are_not_feature_names(name):
    assert product_layout.chrome_name(name)
    assert not product_layout.feature_name_ok(name)


def test_a_label_for_the_kind_two_products_share_is_not_a_product():
    nav = """<header><nav><ul><li><a href="/products/">Products</a><ul>
      <li><a href="/products/suites/">Cloudsuites</a></li>
      <li><a href="/products/alpha/">Alpha Cloudsuite</a></li>
      <li><a href="/products/beta/">Beta Cloudsuite</a></li></ul></li></ul></nav></header>"""

    def product_page(path, name, text):
        return page(path, f"<h1>{name}</h1><p>{text}</p>", f"{name} | Zentro", "product", nav=nav)

    pages = [
        page(
            "/", "<h1>Device software</h1><p>For devices.</p>", "Zentro", "home", nav=nav, depth=0
        ),
        product_page(
            "/products/suites/",
            "Cloudsuites",
            "Our Cloudsuites keep devices safe and up to date for as long as you ship them.",
        ),
        product_page(
            "/products/alpha/",
            "Alpha Cloudsuite",
            "The Alpha Cloudsuite is a secure base for the devices you ship.",
        ),
        product_page(
            "/products/beta/",
            "Beta Cloudsuite",
            "The Beta Cloudsuite is a secure base for the sensors you ship.",
        ),
    ]
    assert names(extract_products(site(*pages))) == ["Alpha Cloudsuite", "Beta Cloudsuite"]


# -- the rules on their own ------------------------------------------------------------------


def test_names_in_prose_and_the_menu_item_a_link_hangs_under():
    pages = dropdown_site().pages
    assert product_sources.in_prose("Acme Vault", pages) is not None
    assert product_sources.in_prose("Solution Briefs", pages) is None  # a heading only
    assert product_sources.in_prose("Side Attacks", pages) is None  # inside a title
    # one capitalized common word needs two sentences that use it as a name
    one = page("/x", "<p>These come out of our test Labs and we use them for demos.</p>", "X", "")
    assert product_sources.in_prose("Labs", [one]) is None
    entries = product_sources.nav_entries(pages[0].html, pages[0].url)
    under = {e.text: e.parent for e in entries}
    assert under["Features and Benefits"] == "Acme Vault" and under["Acme Vault"] == ""
    assert under["Side Attacks"] == "Resources"


def test_section_features_without_html_need_a_grid_and_skip_meta_lines():
    sections = [
        ("Can you trust your hardware?", 1, "Supply chains are long."),
        ("By Jane Doe", 2, "October 1, 2013"),
        ("Leave A Comment", 3, "Name (required)\nEmail (required)"),
    ]
    assert product_features.section_features(sections) == []
    grid = [
        ("Fast sync", 2, "Changes reach every device in a second."),
        ("Offline mode", 2, "Work without a connection and sync later."),
        ("Audit trail", 3, "Every change is kept with its author."),
    ]
    found = product_features.section_features(grid)
    assert [f.name for f in found] == ["Fast sync", "Offline mode", "Audit trail"]
