"""Local copies of the corpus sites, from the repositories' snapshots (``git archive``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from bench.corpus.manifest import Site, copy_of, snapshot_of

# The files a crawler reads; images, styles, scripts, fonts and archives are left out.
KEPT = (".html", ".htm", ".xml", ".txt", ".pdf", ".rss", ".atom", ".json", ".php", ".asp")


class SnapshotMissing(RuntimeError):
    """The repository's snapshot is not on this machine: fetch ``github:OWNER/NAME`` first."""


def kept(name: str) -> bool:
    leaf = name.rsplit("/", 1)[-1]
    return leaf.lower().endswith(KEPT) or "." not in leaf


def _tree(git_dir: Path, commit: str, folder: str) -> list[tuple[str, str]]:
    """(blob id, path inside the folder) of every kept file of ``folder`` at ``commit``."""
    args = ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit]
    if folder:
        args += ["--", folder + "/"]
    listed = subprocess.run(args, capture_output=True, check=False)
    if listed.returncode != 0:
        message = listed.stderr.decode(errors="replace").strip()
        raise SnapshotMissing(f"git ls-tree {commit}: {message}")
    out = []
    for entry in listed.stdout.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.decode("utf-8", "surrogateescape").split("\t", 1)
        _mode, kind, blob = meta.split()
        relative = path[len(folder) + 1 :] if folder else path
        if kind == "blob" and kept(relative):
            out.append((blob, relative))
    return out


def build_site(site: Site, *, force: bool = False) -> Path:
    """Write the site's kept files at its commit into its local copy; returns its root.
    Files the snapshot lacks (it leaves out files of 4 MiB and more) are skipped."""
    target = copy_of(site)
    stamp = target / ".corpus-commit"
    state = " ".join([site.commit, *site.leave_out])
    if not force and stamp.is_file() and stamp.read_text().strip() == state:
        return target
    git_dir = snapshot_of(site)
    if not git_dir.is_dir():
        raise SnapshotMissing(f"{site.site}: no snapshot at {git_dir}; fetch github:{site.repo}")
    try:
        files = [f for f in _tree(git_dir, site.commit, site.folder) if f[1] not in site.leave_out]
    except SnapshotMissing as error:
        raise SnapshotMissing(f"{site.site}: {error}") from None
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    root = target.resolve()
    with subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as batch:
        assert batch.stdin is not None and batch.stdout is not None
        for blob, relative in files:
            batch.stdin.write(blob.encode() + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if len(header) < 3:  # "<id> missing": a file the snapshot left out
                continue
            body = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)  # the newline after each object
            path = (root / relative).resolve()
            if root not in path.parents:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body)
        batch.stdin.close()
    stamp.write_text(state + "\n")
    return target
