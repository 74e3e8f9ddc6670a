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
