"""Signed-in browsers for page tests (not a test module).

``make_web(plan="ENTERPRISE", role="OWNER", workspace=None)`` (fixture in
``tests/conftest.py``) creates a person with a password in a workspace
and signs them in through the real sign-in form; it returns a :class:`WebClient` whose
``post_form`` sends the page's CSRF token, as a browser submitting the form would. Each
WebClient has its own cookie jar (its own Flask test client), so two people can be signed
in at once. ``web.api`` is an API key client of the same workspace, to seed data the way
REST does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PASSWORD = "correct horse battery"
CSRF = re.compile(r'name="csrf-token" content="([^"]+)"|name="csrf_token" value="([^"]+)"')


def csrf_of(html: str) -> str:
    match = CSRF.search(html)
    assert match, "the page carries no CSRF token"
    return match.group(1) or match.group(2)


@dataclass
class WebClient:
    client: object
    email: str
    workspace_id: str
    user_id: str
    api: object = None

    def get(self, path, **kw):
        return self.client.get(path, **kw)

    def csrf(self, path: str = "/") -> str:
        page = self.client.get(path)
        return csrf_of(page.get_data(as_text=True))

    def post_form(self, path, data=None, csrf_from: str | None = None, **kw):
        """POST a form with the CSRF token of ``csrf_from`` (default: the same path)."""
        token = self.csrf(csrf_from or path)
        return self.client.post(path, data={"csrf_token": token, **(data or {})}, **kw)

    def post_json(self, path, body=None, csrf_from: str = "/", **kw):
        """A script's request (app.js sendJson): JSON with the X-CSRF-Token header."""
        token = self.csrf(csrf_from)
        return self.client.post(path, json=body, headers={"X-CSRF-Token": token}, **kw)


def sign_in(client, email: str, password: str = PASSWORD, next_url: str = "/"):
    form = client.get("/signin")
    token = csrf_of(form.get_data(as_text=True))
    return client.post(
        "/signin",
        data={"csrf_token": token, "email": email, "password": password, "next": next_url},
    )
