"""SIGTERM and SIGINT close every client with 1001 and exit 0 within 5 s."""

import signal
import time

from helpers import wait_closed


def shut_down_with(sig, server, connect, open_ws):
    clients = [connect(server, name=name) for name in ("Ann", "Bob", "Cy")]
    unknown_room = open_ws(server.ws_url("nope"))
    wait_closed(unknown_room)
    for client in clients:
        client.assert_alive()
    started = time.monotonic()
    server.send_signal(sig)
    codes = [client.wait_closed(timeout=5)[0] for client in clients]
    rc = server.wait_exit(timeout=max(0.1, 5 - (time.monotonic() - started)))
    return codes, rc


def test_sigterm_closes_every_client_with_1001_and_exits_0_within_5_s(server, connect, open_ws):
    codes, rc = shut_down_with(signal.SIGTERM, server, connect, open_ws)
    assert codes == [1001, 1001, 1001]
    assert rc == 0, f"exit status {rc} (None: still running after 5 s)"
    server.wait_for_log(r"^info stopped$")


def test_sigint_closes_every_client_with_1001_and_exits_0_within_5_s(server, connect, open_ws):
    codes, rc = shut_down_with(signal.SIGINT, server, connect, open_ws)
    assert codes == [1001, 1001, 1001]
    assert rc == 0, f"exit status {rc} (None: still running after 5 s)"


def test_sigterm_with_no_clients_exits_0_promptly(server):
    started = time.monotonic()
    server.send_signal(signal.SIGTERM)
    assert server.wait_exit(timeout=5) == 0
    assert time.monotonic() - started < 3
