"""The robustness workload (workload.py) against real servers, without faults:
one node with a storage file, and two cluster nodes on a Redis of their own.
Its history must be well-formed (every invoke has exactly one end, after it),
and plausible: acknowledged ops carry their connection's client id, every
acknowledged `set` is one log entry, a revision an op reports is the log's,
readers saw frames and the final revision, and the final log was read.

    .venv/bin/python -m pytest -q pytests/robustness/test_workload.py

Each run waits for enough acknowledged ops (an event, with a deadline), not
for a time. The binary is .build/debug/tandem (built with
`flock /tmp/tandem-build.lock swift build --product tandem` when missing),
copied aside so that a rebuild mid-run changes nothing.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "pytests" / "integration"))

from cluster import RedisServer  # noqa: E402
from helpers import TandemServer, copy_binary  # noqa: E402

from pytests.robustness import rooms as room_files  # noqa: E402
from pytests.robustness.workload import Workload, WorkloadConfig, states_equal  # noqa: E402

BINARY = Path(os.environ.get("TANDEM_BINARY", ROOT / ".build" / "debug" / "tandem"))
RUN_DEADLINE = 40.0  # a bound only a hang reaches


@pytest.fixture(scope="module")
def binary(tmp_path_factory) -> Path:
    if not (BINARY.is_file() and os.access(BINARY, os.X_OK)):
        with open(tmp_path_factory.mktemp("build") / "build.log", "w") as log:
            subprocess.run(["flock", "/tmp/tandem-build.lock", "swift", "build", "--product", "tandem"],
                           cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, timeout=1800)
    copy = copy_binary(BINARY, tmp_path_factory.mktemp("bin"), "tandem")
    if copy is None:
        pytest.fail(f"cannot copy {BINARY}")
    return copy


@pytest.fixture
def stack():
    """Processes a test starts, stopped at teardown (SIGCONT first: a paused one stops too)."""
    started: list[Any] = []
    yield started
    for proc in reversed(started):
        if isinstance(proc, TandemServer):
            if proc.running():
                proc.send_signal(signal.SIGCONT)
            proc.stop(signal.SIGTERM, timeout=10)
        else:
            proc.stop()


def counts(ops: list[dict[str, Any]]) -> collections.Counter:
    return collections.Counter((op["f"], op["type"]) for op in ops)


async def run_until_enough(w: Workload, ok_ops: int, kinds: int = 20) -> float:
    """Runs `w` until `ok_ops` ops were acknowledged, at least `kinds` of each
    of ws sets, HTTP sets, steps and drags; the time it took."""
    start = time.monotonic()
    task = asyncio.create_task(w.run())

    def enough() -> bool:
        oks = [op for op in w.rec.ops if op["type"] == "ok"]
        by = collections.Counter((op["f"], op["process"][0]) for op in oks)
        return (len(oks) >= ok_ops and by[("set", "w")] >= kinds and by[("set", "h")] >= kinds
                and by[("step", "w")] >= kinds and by[("drag", "w")] >= kinds)

    while not enough():
        assert not task.done(), f"run() ended early: {task}"
        assert time.monotonic() - start < RUN_DEADLINE, f"not enough acknowledged ops within {RUN_DEADLINE} s: {counts(w.rec.ops)}"
        await asyncio.sleep(0.1)
    return time.monotonic() - start


def check_history(hist: dict[str, Any], *, cluster: bool, min_ok: int, strict: bool = True,
                  converged: set[str] | None = None) -> None:
    ops = hist["ops"]
    assert hist["anomalies"] == [], hist["anomalies"][:10]

    # Well-formed: every op invoked once and ended once, after its invoke, by one process.
    invokes: dict[str, dict] = {}
    ends: dict[str, dict] = {}
    for op in ops:
        assert op["type"] in ("invoke", "ok", "fail", "info"), op
        assert op["f"] in ("set", "step", "drag"), op
        if op["type"] == "invoke":
            assert op["id"] not in invokes, f"invoked twice: {op}"
            invokes[op["id"]] = op
        else:
            assert op["id"] in invokes, f"ended before (or without) its invoke: {op}"
            assert op["id"] not in ends, f"ended twice: {op} and {ends[op['id']]}"
            assert op["t"] >= invokes[op["id"]]["t"]
            assert op["process"] == invokes[op["id"]]["process"]
            ends[op["id"]] = op
            if op["type"] in ("fail", "info"):
                assert op.get("code"), op
    assert invokes.keys() == ends.keys(), f"never ended: {sorted(invokes.keys() - ends.keys())[:10]}"
    times = [op["t"] for op in ops]
    assert times == sorted(times), "ops are recorded in the order they happened"

    # Acknowledged ops carry their client id (`api` over HTTP; the node's prefix in a cluster).
    oks = [op for op in ops if op["type"] == "ok"]
    assert len(oks) >= min_ok, counts(ops)
    for op in oks:
        if op["process"].startswith("h"):
            assert op["client"] == "api" and "seq" not in op, op
        else:
            assert isinstance(op["client"], str) and op["client"] and op["client"] != "None", op
            assert isinstance(op["seq"], int) and op["seq"] > 0, op
            if cluster:
                assert op["client"].startswith(op["node"] + "."), op
    # Set values are exact states of the set controls' grids; steps and drags only touch gesture controls.
    for op in invokes.values():
        if op["f"] == "set":
            assert op["control"] in room_files.SET_CONTROLS, op
        else:
            assert op["control"] in room_files.GESTURE_CONTROLS, op
    # With no faults nothing is unknown (a busy thumb is a fail); a cluster may still refuse a
    # message it could not relay (`unavailable`), but an unknown outcome stays rare.
    unknown = [op for op in ops if op["type"] == "info"]
    if strict:
        assert not unknown, unknown[:5]
    assert len(unknown) <= len(oks) // 20, unknown[:5]

    # The final log: whole, in revision order, ending at the room's revision.
    final = hist["final"]
    assert final.keys() == hist["rooms"].keys()
    for room, stored in final.items():
        revs = [e["rev"] for e in stored["log"]]
        assert revs == sorted(revs) and len(set(revs)) == len(revs), f"{room}: revisions repeat or go back"
        assert revs and revs[-1] == stored["revision"], (room, revs[-5:], stored["revision"])
        for entry in stored["log"]:
            assert isinstance(entry["state"], dict) and entry["client"], entry
            if cluster:
                assert entry.get("epoch") is None or isinstance(entry["epoch"], int), entry
        # Every acknowledged set is exactly one log entry of its control, by its client, with its
        # state; the set controls' other entries are sets of unknown outcome (none without them).
        def key(op: dict) -> tuple:
            return op["control"], op["client"], _key(op["value"])
        acked = collections.Counter(key(op) for op in oks if op["room"] == room and op["f"] == "set")
        maybe = collections.Counter(key(op) for op in unknown if op["room"] == room and op["f"] == "set")
        logged = collections.Counter((e["control"], e["client"], _key(e["state"]))
                                     for e in stored["log"] if e["control"] in room_files.SET_CONTROLS)
        assert not acked - logged, (room, "acknowledged, not logged", (acked - logged).most_common(3))
        assert not logged - acked - maybe, (room, "logged, never asked", (logged - acked - maybe).most_common(3))
        # A revision an op reports is its commit in the log.
        by_rev = {(e["rev"], e["control"]): e for e in stored["log"]}
        for op in oks:
            if op["room"] == room and "rev" in op:
                entry = by_rev.get((op["rev"], op["control"]))
                assert entry is not None and entry["client"] == op["client"], (op, entry)
                assert states_equal(entry["state"], op["state"]), (op, entry)
                if op["f"] == "set":
                    assert states_equal(op["state"], op["value"]), op
        # Final states are the last log entry of each control.
        last = {}
        for entry in stored["log"]:
            last[entry["control"]] = entry["state"]
        for control, state in last.items():
            assert states_equal(stored["states"][control], state), (room, control)
    with_rev = sum(1 for op in oks if "rev" in op)
    assert with_rev >= len(oks) // 4, f"only {with_rev} of {len(oks)} acknowledged ops know their revision"

    # Readers: frames from every reader, each connection opening with a welcome; the final revision seen.
    frames = hist["frames"]
    readers = {r["process"] for r in hist["reads_after_heal"]}
    assert readers and {f["process"] for f in frames} == readers
    first_of_conn: dict[tuple[str, int], str] = {}
    for frame in frames:
        first_of_conn.setdefault((frame["process"], frame["conn"]), frame["kind"])
        assert frame["room"] in final and isinstance(frame["rev"], int), frame
    assert set(first_of_conn.values()) == {"welcome"}, first_of_conn
    last_t: dict[str, float] = {}
    for frame in frames:  # a reader's frames in the order it got them, timed when they arrived
        assert frame["t"] >= last_t.get(frame["process"], 0.0), frame
        last_t[frame["process"]] = frame["t"]
    for read in hist["reads_after_heal"]:
        if converged is None or read["process"] in converged:
            assert read["converged_at"] is not None and read["last_rev"] == final[read["room"]]["revision"], read


def _key(state: dict[str, Any]) -> tuple:
    return tuple(sorted((k, round(v, 9) if isinstance(v, float) else v) for k, v in state.items()))


def test_single_node(binary, stack, tmp_path):
    server = TandemServer(binary, ["--data", str(tmp_path / "tandem.db")])
    stack.append(server)

    async def scenario() -> dict[str, Any]:
        w = Workload(WorkloadConfig(seed=11, nodes={"n1": server.http}, rooms=3, settle_s=15))
        await w.setup()
        await run_until_enough(w, ok_ops=2000)
        began = time.monotonic()
        await w.stop()
        assert time.monotonic() - began < 10
        final = await w.read_final_http("n1")
        return await w.history(final=final)

    hist = asyncio.run(asyncio.wait_for(scenario(), 55))
    assert hist["mode"] == "single" and list(hist["rooms"]) == ["rb1", "rb2", "rb3"]
    check_history(hist, cluster=False, min_ok=2000)


def test_cluster_two_nodes(binary, stack, tmp_path):
    redis = RedisServer(tmp_path)
    stack.append(redis)
    nodes = {}
    for name in ("n1", "n2"):
        node = TandemServer(binary, ["--redis", redis.url, "--node-id", name])
        stack.append(node)
        nodes[name] = node

    async def scenario() -> dict[str, Any]:
        w = Workload(WorkloadConfig(seed=12, nodes={n: s.http for n, s in nodes.items()}, rooms=3, settle_s=15))
        await w.setup()
        await run_until_enough(w, ok_ops=2000)
        await w.stop()
        final = await w.read_final_redis("127.0.0.1", redis.port)
        # One node's HTTP history reads the same log.
        over_http = await w.read_final_http("n2")
        for room, stored in final.items():
            assert [(e["rev"], e["control"], e["client"]) for e in stored["log"]] == \
                   [(e["rev"], e["control"], e["client"]) for e in over_http[room]["log"]]
            assert over_http[room]["revision"] == stored["revision"]
        return await w.history(final=final)

    hist = asyncio.run(asyncio.wait_for(scenario(), 55))
    assert hist["mode"] == "cluster"
    check_history(hist, cluster=True, min_ok=2000, strict=False)
    assert {op["node"] for op in hist["ops"]} == {"n1", "n2"}
    assert {f["node"] for f in hist["frames"]} == {"n1", "n2"}


def test_stop_returns_with_a_node_paused(binary, stack, tmp_path):
    """stop() is bounded even when a node answers nothing: its writers' open ops end `info`."""
    server = TandemServer(binary, ["--data", str(tmp_path / "tandem.db")])
    stack.append(server)
    grace, settle = 1.0, 2.0

    async def scenario() -> dict[str, Any]:
        w = Workload(WorkloadConfig(seed=13, nodes={"n1": server.http}, rooms=1, ws_writers_per_room=2,
                                    readers_per_room=1, stop_grace_s=grace, settle_s=settle))
        await w.setup()
        await run_until_enough(w, ok_ops=50, kinds=3)
        server.send_signal(signal.SIGSTOP)
        try:
            # Ops now go unanswered: wait until some are open, then stop.
            deadline = time.monotonic() + 10
            while not any(wr.pending for wr in w.writers) or w.http_writers[0].current is None:
                assert time.monotonic() < deadline, "no op left open with the node paused"
                await asyncio.sleep(0.02)
            began = time.monotonic()
            await w.stop()
            took = time.monotonic() - began
            assert took < grace + 1.5 + settle + 2.5, f"stop() took {took:.1f} s"
        finally:
            server.send_signal(signal.SIGCONT)
        return await w.history()

    hist = asyncio.run(asyncio.wait_for(scenario(), 55))
    ends = {op["id"]: op for op in hist["ops"] if op["type"] != "invoke"}
    invoked = {op["id"] for op in hist["ops"] if op["type"] == "invoke"}
    assert invoked == ends.keys()
    unknown = [op for op in ends.values() if op["type"] == "info"]
    assert unknown and {op["code"] for op in unknown} <= {"timeout", "closed"}, unknown
    assert any(op["process"].startswith("h") for op in unknown), "the open PUT ended unknown"
    assert hist["anomalies"] == []


