"""Drive a server as a client sees it: ``wrk`` when it is installed, else bench/load.py.

``drive(url, ...)`` runs one load run against one server and returns requests, req/s,
latency percentiles (p50, p90, p95, p99, seconds), non-2xx answers, socket errors, 5xx
answers and bodies saying "database is locked". With ``wrk`` (a C load generator: it
takes a small share of the CPU the servers run on) the run is ``wrk -t2 -cN -dD
--latency`` with a small Lua script written next to the work files: it cycles through
several paths, sends a POST body with ``{n}`` replaced by a number unique within the
run, counts 5xx and "database is locked" answers per thread, and prints p95 (wrk's text
output has 50/75/90/99 only). The text output is parsed for req/s and the percentiles it
has.

Without ``wrk`` (``driver()`` says which is used) the same run goes to ``python -m
bench.load`` (threads with keep-alive httpx clients, in their own process); that client
takes several times the CPU per request that wrk does, on the same cores as the servers,
so its req/s are lower and the ratios closer to 1 than a client with a lighter load
generator sees.

``server_cpu(pid)``: user + system CPU seconds of a process so far (``/proc/PID/stat``),
for CPU per request (the delta over a run divided by its requests).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

WRK_THREADS = 2
_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}
_FORCED = os.environ.get("CI_BENCH_DRIVER", "").strip().lower()  # wrk | python | ""


def wrk_path() -> str | None:
    return shutil.which("wrk")


def driver(preference: str = "auto") -> str:
    """``"wrk"`` or ``"python"``: the preference, or wrk when it is installed."""
    choice = preference if preference != "auto" else (_FORCED or "auto")
    if choice == "python":
        return "python"
    if choice == "wrk":
        if wrk_path() is None:
            raise RuntimeError("--driver wrk: wrk is not installed (apt install wrk)")
        return "wrk"
    return "wrk" if wrk_path() is not None else "python"


def server_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (all its threads)."""
    return _cpu_seconds(f"/proc/{pid}/stat")


def main_thread_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid``'s main thread so far: in ``serve`` and in the
    bare app alike, the thread that runs waitress's loop (accepting, reading and parsing
    requests, queuing them, writing what the request threads left unsent)."""
    return _cpu_seconds(f"/proc/{pid}/task/{pid}/stat")


def _cpu_seconds(stat_path: str) -> float:
    fields = Path(stat_path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _lua_string(text: str) -> str:
    return json.dumps(text)  # a JSON string literal is a valid Lua string literal here


LUA = """
local paths = {%(paths)s}
local method = %(method)s
local template = %(body)s
local headers = {%(headers)s}
local threads = {}
local counter = 0
local index = 0
server_errors = 0
locked = 0

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  index = id %% #paths
  for name, value in pairs(headers) do wrk.headers[name] = value end
  if template ~= nil then wrk.headers["Content-Type"] = "application/json" end
end

function request()
  index = index %% #paths + 1
  if template == nil then
    return wrk.format(method, paths[index])
  end
  counter = counter + 1
  local body = template:gsub("{n}", tostring(id * 100000000 + counter))
  return wrk.format(method, paths[index], nil, body)
end

%(response)s

function done(summary, latency, requests)
  local errors, lock = 0, 0
  for _, thread in ipairs(threads) do
    errors = errors + (thread:get("server_errors") or 0)
    lock = lock + (thread:get("locked") or 0)
  end
  io.write(string.format(
    "BENCH-JSON {\\"requests\\": %%d, \\"seconds\\": %%.6f, \\"non2xx\\": %%d, "
    .. "\\"socket\\": %%d, \\"p50\\": %%.1f, \\"p90\\": %%.1f, \\"p95\\": %%.1f, "
    .. "\\"p99\\": %%.1f, \\"server_errors\\": %%d, \\"locked\\": %%d}\\n",
    summary.requests, summary.duration / 1e6, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(95),
    latency:percentile(99), errors, lock))
end
"""

# Only the write runs look at answers (wrk hands every body to Lua when this exists).
RESPONSE = """
function response(status, headers, body)
  if status >= 500 then server_errors = server_errors + 1 end
  if body ~= nil and body:find("database is locked", 1, true) then locked = locked + 1 end
