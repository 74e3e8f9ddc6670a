"""WebSocket handshakes refused before the upgrade (docs/security.md,
"Upgrade refusals"): each is an HTTP/1.1 answer with a reason phrase and the
API's JSON problem body, which a standard client library reads and reports
with its status. lws' own refusal page said HTTP/1.0 in HTML (linking an
/error.css that does not exist), with no reason phrase for 421 or 426, and
Python's websockets could not read it ("did not receive a valid HTTP response").
"""

from __future__ import annotations

import json
import re
import socket

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

import raw_http
from helpers import SUBPROTOCOL, WAIT, wait_closed


def refused_by_websockets(url: str, **kwargs) -> InvalidStatus:
    """Opens `url` with Python's websockets and returns the InvalidStatus it raises."""
    kwargs.setdefault("subprotocols", [SUBPROTOCOL])
    with pytest.raises(InvalidStatus) as caught:
        with ws_connect(url, open_timeout=WAIT, **kwargs):
            pass
    return caught.value


def status_line(answer: bytes) -> str:
    return answer.split(b"\r\n", 1)[0].decode("latin-1")


def read_raw(port: int, request: bytes) -> bytes:
    """Sends `request` and returns the answer's bytes (up to its Content-Length or the server's close)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    try:
        sock.sendall(request)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
            head, sep, body = data.partition(b"\r\n\r\n")
            match = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            if sep and match and len(body) >= int(match.group(1)):
                break
        return data
    finally:
        sock.close()


def upgrade_request(port: int, path: str = "/rooms/demo", extra: list[str] = (), version: str = "13",
                    host: str | None = None) -> bytes:
    lines = [f"GET {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}", "Upgrade: websocket", "Connection: Upgrade",
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", f"Sec-WebSocket-Version: {version}",
             f"Sec-WebSocket-Protocol: {SUBPROTOCOL}", *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def problem_of(answer: bytes) -> dict:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert re.search(rb"(?i)\r\ncontent-type: application/json", head), head
    return json.loads(body)


def test_a_foreign_origin_is_a_403_that_websockets_reports_with_its_status(server):
    refusal = refused_by_websockets(server.ws_url("demo"), origin="http://evil.example")
    assert refusal.response.status_code == 403
    assert refusal.response.reason_phrase == "Forbidden"
    body = json.loads(refusal.response.body)
    assert body["code"] == "foreign_origin"
    assert "--allow-origin" in body["message"]


def test_the_refusal_is_http_1_1_with_a_reason_phrase_and_no_html(server):
    answer = read_raw(server.port, upgrade_request(server.port, extra=["Origin: http://evil.example"]))
    assert status_line(answer) == "HTTP/1.1 403 Forbidden"
    assert b"<html" not in answer.lower() and b"error.css" not in answer
    assert problem_of(answer)["code"] == "foreign_origin"
    assert re.search(rb"(?i)\r\nconnection: close", answer)


def test_a_foreign_host_is_421_misdirected_request(server):
    answer = read_raw(server.port, upgrade_request(server.port, host="attacker.example"))
    assert status_line(answer) == "HTTP/1.1 421 Misdirected Request"
    body = problem_of(answer)
    assert body["code"] == "misdirected" and "--public-host" in body["message"]


def test_a_version_other_than_13_is_426_upgrade_required(server):
    answer = read_raw(server.port, upgrade_request(server.port, version="8"))
    assert status_line(answer) == "HTTP/1.1 426 Upgrade Required"
    assert re.search(rb"(?i)\r\nsec-websocket-version: 13\r\n", answer)
    assert problem_of(answer)["code"] == "upgrade_required"


def test_an_unsupported_subprotocol_is_a_400_websockets_reports(server):
    refusal = refused_by_websockets(server.ws_url("demo"), subprotocols=["chat"])
    assert refusal.response.status_code == 400
    assert refusal.response.reason_phrase == "Bad Request"
    assert json.loads(refusal.response.body)["code"] == "bad_subprotocol"


def test_a_path_that_is_no_websocket_endpoint_is_403(server):
    refusal = refused_by_websockets(f"ws://127.0.0.1:{server.port}/nowhere")
    assert refusal.response.status_code == 403
    body = json.loads(refusal.response.body)
    assert body["code"] == "forbidden" and "/rooms/{room}" in body["message"]


def test_a_header_name_with_a_space_before_its_colon_is_400(server):
    answer = read_raw(server.port, upgrade_request(server.port, extra=["X-Probe : 1"]))
    assert status_line(answer) == "HTTP/1.1 400 Bad Request"
    body = problem_of(answer)
    assert body["code"] == "bad_request" and "x-probe " in body["message"]


def test_each_refusal_is_counted_by_reason(server):
    read_raw(server.port, upgrade_request(server.port, extra=["Origin: http://evil.example"]))
    read_raw(server.port, upgrade_request(server.port, path="/nowhere"))
    metrics = server.metrics()
    assert metrics['tandem_handshakes_refused_total{reason="foreign_origin"}'] == 1
    assert metrics['tandem_handshakes_refused_total{reason="path"}'] == 1
    assert metrics['tandem_http_requests_total{status="403"}'] >= 1


def test_what_is_known_only_after_the_upgrade_stays_a_close_code(server, open_ws):
    # A browser never sees a refused handshake's status; an unknown room is
    # the documented close 4404, which it does see.
    ws = open_ws(server.ws_url("nope"))
    assert wait_closed(ws)[0] == 4404
