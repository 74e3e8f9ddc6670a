#!/usr/bin/env python3
"""A Tandem cluster on one machine, for trying it (`make cluster`): Redis, N
`tandem` nodes and HAProxy in front of them, from Debian's packages, no Docker.

    python3 scripts/cluster.py [--nodes 3] [--port 8080] [--binary PATH] [--data DIR]
                               [--host ADDR] [--redis-port N] [-- NODE FLAGS...]

- Redis on 127.0.0.1 (a free port unless --redis-port), AOF on (`appendonly
  yes`, `appendfsync everysec`), its files in DIR/redis: a commit Redis
  accepted survives a restart of the cluster.
- Node K (n1..nN) on 127.0.0.1:PORT+K: `tandem --node-id nK --redis URL`,
  running in DIR/nK (its log there too). Flags after `--` go to every node
  (e.g. `-- --auth-secret-file secrets/tandem_auth_secret`).
- HAProxy on ADDR:PORT (default 127.0.0.1:8080), its config written to
  DIR/haproxy.cfg from the same template as deploy/haproxy.cfg: consistent
  hashing on the path, so a room's members land on one node; /healthz checks.

Prints a line starting with `ready:` once every node answers /healthz 200,
HAProxy sees them all up and answers /healthz 200 itself. Ctrl-C or SIGTERM
stops HAProxy, then the nodes, then Redis, each with SIGTERM. A node that
exits meanwhile (killed to watch a failover, say) is reported and the rest
keep running; when HAProxy exits the whole cluster stops.

Python 3 standard library only (and pytests/support/ports.py, which is too).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # for pytests/support (standard library only too)
    sys.path.append(str(ROOT))
from pytests.support.ports import free_port  # noqa: E402

DEFAULT_BINARY = ROOT / ".build" / "release" / "tandem"
DEFAULT_DATA = ROOT / "data" / "cluster"
BACKEND = "tandem_nodes"
START_TIMEOUT = 30.0  # seconds for each process to come up
STOP_TIMEOUT = 10.0  # seconds for each process to exit after SIGTERM (tandem takes at most 5)


class Failure(Exception):
    """What went wrong, said to the person running the cluster."""


class Stop(Exception):
    """SIGINT or SIGTERM arrived."""


# --------------------------------------------------------------------------
# HAProxy's config
# --------------------------------------------------------------------------


def haproxy_config(nodes: list[tuple[str, int]], bind_host: str, bind_port: int, stats_socket: Path | None = None) -> str:
    """The config for `make cluster`: deploy/haproxy.cfg's settings, with the nodes on 127.0.0.1.

    `nodes` holds (name, port) pairs. The stats socket lets this script see
    when HAProxy counts every node up.
    """
    bind = f"[{bind_host}]" if ":" in bind_host else bind_host
    stats = f"    stats socket {stats_socket} mode 600 level user\n" if stats_socket else ""
    servers = "".join(f"    server {name} 127.0.0.1:{port}\n" for name, port in nodes)
    return f"""# Written by scripts/cluster.py (make cluster); deploy/haproxy.cfg is its compose twin.
global
    log stdout format raw local0 info
{stats}
defaults
    mode http
    log global
    option httplog
    option dontlognull
    option forwardfor
    option redispatch
    retries 3
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout http-request 10s
    timeout http-keep-alive 10s
    timeout queue 10s
    timeout tunnel 1h
    timeout client-fin 5s
    timeout server-fin 5s

frontend tandem
    bind {bind}:{bind_port}
    default_backend {BACKEND}

