"""The attacker's list of the first abuse probe, replayed: each abuse it found
gets its clear answer (docs/security.md, "The attacker's list, replayed"),
counted where a metric exists, and the server keeps serving everyone else
meanwhile — `/healthz` answers on a fresh connection, and two members of the
demo room (connected before the abuse) still see each other's changes.

Each test starts its own server. The resource abuses are scaled down (a
small limit, a few thousand sockets); the full-size numbers are in
docs/security.md, "The attacker's list, replayed" (bench/abuse/replay.py).
Abuses whose own tests already check that others are served are not
repeated here: 1,100 slow handshakes and a burst of half requests
(test_connection_limits.py, both event loops, /healthz throughout), the fd
limit at its derived value (test_connection_limits.py, `ulimit -n 128`); the
container's user and address are checked statically (test_container.py).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import socket
import threading
import time

import pytest

import helpers
import raw_http
from helpers import OP_CLOSE, WAIT, Client, ConnectionClosed, RawWebSocket, has_change, healthz, open_websocket
from test_auth import SECRET, token  # tokens minted independently of the server



# -- the bystanders




class Bystanders:
    """Two members of the demo room who were there before the attacker came.

    `served()` asserts the server still serves others: a fresh `/healthz` is
    200, and a change by one member reaches the other.
    """

    def __init__(self, server, stack: contextlib.ExitStack, address: str = "127.0.0.1", token: str | None = None):
        self.server, self.address = server, address
        query = f"?token={token}" if token else ""
        url = f"ws://{address}:{server.port}/rooms/demo{query}"
        self.writer = Client(stack.enter_context(open_websocket(url)))
        self.watcher = Client(stack.enter_context(open_websocket(url)))
        self.value = 0

    def served(self) -> None:
        assert healthz(self.server.port, self.address) == 200
        self.value = (self.value + 1) % 100
        seq = self.writer.set("gain", self.value / 100)
        self.writer.expect_ack(seq)
        self.watcher.expect(has_change("gain", by=self.writer.id))


@pytest.fixture
def bystanders():
    """Factory: `bystanders(server, address=..., token=...)`; their connections close at teardown."""
    with contextlib.ExitStack() as stack:
        yield lambda server, **kwargs: Bystanders(server, stack, **kwargs)


def room(id_: str, title: str | None = None) -> dict:
    body = {"id": id_, "controls": [{"id": "knob", "type": "slider", "min": 0, "max": 10}]}
    if title is not None:
        body["title"] = title
    return body


DEMO_HIJACK = json.dumps({"id": "demo", "title": "pwned", "controls": [{"id": "x", "type": "slider", "min": 0, "max": 1}]})


def demo_controls(server, headers: dict[str, str] | None = None) -> list[str]:
    answer = server.request("GET", "/api/rooms/demo", headers=headers)
    assert answer.status == 200, answer
    return [c["id"] for c in answer.json()["controls"]]


# -- anyone who reaches the port


def test_with_a_secret_no_token_changes_nothing_and_an_editor_cannot_replace_the_demo(start_server, bystanders, tmp_path, open_ws):
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    server = start_server("--auth-secret-file", str(secret))
    others = bystanders(server, token=token("editor"))
    before = demo_controls(server, {"Authorization": f"Bearer {token('viewer')}"})
    # No token: no welcome on the WebSocket, 401 on every API write.
    ws = open_ws(server.ws_url("demo"))
    with pytest.raises(ConnectionClosed):
        ws.recv(timeout=WAIT)
    assert ws.protocol.close_rcvd.code == 4401
    assert server.request("PUT", "/api/rooms/demo/controls/gain", '{"value": 0.9}').status == 401
    assert server.request("POST", "/api/rooms", DEMO_HIJACK).status == 401
    others.served()
    # An editor may play, not replace the demo; an admin could.
    editor = {"Authorization": f"Bearer {token('editor')}", "Content-Type": "application/json"}
    assert server.request("POST", "/api/rooms", DEMO_HIJACK, headers=editor).status == 403
    assert demo_controls(server, {"Authorization": f"Bearer {token('viewer')}"}) == before
    others.served()
    metrics = server.metrics()
    assert metrics['tandem_auth_failures_total{reason="missing"}'] >= 3
    assert metrics['tandem_auth_failures_total{reason="role"}'] >= 1


def test_with_auth_off_another_machine_cannot_replace_the_demo(start_server, bystanders, monkeypatch):
    address = raw_http.non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    monkeypatch.setattr(helpers, "START_LINE", re.compile(rf"^info tandem listening on http://{re.escape(address)}:(\d+) rooms="))
    server = start_server("--host", address)
    others = bystanders(server, address=address)
    answer = raw_http.request(server.port, "POST", "/api/rooms", body=DEMO_HIJACK.encode(), address=address)
    assert answer.status == 403 and json.loads(answer.body)["code"] == "forbidden"
    listed = json.loads(raw_http.request(server.port, "GET", "/api/rooms/demo", address=address).body)
    assert "x" not in [c["id"] for c in listed["controls"]]
    others.served()
    metrics = helpers.parse_prometheus(raw_http.request(server.port, "GET", "/metrics", address=address).body.decode())
    assert metrics['tandem_http_refused_total{reason="admin_not_loopback"}'] == 1


# -- a web page the local user opens


def test_a_websocket_from_a_foreign_origin_gets_403_and_no_welcome(server, bystanders):
    others = bystanders(server)
    assert raw_http.upgrade(server.port, origin="http://evil.example").status == 403
    others.served()
    assert server.metrics()['tandem_http_refused_total{reason="foreign_origin"}'] == 1


def test_a_cross_site_text_plain_post_creates_no_room(server, bystanders):
    others = bystanders(server)
    answer = raw_http.request(server.port, "POST", "/api/rooms",
                              [("Content-Type", "text/plain"), ("Origin", "http://evil.example")],
                              json.dumps(room("evil")).encode())
    assert answer.status == 403 and json.loads(answer.body)["code"] == "foreign_origin"
    assert "evil" not in [r["id"] for r in server.get("/api/rooms").json()["rooms"]]
    others.served()


def test_dns_rebinding_with_a_foreign_host_is_421_on_pages_api_and_websockets(server, bystanders):
    others = bystanders(server)
    for path in ("/", "/api/rooms", "/healthz"):
        assert raw_http.request(server.port, "GET", path, host="attacker.example").status == 421
    assert raw_http.upgrade(server.port, host=f"attacker.example:{server.port}").status == 421
    others.served()
    assert server.metrics()['tandem_http_refused_total{reason="misdirected"}'] == 4


# -- huge rooms


def test_2000_room_creations_past_max_rooms_are_409_and_the_server_keeps_serving(start_server, bystanders):
    server = start_server("--max-rooms", "50")
    others = bystanders(server)
    statuses: dict[int, int] = {}
    for i in range(2000):
        status = server.request("POST", "/api/rooms", json.dumps(room(f"r{i}"))).status
        statuses[status] = statuses.get(status, 0) + 1
        if i % 500 == 499:
            others.served()
    assert statuses == {201: 49, 409: 1951}, statuses
    metrics = server.metrics()
    assert metrics['tandem_http_refused_total{reason="too_many_rooms"}'] == 1951
    assert metrics["tandem_rooms"] == 50
    # A handful of log lines for 1,951 refusals.
    assert 1 <= len(server.log_lines("refused to create room")) <= 10
    others.served()


def test_rooms_with_60_kb_titles_are_400_and_the_room_list_stays_small(server, bystanders):
    others = bystanders(server)
    for i in range(200):
        answer = server.request("POST", "/api/rooms", json.dumps(room(f"t{i}", title="x" * 60_000)))
        assert answer.status == 400 and answer.json()["field"] == "title", answer
    listing = server.get("/api/rooms")
    assert [r["id"] for r in listing.json()["rooms"]] == ["demo"]
    assert len(listing.body) < 10_000
    others.served()


def test_re_posting_a_rooms_unchanged_schema_a_hundred_times_kicks_nobody(server, bystanders, connect):
    others = bystanders(server)
    studio = json.dumps(room("studio", title="Studio"))
    assert server.request("POST", "/api/rooms", studio).status == 201
    members = [connect(server, name=name, room="studio") for name in ("Ann", "Bob")]
    for _ in range(100):
        answer = server.request("POST", "/api/rooms", studio)
        assert answer.status == 200 and answer.json()["unchanged"] is True, answer
    for member in members:
        member.assert_alive("knob")  # still in the room: nobody was closed with 1012
    others.served()
    assert server.metrics().get('tandem_closes_total{code="1012"}', 0) == 0


# -- a flood of connections


def test_a_burst_of_3000_bare_connects_past_max_connections_leaves_members_and_healthz_served(start_server, bystanders, sockets_to_close):
    server = start_server("--max-connections", "20")
    others = bystanders(server)
    for _ in range(3000):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", server.port))
        sockets_to_close.append(sock)
    others.served()
    statuses = [healthz(server.port) for _ in range(5)]
    assert statuses == [200] * 5, statuses
    others.served()
    metrics = server.metrics()
    assert metrics["tandem_connections_displaced_total"] > 0
    assert metrics["tandem_accept_errors_total"] == 0
    assert metrics["tandem_connections"] == 2  # the members, still there


def test_past_the_descriptor_limit_a_flood_meets_no_emfile_even_with_a_max_connections_too_high(tandem_binary, tmp_path, sockets_to_close):
    # `ulimit -n 128` for the server alone, and a --max-connections its
    # descriptors cannot hold: it is held at the derived limit, so accept(2)
    # never meets EMFILE (it had spun at three quarters of a core).
    wrapper = tmp_path / "tandem-128"
    wrapper.write_text(f"#!/bin/sh\nulimit -n 128\nexec {tandem_binary} \"$@\"\n")
    wrapper.chmod(0o755)
    server = helpers.TandemServer(wrapper, ["--max-connections", "1000"])
    try:
        assert "max-connections=16 " in server.wait_for_log("limits: ")
        assert "holding at most 16" in server.wait_for_log("^warn --max-connections 1000")
        with contextlib.ExitStack() as stack:
            others = Bystanders(server, stack)
            for _ in range(300):
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
                sock.sendall(b"GET /rooms/demo HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                sockets_to_close.append(sock)
            others.served()
            assert [healthz(server.port) for _ in range(5)] == [200] * 5
            metrics = server.metrics()
            assert metrics["tandem_accept_errors_total"] == 0
            assert metrics["tandem_max_connections"] == 16
            assert not server.log_lines("accept: errno")
    finally:
        for sock in sockets_to_close:
            sock.close()
        assert server.stop() == 0


# -- HTTP bodies


def test_a_100_mb_body_announced_by_content_length_is_413_before_it_is_sent(server, bystanders):
    others = bystanders(server)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
    try:
        sock.sendall(b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000000\r\n\r\n")
        answer = raw_http.read_answer(sock, time.monotonic(), WAIT)
        assert answer.status == 413 and answer.closed, answer
        # The attacker sends its body anyway: the connection is gone long before 100 MB.
        sent, chunk = 0, b"x" * 65536
        with pytest.raises(OSError):
            while sent < 100_000_000:
                sent += sock.send(chunk)
        assert sent < 20_000_000
    finally:
        sock.close()
    others.served()
    assert server.metrics()['tandem_http_refused_total{reason="body_too_large"}'] == 1


def test_two_different_content_lengths_are_400_and_create_nothing(server, bystanders):
    others = bystanders(server)
    body = json.dumps(room("smuggled")).encode()
    answer = raw_http.request(server.port, "POST", "/api/rooms",
                              [("Content-Length", str(len(body))), ("Content-Length", str(len(body) + 5))], body)
    assert answer.status == 400
    assert "smuggled" not in [r["id"] for r in server.get("/api/rooms").json()["rooms"]]
    others.served()
    assert server.metrics()['tandem_http_refused_total{reason="body_conflicting_length"}'] == 1


def test_chunked_posts_and_puts_are_answered_as_their_last_chunk_arrives(server, bystanders):
    # An answer at all is the proof: a body whose end went unnoticed would meet
    # lws' own timeout, which hangs up without one.
    others = bystanders(server)
    post = raw_http.request(server.port, "POST", "/api/rooms", [("Transfer-Encoding", "chunked")],
                            raw_http.chunked(json.dumps(room("chunky")).encode(), 5))
    assert post.status == 201, post
    put = raw_http.request(server.port, "PUT", "/api/rooms/chunky/controls/knob", [("Transfer-Encoding", "chunked")],
                           raw_http.chunked(b'{"value": 3}', 3))
    assert put.status == 200 and json.loads(put.body)["state"] == {"value": 3}, put
    others.served()


def test_a_body_at_one_byte_a_second_is_cut_off_at_the_body_deadline_while_others_play(start_server, bystanders):
    server = start_server("--body-timeout", "2")
    others = bystanders(server)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
    sock.sendall(b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n")
    started, received, cut_off = time.monotonic(), b"", False
    try:
        # The scenario: a byte a second (the recv's timeout paces it) until the
        # server cuts the body off; only a hang outlasts the 2 s deadline by WAIT.
        while time.monotonic() - started < 2 + WAIT:
            try:
                sock.sendall(b" ")
            except OSError:
                cut_off = True
                break
            others.served()
            sock.settimeout(1.0)
            try:
                chunk = sock.recv(4096)
            except socket.timeout:
                continue
            except ConnectionResetError:
                cut_off = True
                break
            if not chunk:
                cut_off = True
                break
            received += chunk
    finally:
        sock.close()
    assert received.startswith(b"HTTP/1.1 408"), received[:80]
    assert cut_off, f"the trickling connection was still open after {2 + WAIT} s"
    others.served()
    assert server.metrics()['tandem_http_refused_total{reason="body_slow"}'] == 1


# -- WebSocket edges


def upgrade_with(port: int, headers: list[tuple[str, str]]) -> raw_http.RawResponse:
    base = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")]
    return raw_http.request(port, "GET", "/rooms/demo", base + headers)


def test_websocket_versions_8_99_and_none_get_426(server, bystanders):
    others = bystanders(server)
    for version in (["8"], ["99"], []):
        answer = upgrade_with(server.port, [("Sec-WebSocket-Version", v) for v in version])
        assert answer.status == 426 and answer.header("Sec-WebSocket-Version") == "13", answer
    others.served()
    assert server.metrics()['tandem_handshakes_refused_total{reason="version"}'] == 3


def test_an_unknown_subprotocol_gets_400_with_a_message(server, bystanders):
    others = bystanders(server)
    answer = upgrade_with(server.port, [("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Protocol", "evil.v9")])
    assert answer.status == 400 and "evil.v9" in json.loads(answer.body)["message"], answer
    others.served()
    assert server.metrics()['tandem_handshakes_refused_total{reason="subprotocol"}'] == 1


def close_code_of(raw: RawWebSocket) -> int | None:
    raw.settimeout(WAIT)
    try:
        while True:
            opcode, payload = raw.read_message()
            if opcode == OP_CLOSE:
                return int.from_bytes(payload[:2], "big")
    except (EOFError, ConnectionResetError, TimeoutError, OSError):
        return None


def test_an_unmasked_client_frame_is_closed_1002(server, bystanders):
    others = bystanders(server)
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        payload = json.dumps({"type": "set", "seq": 1, "control": "gain", "value": 0.99}).encode()
        raw.sock.sendall(bytes([0x81, len(payload)]) + payload)  # no mask bit, no key
        assert close_code_of(raw) == 1002
    finally:
        raw.close()
    others.served()
    assert server.get("/api/rooms/demo").json()["controls"][3]["state"]["value"] != 0.99
    assert server.metrics()['tandem_websocket_protocol_errors_total{kind="unmasked"}'] == 1


def masked(opcode: int, payload: bytes) -> bytes:
    key = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


@pytest.mark.parametrize("payload, code, kind", [
    (b"\x03\xe8\xff\xfe", 1007, "close_reason_utf8"),  # Autobahn 7.5.1
    (b"\x03", 1002, "close_payload"),  # Autobahn 7.3.2
], ids=["reason not UTF-8", "one-byte payload"])
def test_autobahns_bad_closes_are_answered_1007_and_1002(server, bystanders, payload, code, kind):
    others = bystanders(server)
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        raw.sock.sendall(masked(OP_CLOSE, payload))
        assert close_code_of(raw) == code
    finally:
        raw.close()
    others.served()
    assert server.metrics()[f'tandem_websocket_protocol_errors_total{{kind="{kind}"}}'] == 1


# -- what others see


def test_display_names_lose_bidi_overrides_and_are_cut_to_64(server, bystanders, connect):
    others = bystanders(server)
    evil = connect(server, name="\u202egnp.exe" + "x" * 100)
    names = {p["client"]: p["name"] for p in evil.welcome["peers"]}
    assert names[evil.id] == "gnp.exe" + "x" * 57
    others.served()


def test_a_formula_as_display_name_reaches_history_csv_as_text(start_server, bystanders, connect, tmp_path):
    server = start_server("--data", str(tmp_path / "t.db"))
    others = bystanders(server)
    evil = connect(server, name='=HYPERLINK("http://evil.example","click")')
    evil.expect_ack(evil.set("gain", 0.77))
    rows = list(csv.DictReader(io.StringIO(server.get("/api/rooms/demo/history.csv").text)))
    evil_rows = [row for row in rows if row["name"].endswith('"click")')]
    assert evil_rows and all(row["name"].startswith("'=") for row in evil_rows), evil_rows
    others.served()


@pytest.fixture
def web_with_dotfile(tmp_path):
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<!doctype html><title>t</title>\n")
    (web / ".env").write_text("SECRET=1\n")
    return web


def test_dotfiles_under_the_web_root_are_404(start_server, bystanders, web_with_dotfile):
    server = start_server("--web", str(web_with_dotfile))
    others = bystanders(server)
    assert server.get("/.env").status == 404
    assert server.get("/%2eenv").status == 404
    assert server.get("/").status == 200
    others.served()


def test_every_answer_carries_a_csp_with_frame_ancestors_and_nosniff(start_server, bystanders, web_with_dotfile):
    server = start_server("--web", str(web_with_dotfile))
    others = bystanders(server)
    for path in ("/", "/api/rooms", "/nope", "/healthz"):
        answer = server.get(path)
        assert "frame-ancestors 'self'" in answer.header("Content-Security-Policy"), path
        assert "default-src 'self'" in answer.header("Content-Security-Policy"), path
        assert answer.header("X-Content-Type-Options") == "nosniff", path
    others.served()


# -- floods


def test_a_flooding_client_is_closed_1008_only_after_a_second_while_others_play(server, bystanders):
    others = bystanders(server)
    raw = RawWebSocket(server.port)
    hung_up: list[float] = []
    flooding = threading.Event()

    def flood():
        # Steps as fast as this thread can send them, never reading: the
        # server's rejects pile up unread until it hangs up.
        seq = 1
        try:
            while time.monotonic() - started < WAIT:
                raw.send_text(json.dumps({"type": "step", "seq": seq, "control": "size", "by": 0}))
                seq += 1
                if seq == 1000:  # more than the burst of 600 the rate limit allows: the flood is on
                    flooding.set()
        except OSError:
            hung_up.append(time.monotonic())
        flooding.set()

    try:
        client = raw.read_json()["client"]
        started = time.monotonic()
        flooder = threading.Thread(target=flood, daemon=True)
        flooder.start()
        assert flooding.wait(WAIT)
        others.served()  # during the flood (it lasts a second at least before the close)
        flooder.join(WAIT + 5)
    finally:
        raw.close()
    assert hung_up, f"the flooding client was still connected after {WAIT} s"
    assert hung_up[0] - started >= 1.0
    server.wait_for_log(rf"close {client} code=1008")
    assert server.metrics()['tandem_closes_total{code="1008"}'] == 1
    others.served()
