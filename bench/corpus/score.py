"""Collect and score every corpus site (``python -m bench.quality --corpus``).

Per site: the facts found with evidence, by kind; the junk items (``bench.quality``'s junk
count); the wrong values (``bench.corpus.facts``). Per group (tuning, check): the same added
up, and the share of facts found. Check sites print their counts only: what they missed is
not shown, so nobody debugs against them. The six shared real sites join the tuning group
(they were read and tuned on before the split existed), scored with ``bench.quality_facts``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench.corpus.build import SnapshotMissing, build_site
from bench.corpus.facts import SiteFacts, load_facts
from bench.corpus.manifest import load_sites
from bench.corpus.serve import serve_site
from bench.corpus.split import CHECK, TUNING


def score_site(
    name: str, group: str, url: str, facts: list[Any], workdir: Path, site: SiteFacts | None = None
) -> dict[str, Any]:
    """Collect the site at ``url`` and score it against ``facts``; a corpus site's facts
    file (``site``) also names the company and decides its wrong values."""
    from bench import quality

    company = site.company if site is not None else ""
    knowledge, run = quality.collect_site(name, url, workdir, company)
    report = quality.site_report(name, knowledge, run, quality.score(knowledge, facts))
    report["group"] = group
    report["wrong"] = site.wrong_values(knowledge.records) if site is not None else []
    return report


def corpus_reports(
    workdir: Path,
    only: list[str] | None = None,
    groups: tuple[str, ...] = (TUNING, CHECK),
    jobs: int = 1,
) -> list[dict[str, Any]]:
    """Every selected site's report, in a fixed order (shared sites, then the corpus by
    group and name); ``jobs`` sites are collected at once, each in a process of its own."""
    from bench import quality

    names: list[str] = []
    if TUNING in groups:
        names += [n for n, _s, _f in quality.sites() if n not in quality.FIXTURE_SITES]
    names += [s.site for s in load_sites() if s.group in groups]
    names = [n for n in names if not only or n in only]
    if jobs <= 1:
        return [_report(name, str(workdir)) for name in names]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_report, names, [str(workdir)] * len(names)))


def _report(name: str, workdir: str) -> dict[str, Any]:
    from bench import quality

    print(f"collecting {name}", file=sys.stderr, flush=True)
    for shared, server, facts in quality.sites():
        if shared == name:
            with server() as url:
                return score_site(name, TUNING, url, facts, Path(workdir))
    site = next(s for s in load_sites() if s.site == name)
    try:
        build_site(site)
    except SnapshotMissing as error:
        return {"site": site.site, "group": site.group, "error": str(error)}
    facts = load_facts(site.facts_path)
    with serve_site(site) as url:
        return score_site(site.site, site.group, url, facts.facts, Path(workdir), facts)


def group_totals(reports: list[dict[str, Any]], group: str) -> dict[str, Any]:
    kinds: dict[str, list[int]] = {}
    junk = wrong = sites = 0
    for report in reports:
        if report.get("group") != group or "error" in report:
            continue
        sites += 1
        junk += len(report["junk"])
        wrong += len(report["wrong"])
        for kind, counts in report["facts"].items():
            total = kinds.setdefault(kind, [0, 0])
            total[0] += counts["found"]
            total[1] += counts["listed"]
    found = sum(f for f, _ in kinds.values())
    listed = sum(n for _, n in kinds.values())
    return {
        "group": group,
        "sites": sites,
        "kinds": {k: {"found": f, "listed": n} for k, (f, n) in sorted(kinds.items())},
        "found": found,
        "listed": listed,
        "share": round(found / listed, 3) if listed else None,
        "junk": junk,
        "wrong": wrong,
    }


def print_corpus(reports: list[dict[str, Any]], verbose: bool = False) -> None:
    from bench import quality

    for report in reports:
        if "error" in report:
            print(f"\n== {report['site']} ({report['group']}): {report['error']}")
        elif report["group"] == CHECK:
            share = report["found"] / report["listed"] if report["listed"] else 0
            print(
                f"\n== {report['site']} (check): facts {report['found']}/{report['listed']} "
                f"({share:.0%}), junk {len(report['junk'])}, wrong {len(report['wrong'])}, "
                f"competitor {report['status']}"
            )
        else:
            quality.print_site(report, verbose=verbose)
            print(f"   wrong: {len(report['wrong'])} value(s)")
            for text in report["wrong"]:
                print(f"     wrong: {text}")
    totals = [group_totals(reports, g) for g in (TUNING, CHECK)]
    print_table(totals)


def print_table(totals: list[dict[str, Any]]) -> None:
    kinds = sorted({k for t in totals for k in t["kinds"]})
    print("\n| kind | " + " | ".join(f"{t['group']} ({t['sites']} sites)" for t in totals) + " |")
    print("|---|" + "---|" * len(totals))
    for kind in kinds:
        cells = []
        for t in totals:
            c = t["kinds"].get(kind)
            cells.append(f"{c['found']}/{c['listed']}" if c else "-")
        print(f"| {kind} | " + " | ".join(cells) + " |")
    cells = [
        f"**{t['found']}/{t['listed']} ({(t['share'] or 0):.0%})**" if t["listed"] else "-"
        for t in totals
    ]
    print("| facts | " + " | ".join(cells) + " |")
    print("| junk items | " + " | ".join(str(t["junk"]) for t in totals) + " |")
    print("| wrong values | " + " | ".join(str(t["wrong"]) for t in totals) + " |")
    shares = [t["share"] for t in totals if t["share"] is not None]
    if len(shares) == 2:
        print(f"\ngap (tuning - check): {100 * (shares[0] - shares[1]):+.1f} points")


def corpus_main(args: argparse.Namespace) -> int:
    from bench.quality import loopback_env

    groups = (args.group,) if args.group else ("tuning", "check")
    with loopback_env(), tempfile.TemporaryDirectory(prefix="ci-quality-") as tmp:
        reports = corpus_reports(Path(tmp), args.site, groups, args.jobs)
    totals = [group_totals(reports, g) for g in groups]
    if args.json:
        public = [r if r.get("group") == "tuning" else _counts_only(r) for r in reports]
        print(json.dumps({"sites": public, "groups": totals}, indent=2))
    else:
        print_corpus(reports, args.verbose)
    return 1 if any("error" in r or r.get("status") != "COMPLETE" for r in reports) else 0


def _counts_only(report: dict[str, Any]) -> dict[str, Any]:
    """A check site's figures without what it missed or stored (nobody debugs on them)."""
    keep = ("site", "group", "status", "job", "seconds", "facts", "found", "listed", "error")
    out = {k: report[k] for k in keep if k in report}
    out.update(junk=len(report.get("junk") or []), wrong=len(report.get("wrong") or []))
    return out
