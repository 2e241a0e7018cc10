"""Reading rules that hold for any site: testimonials are no team, a home page in another
language is a home page, an old price is not the plan's, a counter is no plan name, a rate
per day keeps its day, headings styled as text, links on any element, industries named by
a trade noun or a title segment in any language."""

from __future__ import annotations

from ci_service.intel.extract import extract_html
from tests.test_pipeline_records import site_page


def test_a_set_of_quotations_is_no_team_and_first_names_need_a_team_page():
    from ci_service.pipeline.people.records import people_in_records

    quotes = "".join(
        f'<div class="c"><p>“{text}”</p><h4>{name}</h4><p>Product Manager</p></div>'
        for name, text in (
            ("Ana Ruiz", "They shipped our app in half the time we had planned for it."),
            ("Li Wei", "The best partner we have had in years, and the fastest one too."),
            ("Tom Berg", "Every sprint ended with something our customers could use."),
        )
    )
    html = f"<html><body><main><h2>What clients say</h2><div>{quotes}</div></main></body></html>"
    assert people_in_records(html, "https://acme.example/", set(), about_the_team=True) == []

    team = "".join(
        f'<div class="m"><h4>{name}</h4><p>{title}</p></div>'
        for name, title in (("Maja", "CEO"), ("Tobias", "CTO"), ("Ines", "Developer"))
    )
    html = f"<html><body><main><h2>People</h2><div>{team}</div></main></body></html>"
    assert people_in_records(html, "https://acme.example/", set(), about_the_team=False) == []
    assert [n for n, _t in people_in_records(html, "https://acme.example/", set(), True)] == [
        "Maja",
        "Tobias",
        "Ines",
    ]


def test_a_path_of_only_the_pages_language_code_is_a_home_page():
    from ci_service.pipeline.page_kinds import classify

    cards = "".join(
        f"<div><h3>{name}</h3><p>{title}</p></div>"
        for name, title in (
            ("Ana Ruiz", "CEO"),
            ("Li Wei", "CTO"),
            ("Tom Berg", "COO"),
            ("Eva Lind", "CFO"),
        )
    )
    html = f"<html><body><main><h1>Nós somos a Acme</h1>{cards}</main></body></html>"
    home = site_page("/pt/", html)
    home.language = "pt"
    assert classify(home) == "home"
    # The same path on a page in another language is a folder of the site ("/it/": IT).
    other = site_page("/it/", html)
    other.language = "en"
    assert classify(other) != "home"


def test_a_card_with_an_old_price_and_an_offer_gives_the_offer():
    from ci_service.pipeline.pricing.plans import page_plans

    def card(name, old, new, old_usd, new_usd):
        return (
            f'<div class="plan"><h2>{name}</h2><p class="offer">28% Off (Early Birds offer)</p>'
            f'<div class="price"><h4>₹{old}</h4><p>${old_usd}</p></div>'
            f'<div class="offer-price"><h4>₹{new}</h4><p>${new_usd}</p></div>'
            "<ul><li>Mentorship</li><li>Projects</li></ul></div>"
        )

    html = (
        '<html><body><main><h1>Invest in yourself</h1><div class="cards">'
        + card("Premium", "93,749", "67,499", "1249", "899")
        + card("Standard", "56,249", "40,499", "749", "539")
        + "</div></main></body></html>"
    )
    plans = page_plans(site_page("/pricing/", html, kind="pricing"))
    assert [(p.name, p.price, p.currency) for p in plans] == [
        ("Premium", 67499.0, "INR"),
        ("Standard", 40499.0, "INR"),
    ]


def test_a_counter_a_size_or_a_price_word_is_no_plan_name_a_bundle_is():
    from ci_service.pipeline.pricing.plans import plan_name_ok

    for name in ("11 / 15", "0", "+", "20 GB", "From", "Starting at", "Price", "per user / month"):
        assert not plan_name_ok(name), name
    for name in ("Pro", "Plan 2", "200 minutes", "Business+", "Monthly"):
        assert plan_name_ok(name), name


def test_a_rate_per_day_keeps_its_day_as_the_unit():
    from ci_service.pipeline.pricing.money import prices

    assert [(p.amount, p.currency, p.period, p.unit) for p in prices("€6.73 p/d")] == [
        (6.73, "EUR", None, "per day")
    ]
    assert prices("$40 a night")[0].unit == "per night"
    assert prices("$30/hr")[0].unit == "per hour"
    assert prices("$5 per user / month")[0].unit == "per user"


