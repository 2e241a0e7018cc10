"""What the OpenAPI fuzzer found, pinned down.

- A query string longer than waitress's header limit (``competitorIds`` of /api/matrix and
  /api/matrix/solutions, ``ids`` of /api/nodes may be up to 70,000 characters; percent-encoded
  non-ASCII ids are 12 bytes a character) was answered by waitress itself, before the app,
  with a text/plain 431: the only non-JSON body of the API. Errors waitress produces now use
  the JSON envelope too.
"""

from __future__ import annotations

import http.client
import json
import socket
from urllib.parse import quote, urlsplit

from tests.live import LiveServer


def test_waitress_errors_use_the_envelope(app):
    from waitress.utilities import BadRequest, RequestHeaderFieldsTooLarge

    status, headers, body = RequestHeaderFieldsTooLarge("exceeds max_header of 262144").to_response(
        "ci-service"
    )
    assert status == "431 Request Header Fields Too Large"
    assert headers == [("Content-Type", "application/json")]
    assert json.loads(body) == {
        "error": {
            "code": "REQUEST_HEADER_FIELDS_TOO_LARGE",
            "message": "Request Header Fields Too Large",
            "details": {"reason": "exceeds max_header of 262144"},
        }
    }
    status, _, body = BadRequest("").to_response()
    assert status == "400 Bad Request"
    assert json.loads(body) == {"error": {"code": "VALIDATION_ERROR", "message": "Bad Request"}}


def _raw(server, request: bytes) -> tuple[bytes, bytes]:
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sock.sendall(request)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    return head, body


def test_oversized_and_malformed_requests_get_json_from_the_server(database_url):
    with LiveServer(database_url, "--no-scheduler", "--job-workers", "0") as server:
        ids = quote(",".join(["\u00e9" * 30] * 5_000))  # 70,000 characters, 300 KB encoded
        address = urlsplit(server.url)
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
        connection.request("GET", f"/api/matrix?competitorIds={ids}")
        response = connection.getresponse()
        assert response.status == 431
        assert response.getheader("Content-Type") == "application/json"
        assert json.loads(response.read())["error"]["code"] == "REQUEST_HEADER_FIELDS_TOO_LARGE"
        connection.close()

        head, body = _raw(
            server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n"
        )
        assert head.startswith(b"HTTP/1.1 400"), head
        assert b"Content-Type: application/json" in head, head
        assert json.loads(body)["error"]["code"] == "VALIDATION_ERROR"
