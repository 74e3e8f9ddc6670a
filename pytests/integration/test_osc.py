"""The OSC bridge (docs/osc.md) against the real server, with python-osc as the
independent OSC peer (osc_peer.py): commits and conflated previews out to
--osc-send targets, dumps, sets and steps in on --osc-listen from a member
named `osc`, holds, drops with their reasons, the flags.

Not part of `make test-cluster-protocol` (the Makefile lists its files); with
TANDEM_TEST_CLUSTER=1 this module is skipped: the cluster's OSC tests are
separate.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import socket
import struct
import subprocess
import time
from dataclasses import dataclass, field

import pytest

from helpers import ROOT, TandemServer, find_change, has_change, healthz, value_is, wait_until
from osc_peer import OSCReceiver, OSCSender, Received, build

pytestmark = pytest.mark.skipif(os.environ.get("TANDEM_TEST_CLUSTER") == "1",
                                reason="the OSC bridge in a cluster is tested on its own")

LISTEN_LINE = re.compile(r"osc listening on udp://(\S+):(\d+)")
FLOAT32 = 1e-6  # a value that went out as an OSC float (f): about 7 significant digits

# The demo room's dump at start (docs/protocol.md's demo room, docs/osc.md's table).
DEMO_DUMP = [
    ("/demo/size", "f", 60.0),
    ("/demo/size/index", "i", 2),
    ("/demo/blanks/lower", "i", 0),
    ("/demo/blanks/upper", "i", 1),
    ("/demo/color/hex", "s", "#336699"),
    ("/demo/color/red", "f", 0.2),
    ("/demo/color/green", "f", 0.4),
    ("/demo/color/blue", "f", 0.6),
    ("/demo/gain", "f", 0.5),
    ("/demo/bpm", "f", 67.0),
]


# --------------------------------------------------------------------------
# A server with the bridge, its OSC targets and senders
# --------------------------------------------------------------------------


@dataclass
class OSCServer:
    server: TandemServer
    receivers: list[OSCReceiver]
    listen_port: int | None
    senders: list[OSCSender] = field(default_factory=list)
    _barrier: OSCSender | None = None

    @property
    def receiver(self) -> OSCReceiver:
        return self.receivers[0]

    def sender(self, source: str = "127.0.0.1", host: str = "127.0.0.1") -> OSCSender:
        assert self.listen_port is not None, "this server has no --osc-listen"
        sender = OSCSender(self.listen_port, host=host, source=source)
        self.senders.append(sender)
        return sender

    def settle(self, room: str = "demo", dump_length: int = 10) -> list[Received]:
        """Every message the first target got since its mark and before a dump barrier
        (osc_peer.dump_barrier: a `/ROOM/dump` asked for now, from a sender of its own,
        comes after everything the bridge sent before it). The request counts in
        tandem_osc_received_total; datagrams are handled in order, so it also comes after
        every datagram sent before it."""
        if self._barrier is None:
            self._barrier = self.sender()
        return self.limited_barrier(self._barrier, room, dump_length)[0]

    def limited_barrier(self, sender: OSCSender, room: str = "demo", dump_length: int = 10) -> list[list[Received]]:
        """osc_peer.dump_barrier, for a bridge whose dump requests are rate-limited
        (docs/osc.md, "Limits"): a request past the budget is counted as `dump_limited`
        instead of answered, and is asked again (the budget refills on the server's
        clock: the tries are the scenario)."""
        time.sleep(2 / 60)  # the scenario: a preview window passes, so that what was pending is due
        end = f"/{room}/dump/end"
        while True:
            starts = [r.count() for r in self.receivers]
            before = self.metric(dropped("dump_limited"))
            sender.send(f"/{room}/dump")

            def outcome():
                ends = []
                for receiver, start in zip(self.receivers, starts):
                    with receiver._cond:
                        ends.append(next((i for i in range(start, len(receiver.received))
                                          if receiver.received[i].address == end), None))
                if all(i is not None for i in ends):
                    return ends
                return "limited" if self.metric(dropped("dump_limited")) > before else None

            ends = wait_until(outcome, what=f"{end} or a dump_limited drop")
            if ends != "limited":
                break
        out = []
        for receiver, index in zip(self.receivers, ends):
            with receiver._cond:
                dump = receiver.received[index - dump_length:index]
                assert all(m.address.startswith(f"/{room}/") for m in dump), f"not a whole dump before its end: {dump}"
                own = set(range(index - dump_length, index + 1))
                out.append([m for i, m in enumerate(receiver.received[:index + 1]) if i >= receiver._mark and i not in own])
        return out

    # -- the server's side

    def metric(self, name: str) -> float:
        """A sample of /metrics; 0 when it is not there (a labelled counter never moved)."""
        return self.server.metrics().get(name, 0.0)

    def wait_metric(self, name: str, predicate, timeout: float = 30.0) -> float:
        deadline = time.monotonic() + timeout
        while True:
            value = self.metric(name)
            if predicate(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} = {value} after {timeout} s")
            time.sleep(0.05)

    def room(self, room: str = "demo") -> dict:
        response = self.server.get(f"/api/rooms/{room}")
        assert response.status == 200, response
        return response.json()

    def state(self, control: str, room: str = "demo") -> dict:
        for entry in self.room(room)["controls"]:
            if entry["id"] == control:
                return entry["state"]
        raise AssertionError(f"no control {control} in {room}")


def dropped(reason: str) -> str:
    return f'tandem_osc_dropped_total{{reason="{reason}"}}'


def sent(kind: str) -> str:
    return f'tandem_osc_sent_total{{kind="{kind}"}}'


def drop_line(sender: OSCSender, reason: str) -> str:
    """The warn line of a drop (docs: `osc: dropped from 127.0.0.1:5555: REASON: SENTENCE`)."""
    return rf"^warn osc: dropped from {re.escape(sender.source_address)}: {reason}: \S"


@pytest.fixture
def osc(start_server):
    """Factory: `osc(*flags, targets=1, previews=False, listen=True)` → an OSCServer: a server
    with --osc-send to `targets` fresh receivers, --osc-listen udp://127.0.0.1:0 (the port read
    from its log line), and, once the start dump has reached every receiver, their marks set
    after it. Receivers and senders are closed at teardown."""
    made: list[OSCServer] = []
    receivers: list[OSCReceiver] = []

    def start(*flags: str, targets: int = 1, previews: bool = False, listen: bool = True,
              wait_dump: bool = True) -> OSCServer:
        own = [OSCReceiver() for _ in range(targets)]
        receivers.extend(own)
        args: list[str] = []
        for receiver in own:
            args += ["--osc-send", receiver.url]
        if previews:
            args.append("--osc-previews")
        if listen:
            args += ["--osc-listen", "udp://127.0.0.1:0"]
        server = start_server(*args, *flags)
        port = None
        if listen:
            port = int(LISTEN_LINE.search(server.wait_for_log(LISTEN_LINE.search)).group(2))
            assert port > 0
        bridge = OSCServer(server, own, port)
        made.append(bridge)
        if wait_dump:
            for receiver in own:
                receiver.wait_address("/demo/dump/end", start=0)  # the demo room is the only one at start
                receiver.mark()
        return bridge

    yield start
    for bridge in made:
        for sender in bridge.senders:
            sender.close()
    for receiver in receivers:
        receiver.close()


def same(got, expected) -> bool:
    """An OSC argument is the expected one: a string exactly, a number within a float's precision."""
    if isinstance(expected, str):
        return got == expected
    return isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - expected) < FLOAT32