def test_feature_headings_with_their_text_set_as_headings_make_a_grid():
    from ci_service.pipeline.products.features import html_features
    from ci_service.pipeline.products.layout import blocks, cards

    pairs = "".join(
        f"<div><h6>{name}</h6><h6>{text}</h6></div>"
        for name, text in (
            ("Logs", "Drill down and debug your issues with real time logs."),
            ("Custom Domains", "Once deployed, your projects can be assigned to a domain."),
            ("Sleep Mode", "Dev environments sleep when they are not in use!"),
        )
    )
    html = f"<html><body><main><h2>Developer tools</h2>{pairs}</main></body></html>"
    found = html_features(cards(blocks(html, "https://acme.example/")))
    assert [(f.name, f.description) for f in found] == [
        ("Logs", "Drill down and debug your issues with real time logs."),
        ("Custom Domains", "Once deployed, your projects can be assigned to a domain."),
        ("Sleep Mode", "Dev environments sleep when they are not in use!"),
    ]


def test_links_on_any_element_are_followed():
    html = """<html><head><link rel="next" href="/news/page/2/"></head><body>
      <div class="card" data-href="/services/audits/">Audits</div>
      <button onclick="window.location.href='/pricing/'">See prices</button>
      <map><area href="/contact/" alt="Contact"></map>
      <button onclick="track('x')">Nothing</button>
      <a href="/about/">About</a></body></html>"""
    found = {link.url: link.text for link in extract_html(html, "https://acme.example/").links}
    assert found == {
        "https://acme.example/about/": "About",
        "https://acme.example/contact/": "",
        "https://acme.example/services/audits/": "Audits",
        "https://acme.example/pricing/": "See prices",
        "https://acme.example/news/page/2/": "",
    }


def test_an_industry_from_a_trade_noun_or_a_title_segment_in_any_language():
    from ci_service.pipeline.profile.industry import industry_candidates

    def industry(title, description="", language="en", links=()):
        home = site_page("/", "<html><body><main><p>Welcome.</p></main></body></html>", title=title)
        home.description, home.language = description, language
        home.links = list(links)
        found = industry_candidates(home, 1, 0, ["acme"])
        return found[0].value if found else None

    assert industry("Marketing Agency in Fresno, CA | Acme") == "Marketing agency"
    assert industry("Mortgage Broker NZ | Best Rates | Acme") == "Mortgage broker"
    assert industry("Building the future | Acme") is None
    assert industry("Acme | Software, robotica e AI su misura", language="it") == (
        "Software, robotica e AI su misura"
    )
    assert industry("Acme", "Acme - spesialister på SharePoint og Office 365", "no") == (
        "Spesialister på SharePoint og Office 365"
    )
    # A page of the site ("Über uns" in the menu), a year or a sentence names no trade.
    links = [("https://acme.example/ueber-uns/", "Über uns")]
    assert industry("Über uns | Acme", language="de", links=links) is None
    assert industry("Acme | Seit 1997 für Sie da", language="de") is None
    assert industry("Acme | Wir bauen Ihre Zukunft.", language="de") is None


def test_a_grid_linking_to_sibling_pages_gives_offerings_in_any_language():
    from ci_service.pipeline.products.extract import extract_products
    from ci_service.pipeline.site import SiteSnapshot
    from tests.test_pipeline_products import BASE

    def home(folders):
        cards = "".join(
            f'<div class="card"><a href="/{folder}/{slug}/"><h3>{name}</h3></a><p>{text}</p></div>'
            for folder, (slug, name, text) in zip(
                folders,
                (
                    (
                        "implantaten",
                        "Implantaten",
                        "Een vaste oplossing voor een ontbrekende tand.",
                    ),
                    ("kronen", "Kronen en bruggen", "Herstel van een beschadigde tand of kies."),
                    ("bleken", "Tanden bleken", "Een stralende lach met een veilige behandeling."),
                ),
                strict=True,
            )
        )
        html = (
            "<html><body><main><h1>Welkom</h1><h2>Waarmee helpen wij u?</h2>"
            f"{cards}</main></body></html>"
        )
        return site_page("/", html, kind="home", depth=0)

    def own(path, name):
        html = (
            f"<html><body><main><h1>{name}</h1><p>{name} bij ons in de praktijk.</p>"
            "</main></body></html>"
        )
        return site_page(path, html, kind="other")

    def names(folders):
        pages = [home(folders)] + [
            own(f"/{f}/{slug}/", slug.title())
            for f, slug in zip(folders, ("implantaten", "kronen", "bleken"), strict=True)
        ]
        return [d.name for d in extract_products(SiteSnapshot(BASE + "/", pages))]

    # Three pages side by side in one folder: the grid's records are the offerings.
    assert names(["behandelingen"] * 3)[:3] == ["Implantaten", "Kronen en bruggen", "Tanden bleken"]
    # Pages of no kind scattered over folders say nothing of what the records are.
    assert not {"Implantaten", "Kronen en bruggen"} & set(names(["a", "b", "c"]))


