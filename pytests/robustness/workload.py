"""The robustness suite's workload: clients that write and read rooms on a
set of Tandem nodes while faults are injected, and everything they asked and
were told, recorded in the history format of pytests/robustness/HISTORY.md.

    w = Workload(WorkloadConfig(seed=7, nodes={"n1": "http://10.77.0.11:8080", ...}), clock=clock)
    await w.setup()                        # creates the rooms, waits until every node serves them
    task = asyncio.create_task(w.run())    # runs until stop()
    ...
    await w.stop()                         # stops writers, lets readers settle (bounded: ~10 s)
    final = await w.read_final_redis(host, 6379)   # or w.read_final_http("n1")
    hist = await w.history(final=final)

Per room (rooms.py), clients spread over the nodes round-robin; each sticks
to its node and reconnects to it after a close (backoff 0.1 s doubling to
2 s), resuming with `since=` the last revision it saw:

- WebSocket writers (`w1`, `w2`, ...): at `rate_hz` with jitter, a `set`
  of an exact state of a set control (60 %), a `step` of a gesture control
  (25 %) or a drag of one (begin with `at`, 1-3 moves with `dx`, end),
  pipelined: several messages in flight (at most `max_in_flight` ops).
- HTTP writers (`h1`, ...): one `PUT` of a set control at a time, at
  `http_rate_hz` (default `rate_hz`) with jitter.
- Readers (`r1`, ...): never write; every welcome and update is a frame.

Outcomes are classified as HISTORY.md says; see `_Writer` and `_HttpWriter`.
Every await has a deadline, and `stop()` returns within
`stop_grace_s + 1.5 + settle_s + 0.5` seconds (10 s by default) whatever the
nodes do.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import math
import random
import time
import urllib.parse
import collections
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode

from pytests.robustness import rooms as room_files
from pytests.support.resp import Resp, pairs

SUBPROTOCOL = "tandem.v1"


@dataclass
class WorkloadConfig:
    seed: int
    nodes: dict[str, str]  # node name -> its HTTP base URL, e.g. "http://10.77.0.11:8080"
    rooms: int = 3
    ws_writers_per_room: int = 4
    http_writers_per_room: int = 1
    readers_per_room: int = 2
    rate_hz: float = 20.0  # ops a second per WebSocket writer
    http_rate_hz: float | None = None  # per HTTP writer (default: rate_hz)
    admin_node: str | None = None  # where rooms are created (default: the first node)
    token: str | None = None  # a token for every request (auth on), else None
    op_timeout_s: float = 10.0  # an op unanswered this long is `info` `timeout`
    max_in_flight: int = 32  # per WebSocket writer
    open_timeout_s: float = 5.0  # a WebSocket handshake + welcome
    ping_interval_s: float = 2.0  # client pings: a silent node is noticed within ~interval + timeout
    ping_timeout_s: float = 5.0
    stop_grace_s: float = 3.0  # stop(): how long in-flight ops may still be answered
    settle_s: float = 5.0  # stop(): how long readers may take to reach the rooms' revision
    setup_timeout_s: float = 60.0
    p_set: float = 0.6  # a WebSocket writer's mix (the rest: drags)
    p_step: float = 0.25


def _now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


def states_equal(a: Any, b: Any, tolerance: float = 1e-9) -> bool:
    """Two states (JSON values) equal, numbers within `tolerance` (HISTORY.md, "States")."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=0, abs_tol=tolerance)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(states_equal(a[k], b[k], tolerance) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(states_equal(x, y, tolerance) for x, y in zip(a, b))
    return a == b


# --------------------------------------------------------------------------
# HTTP: one request per connection, every step with a deadline
# --------------------------------------------------------------------------


class ConnectFailed(OSError):
    """The TCP connection was never made: nothing was sent."""


