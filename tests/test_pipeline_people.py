"""People from team/about/leadership pages and humans.txt, and PERSON graph nodes that carry
their title and the evidence that names them."""

from __future__ import annotations

import json

from ci_service.intel.errors import NetworkError
from ci_service.pipeline.people.extract import (
    extract_people,
    fetch_humans_txt,
    parse_humans_txt,
    people_pages,
    snapshot_people,
)
from ci_service.pipeline.site import SitePage, SiteSnapshot
from ci_service.services.collection.ingest import Target, ingest_snapshot
from ci_service.store.db import connection
from ci_service.store.graph import GraphNode
from tests.intel_helpers import competitor

BASE = "https://acme.example"


def page(path, html="", text=None, title="Team", json_ld=None):
    """A crawled page; ``text`` is what the crawler keeps of it (the stored evidence)."""
    if text is None:
        from ci_service.intel.extract import extract_html

        text = extract_html(html, BASE + path).text
    made = SitePage(BASE + path, title, "", text, [], json_ld or [], [])
    made.html = html  # the crawler's decoded HTML (SitePage.html)
    return made


def people(made, **kw):
    return [(p.name, p.title) for p in extract_people(made, **kw)]


CARDS = """<html><body>
<header><nav><a href="/">Home</a><a href="/pricing">Pricing</a></nav>
  <a class="btn">Get Started</a></header>
<main><h1>The people of Acme</h1>
<div class="people">
  <div class="person"><img src="a.jpg" alt=""><div>
    <h3>Mike Shanks</h3><h5>CEO</h5>
    <p>Mike co-founded Acme in 2019. Before that he built software for banks.</p></div></div>
  <div class="person"><h3>Joe Johnston</h3><h5>CGO</h5>
    <p>Previously, Joe led marketing at a number of SMEs in the tech sector.</p></div>
  <div class="person"><h3>Kevin Åberg Kultalahti</h3><h5>Software Engineer</h5>
    <p>Kevin hosts a podcast.</p></div>
</div></main>
<footer><p>Acme Cloud</p><p>Enterprise</p></footer></body></html>"""
CARDS_TEXT = """The people of Acme
Mike Shanks
CEO
Mike co-founded Acme in 2019. Before that he built software for banks.
Joe Johnston
CGO
Previously, Joe led marketing at a number of SMEs in the tech sector.
Kevin Åberg Kultalahti
Software Engineer
Kevin hosts a podcast."""


def test_cards_name_then_title_with_founder_and_cites():
    found = extract_people(page("/people/", CARDS, CARDS_TEXT))
    assert [(p.name, p.title, p.founder) for p in found] == [
        ("Mike Shanks", "CEO", True),
        ("Joe Johnston", "CGO", False),
        ("Kevin Åberg Kultalahti", "Software Engineer", False),
    ]
    assert found[0].cite.url == BASE + "/people/"
    assert found[0].cite.quote == "Mike Shanks CEO"  # two lines of the text, joined
    assert all(p.source == "page" for p in found)


def test_cards_from_html_alone_and_inline_spans():
    html = """<body><section><h2>Meet the team</h2>
      <div class="card"><span class="name">Jane Doe</span>
        <span class="role">Head of Product</span></div>
      <div class="card"><strong>Li Wei</strong><br>Vice President, Engineering</div>
    </section></body>"""
    made = page("/about/team", html, "Meet the team")
    assert people(made) == [
        ("Jane Doe", "Head of Product"),
        ("Li Wei", "Vice President, Engineering"),
    ]


def test_one_line_layouts():
    text = """Leadership
Jane Doe, Chief Executive Officer
John Smith - CTO
Mary-Ann O'Neil | VP of Sales
Pieter van der Berg (Chairman)
Alan Bennett VP Engineering
Sam Taylor — Co-founder & COO
Dr. Ana García: General Counsel
Jiří Novák - Head of Production
Dana Reyes: PT, DPT · Owner & Founder
Lee Moss - Physical Therapist"""
    assert people(page("/leadership", text=text)) == [
        ("Jane Doe", "Chief Executive Officer"),
        ("John Smith", "CTO"),
        ("Mary-Ann O'Neil", "VP of Sales"),
        ("Pieter van der Berg", "Chairman"),
        ("Alan Bennett", "VP Engineering"),
        ("Sam Taylor", "Co-founder & COO"),
        ("Ana García", "General Counsel"),
        ("Jiří Novák", "Head of Production"),
        ("Dana Reyes", "Owner & Founder"),
        ("Lee Moss", "Physical Therapist"),
    ]
    assert extract_people(page("/leadership", text=text))[5].founder


