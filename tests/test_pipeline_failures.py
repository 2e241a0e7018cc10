"""How the pipeline fails, and what it survives: SSRF (direct and via redirect), a site of
500s, an unresolvable host, malformed HTML, a broken PDF, the size and time limits."""

from __future__ import annotations

import logging
import threading
import time

from ci_service.pipeline import context
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection
from tests.intel_support import FixtureServer, serve_500s
from tests.pipeline_fixtures.support import add_competitor, copy_site, job, run_jobs
from tests.waiting import wait_for

pytest_plugins = ["tests.jobs_fixtures", "tests.pipeline_fixtures.plugin"]

PUBLIC_IP = "93.184.216.34"  # a global address, dialled to the local server


def status_of(competitor_id):
    with connection():
        return Competitor.get_by_id(competitor_id).status


def intel(api, competitor_id):
    return api.get(f"/api/intel?competitorId={competitor_id}").json["intelItems"]


def test_ssrf_guard_refuses_a_loopback_site(api, site, monkeypatch):
    monkeypatch.delenv("CI_SERVICE_ALLOW_PRIVATE_URLS")
    competitor_id, job_id = add_competitor(api, site.url("/"))
    run_jobs()
    failed = job(api, job_id)
    assert failed["status"] == "failed" and failed["currentStep"] == "Collecting Intel"
    assert failed["error"].startswith("Collecting Intel: refusing to fetch http://127.0.0.1:")
    assert "is loopback" in failed["error"] and "CI_SERVICE_ALLOW_PRIVATE_URLS=1" in failed["error"]
    assert status_of(competitor_id) == "ERROR"
    assert site.requests == []  # nothing was sent
    assert intel(api, competitor_id) == []


def test_ssrf_guard_refuses_a_redirect_to_loopback(api, monkeypatch, crawl_env):
    monkeypatch.delenv("CI_SERVICE_ALLOW_PRIVATE_URLS")
    with FixtureServer() as server:
        target = f"http://127.0.0.1:{server.port}/admin"
        server.routes["/robots.txt"] = lambda h: h.send(404, b"", "text/plain")
        server.routes["/"] = lambda h: h.send(302, b"", headers={"Location": target})
        server.routes["/admin"] = lambda h: h.send(200, b"<h1>secret admin</h1>")

        def resolve(host, port):
            if host == "public.test":
                return [PUBLIC_IP]
            raise OSError(f"unknown host {host}")

        def dial(ip, port):
            return ("127.0.0.1", server.port) if ip == PUBLIC_IP else (ip, port)

        monkeypatch.setattr(context, "FETCHER_OPTIONS", {"resolver": resolve, "dial": dial})
        competitor_id, job_id = add_competitor(api, f"http://public.test:{server.port}/")
        run_jobs()
        failed = job(api, job_id)
        assert failed["status"] == "failed"
        assert f"refusing to fetch {target}: address 127.0.0.1 is loopback" in failed["error"]
        assert server.hits("/") == 1 and server.hits("/admin") == 0
    assert status_of(competitor_id) == "ERROR"


def test_a_site_of_500s_fails_with_a_clear_error(api, crawl_env):
    with FixtureServer() as server:
        serve_500s(server)
        competitor_id, job_id = add_competitor(api, server.url("/"))
        run_jobs()
        failed = job(api, job_id)
    assert failed["status"] == "failed"
    assert failed["error"] == (
        f"Collecting Intel: could not fetch any page of {server.url('/')}: HTTP 500"
    )
    assert status_of(competitor_id) == "ERROR"


def test_an_unresolvable_host_fails_at_once(api, crawl_env):
    started = time.monotonic()
    _, job_id = add_competitor(api, "https://no-such-host.invalid/")
    run_jobs()
    failed = job(api, job_id)
    assert failed["status"] == "failed"
    assert "could not reach https://no-such-host.invalid/: cannot resolve" in failed["error"]
    assert time.monotonic() - started < 5