def assert_a_window_apart(previews: list[Received], window: float = 1 / 60, slack: float = 0.05) -> None:
    """At most 60 a second: the server sends a thumb's preview a window after its last on its
    own clock. The kernel's arrival times can only bunch them by how late the first went out
    (a busy machine delays a send, never its successor's window), so the span is checked,
    with that slack, rather than each gap."""
    times = [m.time for m in previews]
    if len(times) >= 2:
        span, least = times[-1] - times[0], (len(times) - 1) * window - slack
        assert span >= least, f"{len(times)} previews in {span * 1000:.1f} ms (at most 60 a second per thumb)"


def addresses(messages: list[Received]) -> list[str]:
    return [m.address for m in messages]


def joined(client: str, name: str | None = None):
    return lambda f: any(p["client"] == client and (name is None or p["name"] == name) for p in f.get("joined") or [])


def history(server: TandemServer, since: int = 0) -> list[dict]:
    response = server.get(f"/api/rooms/demo/history?since={since}")
    assert response.status == 200, response
    return response.json()["history"]


# --------------------------------------------------------------------------
# Out: commits and previews
# --------------------------------------------------------------------------


def test_a_websocket_drag_reaches_osc_as_one_message_for_its_commit(osc, connect):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    commits = bridge.metric(sent("commit"))
    ann.drag("gain", "begin")
    for i in range(1, 21):
        ann.drag("gain", "move", dx=0.01 * i)
    ann.drag("gain", "end")
    ann.expect(has_change("gain", by=ann.id, state=value_is(0.7)))
    bridge.receiver.wait_address("/demo/gain")
    got = bridge.settle()
    assert addresses(got) == ["/demo/gain"], got
    assert got[0].types == "f" and abs(got[0].arg - 0.7) < FLOAT32, got
    assert bridge.metric(sent("commit")) == commits + 1
    assert bridge.receiver.bundles == 0 and not bridge.receiver.unparsed


def test_previews_are_conflated_to_60_a_second_per_thumb_and_the_commit_follows(osc, connect):
    bridge = osc(previews=True)
    ann = connect(bridge.server, name="Ann")
    previews_before, commits_before = bridge.metric(sent("preview")), bridge.metric(sent("commit"))
    moves, period = 250, 1 / 250  # a second of moves at 250 Hz
    ann.drag("gain", "begin")
    started = time.monotonic()
    for i in range(1, moves + 1):
        pause = started + i * period - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        ann.drag("gain", "move", dx=round(0.4 * i / moves, 4))
    elapsed = time.monotonic() - started
    # The last window closes and its preview goes out: waited for, so that it is out before the end.
    bridge.receiver.wait_for(lambda m: m.address == "/demo/gain" and abs(m.arg - 0.9) < FLOAT32, what="the last preview")
    ended = bridge.receiver.count()
    ann.drag("gain", "end")
    ann.expect(has_change("gain", by=ann.id, state=value_is(0.9)))
    bridge.receiver.wait_for(lambda m: m.address == "/demo/gain" and abs(m.arg - 0.9) < FLOAT32, start=ended,
                             what="the commit")
    got = bridge.settle()
    assert set(addresses(got)) == {"/demo/gain"}, "only the dragged thumb's message goes out"
    *previews, commit = got
    assert commit.types == "f" and abs(commit.arg - 0.9) < FLOAT32, commit
    assert bridge.metric(sent("commit")) == commits_before + 1
    assert bridge.metric(sent("preview")) == previews_before + len(previews)

    assert len(previews) >= 10, f"{len(previews)} previews for {moves} moves over {elapsed:.2f} s"
    assert len(previews) <= moves / 2, f"{len(previews)} previews for {moves} moves: not conflated"
    assert len(previews) <= 60 * (elapsed + 0.3) + 2, f"{len(previews)} previews in {elapsed:.2f} s: more than 60 a second"
    assert_a_window_apart(previews)
    values = [m.arg for m in previews]
    assert all(m.types == "f" for m in previews)
    assert all(0.5 - FLOAT32 <= v <= 0.9 + FLOAT32 for v in values), values
    assert values == sorted(values), f"the latest state wins: the previews follow the moves ({values})"
    assert abs(previews[-1].arg - 0.9) < FLOAT32, f"the last preview {previews[-1].arg} is not the last move's 0.9"


def test_a_pending_preview_is_dropped_when_the_commit_goes_out(osc, connect):
    bridge = osc(previews=True)
    ann = connect(bridge.server, name="Ann")
    ann.drag("gain", "begin")
    for i in range(1, 41):  # 250 Hz, then the end at once: the last move's preview is still pending
        time.sleep(0.004)
        ann.drag("gain", "move", dx=round(0.4 * i / 40, 4))
    ann.drag("gain", "end", dx=0.45)
    ann.expect(has_change("gain", by=ann.id, state=value_is(0.95)))
    bridge.receiver.wait_for(lambda m: m.address == "/demo/gain" and same(m.arg, 0.95), what="the commit")
    got = bridge.settle()
    assert same(got[-1].arg, 0.95), f"a preview went out after the commit: {got[-3:]}"
    assert [m for m in got if same(m.arg, 0.95)] == [got[-1]], got


def test_previews_are_conflated_per_thumb(osc, connect):
    bridge = osc(previews=True)
    ann, bob = connect(bridge.server, name="Ann"), connect(bridge.server, name="Bob")
    ann.expect_ack(ann.drag("color", "begin", thumb="red"))
    bob.expect_ack(bob.drag("color", "begin", thumb="green"))
    moves = 150
    started = time.monotonic()
    for i in range(1, moves + 1):  # both at 250 Hz, interleaved
        pause = started + i * 0.004 - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        ann.drag("color", "move", thumb="red", dx=round(0.6 * i / moves, 4))
        bob.drag("color", "move", thumb="green", dx=round(0.2 * i / moves, 4))
    # Each thumb's last window closes and its last position goes out.
    for address, last in (("/demo/color/red", 0.8), ("/demo/color/green", 0.6)):
        bridge.receiver.wait_for(lambda m: m.address == address and same(m.arg, last), what=f"{address}'s last preview")
    got = bridge.settle()
    assert set(addresses(got)) == {"/demo/color/red", "/demo/color/green", "/demo/color/hex"}, set(addresses(got))
    for address, last in (("/demo/color/red", 0.8), ("/demo/color/green", 0.6)):  # on the 1/255 grid
        mine = [m for m in got if m.address == address]
        assert 8 <= len(mine) <= moves / 2, f"{len(mine)} previews of {address} for {moves} moves"
        assert_a_window_apart(mine)
        assert same(mine[-1].arg, last), (address, mine[-1])
    ann.drag("color", "cancel", thumb="red")
    bob.drag("color", "cancel", thumb="green")