def test_plans_name_a_pricing_page_only_as_its_whole_name():
    from ci_service.pipeline.pricing.plans import pricing_pages
    from ci_service.pipeline.profile.extract import names_pricing
    from ci_service.pipeline.site import SiteSnapshot
    from tests.test_pipeline_products import BASE

    assert names_pricing(BASE + "/plans/", "Acme")
    assert names_pricing(BASE + "/x/", "Plans & Pricing | Acme")
    assert not names_pricing(BASE + "/civil/", "Civil Engineering | Site Plans & Stamped Drawings")

    kits = "".join(
        f'<div class="kit"><h3>{n}-Panel Kit</h3><p>${p:,} complete kit</p></div>'
        for n, p in ((8, 6560), (12, 9720), (18, 14580))
    )
    shop = site_page("/shop/", f"<html><body><main><h1>Shop</h1>{kits}</main></body></html>")
    shop.kind = "pricing"
    drawings = site_page(
        "/permit-plan-set/",
        "<html><body><main><h1>Permit plan sets</h1><p>Stamped drawings.</p></main></body></html>",
        title="Permit Plan Sets | Acme",
    )
    home = site_page(
        "/",
        '<html><body><main><a href="/permit-plan-set/">Permit Plan Set</a></main></body></html>',
        kind="home",
        depth=0,
    )
    # A link to a thing called a plan does not name the site's pricing page: the shop's
    # priced records are read.
    pages = pricing_pages(SiteSnapshot(BASE + "/", [home, drawings, shop]))
    assert [p.url for p in pages] == [BASE + "/shop/"]


def test_feature_tiles_read_from_repeated_records_steps_and_figures_are_none():
    from ci_service.pipeline.products.record_features import record_features

    def tiles(heading, rows):
        items = "".join(
            f'<div class="fl-item"><div class="fl-info"><strong>{n}</strong><br>{d}</div></div>'
            for n, d in rows
        )
        return f"<h3>{heading}</h3><div class='features-list'>{items}</div>"

    html = (
        "<html><body><main><h1>Acme</h1>"
        + tiles(
            "Reach your shoppers",
            [
                ("Simple Integration", "Easily integrate with the shop systems you use."),
                ("Geolocation", "Serve content based on where the shopper is."),
                ("Dynamic Call to Action", "Adapt the content to drive traffic effectively."),
            ],
        )
        + tiles(
            "Getting started",
            [
                ("1. Sign up", "Create an account and upload your data."),
                ("2. Train", "Let the model train on your samples."),
                ("3. Call the API", "Send your data and read the answer."),
            ],
        )
        + tiles(
            "In numbers",
            [
                ("2014", "The year we started this journey together."),
                ("<24h", "Time it takes us to answer every request."),
                ("5.0☆", "The rating our customers give us online."),
            ],
        )
        + "</main></body></html>"
    )
    found = record_features(html, "https://acme.example/", set())
    assert [(f.name, f.description) for f in found] == [
        ("Simple Integration", "Easily integrate with the shop systems you use."),
        ("Geolocation", "Serve content based on where the shopper is."),
        ("Dynamic Call to Action", "Adapt the content to drive traffic effectively."),
    ]
    # A name another rule found already is left to it.
    assert [f.name for f in record_features(html, "https://acme.example/", {"geolocation"})] == [
        "Simple Integration",
        "Dynamic Call to Action",
    ]


def test_a_heading_between_sibling_records_starts_another_set():
    from ci_service.pipeline.records import record_sets

    def cards(*names):
        return "".join(f"<div><h5>{n}</h5><p>What {n} does for you.</p></div>" for n in names)

    html = (
        "<html><body><main><h2>Features</h2>"
        + cards("Webhooks", "Triggers", "Audit logs")
        + "<h2>Who uses it</h2>"
        + cards("Education", "Retail", "Finance")
        + "</main></body></html>"
    )
    sets = record_sets(html, "https://acme.example/")
    assert [(s.heading, [r.name for r in s.records]) for s in sets] == [
        ("Features", ["Webhooks", "Triggers", "Audit logs"]),
        ("Who uses it", ["Education", "Retail", "Finance"]),
    ]