backend {BACKEND}
    balance uri
    hash-type consistent
    option httpchk GET /healthz
    http-check expect status 200
    default-server check inter 500ms fall 2 rise 2
{servers}"""


# --------------------------------------------------------------------------
# Checks before anything starts
# --------------------------------------------------------------------------


def check_programs(binary: Path) -> None:
    if not binary.is_file():
        raise Failure(f"no tandem binary at {binary}: build it with `make release` "
                      "(or `swift build -c release --product tandem`), or pass --binary PATH")
    if not os.access(binary, os.X_OK):
        raise Failure(f"{binary} is not executable: pass --binary with a tandem binary")
    for program in ("redis-server", "haproxy"):
        if shutil.which(program) is None:
            raise Failure(f"{program} is not installed: `apt-get install redis-server haproxy` "
                          "(make cluster installs them)")


def check_cluster_support(binary: Path) -> None:
    """The binary must know --redis and --node-id (cluster mode)."""
    try:
        result = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise Failure(f"cannot run {binary} --help: {error}") from None
    usage = result.stdout + result.stderr
    missing = [flag for flag in ("--redis", "--node-id") if flag not in usage]
    if missing:
        raise Failure(f"{binary} has no {' or '.join(missing)} flag: it predates cluster mode; "
                      "build a current one (`make release`) or pass --binary")


def check_port_free(host: str, port: int, what: str) -> None:
    """Fails with a clear message when something already listens on `port`."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    probe = socket.socket(family, socket.SOCK_STREAM)
    try:
        # As a server binds: a port whose old connections linger in TIME_WAIT is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    except OSError as error:
        raise Failure(f"port {port} on {host} ({what}) is taken ({error.strerror}): stop what uses it "
                      f"(`ss -ltnp 'sport = :{port}'` shows it) or pick other ports with --port") from None
    finally:
        probe.close()


# --------------------------------------------------------------------------
# The processes
# --------------------------------------------------------------------------