def test_a_batch_sends_one_set_of_messages_per_control_it_changed(osc, connect, tmp_path):
    bridge = osc("--data", str(tmp_path / "tandem.db"))
    ann = connect(bridge.server, name="Ann")

    def preset(action: str) -> int:
        ann.seq += 1
        ann.send_json({"type": "preset", "seq": ann.seq, "action": action, "name": "Start"})
        return ann.seq

    ann.expect_ack(preset("save"))
    ann.expect_ack(ann.set("gain", 0.8))
    ann.expect_ack(ann.step("size", 2))
    bridge.receiver.wait_address("/demo/size/index")
    bridge.settle()
    commits = bridge.metric(sent("commit"))
    bridge.receiver.mark()
    ann.expect_ack(preset("recall"))  # one commit: gain and size back, the rest unchanged
    bridge.receiver.wait_address("/demo/size/index")
    bridge.receiver.wait_address("/demo/gain")
    got = bridge.settle()
    assert sorted((m.address, m.types, m.arg) for m in got) == sorted(
        [("/demo/size", "f", 60.0), ("/demo/size/index", "i", 2), ("/demo/gain", "f", 0.5)]), got
    assert bridge.metric(sent("commit")) == commits + 3


def test_a_cancelled_drag_sends_the_committed_value_back_and_no_commit(osc, connect):
    bridge = osc(previews=True)
    ann = connect(bridge.server, name="Ann")
    commits = bridge.metric(sent("commit"))
    ann.drag("gain", "begin")
    ann.drag("gain", "move", dx=0.3)
    bridge.receiver.wait_for(lambda m: m.address == "/demo/gain" and abs(m.arg - 0.8) < FLOAT32, what="the 0.8 preview")
    index = bridge.receiver.mark()
    ann.drag("gain", "cancel")
    snapped = bridge.receiver.wait_for(lambda m: m.address == "/demo/gain", start=index)
    assert abs(snapped.arg - 0.5) < FLOAT32, f"a cancel sends the committed 0.5, not {snapped}"
    got = bridge.settle()
    assert addresses(got) == ["/demo/gain"], got
    assert bridge.metric(sent("commit")) == commits
    assert bridge.state("gain") == {"value": 0.5}


@pytest.mark.parametrize("control, thumb, dx, preview", [
    # a colour channel: that channel and the hex it changes
    ("color", "red", 0.2, {"/demo/color/red": ("f", 0.4), "/demo/color/hex": ("s", "#666699")}),
    # a snap: its value and index
    ("size", "index", 0.25, {"/demo/size": ("f", 80.0), "/demo/size/index": ("i", 3)}),
    # a range thumb: its own message only
    ("blanks", "upper", 1 / 9, {"/demo/blanks/upper": ("i", 2)}),
], ids=["colour-channel", "snap", "range-thumb"])
def test_a_preview_carries_the_dragged_thumbs_messages_only(osc, connect, control, thumb, dx, preview):
    bridge = osc(previews=True)
    ann = connect(bridge.server, name="Ann")
    ann.drag(control, "begin", thumb=thumb)
    ann.drag(control, "move", thumb=thumb, dx=dx)
    for address, (types, value) in preview.items():
        bridge.receiver.wait_for(lambda m: m.address == address and m.types == types and same(m.args[0], value),
                                 what=f"{address} ,{types} {value}")
    got = bridge.settle()
    assert set(addresses(got)) == set(preview), got
    index = bridge.receiver.mark()
    ann.drag(control, "end", thumb=thumb)
    ann.expect(has_change(control, by=ann.id))
    commit_addresses = [a for a, _, _ in DEMO_DUMP if a.startswith(f"/demo/{control}")]
    bridge.receiver.wait_address(commit_addresses[-1], start=index)
    got = bridge.settle()
    assert addresses(got)[-len(commit_addresses):] == commit_addresses, got


# --------------------------------------------------------------------------
# Dumps
# --------------------------------------------------------------------------


def dump_of(receiver: OSCReceiver, room: str = "demo", start: int | None = None, timeout: float = 30.0) -> list[Received]:
    """The messages of `room` from `start` up to and with its next /ROOM/dump/end."""
    end = receiver.wait_address(f"/{room}/dump/end", timeout=timeout, start=start)
    got = receiver.since(start)
    return [m for m in got[:got.index(end) + 1] if m.address.startswith(f"/{room}/")]


def assert_demo_dump(messages: list[Received], revision: int, states: list[tuple] = DEMO_DUMP) -> None:
    expected = [*states, ("/demo/dump/end", "i", revision)]
    assert [(m.address, m.types) for m in messages] == [(a, t) for a, t, _ in expected], messages
    for message, (_, _, value) in zip(messages, expected):
        assert same(message.arg, value), message


def test_at_start_every_control_and_the_dump_end_with_the_revision_go_out(osc):
    bridge = osc(wait_dump=False)
    assert_demo_dump(dump_of(bridge.receiver, start=0), revision=0)
    assert bridge.metric(sent("dump")) == len(DEMO_DUMP) + 1
    assert bridge.receiver.bundles == 0 and not bridge.receiver.unparsed


def test_a_dump_request_sends_the_room_again_with_its_revision(osc, connect):
    bridge = osc()
    sender = bridge.sender()
    sender.send("/demo/dump")
    assert_demo_dump(dump_of(bridge.receiver), revision=0)
    bridge.receiver.mark()
    # After a change, with an argument (a bang or a 1 works too): the new state and revision.
    ann = connect(bridge.server, name="Ann")
    ann.set("gain", 0.25)
    ann.expect(has_change("gain", state=value_is(0.25)))
    bridge.receiver.wait_for(lambda m: m.address == "/demo/gain" and m.arg == 0.25, what="the commit")
    index = bridge.receiver.mark()
    sender.send("/demo/dump", 1)
    states = [(a, t, 0.25 if a == "/demo/gain" else v) for a, t, v in DEMO_DUMP]
    assert_demo_dump(dump_of(bridge.receiver, start=index), revision=1, states=states)


STUDIO = {"id": "studio", "title": "Studio", "controls": [
    {"id": "volume", "type": "slider", "min": 0, "max": 10, "step": 1},
    {"id": "mode", "type": "snap", "values": [1, 2, 3]},
]}


def test_a_room_created_or_replaced_is_dumped(osc):
    bridge = osc()
    response = bridge.server.request("POST", "/api/rooms", json.dumps(STUDIO))
    assert response.status == 201, response
    got = dump_of(bridge.receiver, room="studio")
    assert [(m.address, m.types) for m in got] == [
        ("/studio/volume", "f"), ("/studio/mode", "f"), ("/studio/mode/index", "i"), ("/studio/dump/end", "i")], got
    assert [m.arg for m in got] == [0.0, 1.0, 0, 0]
    # A schema change: a third control.
    index = bridge.receiver.mark()
    replaced = dict(STUDIO, controls=[*STUDIO["controls"], {"id": "level", "type": "gauge", "min": 0, "max": 1}])
    response = bridge.server.request("POST", "/api/rooms", json.dumps(replaced))
    assert response.status in (200, 201), response
    got = dump_of(bridge.receiver, room="studio", start=index)
    assert addresses(got) == ["/studio/volume", "/studio/mode", "/studio/mode/index", "/studio/level", "/studio/dump/end"], got


# --------------------------------------------------------------------------
# In: sets and steps from a member named osc
# --------------------------------------------------------------------------


