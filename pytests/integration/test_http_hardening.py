"""HTTP hardening (docs/security.md, "HTTP hardening"): bodies judged by their
headers before they are read, chunked bodies decoded, slow bodies cut off,
no dotfiles, HEAD and ETags, security headers on every answer, CSV cells that
cannot run as formulas, and the admin API closed to other machines with auth off."""

from __future__ import annotations

import csv
import io
import json
import re
import socket
import time
import urllib.parse

import pytest

import helpers
import raw_http

ROOM = {"id": "probe", "controls": [{"id": "knob", "type": "slider", "min": 0, "max": 10}]}


# -- bodies


def test_a_content_length_over_the_limit_is_413_at_once_without_reading_the_body(server):
    # Headers and three bytes of a 100 MB body: the answer comes now, and the connection closes.
    head = b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{\"i"
    answer = raw_http.send(server.port, head)
    assert answer.status == 413, answer
    assert json.loads(answer.body)["code"] == "too_large"
    assert answer.closed
    assert server.get("/healthz").status == 200


def test_two_different_content_lengths_are_400(server):
    body = json.dumps(ROOM).encode()
    answer = raw_http.request(server.port, "POST", "/api/rooms",
                              [("Content-Length", str(len(body))), ("Content-Length", str(len(body) + 5))], body)
    assert answer.status == 400
    assert "conflicting Content-Length" in json.loads(answer.body)["message"]
    assert "probe" not in [r["id"] for r in server.get("/api/rooms").json()["rooms"]]
    # The same length twice is one length.
    same = raw_http.request(server.port, "POST", "/api/rooms",
                            [("Content-Length", str(len(body))), ("Content-Length", str(len(body)))], body)
    assert same.status == 201


def test_content_length_with_transfer_encoding_is_400(server):
    body = json.dumps(ROOM).encode()
    answer = raw_http.request(server.port, "POST", "/api/rooms",
                              [("Content-Length", str(len(body))), ("Transfer-Encoding", "chunked")], raw_http.chunked(body))
    assert answer.status == 400


def test_a_chunked_post_and_put_are_decoded_and_answered_at_once(server):
    # Answered when the last chunk arrives: a body whose end went unnoticed
    # would meet lws' own timeout, which hangs up without an answer (None).
    body = json.dumps(ROOM).encode()
    post = raw_http.request(server.port, "POST", "/api/rooms", [("Transfer-Encoding", "chunked")], raw_http.chunked(body, 7))
    assert post.status == 201, post
    assert server.get("/api/rooms/probe").status == 200
    put = raw_http.request(server.port, "PUT", "/api/rooms/probe/controls/knob", [("Transfer-Encoding", "chunked")],
                           raw_http.chunked(b'{"value": 7}', 4))
    assert put.status == 200, put
    assert json.loads(put.body)["state"] == {"value": 7}


def test_a_chunked_body_over_the_limit_is_413_and_a_broken_one_400(server):
    big = raw_http.request(server.port, "POST", "/api/rooms", [("Transfer-Encoding", "chunked")],
                           b"20000\r\n" + b"x" * 100)
    assert big.status == 413
    broken = raw_http.request(server.port, "POST", "/api/rooms", [("Transfer-Encoding", "chunked")], b"zz\r\nhello\r\n0\r\n\r\n")
    assert broken.status == 400
    other = raw_http.request(server.port, "POST", "/api/rooms", [("Transfer-Encoding", "gzip")], b"xx")
    assert other.status == 501


def test_a_body_on_a_get_is_never_taken_for_a_second_request(server):
    smuggled = b"DELETE /api/rooms/probe HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    assert server.request("POST", "/api/rooms", json.dumps(ROOM)).status == 201
    answer = raw_http.request(server.port, "GET", "/healthz", [("Content-Length", str(len(smuggled)))], smuggled)
    assert answer.status == 200
    assert answer.closed and answer.body == b"ok\n", "one answer, then the connection closes"
    assert "probe" in [r["id"] for r in server.get("/api/rooms").json()["rooms"]]


@pytest.mark.parametrize("flags", [(), ("--body-timeout", "2")], ids=["default 10 s", "--body-timeout 2"])
def test_a_body_trickled_a_byte_at_a_time_is_cut_off_with_408(start_server, flags):
    server = start_server(*flags)
    limit = int(flags[1]) if flags else 10
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=helpers.WAIT)
    sock.sendall(b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n")
    start = time.monotonic()
    received = b""
    closed = False
    try:
        # The scenario: a byte every 0.7 s (the recv's timeout paces it) until
        # the server cuts the body off; only a hang outlasts the deadline by WAIT.
        while time.monotonic() - start < limit + helpers.WAIT:
            try:
                sock.sendall(b" ")
            except OSError:
                closed = True
                break
            sock.settimeout(0.7)
            try:
                chunk = sock.recv(4096)
                if not chunk:
                    closed = True
                    break
                received += chunk
            except socket.timeout:
                pass
            except ConnectionResetError:
                closed = True
                break
            # Meanwhile the server serves others.
            assert server.get("/healthz").status == 200
    finally:
        sock.close()
    assert closed, f"the trickling connection was still open after {limit + helpers.WAIT} s"
    assert received.startswith(b"HTTP/1.1 408"), received[:80]
    assert f"within {limit} s".encode() in received, received
    assert server.metrics()['tandem_http_refused_total{reason="body_slow"}'] == 1


# -- static files


@pytest.fixture
def web_root(tmp_path):
    root = tmp_path / "web"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / "sub").mkdir()
    (root / "sub" / ".hidden").write_text("x")
    (root / "index.html").write_text("<!doctype html><title>t</title>\n")
    (root / "app.js").write_text("console.log(1)\n")
    (root / "link.txt").symlink_to(root / ".env")
    return root