# --------------------------------------------------------------------------
# The outcome rules against a scripted server (no Tandem): rejects before
# their ack, cumulative acks, `unknown`, a close with ops unanswered
# --------------------------------------------------------------------------


def state_of(grids: dict[str, room_files.Grid], control: str, wire: Any) -> dict[str, Any]:
    """The state a set of `wire` stores (what the server would answer)."""
    grid = grids[control]
    index = int(wire[1:], 16) if control == "tint" else next(k for k in range(grid.size) if grid.wire(k) == wire)
    return grid.state(index)


class ScriptedServer:
    """A stand-in for a node: welcomes, then per message: seq % 7 == 0 is
    refused `busy`; seq % 11 == 0 is answered `unknown` and commits all the
    same (as a message relayed once a partition heals does, after its
    `unknown`); seq % 5 == 0 is acked but changes nothing (a step past a
    limit); any other set, step or drag end commits (a new revision); every
    third message an update acks the last one, with the latest own change of
    each control committed since the previous update (conflated, as the
    server does); after 40 messages the connection is dropped with whatever
    came since the last ack unanswered."""

    def __init__(self):
        self.fates: dict[tuple[str, int], str] = {}  # (client, seq) -> busy, unknown, acked, unanswered
        self.revs: dict[tuple[str, int], int] = {}  # the revision a message committed
        self.messages: dict[tuple[str, int], dict] = {}
        self.connections = 0
        self.rev = 0

    async def handler(self, ws) -> None:
        self.connections += 1
        client = f"n9.test.c{self.connections}"
        await ws.send(json.dumps({"type": "welcome", "client": client, "rev": self.rev, "controls": []}))
        grids = room_files.grids(room_files.schema(1))
        since_update: list[int] = []
        changes: dict[str, dict] = {}
        count = 0
        async for text in ws:
            message = json.loads(text)
            seq = message["seq"]
            key = (client, seq)
            self.messages[key] = message
            since_update.append(seq)
            count += 1
            commits = message["type"] in ("set", "step") or message.get("phase") == "end"
            if seq % 7 == 0 or seq % 11 == 0:
                code = "busy" if seq % 7 == 0 else "unknown"
                self.fates[key] = code
                await ws.send(json.dumps({"type": "reject", "seq": seq, "code": code, "message": "scripted"}))
                commits = commits and code == "unknown"
            elif seq % 5 == 0:
                commits = False
            if commits:
                self.rev += 1
                self.revs[key] = self.rev
                control = message["control"]
                if message["type"] == "set":
                    state = state_of(grids, control, message["value"])
                else:
                    state = {"value": self.rev}
                changes[control] = {"control": control, "state": state, "rev": self.rev, "by": client}
            if count == 40:
                for s in since_update:
                    self.fates.setdefault((client, s), "unanswered")
                ws.transport.abort()
                return
            if count % 3 == 0:
                for s in since_update:
                    self.fates.setdefault((client, s), "acked")
                since_update.clear()
                await ws.send(json.dumps({"type": "update", "rev": self.rev, "ack": seq,
                                          "changes": list(changes.values())}))
                changes.clear()


