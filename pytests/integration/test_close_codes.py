"""Close codes the server sends, and messages that are framed unusually but are fine."""

import json
import socket
import time

from websockets.exceptions import ConnectionClosed

from helpers import OP_CLOSE, OP_TEXT, WAIT, RawWebSocket, find_change, flood_until_closed, has_change, wait_closed


def padded_step(seq: int, size: int) -> str:
    """A valid `step size by 0` of exactly `size` bytes: unknown keys are ignored."""
    message = {"type": "step", "seq": seq, "control": "size", "by": 0, "pad": ""}
    overhead = len(json.dumps(message))
    message["pad"] = "x" * (size - overhead)
    text = json.dumps(message)
    assert len(text) == size
    return text


def close_code_after_a_step_of(server, connect, size: int) -> int:
    """Connects, sends a padded_step of `size` bytes and returns the code the server closed with."""
    ann = connect(server)
    ann.send_text(padded_step(1, size))
    code, _ = ann.wait_closed()
    return code


def acked_step_of(server, connect, size: int):
    """Connects, sends a padded_step of `size` bytes and waits for its ack; returns the client."""
    ann = connect(server)
    ann.send_text(padded_step(1, size))
    ann.expect_ack(1)
    return ann


def test_an_unknown_room_closes_with_4404_unknown_room(server, open_ws):
    ws = open_ws(server.ws_url("nope"))
    assert wait_closed(ws) == (4404, "unknown room")


def test_an_unknown_room_gets_no_welcome(server, open_ws):
    ws = open_ws(server.ws_url("nope"))
    received = []
    try:
        while True:
            received.append(ws.recv(timeout=WAIT))
    except ConnectionClosed:
        pass
    assert received == []


def test_a_binary_frame_closes_with_1003(server, connect):
    ann = connect(server)
    ann.ws.send(json.dumps({"type": "step", "seq": 1, "control": "size", "by": 1}).encode())
    code, _ = ann.wait_closed()
    assert code == 1003


def test_a_message_one_byte_over_the_default_4kib_limit_closes_with_1009(server, connect):
    assert close_code_after_a_step_of(server, connect, 4097) == 1009


def test_a_message_of_exactly_the_default_4kib_limit_is_accepted(server, connect):
    acked_step_of(server, connect, 4096)


def test_a_much_bigger_message_closes_with_1009(server, connect):
    assert close_code_after_a_step_of(server, connect, 100_000) == 1009


def test_with_max_frame_1024_a_2000_byte_message_closes_with_1009(start_server, connect):
    server = start_server("--max-frame", "1024")
    assert close_code_after_a_step_of(server, connect, 2000) == 1009


def test_with_max_frame_1024_a_900_byte_message_is_accepted(start_server, connect):
    server = start_server("--max-frame", "1024")
    ann = acked_step_of(server, connect, 900)
    ann.seq = 1
    ann.assert_alive()


def test_a_fragmented_message_is_reassembled(server, connect):
    ann = connect(server)
    text = json.dumps({"type": "set", "seq": 1, "control": "gain", "value": 0.25})
    ann.ws.send([text[:10], text[10:25], text[25:]])
    frame = ann.expect(has_change("gain"))
    assert find_change(frame, "gain")["state"] == {"value": 0.25}
    assert frame["ack"] == 1


def test_a_fragmented_message_over_the_limit_in_total_closes_with_1009(start_server, connect):
    server = start_server("--max-frame", "1024")
    ann = connect(server)
    text = padded_step(1, 1500)
    ann.ws.send([text[:700], text[700:]])
    code, _ = ann.wait_closed()
    assert code == 1009


def test_flooding_past_the_rate_limit_for_a_whole_second_closes_with_1008(server):
    # A bare socket: the server hangs up right after its close frame, and a
    # library that is still writing then (websockets) may drop the unread
    # close frame with the socket. Read the stream by hand, while flooding.
    flooder = RawWebSocket(server.port)
    try:
        client = flooder.read_json()["client"]
        started = time.monotonic()
        code, sent = flood_until_closed(flooder, WAIT)  # the close comes after one second of flooding
        assert sent >= 1200, f"sent {sent} messages"
        assert code == 1008
        assert time.monotonic() - started >= 1.0
        server.wait_for_log(rf"close {client} code=1008")
    finally:
        flooder.close()


def test_invalid_utf8_in_a_text_frame_closes_with_1007(server):
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        raw.send_frame(OP_TEXT, b'{"type":"set","seq":1,"control":"gain","value":0.2,"x":"\xff\xfe"}')
        close = None
        try:
            while close is None:
                _, opcode, payload = raw.read_frame()
                if opcode == OP_CLOSE:
                    close = payload
        except EOFError:
            pass
        assert close is not None and int.from_bytes(close[:2], "big") == 1007, close
    finally:
        raw.close()


def test_a_websocket_upgrade_outside_rooms_is_refused_with_403(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(
            b"GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            b"Sec-WebSocket-Protocol: tandem.v1\r\n\r\n"
        )
        reply = b""
        try:
            while b"\r\n" not in reply:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                reply += chunk
        except ConnectionResetError:
            pass
    assert reply.startswith(b"HTTP/1.") and reply.split(b" ")[1] == b"403", reply[:200]
