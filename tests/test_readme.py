"""The README's commands run, as written, from a second terminal, against a real server.

A newcomer starts ``serve`` in one terminal and types the rest in another, which starts
without the virtual environment: the README's sign-in block activates it, and the
walk-through goes on in that shell. The test gives the shell exactly that: a directory
holding ``.venv`` (and, on SQLite, the server's ``./ci-service.db``) and a ``PATH`` without
this interpreter's ``bin``. The people commands of docs/web-app.md run too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.live import LiveServer, run_cli

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DEFAULT_URL = "http://127.0.0.1:8000"
PASSWORD = "a long password"


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    level = len(heading.split(" ", 1)[0])
    assert f"\n{heading}\n" in text, f"no section {heading!r}"
    taken, fenced = [], False
    for line in text.split(f"\n{heading}\n", 1)[1].splitlines():
        fenced ^= line.startswith("```")  # a "# comment" in a code block is no heading
        if not fenced and re.match(rf"#{{1,{level}}} ", line):
            break
        taken.append(line)
    return "\n".join(taken)


def bash_blocks(text: str, heading: str) -> str:
    blocks = re.findall(r"```bash\n(.*?)```", section(text, heading), flags=re.S)
    assert blocks, f"{heading!r} has no bash blocks"
    return "\n".join(blocks)


def sign_in_script() -> str:
    return bash_blocks(README.read_text(), "### Sign in")


def walkthrough_script() -> str:
    return bash_blocks(README.read_text(), "## Walk-through")


def second_terminal(directory: Path, database: str) -> dict:
    """The environment of a new terminal in ``directory``: ``.venv`` there is this
    interpreter's environment, and nothing of it is on ``PATH`` until it is activated."""
    venv = Path(sys.prefix)
    link = directory / ".venv"
    if (venv / "bin" / "activate").exists():
        link.symlink_to(venv, target_is_directory=True)
    else:  # not run from a virtual environment: a stand-in that puts this Python first
        (link / "bin").mkdir(parents=True)
        (link / "bin" / "activate").write_text(
            f'PATH="{os.path.dirname(sys.executable)}:$PATH"; export PATH\n'
        )
    ours = {os.path.dirname(sys.executable), str(venv / "bin")}
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p not in ours]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(path)
    env.pop("CI_SERVICE_DATABASE", None)
    if database != str(directory / "ci-service.db"):  # PostgreSQL: the URL, as docs say
        env["CI_SERVICE_DATABASE"] = database
    return env


def test_quick_start_commands_are_the_documented_ones():
    text = README.read_text()
    assert 'pip install -e ".[test]" && pytest' in text
    assert "pip install -e . && ci-service serve" in text
    ci = (README.parent / ".ci" / "run").read_text()
    assert 'pip install --quiet -e ".[test]"' in ci and "pytest" in ci


def test_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) < 300, f"README.md has {len(lines)} lines: move reference text to docs/"


def test_second_terminal_activates_the_environment_and_uses_one_workspace():
    sign_in = sign_in_script()
    assert sign_in.splitlines()[0] == ". .venv/bin/activate"
    made = re.findall(r"ci-service workspaces create (\S+)", sign_in)
    assert len(made) == 1, made
    # Every later command names the workspace the quick start made, and none makes another.
    later = walkthrough_script()
    assert "workspaces create" not in later
    named = set(re.findall(r"--workspace (\S+)", sign_in + later))
    assert named == set(made), named


def test_walkthrough_runs(tmp_path, make_database_url):
    # On SQLite the server's file is ./ci-service.db of the shell's directory: the
    # walk-through relies on "same directory" and sets no database itself.
    database = make_database_url(name="ci-service.db")
    script = sign_in_script() + "\n" + walkthrough_script()
    assert DEFAULT_URL in script
    env = second_terminal(tmp_path, database)
    with LiveServer(database) as server:
        # -f makes curl fail on any HTTP error, so every call in the walk-through must succeed.
        script = script.replace(DEFAULT_URL, server.url).replace("curl -s ", "curl -sSf ")
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            input=f"{PASSWORD}\n{PASSWORD}\n",  # users create asks twice
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "User you@acme.example is OWNER in workspace 'acme'" in result.stdout
    assert '"status": "ok"' in result.stdout or '"status":"ok"' in result.stdout
    assert '"apiKeys"' in result.stdout
    assert '"results"' in result.stdout and "/competitors/" in result.stdout
    assert '"search_intel"' in result.stdout


def test_people_commands_in_the_web_app_docs_run(tmp_path):
    """docs/web-app.md's "People and sign-in" block, on the README's workspace."""
    database = str(tmp_path / "ci-service.db")
    made = run_cli(database, "workspaces", "create", "acme", "--plan", "ENTERPRISE")
    assert made.returncode == 0, made.stderr
    script = bash_blocks((ROOT / "docs" / "web-app.md").read_text(), "## People and sign-in")
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        input="another long password\nanother long password\n",  # set-password asks twice
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **os.environ,
            "CI_SERVICE_DATABASE": database,
            "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
        },
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "https://ci.acme.example/" in result.stdout  # the invite link
    assert '"ana@acme.example"' in result.stdout and "EDITOR" in result.stdout
