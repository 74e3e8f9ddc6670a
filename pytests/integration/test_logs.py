"""The server's log lines on stderr: `LEVEL message`, or JSON objects with `--log-format json`."""

import json
import re
import socket
import subprocess
import time

import pytest

from helpers import OP_TEXT, ROOT, WAIT, RawWebSocket, open_websocket, wait_closed

CONNECTION_BURST = 50
"""Lines of one kind of a connection's life per 10 s (LogThrottle.connectionBurst)."""

REJECT_BURST = 5
"""Lines of one kind per 10 s for everything else (LogThrottle's burst)."""


def log_barrier(server, tag: str) -> None:
    """A line the server writes after everything before it: a refused request
    (a kind of its own, never left out) whose path carries `tag`."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(f"GET /{tag} HTTP/1.1\r\nHost: barrier.example\r\n\r\n".encode())
        assert sock.recv(65536).startswith(b"HTTP/1.1 421 ")
    server.wait_for_log(rf"refused GET /{tag} ")


def windows(started: float) -> int:
    """How many of the log rate limit's 10 s windows can have begun since `started`."""
    return int((time.monotonic() - started) // 10) + 1


def test_a_reject_is_logged_at_info_with_client_and_code(server, connect):
    ann = connect(server)
    seq = ann.set("volume", 1)
    ann.expect_reject("unknown_control", seq=seq)
    line = server.wait_for_log(rf"reject {ann.id}\b.*code=unknown_control")
    assert line.startswith("info "), line
    assert f"seq={seq}" in line


def test_a_busy_reject_is_logged_with_its_holder(server, connect):
    ann = connect(server)
    bob = connect(server)
    ann.expect_ack(ann.drag("gain", "begin"))
    bob.expect_reject("busy", seq=bob.drag("gain", "begin"))
    line = server.wait_for_log(rf"reject {bob.id}\b.*code=busy")
    assert line.startswith("info ") and f"holder={ann.id}" in line


def test_each_close_is_logged_once_with_its_code(server, connect, open_ws):
    ann = connect(server)
    bob = connect(server)
    stray = open_ws(server.ws_url("nope"))
    wait_closed(stray)
    ann.ws.close()  # 1000 from the client
    bob.ws.send(b"\x00")  # binary: the server closes with 1003
    bob.wait_closed()
    for client, code in ((ann.id, 1000), (bob.id, 1003)):
        server.wait_for_log(rf"close {client} code={code}\b")
    server.wait_for_log(r"close (?:\S+\.)?c\d+ code=4404\b")
    # A later close: once it is logged, so is anything the server had left to log about those.
    index = len(server.stderr_lines)
    wait_closed(open_ws(server.ws_url("nope")))
    server.wait_for_log(r"close (?:\S+\.)?c\d+ code=4404\b", start=index)
    for client in (ann.id, bob.id):
        lines = server.log_lines(rf"\bclose {client} ")
        assert len(lines) == 1, lines
        assert lines[0].startswith("info "), lines
    assert len(server.log_lines(r"\bclose (?:\S+\.)?c\d+ code=4404\b")) == 2


def test_a_close_for_invalid_utf8_is_logged_with_1007(server):
    raw = RawWebSocket(server.port)
    try:
        client = raw.read_json()["client"]
        raw.send_frame(OP_TEXT, b'{"type":"step","seq":1,"control":"size","by":0,"x":"\xc3\x28"}')
        line = server.wait_for_log(rf"close {client} code=")
    finally:
        raw.close()
    assert f"close {client} code=1007" in line, line


def test_the_start_line_names_the_address_rooms_mode_and_event_loop(server):
    line = server.stderr_lines[0]
    assert line.startswith(f"info tandem listening on http://127.0.0.1:{server.port} ")
    assert " rooms=demo " in line and " mode=open " in line and " event-loop=uv " in line


def test_auth_being_off_is_logged_loudly_at_start(server):
    line = server.wait_for_log(r"auth is off")
    assert line.startswith("warn ")


def test_control_bytes_from_a_url_path_reach_the_log_escaped(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(b"GET /%1B[31mred%07%C2%9B HTTP/1.1\r\nHost: attacker.example\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 421 ")
    line = server.wait_for_log(r"refused GET /.*red")
    assert "\\x1b[31mred\\x07\\u{9b}" in line, line
    raw = "\n".join(server.stderr_lines)
    assert "\x1b" not in raw and "\x07" not in raw and "\x9b" not in raw


def test_two_hundred_connects_write_a_bounded_number_of_lines(server):
    started = time.monotonic()
    for _ in range(200):
        with open_websocket(server.ws_url("demo")) as ws:
            ws.recv(timeout=WAIT)  # the welcome: the open is logged (or counted) by now
    server.wait_metric('tandem_closes_total{code="1000"}', lambda n: n >= 200)
    log_barrier(server, "after-connects")
    bound = CONNECTION_BURST * windows(started)
    opens, closes = server.log_lines(r"^info open "), server.log_lines(r"^info close ")
    assert 0 < len(opens) <= min(bound, 199), len(opens)
    assert 0 < len(closes) <= min(bound, 199), len(closes)
    metrics = server.metrics()
    assert metrics["tandem_connections_total"] >= 200
    assert metrics["tandem_log_lines_suppressed_total"] >= 200 - len(closes)


def test_a_flood_of_rejects_writes_a_bounded_number_of_lines(server, connect):
    ann = connect(server)
    started = time.monotonic()
    for _ in range(40):
        ann.expect_reject("unknown_control", seq=ann.set("volume", 1))
    assert server.metrics()['tandem_rejects_total{code="unknown_control"}'] == 40
    log_barrier(server, "after-rejects")
    lines = server.log_lines(rf"reject {ann.id}\b.*code=unknown_control")
    assert 0 < len(lines) <= min(REJECT_BURST * windows(started), 39), len(lines)


# --log-format json (LogFormat.swift; docs/operations.md, "Logs")


def json_lines(server) -> list[dict]:
    """Every stderr line so far, each parsed as one JSON object with exactly time, level and message."""
    objects = []
    for line in list(server.stderr_lines):
        obj = json.loads(line)
        assert list(obj) == ["time", "level", "message"], line
        assert obj["level"] in ("error", "warn", "info", "debug"), line
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", obj["time"]), line
        objects.append(obj)
    return objects


def test_json_logs_write_one_object_per_line_with_the_text_lines_messages(start_server, connect):
    server = start_server("--log-format", "json")
    start = json_lines(server)[0]
    assert start["level"] == "info" and start["message"].startswith(f"tandem listening on http://127.0.0.1:{server.port} ")
    warn = server.wait_for_log(r'"level":"warn","message":"auth is off')
    client = connect(server, name="ann")
    seq = client.set("nope", 1)
    client.expect(lambda f: f.get("type") == "reject" and f.get("seq") == seq)
    server.wait_for_log(r'"message":"reject ')
    objects = json_lines(server)
    assert any(o["message"].startswith("auth is off") for o in objects), warn
    assert any(o["level"] == "info" and o["message"].startswith("reject ") for o in objects)


def test_json_logs_keep_control_bytes_escaped_inside_the_message(start_server):
    server = start_server("--log-format", "json")
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(b'GET /%1B[31m"red%07 HTTP/1.1\r\nHost: attacker.example\r\n\r\n')
        assert sock.recv(65536).startswith(b"HTTP/1.1 421 ")
    server.wait_for_log(r"refused GET /")
    refused = [o for o in json_lines(server) if o["message"].startswith("refused GET /")]
    assert len(refused) == 1 and '\\x1b[31m"red\\x07' in refused[0]["message"], refused
    assert "\x1b" not in "\n".join(server.stderr_lines)


def test_a_bad_log_format_exits_2_naming_the_flag(tandem_binary):
    result = subprocess.run([str(tandem_binary), "--log-format", "xml", "--port", "0", "--data", ":memory:"],
                            cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 2
    assert "--log-format must be text or json, not 'xml'" in result.stderr


def test_a_failed_start_is_reported_as_json_when_asked(tandem_binary, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = subprocess.run([str(tandem_binary), "--log-format", "json", "--port", "0", "--data", str(blocker / "x" / "t.db")],
                            cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 1
    last = json.loads(result.stderr.strip().splitlines()[-1])
    assert last["level"] == "error" and last["message"].startswith("tandem: ") and str(blocker) in last["message"]
