"""Records that repeat on a page (``pipeline.records``), found from the markup alone."""

from __future__ import annotations

from ci_service.pipeline.records import record_sets

GRID = """<html><body>
<header><nav><ul><li><a href="/a">Product</a></li><li><a href="/b">Pricing</a></li>
<li><a href="/c">About</a></li></ul></nav></header>
<main>
<h1>Connectors</h1>
<div class="filters"><a class="chip active" href="/all">All (3)</a>
<a class="chip" href="/db">Databases (2)</a><a class="chip" href="/mail">Mail (1)</a></div>
<h2>Everything we connect to</h2>
<div class="grid">
  <a class="card card-1 aos-fade" href="/connectors/postgres/"><svg><style>.a{fill:red}</style>
  </svg><h3>PostgreSQL</h3><p>Sync rows from PostgreSQL.</p></a>
  <a class="card card-2" href="/connectors/mysql/"><h3>MySQL</h3><p>Sync rows from MySQL.</p></a>
  <a class="card card-3" href="/connectors/smtp/"><h3>SMTP</h3><p>Send mail.</p></a>
</div>
<h2>Trusted by</h2>
<ul class="logos"><li><img src="1.png" alt="Globex"></li><li><img src="2.png" alt="Initech">
</li><li><img src="3.png" alt="Umbrella"></li></ul>
<script>var cards = ["a", "b", "c"];</script>
</main>
<footer><ul><li>Imprint</li><li>Privacy</li><li>Terms</li></ul></footer>
</body></html>"""


def test_cards_logos_and_filters_are_sets_menus_and_footers_are_not():
    sets = record_sets(GRID, "https://acme.example/connectors/")
    by_heading = {(s.heading, s.tag): s for s in sets}
    cards = by_heading["Everything we connect to", "a"]
    assert [r.name for r in cards.records] == ["PostgreSQL", "MySQL", "SMTP"]
    assert cards.records[0].lines == ["Sync rows from PostgreSQL."]
    assert cards.records[0].link == "https://acme.example/connectors/postgres/"
    assert ".a{fill:red}" not in cards.records[0].text  # inline SVG style text is no text
    logos = by_heading["Trusted by", "li"]
    assert [r.name for r in logos.records] == ["Globex", "Initech", "Umbrella"]
    assert [r.name for r in by_heading["Connectors", "a"].records][0] == "All (3)"
    names = {r.name for s in sets for r in s.records}
    assert not names & {"Product", "Pricing", "About", "Imprint", "Privacy", "Terms"}


def test_prose_and_empty_markup_give_no_sets():
    prose = "<p>" + "A long sentence about the product. " * 40 + "</p>"
    html = f"<html><body><div>{prose}</div><div>{prose}</div><div>{prose}</div></body></html>"
    assert record_sets(html) == []
    assert record_sets("") == [] and record_sets("<html></html>") == []
