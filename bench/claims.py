"""``python -m bench.claims``: are the battlecards' and the matrix's claims true?

For each real site with a hand-checked table (``bench/claims_tables/<site>.json``: our
features against the site, each "has", "lacks" or "soon" with the page that shows it), it
serves the site on loopback, creates our product with exactly the table's features (and a
per-user price), adds the site as a competitor, runs the collect job, generates the ATTACK
and DEFENSE cards and reads the matrix back through the REST API. Then it checks:

- **claims**: every item or matrix entry that says where a feature stands (``state``
  THEY_LACK, COMING_SOON, WE_LACK; matrix ``matched``, ``oursOnly``, ``soon``,
  ``theirsOnly``). A claim about one of our features is true when the table agrees
  (THEY_LACK: "lacks"; COMING_SOON: "soon"; matched: "has"), false when it disagrees.
  "We lack X" is false when X is one of our features (a table term of any row names it),
  else true;
- **unsupported**: items whose quote does not state the item's fact: a feature quote must
  name the feature (a table term, or the words of their feature's name), a denial must
  deny, a price quote must state an amount, any other quote must share two words with
  the item;
- **duplicates**: items (and kill shot, landmines) whose text repeats another's.

Prints one line per site and mode, then the totals. ``--json`` prints the same as JSON.
Exit code 1 when a false claim or an unsupported quote is found, or a collect fails.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.quality import OUR_ORGANIZATION, REALSITES, Api, loopback_env, serve_realsite

TABLES = Path(__file__).resolve().parent / "claims_tables"
OUR_PRICE = {"name": "Team", "price": 9, "currency": "USD", "period": "month", "unit": "per user"}
SECTIONS = ("whyWeWin", "whyWeLose", "objections", "talkingPoints")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = set("the and for with from your you our are its has have that this can all any".split())
_DENIAL = re.compile(r"\b(?:not|no|never|lacks?|without|unsupported|cannot|can't)\b", re.I)


@dataclass
class Tally:
    site: str
    mode: str
    claims: int = 0
    true: int = 0
    false: int = 0
    unsupported: int = 0
    duplicates: int = 0
    true_lacks: int = 0  # true "they lack" / "we lack" claims
    notes: list[str] = field(default_factory=list)


def load_table(site: str) -> dict[str, Any]:
    return json.loads((TABLES / f"{site}.json").read_text(encoding="utf-8"))


def _norm(text: str) -> str:
    return " ".join(str(text or "").casefold().replace("-", " ").split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(_norm(text)) if len(w) > 2 and w not in _STOP}


def _names(text: str, terms: list[str]) -> bool:
    body = _norm(text)
    return any(_norm(term) in body for term in terms)


class Checker:
    """The table's truth about one site's features."""

    def __init__(self, table: dict[str, Any]):
        self.rows = {_norm(r["feature"]): r for r in table["pairs"]}
        self.all_terms = [t for r in table["pairs"] for t in r["terms"]]

    def row(self, feature: str) -> dict[str, Any] | None:
        return self.rows.get(_norm(feature))

    def judge(self, state: str, feature: str) -> tuple[bool | None, str]:
        """(true, false or None when not checkable, why)."""
        if state == "WE_LACK":
            if _names(feature, self.all_terms):
                return False, f"we lack {feature!r}, but it is one of our features"
            return True, ""
        row = self.row(feature)
        if row is None:
            return None, f"{feature!r} is not in the table"
        wanted = {"THEY_LACK": "lacks", "COMING_SOON": "soon", "THEY_HAVE": "has"}[state]
        if row["state"] == wanted:
            return True, ""
        return False, f"{state} {feature!r}, the table says {row['state']} ({row['page']})"

    def quote_supports(self, item: dict[str, Any], quote: str) -> bool:
        state, feature = item.get("state"), item.get("feature") or ""
        row = self.row(feature) if state in ("THEY_LACK", "COMING_SOON", "THEY_HAVE") else None
        if row is not None:
            if state == "THEY_LACK" and not _DENIAL.search(quote):
                return False
            return _names(quote, row["terms"])
        if state == "WE_LACK" and item.get("names"):
            return any(_norm(n) in _norm(quote) for n in item["names"])
        if state == "WE_LACK":
            return _words(feature) <= _words(quote) or _norm(feature) in _norm(quote)
        text = " ".join(str(item.get(k) or "") for k in ("title", "description", "objection"))
        if re.search(r"[$£€]\s?\d|\bfree\b|\bprice", text, re.I):
            return bool(re.search(r"\d|\bfree\b", quote, re.I))
        shared = _words(text) & _words(quote)
        # Two words in common, or a name or number of the item's (a place, a year).
        named = {w.casefold() for w in re.findall(r"\b(?:[A-Z][a-z]{3,}|\d{2,})", text)}
        return len(shared) >= 2 or bool(shared & named)


# Cards written before items carried ``state`` (the code before issue 27) said the same
# things in their titles; read them back from there to compare before and after.
_OLD_TITLES = (
    (re.compile(r"^(?P<f>.+): only .+ offers it$"), "THEY_LACK"),
    (re.compile(r"^.+ has (?P<f>.+); .+ does not$"), "THEY_LACK"),
    (re.compile(r"^Lead with: (?P<f>.+): only .+ offers it$"), "THEY_LACK"),
)


def _state(item: dict[str, Any], competitor: str, legacy: bool) -> tuple[str | None, str]:
    if item.get("state") or not legacy:
        return item.get("state"), item.get("feature") or ""
    title = str(item.get("title") or "")
    for pattern, state in _OLD_TITLES:
        found = pattern.match(title)
        if found:
            return state, found.group("f")
    found = re.match(rf"^{re.escape(competitor)} offers (?P<f>.+)$", title, re.IGNORECASE)
    return ("WE_LACK", found.group("f")) if found else (None, "")


def check_card(card: dict[str, Any], checker: Checker, tally: Tally) -> None:
    content = card["content"]
    texts: list[str] = []
    items = [i for section in SECTIONS for i in content.get(section) or []]
    legacy = not any("state" in i for i in items)  # a card of the code before issue 27
    for section in SECTIONS:
        for item in content.get(section) or []:
            state, feature = _state(item, tally.site, legacy)
            item = {**item, "state": state, "feature": feature}
            if state in ("THEY_LACK", "COMING_SOON", "WE_LACK") and section != "objections":
                names = item.get("names") or [item.get("feature") or ""]
                for name in names:
                    _count(tally, *checker.judge(state, name), state)
            for quote in item.get("quotes") or []:
                if not checker.quote_supports(item, quote.get("quote", "")):
                    tally.unsupported += 1
                    tally.notes.append(f"unsupported in {section}: {quote.get('quote')!r}")
            for key in ("title", "description", "objection", "response"):
                if item.get(key):
                    texts.append(item[key])
    texts += [content.get("killShot") or ""] + list(content.get("landmines") or [])
    seen: set[str] = set()
    for text in filter(None, (_norm(t) for t in texts)):
        if text in seen:
            tally.duplicates += 1
            tally.notes.append(f"duplicate: {text[:80]!r}")
        seen.add(text)


def check_matrix(matrix: dict[str, Any], checker: Checker, tally: Tally) -> None:
    entries = (
        ("oursOnly", "name", "THEY_LACK"),
        ("matched", "ours", "THEY_HAVE"),
        ("soon", "ours", "COMING_SOON"),
        ("theirsOnly", "name", "WE_LACK"),
    )
    for cell in matrix.get("cells") or []:
        features = cell.get("features") or {}
        for key, name, state in entries:
            for row in features.get(key) or []:
                verdict, why = checker.judge(state, row[name])
                if verdict is False:
                    quotes = "; ".join(q["quote"][:100] for q in row.get("quotes") or [])
                    why += f" (matrix {cell['categoryName']}: {row.get('theirs', '')} “{quotes}”)"
                _count(tally, verdict, why, state)


def _count(tally: Tally, verdict: bool | None, why: str, state: str) -> None:
    if verdict is None:
        tally.notes.append(f"unchecked: {why}")
        return
    tally.claims += 1
    if verdict:
        tally.true += 1
        tally.true_lacks += state in ("THEY_LACK", "WE_LACK")
    else:
        tally.false += 1
        tally.notes.append(f"FALSE: {why}")


def run_site(site: str, url: str, workdir: Path) -> list[Tally]:
    from ci_service.jobs.runner import JobRunner
    from ci_service.services.identity import api_keys as apikeys
    from ci_service.services.workspace.workspaces import create_workspace
    from ci_service.settings import load_settings
    from ci_service.store.db import connection
    from ci_service.web.app import create_app, shutdown_app

    table = load_table(site)
    checker = Checker(table)
    (workdir / f"{site}.db").unlink(missing_ok=True)
    settings = load_settings(database=str(workdir / f"{site}.db"), job_workers=0, scheduler=False)
    app = create_app(settings)
    tallies = []
    try:
        with connection():
            workspace = create_workspace(f"claims-{site}", "ENTERPRISE")
            user = apikeys.ensure_user(workspace, None, "OWNER")
            _row, key = apikeys.create_key(user, name="claims")
        api = Api(app.test_client(), key)
        api.send("PATCH", "/api/organizations", OUR_ORGANIZATION)
        product = api.send(
            "POST",
            "/api/products",
            {
                **table["product"],
                "audience": "teams",
                "features": [
                    {"name": r["feature"], "description": r["description"]} for r in table["pairs"]
                ],
                "pricing": [OUR_PRICE],
            },
        )["product"]
        created = api.send(
            "POST",
            "/api/competitors",
            {
                "name": site,
                "websiteUrl": url,
                "isFirstRun": True,
                "relevantProductIds": [product["id"]],
            },
        )
        JobRunner(0).run_until_idle(20)
        competitor_id = created["competitor"]["id"]
        status = api.get(f"/api/competitors/{competitor_id}")["competitor"]["status"]
        matrix = api.get(f"/api/matrix?productId={product['id']}")
        for mode in ("ATTACK", "DEFENSE"):
            card = api.send(
                "POST",
                f"/api/battlecards/{competitor_id}/generate",
                {"productId": product["id"], "mode": mode},
            )["battlecard"]
            JobRunner(0).run_until_idle(20)
            card = api.get(f"/api/battlecards/{card['id']}")["battlecard"]
            tally = Tally(site, mode)
            if SHOW:
                show(site, mode, card["content"])
            if status != "COMPLETE":
                tally.notes.append(f"collect ended {status}")
            check_card(card, checker, tally)
            tallies.append(tally)
        matrix_tally = Tally(site, "matrix")
        check_matrix(matrix, checker, matrix_tally)
        tallies.append(matrix_tally)
    finally:
        shutdown_app(app)
    return tallies


SHOW = False


def show(site: str, mode: str, content: dict[str, Any]) -> None:
    """Print a card the way a rep reads it (``--show``)."""
    print(f"== {site} {mode}")
    for section in SECTIONS:
        for item in content.get(section) or []:
            head = item.get("title") or item.get("objection")
            body = item.get("description") or item.get("response") or ""
            state = f" [{item['state']}]" if item.get("state") else ""
            print(f"  {section}{state}: {head} | {body}")
            for quote in item.get("quotes") or []:
                print(f"      “{quote['quote'][:150]}”")
    print(f"  killShot: {content.get('killShot')}")
    for line in content.get("landmines") or []:
        print(f"  landmine: {line}")
    print(f"  pricingWedge: {content.get('pricingWedge')}")


def sites() -> list[str]:
    return sorted(p.stem for p in TABLES.glob("*.json") if (REALSITES / p.stem).is_dir())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.claims", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--site", action="append", help="only these sites (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--verbose", action="store_true", help="print every note")
    parser.add_argument("--show", action="store_true", help="print the cards")
    parser.add_argument("--keep", help="keep the databases in this folder")
    args = parser.parse_args(argv)
    global SHOW
    SHOW = args.show
    tallies: list[Tally] = []
    started = time.monotonic()
    with loopback_env(), tempfile.TemporaryDirectory(prefix="ci-claims-") as tmp:
        tmp = args.keep or tmp
        for site in sites():
            if args.site and site not in args.site:
                continue
            with serve_realsite(REALSITES / site) as url:
                tallies.extend(run_site(site, url, Path(tmp)))
    if args.json:
        print(json.dumps([asdict(t) for t in tallies], indent=2))
    else:
        print(f"{'site':<12} {'mode':<8} claims  true  false  unsupported  duplicates  true-lacks")
        for t in tallies:
            print(
                f"{t.site:<12} {t.mode:<8} {t.claims:>6} {t.true:>5} {t.false:>6} "
                f"{t.unsupported:>12} {t.duplicates:>11} {t.true_lacks:>11}"
            )
            for note in (
                t.notes if args.verbose else [n for n in t.notes if not n.startswith("unchecked")]
            ):
                print(f"    {note}")
        total = {
            k: sum(getattr(t, k) for t in tallies)
            for k in ("claims", "true", "false", "unsupported", "duplicates")
        }
        print(
            f"total: {total['claims']} claims, {total['true']} true, {total['false']} false, "
            f"{total['unsupported']} unsupported quotes, {total['duplicates']} duplicates "
            f"({time.monotonic() - started:.0f} s)"
        )
    bad = any(
        t.false or t.unsupported or any(n.startswith("collect") for n in t.notes) for t in tallies
    )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
