"""The OpenAI-compatible provider against a fake /embeddings server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from ci_service.embeddings import EmbeddingError
from ci_service.embeddings.openai_compat import OpenAICompatEmbeddingProvider

DIM = 8


def fake_vector(text: str, dim: int = DIM) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [(b - 128) / 10 for b in digest[:dim]]  # deliberately not normalised


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[dict] = []
        self.responses: list = []  # queued (status, body) or callables; default: success

    def handle_error(self, request, client_address):  # client went away (timeout test)
        pass

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        self.server.requests.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        planned = self.server.responses.pop(0) if self.server.responses else None
        if callable(planned):
            planned = planned(body)
        if planned is None:
            data = [
                {"object": "embedding", "index": i, "embedding": fake_vector(text)}
                for i, text in enumerate(body["input"])
            ]
            planned = (200, {"object": "list", "data": data[::-1], "model": body["model"]})
        status, payload = planned
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture(scope="module")
def _server():
    srv = FakeServer()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(5)


@pytest.fixture
def server(_server):
    _server.requests.clear()
    _server.responses.clear()
    return _server


@pytest.fixture
def make(server):
    made = []

    def factory(**kwargs):
        kwargs.setdefault("backoff", 0.0)
        provider = OpenAICompatEmbeddingProvider(server.base_url, "test-model", **kwargs)
        made.append(provider)
        return provider

    yield factory
    for provider in made:
        provider.close()


def test_embeds_in_order_normalised(server, make):
    provider = make(api_key="sk-test", dimension=DIM)
    out = provider.embed(["alpha", "beta", "gamma"])
    assert out.shape == (3, DIM) and out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    expected = np.array(fake_vector("beta"), dtype=np.float32)
    assert np.allclose(out[1], expected / np.linalg.norm(expected), atol=1e-6)
    (request,) = server.requests
    assert request["path"] == "/v1/embeddings"
    assert request["body"] == {"model": "test-model", "input": ["alpha", "beta", "gamma"]}
    assert request["auth"] == "Bearer sk-test"
    assert provider.name == "openai:test-model"


def test_batches_and_skips_empty_texts(server, make):
    provider = make(batch_size=2)
    out = provider.embed(["a", "", "b", "  ", "c"])
    assert [r["body"]["input"] for r in server.requests] == [["a", "b"], ["c"]]
    assert server.requests[0]["auth"] is None
    assert not out[1].any() and not out[3].any() and out[[0, 2, 4]].all(axis=1).any()
    assert provider.dimension == DIM  # learned from the first response


def test_dimension_probe_when_unknown(server, make):
    provider = make()
    assert provider.dimension == DIM
    assert len(server.requests) == 1
    assert provider.embed(["", " "]).shape == (2, DIM)
    assert len(server.requests) == 1  # nothing to send for blank texts


def test_wrong_dimension_is_an_error(server, make):
    provider = make(dimension=16)
    with pytest.raises(EmbeddingError, match="8-dimensional vectors, expected 16"):
        provider.embed(["x"])


def test_dimension_change_between_calls_is_caught(server, make):
    provider = make()
    provider.embed(["first"])
    server.responses.append(
        lambda body: (200, {"data": [{"index": 0, "embedding": [1.0, 2.0, 3.0]}]})
    )
    with pytest.raises(EmbeddingError, match="3-dimensional"):
        provider.embed(["second"])


@pytest.mark.parametrize(
    ("status", "payload", "message"),
    [
        (401, {"error": {"message": "Incorrect API key provided"}}, "HTTP 401: Incorrect API key"),
        (400, {"detail": "input too long"}, "HTTP 400: input too long"),
        (404, b"<html>not found</html>", "HTTP 404: <html>not found"),
        (500, {"error": "boom"}, "HTTP 500: boom"),
    ],
)
def test_error_responses(server, make, status, payload, message):
    provider = make(max_retries=0)
    server.responses.append((status, payload))
    with pytest.raises(EmbeddingError, match=message):
        provider.embed(["x"])


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"not json", "non-JSON"),
        ({"object": "list"}, "no 'data' list"),
        ({"data": []}, "sent 1 inputs, got 0"),
        ({"data": [{"index": 0}]}, "no vector"),
        ({"data": [{"index": 5, "embedding": [1.0]}]}, "bad index"),
        ({"data": [{"index": 0, "embedding": ["a", "b"]}]}, "non-numeric"),
    ],
)
def test_malformed_responses(server, make, payload, message):
    provider = make()
    server.responses.append((200, payload))
    with pytest.raises(EmbeddingError, match=message):
        provider.embed(["x"])


def test_retries_rate_limits_then_succeeds(server, make):
    provider = make(max_retries=2)
    server.responses.extend([(429, {"error": {"message": "slow down"}}), (503, {})])
    out = provider.embed(["x"])
    assert out.shape == (1, DIM) and len(server.requests) == 3


def test_gives_up_after_retries(server, make):
    provider = make(max_retries=1)
    server.responses.extend([(503, {"error": "a"}), (503, {"error": "b"})])
    with pytest.raises(EmbeddingError, match="HTTP 503: b"):
        provider.embed(["x"])


def test_timeout_is_an_error(server, make):
    def slow(body):
        time.sleep(1.0)
        return None

    provider = make(timeout=0.2, max_retries=0)
    server.responses.append(slow)
    with pytest.raises(EmbeddingError, match="Timeout"):
        provider.embed(["x"])


def test_connection_refused_is_an_error(make):
    provider = OpenAICompatEmbeddingProvider(
        "http://127.0.0.1:9/v1", "m", timeout=1.0, max_retries=0
    )
    try:
        with pytest.raises(EmbeddingError, match="failed: ConnectError"):
            provider.embed(["x"])
    finally:
        provider.close()
