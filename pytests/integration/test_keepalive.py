"""Pings: the server answers ours, and drops a client that never answers its own."""

import socket

from helpers import OP_PING, WAIT, RawWebSocket


def read_until_dropped(raw: RawWebSocket) -> list[int]:
    """Reads every frame (a close frame too) and never answers a ping, until the
    server hangs up; the opcodes read. Only a hang reaches WAIT."""
    raw.settimeout(WAIT)
    opcodes = []
    try:
        while True:
            _, opcode, _ = raw.read_frame()
            opcodes.append(opcode)
    except (EOFError, ConnectionResetError):
        return opcodes
    except (socket.timeout, TimeoutError):
        raise AssertionError(f"still connected {WAIT} s after the welcome (frames: {opcodes})") from None


def test_a_ping_from_the_client_gets_a_pong(server, connect):
    ann = connect(server)
    pong = ann.ws.ping(b"are you there")
    assert pong.wait(timeout=WAIT), f"no pong within {WAIT} s"
    ann.assert_alive()


def test_an_idle_client_that_never_answers_pings_is_disconnected(start_server):
    server = start_server("--idle-timeout", "2")
    raw = RawWebSocket(server.port, "/rooms/demo?name=mute")
    try:
        client = raw.read_json()["client"]
        opcodes = read_until_dropped(raw)
        assert OP_PING in opcodes, f"never pinged before being dropped (frames: {opcodes})"
        server.wait_for_log(rf"close {client} code=")
    finally:
        raw.close()


def test_a_client_that_answers_pings_stays_connected_past_the_idle_timeout(start_server, connect):
    server = start_server("--idle-timeout", "2")
    ann = connect(server)  # websockets answers pings by itself
    # Witnesses connected after Ann that never answer, one after the other:
    # once the server has dropped one, Ann's idle timeout has run out too, had
    # her pongs not counted; two of them, two idle timeouts.
    for _ in range(2):
        mute = RawWebSocket(server.port, "/rooms/demo?name=mute")
        try:
            mute_id = mute.read_json()["client"]
            assert OP_PING in read_until_dropped(mute)
        finally:
            mute.close()
        server.wait_for_log(rf"close {mute_id} code=")
    ann.assert_alive()
    assert not server.log_lines(rf"close {ann.id} ")
