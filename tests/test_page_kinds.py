"""Page kinds from content (``pipeline.page_kinds``): small pages of our own making, in the
layouts real sites use, with URLs and menu labels that do not give the kind away."""

from __future__ import annotations

import pytest

from ci_service.intel.extract import extract_html
from ci_service.pipeline import page_kinds
from ci_service.pipeline.page_kinds import classify, title_kind
from ci_service.pipeline.site import SitePage
from ci_service.store.intel import PAGE_KINDS

BASE = "https://example.test"
NAV = """<header><nav><a href="/">Home</a><a href="/what-we-do">What we do</a>
<a href="/crew">Crew</a><a href="/say-hello">Say hello</a></nav>
<form role="search" action="/"><input type="search" name="s"></form></header>"""
FOOTER = "<footer><p>© 2024 Example Ltd</p><a href='/fine-print'>Fine print</a></footer>"


def page(path: str, body: str, title: str = "Example") -> SitePage:
    html = (
        f"<html><head><title>{title}</title></head>"
        f"<body>{NAV}<main>{body}</main>{FOOTER}</body></html>"
    )
    extracted = extract_html(html, BASE + path)
    return SitePage(
        url=BASE + path,
        title=extracted.title,
        description=extracted.description,
        text=extracted.text,
        sections=[(s.heading, s.level, s.text) for s in extracted.sections],
        json_ld=list(extracted.json_ld),
        links=[(link.url, link.text) for link in extracted.links],
        html=html,
    )


LOREM = (
    "We build tools that help small teams answer their customers faster, with fewer "
    "handoffs and less copying between systems. "
)

PRICING_CARDS = """<h1>Simple, fair plans</h1>
<div class="card"><h3>Starter</h3><p>$0 / month</p><ul><li>1 seat</li></ul></div>
<div class="card"><h3>Growth</h3><p>$29 per user / month, billed annually</p></div>
<div class="card"><h3>Scale</h3><p>$79 per user / month</p></div>
<div class="card"><h3>Enterprise</h3><p>Contact sales</p></div>"""

TEAM_CARDS = """<h1>The people behind it</h1>
<div><h3>Jane Holloway</h3><p>Chief Executive Officer</p><p>Jane ran shops.</p></div>
<div><h3>Omar Reyes</h3><p>Chief Technology Officer</p><p>Omar wrote compilers.</p></div>
<div><h3>Lena Fischer</h3><p>VP Marketing</p><p>Lena ran growth at two startups.</p></div>
<div><h3>Tom Baker</h3><p>Head of Design</p><p>Tom draws.</p></div>"""

LEGAL = "<h1>Fine print</h1>" + "".join(
    f"<p>{n}. The licensee shall not disclose personal data to third parties except pursuant "
    "to this agreement. Our liability is limited; the governing law is that of the "
    "jurisdiction named below, and any dispute goes to arbitration. You consent to cookies "
    "where the law requires consent, and either party may terminate this agreement.</p>"
    for n in range(1, 8)
)

POST = """<article><h1>We opened a second office</h1>
<p class="meta">Posted on <time datetime="2024-03-05">March 5, 2024</time> by Jane</p>
<p>{lorem}</p><p>{lorem}</p><p>Prices for the new region start at $10 per month.</p></article>
""".format(lorem=LOREM * 2)

NEWS_LIST = f"""<h1>Latest</h1>
<article><h2><a href="/latest/one">First thing we shipped</a></h2><time>Jan 2, 2024</time>
<p>{LOREM}</p></article>
<article><h2><a href="/latest/two">Second thing we shipped</a></h2><time>Feb 3, 2024</time>
<p>{LOREM}</p></article>
<article><h2><a href="/latest/three">Third thing we shipped</a></h2><time>Mar 4, 2024</time>
<p>{LOREM}</p></article>
<article><h2><a href="/latest/four">Fourth thing we shipped</a></h2><time>Apr 5, 2024</time>
<p>{LOREM}</p></article>"""

PRESS_PARAGRAPHS = "<h1>In the media</h1>" + "".join(
    f'<p><a href="/files/release-{n}.pdf">Example Ltd announces milestone number {n}</a><br>'
    f"<span>June {n + 1}, 2023</span><br>Example Ltd today announced something new.</p>"
    for n in range(1, 7)
)

CONTACT = """<h1>Say hello</h1><p>Write to hello@example.test or call +1 415 555 0100.</p>
<address>Example Ltd<br>1200 Harbor Street, Suite 400<br>Springfield, OR 97477</address>
<form action="/send"><input type="email" name="email"><textarea name="message"></textarea>
<button>Send</button></form>"""

SIGN_IN = """<h1>Sign in</h1><form action="/session"><input type="email" name="email">
<input type="password" name="password"><button>Sign in</button></form>"""

FEATURES = f"""<h1>What we do</h1><p>{LOREM}</p>
<h2>Ticket routing</h2><p>Every request goes to the right person, automatically.</p>
<h2>Shared inbox</h2><p>One inbox for the whole team, with assignment and notes.</p>
<h2>Reports</h2><p>See response times and satisfaction by team and by channel.</p>
<a href="/signup">Start free</a>"""

JOB = f"""<h1>Senior Backend Engineer</h1><p>{LOREM}</p><h2>What you'll do</h2><p>Build APIs.</p>
<h2>Requirements</h2><p>Five years of Python.</p><h2>Benefits</h2><p>Remote, full-time.</p>
<p>How to apply: send your CV.</p>"""