end
"""


def lua_script(paths: list[str], method: str, headers: dict, body: dict | None) -> str:
    header_items = ", ".join(f"[{_lua_string(k)}] = {_lua_string(v)}" for k, v in headers.items())
    return LUA % {
        "paths": ", ".join(_lua_string(p) for p in paths),
        "method": _lua_string(method),
        "body": "nil" if body is None else _lua_string(json.dumps(body)),
        "headers": header_items,
        "response": RESPONSE if body is not None else "",
    }


def _seconds(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not match:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_wrk(output: str) -> dict:
    """req/s, the latency distribution and error counts of ``wrk --latency``'s output,
    with the script's BENCH-JSON line (p95, 5xx and "database is locked" counts)."""
    out: dict = {"non2xx": 0, "socket": 0}
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("Requests/sec:"):
            out["rps"] = float(line.split()[1])
        elif m := re.fullmatch(r"(50|75|90|99)%\s+(\S+)", line):
            out[f"p{m.group(1)}"] = _seconds(m.group(2))
        elif m := re.fullmatch(r"(\d+) requests in ([\d.]+\w+),.*", line):
            out["requests"] = int(m.group(1))
            out["seconds"] = _seconds(m.group(2))
        elif line.startswith("Non-2xx or 3xx responses:"):
            out["non2xx"] = int(line.split(":")[1])
        elif line.startswith("Socket errors:"):
            out["socket"] = sum(int(n) for n in re.findall(r"\d+", line))
        elif line.startswith("BENCH-JSON "):
            extra = json.loads(line[len("BENCH-JSON ") :])
            out["p95"] = extra["p95"] / 1e6
            out["server_errors"] = extra["server_errors"]
            out["locked"] = extra["locked"]
    if "rps" not in out or "requests" not in out:
        raise ValueError(f"could not read wrk's output:\n{output[-2000:]}")
    return out


def _run_wrk(urls: list[str], method, headers, body, connections, duration, work) -> dict:
    base = re.match(r"https?://[^/]+", urls[0]).group(0)
    paths = [u[len(base) :] or "/" for u in urls]
    with tempfile.NamedTemporaryFile(
        "w", suffix=".lua", dir=work, delete=False, prefix="wrk-"
    ) as fh:
        fh.write(lua_script(paths, method, headers or {}, body))
        script = fh.name
    try:
        done = subprocess.run(
            [wrk_path(), f"-t{min(WRK_THREADS, connections)}", f"-c{connections}",
             f"-d{max(1, round(duration))}s", "--latency", "--timeout", "30s",
             "-s", script, urls[0]],
            capture_output=True, text=True, timeout=duration + 60,
        )  # fmt: skip
    finally:
        os.unlink(script)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr[-2000:]}")
    result = parse_wrk(done.stdout)
    result["driver"] = "wrk"
    return result


def _run_python(urls, method, headers, body, connections, duration) -> dict:
    from bench import procs

    spec = {"mode": "throughput", "method": method, "urls": urls, "headers": headers or {},
            "clients": connections, "duration": duration, "warmup": 0.0}  # fmt: skip
    if body is not None:
        spec["body"] = body
    got = procs.load(spec)
    non2xx = sum(n for code, n in got["statuses"].items() if not code.startswith(("2", "3")))
    server_errors = sum(n for code, n in got["statuses"].items() if code.startswith("5"))
    return {
        "driver": "python",
        "rps": got["rps"],
        "requests": got["requests"],
        "seconds": got["seconds"],
        "p50": got["p50"],
        "p90": got.get("p90", float("nan")),
        "p95": got["p95"],
        "p99": got.get("p99", float("nan")),
        "non2xx": non2xx,
        "socket": got["errors"] - server_errors - got["locked"],
        "server_errors": server_errors,
        "locked": got["locked"],
    }


def drive(
    urls: str | list[str],
    *,
    method: str = "GET",
    headers: dict | None = None,
    body: dict | None = None,
    connections: int = 8,
    duration: float = 5.0,
    pid: int | None = None,
    use: str = "auto",
    work: str | None = None,
) -> dict:
    """One load run against one server (``urls``: one or several paths of it, cycled).
    With ``pid``, also ``cpu``: the server's CPU seconds per answered request, and
    ``cpu_loop_seconds``: its main thread's part of ``cpu_seconds``."""
    urls = [urls] if isinstance(urls, str) else list(urls)
    before = (server_cpu(pid), main_thread_cpu(pid)) if pid else None
    if driver(use) == "wrk":
        result = _run_wrk(urls, method, headers, body, connections, duration, work)
    else:
        result = _run_python(urls, method, headers, body, connections, duration)
    if pid:
        result["cpu_seconds"] = server_cpu(pid) - before[0]
        result["cpu_loop_seconds"] = main_thread_cpu(pid) - before[1]
        result["cpu"] = result["cpu_seconds"] / max(1, result["requests"])
    return result
