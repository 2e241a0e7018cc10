"""Team pages of any layout: repeated cards with the titles the page states, lists, tables,
definition lists, headings and paragraphs, one-line people, names and titles run together;
formal titles stated elsewhere on the site; no people from chrome, headlines, legal or
utility pages. All pages and people here are made up."""

import pytest

from ci_service.pipeline.people.extract import extract_people, snapshot_people
from ci_service.pipeline.people.text import card_title, clean_name, is_formal, split_person
from ci_service.pipeline.site import SitePage, SiteSnapshot

BASE = "https://example.test"


def page(path, html="", text=None, title="Team", kind=""):
    if text is None:
        from ci_service.intel.extract import extract_html

        text = extract_html(html, BASE + path).text
    made = SitePage(BASE + path, title, "", text, [], [], [])
    made.html, made.kind = html, kind
    return made


def people(made):
    return [(p.name, p.title) for p in extract_people(made)]


def card(name, title, bio="", links="<a>Twitter</a><a>LinkedIn</a>"):
    return f"""<div class="col"><div class="member"><img src="x.jpg">
      <div class="member-body"><h3 class="name">{name}</h3><p class="role">{title}</p>
      <p class="bio">{bio}</p><div class="social">{links}</div></div></div></div>"""


JOKE_CARDS = f"""<html><body><main><h2>Our crew</h2><div class="grid">
{card("Nora Vale", "Dragon Tamer #1 & CEO", "Nora bakes bread on weekends.")}
{card("Tomas Brill", "The Oracle", "Tomas reads minds for a living.")}
{card("Ines Paltrow", "Keeper of the Vault", "Ines keeps the servers up.")}
{card("Ravi Okafor", "Designer", "Ravi draws things.", "<a>Twitter</a>")}
{card("Lena Marsh", "Rocket Plumber", "Lena fixes rockets.")}
</div><h2>Our investors</h2><p>Funded by kind people.</p>
<div class="grid"><div class="investor-tile"><h3 class="name">Gil Harlow</h3>
  <p class="role">Example Angel Fund</p><div class="social"><a>Twitter</a></div></div>
<div class="investor-tile"><h3 class="name">Pia Sund</h3>
  <p class="role">Sample Venture Partners</p></div></div>
<div class="alumni"><h3 class="name">Nora Vale</h3><div class="social"><a>Twitter</a></div>
  <h3 class="name">Owen Quist</h3><div class="social"><a>LinkedIn</a></div></div>
</main></body></html>"""


def test_repeated_cards_keep_the_titles_the_page_states():
    assert people(page("/our-crew/", JOKE_CARDS)) == [
        ("Nora Vale", "Dragon Tamer #1 & CEO"),
        ("Tomas Brill", "The Oracle"),
        ("Ines Paltrow", "Keeper of the Vault"),
        ("Ravi Okafor", "Designer"),
        ("Lena Marsh", "Rocket Plumber"),
    ]
    found = extract_people(page("/our-crew/", JOKE_CARDS))
    assert found[1].cite.quote == "Tomas Brill The Oracle"


def test_stated_titles_only_where_the_page_is_about_the_team():
    # The same cards on a product page: only a standard job title makes a person there.
    assert people(page("/features/", JOKE_CARDS, title="Features")) == [("Ravi Okafor", "Designer")]
    assert people(page("/x/", JOKE_CARDS, title="Home", kind="team"))[1] == (
        "Tomas Brill",
        "The Oracle",
    )


def test_list_items_with_department_titles_and_links():
    html = """<body><h2>The humans</h2><ul>
      <li><img alt="Ada Brune"><h3>Ada Brune</h3><h4>Product, Business &amp; Strategy</h4>
        <a href="#">GitHub</a> / <a href="#">Twitter</a></li>
      <li><img alt="Kai Lindqvist"><h3>Kai Lindqvist</h3><h4>Development</h4>
        <a href="#">GitHub</a></li>
      <li><img alt="Mo Duarte"><h3>Mo Duarte</h3><h4>Ops</h4><a href="#">Twitter</a></li>
    </ul></body>"""
    assert people(page("/about/", html, title="About")) == [
        ("Ada Brune", "Product, Business & Strategy"),
        ("Kai Lindqvist", "Development"),
        ("Mo Duarte", "Ops"),
    ]


