"""WebSocket edges RFC 6455 asks of a server that lws 4.1 leaves to us: the
handshake's version and subprotocol, unmasked client frames, close frames
with a one-byte payload, a code that may not be sent or a reason that is not
UTF-8; and the echo endpoint the Autobahn|Testsuite runs against.
"""

import base64
import json
import os
import socket
import struct
import subprocess

import pytest

from helpers import OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_TEXT, ROOT, SUBPROTOCOL, WAIT, RawWebSocket


def handshake(port: int, headers: list[str], path: str = "/rooms/demo") -> tuple[str, dict[str, str], bytes, socket.socket]:
    """Sends a hand-written upgrade request; returns the status line, headers, body bytes read and the socket."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", *headers]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status, *header_lines = head.decode("latin-1").split("\r\n")
    fields = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    if not status.split(" ")[1] == "101" and "content-length" in fields:
        while len(rest) < int(fields["content-length"]):
            chunk = sock.recv(4096)
            if not chunk:
                break
            rest += chunk
    return status, fields, rest, sock


def refused(port: int, headers: list[str]) -> tuple[int, dict[str, str], dict]:
    status, fields, body, sock = handshake(port, headers)
    sock.close()
    return int(status.split(" ")[1]), fields, json.loads(body)


def masked_frame(opcode: int, payload: bytes, mask: bool = True, fin: bool = True) -> bytes:
    header = bytearray([(0x80 if fin else 0) | opcode])
    assert len(payload) < 126
    if not mask:
        return bytes(header + bytes([len(payload)])) + payload
    key = os.urandom(4)
    return bytes(header + bytes([0x80 | len(payload)]) + key) + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def close_frames_after(raw: RawWebSocket, data: bytes) -> list[bytes]:
    """Sends `data` raw and returns the payloads of every close frame the server sends until it hangs up (within WAIT)."""
    raw.sock.sendall(data)
    raw.settimeout(WAIT)
    closes = []
    try:
        while True:
            _, opcode, payload = raw.read_frame()
            if opcode == OP_CLOSE:
                closes.append(payload)
    except (EOFError, ConnectionResetError):
        pass
    except (TimeoutError, socket.timeout):
        raise AssertionError(f"the server did not hang up within {WAIT} s; close frames so far: {closes}") from None
    return closes


def code_of(payload: bytes) -> int:
    return struct.unpack("!H", payload[:2])[0]


@pytest.fixture
def room(server):
    """A raw WebSocket in the demo room, past its welcome."""
    raw = RawWebSocket(server.port)
    raw.read_json()
    yield raw
    raw.close()


# -- the handshake


@pytest.mark.parametrize("version", ["8", "99", None])
def test_a_websocket_version_other_than_13_gets_426_naming_13(server, version):
    headers = [f"Sec-WebSocket-Version: {version}"] if version else []
    status, fields, body = refused(server.port, headers + [f"Sec-WebSocket-Protocol: {SUBPROTOCOL}"])
    assert status == 426
    assert fields["sec-websocket-version"] == "13"
    assert body["code"] == "upgrade_required"
    assert "13" in body["message"]


def test_a_subprotocol_list_without_tandem_v1_gets_400_naming_what_was_offered(server):
    status, _, body = refused(server.port, ["Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat, superchat"])
    assert status == 400
    assert body["code"] == "bad_subprotocol"
    assert "chat, superchat" in body["message"] and SUBPROTOCOL in body["message"]


def test_refused_handshakes_are_counted_by_reason(server):
    refused(server.port, ["Sec-WebSocket-Version: 8"])
    refused(server.port, ["Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat"])
    metrics = server.metrics()
    assert metrics['tandem_handshakes_refused_total{reason="version"}'] == 1
    assert metrics['tandem_handshakes_refused_total{reason="subprotocol"}'] == 1


def test_a_list_that_includes_tandem_v1_gets_it(server):
    status, fields, _, sock = handshake(server.port, ["Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat, tandem.v1"])
    sock.close()
    assert status.startswith("HTTP/1.1 101")
    assert fields["sec-websocket-protocol"] == SUBPROTOCOL


def test_a_client_offering_no_subprotocol_is_welcomed_as_v1(server):
    raw = RawWebSocket(server.port, subprotocol=None)
    try:
        assert raw.read_json()["type"] == "welcome"
    finally:
        raw.close()


# -- frames


def test_an_unmasked_client_frame_closes_with_1002(server, room):
    step = json.dumps({"type": "step", "seq": 1, "control": "size", "by": 1}).encode()
    closes = close_frames_after(room, masked_frame(OP_TEXT, step, mask=False))
    assert [code_of(c) for c in closes] == [1002]
    assert server.metrics()['tandem_websocket_protocol_errors_total{kind="unmasked"}'] == 1
    # The unmasked message was not applied.
    assert server.get("/api/rooms/demo").json()["controls"][0]["state"]["index"] == 2


def test_masked_frames_split_across_reads_are_not_taken_for_unmasked(server, room):
    # Byte by byte: the mask check walks frame headers across reads.
    for seq in (1, 2):
        frame = masked_frame(OP_TEXT, json.dumps({"type": "step", "seq": seq, "control": "size", "by": 1}).encode())
        for byte in frame:
            room.sock.sendall(bytes([byte]))
    ack = 0
    while ack < 2:  # updates may fold both acks into one
        frame = room.read_json()
        assert frame["type"] != "reject", frame
        ack = max(ack, frame.get("ack", 0))


def test_a_close_with_a_one_byte_payload_is_answered_1002(room):
    closes = close_frames_after(room, masked_frame(OP_CLOSE, b"\x03"))
    assert [code_of(c) for c in closes] == [1002]


def test_a_close_whose_reason_is_not_utf8_is_answered_1007(room):
    closes = close_frames_after(room, masked_frame(OP_CLOSE, struct.pack("!H", 1000) + b"\xce\xba\xed\xa0\x80bad"))
    assert [code_of(c) for c in closes] == [1007]


@pytest.mark.parametrize("code", [0, 999, 1004, 1005, 1006, 1016, 2999, 5000, 65535])
def test_a_close_with_a_code_a_client_may_not_send_is_answered_1002(room, code):
    closes = close_frames_after(room, masked_frame(OP_CLOSE, struct.pack("!H", code)))
    assert [code_of(c) for c in closes] == [1002]


@pytest.mark.parametrize("code", [1000, 1001, 3000, 4999])
def test_a_valid_close_is_echoed(room, code):
    closes = close_frames_after(room, masked_frame(OP_CLOSE, struct.pack("!H", code) + "bye ✓".encode()))
    assert closes == [struct.pack("!H", code) + "bye ✓".encode()]


def test_a_refused_frame_gets_exactly_one_close_frame(room):
    closes = close_frames_after(room, masked_frame(OP_BINARY, b"\x00\x01"))
    assert [code_of(c) for c in closes] == [1003]


# -- the echo endpoint


def test_there_is_no_echo_endpoint_by_default(server):
    status, _, _, sock = handshake(server.port, ["Sec-WebSocket-Version: 13"], path="/echo")
    sock.close()
    assert status.split(" ")[1] == "403"


@pytest.fixture
def echo_server(start_server):
    return start_server("--echo-path", "/echo")


@pytest.fixture
def echo(echo_server):
    raw = RawWebSocket(echo_server.port, path="/echo", subprotocol=None)
    yield raw
    raw.close()


def test_the_echo_endpoint_sends_text_and_binary_back_as_they_came(echo):
    echo.send_frame(OP_TEXT, "héllo".encode())
    echo.send_frame(OP_BINARY, bytes(range(256)))
    echo.send_frame(OP_TEXT, b"")
    assert echo.read_message() == (OP_TEXT, "héllo".encode())
    assert echo.read_message() == (OP_BINARY, bytes(range(256)))
    assert echo.read_message() == (OP_TEXT, b"")


def test_the_echo_endpoint_reassembles_fragments(echo):
    echo.send_frame(OP_TEXT, b"frag", fin=False)
    echo.send_frame(OP_CONTINUATION, b"men", fin=False)
    echo.send_frame(OP_CONTINUATION, b"ted", fin=True)
    assert echo.read_message() == (OP_TEXT, b"fragmented")


def test_the_echo_endpoint_echoes_a_4_mib_message(echo):
    payload = os.urandom(4 * 1024 * 1024)
    echo.settimeout(WAIT)
    echo.send_frame(OP_BINARY, payload)
    assert echo.read_message() == (OP_BINARY, payload)


def test_the_echo_endpoint_closes_1007_at_the_first_bad_byte_of_a_text_message(echo):
    echo.send_frame(OP_TEXT, b"ok \xff", fin=False)
    closes = close_frames_after(echo, b"")
    assert [code_of(c) for c in closes] == [1007]


def test_the_echo_endpoint_joins_no_room(echo_server, echo):
    echo.send_frame(OP_TEXT, b"{}")
    assert echo.read_message() == (OP_TEXT, b"{}")
    metrics = echo_server.metrics()
    assert metrics["tandem_room_members"] == 0


@pytest.mark.parametrize("value", ["echo", "/rooms/echo", ""])
def test_a_bad_echo_path_exits_2_naming_the_flag(tandem_binary, value):
    result = subprocess.run([str(tandem_binary), "--echo-path", value], cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 2
    assert "--echo-path" in result.stderr
