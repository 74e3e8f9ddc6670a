"""The OSC bridge in a cluster (docs/osc.md, "In a cluster"): every node is
pointed at the same OSC target, and each commit, preview and dump of a room
goes out once, from the room's owner; an OSC write that reaches a node that
does not own the room is applied by the owner, as that node's member's would be."""

from __future__ import annotations

import json
import time

import pytest

from helpers import has_change
from osc_peer import OSCReceiver, OSCSender, dump_barrier
from pytests.support import free_port
from test_cluster import cluster, redis  # noqa: F401 (fixtures)
from test_osc import assert_a_window_apart


@pytest.fixture
def receiver():
    made = OSCReceiver()
    yield made
    made.close()


def is_gain(value):
    return lambda m: m.address == "/demo/gain" and m.arg == pytest.approx(value, abs=1e-6)


def sent(node, kind: str) -> float:
    return node.metrics().get(f'tandem_osc_sent_total{{kind="{kind}"}}', 0.0)


def test_each_commit_goes_out_once_from_the_owner_and_osc_writes_reach_every_node(cluster, join, receiver):
    listen1, listen2 = free_port(), free_port()
    n1 = cluster.start_node("n1", "--osc-send", receiver.url, "--osc-previews",
                            "--osc-listen", f"udp://127.0.0.1:{listen1}")
    n2 = cluster.start_node("n2", "--osc-send", receiver.url, "--osc-previews",
                            "--osc-listen", f"udp://127.0.0.1:{listen2}")
    ann = join(n1, "Ann")
    owner = cluster.wait_owner()
    assert owner == "n1"
    bob = join(n2, "Bob")
    # Barriers: a dump asked of each node (osc_peer.dump_barrier) comes after everything
    # that node sent before it, so "nothing else came" is checked against an event.
    to_n1, to_n2 = OSCSender(listen1), OSCSender(listen2)
    try:
        # The owner sent the room's dump when it took the room; nobody else did.
        receiver.wait_address("/demo/dump/end", start=0)
        [before] = dump_barrier([receiver], to_n1, to_n2)
        assert [m.address for m in before].count("/demo/dump/end") == 1, before

        # A drag from the node that does not own the room: previews and one commit, once each.
        receiver.mark()
        commits = {node.name: sent(node, "commit") for node in (n1, n2)}
        previewed = {node.name: sent(node, "preview") for node in (n1, n2)}
        bob.drag("gain", "begin")
        for i in range(1, 21):  # the scenario: a hand's moves, 10 ms apart
            bob.drag("gain", "move", dx=0.01 * i)
            time.sleep(0.01)
        # The last move's preview goes out when its window ends; waiting for it makes the
        # commit the first 0.7 after the end, whatever the scheduler did to the moves.
        receiver.wait_for(is_gain(0.7), what="the last move's preview")
        ended = receiver.count()
        end = bob.drag("gain", "end")
        bob.expect_ack(end)
        ann.expect(has_change("gain", by=bob.id))
        receiver.wait_for(is_gain(0.7), start=ended, what="the commit")
        [messages] = dump_barrier([receiver], to_n1, to_n2)
        gains = [m for m in messages if m.address == "/demo/gain"]
        split = sum(1 for m in messages[:ended - receiver._mark] if m.address == "/demo/gain")
        previews, after_end = gains[:split], gains[split:]
        assert [m.arg for m in after_end] == [pytest.approx(0.7, abs=1e-6)], messages
        assert 1 <= len(previews) <= 20, messages
        assert all(m.arg <= 0.7 + 1e-6 for m in previews), previews
        # Only the owner sent: its counters moved by one commit and by the previews seen.
        assert sent(n1, "commit") == commits["n1"] + 1
        assert sent(n1, "preview") == previewed["n1"] + len(previews)
        assert (sent(n2, "commit"), sent(n2, "preview")) == (commits["n2"], previewed["n2"])
        assert_a_window_apart(previews)  # at most 60 a second, on the owner's clock

        # An OSC write to the node that does not own the room: applied by the owner,
        # seen by the members on both nodes and sent out once.
        receiver.mark()
        ann.mark()
        bob.mark()
        to_n2.send("/demo/name", "Patch")
        to_n2.send("/demo/gain", 0.25)
        for member in (ann, bob):
            frame = member.expect(lambda f: any(c["control"] == "gain" and c.get("by", "").startswith("n2.osc")
                                                for c in f.get("changes", [])), what="the OSC write")
            change = next(c for c in frame["changes"] if c["control"] == "gain")
            assert change["state"]["value"] == pytest.approx(0.25)
            assert change["by"].startswith("n2.osc")
        joined = [p for f in ann.history for p in f.get("joined") or []]
        assert any(p["name"] == "Patch" and p["client"].startswith("n2.osc") for p in joined), joined
        receiver.wait_for(is_gain(0.25), what="the OSC write's commit")
        [messages] = dump_barrier([receiver], to_n1, to_n2)
        assert len([m for m in messages if is_gain(0.25)(m)]) == 1, messages
        assert [c["client"] for c in cluster.history()][-1].startswith("n2.osc")

        # A refusal from the owner comes back to the node the write came to: dropped with its reason.
        bob.expect_ack(bob.drag("gain", "begin"))  # the owner holds the thumb for Bob once this is acked
        bob.drag("gain", "move", dx=0.1)
        to_n2.send("/demo/gain", 0.9)
        n2.wait_for_log(r"osc: dropped from n2\.osc[.0-9]*: busy: ")
        bob.expect_ack(bob.drag("gain", "end"))

        # /demo/dump is answered by the node it reaches, once.
        receiver.mark()
        to_n2.send("/demo/dump")
        receiver.wait_address("/demo/dump/end")
        [messages] = dump_barrier([receiver], to_n1, to_n2)
        assert [m.address for m in messages].count("/demo/dump/end") == 1, messages

        # A room created on one node is dumped once, by that node.
        receiver.mark()
        room = {"id": "studio", "title": "Studio", "controls": [{"id": "volume", "type": "slider", "min": 0, "max": 10}]}
        assert n2.request("POST", "/api/rooms", json.dumps(room)).status == 201
        receiver.wait_address("/studio/dump/end")
        [messages] = dump_barrier([receiver], to_n1, to_n2, room="studio", dump_length=1)
        assert [m.address for m in messages] == ["/studio/volume", "/studio/dump/end"], messages
    finally:
        to_n1.close()
        to_n2.close()