def test_tables():
    html = """<body><h1>Leadership</h1><table>
      <tr><th>Name</th><th>Position</th><th>Based in</th></tr>
      <tr><td>Hana Vos</td><td>Chief Executive Officer</td><td>Lisbon</td></tr>
      <tr><td>Emil Sato</td><td>Head of Research</td><td>Oslo</td></tr>
      <tr><td>Zoe Adair</td><td>Chief Storyteller</td><td>Perth</td></tr></table></body>"""
    assert people(page("/leadership", html, title="Leadership")) == [
        ("Hana Vos", "Chief Executive Officer"),
        ("Emil Sato", "Head of Research"),
        ("Zoe Adair", "Chief Storyteller"),
    ]


def test_definition_list_with_stated_titles():
    html = """<body><h1>Our people</h1><dl>
      <dt>Lars Eberg</dt><dd>Master of Coin</dd>
      <dt>Mira Chen</dt><dd>Head of Design</dd>
      <dt>Juno Pratt</dt><dd>Bug Whisperer</dd></dl></body>"""
    assert people(page("/people", html)) == [
        ("Lars Eberg", "Master of Coin"),
        ("Mira Chen", "Head of Design"),
        ("Juno Pratt", "Bug Whisperer"),
    ]


def test_headings_and_paragraphs():
    html = """<body><h1>Team</h1>
      <h2>Ola Brandt</h2><p>Ola is our Chief Technology Officer. She wrote the first line.</p>
      <h2>Sami Ruiz</h2><p>Vice President of Sales</p><p>Sami sold boats before.</p>
      <h2>Tove Lind</h2><p>Tove Lind serves as Head of Customer Success at Example.</p>
      <h2>Our office</h2><p>We sit by the sea.</p></body>"""
    assert people(page("/team", html)) == [
        ("Ola Brandt", "Chief Technology Officer"),
        ("Sami Ruiz", "Vice President of Sales"),
        ("Tove Lind", "Head of Customer Success"),
    ]


def test_name_and_title_on_one_line():
    html = """<body><h1>Management</h1><ul><li>Jane Doe, CEO</li>
      <li>John Roe – Chief Financial Officer</li><li>Rita Moss - Head of Legal</li>
      <li>Dev Anand (Co-founder &amp; CTO)</li></ul></body>"""
    assert people(page("/management", html)) == [
        ("Jane Doe", "CEO"),
        ("John Roe", "Chief Financial Officer"),
        ("Rita Moss", "Head of Legal"),
        ("Dev Anand", "Co-founder & CTO"),
    ]


def test_name_and_title_run_together_are_kept_apart():
    text = "Our team\nJane DoeChief Executive Officer\nJohn RoeCTO\nAmy McLeanHead of Sales"
    found = extract_people(page("/team", text=text))
    assert [(p.name, p.title) for p in found] == [
        ("Jane Doe", "Chief Executive Officer"),
        ("John Roe", "CTO"),
        ("Amy McLean", "Head of Sales"),
    ]
    assert found[0].cite.quote == "Jane DoeChief Executive Officer"
    html = "<body><div class='m'><span>Jane Doe</span><span>Chief Executive Officer</span>"
    assert people(page("/team", html + "</div></body>", "Jane DoeChief Executive Officer")) == [
        ("Jane Doe", "Chief Executive Officer")
    ]
    assert clean_name("Jane DoeChief") is None and clean_name("Jane DoeWizard") is None
    assert clean_name("Martin McKeaveney") == "Martin McKeaveney"
    assert clean_name("Anna DeVries") == "Anna DeVries"
    # An organisation on a board ("Example County Health Board Member") is no person.
    assert clean_name("Example County Health") is None and clean_name("Sample Hospital") is None
    assert split_person("Jane DoeChief Wizard") == ("Jane Doe", "Chief Wizard")
    assert split_person("NewCo Appoints Jane Doe VP Sales") is None


