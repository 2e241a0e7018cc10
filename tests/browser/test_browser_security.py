"""In a real browser: crawled text is hostile. A competitor collected from a site full of
``<script>``, ``onerror=`` and ``javascript:`` links is shown with nothing running: no
``window.__pwned``, no dialog, no ``javascript:`` address anywhere in the DOM, no inline
script or handler, and the Content-Security-Policy on every page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.intel_support import FixtureServer

PAYLOAD = "<script>window.__pwned=1;alert('pwned')</script>"
TEXT_PAYLOAD = "&lt;script&gt;window.__pwned=2;alert(2)&lt;/script&gt;"  # text once parsed
IMG = '<img src=x onerror="window.__pwned=3;alert(3)">'


def page_html(title: str, body: str) -> bytes:
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>{title} {TEXT_PAYLOAD}</title>{PAYLOAD}</head>
<body><nav><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/about">About</a>
<a href="/blog/launch">Blog</a> <a href="javascript:window.__pwned=4;alert(4)">Free trial</a>
<a href="JaVaScRiPt:alert(5)">Docs</a></nav>
<main><h1>{title} {IMG}</h1>{body}</main>{PAYLOAD}</body></html>""".encode()


HOME = page_html(
    "Evil Corp",
    f"""<p>Evil Corp builds customer relationship software for sales teams of every size.
{TEXT_PAYLOAD} Our platform helps teams track deals, forecast revenue and automate
follow-ups. <a href="javascript:alert(6)">Start now</a></p>
<p>Founded in 2015, Evil Corp is headquartered in Springfield {IMG} and serves 4,000
customers. <svg onload="window.__pwned=7"></svg></p>
<iframe src="javascript:alert(8)"></iframe>""",
)
PRICING = page_html(
    "Pricing",
    f"""<h2>Team {TEXT_PAYLOAD}</h2><p>$49 per user / month. Pipeline, forecasting, email
sync.</p><h2>Enterprise</h2><p>Contact sales. SSO, audit log {IMG}.</p>""",
)
ABOUT = page_html(
    "About Evil Corp",
    f"""<p>Evil Corp was founded in 2015 by Jane Doe {TEXT_PAYLOAD}, chief executive
officer. The company is headquartered in Springfield and employs 120 people.</p>""",
)
LAUNCH = page_html(
    "Evil Corp launches Forecast AI",
    f"""<p><time datetime="2024-05-01">May 1, 2024</time> Evil Corp announced Forecast AI
{TEXT_PAYLOAD}, a new module that predicts revenue. <a href="javascript:alert(9)">Read
more</a></p>""",
)


@pytest.fixture(scope="module")
def hostile_site():
    server = FixtureServer()
    for path, body in (("/", HOME), ("/pricing", PRICING), ("/about", ABOUT)):
        server.routes[path] = lambda h, body=body: h.send(200, body)
    server.routes["/blog/launch"] = lambda h: h.send(200, LAUNCH)
    server.routes["/robots.txt"] = lambda h: h.send(200, b"User-agent: *\nAllow: /\n", "text/plain")
    with server:
        yield server


@pytest.fixture(scope="module")
def collected(live, hostile_site):
    """The hostile competitor, added through the API and collected by the live server."""
    competitor, job_id = live.add_competitor(f"Evil {PAYLOAD}", hostile_site.url("/"))
    items = live.api("GET", f"/api/intel?competitorId={competitor['id']}").json()["intelItems"]
    assert items, "the collect stored no intel"
    return {"competitor": competitor, "job_id": job_id, "items": items}


# What a page may contain: our own scripts only, no handler attributes, no javascript: URLs.
DOM_CHECK = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const value = attr.value.replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase();
      if (attr.name.startsWith('on')) bad.push(el.tagName + ' ' + attr.name);
      if (value.startsWith('javascript:') || value.startsWith('data:text/html'))
        bad.push(el.tagName + ' ' + attr.name + '=' + attr.value);
    }
  }
  for (const s of document.scripts) {
    if (!s.src || new URL(s.src).origin !== location.origin ||
        !new URL(s.src).pathname.startsWith('/static/'))
      bad.push('script ' + (s.src || s.textContent.slice(0, 60)));
  }
  for (const f of document.querySelectorAll('iframe, object, embed')) bad.push(f.tagName);
  return {bad: bad, pwned: typeof window.__pwned};
}"""


def assert_inert(tab, path: str, shot=None, name: str | None = None) -> None:
    response = tab.go(path)
    assert response.status == 200, f"{path}: {response.status}"
    csp = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in csp and "object-src 'none'" in csp, path
    tab.page.wait_for_timeout(150)  # any late handler would have fired by now
    found = tab.page.evaluate(DOM_CHECK)
    assert found == {"bad": [], "pwned": "undefined"}, f"{path}: {found}"
    assert tab.dialogs == [], f"{path}: {tab.dialogs}"
    violations = [m for m in tab.console if "Content Security Policy" in m]
    assert violations == [], f"{path}: something tried to run: {violations}"
    if shot is not None:
        shot(tab, name)


def test_a_hostile_competitor_runs_nothing(signed_in, collected, shot):
    competitor = collected["competitor"]
    assert_inert(signed_in, f"/competitors/{competitor['id']}", shot, "competitor-hostile")
    # shown as text, not run
    expect(signed_in.page.locator("main")).to_contain_text("<script>window.__pwned=1")
    for item in collected["items"][:6]:
        assert_inert(signed_in, f"/intel/{item['id']}")
    shot(signed_in, "intel-item-hostile")
    assert_inert(signed_in, "/")
    assert_inert(signed_in, f"/jobs/{collected['job_id']}")
    assert_inert(signed_in, "/search?q=Evil")
    assert_inert(signed_in, "/matrix")
    assert_inert(signed_in, "/graph")
    signed_in.page.locator("#graph-view").wait_for(state="visible")  # names drawn by script
    assert signed_in.page.evaluate("typeof window.__pwned") == "undefined"
    assert signed_in.errors == []


def test_our_own_scripts_and_styles_load(signed_in):
    """The CSP allows our assets: app.js defines window.ci and app.css styles the header."""
    signed_in.go("/settings")
    assert signed_in.page.evaluate("typeof window.ci") == "object"
    position = signed_in.page.locator("a.skip").evaluate("el => getComputedStyle(el).position")
    assert position == "absolute"
