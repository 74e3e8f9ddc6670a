"""The server's log lines on stderr: `LEVEL message`."""

import pytest

from helpers import OP_TEXT, RawWebSocket, wait_closed


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