def test_plans_take_the_names_the_comparison_table_gives_them():
    from ci_service.pipeline.pricing.plans import page_plans

    def plan(name, price, extra=""):
        return (
            f'<div class="col"><div class="n">{name}</div><div class="p">$ {price}</div>'
            f'<div>per user / month</div>{extra}<div class="b">Buy</div></div>'
        )

    html = (
        "<html><body><main><h1>Pricing</h1>"
        '<div class="row"><p class="title">Boost your week</p>'
        + plan("Personal", 0)
        + plan("Professional", 4, "<div>$6 billed monthly</div>")
        + '</div><div class="row"><p class="title">Automate your team</p>'
        + plan("Business", 12)
        + plan("Enterprise", 16)
        + "</div><h2>Compare plan features</h2><table><tr><th></th><th>Personal</th>"
        "<th>Professional</th><th>Business</th><th>Enterprise</th></tr>"
        "<tr><td>Calendars</td><td>1</td><td>3</td><td>10</td><td>10</td></tr></table>"
        "</main></body></html>"
    )
    plans = page_plans(site_page("/pricing/", html, kind="pricing"))
    assert {(p.name, p.price) for p in plans if p.period in ("month", None)} >= {
        ("Professional", 4.0),
        ("Business", 12.0),
        ("Enterprise", 16.0),
    }
    assert not {p.name for p in plans} & {
        "Boost your week",
        "Automate your team",
        "per user / month",
    }


def test_a_grid_of_members_speakers_or_customers_is_no_team_but_team_members_are():
    from ci_service.pipeline.people.records import people_in_records

    def grid(heading):
        cards = "".join(
            f'<div class="m"><h4>{name}</h4><p>{title}</p></div>'
            for name, title in (("Ana Ruiz", "Designer"), ("Li Wei", "Developer"),
                                ("Tom Berg", "Product Manager"))
        )  # fmt: skip
        return f"<html><body><main><h2>{heading}</h2><div>{cards}</div></main></body></html>"

    for heading in ("Nos membres", "Our speakers", "Meet the community", "Unsere Kunden"):
        assert people_in_records(grid(heading), "https://acme.example/", set(), True) == []
    for heading in ("Team members", "Les membres de l'équipe", "Our people"):
        found = people_in_records(grid(heading), "https://acme.example/", set(), True)
        assert [name for name, _title in found] == ["Ana Ruiz", "Li Wei", "Tom Berg"]


def test_job_titles_in_more_languages():
    from ci_service.pipeline.people.text import clean_name, clean_title

    for title in ("Tandarts", "Oprichter", "Medgrundare & VD", "Amministratore delegato",
                  "Daglig leder", "Założyciel"):  # fmt: skip
        assert clean_title(title) == title
    assert clean_title("Chef") is None  # a cook as often as a boss
    assert clean_name("Daglig Leder") is None  # a title is no person's name


def test_a_services_menus_entries_are_offerings_when_their_pages_are_headed_by_them():
    from ci_service.pipeline.products.extract import extract_products
    from ci_service.pipeline.site import SiteSnapshot

    entries = (("Rent A Car", "/services/rent-a-car/"),
               ("Chauffeur Service", "/services/chauffeur/"),
               ("Airport Parking", "/services/parking/"))  # fmt: skip
    menu = "".join(
        f'<button role="menuitem" class="dropdown-item"><a href="{u}">{n}</a></button>'
        for n, u in entries
    )
    nav = (
        '<nav><ul><li class="dropdown nav-item"><a href="#" class="dropdown-toggle">Services</a>'
        f'<div role="menu" class="dropdown-menu">{menu}</div></li></ul></nav>'
    )
    home = site_page(
        "/", f"<html><body>{nav}<main><h1>Acme Rentals</h1><p>Cars.</p></main></body></html>",
        kind="home", depth=0,
    )  # fmt: skip
    headings = {"Rent A Car": "Rent A Car", "Chauffeur Service": "Chauffeur Service",
                "Airport Parking": "Park with us"}  # fmt: skip
    pages = [
        site_page(
            u,
            f"<html><body><main><h1>{headings[n]}</h1><p>We offer this to every "
            f"customer of ours across the whole country.</p></main></body></html>",
            kind="product",
            title=headings[n],
        )
        for n, u in entries
    ]
    found = [
        d.name for d in extract_products(SiteSnapshot("https://acme.example/", [home, *pages]))
    ]
    assert "Rent A Car" in found and "Chauffeur Service" in found
    assert "Airport Parking" not in found  # its page is headed by something else
