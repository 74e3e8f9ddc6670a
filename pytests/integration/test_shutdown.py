"""SIGTERM and SIGINT close every client with 1001 and exit 0.

The server gives up on clients that hold it after 4 s; how fast it stops is
not asserted here (a loaded machine may be slower): the waits are bounded by
helpers.WAIT, which only a hang reaches."""

import signal

from helpers import wait_closed


def shut_down_with(sig, server, connect, open_ws):
    clients = [connect(server, name=name) for name in ("Ann", "Bob", "Cy")]
    unknown_room = open_ws(server.ws_url("nope"))
    wait_closed(unknown_room)
    for client in clients:
        client.assert_alive()
    server.send_signal(sig)
    codes = [client.wait_closed()[0] for client in clients]
    rc = server.wait_exit()
    return codes, rc


def test_sigterm_closes_every_client_with_1001_and_exits_0(server, connect, open_ws):
    codes, rc = shut_down_with(signal.SIGTERM, server, connect, open_ws)
    assert codes == [1001, 1001, 1001]
    assert rc == 0, f"exit status {rc} (None: still running)"
    server.wait_for_log(r"^info shutting down: closing 3 connection\(s\) with 1001$")
    server.wait_for_log(r"^info stopped$")


def test_sigint_closes_every_client_with_1001_and_exits_0(server, connect, open_ws):
    codes, rc = shut_down_with(signal.SIGINT, server, connect, open_ws)
    assert codes == [1001, 1001, 1001]
    assert rc == 0, f"exit status {rc} (None: still running)"


def test_sigterm_with_no_clients_exits_0_having_closed_none(server):
    server.send_signal(signal.SIGTERM)
    assert server.wait_exit() == 0
    server.wait_for_log(r"^info shutting down: closing 0 connection\(s\) with 1001$")
    server.wait_for_log(r"^info stopped$")