def test_an_osc_set_reaches_websocket_members_the_history_and_the_osc_targets(osc, connect, tmp_path):
    bridge = osc("--data", str(tmp_path / "tandem.db"))
    ann = connect(bridge.server, name="Ann")
    received, applied = bridge.metric("tandem_osc_received_total"), bridge.metric("tandem_osc_applied_total")
    sender = bridge.sender()
    sender.send("/demo/gain", 0.25)
    frame = ann.expect(has_change("gain", by="osc", state=value_is(0.25)))
    change = find_change(frame, "gain")
    assert change["state"] == {"value": 0.25}
    peer = ann.expect(joined("osc"), since=0)
    assert [p["name"] for p in peer["joined"] if p["client"] == "osc"] == ["osc"]
    entry = [h for h in history(bridge.server) if h["control"] == "gain"][-1]
    assert (entry["by"], entry["name"], entry["state"], entry["rev"]) == ("osc", "osc", {"value": 0.25}, change["rev"])
    out = bridge.receiver.wait_address("/demo/gain")
    assert out.types == "f" and out.arg == 0.25
    assert bridge.metric("tandem_osc_received_total") == received + 1
    assert bridge.metric("tandem_osc_applied_total") == applied + 1
    # A float on the slider's step grid comes back exact: 0.3 as f is 0.30000001…, stored 0.3.
    sender.send("/demo/gain", 0.3)
    ann.expect(has_change("gain", by="osc", state=value_is(0.3)))
    assert bridge.state("gain") == {"value": 0.3}


def test_a_name_sent_first_names_the_senders_later_writes(osc, connect, tmp_path):
    bridge = osc("--data", str(tmp_path / "tandem.db"))
    ben = connect(bridge.server, name="Ben")
    ann_patch, plain = bridge.sender(), bridge.sender()
    ann_patch.send("/demo/name", "Ann")
    ann_patch.send("/demo/gain", 0.75)
    frame = ben.expect(has_change("gain", state=value_is(0.75)))
    ann_id = find_change(frame, "gain")["by"]
    assert ann_id.startswith("osc.") and ann_id != "osc", ann_id
    ben.expect(joined(ann_id, "Ann"), since=0)
    entry = [h for h in history(bridge.server) if h["control"] == "gain"][-1]
    assert (entry["by"], entry["name"]) == (ann_id, "Ann")
    # Another sender without a name is `osc`; a third that names itself Ann is the same Ann.
    plain.send("/demo/size/step", 1)
    ben.expect(has_change("size", by="osc", state=lambda s: s == {"index": 3, "value": 80}))
    third = bridge.sender()
    third.send("/demo/name", "Ann")
    third.send("/demo/gain", 0.1)
    ben.expect(has_change("gain", by=ann_id, state=value_is(0.1)))
    people = [p["client"] for f in ben.history for p in f.get("joined") or []]
    assert people.count(ann_id) == 1 and people.count("osc") == 1, people


def test_the_first_name_besides_osc_is_member_osc_2_whichever_writes_first(osc, connect):
    bridge = osc()
    ben = connect(bridge.server, name="Ben")
    ann_patch = bridge.sender()
    ann_patch.send("/demo/name", "Ann")
    ann_patch.send("/demo/gain", 0.75)
    frame = ben.expect(has_change("gain", state=value_is(0.75)))
    assert find_change(frame, "gain")["by"] == "osc.2"
    bridge.sender().send("/demo/gain", 0.25)
    frame = ben.expect(has_change("gain", state=value_is(0.25)))
    assert find_change(frame, "gain")["by"] == "osc"


@pytest.mark.parametrize("messages, control, state, out", [
    ([("/demo/size/step", 1, "i")], "size", {"index": 3, "value": 80},
     [("/demo/size", "f", 80.0), ("/demo/size/index", "i", 3)]),
    ([("/demo/size/index", 0, "i")], "size", {"index": 0, "value": 20},
     [("/demo/size", "f", 20.0), ("/demo/size/index", "i", 0)]),
    ([("/demo/size", 70.0, "f")], "size", {"index": 3, "value": 80},  # the nearest value, ties to the higher
     [("/demo/size", "f", 80.0), ("/demo/size/index", "i", 3)]),
    ([("/demo/color/red", 1.0, "f")], "color", {"red": 1, "green": 0.4, "blue": 0.6, "hex": "#FF6699"},
     [("/demo/color/hex", "s", "#FF6699"), ("/demo/color/red", "f", 1.0), ("/demo/color/green", "f", 0.4), ("/demo/color/blue", "f", 0.6)]),
    ([("/demo/color/hex", "#00ff00", "s")], "color", {"red": 0, "green": 1, "blue": 0, "hex": "#00FF00"},
     [("/demo/color/hex", "s", "#00FF00"), ("/demo/color/red", "f", 0.0), ("/demo/color/green", "f", 1.0), ("/demo/color/blue", "f", 0.0)]),
    ([("/demo/blanks/upper", 3, "i")], "blanks", {"lower": 0, "upper": 3},
     [("/demo/blanks/lower", "i", 0), ("/demo/blanks/upper", "i", 3)]),
    ([("/demo/blanks/upper/step", -1, "i")], "blanks", {"lower": 0, "upper": 1},  # clamped: lower + minGap
     None),
    ([("/demo/bpm", 120, "i")], "bpm", {"value": 120, "fraction": 120 / 170}, [("/demo/bpm", "f", 120.0)]),
    ([("/demo/gain", 0.62, "d")], "gain", {"value": 0.62}, [("/demo/gain", "f", 0.62)]),
    ([("/demo/gain/step", -2, "f")], "gain", {"value": 0.48}, [("/demo/gain", "f", 0.48)]),
], ids=["snap-step", "snap-index", "snap-nearest", "colour-channel", "colour-hex", "range-thumb",
        "range-step-clamped", "gauge-int", "slider-double", "slider-step-float"])
def test_osc_sets_and_steps_apply_like_a_websocket_clients(osc, connect, messages, control, state, out):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    rev = bridge.room()["rev"]
    sender = bridge.sender()
    for address, value, types in messages:
        sender.send(address, value, types=types)
    if out is None:  # nothing changes: no commit, nothing out
        got = bridge.settle()  # after the barrier, the messages sent before it have been handled
        assert bridge.state(control) == state and bridge.room()["rev"] == rev
        assert got == []
        return
    frame = ann.expect(has_change(control, by="osc"))
    got_state = find_change(frame, control)["state"]
    assert got_state.keys() == state.keys() and all(got_state[k] == pytest.approx(v, abs=1e-12) if not isinstance(v, str) else got_state[k] == v
                                                    for k, v in state.items()), got_state
    bridge.receiver.wait_address(out[-1][0])
    got = bridge.settle()
    assert [(m.address, m.types) for m in got] == [(a, t) for a, t, _ in out], got
    for message, (_, _, value) in zip(got, out):
        assert same(message.arg, value), message


SYNTH = {"id": "synth", "title": "Synth", "controls": [
    {"id": "cutoff", "type": "slider", "min": 20, "max": 20000, "scale": "log", "state": {"value": 440}},
    {"id": "filter", "type": "toggle"},
    {"id": "pad", "type": "xy", "x": {"min": 0, "max": 1, "step": 0.01}, "y": {"min": 20, "max": 20000, "scale": "log"}},
    {"id": "hit", "type": "button"},
]}