async def http_request(base: str, method: str, path: str, body: Any = None, token: str | None = None,
                       timeout: float = 10.0) -> tuple[int, Any]:
    """`method path` on the node at `base`; (status, body as JSON, or text when not JSON).
    Raises ConnectFailed when nothing was sent, asyncio.TimeoutError or OSError after."""
    url = urllib.parse.urlsplit(base)
    host, port = url.hostname or "127.0.0.1", url.port or (443 if url.scheme == "https" else 80)
    deadline = time.monotonic() + timeout
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=url.scheme == "https" or None), timeout)
    except (OSError, asyncio.TimeoutError) as error:
        raise ConnectFailed(f"connect {host}:{port}: {error!r}") from None
    try:
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {url.netloc}", "Connection: close",
                "Accept: application/json", f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        await asyncio.wait_for(writer.drain(), max(0.01, deadline - time.monotonic()))
        raw = await asyncio.wait_for(reader.read(), max(0.01, deadline - time.monotonic()))
    finally:
        writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise OSError(f"bad status line {lines[0]!r}")
    status = int(parts[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if "chunked" in headers.get("transfer-encoding", "").lower():
        payload = _dechunk(payload)
    elif "content-length" in headers:
        payload = payload[: int(headers["content-length"])]
    text = payload.decode("utf-8", "replace")
    try:
        return status, json.loads(text) if text else None
    except ValueError:
        return status, text


def _dechunk(data: bytes) -> bytes:
    out, rest = b"", data
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2:]
    return out


# --------------------------------------------------------------------------
# What every process shares: the recorder
# --------------------------------------------------------------------------


class Recorder:
    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self.ops: list[dict[str, Any]] = []
        self.frames: list[dict[str, Any]] = []
        self.connections: list[dict[str, Any]] = []
        self.anomalies: list[dict[str, Any]] = []

    def anomaly(self, process: str, what: str, **details: Any) -> None:
        self.anomalies.append({"process": process, "t": self.clock(), "what": what, **details})


# --------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------


@dataclass(eq=False)
class Op:
    id: str
    process: str
    room: str
    control: str
    f: str  # set, step, drag
    value: Any  # set: the state; step: {"by": n}; drag: None
    node: str
    client: str | None = None
    thumb: str | None = None
    seqs: list[int] = field(default_factory=list)
    answer_seq: int | None = None  # the seq whose ack answers the op (a drag's end)
    rejects: dict[int, str] = field(default_factory=dict)
    deadline: float = 0.0
    done: str | None = None  # ok, fail, info
    conn: Any = None
    grid_index: int | None = None  # a set's index on its control's grid
    end_sent: bool = False
    invoked: bool = False

    def base(self) -> dict[str, Any]:
        record = {"process": self.process, "id": self.id, "room": self.room, "control": self.control,
                  "f": self.f, "value": self.value, "client": self.client, "node": self.node}
        if self.thumb is not None:
            record["thumb"] = self.thumb
        if self.seqs:
            record["seq"] = self.seqs[0]
        return record


class SetTrack:
    """One writer's sets of one control: which of its own states may be the
    control's stored state now, so that it never sends one of them (a `set`
    of the stored state makes no revision; HISTORY.md)."""

    RECENT_INFO = 16

    def __init__(self, grid: room_files.Grid, residue: int, modulus: int, initial: int | None, rng: random.Random):
        self.grid = grid
        self.residue = residue
        self.modulus = modulus
        self.rng = rng
        self.count = (grid.size - residue + modulus - 1) // modulus  # members of the residue class
        if self.count < 3:
            raise ValueError(f"{grid.control}: {grid.size} states leave writer {residue} of {modulus} fewer than 3")
        self.initial = initial if initial is not None and initial % modulus == residue else None
        self.ops: list[Op] = []  # since (and including) the last ok, in send order
        self.infos: list[int] = []  # indexes of recent info ops

    def maybe_stored(self) -> set[int]:
        out = set(self.infos)
        if not any(op.done == "ok" for op in self.ops) and self.initial is not None:
            out.add(self.initial)
        out.update(op.grid_index for op in self.ops if op.done != "fail" and op.grid_index is not None)
        return out

    def pick(self) -> int:
        avoid = self.maybe_stored()
        if self.ops:
            avoid.add(self.ops[-1].grid_index)  # never twice in a row, even after a fail
        for _ in range(64):
            index = self.residue + self.modulus * self.rng.randrange(self.count)
            if index not in avoid:
                return index
        for k in range(self.count):
            index = self.residue + self.modulus * k
            if index not in avoid:
                return index
        raise RuntimeError(f"{self.grid.control}: every state of writer {self.residue} may be stored")

    def sent(self, op: Op) -> None:
        self.ops.append(op)

    def ended(self, op: Op) -> None:
        if op.done == "ok":
            i = self.ops.index(op) if op in self.ops else -1
            # Every op sent before an ok one was applied or refused before it (one connection, in order).
            if i > 0:
                del self.ops[:i]
        elif op.done == "info" and op.grid_index is not None:
            self.infos.append(op.grid_index)
            del self.infos[: -self.RECENT_INFO]
        if len(self.ops) > 256:  # a long outage: everything fails; keep the newest
            del self.ops[:-256]


# --------------------------------------------------------------------------
# WebSocket processes
# --------------------------------------------------------------------------


class _StampedConnection(ClientConnection):
    """A client connection that notes, for every message, when the event loop
    read its last bytes (`data_received`), on the harness clock: `stamps`, in
    message order. All sockets ready at one poll are read before any task
    handles what they brought, so a frame's stamp is never later than the
    handling of an answer that was read at the same poll (or after): a
    reader's frame is timed when it arrived, not when its task got the loop."""

    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.stamps: collections.deque[float] = collections.deque()
        self._read_at = 0.0

    def data_received(self, data: bytes) -> None:
        self._read_at = self.clock()
        super().data_received(data)

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame) and event.fin and event.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            self.stamps.append(self._read_at)
        super().process_event(event)

    def stamp(self) -> float | None:
        """When the message `recv()` just returned arrived (None if unknown)."""
        return self.stamps.popleft() if self.stamps else None


def stamped_connection(clock: Callable[[], float]) -> type[_StampedConnection]:
    return type("StampedConnection", (_StampedConnection,), {"clock": staticmethod(clock)})


class _Conn:
    """One WebSocket connection of a process."""

    def __init__(self, number: int, ws: Any, client: str):
        self.number = number
        self.ws = ws
        self.client = client
        self.open = True
        self.prev_ack = 0
        self.by_seq: dict[int, Op] = {}
        self.answers: list[tuple[int, Op]] = []  # (answer seq, op), ascending
        # Controls with an op of this connection that ended `info`: it may
        # still commit (an `unknown` message relayed after a partition heals
        # commits later), so a change of this client on them can no longer be
        # told from a later op's, and no later op is given its revision.
        self.unsettled: set[str] = set()


