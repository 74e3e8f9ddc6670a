"""An OSC peer for the OSC bridge tests (test_osc.py), built on python-osc: an
OSC implementation independent of the server's (liblo), so that what the two
agree on is OSC and not one codec talking to itself.

- `OSCReceiver`: a UDP socket on a free loopback port (an `--osc-send` target)
  and a thread that parses every datagram with python-osc and keeps
  `Received(time, address, types, args)`; `time` is the kernel's arrival time
  (SO_TIMESTAMPNS) when it gives one, so that the gaps between previews are
  measured without the reader thread's scheduling.
- `OSCSender`: a UDP socket bound to a loopback port of its own (so that a
  test knows which ip:port the server sees) that sends messages and bundles
  built by python-osc, or raw bytes.

Nothing here knows about pytest or the server.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from pythonosc.osc_bundle_builder import IMMEDIATELY, OscBundleBuilder
from pythonosc.osc_message_builder import OscMessageBuilder
from pythonosc.osc_packet import OscPacket, ParseError
from pythonosc.parsing import osc_types

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; Python does not name it


@dataclass(frozen=True)
class Received:
    time: float  # seconds (CLOCK_REALTIME from the kernel, or time.time() without a timestamp)
    address: str
    types: str  # the OSC type tags without the comma, e.g. "f", "s", "i"
    args: tuple

    @property
    def arg(self) -> Any:
        assert len(self.args) == 1, self
        return self.args[0]

    def __repr__(self) -> str:
        return f"{self.address} ,{self.types} {' '.join(repr(a) for a in self.args)}"


def type_tags(dgram: bytes) -> str:
    """The type tags of one OSC message's datagram (python-osc parses but does not keep them)."""
    _, index = osc_types.get_string(dgram, 0)
    if index >= len(dgram):
        return ""
    tags, _ = osc_types.get_string(dgram, index)
    return tags[1:] if tags.startswith(",") else tags


class OSCReceiver:
    """A UDP receiver on 127.0.0.1:free port (or `host`, e.g. "::1"); `url` is its `--osc-send` value."""

    def __init__(self, host: str = "127.0.0.1"):
        self.sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.kernel_times = True
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        except OSError:
            self.kernel_times = False
        self.sock.bind((host, 0))
        self.sock.settimeout(0.1)
        self.host, self.port = self.sock.getsockname()[:2]
        self.url = f"udp://[{self.host}]:{self.port}" if ":" in self.host else f"udp://{self.host}:{self.port}"
        self.received: list[Received] = []
        self.unparsed: list[bytes] = []  # datagrams python-osc could not parse (should stay empty)
        self.bundles = 0  # datagrams that were bundles (the server sends none)
        self._cond = threading.Condition()
        self._mark = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"osc-receiver-{self.port}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data, ancillary, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(16))
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            at = time.time()
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", payload[:16])
                    at = seconds + nanoseconds / 1e9
            try:
                packet = OscPacket(data)
            except ParseError:
                with self._cond:
                    self.unparsed.append(data)
                    self._cond.notify_all()
                continue
            entries = []
            if data.startswith(b"#bundle"):
                self.bundles += 1
                for timed in packet.messages:
                    entries.append(Received(at, timed.message.address, type_tags(timed.message.dgram), tuple(timed.message.params)))
            else:
                message = packet.messages[0].message
                entries.append(Received(at, message.address, type_tags(data), tuple(message.params)))
            with self._cond:
                self.received.extend(entries)
                self._cond.notify_all()

    # -- reading

    def mark(self) -> int:
        """From now on, `since()` and `wait_for()` look only at messages received after this point."""
        with self._cond:
            self._mark = len(self.received)
            return self._mark

    def since(self, start: int | None = None) -> list[Received]:
        with self._cond:
            return list(self.received[self._mark if start is None else start:])

    def wait_for(self, predicate: Callable[[Received], bool], timeout: float = 30.0, start: int | None = None,
                 what: str = "") -> Received:
        """The first message from `start` (default: the mark) that matches, waiting up to `timeout`."""
        deadline = time.monotonic() + timeout
        index = self._mark if start is None else start
        with self._cond:
            while True:
                while index < len(self.received):
                    entry = self.received[index]
                    index += 1
                    if predicate(entry):
                        return entry
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = self.received[(self._mark if start is None else start):][-30:]
                    raise AssertionError(f"OSC receiver {self.port}: no message {what or 'matching'} within {timeout} s;"
                                         f" received since the mark: {seen}")
                self._cond.wait(min(left, 0.1))

    def wait_address(self, address: str, timeout: float = 30.0, start: int | None = None) -> Received:
        return self.wait_for(lambda m: m.address == address, timeout, start, what=address)

    def count(self) -> int:
        """How many messages have arrived so far (an index for `wait_for(start=...)`)."""
        with self._cond:
            return len(self.received)

    def quiet(self, seconds: float = 0.3, timeout: float = 5.0) -> list[Received]:
        """Waits until nothing has arrived for `seconds` (at most `timeout`); every message since the mark."""
        deadline = time.monotonic() + timeout
        with self._cond:
            count = len(self.received)
        last_change = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.02)
            with self._cond:
                if len(self.received) != count:
                    count = len(self.received)
                    last_change = time.monotonic()
            if time.monotonic() - last_change >= seconds:
                break
        return self.since()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(1)
        self.sock.close()


