"""A reader that stops reading costs the server almost nothing and, when it
reads again, gets the latest state in a few frames instead of a backlog."""

import json
import socket
import threading
import time

import pytest

from helpers import OP_CLOSE, OP_PING, OP_TEXT, WAIT, Client, RawWebSocket, TandemServer, open_websocket

TOTAL_MOVES = 20_000
# Each mover drags its own thumb; each connection keeps under its own rate
# limit (300/s sustained, bursts of 600), so 20,000 moves take ~14 s.
MOVERS = [("gain", None), ("size", None), ("color", "red"), ("color", "green"), ("color", "blue")]
MOVES_EACH = TOTAL_MOVES // len(MOVERS)
RATE = 270.0  # messages a second per mover, under the 300/s limit
BURST = 250  # sent at once at the start, well inside the 600 burst
RSS_GROWTH_LIMIT = 8 * 1024 * 1024


def dx_for(i: int) -> float:
    """Varying total translations in [-0.5, 0.5]."""
    return ((i * 37) % 101) / 100 - 0.5


class Mover(threading.Thread):
    def __init__(self, url: str, control: str, thumb: str | None, moves: int, start: threading.Event):
        super().__init__(name=f"mover-{control}-{thumb}", daemon=True)
        self.url, self.control, self.thumb, self.moves, self.start_event = url, control, thumb, moves, start
        self.ready = threading.Event()
        self.client_id = ""
        self.end_seq = 0
        self.rejects: list[dict] = []
        self.error: BaseException | None = None

    def drain(self, client: Client) -> None:
        for frame in client.drain(0):
            if frame.get("type") == "reject":
                self.rejects.append(frame)
        client.history.clear()
        client.mark()

    def run(self) -> None:
        try:
            with open_websocket(self.url, max_queue=None) as ws:
                client = Client(ws)
                self.client_id = client.id
                self.ready.set()
                self.start_event.wait(WAIT)
                client.drag(self.control, "begin", self.thumb)
                started = time.monotonic()
                for i in range(self.moves):
                    due = started + max(0.0, (i - BURST) / RATE)
                    delay = due - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)  # the scenario: pacing under the rate limit
                    client.drag(self.control, "move", self.thumb, dx=dx_for(i))
                    if i % 64 == 0:
                        self.drain(client)
                time.sleep(1 / RATE)  # pacing, as above
                self.end_seq = client.drag(self.control, "end", self.thumb, dx=dx_for(self.moves))
                client.expect_ack(self.end_seq)
                for frame in client.history:
                    if frame.get("type") == "reject":
                        self.rejects.append(frame)
        except BaseException as error:  # reported by the test
            self.error = error
            self.ready.set()


class RssSampler(threading.Thread):
    def __init__(self, server):
        super().__init__(name="rss", daemon=True)
        self.server = server
        self.samples: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.samples.append(self.server.rss_bytes())
            except (OSError, AssertionError):
                return
            self.stop.wait(0.1)


class SlowReaderRun:
    """What one run of the scenario measured."""

    frames = 0
    moving_seconds = 0.0
    baseline = 0
    peak = 0
    latest: dict[str, dict]
    committed: dict[str, dict]
    rate_limited: list[dict]
    other_rejects: list[dict]
    closed_with: bytes | None = None


@pytest.fixture(scope="module")
def slow_reader_run(tandem_binary) -> SlowReaderRun:
    """One slow socket stops reading while five movers send 20,000 moves; then it reads again.

    Module-scoped: the run takes ~15 s and the tests below only read what it measured.
    """
    # The slow-consumer timeout (30 s by default) is not what this is about.
    server = TandemServer(tandem_binary, ["--slow-timeout", "300"])
    run = SlowReaderRun()
    slow = RawWebSocket(server.port, "/rooms/demo?name=slow", rcvbuf=4096)
    sampler = RssSampler(server)
    try:
        assert slow.read_json()["type"] == "welcome"
        go = threading.Event()
        movers = [Mover(server.url, control, thumb, MOVES_EACH, go) for control, thumb in MOVERS]
        for mover in movers:
            mover.start()
        for mover in movers:
            assert mover.ready.wait(WAIT), f"{mover.name} did not connect"
            assert mover.error is None, mover.error
        # The baseline once the arrivals are dealt with: the slow socket has heard every mover join.
        slow.settimeout(WAIT)
        unheard = {mover.client_id for mover in movers}
        while unheard:
            opcode, payload = slow.read_message()
            if opcode == OP_TEXT:
                unheard -= {p["client"] for p in json.loads(payload).get("joined") or []}
        run.baseline = server.rss_bytes()
        sampler.start()

        started = time.monotonic()
        go.set()  # the slow socket reads nothing from here on
        for mover in movers:
            mover.join(120)
            assert not mover.is_alive(), f"{mover.name} still running"
            assert mover.error is None, f"{mover.name}: {mover.error!r}"
        run.moving_seconds = time.monotonic() - started
        run.rate_limited = [r for m in movers for r in m.rejects if r.get("code") == "rate_limited"]
        run.other_rejects = [r for m in movers for r in m.rejects if r.get("code") != "rate_limited"]
        run.committed = {c["id"]: c["state"] for c in server.get("/api/rooms/demo").json()["controls"]}

        # The slow socket reads again until it has caught up with the committed
        # state, then until the answer to a step of its own: whatever the server
        # still had for it (a close included) comes before that answer.
        slow.settimeout(WAIT)
        run.latest = {}
        barrier_seq = None
        while True:
            try:
                opcode, payload = slow.read_message()
            except (EOFError, ConnectionResetError):
                run.closed_with = b"(hung up without a close frame)"
                break
            except (socket.timeout, TimeoutError):
                raise AssertionError(f"the slow reader got nothing for {WAIT} s; it has {run.latest}, "
                                     f"the room {run.committed}") from None
            if opcode == OP_PING:
                continue
            if opcode == OP_CLOSE:
                run.closed_with = payload
                break
            assert opcode == OP_TEXT
            run.frames += 1
            frame = json.loads(payload)
            for change in frame.get("changes") or []:
                run.latest[change["control"]] = change["state"]
            if barrier_seq is not None and (frame.get("ack") or 0) >= barrier_seq:
                break
            if barrier_seq is None and all(run.latest.get(c) == run.committed[c] for c in ("gain", "size", "color")):
                barrier_seq = 1
                slow.send_text(json.dumps({"type": "step", "seq": barrier_seq, "control": "size", "by": 0}))
        sampler.stop.set()
        sampler.join(2)
        run.peak = max(sampler.samples + [server.rss_bytes()])
        print(f"\nslow reader: {run.frames} frames for {TOTAL_MOVES} moves in {run.moving_seconds:.1f} s; "
              f"RSS {run.baseline / 1e6:.1f} MB -> peak {run.peak / 1e6:.1f} MB; "
              f"{len(run.rate_limited)} moves rate limited")
    finally:
        sampler.stop.set()
        slow.close()
        rc = server.stop()
    assert rc == 0, f"server exited {rc} on SIGTERM"
    return run


