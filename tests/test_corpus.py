"""The development corpus (``bench/corpus``): its manifest and facts files are whole, the
tuning/check split is the fixed rule on the host, the local server maps a site's own host to
loopback, facts score found and wrong values, and no corpus or shared site's name, host,
path or wording appears in the package."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import httpx
import pytest

from bench.corpus import build as corpus_build
from bench.corpus.facts import SiteFacts, load_facts, number, to_fact, trap_patterns
from bench.corpus.manifest import Site, load_sites
from bench.corpus.serve import serve_site
from bench.corpus.split import CHECK, TUNING, group_of, normal_host
from bench.quality import Record

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "ci_service"
SITES = load_sites()


def test_the_corpus_is_big_and_varied_enough():
    """At least 24 sites besides the six shared ones, about a third of them check sites,
    of several languages, industries and generators."""
    count = len(SITES)
    assert count >= 24
    checks = sum(1 for s in SITES if s.group == CHECK)
    assert checks >= 6
    assert len({s.language for s in SITES if s.language != "en"}) >= 4
    assert sum(1 for s in SITES if s.language != "en") >= 8
    assert len({s.industry for s in SITES}) >= 8
    assert len({s.generator.split()[0].casefold() for s in SITES}) >= 6


@pytest.mark.parametrize("site", SITES, ids=lambda s: s.site)
def test_each_site_entry_is_whole_and_its_facts_compile(site):
    assert site.problems() == []
    facts = load_facts(site.facts_path)
    assert facts.site == site.site
    assert len(facts.facts) >= 5
    for fact in facts.facts:
        for pattern in fact.patterns:
            re.compile(pattern)
    for raw in facts.raw:
        assert raw.get("page"), raw
    for trap in facts.wrong:
        for pattern in trap_patterns(trap):
            re.compile(pattern)


def test_the_split_is_a_fixed_rule_on_the_host():
    assert normal_host("https://WWW.Example.com/pricing") == "example.com"
    # The rule's values for two hosts, computed once by hand from their SHA-256.
    assert group_of("example.com") == CHECK
    assert group_of("www.budibase.com") == group_of("budibase.com") == TUNING
    groups = [group_of(f"site{i}.example") for i in range(300)]
    assert 0.25 < groups.count(CHECK) / len(groups) < 0.42


def _distinctive_words() -> dict[str, str]:
    """Names, hosts, page paths and quoted sentences of every corpus and shared site."""
    words: dict[str, str] = {}
    for site in SITES:
        words[site.host] = site.site
        label = site.host.split(".")[0]
        if len(label) >= 6:
            words[label] = site.site
        facts = json.loads(site.facts_path.read_text(encoding="utf-8"))
        if len(facts.get("company", "")) >= 5:
            words[facts["company"]] = site.site
        for fact in facts.get("facts") or []:
            quote = " ".join(str(fact.get("quote", "")).split())
            if len(quote.split()) >= 4:
                words[quote] = site.site
            person = " ".join(str(fact.get("name") or "").split())
            if fact["kind"] == "people" and len(person.split()) >= 2:
                words[person] = site.site
            brand = str(fact.get("name") or "")
            if fact["kind"] == "products" and re.fullmatch(r"[A-Z][a-z]+[A-Z]\w+", brand):
                words[brand] = site.site  # "HotelNavigator": a product's own coined name
            leaf = str(fact.get("page", "")).strip("/").rsplit("/", 1)[-1]
            leaf = re.sub(r"\.html?$", "", leaf)
            if len(leaf) >= 16 and "-" in leaf:
                words[leaf] = site.site
    for name in ("budibase", "foundries.io", "qzzr", "privatecore", "riffyn", "devo.ps", "vcage"):
        words[name] = name
    return words


def test_no_site_name_host_path_or_wording_in_the_package():
    words = {w.casefold(): site for w, site in _distinctive_words().items()}
    hits = []
    for path in PACKAGE.rglob("*"):
        if not path.is_file() or path.suffix not in (
            ".py",
            ".html",
            ".j2",
            ".txt",
            ".json",
            ".js",
            ".css",
        ):
            continue
        text = " ".join(path.read_text(encoding="utf-8", errors="ignore").split()).casefold()
        for word in words:
            if word in text and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text):
                hits.append(f"{path.relative_to(REPO)}: {word!r}")
    assert hits == []


def _site(tmp_path: Path, name: str = "acme-test") -> Site:
    return Site(
        site=name,
        host="acme-test.example",
        hosts=("https://www.acme-test.example", "http://acme-test.example"),
        repo="owner/acme",
        commit="0" * 40,
        folder="public",
        group=group_of("acme-test.example"),
        generator="Hugo",
        industry="saas",
        language="en",
    )


def test_serve_maps_the_sites_host_to_loopback(tmp_path, monkeypatch):
    monkeypatch.setenv("CI_CORPUS_DIR", str(tmp_path))
    root = tmp_path / "acme-test"
    (root / "about").mkdir(parents=True)
    (root / "index.html").write_text(
        '<html><body><a href="https://www.acme-test.example/about/">About</a>'
        '<a href="//acme-test.example/pricing">Pricing</a>'
        '<a href="https://acme-test.example.org/">other</a>'
        '<script>{"u":"https:\\/\\/www.acme-test.example\\/x"}</script></body></html>'
    )
    (root / "about" / "index.html").write_text("<html><body>About us</body></html>")
    (root / "pricing.html").write_text("<html><body>Pro $9</body></html>")
    (root / "index.html?p=12").write_text("<html><body>Post twelve</body></html>")
    (tmp_path / "secret.html").write_text("outside")
    with serve_site(_site(tmp_path)) as base:
        home = httpx.get(base).text
        local = base.rstrip("/")
        assert f'href="{local}/about/"' in home
        assert f'href="{local}/pricing"' in home
        assert "https://acme-test.example.org/" in home  # another host is left alone
        assert local.replace("/", "\\/") not in home and f"{local}\\/x" in home
        assert httpx.get(base + "pricing").text.endswith("Pro $9</body></html>")
        moved = httpx.get(base + "about")
        assert moved.status_code == 301 and moved.headers["location"] == "/about/"
        assert "About us" in httpx.get(base + "about/").text
        assert "Post twelve" in httpx.get(base + "index.html?p=12").text
        assert httpx.get(base + "missing/").status_code == 404
        assert httpx.get(base + "..%2Fsecret.html").status_code == 404


def test_build_extracts_the_folder_at_its_commit(tmp_path, monkeypatch):
    repo = tmp_path / "work"
    (repo / "public" / "blog").mkdir(parents=True)
    (repo / "public" / "index.html").write_text("<html>home</html>")
    (repo / "public" / "blog" / "index.xml").write_text("<rss/>")
    (repo / "public" / "logo.png").write_bytes(b"\x89PNG")
    (repo / "README.md").write_text("not the site")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "site"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    mirrors = tmp_path / "mirrors" / "owner+acme"
    mirrors.mkdir(parents=True)
    (mirrors / "repo").symlink_to(repo / ".git")
    monkeypatch.setenv("CI_CORPUS_MIRRORS", str(tmp_path / "mirrors"))
    monkeypatch.setenv("CI_CORPUS_DIR", str(tmp_path / "copies"))
    site = _site(tmp_path).__class__(**{**_site(tmp_path).__dict__, "commit": commit.strip()})
    root = corpus_build.build_site(site)
    assert (root / "index.html").read_text() == "<html>home</html>"
    assert (root / "blog" / "index.xml").is_file()
    assert not (root / "logo.png").exists() and not (root / "README.md").exists()
    missing = site.__class__(**{**site.__dict__, "site": "other", "repo": "owner/absent"})
    with pytest.raises(corpus_build.SnapshotMissing, match="fetch github:owner/absent"):
        corpus_build.build_site(missing)


def test_prices_are_read_as_the_page_writes_them():
    assert number("1,000") == 1000 and number("1.000") == 1000
    assert number("9,90") == 9.9 and number("9.90") == 9.9 and number("1.234,50") == 1234.5
    fact = to_fact(
        {"kind": "prices", "plan": "Pro", "amount": "29", "currency": "EUR", "period": "month"}
    )
    plan = {"name": "Pro", "price": 29.0, "currency": "EUR", "period": "month"}
    assert fact.matches(Record("plan", f"X: {json.dumps(plan)}", True))
    plan["price"] = 290.0
    assert not fact.matches(Record("plan", f"X: {json.dumps(plan)}", True))


def test_facts_score_wrong_values():
    facts = SiteFacts(
        site="acme",
        company="Acme",
        raw=(
            raw := [
                {
                    "kind": "profile",
                    "field": "headquarters",
                    "value": "Zurich",
                    "match": "Z(u|ü)rich",
                },
                {"kind": "prices", "plan": "Pro", "amount": "29", "period": "month"},
                {"kind": "news", "title": "Acme 2 is here", "date": "2016-04-05"},
            ]
        ),
        facts=[to_fact(f) for f in raw],
        complete=("prices",),
        wrong=[{"kind": "people", "value": "Current Investors", "why": "a heading"}],
    )
    records = [
        Record("profile.headquarters", "Lyon", True),
        Record("plan", 'X: {"name": "Pro", "price": 29, "period": "month"}', True),
        Record("plan", 'X: {"name": "2 Week Free Trial", "price": 2, "period": null}', True),
        Record("event", "Acme 2 is here 2016-09-04", True),
        Record("person", "Current Investors ", True),
    ]
    wrong = facts.wrong_values(records)
    assert len(wrong) == 4, wrong
    assert any("Lyon" in w for w in wrong) and any("Trial" in w for w in wrong)
    assert any("2016-04-05" in w for w in wrong) and any("heading" in w for w in wrong)
    right = [Record("profile.headquarters", "Zürich, Switzerland", True), records[1]]
    assert facts.wrong_values(right) == []


def test_a_listed_person_in_other_words_is_not_a_wrong_value():
    from bench.corpus.facts import _titles_agree

    assert _titles_agree("CEO", "Chief Executive Officer")
    assert _titles_agree("O.D. — Founder", "O.D., Founder")
    assert _titles_agree("", "Designer") and _titles_agree("Designer", "")
    assert not _titles_agree("Head of Sales", "Chief Technology Officer")
    facts = SiteFacts(
        site="acme",
        company="Acme",
        raw=(raw := [{"kind": "people", "name": "Jane Roe", "title": "Chief Executive Officer"}]),
        facts=[to_fact(f) for f in raw],
        complete=("people",),
    )
    assert facts.wrong_values([Record("person", "Jane Roe (CEO) CEO", True)]) == []
    assert facts.wrong_values([Record("person", "Jane Roe (Intern) Intern", True)]) != []
    assert facts.wrong_values([Record("person", "John Doe (CEO) CEO", True)]) != []