# (what is sent, the state it leaves, the messages that go out); None: dropped with that reason.
SYNTH_STEPS = [
    (("/synth/filter", 1, "i"), ("filter", {"on": True}), [("/synth/filter", "i", 1)]),
    (("/synth/filter/step", 1, "i"), ("filter", {"on": False}), [("/synth/filter", "i", 0)]),
    (("/synth/filter", 2, "i"), "bad_value", None),
    (("/synth/pad", (0.5, 200.0), "ff"), ("pad", {"x": 0.5, "y": 200}), [("/synth/pad/x", "f", 0.5), ("/synth/pad/y", "f", 200.0)]),
    (("/synth/pad/x", 0.25, "f"), ("pad", {"x": 0.25, "y": 200}), [("/synth/pad/x", "f", 0.25), ("/synth/pad/y", "f", 200.0)]),
    (("/synth/pad/step", (1, 0), "ii"), ("pad", {"x": 0.26, "y": 200}), [("/synth/pad/x", "f", 0.26), ("/synth/pad/y", "f", 200.0)]),
    (("/synth/pad", 0.5, "f"), "wrong_count", None),
    (("/synth/hit", None, ""), ("hit", {"presses": 1}), [("/synth/hit", "i", 1)]),
    (("/synth/hit", 1.0, "f"), ("hit", {"presses": 2}), [("/synth/hit", "i", 2)]),
    (("/synth/hit", 0, "i"), "release", None),
    (("/synth/hit/step", 1, "i"), ("hit", {"presses": 3}), [("/synth/hit", "i", 3)]),
    (("/synth/hit/step", 0, "i"), "bad_value", None),
    (("/synth/cutoff", 1000.0, "f"), ("cutoff", {"value": 1000}), [("/synth/cutoff", "f", 1000.0)]),
    (("/synth/cutoff", 1234.5678, "d"), ("cutoff", {"value": 1230}), [("/synth/cutoff", "f", 1230.0)]),  # 3 digits
]


SYNTH_DUMP = 5  # cutoff, filter, pad/x, pad/y, hit


def test_toggles_xy_pads_buttons_and_log_sliders_over_osc(osc, connect):
    bridge = osc()
    response = bridge.server.request("POST", "/api/rooms", json.dumps(SYNTH))
    assert response.status == 201, response
    bridge.receiver.wait_address("/synth/dump/end")
    ann = connect(bridge.server, name="Ann", room="synth")
    sender = bridge.sender()
    for (address, value, types), expected, out in SYNTH_STEPS:
        what = f"{address} {value!r}"
        start = bridge.receiver.mark()
        ann.mark()
        args = () if value is None else value if isinstance(value, tuple) else (value,)
        if isinstance(expected, str):
            before = bridge.metric(dropped(expected))
            sender.send(address, *args, types=types or None)
            bridge.wait_metric(dropped(expected), lambda v: v == before + 1)
            assert bridge.settle("synth", SYNTH_DUMP) == [], what
            continue
        sender.send(address, *args, types=types or None)
        control, state = expected
        frame = ann.expect(has_change(control, by="osc"), what=what)
        got = find_change(frame, control)["state"]
        assert got.keys() == state.keys() and all(got[k] == pytest.approx(v, abs=1e-9) for k, v in state.items()), (what, got)
        bridge.receiver.wait_address(out[-1][0], start=start)
        messages = bridge.settle("synth", SYNTH_DUMP)
        assert [(m.address, m.types) for m in messages] == [(a, t) for a, t, _ in out], (what, messages)
        assert all(same(m.arg, v) for m, (_, _, v) in zip(messages, out)), (what, messages)


def test_a_bundle_is_unpacked_and_applied_at_once(osc, connect):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    sender = bridge.sender()
    sender.send_bundle(build("/demo/gain", 0.1), build("/demo/size/index", 4))
    ann.expect(has_change("gain", by="osc", state=value_is(0.1)))
    ann.expect(has_change("size", by="osc", state=lambda s: s == {"index": 4, "value": 100}))
    assert bridge.metric("tandem_osc_received_total") == 2


def test_osc_undo_and_redo_revert_the_senders_own_edits(osc, connect):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    sender = bridge.sender()
    sender.send("/demo/gain", 0.25)
    ann.expect(has_change("gain", by="osc", state=value_is(0.25)))
    ann.set("size", 100)
    ann.expect(has_change("size", by=ann.id))
    ann.mark()
    sender.send("/demo/undo")
    ann.expect(has_change("gain", by="osc", state=value_is(0.5)))
    ann.mark()
    sender.send("/demo/redo")
    ann.expect(has_change("gain", by="osc", state=value_is(0.25)))
    assert bridge.state("size") == {"index": 4, "value": 100}, "Ann's own edit is not the osc member's to undo"


def test_osc_reset_puts_a_control_and_the_room_back_to_the_room_file(osc, connect):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    ann.set("gain", 0.25)
    ann.set("size", 100)
    ann.expect(has_change("size", by=ann.id))
    sender = bridge.sender()
    sender.send("/demo/gain/reset")
    ann.expect(has_change("gain", by="osc", state=value_is(0.5)))
    sender.send("/demo/reset")
    ann.expect(has_change("size", by="osc", state=lambda s: s == {"index": 2, "value": 60}))
    sender.send("/demo/undo")  # the room's reset, in one step
    ann.expect(has_change("size", by="osc", state=lambda s: s == {"index": 4, "value": 100}))


def test_undo_reverts_the_last_edit_under_the_senders_name_whichever_sender_made_it(osc, connect):
    bridge = osc()
    ben = connect(bridge.server, name="Ben")
    first, second = bridge.sender(), bridge.sender()
    first.send("/demo/name", "  An\x01n  ")  # cleaned like any display name
    first.send("/demo/gain", 0.25)
    frame = ben.expect(has_change("gain", state=value_is(0.25)))
    ann_id = find_change(frame, "gain")["by"]
    ben.expect(joined(ann_id, "Ann"), since=0)
    second.send("/demo/name", "Ann")
    second.send("/demo/undo")
    ben.expect(has_change("gain", by=ann_id, state=value_is(0.5)))