def test_malformed_html_and_a_broken_pdf_do_not_stop_the_job(api, tmp_path, crawl_env, caplog):
    root = copy_site(tmp_path / "site")
    (root / "contact.html").write_bytes(
        b"<html><head><title>Contact \xff\xfe broken</title><body><div><p>Call Globex "
        b"support <b>any <table><tr><td>time</div></span></p>\x00\x01 <h2>Offices<h3>"
        b"<p>Austin office open daily<!-- never closed"
    )
    (root / "docs" / "datasheet.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Broken >>\n%%EOF")
    with FixtureServer(root) as server, caplog.at_level(logging.WARNING, "ci_service.pipeline"):
        competitor_id, job_id = add_competitor(api, server.url("/"))
        run_jobs()
        done = job(api, job_id)
    assert done["status"] == "completed", done
    items = intel(api, competitor_id)
    contact = [i for i in items if i["url"] == server.url("/contact")]
    assert contact and "Austin office open daily" in contact[0]["content"]
    assert not [i for i in items if i["sourceType"] == "DOCUMENT"]
    assert any("datasheet.pdf skipped" in r.getMessage() for r in caplog.records)
    assert status_of(competitor_id) == "COMPLETE"


def test_an_oversized_page_is_skipped(api, tmp_path, crawl_env):
    crawl_env.setenv("CI_SERVICE_FETCH_MAX_BYTES", "100000")
    root = copy_site(tmp_path / "site")
    index = root / "index.html"
    index.write_text(index.read_text().replace("</nav>", '<a href="/huge">Huge</a></nav>'))
    (root / "huge.html").write_text("<p>" + "big page " * 20_000 + "</p>")
    with FixtureServer(root) as server:
        competitor_id, job_id = add_competitor(api, server.url("/"))
        run_jobs()
        assert server.hits("/huge") == 1
    assert job(api, job_id)["status"] == "completed"
    urls = {i["url"] for i in intel(api, competitor_id)}
    assert server.url("/huge") not in urls and server.url("/pricing") in urls


def test_a_slow_page_runs_into_the_deadline_and_is_skipped(api, tmp_path, crawl_env):
    crawl_env.setenv("CI_SERVICE_FETCH_DEADLINE_SECONDS", "1")
    root = copy_site(tmp_path / "site")
    index = root / "index.html"
    index.write_text(index.read_text().replace("</nav>", '<a href="/slow">Slow</a></nav>'))

    with FixtureServer(root) as server:

        def drip(handler):
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html")
            handler.send_header("Content-Length", "1000")
            handler.end_headers()
            try:
                for _ in range(100):
                    if server.stopping.wait(0.1):
                        return
                    handler.wfile.write(b"x")
                    handler.wfile.flush()
            except OSError:
                return

        server.routes["/slow"] = drip
        started = time.monotonic()
        competitor_id, job_id = add_competitor(api, server.url("/"))
        run_jobs()
        elapsed = time.monotonic() - started
    assert job(api, job_id)["status"] == "completed"
    assert elapsed < 8  # the slow page held the job about one deadline, not ten seconds
    urls = {i["url"] for i in intel(api, competitor_id)}
    assert server.url("/slow") not in urls and server.url("/about") in urls


def test_cancel_stops_the_crawl_between_pages(api, tmp_path, crawl_env, threaded_runner):
    root = copy_site(tmp_path / "site")
    release = threading.Event()
    with FixtureServer(root) as server:

        def blocked(handler):
            release.wait(10)
            server.serve_file(handler, "/products/flowdesk")

        server.routes["/products/flowdesk"] = blocked
        runner = threaded_runner(1)
        competitor_id, job_id = add_competitor(api, server.url("/"))
        try:
            wait_for(lambda: server.hits("/products/flowdesk"), 10, message="the blocked page")
            cancelled = api.post(f"/api/jobs/{job_id}/cancel").json["job"]
            assert cancelled["currentStep"] == "Cancelled"
            seen = len(server.requests)
        finally:
            release.set()
        wait_for(lambda: status_of(competitor_id) == "ERROR", 10, message="the competitor")
        assert runner.stop(10), "the worker did not leave the cancelled job"
        # it stopped at the next page: nothing else was fetched, nothing was stored
        assert len(server.requests) == seen
    assert job(api, job_id)["status"] == "failed"
    assert intel(api, competitor_id) == []