def test_outcomes_against_a_scripted_server():
    from websockets.asyncio.server import serve

    fake = ScriptedServer()

    async def scenario() -> dict[str, Any]:
        async with serve(fake.handler, "127.0.0.1", 0, compression=None) as server:
            port = server.sockets[0].getsockname()[1]
            w = Workload(WorkloadConfig(seed=21, nodes={"n9": f"http://127.0.0.1:{port}"}, rooms=1,
                                        ws_writers_per_room=2, http_writers_per_room=0, readers_per_room=1,
                                        rate_hz=100, stop_grace_s=1, settle_s=0.5))
            w.room_schemas = {"rb1": room_files.schema(1)}  # no HTTP API here: the room as its file says
            w._make_clients()
            task = asyncio.create_task(w.run())
            deadline = time.monotonic() + RUN_DEADLINE
            while fake.connections < 7:  # a reader's and three of each writer's
                assert time.monotonic() < deadline and not task.done(), fake.connections
                await asyncio.sleep(0.05)
            await w.stop()
            await task
            return await w.history(final={})

    hist = asyncio.run(asyncio.wait_for(scenario(), 55))
    assert hist["anomalies"] == []
    ends = [op for op in hist["ops"] if op["type"] != "invoke"]
    assert len(ends) == len([op for op in hist["ops"] if op["type"] == "invoke"])
    seen = collections.Counter()
    for op in ends:
        seqs = op.get("seqs") or [op["seq"]]
        client = op["client"]
        fates = [fake.fates.get((client, s)) for s in seqs]
        if op["f"] == "drag":
            begin, last = fates[0], fates[-1]
            received = (client, seqs[-1]) in fake.messages
            ended = fake.messages.get((client, seqs[-1]), {}).get("phase") == "end"
            if begin == "busy":
                expected = ("fail", "busy")
            elif not received and (op["type"], op.get("code")) in (("fail", "closed_before_end"), ("info", "closed")):
                expected = (op["type"], op.get("code"))  # lost in the drop: an end or not, the server never knew
            elif not ended:
                expected = ("fail", "closed_before_end")
            else:
                expected = {"busy": ("fail", "busy"), "unknown": ("info", "unknown"), "acked": ("ok", None),
                            "unanswered": ("info", "closed"), None: ("info", "closed")}[last]
        else:
            expected = {"busy": ("fail", "busy"), "unknown": ("info", "unknown"), "acked": ("ok", None),
                        "unanswered": ("info", "closed"), None: ("info", "closed")}[fates[0]]
        if op.get("code") == "timeout":
            continue  # in flight when stop() gave up: unknown, whatever the script
        assert (op["type"], op.get("code")) == expected, (op, fates)
        seen[expected] += 1
        if "rev" in op:
            # A revision the workload attributes to an op is the one the server gave that op:
            # never one to an op that committed nothing, nor an `unknown` one's that committed.
            assert fake.revs.get((client, seqs[-1])) == op["rev"], (op, fake.revs.get((client, seqs[-1])))
            seen["rev"] += 1
        elif op["type"] == "ok" and (client, seqs[-1]) not in fake.revs:
            seen["acked, changed nothing"] += 1
    for outcome in [("ok", None), ("fail", "busy"), ("info", "unknown"), ("info", "closed")]:
        assert seen[outcome] > 0, seen
    assert seen["rev"] > 0 and seen["acked, changed nothing"] > 0, seen