def test_formal_title_elsewhere_beats_a_joke_title():
    team_html = f"""<body><h1>The team</h1>
      {card("Jane Doe", "Chief Wizard")}{card("John Roe", "The Oracle")}
      {card("Ann Lee", "Wizard #2 & CTO")}{card("Bo Tran", "Head Gardener")}</body>"""
    team = page("/team/", team_html)
    post = page(
        "/blog/2024/some-news/",
        text="Some news\nExample grows. “We are thrilled,” said Jane Doe, Co-Founder & "
        "Managing Director, at the event.\nJohn Roe, our Chief Oracle, agreed. Example "
        "co-founder Ann Lee spoke too.\nBo Tran, Head of Operations, left early.",
        title="Some news",
        kind="post",
    )
    legal = page("/privacy/", text="Privacy\nJohn Roe, Data Protection Officer", title="Privacy")
    found = {p.name: p for p in snapshot_people(SiteSnapshot(BASE, pages=[team, post, legal]))}
    jane = found["Jane Doe"]
    assert (jane.title, jane.founder) == ("Co-Founder & Managing Director", True)
    assert jane.cite.url == post.url and "Jane Doe, Co-Founder & Managing" in jane.cite.quote
    assert found["John Roe"].title == "The Oracle"  # nothing formal (legal pages never count)
    ann = found["Ann Lee"]
    assert (ann.title, ann.founder) == ("Wizard #2 & CTO", True)  # "co-founder" drops CTO
    assert found["Bo Tran"].title == "Head of Operations"
    assert set(found) == {"Jane Doe", "John Roe", "Ann Lee", "Bo Tran"}  # posts add nobody


def test_a_second_people_page_with_the_formal_title():
    joke = page("/team/", f"<body>{card('Jane Doe', 'Chief Wizard')}{card('Li Wei', 'CTO')}")
    board = page("/company/board/", text="Board\nJane Doe\nManaging Director", title="Board")
    found = {p.name: p.title for p in snapshot_people(SiteSnapshot(BASE, pages=[joke, board]))}
    assert found == {"Jane Doe": "Managing Director", "Li Wei": "CTO"}


CARDS = f"<body>{card('Jane Doe', 'The Oracle')}{card('John Roe', 'CEO')}</body>"


@pytest.mark.parametrize("kind", ["legal", "utility", "archive", "post", "news-list", "customer"])
def test_no_people_from_team_cards_on_a_page_of_another_kind(kind):
    assert people(page("/team/", CARDS, kind=kind)) == []


def test_no_people_from_headlines_chrome_legal_or_utility_pages():
    releases = """<body><h1>Press releases</h1>
      <p><a href="a.pdf">NewCo Appoints Jane Doe Vice President of Marketing</a><br>
      May 14, 2013<br>NewCo names Jane Doe to be VP of Marketing.</p>
      <p><a href="b.pdf">Example Names John Roe Chief Executive Officer</a></p></body>"""
    assert people(page("/team/press-releases/", releases, title="Press Releases")) == []
    on_team = page("/team/", text="Team\nExample Welcomes Jane Doe Chief Marketing Officer")
    assert people(on_team) == []
    assert people(page("/terms-of-service/", CARDS, title="Terms")) == []
    chrome = """<body><h1>Team</h1><div class="c"><h3>Read More</h3><p>Twitter LinkedIn</p></div>
      <div class="c"><h3>Jane Doe</h3><p>Twitter LinkedIn</p></div>
      <div class="c"><h3>John Roe</h3><p>Email me</p></div>
      <div class="c"><h3>Amy Wu</h3><p>March 3, 2021</p></div></body>"""
    assert people(page("/team/", chrome)) == []


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Keeper of the Vault", "Keeper of the Vault"),
        ("Dragon Tamer #1 & CEO", "Dragon Tamer #1 & CEO"),
        ("Example Angel Fund", None),
        ("Former EVP R&D at Globex", None),
        ("CMO/Founder, Sample Robotics", None),
        ("CEO of Globex", None),
        ("He also grows a respectable beard.", None),
        ("Twitter LinkedIn", None),
        ("Q: Who? A: Ines.", None),
        ("$2 million", None),
        ("Learn More", None),
        ("Berlin, Germany", None),
        ("Joined March 3", None),
    ],
)
def test_card_titles(text, title):
    assert card_title(text) == title


def test_formality():
    assert is_formal("Co-Founder & Managing Director") and is_formal("VP of Scientific Consulting")
    assert not is_formal("Chief Wizard") and not is_formal("Dragon Tamer #1 & CEO")
