"""The README's walk-through runs, as written, against a real server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.live import LiveServer

README = Path(__file__).resolve().parent.parent / "README.md"
DEFAULT_URL = "http://127.0.0.1:8000"


def walkthrough_script() -> str:
    text = README.read_text()
    section = text.split("## Walk-through", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    assert blocks, "the walk-through has no bash blocks"
    return "\n".join(blocks)


def test_quick_start_commands_are_the_documented_ones():
    text = README.read_text()
    assert 'pip install -e ".[test]" && pytest' in text
    assert "pip install -e . && ci-service serve" in text
    ci = (README.parent / ".ci" / "run").read_text()
    assert 'pip install --quiet -e ".[test]"' in ci and "pytest" in ci


def test_walkthrough_runs(tmp_path, database_url):
    database = database_url
    script = walkthrough_script()
    assert DEFAULT_URL in script
    with LiveServer(database) as server:
        # -f makes curl fail on any HTTP error, so every call in the walk-through must succeed.
        script = script.replace(DEFAULT_URL, server.url).replace("curl -s ", "curl -sSf ")
        env = {
            **os.environ,
            "CI_SERVICE_DATABASE": database,
            "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
        }
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"status": "ok"' in result.stdout or '"status":"ok"' in result.stdout
    assert '"apiKeys"' in result.stdout
    assert '"results"' in result.stdout and "/competitors/" in result.stdout
    assert '"search_intel"' in result.stdout
