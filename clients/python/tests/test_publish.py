"""publish(): a gauge at any rate, folded into at most 50 sets a second, into the room's series."""

from __future__ import annotations

import time

import tandem
from test_conformance import join, server_state, until


def sets_in(server) -> float:
    return server.metrics().get('tandem_messages_in_total{type="set"}', 0)


def test_a_1khz_loop_publishes_its_curve_without_flooding_the_server(server, rooms):
    room = join(rooms, server.url, name="trainer")
    before = sets_in(server)
    start = time.monotonic()
    n = 0
    # A training loop at about 1 kHz for two seconds: publish never waits.
    while time.monotonic() - start < 2.0:
        room["bpm"].publish(60 + n % 100)
        n += 1
        time.sleep(0.001)
    last = 60 + (n - 1) % 100
    elapsed = time.monotonic() - start
    until(lambda: server_state(server, "bpm")["value"] == last, what="the last value published")
    sent = sets_in(server) - before
    assert n > 500, "the loop ran"
    # At most one set per 1/50 s of the loop (and the trailing one), far fewer than the values published.
    assert 2 <= sent <= elapsed * 50 + 2, (n, sent)
    series = server.get("/api/rooms/demo/series/bpm?points=5000").json()["points"]
    assert series[-1][3] == last
    assert room.publish_failures == 0


def test_publish_after_close_raises(server, rooms):
    room = join(rooms, server.url)
    room.close()
    try:
        room["bpm"].publish(1)
    except tandem.Closed:
        return
    raise AssertionError("publish after close did not raise")
