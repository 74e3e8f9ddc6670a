"""`--event-loop poll` (lws' own poll() loop) must behave on the wire exactly like the default uv loop."""

import json
import signal

import pytest

from helpers import OP_CLOSE, WAIT, RawWebSocket, find_change, flood_until_closed, has_change, wait_closed

POLL = ("--event-loop", "poll")


@pytest.fixture
def poll_server(start_server):
    server = start_server(*POLL)
    assert "event-loop=poll" in server.stderr_lines[0]
    return server


def close_code_of(raw: RawWebSocket) -> int | None:
    """Reads a bare socket to its end; the code of the close frame, or None if there was none."""
    try:
        while True:
            _, opcode, payload = raw.read_frame()
            if opcode == OP_CLOSE:
                return int.from_bytes(payload[:2], "big")
    except (EOFError, ConnectionResetError):
        return None


def test_with_poll_a_client_gets_its_welcome_and_commits(poll_server, connect):
    ann = connect(poll_server, name="Ann")
    bob = connect(poll_server, name="Bob")
    assert ann.welcome["protocol"] == 1
    ann.drag("gain", "begin")
    ann.drag("gain", "end", dx=0.2)
    change = find_change(bob.expect(has_change("gain")), "gain")
    assert change["state"] == {"value": 0.7} and change["by"] == ann.id
    assert poll_server.get("/healthz").status == 200


def test_with_poll_a_binary_frame_closes_with_1003(poll_server, connect):
    ann = connect(poll_server)
    ann.ws.send(b"\x01")
    assert ann.wait_closed()[0] == 1003


def test_with_poll_a_message_over_the_limit_closes_with_1009(poll_server, connect):
    ann = connect(poll_server)
    ann.send_text(json.dumps({"type": "step", "seq": 1, "control": "size", "by": 0, "pad": "x" * 5000}))
    assert ann.wait_closed()[0] == 1009


def test_with_poll_an_unknown_room_closes_with_4404(poll_server, open_ws):
    ws = open_ws(poll_server.ws_url("nope"))
    assert wait_closed(ws) == (4404, "unknown room")


def test_with_poll_sigterm_closes_every_client_with_1001(poll_server, connect):
    clients = [connect(poll_server) for _ in range(2)]
    poll_server.send_signal(signal.SIGTERM)
    assert [client.wait_closed()[0] for client in clients] == [1001, 1001]


def test_with_poll_sigterm_exits_0_once_its_clients_are_closed(poll_server, connect):
    clients = [connect(poll_server) for _ in range(2)]
    poll_server.send_signal(signal.SIGTERM)
    for client in clients:
        client.wait_closed()
    assert poll_server.wait_exit() == 0


def test_with_poll_flooding_past_the_rate_limit_closes_with_1008(poll_server):
    flooder = RawWebSocket(poll_server.port)
    try:
        client = flooder.read_json()["client"]
        code, _ = flood_until_closed(flooder, WAIT)  # the close comes after one second of flooding
        assert code == 1008
        poll_server.wait_for_log(rf"close {client} code=1008")
    finally:
        flooder.close()


def test_with_poll_an_idle_client_that_never_answers_pings_is_disconnected(start_server):
    server = start_server(*POLL, "--idle-timeout", "2")
    raw = RawWebSocket(server.port)
    try:
        raw.read_json()
        raw.settimeout(WAIT)  # only a hang: the server drops it 2 s idle plus an unanswered ping later
        close_code_of(raw)  # returns at the end of the stream; a timeout fails the test
    finally:
        raw.close()