SERBIAN_PRICING = """<h1>Cenovnik</h1>
<div><h3>Start</h3><p>0 € mesečno</p></div>
<div><h3>Tim</h3><p>19,99 € mesečno po korisniku</p></div>
<div><h3>Biznis</h3><p>49,99 € mesečno po korisniku</p></div>"""


@pytest.mark.parametrize(
    ("path", "title", "body", "kind"),
    [
        ("/what-it-costs", "What it costs | Example", PRICING_CARDS, page_kinds.PRICING),
        ("/crew", "Crew | Example", TEAM_CARDS, page_kinds.TEAM),
        ("/fine-print", "Fine print | Example", LEGAL, page_kinds.LEGAL),
        ("/privacy", "Privacy Policy | Example", "<h1>Privacy Policy</h1><p>Short.</p>", "legal"),
        ("/journal/second-office", "We opened a second office", POST, page_kinds.POST),
        ("/latest", "Latest | Example", NEWS_LIST, page_kinds.NEWS_LIST),
        ("/media", "In the media | Example", PRESS_PARAGRAPHS, page_kinds.NEWS_LIST),
        ("/say-hello", "Say hello | Example", CONTACT, page_kinds.CONTACT),
        ("/session/new", "Sign in | Example", SIGN_IN, page_kinds.UTILITY),
        ("/thanks", "Thank you! | Example", "<h1>Thank you!</h1><p>We got it.</p>", "utility"),
        ("/what-we-do", "What we do | Example", FEATURES, page_kinds.PRODUCT),
        ("/work-here/backend", "Senior Backend Engineer", JOB, page_kinds.CAREERS),
        ("/journal/2021/11/", "November 2021 | Example", NEWS_LIST, page_kinds.ARCHIVE),
        ("/journal/topic/releases/", "Releases | Example", NEWS_LIST, page_kinds.ARCHIVE),
        ("/cenovnik", "Cenovnik | Primer", SERBIAN_PRICING, page_kinds.PRICING),
        ("/o-nama", "O nama | Primer", f"<h1>O nama</h1><p>{LOREM}</p>", page_kinds.ABOUT),
        ("/datenschutz", "Datenschutz | Beispiel", "<h1>Datenschutz</h1><p>Kurz.</p>", "legal"),
    ],
)
def test_a_page_is_classified_by_what_it_contains(path, title, body, kind):
    assert classify(page(path, body, title)) == kind


def test_the_root_is_home_and_a_feed_saved_as_html_is_an_archive():
    assert classify(page("/", FEATURES, "Example | Tools for teams")) == page_kinds.HOME
    feed = page("/journal/feed/", "", "")
    feed.html = '<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>'
    assert classify(feed) == page_kinds.ARCHIVE


def test_a_dated_post_about_prices_or_people_is_still_a_post():
    about_prices = POST.replace("We opened a second office", "Our plans, explained") + (
        "<p>Starter is $0 per month, Growth $29 per user per month, Scale $79 per month.</p>"
    )
    assert classify(page("/journal/plans-explained", about_prices)) == page_kinds.POST


def test_a_template_date_on_every_page_does_not_make_a_post():
    stamped = FEATURES.replace(
        "<h1>", '<meta property="article:published_time" content="2014-08-07"><h1>'
    )
    assert classify(page("/what-we-do", stamped, "What we do | Example")) == page_kinds.PRODUCT


def test_title_kind_names_legal_utility_and_date_archives_only():
    assert title_kind("Privacy Policy | Example") == page_kinds.LEGAL
    assert title_kind("9 November 2020") == page_kinds.ARCHIVE
    assert title_kind("Thank-you!") == page_kinds.UTILITY
    assert title_kind("We raised a seed round") == ""


def test_kinds_are_the_stored_kinds():
    names = [
        getattr(page_kinds, n) for n in dir(page_kinds) if n.isupper() and n.islower() is False
    ]
    constants = {v for v in names if isinstance(v, str)}
    assert constants <= set(PAGE_KINDS)
    assert page_kinds.KINDS == PAGE_KINDS


def test_a_calendar_of_dated_events_is_not_news():
    events = "<h1>Where to meet us</h1>" + "".join(
        f"<article><h2><a href='/meet/{n}'>Trade fair number {n}</a></h2>"
        f"<time>May {n}, 2024</time><p>{LOREM}</p></article>"
        for n in range(1, 6)
    )
    kind = classify(page("/meet", events, "Where to meet us | Example"))
    assert kind not in page_kinds.NEWS_KINDS


def test_a_news_word_inside_a_longer_name_is_no_news_list():
    made = page(
        "/machines/press-brake-and-roll-bending/",
        "<h1>Press brake and roll bending</h1><p>Our servo-electric press brake bends sheets "
        "up to three metres long with a force of 1 000 kN.</p><table><tr><td>Bending force"
        "</td><td>1 000 kN</td></tr><tr><td>Working length</td><td>3 100 mm</td></tr></table>",
        "Press brake and roll bending",
    )
    assert classify(made) != "news-list"


def test_a_dated_legal_text_named_in_a_longer_title_is_legal():
    body = "<h1>Acme Online Platform Terms &amp; Conditions</h1><p>Effective Date: May 26, 2023</p>"
    body += "<p>Please read these terms carefully before using our website.</p>" * 20
    made = page("/tos/", body, "Acme Online Platform Terms & Conditions / Acme")
    assert classify(made) == "legal"


def test_a_page_called_blog_with_three_dated_entries_is_a_news_list():
    entries = " ".join(f"Post {n} about our product Nikolay 0{n} January 2021" for n in (7, 6, 5))
    made = page("/blog/", f"<p>Blog Let's talk more about us {entries}</p>", "Blog – Acme")
    assert classify(made) == "news-list"