def test_definition_list():
    html = """<body><h1>Board of directors</h1><dl>
      <dt>Jane Doe</dt><dd>Chair of the Board</dd>
      <dt>Omar Haddad</dt><dd>Independent Director</dd>
      <dt>Opening hours</dt><dd>9am to 5pm</dd></dl></body>"""
    text = "Board of directors\nJane Doe\nChair of the Board\nOmar Haddad\nIndependent Director"
    found = extract_people(page("/company/board", html, text))
    assert [(p.name, p.title) for p in found] == [
        ("Jane Doe", "Chair of the Board"),
        ("Omar Haddad", "Independent Director"),
    ]
    assert found[1].cite.quote == "Omar Haddad Independent Director"


def test_all_caps_heading_then_pairs():
    html = """<body><h2>OUR MANAGEMENT TEAM</h2><ul>
      <li><img src="i.png"><h3>IAN DREW</h3><h4>Chairman</h4></li>
      <li><h3>GEORGE GREY</h3><h4>CEO</h4></li>
      <li><h3>ROBERT BOOTH</h3><h4>COO</h4></li></ul>
      <h2>COMMUNITY AND SUPPORT</h2><p>Our engineers work upstream.</p></body>"""
    text = "OUR MANAGEMENT TEAM\nIAN DREW Chairman\nGEORGE GREY CEO\nROBERT BOOTH COO"
    found = extract_people(page("/company/", html, text, title="Company"))
    assert [(p.name, p.title) for p in found] == [
        ("Ian Drew", "Chairman"),
        ("George Grey", "CEO"),
        ("Robert Booth", "COO"),
    ]
    assert found[0].cite.quote == "IAN DREW Chairman"  # verbatim from the text


def test_json_ld_people_founders_not_authors():
    json_ld = [
        {
            "@type": "Organization",
            "name": "Acme",
            "founder": [{"@type": "Person", "name": "Rosa Diaz"}],
            "employee": [{"@type": "Person", "name": "Lee Wong", "jobTitle": "CFO"}],
        },
        {"@type": "BlogPosting", "author": {"@type": "Person", "name": "Blog Writer"}},
        {"@type": "Person", "name": "Ann Author"},  # no job title: not a team member
    ]
    found = extract_people(page("/about", text="About Acme\nLee Wong, CFO", json_ld=json_ld))
    by_name = {p.name: p for p in found}
    assert set(by_name) == {"Lee Wong", "Rosa Diaz"}
    assert by_name["Rosa Diaz"].founder and by_name["Rosa Diaz"].source == "json-ld"
    assert by_name["Lee Wong"].source == "page"  # the text states it too


def test_not_people():
    text = """Get Started
CEO
Contact Sales - Director
Acme Cloud
Enterprise Edition
Pricing, Plans
Before Acme, Mike worked as an engineer for many companies in Belfast.
New York
Office Manager
Senior JavaScript Engineer
Meet Our Team
Engineering"""
    nav = """<body><nav><a>Jane Doe</a></nav><p>Cloud Platform</p><p>Lead Architect</p></body>"""
    made = page("/team", nav, text)
    made.nav_links = [(BASE + "/jane", "Ada Lovelace", "Menu")]
    made.text += "\nAda Lovelace\nFounder"
    assert people(made) == []
    assert people(page("/team", text="Acme Analytics\nEngineer"), exclude=["Acme Analytics"]) == []


def test_testimonials_are_not_leadership():
    html = """<body><h1>Our team</h1>
      <blockquote>Acme saved us weeks. <cite>Jane Smith, CTO</cite></blockquote>
      <div class="testimonial-card"><p>Great tool</p><p>Tom Baker</p><p>CEO</p></div>
      <h3>Real Person</h3><p>Founder</p></body>"""
    text = """Our team
“Acme saved us weeks.”
Bob Stone, CEO
Real Person
Founder
— Jane Smith, customer
- Pat Kim, CTO
Lisa Ray, CTO at Globex
Omar Aziz
CTO, Globex Corp"""
    found = people(page("/team", html, text))
    assert found == [("Real Person", "Founder")]


def test_people_pages_by_url_title_and_cards():
    team = page("/company/leadership/", text="Jane Doe, CEO", title="Leadership")
    cards = page("/investors-relations", text="Jane Doe\nCEO\nJohn Roe\nCFO", title="IR")
    one = page("/pricing", text="Jane Doe\nCEO", title="Pricing")
    post = page("/blog/meet-the-team", text="Jane Doe\nCEO\nJohn Roe\nCFO", title="Meet the team")
    tags = page("/tags/team/", text="Jane Doe\nCEO\nJohn Roe\nCFO", title="Team")
    snapshot = SiteSnapshot(BASE + "/", pages=[one, post, cards, team, tags])
    assert people_pages(snapshot) == [team, cards]