def test_the_movers_stay_under_their_rate_limits(slow_reader_run):
    assert not slow_reader_run.other_rejects, slow_reader_run.other_rejects[:5]
    # Pacing keeps each mover under its limit; a scheduling hiccup may push a few over.
    assert len(slow_reader_run.rate_limited) < TOTAL_MOVES // 100


def test_a_slow_reader_is_not_disconnected_while_it_does_not_read(slow_reader_run):
    assert slow_reader_run.closed_with is None, slow_reader_run.closed_with


def test_a_slow_reader_eventually_gets_the_final_committed_gain(slow_reader_run):
    run = slow_reader_run
    assert run.committed["gain"] != {"value": 0.5}, "the gain drag committed nothing"
    assert run.latest.get("gain") == run.committed["gain"], (run.latest, run.committed)
    assert run.latest.get("size") == run.committed["size"]
    assert run.latest.get("color") == run.committed["color"]


def test_a_slow_reader_gets_far_fewer_frames_than_moves(slow_reader_run):
    # Without a cap on unsent kernel bytes (TCP_NOTSENT_LOWAT), the socket's send buffer
    # (autotuned up to ~4 MB) would hold a backlog of every move: ~9,500 frames here.
    assert slow_reader_run.frames < 2_000, f"{slow_reader_run.frames} frames for {TOTAL_MOVES} moves"


def test_the_server_grows_by_less_than_8_mb_while_a_reader_is_slow(slow_reader_run):
    growth = slow_reader_run.peak - slow_reader_run.baseline
    assert growth < RSS_GROWTH_LIMIT, (
        f"RSS grew {growth / 1e6:.1f} MB (baseline {slow_reader_run.baseline / 1e6:.1f} MB, "
        f"peak {slow_reader_run.peak / 1e6:.1f} MB)"
    )


def test_a_reader_that_stops_reading_is_closed_with_4008_after_the_slow_timeout(start_server, connect):
    server = start_server("--slow-timeout", "1")
    slow = RawWebSocket(server.port, "/rooms/demo?name=stalled", rcvbuf=4096)
    try:
        stalled = slow.read_json()["client"]
        mover = connect(server, name="mover", max_queue=None)
        mover.drag("gain", "begin")
        started = time.monotonic()
        i = 0
        # Moves until the stalled socket's buffers fill and it stays unwritable for 1 s.
        while not server.log_lines(rf"close {stalled} "):
            assert time.monotonic() - started < WAIT, "the stalled reader was never closed"
            i += 1
            mover.drag("gain", "move", dx=dx_for(i))
            if i % 50 == 0:
                mover.drain(0)
                mover.history.clear()
            time.sleep(1 / 250)  # the scenario: moves at 250/s, under the rate limit
        assert server.log_lines(rf"close {stalled} code=4008\b"), server.log_lines(stalled)
        assert server.log_lines(rf"^warn slow consumer {stalled}\b")
        # The socket goes: whatever was queued, then (if it fitted) the close frame, then the end.
        slow.settimeout(WAIT)
        try:
            while True:
                opcode, payload = slow.read_message()
                if opcode == OP_CLOSE:
                    assert int.from_bytes(payload[:2], "big") == 4008, payload
        except (EOFError, ConnectionResetError):
            pass
        mover.assert_alive()
    finally:
        slow.close()
