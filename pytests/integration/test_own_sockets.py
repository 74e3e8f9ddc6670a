"""The server's own sockets (docs/architecture.md, "The server's own sockets"):
on plain TCP an upgraded connection leaves lws, and the server reads its
frames and writes its bytes itself. `--sockets lws` keeps lws throughout."""

import json
import os
import socket
import struct
import subprocess
import time

import pytest

from helpers import OP_CLOSE, OP_PONG, OP_TEXT, ROOT, START_LINE, START_WAIT, WAIT, RawWebSocket


def masked(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    header = bytearray([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        header.append(0x80 | n)
    else:
        header.append(0x80 | 126)
        header += struct.pack("!H", n)
    key = os.urandom(4)
    return bytes(header) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def step(seq: int, by: int = 1) -> bytes:
    return json.dumps({"type": "step", "seq": seq, "control": "size", "by": by}).encode()


def read_until_ack(raw: RawWebSocket, seq: int) -> dict:
    """Frames until one carries `ack` ≥ seq; only a hang reaches WAIT."""
    while True:
        frame = raw.read_json()
        if frame.get("ack", 0) >= seq:
            return frame


@pytest.mark.parametrize("flags, shown", [((), "own"), (("--sockets", "lws"), "lws")], ids=["default", "lws"])
def test_the_start_line_says_who_serves_upgraded_sockets(start_server, flags, shown):
    server = start_server(*flags)
    assert f" sockets={shown} " in server.wait_for_log(START_LINE.search)


def test_an_unknown_sockets_value_exits_2_naming_the_flag(tandem_binary):
    result = subprocess.run([str(tandem_binary), "--sockets", "kernel"], cwd=ROOT, capture_output=True, text=True,
                            timeout=START_WAIT)
    assert result.returncode == 2
    assert "--sockets" in result.stderr and "kernel" in result.stderr


@pytest.mark.parametrize("flags, taken", [((), 3), (("--sockets", "lws"), 0)], ids=["own", "lws"])
def test_each_connection_is_taken_off_lws_and_served_alike(start_server, connect, flags, taken):
    server = start_server(*flags)
    ann, bob, eve = connect(server, "Ann"), connect(server, "Bob"), connect(server, "Eve")
    seq = ann.step("size", 1)
    ann.expect_ack(seq)
    for other in (bob, eve):
        other.expect(lambda f: any(c.get("control") == "size" for c in f.get("changes", [])))
    assert server.metrics()["tandem_sockets_taken_total"] == taken
    bob.close()
    server.wait_for_log(rf"close {bob.id} code=1000")
    ann.assert_alive()


def test_a_frame_sent_a_byte_at_a_time_is_read_whole(server):
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        raw.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for byte in masked(OP_TEXT, step(1)):
            raw.sock.send(bytes([byte]))
            time.sleep(0.002)
        assert read_until_ack(raw, 1)["ack"] == 1
    finally:
        raw.close()


def test_frames_sharing_one_segment_are_all_read(server):
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        raw.sock.sendall(b"".join(masked(OP_TEXT, step(seq)) for seq in (1, 2, 3)))
        assert read_until_ack(raw, 3)["ack"] == 3
        assert server.get("/api/rooms/demo").json()["controls"][0]["state"]["index"] == 4  # 2, stepped 3 times (of 0-4)
    finally:
        raw.close()


def test_a_message_in_fragments_with_a_ping_between_is_joined(server):
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        message = step(1)
        raw.sock.sendall(masked(OP_TEXT, message[:10], fin=False) + masked(0x9, b"mid") + masked(0x0, message[10:]))
        opcodes = []
        while True:
            fin, opcode, payload = raw.read_frame()
            opcodes.append(opcode)
            if opcode == OP_PONG:
                assert payload == b"mid"
            if opcode == OP_TEXT and json.loads(payload).get("ack") == 1:
                break
        assert OP_PONG in opcodes
    finally:
        raw.close()


def test_a_message_over_max_frame_is_closed_1009_from_its_header(start_server):
    server = start_server("--max-frame", "256")
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        # Only the header of a 1,000-byte frame: the server need not wait for the payload.
        raw.sock.sendall(bytes([0x81, 0x80 | 126]) + struct.pack("!H", 1000) + os.urandom(4))
        while True:
            _, opcode, payload = raw.read_frame()
            if opcode == OP_CLOSE:
                assert struct.unpack("!H", payload[:2])[0] == 1009
                break
    finally:
        raw.close()
    assert server.metrics()['tandem_closes_total{code="1009"}'] == 1


def test_a_client_that_vanishes_is_closed_1006_and_leaves_its_room(server, connect):
    ann = connect(server, "Ann")
    raw = RawWebSocket(server.port, "/rooms/demo?name=gone")
    client = raw.read_json()["client"]
    raw.sock.shutdown(socket.SHUT_RDWR)
    raw.sock.close()
    server.wait_for_log(rf"close {client} code=1006")
    ann.expect(lambda f: client in f.get("left", []), what=f"{client} left")
