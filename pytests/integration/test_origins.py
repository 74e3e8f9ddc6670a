"""Origins and hosts (docs/security.md, "Origins and hosts"): a foreign Origin
on a WebSocket or a state-changing request is 403, a foreign Host 421, with
auth off as with it on."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from websockets.exceptions import InvalidStatus

import helpers
import raw_http
from helpers import ROOT, WAIT

ROOM = {"id": "probe", "controls": [{"id": "knob", "type": "slider", "min": 0, "max": 10}]}


def rooms(server) -> list[str]:
    return [r["id"] for r in server.get("/api/rooms").json()["rooms"]]


def test_a_websocket_from_a_foreign_origin_is_refused_403(server, open_ws):
    refused = raw_http.upgrade(server.port, origin="http://evil.example")
    assert refused.status == 403
    assert json.loads(refused.body)["code"] == "foreign_origin"
    assert "--allow-origin" in json.loads(refused.body)["message"]
    # The websockets client reads the refusal and reports its status (test_upgrade_refusals.py).
    with pytest.raises(InvalidStatus) as caught:
        open_ws(server.url, origin="http://evil.example")
    assert caught.value.response.status_code == 403
    assert server.wait_for_log(r"refused upgrade /rooms/demo .* 403")


def test_a_websocket_from_the_servers_own_origin_or_without_origin_is_welcomed(server, open_ws, connect):
    own = open_ws(server.url, origin=f"http://127.0.0.1:{server.port}")
    assert json.loads(own.recv(WAIT))["type"] == "welcome"
    assert connect(server).welcome["type"] == "welcome"  # no Origin at all: a program


def test_a_websocket_from_an_allowed_origin_is_welcomed(start_server, open_ws):
    server = start_server("--allow-origin", "https://app.example", "--allow-origin", "http://tools.example:3000")
    for origin in ("https://app.example", "http://tools.example:3000"):
        ws = open_ws(server.url, origin=origin)
        assert json.loads(ws.recv(WAIT))["type"] == "welcome", origin
    assert raw_http.upgrade(server.port, origin="http://tools.example:3001").status == 403


@pytest.mark.parametrize("method, path, body", [
    ("POST", "/api/rooms", json.dumps(ROOM)),
    ("PUT", "/api/rooms/demo/controls/gain", '{"value": 0.9}'),
    ("DELETE", "/api/rooms/probe", None),
])
def test_a_state_changing_request_from_a_foreign_origin_is_403_and_changes_nothing(server, method, path, body):
    assert server.request("POST", "/api/rooms", json.dumps(ROOM)).status == 201
    before = server.get("/api/rooms/demo").json()
    # text/plain: the "simple" cross-site request a browser sends with no preflight.
    answer = server.request(method, path, body, headers={"Origin": "http://evil.example", "Content-Type": "text/plain"})
    assert answer.status == 403, answer
    assert answer.json()["code"] == "foreign_origin"
    assert "--allow-origin" in answer.json()["message"]
    assert "probe" in rooms(server)
    assert server.get("/api/rooms/demo").json()["controls"] == before["controls"]


def test_state_changing_requests_from_the_own_origin_or_without_origin_pass(server):
    own = {"Origin": f"http://127.0.0.1:{server.port}"}
    assert server.request("POST", "/api/rooms", json.dumps(ROOM), headers=own).status == 201
    assert server.request("PUT", "/api/rooms/probe/controls/knob", '{"value": 3}', headers=own).status == 200
    assert server.request("PUT", "/api/rooms/probe/controls/knob", '{"value": 4}').status == 200
    assert server.request("DELETE", "/api/rooms/probe", headers=own).status == 204


def test_reads_from_a_foreign_origin_are_answered(server):
    # GET changes nothing; the browser keeps the answer from the foreign page (no CORS headers).
    answer = server.request("GET", "/api/rooms", headers={"Origin": "http://evil.example"})
    assert answer.status == 200
    assert answer.header("access-control-allow-origin") is None


def test_a_foreign_host_is_421_on_pages_api_and_websockets(server):
    for path in ("/", "/healthz", "/api/rooms"):
        answer = raw_http.request(server.port, "GET", path, host="attacker.example")
        assert answer.status == 421, (path, answer)
    answer = raw_http.request(server.port, "GET", "/api/rooms", host="attacker.example:%d" % server.port)
    assert answer.status == 421
    assert json.loads(answer.body)["code"] == "misdirected"
    assert "--public-host" in json.loads(answer.body)["message"]
    assert raw_http.upgrade(server.port, host="attacker.example").status == 421
    # POST from a rebound name creates nothing.
    post = raw_http.request(server.port, "POST", "/api/rooms", body=json.dumps(ROOM).encode(), host="attacker.example")
    assert post.status == 421
    assert "probe" not in rooms(server)
    assert server.metrics()['tandem_http_refused_total{reason="misdirected"}'] >= 5


def test_loopback_names_pass_with_or_without_the_port(server):
    for host in ("localhost", f"localhost:{server.port}", "127.0.0.1", f"[::1]:{server.port}"):
        assert raw_http.request(server.port, "GET", "/healthz", host=host).status == 200, host
    assert raw_http.upgrade(server.port, host=f"localhost:{server.port}", origin=f"http://localhost:{server.port}").status == 101


def test_a_missing_host_on_http_1_1_is_400(server):
    answer = raw_http.request(server.port, "GET", "/healthz", host=None)
    assert answer.status == 400
    assert "Host" in json.loads(answer.body)["message"]
    http10 = raw_http.send(server.port, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert http10.status == 200


def test_public_hosts_are_answered_and_other_names_are_not(start_server):
    server = start_server("--public-host", "tandem.example", "--public-host", "alt.example:8443")
    assert raw_http.request(server.port, "GET", "/healthz", host="tandem.example").status == 200
    assert raw_http.request(server.port, "GET", "/healthz", host="tandem.example:8080").status == 200
    assert raw_http.request(server.port, "GET", "/healthz", host="alt.example:8443").status == 200
    assert raw_http.request(server.port, "GET", "/healthz", host="alt.example:80").status == 421
    assert raw_http.request(server.port, "GET", "/healthz", host="attacker.example").status == 421
    assert raw_http.request(server.port, "GET", "/healthz", host="localhost").status == 200
    # The page's own origin under its public name.
    assert raw_http.upgrade(server.port, host="tandem.example:8080", origin="http://tandem.example:8080").status == 101
    assert raw_http.upgrade(server.port, host="tandem.example:8080", origin="http://attacker.example").status == 403


def test_allow_origin_star_allows_any_and_is_warned_at_start(start_server, open_ws):
    server = start_server("--allow-origin", "*")
    assert server.wait_for_log(r"^warn .*--allow-origin '\*'")
    ws = open_ws(server.url, origin="http://evil.example")
    assert json.loads(ws.recv(WAIT))["type"] == "welcome"


@pytest.mark.parametrize("flag, value", [("--allow-origin", "evil.example"), ("--allow-origin", "ftp://x"),
                                         ("--public-host", "http://x"), ("--public-host", "a b")])
def test_a_bad_origin_or_host_flag_exits_2_naming_it(tandem_binary, flag, value):
    result = subprocess.run([str(tandem_binary), flag, value, "--port", "0", "--data", ":memory:"],
                            cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 2, result
    assert flag in result.stderr


def test_a_server_on_a_non_loopback_address_without_public_host_warns_and_takes_any_host(start_server, monkeypatch):
    address = raw_http.non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    monkeypatch.setattr(helpers, "START_LINE", re.compile(rf"^info tandem listening on http://{re.escape(address)}:(\d+) rooms="))
    server = start_server("--host", address)
    assert server.wait_for_log(r"^warn .*no --public-host: the Host header is not checked")
    assert raw_http.request(server.port, "GET", "/healthz", host="whatever.example", address=address).status == 200
    # A loopback name from a peer that is not loopback is not this server's name once names are declared.
    declared = start_server("--host", address, "--public-host", "tandem.example")
    assert raw_http.request(declared.port, "GET", "/healthz", host="tandem.example", address=address).status == 200
    assert raw_http.request(declared.port, "GET", "/healthz", host="localhost", address=address).status == 421
