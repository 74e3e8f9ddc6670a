"""A real Redis and several `tandem --redis` nodes for the cluster tests (docs/scale-out.md).

`RedisServer` starts Debian's `redis-server` on a free port in a temporary
folder, with the append-only file on (as the compose file sets it), so that a
restart keeps what was written; it can be stopped and started again on the
same port. `Cluster` starts nodes against it and finds a room's owner.
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from helpers import START_WAIT, WAIT, TandemServer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    def __init__(self, folder: Path, port: int | None = None):
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            raise RuntimeError("redis-server is not installed (make test-deps installs Debian's redis-server)")
        self.folder = folder
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no",
             "--logfile", str(self.folder / "redis.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_WAIT
        while time.monotonic() < deadline:
            if self.ping():
                return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer on port {self.port}: {self.log()}")

    def log(self) -> str:
        path = self.folder / "redis.log"
        return path.read_text()[-2000:] if path.exists() else ""

    def ping(self) -> bool:
        try:
            return self.command("PING") == "PONG"
        except OSError:
            return False

    def command(self, *args: str) -> object:
        """One command over RESP, for checks: strings, integers, arrays (nested), None."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=WAIT) as sock:
            payload = f"*{len(args)}\r\n" + "".join(f"${len(a.encode())}\r\n{a}\r\n" for a in args)
            sock.sendall(payload.encode())
            reader = sock.makefile("rb")
            return _read_reply(reader)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def _read_reply(reader) -> object:
    line = reader.readline()
    if not line:
        raise OSError("redis closed the connection")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = reader.read(n + 2)[:-2]
        return data.decode("utf-8", "replace")
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [_read_reply(reader) for _ in range(n)]
    raise RuntimeError(f"unexpected reply {line!r}")


class Cluster:
    """Nodes started with `--redis` against one Redis."""

    def __init__(self, binary: Path, redis: RedisServer, started: list[TandemServer]):
        self.binary = binary
        self.redis = redis
        self.nodes: list[TandemServer] = []
        self._started = started

    def start_node(self, name: str, *flags: str) -> TandemServer:
        node = TandemServer(self.binary, ["--redis", self.redis.url, "--node-id", name, *flags])
        node.name = name  # type: ignore[attr-defined]
        self.nodes.append(node)
        self._started.append(node)
        return node

    def owner(self, room: str = "demo") -> str | None:
        holder = self.redis.command("GET", f"tandem:{{{room}}}:lease")
        return holder.split(" ")[0] if isinstance(holder, str) else None

    def lease_ms(self, room: str = "demo") -> int:
        """What is left of the room's lease in ms (Redis' PTTL: -2 when there is none, -1 when it never lapses)."""
        return int(self.redis.command("PTTL", f"tandem:{{{room}}}:lease"))

    def wait_owner(self, room: str = "demo", other_than: str | None = None, timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            owner = self.owner(room)
            if owner is not None and owner != other_than:
                return owner
            time.sleep(0.02)
        raise AssertionError(f"no owner of {room} (other than {other_than}) within {timeout} s")

    def node(self, name: str) -> TandemServer:
        return next(n for n in self.nodes if n.name == name)  # type: ignore[attr-defined]

    def history(self, room: str = "demo") -> list[dict]:
        """Every commit in Redis' log: (revision, control, state) in log order."""
        entries = self.redis.command("XRANGE", f"tandem:{{{room}}}:log", "-", "+")
        out = []
        for entry_id, fields in entries or []:
            values = dict(zip(fields[::2], fields[1::2]))
            out.append({"rev": int(entry_id.split("-")[0]), "control": values["control"],
                        "state": json.loads(values["state"]), "client": values["client"]})
        return out