def test_rooms_with_tokens_need_none_over_osc(osc, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("s" * 40 + "\n")
    bridge = osc("--auth-secret-file", str(secret))
    bridge.sender().send("/demo/gain", 0.25)
    out = bridge.receiver.wait_address("/demo/gain")
    assert out.arg == 0.25


def test_the_osc_member_leaves_after_30_s_without_a_write(osc, connect):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    sender = bridge.sender()
    sender.send("/demo/gain", 0.25)
    ann.expect(joined("osc"))
    wrote = time.monotonic()
    ann.expect(lambda f: "osc" in (f.get("left") or []), timeout=45)
    idle = time.monotonic() - wrote
    assert 29 <= idle <= 40, f"left after {idle:.1f} s, not about 30 s"
    sender.send("/demo/gain", 0.75)  # the next write brings it back
    ann.expect(joined("osc"), since=ann.mark())


# --------------------------------------------------------------------------
# Holds and drops
# --------------------------------------------------------------------------


def test_an_osc_set_of_a_thumb_a_websocket_client_holds_is_dropped_busy(osc, connect):
    bridge = osc()
    bob = connect(bridge.server, name="Bob")
    bob.expect_ack(bob.drag("gain", "begin"))
    bob.expect_ack(bob.drag("gain", "move", dx=0.2))
    busy, rev = bridge.metric(dropped("busy")), bridge.room()["rev"]
    sender = bridge.sender()
    sender.send("/demo/gain", 0.25)
    bridge.wait_metric(dropped("busy"), lambda v: v == busy + 1)
    bridge.server.wait_for_log(drop_line(sender, "busy"))
    assert bridge.state("gain") == {"value": 0.5} and bridge.room()["rev"] == rev
    assert bridge.settle() == []
    bob.assert_alive()  # a barrier on Bob's connection: an update the drop made would have come before this ack
    assert not any(find_change(f, "gain") for f in bob.history), "nothing changed"
    # Released, the same set applies.
    bob.drag("gain", "end")
    bob.expect(has_change("gain", by=bob.id, state=value_is(0.7)))
    sender.send("/demo/gain", 0.25)
    bob.expect(has_change("gain", by="osc", state=value_is(0.25)))


GARBAGE = b"garbage!"  # no NUL anywhere: not an OSC string, let alone a message
TRUNCATED = build("/demo/gain", 0.5)[:-4]  # the type tag promises a float that is not there

DROPS = [
    ("malformed-garbage", lambda s: s.send_raw(GARBAGE), "malformed"),
    ("malformed-truncated", lambda s: s.send_raw(TRUNCATED), "malformed"),
    ("wrong-type-string", lambda s: s.send("/demo/gain", "loud"), "wrong_type"),
    ("wrong-type-blob", lambda s: s.send("/demo/gain", b"\x01\x02\x03", types="b"), "wrong_type"),
    ("wrong-type-midi", lambda s: s.send("/demo/gain", (0, 144, 60, 100), types="m"), "wrong_type"),
    ("unknown-address-pattern", lambda s: s.send("/demo/*", 0.5), "unknown_address"),
    ("unknown-room", lambda s: s.send("/nowhere/gain", 0.5), "unknown_room"),
    ("unknown-control", lambda s: s.send("/demo/volume", 0.5), "unknown_control"),
    ("dump-end-sent-back", lambda s: s.send("/demo/dump/end", 0), "unknown_control"),
    ("unknown-thumb", lambda s: s.send("/demo/color/alpha", 0.5), "unknown_thumb"),
    ("wrong-count", lambda s: s.send("/demo/gain"), "wrong_count"),
    ("bad-value-index", lambda s: s.send("/demo/size/index", 9), "bad_value"),
    ("bad-value-nan", lambda s: s.send("/demo/gain", float("nan")), "bad_value"),
    ("read-only", lambda s: s.send("/demo/bpm/step", 1), "read_only"),
    ("bad-value-name", lambda s: s.send("/demo/name", "   "), "bad_value"),
    ("wrong-type-name", lambda s: s.send("/demo/name", 5), "wrong_type"),
    ("unknown-room-dump", lambda s: s.send("/nowhere/dump"), "unknown_room"),
]


@pytest.mark.parametrize("send, reason", [(send, reason) for _, send, reason in DROPS], ids=[name for name, _, _ in DROPS])
def test_a_bad_message_is_dropped_counted_and_logged_and_the_server_keeps_serving(osc, connect, send, reason):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    before, rev = bridge.metric(dropped(reason)), bridge.room()["rev"]
    sender = bridge.sender()
    send(sender)
    bridge.wait_metric(dropped(reason), lambda v: v == before + 1)
    bridge.server.wait_for_log(drop_line(sender, reason))
    assert bridge.room()["rev"] == rev, "a drop is never half applied"
    assert bridge.settle() == []
    # Still serving: HTTP, a WebSocket member, and OSC from the same sender.
    assert healthz(bridge.server.port) == 200
    ann.assert_alive()
    sender.send("/demo/gain", 0.25)
    ann.expect(has_change("gain", by="osc", state=value_is(0.25)))
    assert bridge.server.running()


@pytest.mark.parametrize("value, types, expected", [(True, "T", 1.0), (False, "F", 0.0)], ids=["true", "false"])
def test_true_and_false_are_one_and_zero(osc, connect, value, types, expected):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    sender = bridge.sender()
    sender.send("/demo/gain", value, types=types)
    ann.expect(has_change("gain", by="osc", state=value_is(expected)))


def test_nil_is_no_argument(osc):
    bridge = osc()
    sender = bridge.sender()
    sender.send("/demo/gain", None, types="N")
    bridge.server.wait_for_log(rf"osc: dropped from {re.escape(sender.source_address)}: wrong_count: ")
    assert bridge.metric(dropped("wrong_count")) == 1


def dump_answered(bridge: OSCServer, asker: OSCSender) -> int:
    """Asks for /demo/dump until one is answered; how many were asked. A barrier behind a
    flood: the server reads its socket in order, so once a dump asked for after the flood
    comes back, every datagram of the flood that reached the server has been handled. A
    request the kernel dropped (the buffer still full) is asked again after a while; one
    that was only slow is answered twice, which costs nothing."""
    asked = 0
    while True:
        start = bridge.receiver.count()
        asker.send("/demo/dump")
        asked += 1
        try:
            bridge.receiver.wait_address("/demo/dump/end", start=start, timeout=2)
            return asked
        except AssertionError:
            assert asked < 30, "no dump asked for after the flood was answered"


def test_datagrams_the_kernel_dropped_are_counted_as_overflow(osc):
    bridge = osc()
    sender = bridge.sender()
    dumps = bridge.metric(sent("dump"))
    # Back to back, unpaced: past the socket's receive buffer, the kernel drops some (how many depends on the machine).
    flood = 20000
    for i in range(flood):
        sender.send("/demo/nope", i)
    # The kernel tells its count with the next datagram it queues: the dump requests after the flood.
    asked = dump_answered(bridge, bridge.sender())
    total = lambda: bridge.metric("tandem_osc_received_total") + bridge.metric(dropped("overflow"))
    bridge.wait_metric("tandem_osc_received_total", lambda _: total() == flood + asked)
    answered = (bridge.metric(sent("dump")) - dumps) / (len(DEMO_DUMP) + 1)
    assert 1 <= answered <= asked
    assert bridge.metric(dropped("unknown_control")) + answered == bridge.metric("tandem_osc_received_total")
    if bridge.metric(dropped("overflow")) > 0:
        bridge.server.wait_for_log(r"warn osc: dropped \d+ datagram\(s\) before this server read them: overflow: ")


def test_a_flood_is_rate_limited_its_log_lines_too_and_the_server_keeps_serving(osc, connect):
    bridge = osc()
    ann = connect(bridge.server, name="Ann")
    sender = bridge.sender()
    dumps = bridge.metric(sent("dump"))
    started = time.monotonic()
    # The scenario: 3000 sets in about half a second, ten times the limit, in runs of 50
    # that the server's receive buffer holds on a quiet machine (on a busy one the kernel
    # may drop some: those count as overflow, not as received).
    for i in range(3000):
        sender.send("/demo/gain", (i % 100) / 100)
        if i % 50 == 49:
            time.sleep(0.005)
    bridge.server.wait_for_log(r"osc: dropped from .*: rate_limited: ")
    first_line_seen = time.monotonic()  # the log throttle's window began at or before this
    # Settled: every datagram of the flood that reached the server has been handled.
    asked = dump_answered(bridge, bridge.sender())
    elapsed = time.monotonic() - started
    answered = (bridge.metric(sent("dump")) - dumps) / (len(DEMO_DUMP) + 1)
    received = bridge.metric("tandem_osc_received_total") - answered
    applied = bridge.metric("tandem_osc_applied_total")
    limited = bridge.metric(dropped("rate_limited"))
    assert 1 <= answered <= asked
    assert applied + limited == received, (applied, limited, received)
    assert applied <= 600 + 300 * elapsed + 10, f"{applied} applied in {elapsed:.2f} s: past 300/s with a burst of 600"
    assert applied >= min(600, received), f"only {applied} applied: the burst of 600 was not let through"
    assert limited > 0
    # Still serving.
    assert healthz(bridge.server.port) == 200
    ann.assert_alive()
    seq = ann.set("size", 20)
    ann.expect_ack(seq)
    ann.expect(has_change("size", by=ann.id))
    # A handful of log lines a second, not thousands: the rest counted as suppressed
    # (the server's log throttle, as for every other repeated line).
    lines = bridge.server.log_lines(r"osc: dropped from .*: rate_limited: ")
    assert 1 <= len(lines) <= 10 * (time.monotonic() - started + 1) + 5, f"{len(lines)} drop lines for {limited} drops"
    assert bridge.metric("tandem_log_lines_suppressed_total") >= limited - len(lines) - 10
    # Once the bucket refills (the scenario: 300 a second), the sender is heard again.
    time.sleep(2.5)
    sender.send("/demo/gain", 0.33)
    ann.expect(has_change("gain", by="osc", state=value_is(0.33)))
    # The next logged drop of the kind, once the log throttle's window is over (5 lines a kind
    # per 10 s from the first), says how many were left out before it.
    time.sleep(max(0.0, first_line_seen + 10.5 - time.monotonic()))
    for i in range(1500):
        sender.send("/demo/gain", (i % 100) / 100)
        if i % 50 == 49:
            time.sleep(0.005)
    line = bridge.server.wait_for_log(r"osc: dropped from .*: rate_limited: .*\((\d+) more like it left out\)")
    assert int(re.search(r"\((\d+) more like it left out\)", line).group(1)) > 100, line


def local_address() -> str | None:
    """This machine's first non-loopback IPv4 address (SIOCGIFADDR on each interface), or None."""
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                packed = fcntl.ioctl(probe.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))  # SIOCGIFADDR
            except OSError:
                continue  # no IPv4 address
        address = socket.inet_ntoa(packed[20:24])
        if not address.startswith("127.") and address != "0.0.0.0":
            return address
    return None


