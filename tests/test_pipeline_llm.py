"""The optional LLM provider against a local fake OpenAI-compatible server: good answers are
used, bad or failed ones fall back to the deterministic extractor, are logged, and are never
stored."""

from __future__ import annotations

import io
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ci_service.pipeline.llm import (
    DeterministicProvider,
    OpenAICompatProvider,
    get_provider,
)
from tests.intel_support import make_pdf
from tests.pipeline_fixtures.support import DATASHEET_LINES, job, run_jobs
from tests.resource_helpers import ok

pytest_plugins = ["tests.pipeline_fixtures.plugin"]

TEXT = (
    "InsightBoard turns support data into dashboards. It exports reports every night. "
    "Support leaders use it daily."
)


class FakeLLM:
    """``POST /v1/chat/completions``; ``answer`` is the message content to send (a str),
    or an int HTTP status, or "hang" to stall past the client's timeout."""

    def __init__(self):
        self.answer: object = '{"summary": "ok"}'
        self.requests: list[dict] = []
        self.stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(
                    {"path": self.path, "body": body, "headers": dict(self.headers)}
                )
                answer = owner.answer
                if answer == "hang":
                    owner.stopping.wait(5)
                    return
                if isinstance(answer, int):
                    payload, status = b'{"error": {"message": "boom"}}', answer
                else:
                    completion = {
                        "choices": [{"message": {"role": "assistant", "content": answer}}]
                    }
                    payload, status = json.dumps(completion).encode(), 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}
        )

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture
def fake_llm():
    with FakeLLM() as server:
        yield server


def provider(fake, timeout=5.0):
    return OpenAICompatProvider(fake.base, "test-model", api_key="sk-test", timeout=timeout)


def test_good_answers_are_used(fake_llm):
    fake_llm.answer = '{"summary": "A support analytics product."}'
    assert provider(fake_llm).summarize(TEXT) == "A support analytics product."
    sent = fake_llm.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == "Bearer sk-test"
    assert sent["body"]["model"] == "test-model"
    assert sent["body"]["response_format"] == {"type": "json_object"}
    fake_llm.answer = '```json\n{"labels": ["mobile", "Analytics & Reporting"]}\n```'
    labels = ["Analytics & Reporting", "Mobile", "Billing & Payments"]
    assert provider(fake_llm).classify(TEXT, labels) == ["Mobile", "Analytics & Reporting"]


@pytest.mark.parametrize(
    "answer, reason",
    [
        ("this is not JSON at all", "message content is not JSON"),
        ('["a list"]', "not a JSON object"),
        ('{"summary": ""}', "summary missing or empty"),
        ('{"labels": ["Invented label"]}', "not among those offered"),
        ('{"labels": "Mobile"}', "labels is not a list of strings"),
        (500, "HTTP 500"),
    ],
)
def test_bad_answers_fall_back_and_are_logged(fake_llm, caplog, answer, reason):
    fake_llm.answer = answer
    llm, plain = provider(fake_llm), DeterministicProvider()
    labels = ["Analytics & Reporting", "Mobile"]
    with caplog.at_level(logging.WARNING, "ci_service.pipeline.llm"):
        assert llm.summarize(TEXT, max_chars=60) == plain.summarize(TEXT, max_chars=60)
        assert (
            llm.classify(TEXT, labels) == plain.classify(TEXT, labels) == ["Analytics & Reporting"]
        )
    messages = [r.getMessage() for r in caplog.records]
    assert any(reason in m and "deterministic" in m for m in messages), messages
    assert not any("Invented label" in m or "not JSON at all" in m for m in messages)


def test_a_timeout_falls_back(fake_llm, caplog):
    fake_llm.answer = "hang"
    with caplog.at_level(logging.WARNING, "ci_service.pipeline.llm"):
        assert provider(fake_llm, timeout=0.3).summarize(TEXT, max_chars=50) == (
            DeterministicProvider().summarize(TEXT, max_chars=50)
        )
    assert any("ReadTimeout" in r.getMessage() for r in caplog.records)


def test_provider_selection(monkeypatch):
    assert isinstance(get_provider({}), DeterministicProvider)
    assert isinstance(get_provider({"CI_SERVICE_LLM_BASE_URL": "http://x"}), DeterministicProvider)
    chosen = get_provider(
        {
            "CI_SERVICE_LLM_BASE_URL": "http://x/v1/",
            "CI_SERVICE_LLM_MODEL": "m",
            "CI_SERVICE_LLM_TIMEOUT": "7",
        }
    )
    assert isinstance(chosen, OpenAICompatProvider)
    assert (chosen.base_url, chosen.model, chosen.timeout) == ("http://x/v1", "m", 7.0)


def upload_datasheet(api):
    offering = ok(
        api.post("/api/offerings", json={"name": "FlowDesk", "description": "", "audience": ""})
    )["offering"]
    pdf = make_pdf([DATASHEET_LINES])
    job_id = ok(
        api.post(
            f"/api/offerings/{offering['id']}/upload",
            data={"file": (io.BytesIO(pdf), "datasheet.pdf", "application/pdf")},
            content_type="multipart/form-data",
        )
    )["jobId"]
    run_jobs()
    assert job(api, job_id)["status"] == "completed"
    with_categories = ok(api.get(f"/api/products/{offering['id']}"))["product"]
    return {c["name"] for c in with_categories["categories"]}


def test_jobs_use_the_configured_provider(api, fake_llm, crawl_env):
    crawl_env.setenv("CI_SERVICE_LLM_BASE_URL", fake_llm.base)
    crawl_env.setenv("CI_SERVICE_LLM_MODEL", "test-model")
    fake_llm.answer = '{"labels": ["Mobile"]}'
    assert upload_datasheet(api) == {"Mobile"}
    assert fake_llm.requests


def test_jobs_never_store_a_bad_answer(api, fake_llm, crawl_env, caplog):
    crawl_env.setenv("CI_SERVICE_LLM_BASE_URL", fake_llm.base)
    crawl_env.setenv("CI_SERVICE_LLM_MODEL", "test-model")
    fake_llm.answer = '{"labels": ["<script>alert(1)</script>"]}'
    with caplog.at_level(logging.WARNING, "ci_service.pipeline.llm"):
        categories = upload_datasheet(api)
    assert "<script>alert(1)</script>" not in categories
    assert "Automation & Workflow" in categories  # the deterministic keywords instead
    assert any("not among those offered" in r.getMessage() for r in caplog.records)