def test_dotfiles_are_not_served(start_server, web_root):
    server = start_server("--web", str(web_root))
    for path in ("/.env", "/.git/config", "/.git/", "/sub/.hidden", "/link.txt", "/%2eenv"):
        assert helpers.raw_http_get(server.port, path).status == 404, path
    assert server.get("/app.js").status == 200
    assert server.get("/").status == 200


def test_head_answers_headers_without_a_body(start_server, web_root):
    server = start_server("--web", str(web_root))
    for path in ("/app.js", "/api/rooms", "/healthz"):
        get = server.get(path)
        # HEAD, then GET /healthz on the same connection: the bytes after the
        # HEAD's headers are the second answer's, so the HEAD had no body.
        with socket.create_connection(("127.0.0.1", server.port), timeout=helpers.WAIT) as sock:
            sock.sendall(f"HEAD {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
            head = raw_http.read_answer(sock, time.monotonic(), helpers.WAIT, head_only=True)
            assert head.status == 200, (path, head)
            sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
            after = raw_http.read_answer(sock, time.monotonic(), helpers.WAIT)
        assert head.body == b"", path
        assert after.status == 200 and after.body == b"ok\n", (path, after)
        assert head.header("content-length") == str(len(get.body)), path
        assert head.header("content-type") == get.header("content-type"), path


def test_etags_make_unchanged_files_304(start_server, web_root):
    server = start_server("--web", str(web_root))
    first = server.get("/app.js")
    etag = first.header("etag")
    assert etag and re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+"', etag)
    again = server.request("GET", "/app.js", headers={"If-None-Match": etag})
    assert again.status == 304
    assert again.body == b""
    assert again.header("etag") == etag
    assert server.request("GET", "/app.js", headers={"If-None-Match": '"other"'}).status == 200
    (web_root / "app.js").write_text("console.log(2)\n")
    changed = server.request("GET", "/app.js", headers={"If-None-Match": etag})
    assert changed.status == 200
    assert changed.header("etag") != etag


def test_every_answer_carries_the_csp_nosniff_and_referrer_policy(server):
    answers = [server.get("/"), server.get("/api/rooms"), server.get("/nope"), server.get("/healthz"),
               server.request("POST", "/api/rooms", "{")]
    for answer in answers:
        csp = answer.header("content-security-policy") or ""
        assert "default-src 'self'" in csp, answer
        assert "frame-ancestors 'self'" in csp
        assert "object-src 'none'" in csp
        assert f"ws://127.0.0.1:{server.port}" in csp
        assert answer.header("x-content-type-options") == "nosniff"
        assert answer.header("referrer-policy") == "same-origin"


# -- CSV


def test_history_csv_prefixes_cells_that_would_run_as_formulas(start_server, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "t.db"))
    name = '=HYPERLINK("http://evil.example","click")'
    client = connect(server, name=name)
    client.expect_ack(client.set("gain", 0.25))
    text = server.get("/api/rooms/demo/history.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[-1]["name"] == "'" + name
    assert rows[-1]["control"] == "gain"


# -- the admin API with auth off


@pytest.fixture
def start_elsewhere(start_server, monkeypatch):
    """Starts a server bound to a non-loopback address of this machine, so that requests come from a non-loopback peer."""
    address = raw_http.non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    monkeypatch.setattr(helpers, "START_LINE", re.compile(rf"^info tandem listening on http://{re.escape(address)}:(\d+) rooms="))

    def start(*flags: str):
        return address, start_server("--host", address, *flags)
    return start


def test_with_auth_off_the_admin_api_refuses_peers_other_than_loopback(start_elsewhere):
    address, server = start_elsewhere()
    body = json.dumps(ROOM).encode()
    post = raw_http.request(server.port, "POST", "/api/rooms", body=body, address=address)
    assert post.status == 403, post
    assert "--open-admin" in json.loads(post.body)["message"]
    delete = raw_http.request(server.port, "DELETE", "/api/rooms/demo", address=address)
    assert delete.status == 403
    # Reading and playing stay open.
    assert raw_http.request(server.port, "GET", "/api/rooms", address=address).status == 200
    put = raw_http.request(server.port, "PUT", "/api/rooms/demo/controls/gain", body=b'{"value": 0.3}', address=address)
    assert put.status == 200
    assert server.wait_for_log(r"^warn refused POST /api/rooms from .*loopback peers only")


def test_open_admin_lets_other_peers_create_rooms_and_is_warned(start_elsewhere):
    address, server = start_elsewhere("--open-admin")
    assert server.wait_for_log(r"^warn --open-admin with auth off")
    post = raw_http.request(server.port, "POST", "/api/rooms", body=json.dumps(ROOM).encode(), address=address)
    assert post.status == 201, post
    assert raw_http.request(server.port, "DELETE", "/api/rooms/probe", address=address).status == 204


def test_loopback_peers_keep_the_admin_api(server):
    assert server.request("POST", "/api/rooms", json.dumps(ROOM)).status == 201
    assert server.request("DELETE", "/api/rooms/probe").status == 204


@pytest.mark.parametrize("relay", [("X-Forwarded-For", "203.0.113.7"), ("Forwarded", "for=203.0.113.7;proto=https"),
                                   ("forwarded", "for=203.0.113.7")])
def test_a_request_relayed_by_a_proxy_on_this_machine_is_not_loopback_for_the_admin_api(server, relay):
    post = raw_http.request(server.port, "POST", "/api/rooms", [relay], body=json.dumps(ROOM).encode())
    assert post.status == 403
    assert "relayed by a proxy" in json.loads(post.body)["message"]
    assert server.request("GET", "/api/rooms/probe").status == 404
    # Reading and editing through the proxy are not admin: they pass.
    assert raw_http.request(server.port, "GET", "/api/rooms", [relay]).status == 200


# -- the request head (docs/security.md, "Headers and status lines", from the
# second hostile probe): header names, header size, reason phrases


def put_knob(server, headers, body: bytes) -> raw_http.RawResponse:
    return raw_http.request(server.port, "PUT", "/api/rooms/demo/controls/gain", headers, body)


def test_transfer_encoding_with_a_space_before_the_colon_and_a_content_length_is_400(server):
    before = server.get("/api/rooms/demo").json()["controls"]
    value = b'{"value": 0.25}'
    # RFC 9112 5.1: no whitespace between a field name and its colon; a proxy
    # may take this for chunked while a length-reading server takes the length.
    answer = put_knob(server, [("Transfer-Encoding ", "chunked"), ("Content-Length", str(len(value)))], value)
    assert answer.status == 400, answer
    body = json.loads(answer.body)
    assert body["code"] == "bad_request" and "transfer-encoding " in body["message"]
    assert answer.closed
    assert server.get("/api/rooms/demo").json()["controls"] == before
    assert server.metrics()['tandem_http_refused_total{reason="bad_header_name"}'] == 1


@pytest.mark.parametrize("name", ["X-Probe ", "X Probe", "X-Probe\t", " Host2"])
def test_any_header_name_that_is_not_a_token_is_400(server, name):
    answer = raw_http.request(server.port, "GET", "/api/rooms", [(name, "1")])
    assert answer.status == 400, (name, answer)
    assert json.loads(answer.body)["code"] == "bad_request"


def test_ordinary_headers_pass(server):
    answer = raw_http.request(server.port, "GET", "/api/rooms", [("X-Forwarded-Proto", "http"), ("Accept", "*/*"),
                                                                  ("X_Odd.Name~1", "tchar names are tokens")])
    assert answer.status == 200, answer


def test_a_status_without_a_reason_in_lws_gets_one(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=helpers.WAIT) as sock:
        sock.sendall(b"GET /api/rooms HTTP/1.1\r\nHost: attacker.example\r\n\r\n")
        data = sock.recv(65536)
    assert data.startswith(b"HTTP/1.1 421 Misdirected Request\r\n"), data[:80]


def test_headers_over_16_kib_are_431_with_a_json_body(server):
    answer = raw_http.request(server.port, "GET", "/api/rooms", [("X-Padding", "p" * 20_000)])
    assert answer.status == 431, answer
    assert json.loads(answer.body)["code"] == "headers_too_large"
    assert server.get("/healthz").status == 200
    assert server.metrics()['tandem_http_refused_total{reason="headers_too_large"}'] == 1


@pytest.mark.parametrize("loop", ["uv", "poll"])
def test_headers_over_the_table_on_a_kept_alive_connection_are_431_too(start_server, loop):
    server = start_server("--event-loop", loop)
    with socket.create_connection(("127.0.0.1", server.port), timeout=helpers.WAIT) as sock:
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        assert raw_http.read_answer(sock, time.monotonic(), helpers.WAIT).status == 200
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Pad: {'p' * 20_000}\r\n\r\n".encode())
        answer = raw_http.read_answer(sock, time.monotonic(), helpers.WAIT)
    assert answer.status == 431, answer
    assert answer.closed
    # Too many header lines (lws' fragment table) are the same refusal.
    many = raw_http.request(server.port, "GET", "/api/rooms", [("Cookie", "a=b")] * 300)
    assert many.status == 431, many


def test_a_6_kb_header_fits(server):
    answer = raw_http.request(server.port, "GET", "/api/rooms", [("X-Padding", "p" * 6_000)])
    assert answer.status == 200, answer


def test_every_api_answer_says_no_store_and_files_do_not(server):
    for answer in (server.get("/api/rooms"), server.get("/api/rooms/demo"), server.get("/api/rooms/nope"),
                   server.request("POST", "/api/rooms", "{")):
        assert answer.header("cache-control") == "no-store", answer
    assert server.get("/").header("cache-control") == "no-cache"


def test_the_browsers_unit_tests_and_tooling_are_not_served(server):
    tests = sorted((helpers.ROOT / "web" / "test").glob("*.mjs"))
    assert tests, "web/test/*.mjs"
    for path in (f"/test/{tests[0].name}", "/test/", "/js/package.json"):
        assert helpers.raw_http_get(server.port, path).status == 404, path
    assert server.get("/js/app.js").status == 200


# -- long tokens (docs/security.md: a token is at most 4 KiB)

SECRET = b"the current secret: at least thirty-two bytes long"


def jwt(length: int, room="demo", role="editor") -> str:
    """An HS256 token of exactly `length` bytes (a `pad` claim makes up the length)."""
    import base64
    import hashlib
    import hmac

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    def make(pad: int) -> str:
        payload = {"sub": "u1", "room": room, "role": role, "exp": int(time.time() + 3600), "pad": "x" * pad}
        signing_input = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64(json.dumps(payload).encode())
        return signing_input + "." + b64(hmac.new(SECRET, signing_input.encode(), hashlib.sha256).digest())

    pad = 0
    while len(make(pad)) < length:
        pad += max(1, (length - len(make(pad))) * 3 // 4)
    while len(make(pad)) > length:
        pad -= 1
    token = make(pad)
    assert length - 2 <= len(token) <= length, len(token)
    return token


@pytest.fixture
def auth_server(start_server, tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET + b"\n")
    return start_server("--auth-secret-file", str(secret))


def test_a_4_kib_token_opens_a_websocket_and_the_api(auth_server, open_ws):
    token = jwt(4096)
    ws = open_ws(auth_server.ws_url("demo", token=token))
    assert json.loads(ws.recv(helpers.WAIT))["type"] == "welcome"
    answer = raw_http.request(auth_server.port, "GET", "/api/rooms/demo", [("Authorization", f"Bearer {token}")])
    assert answer.status == 200, answer
    assert answer.header("cache-control") == "no-store"


def test_a_5_kb_token_is_4401_token_too_long_on_a_websocket(auth_server, open_ws):
    ws = open_ws(auth_server.ws_url("demo", token=jwt(5000)))
    assert helpers.wait_closed(ws) == (4401, "token too long")


def test_a_5_kb_token_is_401_token_too_long_over_http(auth_server):
    for headers, path in (([("Authorization", f"Bearer {jwt(5000)}")], "/api/rooms/demo"),
                          ([], f"/api/rooms/demo?token={jwt(5000)}")):
        answer = raw_http.request(auth_server.port, "GET", path, headers)
        assert answer.status == 401, answer
        assert json.loads(answer.body) == {"code": "unauthorized", "message": "token too long"}
        assert answer.header("cache-control") == "no-store"


def test_a_token_past_the_header_table_is_431_before_the_upgrade(auth_server):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect as ws_connect
    with pytest.raises(InvalidStatus) as caught:
        with ws_connect(auth_server.ws_url("demo", token=jwt(20_000)), open_timeout=helpers.WAIT,
                        subprotocols=[helpers.SUBPROTOCOL]):
            pass
    assert caught.value.response.status_code == 431
    assert json.loads(caught.value.response.body)["code"] == "headers_too_large"
