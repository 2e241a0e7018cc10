"""The corpus manifest: one ``sites/<site>.json`` per site (where its built files are)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from bench.corpus.split import group_of, normal_host

HERE = Path(__file__).resolve().parent
SITES_DIR = HERE / "sites"
FACTS_DIR = HERE / "facts"
INDUSTRIES = (
    "saas",
    "developer-tools",
    "hardware",
    "services",
    "industry-energy",
    "finance",
    "health",
    "marketplace",
    "other",
)


@dataclass(frozen=True)
class Site:
    site: str
    host: str
    hosts: tuple[str, ...]
    repo: str
    commit: str
    folder: str
    group: str
    generator: str
    industry: str
    language: str
    built: str = ""
    has: dict[str, bool] = field(default_factory=dict)
    notes: str = ""
    # Files of the repository that were never part of the public site (a staging copy's
    # robots.txt that disallows every page): left out of the local copy, said in ``notes``.
    leave_out: tuple[str, ...] = ()

    @property
    def facts_path(self) -> Path:
        return FACTS_DIR / f"{self.site}.json"

    def problems(self) -> list[str]:
        """What is wrong with this entry (empty when it is whole)."""
        out = []
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", self.site):
            out.append(f"site {self.site!r} is not a lowercase slug")
        if not re.fullmatch(r"[0-9a-f]{40}", self.commit):
            out.append(f"commit {self.commit!r} is not 40 hex digits")
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", self.repo):
            out.append(f"repo {self.repo!r} is not owner/name")
        if self.group != group_of(self.host):
            out.append(f"group {self.group!r} is not what the split rule says for {self.host}")
        if self.industry not in INDUSTRIES:
            out.append(f"industry {self.industry!r} is not one of {', '.join(INDUSTRIES)}")
        if not self.hosts:
            out.append("no host spellings to map to loopback")
        if not self.facts_path.is_file():
            out.append(f"no facts file {self.facts_path.name}")
        return out


def load_site(path: Path) -> Site:
    data = json.loads(path.read_text(encoding="utf-8"))
    hosts = data.get("hosts") or [f"https://{data['host']}", f"http://{data['host']}"]
    return Site(
        site=data["site"],
        host=normal_host(data["host"]),
        hosts=tuple(hosts),
        repo=data["repo"],
        commit=data["commit"],
        folder=(data.get("folder") or "").strip("/"),
        group=data.get("group", ""),
        generator=data.get("generator", ""),
        industry=data.get("industry", ""),
        language=data.get("language", ""),
        built=data.get("built", ""),
        has=dict(data.get("has") or {}),
        notes=data.get("notes", ""),
        leave_out=tuple(data.get("leave_out") or ()),
    )


def load_sites() -> list[Site]:
    return sorted(
        (load_site(path) for path in SITES_DIR.glob("*.json")), key=lambda s: (s.group, s.site)
    )


def mirror_root() -> Path:
    """Where the search tool's ``fetch`` puts snapshots (``OWNER+NAME/repo``)."""
    return Path(os.environ.get("CI_CORPUS_MIRRORS", "/work/.mirror"))


def corpus_root() -> Path:
    """Where ``build`` writes the local copies (outside the repository)."""
    default = Path.home() / ".cache" / "ci-service-corpus"
    return Path(os.environ.get("CI_CORPUS_DIR", default))


def snapshot_of(site: Site) -> Path:
    """The snapshot's git directory: ``repo`` itself (bare) or its ``.git``."""
    repo = mirror_root() / site.repo.replace("/", "+") / "repo"
    return repo / ".git" if (repo / ".git").is_dir() else repo


def copy_of(site: Site) -> Path:
    return corpus_root() / site.site
