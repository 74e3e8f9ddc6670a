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
import time
from pathlib import Path

from helpers import START_WAIT, WAIT, TandemServer  # first: it puts the repository root on sys.path
from pytests.support import LoggedProcess, free_port, redis_command


class RedisServer:
    """`redis-server` on 127.0.0.1:`port` (a free one unless given) with its data
    and its log (`redis.log`) in `folder`; `extra`: more arguments (`--replicaof
    HOST PORT`). Started at once; `stop()` and `start()` again keep the port and
    the data."""

    program = "redis-server"

    def __init__(self, folder: Path, port: int | None = None, extra: tuple[str, ...] = ()):
        self.binary = shutil.which(self.program)
        if self.binary is None:
            raise RuntimeError(f"{self.program} is not installed (make test-deps installs Debian's {self.program})")
        self.folder = folder
        self.port = port or free_port()
        self.extra = tuple(extra)
        self.process = LoggedProcess(folder / self.log_name(), self.program)
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def proc(self):
        """The running `subprocess.Popen` (to pause it: `proc.send_signal(signal.SIGSTOP)`)."""
        return self.process.proc

    @property
    def log_path(self) -> Path:
        return self.process.log

    def log_name(self) -> str:
        return "redis.log"

    def arguments(self) -> list[str]:
        """The command line; the log goes to stdout (`--logfile ""`), which the log file takes."""
        return [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
                "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no",
                "--logfile", "", *self.extra]

    def start(self) -> None:
        """Starts it and waits until it answers PING."""
        self.process.start(self.arguments())
        self.process.wait_for(self.ping, START_WAIT, f"{self.program} answering PING on port {self.port}")

    def log(self) -> str:
        return self.process.log_text(3000)

    def ping(self) -> bool:
        try:
            return self.command("PING") == "PONG"
        except (OSError, RuntimeError):
            return False

    def command(self, *args: str) -> object:
        """One command over RESP, for checks: strings, integers, arrays (nested), None."""
        return redis_command("127.0.0.1", self.port, *args, timeout=WAIT)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Sends `sig` (SIGTERM: a clean shutdown) and waits for the exit; SIGKILL past WAIT s."""
        self.process.stop(sig, WAIT)


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
