"""A man in the middle between a tandem.v1 client and a real tandem server
that corrupts what the server says in one chosen way: the fake server the
tests of `tandem-bench` use to check that its correctness checks catch a
wrong state.

- A WebSocket upgrade (`GET /rooms/ID`) is forwarded to the upstream server
  (without `Sec-WebSocket-Extensions`, so frames are never compressed); the
  101 answer is relayed back. Then client → server bytes are piped through
  untouched, and server → client frames are parsed: control frames pass
  through as they are, each text message (fragments reassembled) goes through
  the mutation and is sent on as one unmasked frame.
- Any other HTTP request (GET/POST/PUT/DELETE /api/..., /healthz) is forwarded
  with its body through `http.client`; its status and body come back, with
  `Connection: close`. (websockets' server cannot be used for this: it refuses
  request bodies, and the bench POSTs its room.)

Mutations (applied to server → client `update` frames only; the welcome is
always relayed honestly, so the client learns the true schema):

- `none`: an honest relay.
- `unsnapped`: once, after `after` update frames, one slider value in a
  `gestures` entry (else `changes`) is moved half a step off its grid.
- `out-of-range`: the same, but the value is set one step above the slider's max.
- `stale-final`: every `changes` entry to connection number `victim`
  (1-based, in the order the upgrades arrived) is dropped, so that client's
  final view differs from the server's.
- `revision-back`: once, a `changes` entry is followed, in the same frame, by a
  copy of itself with its revision one lower.
- `wrong-commit`: every slider value in `changes`, to every connection, is
  moved one step along its grid (a legal state, and the same lie to
  everyone: only a comparison with the server's own account can tell).

- `drop-welcome`: connection number `victim` never gets its welcome.
- `no-previews`: every `gestures` entry is dropped: no one sees a drag move.
- `lying-schema`: every welcome says each slider with a whole `step` has half
  that step, and, once after `after` update frames, a preview value is put
  half a real step off the grid (on the grid the welcome claims).

With `hide_snapshots=True`, `GET /api/rooms/ID` (one room, not the list) is
answered 404 by the proxy itself, as by a peer without the JSON API.

`CorruptingProxy` runs in a thread with its own asyncio loop:

    with CorruptingProxy(upstream_port, "unsnapped") as proxy:
        ... ws://127.0.0.1:{proxy.port}/rooms/bench ...
    proxy.applied   # how many times the mutation was applied

`python corrupting_proxy.py --upstream PORT [--port P] --mutation M` runs one
in the foreground.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import re
import signal
import struct
import threading
from typing import Any

# How long a wait may take before it counts as a hang (helpers.WAIT; not
# imported, so that this file also runs on its own).
WAIT = 30.0

MUTATIONS = ("none", "unsnapped", "out-of-range", "stale-final", "revision-back", "wrong-commit",
             "drop-welcome", "no-previews", "lying-schema")

OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE = 0x0, 0x1, 0x2, 0x8
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "upgrade",
              "proxy-connection", "te", "trailer"}
MAX_HEAD = 64 * 1024


class CorruptingProxy:
    """The proxy: `start()` (or `with`) listens on 127.0.0.1:`port` (0: a free one), `stop()` ends it."""

    def __init__(self, upstream_port: int, mutation: str = "none", *, upstream_host: str = "127.0.0.1",
                 port: int = 0, after: int = 100, victim: int = 1, hide_snapshots: bool = False):
        if mutation not in MUTATIONS:
            raise ValueError(f"unknown mutation {mutation!r}; one of {', '.join(MUTATIONS)}")
        self.upstream_host = upstream_host
        self.upstream_port = upstream_port
        self.mutation = mutation
        self.after = after
        self.victim = victim
        self.hide_snapshots = hide_snapshots
        self.port = port
        # What happened, for the tests (written by the loop thread only).
        self.applied = 0
        self.mutated: list[str] = []  # a line per mutation applied (the first 20)
        self.connections = 0
        self.http_requests: list[tuple[str, str, int]] = []  # method, path, status
        self.errors: list[str] = []
        self._updates = 0  # update frames relayed to any client
        self._value_corrupted = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._start_error: BaseException | None = None
        self._tasks: set[asyncio.Task] = set()

    # -- lifecycle

    def start(self) -> "CorruptingProxy":
        self._thread = threading.Thread(target=self._run, name=f"corrupting-proxy-{self.mutation}", daemon=True)
        self._thread.start()
        if not self._ready.wait(WAIT):
            raise RuntimeError(f"the corrupting proxy did not start within {WAIT} s")
        if self._start_error is not None:
            raise RuntimeError(f"the corrupting proxy did not start: {self._start_error}")
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            loop.call_soon_threadsafe(self._stop_event.set)
            thread.join(WAIT)
            if thread.is_alive():
                raise RuntimeError(f"the corrupting proxy did not stop within {WAIT} s")

    def __enter__(self) -> "CorruptingProxy":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def ws_url(self, room: str) -> str:
        return f"ws://127.0.0.1:{self.port}/rooms/{room}"

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as error:  # noqa: BLE001 - reported to start() or kept
            if not self._ready.is_set():
                self._start_error = error
                self._ready.set()
            else:
                self.errors.append(f"proxy loop: {error!r}")
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stop_event = asyncio.Event()
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port, backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stop_event.wait()
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()
        await asyncio.get_running_loop().shutdown_default_executor()

    # -- one accepted connection

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            if len(head) > MAX_HEAD:
                return
            request_line, headers = parse_head(head)
            method, path, _ = request_line.split(" ", 2)
            if headers.get("upgrade", "").lower() == "websocket":
                await self._websocket(head, reader, writer)
            else:
                await self._http(method, path, headers, reader, writer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, asyncio.CancelledError):
            pass
        except Exception as error:  # noqa: BLE001 - a proxy bug must not pass silently
            self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            close_quietly(writer)
            self._tasks.discard(task)

    async def _http(self, method: str, path: str, headers: dict[str, str],
                    reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        length = int(headers.get("content-length", "0") or 0)
        body = await reader.readexactly(length) if length else None
        if self.hide_snapshots and method == "GET" and re.fullmatch(r"/api/rooms/[^/?]+(\?.*)?", path):
            self.http_requests.append((method, path, 404))
            body404 = b'{"code":"not_found","message":"hidden by the proxy"}'
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
                         + f"Content-Length: {len(body404)}\r\nConnection: close\r\n\r\n".encode() + body404)
            await writer.drain()
            return
        forward = {name: value for name, value in headers.items() if name not in HOP_BY_HOP and name != "host"}

        def call() -> tuple[int, str, list[tuple[str, str]], bytes]:
            connection = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=WAIT)
            try:
                connection.request(method, path, body=body, headers=forward)
                response = connection.getresponse()
                return response.status, response.reason, response.getheaders(), response.read()
            finally:
                connection.close()

        status, reason, response_headers, response_body = await asyncio.to_thread(call)
        self.http_requests.append((method, path, status))
        lines = [f"HTTP/1.1 {status} {reason}"]
        lines += [f"{name}: {value}" for name, value in response_headers if name.lower() not in HOP_BY_HOP]
        lines += [f"Content-Length: {len(response_body)}", "Connection: close"]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + response_body)
        await writer.drain()

    async def _websocket(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        try:
            # No extensions: the frames must stay readable.
            kept = [line for line in head.decode("latin-1").split("\r\n")
                    if not line.lower().startswith("sec-websocket-extensions:")]
            up_writer.write("\r\n".join(kept).encode("latin-1"))
            await up_writer.drain()
            answer = await up_reader.readuntil(b"\r\n\r\n")
            writer.write(answer)
            await writer.drain()
            if not answer.startswith(b"HTTP/1.1 101"):
                await pipe(up_reader, writer)
                return
            self.connections += 1
            connection = Connection(self.connections)
            upward = asyncio.ensure_future(pipe(reader, up_writer))
            downward = asyncio.ensure_future(self._relay_frames(connection, up_reader, writer))
            try:
                await asyncio.wait({upward, downward}, return_when=asyncio.FIRST_COMPLETED)
                # One side is done: let the other finish what it has (a close
                # handshake); it ends when it is done, and stop() cancels it.
                await asyncio.wait({upward, downward}, timeout=WAIT)
            finally:
                for task in (upward, downward):
                    task.cancel()
                await asyncio.gather(upward, downward, return_exceptions=True)
        finally:
            close_quietly(up_writer)

    async def _relay_frames(self, connection: "Connection", up_reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> None:
        fragments: list[bytes] = []
        fragment_opcode = 0
        while True:
            try:
                fin, opcode, payload = await read_frame(up_reader)
            except asyncio.IncompleteReadError:
                return
            if opcode >= 0x8:  # control frames go through as they are
                writer.write(encode_frame(opcode, payload))
                await writer.drain()
                if opcode == OP_CLOSE:
                    return
                continue
            if opcode != OP_CONTINUATION:
                fragment_opcode = opcode
                fragments = []
            fragments.append(payload)
            if not fin:
                continue
            message = b"".join(fragments)
            fragments = []
            if fragment_opcode == OP_TEXT:
                message = self._mutate(connection, message)
            writer.write(encode_frame(fragment_opcode, message))
            await writer.drain()

    # -- the mutations

    def _note(self, connection: "Connection", what: str) -> None:
        self.applied += 1
        if len(self.mutated) < 20:
            self.mutated.append(f"connection {connection.number}: {what}")

    def _mutate(self, connection: "Connection", message: bytes) -> bytes:
        try:
            frame = json.loads(message)
        except ValueError:
            return message
        if not isinstance(frame, dict):
            return message
        if frame.get("type") == "welcome":
            for control in frame.get("controls") or []:
                if isinstance(control, dict) and control.get("type") == "slider":
                    connection.sliders[control.get("id")] = dict(control)
            if self.mutation == "drop-welcome" and connection.number == self.victim:
                self._note(connection, "welcome dropped")
                return b'{"type":"noop"}'
            if self.mutation == "lying-schema":
                lied = False
                for control in frame.get("controls") or []:
                    if isinstance(control, dict) and control.get("type") == "slider" and control.get("step"):
                        control["step"] = control["step"] / 2
                        lied = True
                if lied:
                    self._note(connection, "welcome: slider steps halved")
                    return json.dumps(frame, separators=(",", ":")).encode()
            return message
        if frame.get("type") != "update" or self.mutation == "none":
            return message
        self._updates += 1
        changed = False
        if self.mutation in ("unsnapped", "out-of-range", "lying-schema"):
            if self._updates > self.after and not self._value_corrupted:
                changed = self._corrupt_a_value(connection, frame)
        elif self.mutation == "no-previews":
            if frame.get("gestures"):
                frame.pop("gestures")
                self._note(connection, "gestures dropped")
                changed = True
        elif self.mutation == "stale-final":
            if connection.number == self.victim and frame.get("changes"):
                dropped = frame.pop("changes")
                self._note(connection, f"dropped changes {json.dumps(dropped)}")
                changed = True
        elif self.mutation == "wrong-commit":
            changed = self._shift_commits(connection, frame)
        elif self.mutation == "revision-back":
            if self.applied == 0:
                changed = self._send_revision_back(connection, frame)
        return json.dumps(frame, separators=(",", ":")).encode() if changed else message

    def _corrupt_a_value(self, connection: "Connection", frame: dict) -> bool:
        for key in ("gestures", "changes"):
            for entry in frame.get(key) or []:
                schema = connection.sliders.get(entry.get("control"))
                state = entry.get("state")
                if schema is None or not isinstance(state, dict) or not isinstance(state.get("value"), (int, float)):
                    continue
                value = state["value"]
                step = schema.get("step")
                if self.mutation in ("unsnapped", "lying-schema"):
                    if not step:
                        continue  # a slider without a step has no grid to leave
                    wrong = value + step / 2 if value + step / 2 <= schema["max"] else value - step / 2
                else:
                    wrong = schema["max"] + (step or 1)
                state["value"] = wrong
                self._value_corrupted = True
                self._note(connection, f"{key} {entry.get('control')}: value {value} -> {wrong}")
                return True
        return False

    def _shift_commits(self, connection: "Connection", frame: dict) -> bool:
        changed = False
        for entry in frame.get("changes") or []:
            schema = connection.sliders.get(entry.get("control"))
            state = entry.get("state")
            if schema is None or not isinstance(state, dict) or not isinstance(state.get("value"), (int, float)):
                continue
            value, step = state["value"], schema.get("step") or (schema["max"] - schema["min"]) / 100
            wrong = value + step if value + step <= schema["max"] else value - step
            state["value"] = wrong
            self._note(connection, f"changes {entry.get('control')}: value {value} -> {wrong}")
            changed = True
        return changed

    def _send_revision_back(self, connection: "Connection", frame: dict) -> bool:
        changes = frame.get("changes") or []
        for entry in changes:
            rev = entry.get("rev")
            if isinstance(rev, int) and rev >= 1:
                stale = dict(entry, rev=rev - 1)
                changes.insert(changes.index(entry) + 1, stale)
                self._note(connection, f"changes {entry.get('control')}: rev {rev} followed by rev {rev - 1}")
                return True
        return False


class Connection:
    """What the proxy knows of one relayed WebSocket: its number and the sliders its welcome described."""

    def __init__(self, number: int):
        self.number = number
        self.sliders: dict[str, dict] = {}


# -- HTTP and WebSocket framing


def parse_head(head: bytes) -> tuple[str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return lines[0], headers


async def read_frame(reader: asyncio.StreamReader) -> tuple[bool, int, bytes]:
    b0, b1 = await reader.readexactly(2)
    fin, opcode = bool(b0 & 0x80), b0 & 0x0F
    if b0 & 0x70:
        raise ConnectionError("a frame with RSV bits set: an extension was negotiated")
    masked, length = bool(b1 & 0x80), b1 & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", await reader.readexactly(8))
    mask = await reader.readexactly(4) if masked else b""
    payload = await reader.readexactly(length)
    if masked:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return fin, opcode, payload


def encode_frame(opcode: int, payload: bytes) -> bytes:
    """One unmasked (server → client) frame with FIN set."""
    n = len(payload)
    header = bytearray([0x80 | opcode])
    if n < 126:
        header.append(n)
    elif n < 65536:
        header.append(126)
        header += struct.pack("!H", n)
    else:
        header.append(127)
        header += struct.pack("!Q", n)
    return bytes(header) + payload


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        try:
            if writer.can_write_eof():
                writer.write_eof()
        except (OSError, RuntimeError):
            pass


def close_quietly(writer: asyncio.StreamWriter) -> None:
    try:
        writer.close()
    except (OSError, RuntimeError):
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", type=int, required=True, help="the tandem server's port on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="where to listen (0: a free port)")
    parser.add_argument("--mutation", choices=MUTATIONS, default="none")
    parser.add_argument("--after", type=int, default=100, help="update frames relayed before a value is corrupted")
    parser.add_argument("--hide-snapshots", action="store_true", help="answer GET /api/rooms/ID with 404")
    parser.add_argument("--victim", type=int, default=1, help="stale-final, drop-welcome: the connection (1-based) whose changes are dropped")
    args = parser.parse_args()
    proxy = CorruptingProxy(args.upstream, args.mutation, port=args.port, after=args.after, victim=args.victim,
                            hide_snapshots=args.hide_snapshots)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    proxy.start()
    print(f"corrupting proxy ({args.mutation}) on ws://127.0.0.1:{proxy.port} -> 127.0.0.1:{args.upstream}", flush=True)
    try:
        stop.wait()
    finally:
        proxy.stop()
        print(f"applied {proxy.applied}: " + "; ".join(proxy.mutated), flush=True)


if __name__ == "__main__":
    main()