HUMANS = """/* TEAM */
    CEO: Jane Doe.
    Site: https://acme.example
    Twitter: @janedoe
    Location: Belfast, UK

    Founder & CTO: John Roe (john [at] acme.example)
    Chef: Juanjo Bernabeu

    Name: Priya Patel
    Title: Lead Designer
    Contact: priya@acme.example

/* SITE */
    Last update: 2024/01/01
    Standards: HTML5, CSS3
"""


def test_humans_txt():
    found = parse_humans_txt(HUMANS, BASE + "/humans.txt")
    assert [(p.name, p.title, p.founder) for p in found] == [
        ("Jane Doe", "CEO", False),
        ("John Roe", "Founder & CTO", True),
        ("Priya Patel", "Lead Designer", False),
    ]
    assert found[0].cite.quote == "CEO: Jane Doe."
    assert found[2].cite.quote == "Name: Priya Patel Title: Lead Designer"
    assert all(p.source == "humans.txt" for p in found)


class FakeResult:
    def __init__(self, status, body, content_type, url):
        self.status, self.content, self.url = status, body.encode(), url
        self.content_type = content_type

    @property
    def ok(self):
        return 200 <= self.status < 300

    @property
    def text(self):
        return self.content.decode()


class FakeFetcher:
    """Answers like the guarded Fetcher (any status returned, errors raised)."""

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def get(self, url, **kw):
        self.asked.append(url)
        if isinstance(self.answer, Exception):
            raise self.answer
        status, body, kind = self.answer
        return FakeResult(status, body, kind, url)


def test_fetch_humans_txt_through_the_fetcher():
    fetcher = FakeFetcher((200, HUMANS, "text/plain"))
    assert fetch_humans_txt(fetcher, BASE + "/products/x?y=1") == (BASE + "/humans.txt", HUMANS)
    assert fetcher.asked == [BASE + "/humans.txt"]
    assert fetch_humans_txt(FakeFetcher((404, "Not found", "text/plain")), BASE) is None
    home = "<!doctype html><html><title>Acme</title></html>"
    assert fetch_humans_txt(FakeFetcher((200, home, "text/html")), BASE) is None
    assert fetch_humans_txt(FakeFetcher((200, home, "text/plain")), BASE) is None
    assert fetch_humans_txt(FakeFetcher((200, "just words", "text/plain")), BASE) is None
    assert fetch_humans_txt(FakeFetcher(NetworkError("down", BASE)), BASE) is None


def test_snapshot_people_merges_pages_and_humans_txt():
    about = page("/about", text="About us\nJane Doe, CEO", title="About")
    team = page("/team", text="Jane Doe\nCEO and Co-founder\nLi Wei\nCTO", title="Team")
    snapshot = SiteSnapshot(BASE + "/", pages=[about, team])
    snapshot.humans_txt = (BASE + "/humans.txt", "CTO: Li Wei\nDesigner: Ola Nordmann")
    found = {p.name: p for p in snapshot_people(snapshot)}
    assert set(found) == {"Jane Doe", "Li Wei", "Ola Nordmann"}
    assert found["Jane Doe"].founder  # the team page says co-founder
    assert found["Li Wei"].source == "page" and found["Ola Nordmann"].source == "humans.txt"


# -- graph: PERSON nodes with their title and evidence ----------------------------------------


def person_nodes(workspace_id):
    with connection():
        rows = GraphNode.select().where(
            GraphNode.workspace == workspace_id, GraphNode.label == "PERSON"
        )
        return {row.name: row.properties for row in rows}


def team_snapshot(text, json_ld=None):
    team = page("/people/", CARDS, text, title="People", json_ld=json_ld)
    return SiteSnapshot(BASE + "/", pages=[team])