class _Socket:
    """A process's WebSocket to its node: opens it, reads its welcome, hands
    every frame to the subclass, and after a close reconnects to the same node
    (backoff 0.1 s doubling to 2 s, with jitter), with `since=` the last
    revision seen."""

    def __init__(self, wl: "Workload", process: str, room: str, node: str):
        self.wl = wl
        self.process = process
        self.room = room
        self.node = node
        self.rng = random.Random(f"{wl.config.seed}:{process}")  # what it does
        self.backoff_rng = random.Random(f"{wl.config.seed}:{process}:backoff")  # when it reconnects
        self.conn: _Conn | None = None
        self.connected = asyncio.Event()
        self.closing = False
        self.conn_count = 0
        self.last_rev: int | None = None
        self.last_t: float | None = None
        self._current_ws: Any = None

    def url(self) -> str:
        base = self.wl.config.nodes[self.node]
        scheme = "wss" if base.startswith("https") else "ws"
        query = {"name": self.process}
        if self.last_rev is not None:
            query["since"] = str(self.last_rev)
        if self.wl.config.token:
            query["token"] = self.wl.config.token
        return f"{scheme}://{base.split('://', 1)[1].rstrip('/')}/rooms/{self.room}?{urllib.parse.urlencode(query)}"

    async def run(self) -> None:
        backoff = 0.1
        while not self.closing:
            opened = await self._open_once()
            if opened:
                backoff = 0.1
            if self.closing:
                break
            await self.wl._sleep(backoff * (0.5 + self.backoff_rng.random()), self)
            backoff = min(2.0, backoff * 2)

    async def _open_once(self) -> bool:
        cfg = self.wl.config
        rec = self.wl.rec
        number = self.conn_count + 1
        t_open = rec.clock()
        ws = None
        try:
            async with asyncio.timeout(cfg.open_timeout_s):
                ws = await ws_connect(self.url(), subprotocols=[SUBPROTOCOL], compression=None, proxy=None,
                                      open_timeout=cfg.open_timeout_s, ping_interval=cfg.ping_interval_s,
                                      ping_timeout=cfg.ping_timeout_s, close_timeout=1.0, max_size=1 << 22,
                                      max_queue=None, user_agent_header=None,
                                      create_connection=self.wl.connection_class)
                self._current_ws = ws
                while True:
                    frame = json.loads(await ws.recv())
                    arrived = ws.stamp()
                    if frame.get("type") == "welcome":
                        break
        except Exception as error:  # refused, timed out, closed before its welcome (1013, 4404...), a bad frame
            code = getattr(ws, "close_code", None) if ws is not None else None
            rec.connections.append({"process": self.process, "node": self.node, "conn": None, "t_open": t_open,
                                    "t_close": rec.clock(), "close_code": code,
                                    "error": type(error).__name__})
            if ws is not None:
                await _abort(ws)
            self._current_ws = None
            return False
        if self.closing:  # close() came while this one was opening
            await _abort(ws)
            self._current_ws = None
            return False
        self.conn_count = number
        conn = _Conn(number, ws, str(frame.get("client")))
        entry = {"process": self.process, "node": self.node, "conn": number, "client": conn.client,
                 "t_open": t_open, "t_welcome": rec.clock(), "since": frame.get("since")}
        rec.connections.append(entry)
        self.conn = conn
        self._note_rev(frame.get("rev"))
        self.on_welcome(conn, frame, arrived)
        self.connected.set()
        try:
            async for message in ws:
                arrived = ws.stamp()
                try:
                    frame = json.loads(message)
                except ValueError:
                    rec.anomaly(self.process, "frame not JSON", text=str(message)[:200])
                    continue
                kind = frame.get("type")
                if kind == "update":
                    self._note_rev(frame.get("rev"))
                    self.on_update(conn, frame, arrived)
                elif kind == "reject":
                    self.on_reject(conn, frame)
                elif kind == "welcome":
                    rec.anomaly(self.process, "second welcome on one connection")
        except ConnectionClosed:
            pass
        except Exception as error:  # a bug here must not hang the run: record it, reconnect
            rec.anomaly(self.process, "receive loop crashed", error=repr(error))
            await _abort(ws)
        finally:
            conn.open = False
            self.connected.clear()
            if self.conn is conn:
                self.conn = None
            self._current_ws = None
            entry["t_close"] = rec.clock()
            entry["close_code"] = ws.close_code
            entry["close_reason"] = ws.close_reason
            self.on_closed(conn)
        return True

    def _note_rev(self, rev: Any) -> None:
        if isinstance(rev, int):
            self.last_rev = rev
            self.last_t = self.wl.rec.clock()

    async def close(self) -> None:
        self.closing = True
        ws = self._current_ws
        if ws is not None:
            try:
                await asyncio.wait_for(ws.close(), 0.5)
            except Exception:
                pass
            await _abort(ws)

    # hooks (`arrived`: when the frame's bytes were read, on the harness clock)
    def on_welcome(self, conn: _Conn, frame: dict[str, Any], arrived: float | None) -> None: ...
    def on_update(self, conn: _Conn, frame: dict[str, Any], arrived: float | None) -> None: ...
    def on_reject(self, conn: _Conn, frame: dict[str, Any]) -> None: ...
    def on_closed(self, conn: _Conn) -> None: ...


async def _abort(ws: Any) -> None:
    transport = getattr(ws, "transport", None)
    if transport is not None:
        transport.abort()


class _Reader(_Socket):
    """Never writes; every welcome and update is a frame of the history."""

    def _record(self, conn: _Conn, kind: str, frame: dict[str, Any], changes: list[dict[str, Any]],
                arrived: float | None) -> None:
        t = arrived if arrived is not None else self.wl.rec.clock()
        record = {"process": self.process, "conn": conn.number, "t": t, "room": self.room,
                  "node": self.node, "kind": kind, "rev": frame.get("rev"), "changes": changes}
        if kind == "welcome":
            record["client"] = conn.client
            if "since" in frame:
                record["since"] = frame["since"]
        self.wl.rec.frames.append(record)

    def on_welcome(self, conn: _Conn, frame: dict[str, Any], arrived: float | None) -> None:
        changes = []
        for control in frame.get("controls", []):
            change = {"control": control.get("id"), "state": control.get("state"), "rev": control.get("rev")}
            if "by" in control:
                change["by"] = control["by"]
            changes.append(change)
        self._record(conn, "welcome", frame, changes, arrived)

    def on_update(self, conn: _Conn, frame: dict[str, Any], arrived: float | None) -> None:
        self._record(conn, "update", frame, list(frame.get("changes", [])), arrived)