@pytest.mark.parametrize("allow, allowed", [("198.51.100.0/24", False), ("HOST/32", True)], ids=["outside", "inside"])
def test_osc_allow_decides_for_senders_outside_loopback(start_server, connect, allow, allowed):
    address = local_address()
    if address is None:
        pytest.skip("no non-loopback IPv4 address to send from")
    if allow == "HOST/32":
        allow = f"{address}/32"
    elif address.startswith("198.51.100."):
        allow = "203.0.113.0/24"
    server = start_server("--osc-listen", "udp://0.0.0.0:0", "--osc-allow", allow)
    port = int(LISTEN_LINE.search(server.wait_for_log(LISTEN_LINE.search)).group(2))
    bridge = OSCServer(server, [], port)
    ann = connect(server, name="Ann")
    outside = bridge.sender(source=address, host=address)
    try:
        not_allowed = bridge.metric(dropped("not_allowed"))
        outside.send("/demo/gain", 0.25)
        if allowed:
            ann.expect(has_change("gain", by="osc", state=value_is(0.25)))
        else:
            bridge.wait_metric(dropped("not_allowed"), lambda v: v == not_allowed + 1)
            server.wait_for_log(drop_line(outside, "not_allowed"))
            assert bridge.state("gain") == {"value": 0.5}
        # Loopback is always allowed.
        inside = bridge.sender()
        inside.send("/demo/gain", 0.75)
        ann.expect(has_change("gain", by="osc", state=value_is(0.75)))
    finally:
        for sender in bridge.senders:
            sender.close()


# --------------------------------------------------------------------------
# Targets and flags
# --------------------------------------------------------------------------


def test_a_target_host_name_is_resolved_once_at_start(start_server, connect):
    receiver = OSCReceiver()
    try:
        server = start_server("--osc-send", f"udp://localhost:{receiver.port}")
        server.wait_for_log(rf"osc sending to udp://localhost:{receiver.port} \(127\.0\.0\.1\) \(commits\)")
        dump_of(receiver, start=0)
        assert_a_commit_reaches(receiver, connect(server, name="Ann"))
    finally:
        receiver.close()


def assert_a_commit_reaches(receiver, member):
    """After the start dump: `member`'s set of gain reaches `receiver`."""
    receiver.mark()
    member.set("gain", 0.25)
    assert receiver.wait_address("/demo/gain").arg == 0.25


def test_every_osc_send_target_gets_every_commit(start_server, connect):
    first, second = OSCReceiver(), OSCReceiver()
    try:
        # Both spellings of the flag and of the scheme.
        server = start_server("--osc-send", first.url, f"--osc-send=osc.udp://127.0.0.1:{second.port}",
                              "--osc-listen", "udp://127.0.0.1:0")
        for receiver in (first, second):
            dump_of(receiver, start=0)
            receiver.mark()
        server.wait_for_log(rf"osc sending to udp://127\.0\.0\.1:{first.port}")
        server.wait_for_log(rf"osc sending to udp://127\.0\.0\.1:{second.port}")
        commits = server.metrics().get(sent("commit"), 0)
        ann = connect(server, name="Ann")
        ann.set("gain", 0.25)
        ann.expect(has_change("gain", state=value_is(0.25)))
        for receiver in (first, second):
            out = receiver.wait_address("/demo/gain")
            assert out.types == "f" and out.arg == 0.25
        assert server.metrics()[sent("commit")] == commits + 2, "one message per target"
        # A dump asked for goes to every target too.
        port = int(LISTEN_LINE.search(server.wait_for_log(LISTEN_LINE.search)).group(2))
        asker = OSCSender(port)
        try:
            asker.send("/demo/dump")
            states = [(a, t, 0.25 if a == "/demo/gain" else v) for a, t, v in DEMO_DUMP]
            for receiver in (first, second):
                # Since the mark before the set: its one commit, then the dump (the barrier).
                got = dump_of(receiver)
                assert [(m.address, m.arg) for m in got[:1]] == [("/demo/gain", 0.25)], got
                assert_demo_dump(got[1:], revision=1, states=states)
        finally:
            asker.close()
    finally:
        first.close()
        second.close()


def test_an_ipv6_target_gets_the_dump_and_the_commits(start_server, connect):
    try:
        receiver = OSCReceiver("::1")
    except OSError:
        pytest.skip("no IPv6 loopback")
    try:
        server = start_server("--osc-send", receiver.url)
        server.wait_for_log(rf"osc sending to udp://\[::1\]:{receiver.port}")
        try:
            dump = dump_of(receiver, start=0)
        except AssertionError:
            errors = server.metrics().get("tandem_osc_send_errors_total")
            raise AssertionError(f"no dump reached [::1]:{receiver.port}; tandem_osc_send_errors_total = {errors}") from None
        assert_demo_dump(dump, revision=0)
        assert_a_commit_reaches(receiver, connect(server, name="Ann"))
    finally:
        receiver.close()