def test_person_nodes_carry_title_and_evidence_in_the_graph_api(api):
    rival = competitor(api.workspace_id, "Acme", BASE)
    target = Target(api.workspace_id, "competitor", rival.id)
    json_ld = [{"@type": "Person", "name": "Nia Long", "jobTitle": "Board Member"}]
    with connection():
        result = ingest_snapshot(target, team_snapshot(CARDS_TEXT, json_ld))
    assert result["graph"]["people"] == 4
    nodes = person_nodes(api.workspace_id)
    assert set(nodes) == {
        "Mike Shanks (CEO)",
        "Joe Johnston (CGO)",
        "Kevin Åberg Kultalahti (Software Engineer)",
        "Nia Long (Board Member)",
    }
    item_id = result["sources"].evidence_id(BASE + "/people/")
    mike = nodes["Mike Shanks (CEO)"]
    assert mike["title"] == "CEO" and mike["founder"] is True
    assert mike["evidenceIds"] == [item_id]
    assert mike["quotes"][0]["quote"] == "Mike Shanks CEO"
    assert mike["quotes"][0]["url"] == BASE + "/people/#:~:text=Mike%20Shanks%20CEO"
    assert "evidenceIds" not in nodes["Nia Long (Board Member)"]  # JSON-LD only: no quote

    response = api.get("/api/knowledge-graph")
    assert response.status_code == 200
    data = {n["data"]["name"]: n["data"] for n in response.json["elements"]["nodes"]}
    shown = data["Mike Shanks (CEO)"]
    assert shown["label"] == "PERSON" and shown["color"] and shown["id"]
    assert shown["title"] == "CEO" and shown["founder"] is True
    assert shown["evidenceIds"] == [item_id]
    assert shown["quotes"][0]["evidenceId"] == item_id
    assert data["Nia Long (Board Member)"]["title"] == "Board Member"
    assert "title" not in data["Acme"]  # nodes without properties keep the old shape

    from ci_service.web.routes.knowledge_graph import GraphSchema

    assert GraphSchema().validate(response.json) == {}


def test_recollection_updates_people_in_place_and_drops_unquoted_ones(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "Acme", BASE)
    target = Target(ws.id, "competitor", rival.id)
    with connection():
        ingest_snapshot(target, team_snapshot(CARDS_TEXT))
        ingest_snapshot(target, team_snapshot(CARDS_TEXT))
    assert len(person_nodes(ws.id)) == 3

    promoted = CARDS_TEXT.replace("Joe Johnston\nCGO", "Joe Johnston\nCOO")
    html = CARDS.replace("<h5>CGO</h5>", "<h5>COO</h5>")
    snapshot = SiteSnapshot(BASE + "/", pages=[page("/people/", html, promoted, "People")])
    with connection():
        ingest_snapshot(target, snapshot)
    nodes = person_nodes(ws.id)
    assert len(nodes) == 3  # still one node per person
    assert nodes["Joe Johnston (COO)"]["title"] == "COO"
    assert nodes["Joe Johnston (COO)"]["quotes"][0]["quote"] == "Joe Johnston COO"

    # Names only in the HTML (the stored text lost them): no checkable quote, not linked.
    other = make_workspace()
    rival = competitor(other.id, "Acme", BASE)
    bare = SiteSnapshot(BASE + "/", pages=[page("/people/", CARDS, "Our people", "People")])
    with connection():
        counts = ingest_snapshot(Target(other.id, "competitor", rival.id), bare)["graph"]
    assert counts["people"] == 0 and person_nodes(other.id) == {}


def test_graph_node_properties_migration_adds_the_column(tmp_path):
    from peewee import SqliteDatabase

    from ci_service.store.schema import add_graph_node_properties

    db = SqliteDatabase(str(tmp_path / "old.db"))
    db.execute_sql("CREATE TABLE graph_node (id TEXT PRIMARY KEY, name TEXT NOT NULL)")
    db.execute_sql("INSERT INTO graph_node VALUES ('n1', 'Jane Doe')")
    with db.atomic():
        add_graph_node_properties(db)
        add_graph_node_properties(db)  # idempotent: the column exists now
    columns = {c.name: c for c in db.get_columns("graph_node")}
    assert "properties" in columns and not columns["properties"].null
    value = db.execute_sql("SELECT properties FROM graph_node").fetchone()[0]
    assert json.loads(value) == {}


def test_post_author_boxes_that_give_a_job_at_the_company():
    def post(path, author, line, title="A post | Zentro"):
        made = page(path, text=f"A post\n{author}\n{line}\n3 March 2021\nBody text.", title=title)
        made.kind = "post"
        return made

    snapshot = SiteSnapshot(
        BASE + "/",
        [
            post("/blog/a/", "Jana Novak", "Founder & CEO @zentro"),
            post("/blog/b/", "Tomas Berg", "Entwickler bei Zentro"),
            post("/blog/c/", "Guest Writer", "Editor at Example Weekly"),
            post("/blog/d/", "Ana Silva", "Loves hiking @zentro"),
        ],
    )
    found = {(p.name, p.title, p.founder) for p in snapshot_people(snapshot)}
    assert found == {("Jana Novak", "Founder & CEO", True), ("Tomas Berg", "Entwickler", False)}