class _Writer(_Socket):
    """A WebSocket writer. An op is invoked when its (first) message is sent and ends once:

    - `ok`: an update whose `ack` ≥ its seq (a drag's: its `end`'s) and no
      reject for that seq; acks are cumulative, and a reject comes before the
      update carrying its ack. `rev` and `state` when that frame shows this
      connection's own change of the control and it can only be this op's
      (a `set`: the newest own op on the control in the frame's ack window,
      with the state sent; a step or drag: the only own op on the control in
      it), and no earlier op of the connection on the control ended `info`:
      that one may commit late, and its change would pass for this op's.
    - `fail`: a reject (its `code`); a drag whose `begin` was refused, or
      whose `end` was never sent (its connection closed first: the gesture is
      cancelled, a release-mode drag committed nothing): `closed_before_end`.
    - `info`: reject code `unknown`; the connection closed with the op
      unanswered (`closed`); no answer within `op_timeout_s` (`timeout`).
    """

    def __init__(self, wl: "Workload", process: str, room: str, node: str, index: int, modulus: int):
        super().__init__(wl, process, room, node)
        self.seq = 0
        self.op_count = 0
        self.pending: set[Op] = set()
        self.slot = asyncio.Event()
        schema = wl.room_schemas[room]
        self.tracks = {cid: SetTrack(grid, index, modulus, _initial_index(schema, grid), self.rng)
                       for cid, grid in room_files.grids(schema).items()}
        self.dragging = False
        self.tasks: set[asyncio.Task] = set()

    # -- the op loop

    async def write_loop(self) -> None:
        cfg = self.wl.config
        rate = max(cfg.rate_hz, 0.01)
        sweeper = asyncio.create_task(self._sweep())
        try:
            while not self.wl.writes_stopped.is_set():
                await self.wl._sleep(self.rng.uniform(0.5, 1.5) / rate, None, self.wl.writes_stopped)
                if self.wl.writes_stopped.is_set():
                    break
                if self.conn is None or not self.conn.open:
                    await _wait_event(self.connected, 1.0)
                    continue
                if len(self.pending) >= cfg.max_in_flight:
                    self.slot.clear()
                    await _wait_event(self.slot, 1.0)
                    continue
                roll = self.rng.random()
                if roll < cfg.p_set:
                    await self._set()
                elif roll < cfg.p_set + cfg.p_step or self.dragging:
                    await self._step()
                else:
                    task = asyncio.create_task(self._drag())
                    self.tasks.add(task)
                    task.add_done_callback(self.tasks.discard)
        finally:
            if self.tasks:
                await asyncio.wait(set(self.tasks), timeout=2.0)
            sweeper.cancel()

    async def settle(self, deadline: float) -> None:
        """After writes stopped: waits until every op ended or `deadline` (monotonic)."""
        while self.pending and time.monotonic() < deadline:
            self.slot.clear()
            await _wait_event(self.slot, min(0.25, max(0.01, deadline - time.monotonic())))

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(0.25)
            now = time.monotonic()
            for op in [op for op in self.pending if op.deadline and now >= op.deadline]:
                self._finish(op, "info", code="timeout")

    def _new_op(self, control: str, f: str, value: Any, thumb: str | None = None) -> Op:
        self.op_count += 1
        assert self.conn is not None
        op = Op(id=f"{self.process}:{self.op_count}", process=self.process, room=self.room, control=control,
                f=f, value=value, node=self.node, client=self.conn.client, thumb=thumb, conn=self.conn)
        return op

    async def _send(self, op: Op, message: dict[str, Any], answers: bool, first: bool = False) -> bool:
        """Sends one message of `op` on its connection; False when it could not be sent.
        Registers the seq first, so that an answer read while sending finds its op."""
        conn = op.conn
        if not conn.open or op.done:
            return False
        self.seq += 1
        seq = self.seq
        message["seq"] = seq
        op.seqs.append(seq)
        conn.by_seq[seq] = op
        if answers:
            op.answer_seq = seq
            conn.answers.append((seq, op))
            op.end_sent = True
        op.deadline = time.monotonic() + self.wl.config.op_timeout_s
        if first:
            op.invoked = True
            self.pending.add(op)
            record = op.base()
            record.update(type="invoke", t=self.wl.rec.clock())
            self.wl.rec.ops.append(record)
        try:
            await asyncio.wait_for(conn.ws.send(json.dumps(message)), 2.0)
        except ConnectionClosed:
            # Not written: the connection was closed before. The close ends the op (on_closed).
            return False
        except (asyncio.TimeoutError, OSError):
            # Maybe written, maybe not: the op is unknown; a stalled socket is closed (and reopened).
            self._finish(op, "info", code="timeout")
            await _abort(conn.ws)
            return False
        return True

    async def _set(self) -> None:
        control = self.rng.choice(room_files.SET_CONTROLS)
        track = self.tracks[control]
        index = track.pick()
        op = self._new_op(control, "set", track.grid.state(index))
        op.grid_index = index
        track.sent(op)  # before the send: its answer may be read while it is sent
        await self._send(op, {"type": "set", "control": control, "value": track.grid.wire(index)},
                         answers=True, first=True)
        if not op.invoked:
            track.ops.remove(op)

    async def _step(self) -> None:
        control = self.rng.choice(room_files.GESTURE_CONTROLS)
        thumb = self.rng.choice(room_files.thumbs(control))
        by = self.rng.choice((-3, -2, -1, 1, 2, 3)) if control == "window" else self.rng.choice((-5, -2, -1, 1, 2, 5))
        op = self._new_op(control, "step", {"by": by}, thumb if control == "window" else None)
        message = {"type": "step", "control": control, "by": by}
        if control == "window":
            message["thumb"] = thumb
        await self._send(op, message, answers=True, first=True)

    async def _drag(self) -> None:
        if self.conn is None or not self.conn.open:
            return
        self.dragging = True
        try:
            control = self.rng.choice(room_files.GESTURE_CONTROLS)
            thumb = self.rng.choice(room_files.thumbs(control))
            op = self._new_op(control, "drag", None, thumb if control == "window" else None)
            base = {"type": "drag", "control": control}
            if control == "window":
                base["thumb"] = thumb
            if not await self._send(op, {**base, "phase": "begin", "at": round(self.rng.random(), 4)},
                                    answers=False, first=True):
                self._drag_unsent(op)
                return
            for _ in range(self.rng.randint(1, 3)):
                await asyncio.sleep(self.rng.uniform(0.01, 0.04))
                if op.done:
                    return
                if not await self._send(op, {**base, "phase": "move", "dx": round(self.rng.uniform(-0.3, 0.3), 4)},
                                        answers=False):
                    self._drag_unsent(op)
                    return
            await asyncio.sleep(self.rng.uniform(0.01, 0.04))
            if op.done:
                return
            if not await self._send(op, {**base, "phase": "end"}, answers=True):
                self._drag_unsent(op)
        finally:
            self.dragging = False

    def _drag_unsent(self, op: Op) -> None:
        if op.invoked and not op.done and not op.end_sent and not op.conn.open:
            self._finish(op, "fail", code="closed_before_end")

    # -- answers

    def on_update(self, conn: _Conn, frame: dict[str, Any], arrived: float | None) -> None:
        ack = frame.get("ack")
        if not isinstance(ack, int) or ack <= conn.prev_ack:
            return
        window = []
        while conn.answers and conn.answers[0][0] <= ack:
            window.append(conn.answers.pop(0))
        conn.prev_ack = ack
        mine = {c.get("control"): c for c in frame.get("changes", []) if c.get("by") == conn.client}
        applied: dict[str, list[Op]] = defaultdict(list)
        for seq, op in window:
            if seq not in op.rejects:
                applied[op.control].append(op)
        for seq, op in window:
            if op.done or seq in op.rejects:
                continue
            fields: dict[str, Any] = {}
            change = mine.get(op.control)
            group = applied[op.control]
            if change is not None and group and group[-1] is op and op.control not in conn.unsettled:
                if (op.f == "set" and states_equal(change.get("state"), op.value)) or (op.f != "set" and len(group) == 1):
                    fields = {"rev": change.get("rev"), "state": change.get("state")}
            self._finish(op, "ok", **fields)

    def on_reject(self, conn: _Conn, frame: dict[str, Any]) -> None:
        seq, code = frame.get("seq"), frame.get("code")
        op = conn.by_seq.get(seq) if isinstance(seq, int) else None
        if op is None:
            self.wl.rec.anomaly(self.process, "reject of no op", conn=conn.number, seq=seq, code=code)
            return
        op.rejects[seq] = code
        if op.done:
            if op.done == "ok":
                self.wl.rec.anomaly(self.process, "reject after ok", id=op.id, seq=seq, code=code)
            return
        if op.f == "drag" and seq != op.answer_seq:
            # A refused begin: no gesture, the rest is refused too, nothing committed. A refused
            # move: the end decides. A begin of unknown outcome: the end decides as well.
            if seq == op.seqs[0] and code != "unknown":
                self._finish(op, "fail", code=code, refused_seq=seq)
            return
        if code == "unknown":
            self._finish(op, "info", code=code)
        else:
            self._finish(op, "fail", code=code)

    def on_closed(self, conn: _Conn) -> None:
        for op in [op for op in self.pending if op.conn is conn]:
            if op.f == "drag" and not op.end_sent:
                self._finish(op, "fail", code="closed_before_end")
            else:
                self._finish(op, "info", code="closed")

    def _finish(self, op: Op, outcome: str, **fields: Any) -> None:
        if op.done:
            return
        op.done = outcome
        self.pending.discard(op)
        if outcome == "info" and op.conn is not None:
            op.conn.unsettled.add(op.control)
        record = op.base()
        record.update(type=outcome, t=self.wl.rec.clock(), **fields)
        if op.f == "drag":
            record["seqs"] = list(op.seqs)
        if op.rejects and outcome != "fail":
            record["rejects"] = {str(k): v for k, v in op.rejects.items()}
        self.wl.rec.ops.append(record)
        if op.f == "set":
            self.tracks[op.control].ended(op)
        self.slot.set()

    def stop_pending(self) -> None:
        """stop() after its grace: every op still unanswered is unknown."""
        for op in list(self.pending):
            if op.f == "drag" and not op.end_sent:
                self._finish(op, "fail", code="closed_before_end")
            else:
                self._finish(op, "info", code="timeout")