def test_listening_on_ipv6_loopback_takes_writes(start_server, connect):
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback")
    server = start_server("--osc-listen", "udp://[::1]:0")
    line = server.wait_for_log(LISTEN_LINE.search)
    assert "udp://[::1]:" in line, line
    port = int(LISTEN_LINE.search(line).group(2))
    ann = connect(server, name="Ann")
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as sender:
        sender.sendto(build("/demo/gain", 0.25), ("::1", port))
        ann.expect(has_change("gain", by="osc", state=value_is(0.25)))


def run(binary, *args):
    try:
        return subprocess.run([str(binary), "--port", "0", "--data", ":memory:", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"tandem {' '.join(args)} did not exit (it started instead of refusing)") from None


@pytest.mark.parametrize("args, flag", [
    (["--osc-send", "http://127.0.0.1:9000"], "--osc-send"),
    (["--osc-send", "udp://127.0.0.1"], "--osc-send"),
    (["--osc-send", "udp://127.0.0.1:99999"], "--osc-send"),
    (["--osc-send", "udp://:9000"], "--osc-send"),
    (["--osc-listen", "tcp://127.0.0.1:9000"], "--osc-listen"),
    (["--osc-listen", "udp://localhost:9000"], "--osc-listen"),  # an IP literal
    (["--osc-listen", "udp://127.0.0.1:70000"], "--osc-listen"),
    (["--osc-listen", "udp://127.0.0.1:0", "--osc-allow", "10.0.0.0/33"], "--osc-allow"),
    (["--osc-listen", "udp://127.0.0.1:0", "--osc-allow", "banana"], "--osc-allow"),
    (["--osc-listen", "udp://127.0.0.1:0", "--osc-allow", "300.1.2.3/8"], "--osc-allow"),
], ids=["send-scheme", "send-no-port", "send-port-range", "send-no-host", "listen-scheme", "listen-name",
        "listen-port-range", "allow-prefix", "allow-word", "allow-octet"])
def test_a_bad_osc_flag_value_exits_2_naming_the_flag(tandem_binary, args, flag):
    result = run(tandem_binary, *args)
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    first = result.stderr.splitlines()[0] if result.stderr else ""
    assert flag in first and "unknown flag" not in first, result.stderr[:500]


def test_listening_beyond_loopback_without_osc_allow_exits_2_naming_the_flag(tandem_binary):
    result = run(tandem_binary, "--osc-listen", "udp://0.0.0.0:0")
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    first = result.stderr.splitlines()[0] if result.stderr else ""
    assert "--osc-allow" in first and "unknown flag" not in first, result.stderr[:500]
    assert "authentication" in result.stderr


def test_a_target_whose_host_name_does_not_resolve_stops_the_start(tandem_binary):
    result = run(tandem_binary, "--osc-send", "udp://no-such-host.invalid:9000")
    assert result.returncode == 1, (result.returncode, result.stderr[-500:])
    assert "--osc-send udp://no-such-host.invalid:9000: the host name does not resolve" in result.stderr


def test_listening_beyond_loopback_with_osc_allow_starts(start_server):
    server = start_server("--osc-listen=udp://0.0.0.0:0", "--osc-allow=10.0.0.0/8")
    line = server.wait_for_log(LISTEN_LINE.search)
    assert line.startswith("info ") and int(LISTEN_LINE.search(line).group(2)) > 0


def test_help_names_the_osc_flags(tandem_binary):
    result = subprocess.run([str(tandem_binary), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=10)
    assert result.returncode == 0
    for flag in ("--osc-send", "--osc-listen", "--osc-previews", "--osc-allow"):
        assert flag in result.stdout, flag


# --------------------------------------------------------------------------
# Limits: dumps and new names (docs/osc.md, "Limits"; findings 6 and 7 of the
# second hostile probe, docs/security.md "The second probe, replayed")
# --------------------------------------------------------------------------

DUMP_BURST = 10  # dumps answered at once per sender address (docs/osc.md, "Limits")
NAME_BURST = 16  # new names taken at once per sender address
MAX_WRITERS = 64  # OSC writers present in one room at most


def test_a_bundle_of_2000_dumps_gets_the_dump_budget_answered_and_the_rest_counted(osc):
    bridge = osc()
    sender = bridge.sender()
    received = bridge.metric("tandem_osc_received_total")
    bridge.receiver.mark()
    sender.send_bundle(*[build("/demo/dump")] * 2000)  # 40 KB: the probe's datagram
    bridge.wait_metric("tandem_osc_received_total", lambda v: v >= received + 2000)
    limited = bridge.metric(dropped("dump_limited"))
    before_barrier = bridge.limited_barrier(bridge.sender())[0]
    answers = [m for m in before_barrier if m.address == "/demo/dump/end"]
    assert 1 <= len(answers) <= DUMP_BURST, f"{len(answers)} dumps answered out of 2000"
    assert limited == 2000 - len(answers)
    assert len(bridge.server.log_lines(r"dump_limited")) <= 10  # the drop's line is throttled (5 per 10 s)
    assert healthz(bridge.server.port) == 200


def test_new_names_from_one_address_are_rate_limited_and_a_rooms_osc_writers_capped(osc):
    bridge = osc()
    received = bridge.metric("tandem_osc_received_total")
    # One address: 10,000 new names, each followed by a write under it.
    one = bridge.sender()
    pairs = [[build("/demo/name", f"n{k}"), build("/demo/gain", (k % 100) / 100)] for k in range(10_000)]
    for chunk in range(0, len(pairs), 1000):
        one.send_bundle(*[m for pair in pairs[chunk:chunk + 1000] for m in pair])
    bridge.wait_metric("tandem_osc_received_total", lambda v: v >= received + 20_000)
    limited = bridge.metric(dropped("name_limited"))
    assert limited >= 10_000 - NAME_BURST - 10, limited  # a few more may refill while it is read
    members = bridge.metric("tandem_room_members")
    assert members <= NAME_BURST + 10, members
    # Five more addresses (127.0.0.2-6), each within its own name budget: past the room's cap.
    received = bridge.metric("tandem_osc_received_total")
    for a in range(2, 7):
        other = bridge.sender(source=f"127.0.0.{a}")
        other.send_bundle(*[m for k in range(NAME_BURST) for m in (build("/demo/name", f"a{a}.{k}"), build("/demo/gain", 0.25))])
    bridge.wait_metric("tandem_osc_received_total", lambda v: v >= received + 5 * 2 * NAME_BURST)
    assert bridge.metric("tandem_room_members") <= MAX_WRITERS
    assert bridge.metric(dropped("too_many_writers")) >= 1
    # Every one of those lines is throttled: a few a kind, not one per writer or drop.
    assert len(bridge.server.log_lines(r"writes in room demo as")) <= 15
    assert len(bridge.server.log_lines(r"name_limited|too_many_writers")) <= 30
    assert healthz(bridge.server.port) == 200