def _die_with_parent() -> None:
    """In the child: its own session (a terminal's Ctrl-C reaches only this script,
    which stops everything in order), and SIGTERM if this script dies without
    stopping it (prctl PR_SET_PDEATHSIG), so nothing is left behind."""
    os.setsid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Child:
    """One process of the cluster, its output in a log file."""

    def __init__(self, name: str, argv: list[str], cwd: Path, log: Path):
        self.name = name
        self.argv = argv
        self.log = log
        self.reported = False
        with open(log, "wb") as out:  # each run starts its logs afresh
            self.proc = subprocess.Popen(argv, cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def running(self) -> bool:
        return self.proc.poll() is None

    def tail(self, lines: int = 15) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join("    " + line for line in text[-lines:])

    def exited_message(self) -> str:
        return f"{self.name} (pid {self.pid}) exited with status {self.proc.returncode}; its log {self.log} ends:\n{self.tail()}"


def wait_until(child: Child, ready, what: str, timeout: float = START_TIMEOUT) -> None:
    """Polls `ready()` until it is true; fails if `child` exits first or the time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        if not child.running():
            raise Failure(f"{what}: {child.exited_message()}")
        if ready():
            return
        if time.monotonic() > deadline:
            raise Failure(f"{what}: not ready within {timeout:.0f} s; {child.name}'s log {child.log} ends:\n{child.tail()}")
        time.sleep(0.1)


def redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def healthz_ok(host: str, port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=1) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def haproxy_servers_up(stats_socket: Path, expected: int) -> bool:
    """Whether HAProxy's stats (`show stat`) count `expected` servers of the backend UP."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(1)
            conn.connect(str(stats_socket))
            conn.sendall(b"show stat\n")
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
    except OSError:
        return False
    lines = data.decode(errors="replace").splitlines()
    if not lines or not lines[0].startswith("# "):
        return False
    header = lines[0][2:].split(",")
    try:
        px, sv, status = header.index("pxname"), header.index("svname"), header.index("status")
    except ValueError:
        return False
    up = 0
    for line in lines[1:]:
        fields = line.split(",")
        if len(fields) > status and fields[px] == BACKEND and fields[sv] not in ("FRONTEND", "BACKEND"):
            up += fields[status].startswith("UP")
    return up == expected


class Cluster:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.data: Path = args.data.resolve()
        self.binary = Path(os.path.abspath(args.binary))
        self.front_host: str = args.host
        self.front_port: int = args.port
        self.node_ports = [(f"n{k}", args.port + k) for k in range(1, args.nodes + 1)]
        self.redis_port: int = args.redis_port or 0
        self.children: list[Child] = []
        self.haproxy: Child | None = None

    # -- start

    def preflight(self) -> None:
        check_programs(self.binary)
        check_port_free(self.front_host, self.front_port, "HAProxy, the cluster's front")
        for name, port in self.node_ports:
            check_port_free("127.0.0.1", port, f"node {name}")
        if self.redis_port:
            check_port_free("127.0.0.1", self.redis_port, "Redis")
        else:
            taken = {self.front_port, *(port for _, port in self.node_ports)}
            while not self.redis_port or self.redis_port in taken:
                self.redis_port = free_port()
        check_cluster_support(self.binary)

    def start(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        redis_dir = self.data / "redis"
        redis_dir.mkdir(exist_ok=True)
        redis = self.spawn("redis", ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                                     "--dir", str(redis_dir), "--appendonly", "yes", "--appendfsync", "everysec",
                                     "--save", "", "--daemonize", "no"], redis_dir)
        wait_until(redis, lambda: redis_answers(self.redis_port), f"Redis on port {self.redis_port}")
        redis_url = f"redis://127.0.0.1:{self.redis_port}/0"

        nodes = []
        for name, port in self.node_ports:
            home = self.data / name
            home.mkdir(exist_ok=True)
            # Each node in a folder of its own: whatever it keeps beside Redis stays its own.
            nodes.append(self.spawn(name, [str(self.binary), "--host", "127.0.0.1", "--port", str(port),
                                           "--node-id", name, "--redis", redis_url,
                                           "--web", str(ROOT / "web"), *self.args.node_args], home))
        for node, (name, port) in zip(nodes, self.node_ports):
            wait_until(node, lambda port=port: healthz_ok("127.0.0.1", port), f"node {name} on port {port}")

        config = self.data / "haproxy.cfg"
        stats = self.data / "haproxy.sock"
        config.write_text(haproxy_config(self.node_ports, self.front_host, self.front_port, stats))
        self.haproxy = self.spawn("haproxy", ["haproxy", "-db", "-f", str(config)], self.data)
        probe_host = "127.0.0.1" if self.front_host in ("0.0.0.0", "::", "localhost") else self.front_host
        wait_until(self.haproxy, lambda: haproxy_servers_up(stats, len(nodes)) and healthz_ok(probe_host, self.front_port),
                   f"HAProxy on port {self.front_port}")

    def spawn(self, name: str, argv: list[str], cwd: Path) -> Child:
        log = self.data / f"{name}.log"
        try:
            child = Child(name, argv, cwd, log)
        except OSError as error:
            raise Failure(f"cannot start {name} ({argv[0]}): {error}") from None
        self.children.append(child)
        return child

    def announce(self) -> None:
        shown = "localhost" if self.front_host in ("127.0.0.1", "0.0.0.0", "::", "localhost") else self.front_host
        nodes = ", ".join(f"{name} http://127.0.0.1:{port}/" for name, port in self.node_ports)
        print(f"ready: http://{shown}:{self.front_port}/ (HAProxy) -> {nodes}; "
              f"Redis redis://127.0.0.1:{self.redis_port}/0", flush=True)
        print(f"  logs, Redis' AOF and haproxy.cfg in {self.data}/", flush=True)
        print(f"  pids: " + ", ".join(f"{c.name}={c.pid}" for c in self.children), flush=True)
        print(f"  stop with Ctrl-C or `kill {os.getpid()}` (SIGTERM)", flush=True)

    # -- run

    def watch(self) -> None:
        """Until a signal: reports a process that exits; returns when HAProxy does."""
        while True:
            for child in self.children:
                if not child.running() and not child.reported:
                    child.reported = True
                    print(f"cluster: {child.exited_message()}", file=sys.stderr, flush=True)
            if self.haproxy is not None and not self.haproxy.running():
                print("cluster: HAProxy is gone, stopping the rest", file=sys.stderr, flush=True)
                return
            time.sleep(0.5)

    # -- stop

    def stop(self) -> bool:
        """HAProxy first (no new connections), then the nodes, then Redis (the
        nodes' writes land before it goes); SIGTERM each, SIGKILL past STOP_TIMEOUT.
        Whether every one exited by itself."""
        haproxy = [c for c in self.children if c.name == "haproxy"]
        redis = [c for c in self.children if c.name == "redis"]
        nodes = [c for c in self.children if c not in haproxy and c not in redis]
        clean = True
        for group in (haproxy, nodes, redis):
            for child in group:
                if child.running():
                    child.proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + STOP_TIMEOUT
            for child in group:
                try:
                    child.proc.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    print(f"cluster: {child.name} (pid {child.pid}) did not exit within {STOP_TIMEOUT:.0f} s "
                          "of SIGTERM: killed", file=sys.stderr, flush=True)
                    child.proc.kill()
                    child.proc.wait()
                    clean = False
        (self.data / "haproxy.sock").unlink(missing_ok=True)
        return clean


def parse_args(argv: list[str]) -> argparse.Namespace:
    node_args: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, node_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(
        prog="cluster.py",
        description="Redis, N tandem nodes and HAProxy on this machine (make cluster). "
                    "Flags after -- go to every node.")
    parser.add_argument("--nodes", type=int, default=3, help="tandem nodes n1..nN (default 3)")
    parser.add_argument("--port", type=int, default=8080,
                        help="HAProxy's port, the one to connect to; node K listens on PORT+K (default 8080)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address HAProxy listens on (default 127.0.0.1; 0.0.0.0 for other machines)")
    parser.add_argument("--binary", type=Path, default=DEFAULT_BINARY,
                        help=f"the tandem binary (default {DEFAULT_BINARY.relative_to(ROOT)})")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help=f"folder for Redis' files, the logs and haproxy.cfg (default {DEFAULT_DATA.relative_to(ROOT)})")
    parser.add_argument("--redis-port", type=int, default=0, help="Redis' port (default: a free one)")
    args = parser.parse_args(argv)
    if not 1 <= args.nodes <= 64:
        parser.error(f"--nodes must be from 1 to 64, not {args.nodes}")
    if not 1 <= args.port or args.port + args.nodes > 65535:
        parser.error(f"--port must leave room for {args.nodes} node port(s) after it (1 to {65535 - args.nodes}), not {args.port}")
    if not 0 <= args.redis_port <= 65535:
        parser.error(f"--redis-port must be from 0 to 65535, not {args.redis_port}")
    args.node_args = node_args
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    cluster = Cluster(args)
    stopping = False

    def on_signal(signum, frame):
        nonlocal stopping
        if stopping:
            return  # already stopping: let the order finish
        stopping = True
        raise Stop()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    status = 0
    try:
        try:
            cluster.preflight()
            cluster.start()
            cluster.announce()
            cluster.watch()
            status = 1  # HAProxy died under us
        except Failure as failure:
            print(f"cluster: error: {failure}", file=sys.stderr, flush=True)
            status = 1
        except Stop:
            pass
        stopping = True
        if cluster.children:
            print("cluster: stopping HAProxy, the nodes, then Redis", file=sys.stderr, flush=True)
    except Stop:
        pass  # a signal while reporting: stop anyway
    finally:
        stopping = True
        clean = cluster.stop()
    if cluster.children:
        print("cluster: stopped" + ("" if clean else " (some had to be killed)"), file=sys.stderr, flush=True)
    return status if clean else max(status, 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
