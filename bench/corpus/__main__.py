"""``python -m bench.corpus``: list, build and serve the development corpus.

    python -m bench.corpus list              every site: group, generator, language, industry
    python -m bench.corpus check             every entry whole (facts file, group rule, commit)
    python -m bench.corpus build [SITE ...]  local copies from the fetched snapshots
    python -m bench.corpus serve SITE        one site on loopback until Ctrl-C

A snapshot missing here is fetched with the search tool's ``fetch`` (``github:OWNER/NAME``);
``build`` names the ones it lacks.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from bench.corpus.build import SnapshotMissing, build_site
from bench.corpus.manifest import corpus_root, load_sites
from bench.corpus.serve import serve_site


def _list() -> int:
    sites = load_sites()
    for s in sites:
        has = ",".join(k for k, v in sorted(s.has.items()) if v) or "-"
        print(f"{s.group:<7} {s.site:<28} {s.language:<3} {s.industry:<16} {s.generator:<22} {has}")
    groups = Counter(s.group for s in sites)
    languages = Counter(s.language for s in sites)
    print(
        f"\n{len(sites)} sites: {dict(groups)}; {len(set(s.industry for s in sites))} industries; "
        f"{len(set(s.generator for s in sites))} generators; languages {dict(languages)}"
    )
    return 0


def _check() -> int:
    bad = 0
    for s in load_sites():
        for problem in s.problems():
            bad += 1
            print(f"{s.site}: {problem}")
    return 1 if bad else 0


def _build(names: list[str]) -> int:
    missing = 0
    for s in load_sites():
        if names and s.site not in names:
            continue
        try:
            root = build_site(s)
        except SnapshotMissing as error:
            missing += 1
            print(f"missing: {error}")
            continue
        pages = sum(1 for p in root.rglob("*") if p.suffix in (".html", ".htm"))
        print(f"built {s.site}: {pages} HTML files in {root}")
    print(f"local copies under {corpus_root()}")
    return 1 if missing else 0


def _serve(name: str, port: int) -> int:
    site = next((s for s in load_sites() if s.site == name), None)
    if site is None:
        raise SystemExit(f"no corpus site {name!r}")
    build_site(site)
    with serve_site(site, port=port) as url:
        print(f"serving {site.site} ({site.host}) at {url}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.corpus", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list")
    sub.add_parser("check")
    build = sub.add_parser("build")
    build.add_argument("sites", nargs="*")
    serve = sub.add_parser("serve")
    serve.add_argument("site")
    serve.add_argument("--port", type=int, default=8100)
    args = parser.parse_args(argv)
    if args.command == "list":
        return _list()
    if args.command == "check":
        return _check()
    if args.command == "build":
        return _build(args.sites)
    return _serve(args.site, args.port)


if __name__ == "__main__":
    sys.exit(main())