def dump_barrier(receivers: Iterable["OSCReceiver"], *senders: "OSCSender", room: str = "demo",
                 dump_length: int = 10, window: float = 2 / 60, timeout: float = 30.0) -> list[list[Received]]:
    """Every message each receiver got since its mark that the bridge sent before a barrier,
    the barrier's own messages left out: after `window` (longer than a preview's
    conflation window, so that a preview still pending is due), each sender in turn asks
    the node its --osc-listen belongs to for `/ROOM/dump`, and each receiver waits for that
    dump's end. A node sends to a target from one socket, in order, and loopback keeps that
    order, so whatever that node sent before the dump is in the receiver by then: the
    positive event that replaces "wait until it has been quiet a while".
    `dump_length` is the number of messages in the room's dump before its end (10 for demo)."""
    receivers = list(receivers)
    time.sleep(window)  # the scenario: a preview window passes, so that what was pending is due
    barrier: list[set[int]] = [set() for _ in receivers]
    for sender in senders:
        starts = [r.count() for r in receivers]
        sender.send(f"/{room}/dump")
        for receiver, start, own in zip(receivers, starts, barrier):
            end = receiver.wait_address(f"/{room}/dump/end", timeout=timeout, start=start)
            with receiver._cond:
                index = next(i for i in range(start, len(receiver.received)) if receiver.received[i] is end)
                dump = receiver.received[index - dump_length:index]
            assert all(m.address.startswith(f"/{room}/") for m in dump), f"not a whole dump before its end: {dump}"
            own.update(range(index - dump_length, index + 1))
    out = []
    for receiver, own in zip(receivers, barrier):
        with receiver._cond:
            out.append([m for i, m in enumerate(receiver.received) if i >= receiver._mark and i not in own])
    return out


# --------------------------------------------------------------------------
# Sending
# --------------------------------------------------------------------------


def build(address: str, *args: Any, types: str | Iterable[str | None] | None = None) -> bytes:
    """One OSC message's datagram, built by python-osc. `types` gives each argument's tag
    (e.g. "f", "i", "d", "s", "b"), or None per argument to let python-osc choose
    (a Python float is `f`, an int `i`, a str `s`, bytes `b`)."""
    builder = OscMessageBuilder(address=address)
    tags = list(types) if types is not None else [None] * len(args)
    assert len(tags) == len(args), (tags, args)
    for value, tag in zip(args, tags):
        builder.add_arg(value, tag)
    return builder.build().dgram


def build_bundle(*messages: bytes) -> bytes:
    """A bundle (time tag: immediately) of message datagrams made by `build`."""
    from pythonosc.osc_message import OscMessage

    bundle = OscBundleBuilder(IMMEDIATELY)
    for dgram in messages:
        bundle.add_content(OscMessage(dgram))
    return bundle.build().dgram


class OSCSender:
    """Sends to 127.0.0.1:`port` (the server's --osc-listen) from a socket bound to its own
    port on `source` (loopback unless told), so `source_address` is what the server sees."""

    def __init__(self, port: int, host: str = "127.0.0.1", source: str = "127.0.0.1"):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        self.sock.bind((source, 0))
        self.target = (host, port)
        self.source_address = "%s:%d" % self.sock.getsockname()[:2]

    def send(self, address: str, *args: Any, types: str | Iterable[str | None] | None = None) -> None:
        self.sock.sendto(build(address, *args, types=types), self.target)

    def send_bundle(self, *messages: bytes) -> None:
        self.sock.sendto(build_bundle(*messages), self.target)

    def send_raw(self, data: bytes) -> None:
        self.sock.sendto(data, self.target)

    def close(self) -> None:
        self.sock.close()
