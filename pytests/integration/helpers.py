"""Helpers for Tandem's integration tests: the server process, a tandem.v1
client over websockets' sync API, a hand-made WebSocket over a bare socket,
HTTP and Prometheus parsing.

Nothing here knows about pytest; the fixtures in conftest.py build on it.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import shutil
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterable

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

ROOT = Path(__file__).resolve().parents[2]
# This file is imported by its name from its folder (conftest.py, the client
# library's tests, bench scripts): the repository root on sys.path lets it,
# and what imports it, use the suites' shared pytests.support.
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from pytests.support import START_WAIT, WAIT, Lines, stop, wait_until  # noqa: E402  (re-exported for the tests)

SUBPROTOCOL = "tandem.v1"
START_LINE = re.compile(r'^(?:info |\{"time":"[^"]*","level":"info","message":")'  # text, or --log-format json
                        r"tandem listening on https?://\S+?:(\d+) rooms=")

Frame = dict[str, Any]
Predicate = Callable[[Frame], bool]


# --------------------------------------------------------------------------
# The server process
# --------------------------------------------------------------------------


class ServerStartError(RuntimeError):
    pass


class TandemServer:
    """A running `tandem --port 0 ...`, its stderr collected line by line by a reader thread."""

    def __init__(self, binary: Path, flags: Iterable[str] = (), cwd: Path = ROOT, start_timeout: float = START_WAIT):
        self.flags = list(flags)
        if "--data" not in self.flags:
            self.flags += ["--data", ":memory:"]  # each test starts from the initial rooms
        self.proc = subprocess.Popen(
            [str(binary), "--port", "0", *self.flags],
            cwd=str(cwd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        self._stderr = Lines(self.proc, self.proc.stderr, "stderr")
        self.stderr_lines = self._stderr.lines
        try:
            line = self.wait_for_log(START_LINE.search, timeout=start_timeout)
        except AssertionError as error:
            stop(self.proc, signal.SIGKILL, timeout=5)
            raise ServerStartError(f"no start line within {start_timeout} s: {error}") from None
        self.port = int(START_LINE.search(line).group(1))
        self.tls = "listening on https://" in line  # --tls-cert: https:// and wss://
        self.http = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
        self.url = self.ws_url("demo")

    # -- stderr

    def wait_for_log(self, predicate: Callable[[str], Any] | str, timeout: float = WAIT, start: int = 0) -> str:
        """The first stderr line from index `start` on that matches `predicate` (a callable or a regex)."""
        return self._stderr.wait_for(predicate, timeout, start)

    def log_lines(self, pattern: str) -> list[str]:
        return self._stderr.matching(pattern)

    # -- URLs

    def ws_url(self, room: str = "demo", **query: str) -> str:
        url = f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.port}/rooms/{room}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        return url

    # -- lifecycle

    @property
    def pid(self) -> int:
        return self.proc.pid

    def running(self) -> bool:
        return self.proc.poll() is None

    def send_signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def wait_exit(self, timeout: float = WAIT) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = WAIT) -> int | None:
        """Sends `sig` and waits up to `timeout` s; the exit status, or None (then the process is killed)."""
        rc = stop(self.proc, sig, timeout)
        self._stderr.join(2)
        return rc

    def rss_bytes(self) -> int:
        """Resident set size from /proc/PID/status (VmRSS)."""
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS in /proc status")

    # -- HTTP

    def request(self, method: str, path: str, body: bytes | str | None = None,
                headers: dict[str, str] | None = None, timeout: float = WAIT) -> "HTTPResponse":
        return http_request(self.port, method, path, body, headers, timeout)

    def get(self, path: str) -> "HTTPResponse":
        return self.request("GET", path)

    def metrics(self) -> dict[str, float]:
        response = self.get("/metrics")
        assert response.status == 200, response
        return parse_prometheus(response.text)

    def wait_metric(self, name: str, predicate: Callable[[float], bool], timeout: float = WAIT) -> float:
        """Polls /metrics until sample `name` exists and satisfies `predicate`; its value."""
        last: list[float | None] = [None]

        def holds() -> bool:
            last[0] = self.metrics().get(name)
            return last[0] is not None and predicate(last[0])

        try:
            wait_until(holds, timeout)
        except AssertionError:
            raise AssertionError(f"{name} = {last[0]} after {timeout} s") from None
        return last[0]  # type: ignore[return-value]

    def wait_housekeeping(self, runs: int = 1, timeout: float = WAIT) -> None:
        """Returns once the server's housekeeping (every 250 ms: expired tokens,
        lapsed holds, slow consumers, rate-limit windows) has run `runs` whole
        times after this call: whatever a run does about the state as of now is
        done. Read from tandem_event_loop_lag_seconds_count, which each run
        observes first: the run counted C+1 started after the count C was read,
        and ended before run C+2 started."""
        now = self.metrics()["tandem_event_loop_lag_seconds_count"]
        self.wait_metric("tandem_event_loop_lag_seconds_count", lambda count: count >= now + runs + 1, timeout)


class HTTPResponse:
    def __init__(self, status: int, headers: dict[str, str], body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def __repr__(self) -> str:
        return f"HTTPResponse({self.status}, {self.headers!r}, {self.body[:300]!r})"


def http_request(port: int, method: str, path: str, body: bytes | str | None = None,
                 headers: dict[str, str] | None = None, timeout: float = WAIT) -> HTTPResponse:
    """One request via urllib.request; HTTP errors are answers too. The path is sent as given."""
    data = body.encode() if isinstance(body, str) else body
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method, headers=headers or {})
    if data is not None and "Content-Type" not in (headers or {}):
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return HTTPResponse(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    except urllib.error.HTTPError as error:
        return HTTPResponse(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())


def raw_http_get(port: int, path: str, timeout: float = WAIT) -> HTTPResponse | None:
    """A GET with the path exactly as written (no normalisation); None if the server hung up without answering."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.putrequest("GET", path, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return HTTPResponse(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    except (http.client.RemoteDisconnected, ConnectionResetError, http.client.BadStatusLine):
        return None
    finally:
        connection.close()


