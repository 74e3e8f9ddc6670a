"""Pings: the server answers ours, and drops a client that never answers its own."""

import socket
import time

from helpers import OP_PING, RawWebSocket


def test_a_ping_from_the_client_gets_a_pong(server, connect):
    ann = connect(server)
    pong = ann.ws.ping(b"are you there")
    assert pong.wait(timeout=5), "no pong within 5 s"
    ann.assert_alive()


def test_an_idle_client_that_never_answers_pings_is_disconnected(start_server):
    server = start_server("--idle-timeout", "2")
    raw = RawWebSocket(server.port, "/rooms/demo?name=mute")
    try:
        client = raw.read_json()["client"]
        started = time.monotonic()
        raw.settimeout(8)
        opcodes = []
        try:
            while True:
                _, opcode, _ = raw.read_frame()  # read (a close frame too), never answer
                opcodes.append(opcode)
        except (EOFError, ConnectionResetError):
            pass
        except (socket.timeout, TimeoutError):
            raise AssertionError(f"still connected {time.monotonic() - started:.1f} s after the welcome") from None
        elapsed = time.monotonic() - started
        assert elapsed < 5.5, f"disconnected only after {elapsed:.1f} s"
        assert OP_PING in opcodes, f"never pinged before being dropped (frames: {opcodes})"
        server.wait_for_log(rf"close {client} code=")
    finally:
        raw.close()


def test_a_client_that_answers_pings_stays_connected_past_the_idle_timeout(start_server, connect):
    server = start_server("--idle-timeout", "2")
    ann = connect(server)  # websockets answers pings by itself
    time.sleep(5.5)
    ann.assert_alive()
    assert not server.log_lines(rf"close {ann.id} ")