def test_http_outcomes_against_a_scripted_server():
    """PUT answers: 200 ok (with the revision when the state is the one sent), 409 fail, 503 "nothing
    changed" fail, 503 "may or may not" info, code `unknown` info whatever the status, a hang-up info
    `closed`, no answer info `timeout`; a port nobody listens on fails `connect_failed`."""
    grids = room_files.grids(room_files.schema(1))
    script = [
        (200, None), (409, {"code": "busy", "message": "held", "holder": "c1"}),
        (503, {"code": "unavailable", "message": "the room's owner could not be reached; nothing changed, try again"}),
        (503, {"code": "unavailable", "message": "the write may or may not have been applied"}),
        (400, {"code": "unknown", "message": "this message may or may not have been applied"}),
        ("hang up", None), ("stall", None),
    ]
    expected = [("ok", None), ("fail", "busy"), ("fail", "unavailable"), ("info", "unavailable"),
                ("info", "unknown"), ("info", "closed"), ("info", "timeout")]
    requests: list[tuple[str, Any]] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
        body = json.loads(await reader.readexactly(length))
        control = head.split(b" ")[1].decode().rsplit("/", 1)[1]
        index = len(requests)
        requests.append((control, body["value"]))
        status, payload = script[index % len(script)]
        if status == "stall":
            await asyncio.sleep(2)
        elif status != "hang up":
            if payload is None:
                payload = {"control": control, "state": state_of(grids, control, body["value"]), "rev": 100 + index}
            data = json.dumps(payload).encode()
            writer.write(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                         % (status, len(data), data))
            await writer.drain()
        writer.close()

    async def scenario() -> dict[str, Any]:
        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        with contextlib.closing(socket.socket()) as unused:
            unused.bind(("127.0.0.1", 0))
            dead = unused.getsockname()[1]  # bound, never listening: connections are refused
            async with server:
                port = server.sockets[0].getsockname()[1]
                w = Workload(WorkloadConfig(seed=22, nodes={"a": f"http://127.0.0.1:{port}", "b": f"http://127.0.0.1:{dead}"},
                                            rooms=1, ws_writers_per_room=0, http_writers_per_room=2, readers_per_room=0,
                                            rate_hz=50, op_timeout_s=0.5, stop_grace_s=0.2, settle_s=0.1))
                w.room_schemas = {"rb1": room_files.schema(1)}
                w._make_clients()
                task = asyncio.create_task(w.run())
                deadline = time.monotonic() + RUN_DEADLINE
                while len(requests) < 3 * len(script):
                    assert time.monotonic() < deadline and not task.done(), len(requests)
                    await asyncio.sleep(0.05)
                await w.stop()
                await task
                return await w.history(final={})

    hist = asyncio.run(asyncio.wait_for(scenario(), 55))
    ends = [op for op in hist["ops"] if op["type"] != "invoke"]
    on_a = [op for op in ends if op["node"] == "a"]
    on_b = [op for op in ends if op["node"] == "b"]
    assert on_b and {(op["type"], op.get("code")) for op in on_b} == {("fail", "connect_failed")}
    assert len(on_a) >= 3 * len(script) - 1
    for index, op in enumerate(on_a[: 3 * len(script)]):
        if index == len(requests) - 1:
            break  # the last may have been cut by stop()
        control, wire = requests[index]
        assert (op["control"], op["value"]) == (control, state_of(grids, control, wire)), (index, op)
        assert (op["type"], op.get("code")) == expected[index % len(script)], (index, op)
        if op["type"] == "ok":
            assert op["rev"] == 100 + index and op["client"] == "api", op