def _initial_index(schema: dict[str, Any], grid: room_files.Grid) -> int | None:
    state = room_files.initial_state(schema, grid.control)
    return grid.index_of(state) if state is not None else None


async def _wait_event(event: asyncio.Event, timeout: float) -> bool:
    try:
        await asyncio.wait_for(event.wait(), timeout)
        return True
    except asyncio.TimeoutError:
        return False


# --------------------------------------------------------------------------
# HTTP writers
# --------------------------------------------------------------------------


class _HttpWriter:
    """One `PUT /api/rooms/ROOM/controls/CONTROL` at a time, as client `api`:

    - 200 → `ok`, with `rev` and `state` when the answered state is the one
      sent (a cluster node answers the control's state as its view has it
      once the ack arrived, which a later commit may already have replaced).
    - a body whose code is `unknown`, whatever the status → `info`.
    - 4xx → `fail` (`code`: the body's code, else the status; `status`).
    - 503 whose message says "nothing changed" → `fail`; any other 503 (the
      owner's "may or may not have been applied") or 5xx → `info`.
    - no connection made (nothing sent) → `fail` `connect_failed`; a timeout
      (`op_timeout_s`) or a connection error after the request was written
      → `info` (`timeout`, `closed`).
    """

    def __init__(self, wl: "Workload", process: str, room: str, node: str, index: int, modulus: int):
        self.wl = wl
        self.process = process
        self.room = room
        self.node = node
        self.rng = random.Random(f"{wl.config.seed}:{process}")
        schema = wl.room_schemas[room]
        self.tracks = {cid: SetTrack(grid, index, modulus, _initial_index(schema, grid), self.rng)
                       for cid, grid in room_files.grids(schema).items()}
        self.op_count = 0
        self.current: Op | None = None

    async def write_loop(self) -> None:
        cfg = self.wl.config
        rate = max(cfg.http_rate_hz or cfg.rate_hz, 0.01)
        while not self.wl.writes_stopped.is_set():
            await self.wl._sleep(self.rng.uniform(0.5, 1.5) / rate, None, self.wl.writes_stopped)
            if self.wl.writes_stopped.is_set():
                break
            await self._put()

    async def _put(self) -> None:
        control = self.rng.choice(room_files.SET_CONTROLS)
        track = self.tracks[control]
        index = track.pick()
        self.op_count += 1
        op = Op(id=f"{self.process}:{self.op_count}", process=self.process, room=self.room, control=control,
                f="set", value=track.grid.state(index), node=self.node, client="api", grid_index=index)
        track.sent(op)
        self.current = op
        record = op.base()
        record.update(type="invoke", t=self.wl.rec.clock())
        self.wl.rec.ops.append(record)
        cfg = self.wl.config
        try:
            status, body = await http_request(cfg.nodes[self.node], "PUT", f"/api/rooms/{self.room}/controls/{control}",
                                              {"value": track.grid.wire(index)}, cfg.token, cfg.op_timeout_s)
        except ConnectFailed:
            self._finish(op, "fail", code="connect_failed")
            return
        except asyncio.TimeoutError:
            self._finish(op, "info", code="timeout")
            return
        except asyncio.CancelledError:
            self._finish(op, "info", code="timeout")
            raise
        except (OSError, ValueError) as error:
            self._finish(op, "info", code="closed", error=type(error).__name__)
            return
        body_code = body.get("code") if isinstance(body, dict) else None
        if status == 200 and isinstance(body, dict):
            fields: dict[str, Any] = {}
            if states_equal(body.get("state"), op.value):
                fields = {"rev": body.get("rev"), "state": body.get("state")}
            else:
                fields = {"answer": body}
            self._finish(op, "ok", **fields)
        elif body_code == "unknown":  # the owner cannot know (whatever the status says)
            self._finish(op, "info", code=body_code, status=status)
        elif 400 <= status < 500:
            self._finish(op, "fail", code=body_code or str(status), status=status)
        elif status == 503 and isinstance(body, dict) and "nothing changed" in str(body.get("message", "")):
            self._finish(op, "fail", code=body_code or str(status), status=status)
        else:
            self._finish(op, "info", code=body_code or str(status), status=status)

    def _finish(self, op: Op, outcome: str, **fields: Any) -> None:
        if op.done:
            return
        op.done = outcome
        record = op.base()
        record.update(type=outcome, t=self.wl.rec.clock(), **fields)
        self.wl.rec.ops.append(record)
        self.tracks[op.control].ended(op)
        if self.current is op:
            self.current = None