def parse_prometheus(text: str) -> dict[str, float]:
    """`name{labels}` → value for every sample line of a Prometheus text exposition."""
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)", line)
        assert match, f"not a Prometheus sample line: {line!r}"
        samples[match.group(1)] = float(match.group(2))
    return samples


# --------------------------------------------------------------------------
# A tandem.v1 client
# --------------------------------------------------------------------------


def open_websocket(url: str, subprotocols: list[str] | None = (SUBPROTOCOL,), **kwargs: Any):
    """A context manager for websockets' sync connection to `url` offering `subprotocols` (None: offers none).

    Use as `with open_websocket(url) as ws: ...`.
    """
    kwargs.setdefault("open_timeout", WAIT)
    kwargs.setdefault("close_timeout", 2)
    return ws_connect(url, subprotocols=list(subprotocols) if subprotocols else None, legacy=False, **kwargs)


class Client:
    """A tandem.v1 client: reads the welcome, numbers its messages, keeps every frame it received.

    `history` holds every frame after the welcome; `expect` looks through it
    from a mark before reading more, so a frame that carried two things can
    satisfy two expectations.
    """

    def __init__(self, ws):
        self.ws = ws
        self.seq = 0
        self.history: list[Frame] = []
        self._mark = 0
        self.welcome = self._recv_json(WAIT)
        assert self.welcome.get("type") == "welcome", f"first frame is not a welcome: {self.welcome}"
        self.id: str = self.welcome["client"]

    # -- sending

    def send_json(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def message(self, type_: str, control: str, **fields: Any) -> int:
        """Sends a message of `type_` with the next seq; returns that seq. A field set to None is left out."""
        self.seq += 1
        message = {"type": type_, "seq": self.seq, "control": control}
        message.update({k: v for k, v in fields.items() if v is not None})
        self.send_json(message)
        return self.seq

    def drag(self, control: str, phase: str, thumb: str | None = None, **pointer: Any) -> int:
        return self.message("drag", control, thumb=thumb, phase=phase, **pointer)

    def set(self, control: str, value: Any, thumb: str | None = None) -> int:
        return self.message("set", control, thumb=thumb, value=value)

    def step(self, control: str, by: Any, thumb: str | None = None) -> int:
        return self.message("step", control, thumb=thumb, by=by)

    # -- receiving

    def _recv_json(self, timeout: float) -> Frame:
        raw = self.ws.recv(timeout=timeout)
        assert isinstance(raw, str), f"expected a text frame, got {type(raw).__name__}: {raw!r:.200}"
        frame = json.loads(raw)
        assert isinstance(frame, dict), f"a frame is not a JSON object: {raw:.200}"
        return frame

    def recv(self, timeout: float = WAIT) -> Frame:
        frame = self._recv_json(timeout)
        self.history.append(frame)
        return frame

    def mark(self) -> int:
        """From now on, `expect` looks only at frames received after this point (returned as an index)."""
        self._mark = len(self.history)
        return self._mark

    def expect(self, predicate: Predicate, timeout: float = WAIT, since: int | None = None, what: str = "") -> Frame:
        """The first frame from `since` (default: the last mark) that matches, reading more as needed."""
        start = self._mark if since is None else since
        for frame in self.history[start:]:
            if predicate(frame):
                return frame
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                frame = self.recv(remaining)
            except TimeoutError:
                break
            if predicate(frame):
                return frame
        seen = "\n".join(json.dumps(f)[:400] for f in self.history[start:][-15:])
        raise AssertionError(f"{self.id}: no frame {what or 'matching'} within {timeout} s; frames since mark:\n{seen}")

    def drain(self, ms: float = 200) -> list[Frame]:
        """Every frame that arrives within `ms` milliseconds of the last one (or of now).

        Not a proof that nothing more is coming (a loaded server may be slower
        than `ms`): for that, use `barrier`."""
        frames = []
        while True:
            try:
                frames.append(self.recv(ms / 1000))
            except TimeoutError:
                return frames

    def expect_ack(self, seq: int, timeout: float = WAIT) -> Frame:
        return self.expect(lambda f: f.get("type") == "update" and f.get("ack") == seq, timeout, what=f"with ack {seq}")

    def expect_answer(self, seq: int, timeout: float = WAIT) -> Frame:
        """The server's answer to message `seq`: an update acknowledging it (or a later one), or its reject."""
        def match(f: Frame) -> bool:
            return (f.get("type") == "update" and isinstance(f.get("ack"), int) and f["ack"] >= seq) \
                or (f.get("type") == "reject" and f.get("seq") == seq)
        return self.expect(match, timeout, what=f"answering seq {seq}")

    def barrier(self, control: str = "size") -> Frame:
        """Sends a harmless `step` by 0 and waits for its answer (an ack; a
        reject in a room without `control`). The server answers a client's
        messages in order, and an ack carries what was pending for this client,
        so every frame the server meant for this client on account of what it
        had received before is in `history` once this returns: assert that
        nothing unwanted came *after* this, not after a sleep."""
        return self.expect_answer(self.step(control, 0))

    def expect_reject(self, code: str, seq: Any = ..., timeout: float = WAIT) -> Frame:
        def match(f: Frame) -> bool:
            return f.get("type") == "reject" and f.get("code") == code and (seq is ... or f.get("seq") == seq)
        return self.expect(match, timeout, what=f"reject {code} seq={seq}")

    def assert_alive(self, control: str = "size") -> None:
        """The connection still works: a harmless `step` by 0 is acknowledged."""
        seq = self.step(control, 0)
        self.expect_ack(seq)
        assert self.ws.close_code is None

    def wait_closed(self, timeout: float = WAIT) -> tuple[int | None, str | None]:
        """Reads until the server closes; returns the close code and reason it sent."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.recv(max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                break
            except ConnectionClosed:
                return close_of(self.ws)
        raise AssertionError(f"{self.id}: still open after {timeout} s")

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass


def close_of(ws) -> tuple[int | None, str | None]:
    """The close code and reason the server sent (None when none was received)."""
    received = ws.protocol.close_rcvd
    if received is None:
        return None, None
    return received.code, received.reason


def wait_closed(ws, timeout: float = WAIT) -> tuple[int | None, str | None]:
    """Reads raw messages until the connection closes; the close the server sent."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            ws.recv(timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            break
        except ConnectionClosed:
            return close_of(ws)
    raise AssertionError(f"still open after {timeout} s")


# -- frame contents


def gestures(frame: Frame) -> list[Frame]:
    return (frame.get("gestures") or []) if frame.get("type") == "update" else []


def changes(frame: Frame) -> list[Frame]:
    return (frame.get("changes") or []) if frame.get("type") == "update" else []


def find_gesture(frame: Frame, control: str, thumb: str | None = None, by: str | None = None,
                 phase: str | Iterable[str] | None = None, state: Callable[[dict], bool] | None = None) -> Frame | None:
    phases = {phase} if isinstance(phase, str) else set(phase) if phase is not None else None
    found = None
    for entry in gestures(frame):
        if entry.get("control") != control:
            continue
        if thumb is not None and entry.get("thumb") != thumb:
            continue
        if by is not None and entry.get("by") != by:
            continue
        if phases is not None and entry.get("phase") not in phases:
            continue
        if state is not None and not state(entry.get("state", {})):
            continue
        found = entry
    return found


def find_change(frame: Frame, control: str, by: str | None = None,
                state: Callable[[dict], bool] | None = None) -> Frame | None:
    found = None
    for entry in changes(frame):
        if entry.get("control") != control:
            continue
        if by is not None and entry.get("by") != by:
            continue
        if state is not None and not state(entry.get("state", {})):
            continue
        found = entry
    return found


def has_gesture(control: str, **kwargs: Any) -> Predicate:
    return lambda frame: find_gesture(frame, control, **kwargs) is not None


def has_change(control: str, **kwargs: Any) -> Predicate:
    return lambda frame: find_change(frame, control, **kwargs) is not None


def close_to(expected: float, tolerance: float = 1e-9) -> Callable[[float], bool]:
    return lambda x: isinstance(x, (int, float)) and abs(x - expected) <= tolerance


def value_is(expected: float, key: str = "value") -> Callable[[dict], bool]:
    return lambda state: close_to(expected)(state.get(key))


def control_of(welcome: Frame, control: str) -> Frame:
    for entry in welcome["controls"]:
        if entry["id"] == control:
            return entry
    raise AssertionError(f"no control {control} in {welcome}")


# --------------------------------------------------------------------------
# A WebSocket by hand over a bare TCP socket
# --------------------------------------------------------------------------

OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class RawWebSocket:
    """A WebSocket client that does only what it is told: it never answers a ping by itself.

    The handshake is written by hand; frames are parsed by hand (server
    frames are unmasked; 7-bit, 16-bit and 64-bit lengths).
    """

    def __init__(self, port: int, path: str = "/rooms/demo", rcvbuf: int | None = None,
                 subprotocol: str | None = SUBPROTOCOL, timeout: float = WAIT):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            # Before connect, so the window advertised in the handshake is already small.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.buffer = bytearray()
        self.closed = False
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if subprotocol:
            lines.append(f"Sec-WebSocket-Protocol: {subprotocol}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"closed during the handshake: {bytes(self.buffer)!r}")
            self.buffer += chunk
        head, _, rest = bytes(self.buffer).partition(b"\r\n\r\n")
        self.buffer = bytearray(rest)
        status, *header_lines = head.decode("latin-1").split("\r\n")
        assert status.startswith("HTTP/1.1 101"), f"handshake refused: {head!r}"
        self.headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        assert self.headers.get("sec-websocket-accept") == accept, self.headers

    def settimeout(self, timeout: float | None) -> None:
        self.sock.settimeout(timeout)

    def _fill(self, n: int) -> None:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                self.closed = True
                raise EOFError("connection closed by the server")
            self.buffer += chunk

    def read_frame(self) -> tuple[bool, int, bytes]:
        """One frame: (fin, opcode, payload). Raises EOFError at end of stream, TimeoutError on timeout."""
        self._fill(2)
        b0, b1 = self.buffer[0], self.buffer[1]
        fin, opcode = bool(b0 & 0x80), b0 & 0x0F
        masked, length = bool(b1 & 0x80), b1 & 0x7F
        offset = 2
        if length == 126:
            self._fill(4)
            (length,) = struct.unpack_from("!H", self.buffer, 2)
            offset = 4
        elif length == 127:
            self._fill(10)
            (length,) = struct.unpack_from("!Q", self.buffer, 2)
            offset = 10
        mask = b""
        if masked:
            self._fill(offset + 4)
            mask = bytes(self.buffer[offset:offset + 4])
            offset += 4
        self._fill(offset + length)
        payload = bytes(self.buffer[offset:offset + length])
        del self.buffer[:offset + length]
        if masked:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return fin, opcode, payload

    def read_message(self) -> tuple[int, bytes]:
        """The next data message (reassembled) or control frame, as (opcode, payload). Pings are returned, not answered."""
        fin, opcode, payload = self.read_frame()
        if opcode >= 0x8 or fin:
            return opcode, payload
        parts = [payload]
        while True:
            fin, op, more = self.read_frame()
            if op >= 0x8:
                continue  # a control frame between fragments; this client ignores it
            parts.append(more)
            if fin:
                return opcode, b"".join(parts)

    def read_json(self) -> Frame:
        """The next text message as JSON, skipping control frames."""
        while True:
            opcode, payload = self.read_message()
            if opcode == OP_TEXT:
                return json.loads(payload)
            if opcode == OP_CLOSE:
                raise EOFError(f"close frame {payload!r}")

    def send_frame(self, opcode: int, payload: bytes, fin: bool = True) -> None:
        header = bytearray([(0x80 if fin else 0) | opcode])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header.append(0x80 | 126)
            header += struct.pack("!H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", n)
        mask = os.urandom(4)
        header += mask
        self.sock.sendall(bytes(header) + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def send_text(self, text: str) -> None:
        self.send_frame(OP_TEXT, text.encode())

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def healthz(port: int, host: str = "127.0.0.1", timeout: float = WAIT) -> int | None:
    """The status of one GET /healthz on a fresh connection, or None when it got no answer."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while b"\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    return None
                data += chunk
            return int(data.split(b" ", 2)[1])
    except (OSError, ValueError):
        return None


def flood_until_closed(raw: "RawWebSocket", seconds: float, first_seq: int = 1) -> tuple[int | None, int]:
    """Sends steps as fast as it can for up to `seconds`, while another thread
    reads what the server sends; stops when the server's close frame arrives or
    it hangs up. Returns the close code (None: no close frame) and the number sent.

    The reading matters: a client that reads nothing fills its receive window
    with the server's rejects, the close frame then waits in the server's send
    queue, and a server that hangs up with unread data in its own receive queue
    sends a reset that discards it (RFC 2525): whether such a client sees the
    close is a matter of timing, not of the server's behaviour."""
    close: list[int | None] = []

    def read() -> None:
        raw.settimeout(seconds + 5)
        try:
            while True:
                opcode, payload = raw.read_message()
                if opcode == OP_CLOSE:
                    close.append(int.from_bytes(payload[:2], "big"))
                    return
        except (EOFError, OSError):
            close.append(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    sent = 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline and not close:
            for _ in range(50):
                raw.send_text(json.dumps({"type": "step", "seq": first_seq + sent, "control": "size", "by": 0}))
                sent += 1
    except OSError:
        pass  # the server hung up
    reader.join(seconds + 6)
    return (close[0] if close else None), sent


def copy_binary(source: Path, folder: Path, name: str) -> Path | None:
    """Copies an executable aside (a rebuild during the tests cannot swap it),
    retrying while a build holds the file; `None` if it cannot be copied."""
    copy = folder / name
    for _ in range(10):
        try:
            shutil.copy2(source, copy)
            copy.chmod(0o755)
            return copy
        except OSError:
            time.sleep(3)
    return None
