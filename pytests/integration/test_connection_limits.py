"""Connection limits (--max-connections, --max-connections-per-ip) and the
header deadline (--header-timeout): past a limit the answer is 503 or close
1013, a flood of connects or of slow handshakes never keeps /healthz from
answering, and slow handshakes are closed at the deadline.
"""

import contextlib
import json
import resource
import socket
import subprocess
import time

import pytest
from websockets.exceptions import ConnectionClosed

from helpers import ROOT, START_WAIT, WAIT, TandemServer, healthz, http_request, open_websocket, wait_until

LOOPS = [pytest.param(("--event-loop", "poll"), id="poll"), pytest.param(("--event-loop", "uv"), id="uv")]




def open_half_requests(port: int, n: int) -> list[socket.socket]:
    """`n` sockets that each sent the first line of a request and never finish it."""
    sockets = []
    for _ in range(n):
        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        sock.sendall(b"GET /rooms/demo HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sockets.append(sock)
    return sockets


def closed_by_server(sock: socket.socket, timeout: float = WAIT) -> bool:
    sock.settimeout(timeout)
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return True
    except ConnectionResetError:
        return True
    except (TimeoutError, socket.timeout):
        return False


def welcomed(ws) -> dict:
    return json.loads(ws.recv(timeout=WAIT))


def close_of(ws) -> tuple[int | None, str | None]:
    try:
        while True:
            ws.recv(timeout=WAIT)
    except ConnectionClosed as closed:
        return (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (None, None)


def test_a_full_server_still_answers_healthz_and_metrics_and_503_to_everything_else(start_server, open_ws):
    server = start_server("--max-connections", "4")
    for _ in range(4):
        welcomed(open_ws(server.url))
    assert healthz(server.port) == 200
    assert server.get("/metrics").status == 200
    page = server.get("/")
    assert page.status == 503
    assert page.json()["code"] == "server_full"
    assert page.header("Retry-After") == "5"
    metrics = server.metrics()
    assert metrics['tandem_connections_refused_total{reason="server_full",action="answered"}'] >= 1
    assert metrics["tandem_max_connections"] == 4


def test_a_websocket_past_the_limit_is_closed_with_1013_server_full_without_a_welcome(start_server, open_ws):
    server = start_server("--max-connections", "3")
    members = [open_ws(server.url) for _ in range(3)]
    for ws in members:
        welcomed(ws)
    late = open_ws(server.url)
    assert close_of(late) == (1013, "server full")
    server.wait_for_log("connection limits")


def test_a_slot_freed_by_a_leaving_client_takes_the_next_one(start_server, open_ws):
    server = start_server("--max-connections", "2")
    with open_websocket(server.url) as first:
        welcomed(first)
        welcomed(open_ws(server.url))
    server.wait_metric("tandem_sockets", lambda n: n <= 2)  # the first one's slot is free
    assert welcomed(open_ws(server.url))["type"] == "welcome"


@pytest.mark.parametrize("loop", LOOPS)
def test_a_burst_of_connects_past_the_limit_leaves_healthz_answering(start_server, open_ws, sockets_to_close, loop):
    server = start_server("--max-connections", "20", *loop)
    for _ in range(20):
        welcomed(open_ws(server.url))
    sockets_to_close += open_half_requests(server.port, 1000)
    statuses = [healthz(server.port) for _ in range(10)]
    assert statuses == [200] * 10
    metrics = server.metrics()
    assert metrics["tandem_connections_displaced_total"] > 0
    assert metrics["tandem_accept_errors_total"] == 0
    # The members kept their connections.
    assert metrics["tandem_connections"] == 20


@pytest.mark.parametrize("loop", LOOPS)
def test_1100_slow_handshakes_leave_healthz_answering_and_are_closed_at_the_header_deadline(start_server, sockets_to_close, loop):
    server = start_server("--header-timeout", "2", *loop)
    slow = open_half_requests(server.port, 1100)
    sockets_to_close += slow
    opened = time.monotonic()
    statuses = []
    # The scenario: /healthz ten times a second while the last of them still
    # wait for their deadline (2 s from their connect), and five times at least.
    while time.monotonic() - opened < 1.5 or len(statuses) < 5:
        statuses.append(healthz(server.port))
        time.sleep(0.1)
    assert all(status == 200 for status in statuses), statuses
    assert all(closed_by_server(sock) for sock in slow)
    server.wait_metric("tandem_header_timeouts_total", lambda n: n >= 1100)
    assert healthz(server.port) == 200


def test_a_silent_connection_is_closed_at_the_header_deadline(start_server, sockets_to_close):
    server = start_server("--header-timeout", "1")
    started = time.monotonic()  # before the connect: the server's deadline cannot start earlier
    silent = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
    sockets_to_close.append(silent)
    assert closed_by_server(silent)
    assert time.monotonic() - started >= 0.5, "closed at once, not at the deadline"


def test_a_websocket_outlives_the_header_deadline(start_server, open_ws, sockets_to_close):
    server = start_server("--header-timeout", "1")
    ws = open_ws(server.url)
    welcomed(ws)
    # A silent connection opened after it: once the server has closed that one
    # at its header deadline, the websocket's would have passed too.
    silent = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
    sockets_to_close.append(silent)
    assert closed_by_server(silent)
    ws.send(json.dumps({"type": "step", "seq": 1, "control": "size", "by": 0}))
    frame = json.loads(ws.recv(timeout=WAIT))
    if frame["type"] == "presets":  # the room's presets list follows every welcome
        frame = json.loads(ws.recv(timeout=WAIT))
    assert frame["type"] in ("update", "reject")


def test_refusals_past_the_limit_are_logged_a_few_times_then_left_out(start_server, open_ws, sockets_to_close):
    server = start_server("--max-connections", "2")
    for _ in range(2):
        welcomed(open_ws(server.url))
    for _ in range(200):
        status = http_request(server.port, "GET", "/")
        assert status.status == 503
    refusals = server.log_lines("connection refused")
    assert 1 <= len(refusals) <= 10, refusals
    assert server.metrics()["tandem_log_lines_suppressed_total"] > 0


def non_loopback_address() -> str | None:
    """An address of this machine that is not loopback, to connect from, if it has one."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.254", 9))  # no packet is sent; this only picks the route's source address
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def test_the_per_address_limit_refuses_the_next_connection_and_exempts_loopback(start_server, open_ws):
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address to connect from")
    server = start_server("--host", "0.0.0.0", "--max-connections-per-ip", "2")
    url = f"ws://{address}:{server.port}/rooms/demo"
    for _ in range(2):
        welcomed(open_ws(url))
    assert close_of(open_ws(url)) == (1013, "too many connections from your address")
    # HTTP from the same address: 503 with the reason.
    with socket.create_connection((address, server.port), timeout=WAIT) as sock:
        sock.sendall(f"GET / HTTP/1.1\r\nHost: {address}:{server.port}\r\nConnection: close\r\n\r\n".encode())
        head = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(4096):  # to the close: the body may come in a segment of its own
                head += chunk
    assert head.startswith(b"HTTP/1.1 503") and b"per_address" in head, head
    # Loopback is exempt.
    for _ in range(4):
        welcomed(open_ws(server.url))
    assert server.metrics()['tandem_connections_refused_total{reason="per_address",action="answered"}'] >= 2


def expected_default_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    descriptors = min(hard if hard != resource.RLIM_INFINITY else 1 << 20, 1 << 20)
    return max(16, descriptors - max(64, descriptors // 10) - 64)


def test_the_default_connection_limit_follows_the_descriptor_limit_and_is_logged(server):
    line = server.wait_for_log("limits: ")
    assert f"max-connections={expected_default_limit()} " in line
    assert "max-connections-per-ip=256" in line and "header-timeout=5s" in line
    assert server.metrics()["tandem_max_connections"] == expected_default_limit()


@pytest.mark.parametrize("flag, value", [
    ("--max-connections", "0"), ("--max-connections", "many"),
    ("--max-connections-per-ip", "-1"), ("--header-timeout", "0"), ("--header-timeout", "301"),
])
def test_a_bad_limit_exits_2_naming_the_flag(tandem_binary, flag, value):
    result = subprocess.run([str(tandem_binary), flag, value], cwd=ROOT, capture_output=True, text=True, timeout=START_WAIT)
    assert result.returncode == 2
    assert flag in result.stderr


@pytest.mark.parametrize("loop", LOOPS)
def test_at_a_low_descriptor_limit_a_flood_never_reaches_emfile_and_healthz_answers(tandem_binary, tmp_path, sockets_to_close, loop):
    # `ulimit -n 128` for the server alone: the derived limit (16 sockets, plus
    # 64 to answer) keeps accept(2) from ever running out of descriptors.
    wrapper = tmp_path / "tandem-128"
    wrapper.write_text(f"#!/bin/sh\nulimit -n 128\nexec {tandem_binary} \"$@\"\n")
    wrapper.chmod(0o755)
    server = TandemServer(wrapper, loop)
    try:
        assert "max-connections=16 " in server.wait_for_log("limits: ")
        sockets_to_close += open_half_requests(server.port, 300)
        assert [healthz(server.port) for _ in range(5)] == [200] * 5
        metrics = server.metrics()
        assert metrics["tandem_accept_errors_total"] == 0
        assert metrics["tandem_sockets"] <= 16 + 64
        assert not server.log_lines("accept: errno")
    finally:
        for sock in sockets_to_close:
            sock.close()
        assert server.stop() == 0