# --------------------------------------------------------------------------
# The workload
# --------------------------------------------------------------------------


class Workload:
    def __init__(self, config: WorkloadConfig, clock: Callable[[], float] | None = None):
        if not config.nodes:
            raise ValueError("no nodes")
        self.config = config
        if clock is None:
            start = time.monotonic()
            clock = lambda: time.monotonic() - start  # noqa: E731
        self.rec = Recorder(clock)
        self.connection_class = stamped_connection(clock)
        self.node_names = list(config.nodes)
        self.admin = config.admin_node or self.node_names[0]
        self.room_ids = [room_files.room_id(n) for n in range(1, config.rooms + 1)]
        self.room_schemas: dict[str, dict[str, Any]] = {}  # as GET /api/rooms/ID gave it
        self.started = _now_iso()
        self.writes_stopped = asyncio.Event()
        self.done = asyncio.Event()
        self.writers: list[_Writer] = []
        self.http_writers: list[_HttpWriter] = []
        self.readers: list[_Reader] = []
        self.tasks: list[asyncio.Task] = []
        self.final: dict[str, Any] | None = None
        self.stop_target: dict[str, int] = {}
        self.stop_started: float | None = None
        self.stop_ended: float | None = None
        self._stopped = False

    # -- setup

    async def setup(self) -> None:
        """Creates the rooms on the admin node and waits until every node serves them."""
        cfg = self.config
        deadline = time.monotonic() + cfg.setup_timeout_s
        base = cfg.nodes[self.admin]
        for n, room in enumerate(self.room_ids, 1):
            body = room_files.schema(n)
            while True:
                status, answer = await self._try_http(base, "POST", "/api/rooms", body, deadline)
                if status in (200, 201):
                    break
                if status is not None and 400 <= status < 500 and status not in (404, 408, 429):
                    raise RuntimeError(f"POST /api/rooms {room} on {self.admin}: {status} {answer}")
                await self._setup_pause(deadline, f"POST /api/rooms {room} on {self.admin}: {status} {answer}")
        for room in self.room_ids:
            for node in self.node_names:
                while True:
                    status, answer = await self._try_http(cfg.nodes[node], "GET", f"/api/rooms/{room}", None, deadline)
                    if status == 200 and isinstance(answer, dict):
                        if node == self.admin or room not in self.room_schemas:
                            self.room_schemas[room] = answer
                        break
                    await self._setup_pause(deadline, f"GET /api/rooms/{room} on {node}: {status} {answer}")
        self._make_clients()

    async def _try_http(self, base: str, method: str, path: str, body: Any, deadline: float) -> tuple[int | None, Any]:
        try:
            return await http_request(base, method, path, body, self.config.token,
                                      min(5.0, max(0.1, deadline - time.monotonic())))
        except (OSError, asyncio.TimeoutError) as error:
            return None, repr(error)

    async def _setup_pause(self, deadline: float, what: str) -> None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"setup: not within {self.config.setup_timeout_s} s: {what}")
        await asyncio.sleep(0.1)

    def _make_clients(self) -> None:
        cfg = self.config
        nodes = self.node_names
        w = h = r = 0
        modulus = cfg.ws_writers_per_room + cfg.http_writers_per_room
        for i, room in enumerate(self.room_ids):
            k = i  # each room starts its round-robin one node further
            for j in range(cfg.ws_writers_per_room):
                w += 1
                self.writers.append(_Writer(self, f"w{w}", room, nodes[k % len(nodes)], j, modulus))
                k += 1
            for j in range(cfg.http_writers_per_room):
                h += 1
                self.http_writers.append(_HttpWriter(self, f"h{h}", room, nodes[k % len(nodes)],
                                                     cfg.ws_writers_per_room + j, modulus))
                k += 1
            for _ in range(cfg.readers_per_room):
                r += 1
                self.readers.append(_Reader(self, f"r{r}", room, nodes[k % len(nodes)]))
                k += 1

    # -- for the runner: where clients are, how it goes

    def placement(self) -> dict[str, dict[str, str]]:
        """Every process's room, node and kind (`ws`, `http`, `reader`)."""
        out = {w.process: {"room": w.room, "node": w.node, "kind": "ws"} for w in self.writers}
        out.update({h.process: {"room": h.room, "node": h.node, "kind": "http"} for h in self.http_writers})
        out.update({r.process: {"room": r.room, "node": r.node, "kind": "reader"} for r in self.readers})
        return out

    def counts(self) -> dict[str, int]:
        """How many ops were invoked and ended each way so far (e.g. to wait until writes flow)."""
        out = {"invoke": 0, "ok": 0, "fail": 0, "info": 0}
        for op in self.rec.ops:
            out[op["type"]] += 1
        out["frames"] = len(self.rec.frames)
        return out

    # -- running

    async def run(self) -> None:
        """Runs every client until stop()."""
        if not self.room_schemas:
            raise RuntimeError("setup() first")

        def start(coro: Any, name: str) -> None:
            task = asyncio.create_task(self._guard(coro, name), name=name)
            self.tasks.append(task)

        for reader in self.readers:
            start(reader.run(), f"{reader.process}-socket")
        for writer in self.writers:
            start(writer.run(), f"{writer.process}-socket")
            start(writer.write_loop(), f"{writer.process}-writes")
        for writer in self.http_writers:
            start(writer.write_loop(), f"{writer.process}-writes")
        try:
            await self.done.wait()
        finally:
            for task in self.tasks:
                if not task.done():
                    task.cancel()
            if self.tasks:
                await asyncio.wait(self.tasks, timeout=2.0)

    async def _guard(self, coro: Any, name: str) -> None:
        try:
            await coro
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.rec.anomaly(name, "task crashed", error=repr(error))

    async def _sleep(self, seconds: float, socket: _Socket | None = None, event: asyncio.Event | None = None) -> None:
        """Sleeps, waking early when `event` is set (or the socket closes for good)."""
        if event is not None:
            await _wait_event(event, seconds)
        else:
            end = time.monotonic() + seconds
            while time.monotonic() < end and not (socket is not None and socket.closing):
                await asyncio.sleep(min(0.1, end - time.monotonic()))

    async def stop(self) -> None:
        """Stops the writers, gives in-flight ops `stop_grace_s` to be answered
        (then they are `info` `timeout`), then gives the readers up to
        `settle_s` to reach the rooms' revision (the highest any node answers),
        and closes everything."""
        if self._stopped:
            return
        self._stopped = True
        cfg = self.config
        self.stop_started = self.rec.clock()
        self.writes_stopped.set()
        grace_end = time.monotonic() + cfg.stop_grace_s
        loops = [t for t in self.tasks if t.get_name().endswith("-writes")]
        if loops:
            await asyncio.wait(loops, timeout=cfg.stop_grace_s)
        for task in loops:
            if not task.done():
                task.cancel()
        await asyncio.gather(*(w.settle(grace_end) for w in self.writers))
        for w in self.writers:
            w.stop_pending()
        closing = asyncio.gather(*(w.close() for w in self.writers))  # meanwhile, the revisions to wait for
        self.stop_target = await self._room_revisions(timeout=1.5)
        await closing
        settle_end = time.monotonic() + cfg.settle_s
        while time.monotonic() < settle_end and not self._converged(self.stop_target):
            await asyncio.sleep(0.05)
        await asyncio.gather(*(r.close() for r in self.readers))
        self.stop_ended = self.rec.clock()
        self.done.set()

    async def _room_revisions(self, timeout: float) -> dict[str, int]:
        """Every room's highest revision over the nodes that answer within `timeout`."""
        deadline = time.monotonic() + timeout

        async def one(node: str, room: str) -> tuple[str, int | None]:
            status, body = await self._try_http(self.config.nodes[node], "GET", f"/api/rooms/{room}", None, deadline)
            return room, body.get("rev") if status == 200 and isinstance(body, dict) else None

        out: dict[str, int] = {}
        for room, rev in await asyncio.gather(*(one(n, r) for n in self.node_names for r in self.room_ids)):
            if isinstance(rev, int):
                out[room] = max(rev, out.get(room, rev))
        return out

    def _converged(self, target: dict[str, int]) -> bool:
        return all(r.last_rev is not None and r.last_rev >= target.get(r.room, 0) for r in self.readers
                   if r.room in target)

    # -- the final log

    async def read_final_redis(self, host: str, port: int = 6379, timeout: float = 10.0) -> dict[str, Any]:
        """Every room's revision, states and whole log as stored in Redis (docs/scale-out.md)."""
        final: dict[str, Any] = {}
        redis = await Resp.connect(host, port, timeout)
        try:
            for room in self.room_ids:
                fields = pairs(await redis.command("HGETALL", f"tandem:{{{room}}}:room"))
                states = {k[2:]: json.loads(v) for k, v in fields.items() if k.startswith("s:")}
                log: list[dict[str, Any]] = []
                start = "-"
                while True:
                    page = await redis.command("XRANGE", f"tandem:{{{room}}}:log", start, "+", "COUNT", "5000")
                    for entry_id, flat in page or []:
                        values = pairs(flat)
                        entry: dict[str, Any] = {"rev": int(entry_id.split("-")[0]), "id": entry_id,
                                                 "control": values.get("control"),
                                                 "state": _json_or_text(values.get("state")),
                                                 "client": values.get("client"), "name": values.get("name"),
                                                 "time": _int_or_text(values.get("time"))}
                        if "epoch" in values:
                            entry["epoch"] = _int_or_text(values["epoch"])
                        log.append(entry)
                    if not page or len(page) < 5000:
                        break
                    start = "(" + page[-1][0]
                final[room] = {"revision": int(fields.get("revision", 0) or 0), "states": states, "log": log}
        finally:
            await redis.close()
        self.final = final
        return final

    async def read_final_http(self, node: str | None = None, timeout: float = 10.0) -> dict[str, Any]:
        """The same from one node's HTTP API: GET /api/rooms/ID and its history, paged."""
        base = self.config.nodes[node or self.admin]
        final: dict[str, Any] = {}
        for room in self.room_ids:
            status, body = await http_request(base, "GET", f"/api/rooms/{room}", None, self.config.token, timeout)
            if status != 200 or not isinstance(body, dict):
                raise RuntimeError(f"GET /api/rooms/{room}: {status} {body}")
            log: list[dict[str, Any]] = []
            since = 0
            while True:
                status, page = await http_request(base, "GET", f"/api/rooms/{room}/history?since={since}&limit=10000",
                                                  None, self.config.token, timeout)
                if status != 200 or not isinstance(page, dict):
                    raise RuntimeError(f"GET /api/rooms/{room}/history?since={since}: {status} {page}")
                rows = page.get("history", [])
                for row in rows:
                    log.append({"rev": row.get("rev"), "control": row.get("control"), "state": row.get("state"),
                                "client": row.get("by"), "name": row.get("name"), "time": row.get("time")})
                if not rows or rows[-1].get("rev", since) <= since:
                    break
                since = rows[-1]["rev"]
            final[room] = {"revision": body.get("rev"),
                           "states": {c["id"]: c.get("state") for c in body.get("controls", [])}, "log": log}
        self.final = final
        return final

    # -- the history

    async def history(self, final: dict[str, Any] | None = None, faults: list[dict[str, Any]] | None = None,
                      mode: str | None = None, settings: dict[str, Any] | None = None) -> dict[str, Any]:
        """The history object of HISTORY.md (plus `connections`, `anomalies` and `stop`)."""
        final = final if final is not None else (self.final or {})
        targets = {room: f.get("revision") for room, f in final.items() if isinstance(f, dict)}
        if not targets:
            targets = dict(self.stop_target)
        by_reader: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for frame in self.rec.frames:
            by_reader[frame["process"]].append(frame)
        reads_after_heal = []
        for reader in self.readers:
            frames = by_reader.get(reader.process, [])
            target = targets.get(reader.room)
            converged = None
            if isinstance(target, int):
                converged = next((f["t"] for f in frames if isinstance(f.get("rev"), int) and f["rev"] >= target), None)
            reads_after_heal.append({"process": reader.process, "room": reader.room, "node": reader.node,
                                     "converged_at": converged, "last_rev": frames[-1]["rev"] if frames else None,
                                     "last_t": frames[-1]["t"] if frames else None, "target_rev": target})
        return {
            "seed": self.config.seed,
            "started": self.started,
            "mode": mode or ("cluster" if len(self.node_names) > 1 else "single"),
            "settings": settings if settings is not None else {"nodes": self.node_names},
            "workload": {"rooms": self.config.rooms, "ws_writers_per_room": self.config.ws_writers_per_room,
                         "http_writers_per_room": self.config.http_writers_per_room,
                         "readers_per_room": self.config.readers_per_room, "rate_hz": self.config.rate_hz,
                         "http_rate_hz": self.config.http_rate_hz or self.config.rate_hz,
                         "op_timeout_s": self.config.op_timeout_s},
            "rooms": {room: {"controls": schema.get("controls", [])} for room, schema in self.room_schemas.items()},
            "ops": self.rec.ops,
            "frames": self.rec.frames,
            "faults": faults or [],
            "final": final,
            "reads_after_heal": reads_after_heal,
            "connections": self.rec.connections,
            "anomalies": self.rec.anomalies,
            "stop": {"started": self.stop_started, "ended": self.stop_ended, "target": self.stop_target},
        }


def _json_or_text(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def _int_or_text(text: Any) -> Any:
    try:
        return int(text)
    except (TypeError, ValueError):
        return text
