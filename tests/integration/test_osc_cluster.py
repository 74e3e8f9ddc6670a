"""The OSC bridge in a cluster (docs/osc.md, "In a cluster"): every node is
pointed at the same OSC target, and each commit, preview and dump of a room
goes out once, from the room's owner; an OSC write that reaches a node that
does not own the room is applied by the owner, as that node's member's would be."""

from __future__ import annotations

import json
import time

import pytest

from cluster import free_port
from helpers import has_change
from osc_peer import OSCReceiver, OSCSender
from test_cluster import cluster, join, redis  # noqa: F401 (fixtures)


@pytest.fixture
def receiver():
    made = OSCReceiver()
    yield made
    made.close()


def gain_commits(messages, value):
    return [m for m in messages if m.address == "/demo/gain" and m.arg == pytest.approx(value, abs=1e-6)]


def test_each_commit_goes_out_once_from_the_owner_and_osc_writes_reach_every_node(cluster, join, receiver):
    listen = free_port()
    n1 = cluster.start_node("n1", "--osc-send", receiver.url, "--osc-previews")
    n2 = cluster.start_node("n2", "--osc-send", receiver.url, "--osc-previews",
                            "--osc-listen", f"udp://127.0.0.1:{listen}")
    ann = join(n1, "Ann")
    owner = cluster.wait_owner()
    assert owner == "n1"
    bob = join(n2, "Bob")
    # The owner sent the room's dump when it took the room; nobody else did.
    receiver.wait_address("/demo/dump/end")
    time.sleep(0.5)
    assert [m.address for m in receiver.since(0)].count("/demo/dump/end") == 1

    # A drag from the node that does not own the room: one commit message, previews once each.
    receiver.mark()
    bob.drag("gain", "begin")
    for i in range(1, 21):
        bob.drag("gain", "move", dx=0.01 * i)
        time.sleep(0.01)
    end = bob.drag("gain", "end")
    bob.expect_ack(end)
    ann.expect(has_change("gain", by=bob.id))
    messages = receiver.quiet(0.5)
    assert len(gain_commits(messages, 0.7)) == 1, messages
    previews = [m for m in messages if m.address == "/demo/gain"][:-1]
    assert 1 <= len(previews) <= 20
    times = [m.time for m in previews]
    assert all(b - a >= 0.012 for a, b in zip(times, times[1:])), times

    # An OSC write to the node that does not own the room: applied by the owner,
    # seen by the members on both nodes and sent out once.
    receiver.mark()
    ann.mark()
    bob.mark()
    sender = OSCSender(listen)
    try:
        sender.send("/demo/name", "Patch")
        sender.send("/demo/gain", 0.25)
        for member in (ann, bob):
            frame = member.expect(lambda f: any(c["control"] == "gain" and c.get("by", "").startswith("n2.osc")
                                                for c in f.get("changes", [])), what="the OSC write")
            change = next(c for c in frame["changes"] if c["control"] == "gain")
            assert change["state"]["value"] == pytest.approx(0.25)
            assert change["by"].startswith("n2.osc")
        joined = [p for f in ann.history for p in f.get("joined") or []]
        assert any(p["name"] == "Patch" and p["client"].startswith("n2.osc") for p in joined), joined
        messages = receiver.quiet(0.5)
        assert len(gain_commits(messages, 0.25)) == 1, messages
        assert [c["client"] for c in cluster.history()][-1].startswith("n2.osc")

        # A refusal from the owner comes back to the node the write came to: dropped with its reason.
        bob.drag("gain", "begin")
        bob.drag("gain", "move", dx=0.1)
        time.sleep(0.3)
        sender.send("/demo/gain", 0.9)
        n2.wait_for_log(r"osc: dropped from n2\.osc[.0-9]*: busy: ")
        bob.drag("gain", "end")

        # /demo/dump is answered by the node it reaches, once.
        receiver.mark()
        sender.send("/demo/dump")
        receiver.wait_address("/demo/dump/end")
        messages = receiver.quiet(0.5)
        assert [m.address for m in messages].count("/demo/dump/end") == 1

        # A room created on one node is dumped once, by that node.
        receiver.mark()
        room = {"id": "studio", "title": "Studio", "controls": [{"id": "volume", "type": "slider", "min": 0, "max": 10}]}
        assert n2.request("POST", "/api/rooms", json.dumps(room)).status == 201
        receiver.wait_address("/studio/dump/end")
        messages = receiver.quiet(0.5)
        assert [m.address for m in messages] == ["/studio/volume", "/studio/dump/end"], messages
    finally:
        sender.close()
