"""`make bench-cluster`: what scale-out costs and how it fails over.

Two measurements, each against a fresh Redis and fresh `tandem --redis` nodes:

1. Relay hop. S2h's load (504 clients of which 4 drag, 60 Hz each:
   500 receivers) with `tandem-bench`, in three configurations per run,
   interleaved run after run:
     - "no cluster": one plain node (no --redis), the reference;
     - "one node":   one cluster node, every client on it (it owns the room);
     - "two nodes":  two cluster nodes, the clients (draggers too) round-robin
                     over both (`--also-url`): half the room on the node that
                     does not own it, its drags and its updates relayed.
   Per configuration: p50/p99, delivered share, per node its clients'
   p50/p99 and its CPU per update delivered to its own clients, Redis' CPU
   (all from the generator's report: `--pids` node..., redis).

2. Failover. Three nodes and Redis; members on every node (raw WebSocket
   clients in this script), one writer per node doing `set`s of `gain` at
   about 20 Hz and keeping every acknowledged (revision, value). Each kill:
   find the owner (GET tandem:{demo}:lease), SIGKILL it, measure per member
   on a surviving node the gap (defined below), restart the killed node with
   the same --node-id and port, wait for its /healthz and its members'
   welcomes, let the room run a second, next kill. After the last:
   XRANGE tandem:{demo}:log and check every acknowledged (rev, value) is
   there and revisions never go back: "commits lost: N".

   The gap, per surviving member and kill: from the last frame it received
   before the SIGKILL to the first frame it received after it that carries a
   change with a revision above R, where R is the highest revision in Redis'
   log once the killed process has been reaped. The killed owner can write
   nothing more, so such a change was committed by the new owner after the
   kill. Also reported: from the SIGKILL itself to that frame. Times are
   when this script read the frame (CLOCK_MONOTONIC).

Pinning (two cores): Redis and every node on core 0, the generator (or this
script's WebSocket clients) on core 1, as `make bench` pins server and
generator. See docs/benchmarks.md ("`make bench-cluster`" and "Scale-out").

    .venv/bin/python bench/cluster.py                 # 3 runs of each configuration, 20 kills
    .venv/bin/python bench/cluster.py --quick         # 1 run of 3 s, 3 kills
    python3 bench/cluster.py --only failover --kills 50 --out bench/results/cluster
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import datetime
import json
import os
import random
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import fmt, free_port, machine, median, percentile, pinned  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BENCH = ROOT / ".build" / "release" / "tandem-bench"
DEFAULT_TANDEM = ROOT / ".build" / "release" / "tandem"
ROOM = "demo"
SERVER_CORE = "0"     # Redis and the nodes
GENERATOR_CORE = "1"  # tandem-bench, or this script's clients
S2H = ("--clients", "504", "--draggers", "4", "--hz", "60")
CONFIGS = ("no cluster", "one node", "two nodes")


# --------------------------------------------------------------------------
# Processes


class Proc:
    """A child process, its output in a log file."""

    def __init__(self, name: str, argv: list[str], log: Path):
        self.name = name
        self.argv = argv
        self.log = log
        self.handle = log.open("ab")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.handle, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int | None:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.handle.close()
        return self.proc.returncode

    def tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-600:]
        except OSError:
            return ""


def healthz(port: int, timeout: float = 1.0) -> int | None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while b"\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    return None
                data += chunk
            return int(data.split(b" ", 2)[1])
    except (OSError, ValueError, IndexError):
        return None


def wait_until(check, proc: Proc, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        if not proc.alive():
            raise RuntimeError(f"{what}: {proc.name} exited ({proc.proc.returncode}): {proc.tail()}")
        time.sleep(0.05)
    raise RuntimeError(f"{what}: not within {timeout:.0f} s: {proc.tail()}")


class Redis:
    """Debian's redis-server on core 0, AOF on (everysec, as the compose file), in a temporary folder."""

    def __init__(self, folder: Path):
        self.port = free_port()
        self.folder = folder
        self.argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(folder),
                     "--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--daemonize", "no"]
        self.proc = Proc("redis", pinned(SERVER_CORE, self.argv), folder / "redis.log")
        wait_until(lambda: self.ping(), self.proc, f"Redis on port {self.port}")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def ping(self) -> bool:
        try:
            return self.command("PING") == "PONG"
        except (OSError, RuntimeError):
            return False

    def command(self, *args: str) -> Any:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            payload = f"*{len(args)}\r\n" + "".join(f"${len(a.encode())}\r\n{a}\r\n" for a in args)
            sock.sendall(payload.encode())
            return read_reply(sock.makefile("rb"))

    def owner(self, room: str = ROOM) -> str | None:
        holder = self.command("GET", f"tandem:{{{room}}}:lease")
        return holder.split(" ")[0] if isinstance(holder, str) else None

    def log(self, room: str = ROOM) -> list[tuple[int, int, dict[str, str]]]:
        """Every entry of the room's log: (revision, k, fields) in log order (ids are REV-K)."""
        out = []
        for entry_id, fields in self.command("XRANGE", f"tandem:{{{room}}}:log", "-", "+") or []:
            rev, _, k = entry_id.partition("-")
            out.append((int(rev), int(k or 0), dict(zip(fields[::2], fields[1::2]))))
        return out

    def last_revision(self, room: str = ROOM) -> int:
        last = self.command("XREVRANGE", f"tandem:{{{room}}}:log", "+", "-", "COUNT", "1")
        return int(last[0][0].split("-")[0]) if last else 0

    def stop(self) -> None:
        self.proc.stop()


def read_reply(reader) -> Any:
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
        return None if n < 0 else reader.read(n + 2)[:-2].decode("utf-8", "replace")
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [read_reply(reader) for _ in range(n)]
    raise RuntimeError(f"unexpected reply {line!r}")


def node_argv(binary: str, port: int, redis: Redis | None, name: str) -> list[str]:
    argv = [binary, "--host", "127.0.0.1", "--port", str(port), "--data", ":memory:", "--log-level", "warn"]
    if redis is not None:
        argv += ["--redis", redis.url, "--node-id", name]
    return argv


class Node:
    def __init__(self, binary: str, name: str, redis: Redis | None, folder: Path, port: int | None = None):
        self.binary = binary
        self.name = name
        self.redis = redis
        self.folder = folder
        self.port = port or free_port()
        self.proc: Proc | None = None
        self.start()

    def start(self) -> None:
        self.argv = node_argv(self.binary, self.port, self.redis, self.name)
        self.proc = Proc(self.name, pinned(SERVER_CORE, self.argv), self.folder / f"{self.name}.log")
        wait_until(lambda: healthz(self.port) == 200, self.proc, f"node {self.name} /healthz on port {self.port}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


# --------------------------------------------------------------------------
# Pure parts: statistics and the markdown


def spread(values: list[float]) -> dict[str, float | None]:
    return {"count": len(values), "min": min(values) if values else None, "median": median(values),
            "p95": percentile(values, 95), "max": max(values) if values else None}


def relay_metrics(report: dict, owner: str | None, names: list[str], redis_pid: int | None) -> dict:
    """One run's numbers from tandem-bench's JSON report."""
    ms = 1e-6
    lat = report.get("latencyNs") or {}
    updates = report.get("updates") or {}
    out: dict[str, Any] = {
        "passed": report.get("passed"), "valid": report.get("valid"),
        "delivered_pct": (updates.get("deliveredShare") or 0) * 100,
        "p50_ms": lat.get("p50", 0) * ms if lat.get("count") else None,
        "p99_ms": lat.get("p99", 0) * ms if lat.get("count") else None,
        "generator_pct": ((report.get("generatorCPU") or {}).get("coreShare") or 0) * 100,
        "owner": owner, "nodes": [],
    }
    delivered = updates.get("delivered") or 0
    by_pid = {e.get("pid"): e for e in report.get("serverCPUByPid") or []}
    total = sum((e.get("seconds") or 0) for e in by_pid.values())
    out["all_us_per_update"] = total / delivered * 1e6 if delivered else None
    redis = by_pid.get(redis_pid) if redis_pid else None
    out["redis_pct"] = (redis.get("coreShare") or 0) * 100 if redis and redis.get("coreShare") is not None else None
    out["redis_us_per_update"] = (redis.get("seconds") or 0) / delivered * 1e6 if redis and delivered else None
    for name, server in zip(names, report.get("servers") or []):
        slat = server.get("latencyNs") or {}
        cpu = server.get("cpu") or {}
        out["nodes"].append({
            "name": name, "role": ("owner" if owner == name else "relay") if owner else "single",
            "clients": server.get("clients"), "draggers": server.get("draggers"), "delivered": server.get("delivered"),
            "p50_ms": slat.get("p50", 0) * ms if slat.get("count") else None,
            "p99_ms": slat.get("p99", 0) * ms if slat.get("count") else None,
            "us_per_update": cpu["nsPerDeliveredUpdate"] * 1e-3 if cpu.get("nsPerDeliveredUpdate") is not None else None,
            "cpu_pct": cpu["coreShare"] * 100 if cpu.get("coreShare") is not None else None,
        })
    return out


def relay_summary(runs: list[dict]) -> dict:
    """Medians over the runs of one configuration; node rows by role (owner, relay, single)."""
    keys = ("delivered_pct", "p50_ms", "p99_ms", "generator_pct", "all_us_per_update", "redis_pct", "redis_us_per_update")
    out: dict[str, Any] = {k: median(r.get(k) for r in runs) for k in keys}
    out["runs"] = len(runs)
    out["passed"] = sum(1 for r in runs if r.get("passed"))
    out["valid"] = sum(1 for r in runs if r.get("valid"))
    roles: dict[str, list[dict]] = {}
    for r in runs:
        for n in r["nodes"]:
            roles.setdefault(n["role"], []).append(n)
    out["nodes"] = {role: {k: median(n.get(k) for n in rows) for k in
                           ("clients", "draggers", "p50_ms", "p99_ms", "us_per_update", "cpu_pct")}
                    for role, rows in roles.items()}
    return out


def f(x: float | None, digits: int = 1, unit: str = "") -> str:
    return "–" if x is None else f"{x:.{digits}f}{unit}"


def relay_markdown(summary: dict[str, dict]) -> list[str]:
    lines = ["| configuration | runs (pass/valid) | delivered | p50 | p99 | µs CPU / update, all processes | Redis CPU | generator CPU |",
             "|---|---|---|---|---|---|---|---|"]
    for name in CONFIGS:
        s = summary.get(name)
        if not s:
            continue
        lines.append(f"| {name} | {s['runs']} ({s['passed']}/{s['valid']}) | {f(s['delivered_pct'], 1, ' %')} | "
                     f"{f(s['p50_ms'], 2, ' ms')} | {f(s['p99_ms'], 1, ' ms')} | {f(s['all_us_per_update'], 2)} | "
                     f"{f(s['redis_pct'], 0, ' %') if s['redis_pct'] is not None else 'n/a'} | {f(s['generator_pct'], 0, ' %')} |")
    lines += ["", "Per node (medians over the runs):", "",
              "| configuration | node | clients (draggers) | its clients' p50 | p99 | its CPU | µs CPU / update delivered to its clients |",
              "|---|---|---|---|---|---|---|"]
    for name in CONFIGS:
        s = summary.get(name)
        if not s:
            continue
        for role in ("single", "owner", "relay"):
            n = s["nodes"].get(role)
            if n:
                lines.append(f"| {name} | {role} | {f(n['clients'], 0)} ({f(n['draggers'], 0)}) | {f(n['p50_ms'], 2, ' ms')} | "
                             f"{f(n['p99_ms'], 1, ' ms')} | {f(n['cpu_pct'], 0, ' %')} | {f(n['us_per_update'], 2)} |")
    hop = relay_hop(summary)
    if hop:
        lines += [""] + [f"- {h}" for h in hop]
    return lines


def relay_hop(summary: dict[str, dict]) -> list[str]:
    """What the relay hop adds, as differences of medians within the run."""
    out = []
    one, two = summary.get("one node"), summary.get("two nodes")
    if one and two:
        relay = two["nodes"].get("relay") or {}
        owner = two["nodes"].get("owner") or {}
        for p in ("p50_ms", "p99_ms"):
            label = p.split("_")[0]
            if relay.get(p) is not None and one.get(p) is not None:
                out.append(f"{label}: the relay node's clients {f(relay[p], 2, ' ms')} against one node's "
                           f"{f(one[p], 2, ' ms')} ({relay[p] - one[p]:+.2f} ms); "
                           f"the owner node's clients in the same two-node run: {f(owner.get(p), 2, ' ms')}")
        if one.get("all_us_per_update") and two.get("all_us_per_update"):
            out.append(f"CPU per delivered update, every process (nodes and Redis): two nodes / one node = "
                       f"{two['all_us_per_update'] / one['all_us_per_update']:.2f}×")
    base = summary.get("no cluster")
    if base and one and base.get("all_us_per_update") and one.get("all_us_per_update"):
        out.append(f"cluster mode on one node / no cluster, CPU per delivered update: "
                   f"{one['all_us_per_update'] / base['all_us_per_update']:.2f}×")
    return out


def check_log(entries: list[tuple[int, int, dict[str, str]]], acked: list[tuple[int, float, str]]) -> dict:
    """Every acknowledged (revision, value, client) against Redis' log entries (rev, k, fields).
    A negative revision -(R + 1) stands for one the writer never saw (the ack came, its change did
    not): then any entry of that value by that client above revision R will do."""
    logged = set()
    for rev, _, fields in entries:
        if fields.get("control") != "gain":
            continue
        try:
            value = round(float(json.loads(fields.get("state", "{}")).get("value")), 4)
        except (ValueError, TypeError, AttributeError):
            continue
        logged.add((rev, value, fields.get("client")))
    def found(rev: int, value: float, client: str) -> bool:
        if rev >= 0:
            return (rev, round(value, 4), client) in logged
        return any(r > -rev - 1 and v == round(value, 4) and c == client for r, v, c in logged)
    lost = [(rev, value, client) for rev, value, client in acked if not found(rev, value, client)]
    # For a lost one: where the same client's same value is in the log (a revision mis-read, not a loss?).
    elsewhere = [[rev, value, client, sorted(r for r, v, c in logged if v == round(value, 4) and c == client)]
                 for rev, value, client in lost[:10]]
    revisions = [rev for rev, _, _ in entries]
    backwards = sum(1 for a, b in zip(revisions, revisions[1:]) if b < a)
    shared = sum(1 for a, b in zip(revisions, revisions[1:]) if b == a)
    return {"entries": len(entries), "acknowledged": len(acked), "lost": len(lost), "lostSample": elsewhere,
            "revisionsBackwards": backwards, "entriesSharingARevision": shared,
            "strictlyIncreasing": backwards == 0 and shared == 0}


def failover_markdown(result: dict) -> list[str]:
    g, k = result["gapMs"], result["killToNewMs"]
    log = result["log"]
    lines = [
        f"{result['kills']} kills of the owner; {result['membersPerNode']} members per node, one writer per node "
        f"at {result['writerHz']:g} Hz; {g['count']} (kill, surviving member) pairs measured"
        + (f", {result['unresolved']} saw no new change within {result['waitS']:g} s" if result["unresolved"] else "") + ".",
        "",
        "| | min | median | p95 | max |",
        "|---|---|---|---|---|",
        f"| gap: last frame before the kill → first new change | {f(g['min'], 0, ' ms')} | {f(g['median'], 0, ' ms')} | {f(g['p95'], 0, ' ms')} | {f(g['max'], 0, ' ms')} |",
        f"| SIGKILL → first new change | {f(k['min'], 0, ' ms')} | {f(k['median'], 0, ' ms')} | {f(k['p95'], 0, ' ms')} | {f(k['max'], 0, ' ms')} |",
        f"| node restart → /healthz 200 | {f(result['restartMs']['min'], 0, ' ms')} | {f(result['restartMs']['median'], 0, ' ms')} | {f(result['restartMs']['p95'], 0, ' ms')} | {f(result['restartMs']['max'], 0, ' ms')} |",
        "",
        f"commits lost: {log['lost']} (of {log['acknowledged']} acknowledged sets; {log['entries']} entries in "
        f"XRANGE tandem:{{{ROOM}}}:log; revisions "
        + ("strictly increase" if log["strictlyIncreasing"] else
           f"go back {log['revisionsBackwards']} times, {log['entriesSharingARevision']} entries share a revision") + ")",
        f"writers: {result['writes']['acked']} sets acknowledged, {result['writes']['rejected']} rejected, "
        f"{result['writes']['unanswered']} unanswered within {result['writes']['timeoutS']:g} s (their connection died or the answer was lost)"
        + (f"; {result['writes']['ackedWithoutChange']} acknowledged sets whose change did not reach their writer within 1 s "
           "were checked by (value, client) after the writer's previous revision"
           if result['writes'].get('ackedWithoutChange') else ""),
        "owners, kill by kill: " + " → ".join(result["owners"]),
    ]
    return lines


# --------------------------------------------------------------------------
# Relay hop: tandem-bench against one node, then two


def relay_run(config: str, run: int, a: argparse.Namespace, out: Path, tmp: Path) -> dict:
    folder = tmp / f"relay-{config.replace(' ', '-')}-{run}"
    folder.mkdir(parents=True)
    redis = Redis(folder) if config != "no cluster" else None
    nodes: list[Node] = []
    try:
        count = 2 if config == "two nodes" else 1
        for i in range(count):
            nodes.append(Node(a.tandem_binary, f"n{i + 1}", redis, folder))
        stem = out / f"relay-{config.replace(' ', '-')}-{run}"
        pids = [n.pid for n in nodes] + ([redis.proc.pid] if redis else [])
        cmd = [a.bench_binary, "--url", f"{nodes[0].ws()}/rooms/{ROOM}"]
        for n in nodes[1:]:
            cmd += ["--also-url", n.ws()]
        cmd += [*S2H, "--duration", fmt(a.duration), "--warmup", fmt(a.warmup),
                "--pids", ",".join(map(str, pids)), "--json", f"{stem}.json"]
        Path(f"{stem}.json").unlink(missing_ok=True)
        with open(f"{stem}.txt", "w") as text:
            try:
                code = subprocess.run(pinned(GENERATOR_CORE, cmd), stdout=text, stderr=subprocess.STDOUT,
                                      timeout=a.duration + a.warmup + 120).returncode
            except subprocess.TimeoutExpired:
                code = None
        owner = redis.owner() if redis else None
        try:
            report = json.loads(Path(f"{stem}.json").read_text())
        except (OSError, ValueError):
            return {"config": config, "run": run, "exit": code, "error": f"no report (see {stem}.txt)",
                    "passed": False, "valid": False, "nodes": []}
        m = relay_metrics(report, owner, [n.name for n in nodes], redis.proc.pid if redis else None)
        m.update(config=config, run=run, exit=code)
        return m
    finally:
        for n in nodes:
            n.proc.stop()
        if redis:
            redis.stop()


def relay(a: argparse.Namespace, out: Path, tmp: Path) -> dict:
    runs: dict[str, list[dict]] = {c: [] for c in CONFIGS}
    for run in range(1, a.runs + 1):
        for config in CONFIGS:
            r = relay_run(config, run, a, out, tmp)
            runs[config].append(r)
            nodes = "; ".join(f"{n['name']} {n['role']} {n['clients']} clients p99 {f(n['p99_ms'], 1, ' ms')} "
                              f"{f(n['us_per_update'], 2, ' µs')}/update" for n in r["nodes"])
            print(f"relay {config:<10} run {run}: "
                  + (r["error"] if "error" in r else
                     f"{'PASS' if r['passed'] else 'FAIL'}{'' if r['valid'] else ' INVALID'}  delivered {f(r['delivered_pct'], 1, ' %')}  "
                     f"p50 {f(r['p50_ms'], 2, ' ms')}  p99 {f(r['p99_ms'], 1, ' ms')}  redis {f(r['redis_pct'], 0, ' %')}  "
                     f"generator {f(r['generator_pct'], 0, ' %')}  [{nodes}]"), flush=True)
    summary = {c: relay_summary([r for r in rs if "error" not in r]) for c, rs in runs.items() if any("error" not in r for r in rs)}
    return {"runs": runs, "summary": summary}


# --------------------------------------------------------------------------
# Failover: a minimal WebSocket client on asyncio (stdlib only)


class WS:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer

    @classmethod
    async def connect(cls, port: int, path: str, timeout: float = 5.0) -> "WS":
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: tandem.v1\r\n"
                      f"Origin: http://127.0.0.1:{port}\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        if not head.startswith(b"HTTP/1.1 101"):
            writer.close()
            raise ConnectionError(f"handshake refused: {head[:200]!r}")
        return cls(reader, writer)

    def send_text(self, text: str) -> None:
        payload = text.encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n)
                                if n < 65536 else bytes([0x80 | 127]) + struct.pack("!Q", n))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.writer.write(head + mask + masked)

    async def recv(self) -> str | None:
        """The next text message; None at the end (close frame or EOF)."""
        message = b""
        while True:
            try:
                b0, b1 = await self.reader.readexactly(2)
                n = b1 & 0x7F
                if n == 126:
                    n = struct.unpack("!H", await self.reader.readexactly(2))[0]
                elif n == 127:
                    n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
                payload = await self.reader.readexactly(n)
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                return None
            opcode = b0 & 0x0F
            if opcode == 8:
                return None
            if opcode == 9:  # ping: pong with the same payload
                mask = os.urandom(4)
                self.writer.write(bytes([0x8A, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
                continue
            if opcode in (0, 1, 2):
                message += payload
                if b0 & 0x80:
                    return message.decode("utf-8", "replace")

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:
            pass


class Member:
    """A member that only listens: when it read each frame, and the revisions of its changes."""

    def __init__(self, node: str, name: str):
        self.node = node
        self.name = name
        self.ws: WS | None = None
        self.welcomed = asyncio.Event()
        self.closed = False
        self.last_t = 0.0
        self.post: list[tuple[float, int]] | None = None  # after a kill: (time, highest change revision)
        self.client = ""
        self.task: asyncio.Task | None = None

    async def join(self, port: int) -> None:
        self.ws = await WS.connect(port, f"/rooms/{ROOM}?name={self.name}")
        self.task = asyncio.ensure_future(self.read())
        await asyncio.wait_for(self.welcomed.wait(), 10)

    async def read(self) -> None:
        assert self.ws is not None
        while True:
            text = await self.ws.recv()
            t = time.monotonic()
            if text is None:
                self.closed = True
                return
            try:
                frame = json.loads(text)
            except ValueError:
                continue
            self.frame(t, frame)

    def frame(self, t: float, frame: dict) -> None:
        if frame.get("type") == "welcome":
            self.client = frame.get("client", "")
            self.welcomed.set()
        if self.post is not None:
            rev = max((c.get("rev", 0) for c in frame.get("changes") or []), default=0)
            self.post.append((t, rev))
        else:
            self.last_t = t


class Writer(Member):
    """Sets gain at about `hz`, one set at a time: (revision, value) of every acknowledged one."""

    def __init__(self, node: str, name: str, values: list[float], hz: float, timeout: float):
        super().__init__(node, name)
        self.values = values
        self.period = 1 / hz
        self.timeout = timeout
        self.acked: list[tuple[int, float, str]] = []
        self.rejected = 0
        self.unanswered = 0
        self.seq = 0
        self.waiting: tuple[int, asyncio.Future] | None = None
        self.mine: dict[float, int] = {}  # value -> revision of my change to it since the set was sent
        self.change_seen: asyncio.Event | None = None
        self.unmatched = 0  # acknowledged, but no change of mine to that value arrived: revision unknown
        self.stopping = False

    def frame(self, t: float, frame: dict) -> None:
        super().frame(t, frame)
        for c in frame.get("changes") or []:
            if c.get("control") == "gain" and c.get("by") == self.client:
                try:
                    self.mine[round(float(c["state"]["value"]), 4)] = int(c["rev"])
                except (KeyError, TypeError, ValueError):
                    pass
                if self.change_seen:
                    self.change_seen.set()
        if self.waiting:
            seq, fut = self.waiting
            kind = frame.get("type")
            if (kind == "update" and frame.get("ack") == seq) or (kind == "reject" and frame.get("seq") == seq):
                if not fut.done():
                    fut.set_result(frame)

    async def write(self) -> None:
        i = random.randrange(len(self.values))
        loop = asyncio.get_running_loop()
        while not self.stopping and not self.closed:
            started = time.monotonic()
            value = self.values[i % len(self.values)]
            i += 1
            self.seq += 1
            fut = loop.create_future()
            self.waiting = (self.seq, fut)
            self.mine.pop(round(value, 4), None)
            self.change_seen = asyncio.Event()
            try:
                self.ws.send_text(json.dumps({"type": "set", "seq": self.seq, "control": "gain", "value": value}))
                frame = await asyncio.wait_for(fut, self.timeout)
            except (asyncio.TimeoutError, ConnectionError, OSError):
                self.unanswered += 1
                continue
            finally:
                self.waiting = None
            if frame.get("type") == "reject":
                self.rejected += 1
            else:
                # The commit's revision is the one on my change to this value; the ack may
                # come before the change (a relayed set): wait for it a little.
                key = round(value, 4)
                give_up = time.monotonic() + 1.0
                while key not in self.mine and time.monotonic() < give_up and not self.closed:
                    self.change_seen.clear()
                    try:
                        await asyncio.wait_for(self.change_seen.wait(), max(0.01, give_up - time.monotonic()))
                    except asyncio.TimeoutError:
                        break
                if key in self.mine:
                    self.acked.append((self.mine[key], value, self.client))
                else:
                    # Checked without its revision: (value, this client) above my last known revision.
                    self.unmatched += 1
                    self.acked.append((-(max((r for r, _, c in self.acked if c == self.client), default=0)) - 1, value, self.client))
            await asyncio.sleep(max(0.0, self.period - (time.monotonic() - started)))


async def failover(a: argparse.Namespace, tmp: Path) -> dict:
    folder = tmp / "failover"
    folder.mkdir()
    redis = await asyncio.to_thread(Redis, folder)
    names = ["n1", "n2", "n3"]
    nodes: dict[str, Node] = {}
    members: dict[str, list[Member]] = {n: [] for n in names}
    writers: dict[str, Writer] = {}
    retired: list[Writer] = []
    tasks: list[asyncio.Task] = []
    hz = 20.0
    # Writer k sets 0.0(k+1), 0.0(k+4), ...: its values differ from the others' and each from its last.
    values = {n: [round(0.01 * v, 2) for v in range(k + 1, 100, 3)] for k, n in enumerate(names)}

    async def populate(name: str) -> None:
        port = nodes[name].port
        fresh = [Member(name, f"m-{name}-{i}") for i in range(a.members)]
        await asyncio.gather(*(m.join(port) for m in fresh))
        members[name] = fresh
        w = Writer(name, f"w-{name}", values[name], hz, a.write_timeout)
        await w.join(port)
        writers[name] = w
        tasks.append(asyncio.ensure_future(w.write()))

    gaps: list[float] = []
    from_kill: list[float] = []
    restarts: list[float] = []
    per_kill: list[dict] = []
    owners: list[str] = []
    unresolved = 0
    try:
        for name in names:
            nodes[name] = await asyncio.to_thread(Node, a.tandem_binary, name, redis, folder)
        for name in names:
            await populate(name)
        await asyncio.sleep(a.settle)
        for kill in range(1, a.kills + 1):
            owner = await asyncio.to_thread(redis.owner)
            if owner not in nodes:
                await asyncio.sleep(1.0)
                owner = await asyncio.to_thread(redis.owner)
                if owner not in nodes:
                    raise RuntimeError(f"kill {kill}: no owner of {ROOM} in Redis ({owner!r})")
            owners.append(owner)
            survivors = [m for n, ms in members.items() if n != owner for m in ms if not m.closed]
            # The instant: each survivor's last frame so far, and from here on every frame with its revision.
            t_kill = time.monotonic()
            last = {id(m): m.last_t for m in survivors}
            for m in survivors:
                m.post = []
            os.kill(nodes[owner].pid, signal.SIGKILL)
            await asyncio.to_thread(nodes[owner].proc.proc.wait, 10)
            boundary = await asyncio.to_thread(redis.last_revision)
            deadline = time.monotonic() + a.wait

            def first_new(m: Member) -> float | None:
                return next((t for t, rev in (m.post or []) if rev > boundary), None)
            while time.monotonic() < deadline and any(first_new(m) is None for m in survivors if not m.closed):
                await asyncio.sleep(0.05)
            new_owner = await asyncio.to_thread(redis.owner)
            kill_gaps = []
            for m in survivors:
                t = first_new(m)
                m.post = None
                if t is None:
                    unresolved += 1
                    continue
                kill_gaps.append((t - last[id(m)]) * 1000)
                from_kill.append((t - t_kill) * 1000)
            gaps.extend(kill_gaps)
            # The killed node's clients are gone: retire them, restart the node (same id and port), repopulate.
            for m in members[owner]:
                m.closed = True
                if m.ws:
                    m.ws.close()
            old = writers.pop(owner)
            old.stopping = True
            retired.append(old)
            nodes[owner].proc.stop()
            t0 = time.monotonic()
            await asyncio.to_thread(nodes[owner].start)
            restarts.append((time.monotonic() - t0) * 1000)
            await populate(owner)
            s = spread(kill_gaps)
            per_kill.append({"kill": kill, "owner": owner, "newOwner": new_owner, "boundaryRev": boundary,
                             "members": len(survivors), "gapMs": s})
            print(f"failover kill {kill:>2}: owner {owner} -> {new_owner}; gap median {f(s['median'], 0, ' ms')}, "
                  f"max {f(s['max'], 0, ' ms')} over {s['count']} members; restart {restarts[-1]:.0f} ms", flush=True)
            await asyncio.sleep(a.settle)
        owners.append(await asyncio.to_thread(redis.owner) or "?")
        for w in writers.values():
            w.stopping = True
        await asyncio.sleep(a.write_timeout + 0.2)
        entries = await asyncio.to_thread(redis.log)
        all_writers = retired + list(writers.values())
        acked = [x for w in all_writers for x in w.acked]
        log = check_log(entries, acked)
        return {
            "kills": len(per_kill), "membersPerNode": a.members, "writerHz": hz, "waitS": a.wait,
            "gapMs": spread(gaps), "killToNewMs": spread(from_kill), "restartMs": spread(restarts),
            "unresolved": unresolved, "perKill": per_kill, "owners": owners, "log": log,
            "writes": {"acked": len(acked), "rejected": sum(w.rejected for w in all_writers),
                       "unanswered": sum(w.unanswered for w in all_writers), "timeoutS": a.write_timeout,
                       "ackedWithoutChange": sum(w.unmatched for w in all_writers)},
        }
    finally:
        for t in tasks:
            t.cancel()
        for ms in members.values():
            for m in ms:
                if m.ws:
                    m.ws.close()
        for w in list(writers.values()) + retired:
            if w.ws:
                w.ws.close()
        for n in nodes.values():
            if n.proc:
                n.proc.stop()
        redis.stop()


# --------------------------------------------------------------------------
# Main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Scale-out: the relay hop and failover, measured.")
    p.add_argument("--only", choices=("relay", "failover"), help="one of the two measurements (default both)")
    p.add_argument("--runs", type=int, help="runs of each relay configuration (default 3; --quick 1)")
    p.add_argument("--duration", type=float, help="measured seconds per relay run (default 10; --quick 3)")
    p.add_argument("--warmup", type=float, help="warm-up seconds per relay run (default 3; --quick 1)")
    p.add_argument("--kills", type=int, help="owner kills (default 20; --quick 3)")
    p.add_argument("--members", type=int, default=30, help="listening members per node in failover (default 30)")
    p.add_argument("--settle", type=float, default=1.0, help="seconds the room runs between a restart and the next kill (default 1)")
    p.add_argument("--wait", type=float, default=10.0, help="seconds a member may wait for a new change after a kill (default 10)")
    p.add_argument("--write-timeout", type=float, default=2.0, help="seconds a writer waits for its set's answer (default 2)")
    p.add_argument("--quick", action="store_true", help="a smoke: 1 relay run of 3 s, 3 kills")
    p.add_argument("--tandem-binary", default=str(DEFAULT_TANDEM))
    p.add_argument("--bench-binary", default=str(DEFAULT_BENCH))
    p.add_argument("--out", help="also write cluster.json and cluster.md (and the generator's reports) here")
    a = p.parse_args(argv)
    a.runs = a.runs if a.runs is not None else (1 if a.quick else 3)
    a.duration = a.duration if a.duration is not None else (3 if a.quick else 10)
    a.warmup = a.warmup if a.warmup is not None else (1 if a.quick else 3)
    a.kills = a.kills if a.kills is not None else (3 if a.quick else 20)
    if a.runs < 1 or a.kills < 0 or a.members < 1:
        p.error("--runs and --members must be at least 1, --kills at least 0")
    return a


def commands(a: argparse.Namespace, argv: list[str]) -> list[str]:
    rel = lambda p: os.path.relpath(p, ROOT) if os.path.isabs(p) and not os.path.relpath(p, ROOT).startswith("..") else p
    t, b = rel(a.tandem_binary), rel(a.bench_binary)
    return [
        "# the runner",
        " ".join(["python3", "bench/cluster.py", *map(shlex.quote, argv)]),
        f"# core {SERVER_CORE}: Redis and every node (fresh per run; P1, P2, R free ports)",
        f"taskset -c {SERVER_CORE} redis-server --port R --bind 127.0.0.1 --dir TMP --appendonly yes --appendfsync everysec --save ''",
        f"taskset -c {SERVER_CORE} {t} --host 127.0.0.1 --port P1 --data :memory: --log-level warn --redis redis://127.0.0.1:R/0 --node-id n1",
        f"taskset -c {SERVER_CORE} {t} --host 127.0.0.1 --port P2 --data :memory: --log-level warn --redis redis://127.0.0.1:R/0 --node-id n2",
        f"# \"no cluster\": the same node without --redis and --node-id; core {GENERATOR_CORE}: the generator",
        f"taskset -c {GENERATOR_CORE} {b} --url ws://127.0.0.1:P1/rooms/{ROOM} [--also-url ws://127.0.0.1:P2] "
        f"{' '.join(S2H)} --duration {fmt(a.duration)} --warmup {fmt(a.warmup)} --pids N1[,N2],REDIS --json …",
        f"# failover: n1..n3 and Redis as above on core {SERVER_CORE}; this script's clients on core {GENERATOR_CORE}",
    ]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    a = parse_args(argv)
    for binary in (a.tandem_binary,) + ((a.bench_binary,) if a.only != "failover" else ()):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            print(f"bench-cluster: {binary} is not an executable file (make bench-cluster builds it)", file=sys.stderr)
            return 2
    if shutil.which("redis-server") is None:
        print("bench-cluster: redis-server is not installed (apt-get install redis-server)", file=sys.stderr)
        return 2
    if (os.cpu_count() or 1) >= 2:
        try:
            os.sched_setaffinity(0, {int(GENERATOR_CORE)})  # this script, and its clients, on the generator's core
        except OSError:
            pass
    out = Path(a.out) if a.out else None
    started = datetime.datetime.now().astimezone()
    result: dict[str, Any] = {"date": started.strftime("%Y-%m-%d %H:%M %Z"), "machine": machine(),
                              "commands": commands(a, argv),
                              "pinning": {"redis": SERVER_CORE, "nodes": SERVER_CORE, "generator": GENERATOR_CORE}}
    try:
        load1 = float(Path("/proc/loadavg").read_text().split()[0])
        result["loadAtStart"] = load1
    except (OSError, ValueError, IndexError):
        pass
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmpname:
        tmp = Path(tmpname)
        reports = out if out else tmp
        reports.mkdir(parents=True, exist_ok=True)
        if a.only != "failover":
            result["relay"] = relay(a, reports, tmp)
        if a.only != "relay" and a.kills > 0:
            result["failover"] = asyncio.run(failover(a, tmp))
    md = markdown(result, a)
    print()
    print(md)
    if out:
        (out / "cluster.json").write_text(json.dumps(result, indent=1) + "\n")
        (out / "cluster.md").write_text(md + "\n")
        print(f"bench-cluster: results in {out}/ (cluster.json, cluster.md)", flush=True)
    lost = (result.get("failover") or {}).get("log", {}).get("lost", 0)
    return 1 if lost else 0


def markdown(result: dict, a: argparse.Namespace) -> str:
    lines = [f"Run {result['date']} on {result['machine']}"
             + (f", load average {result['loadAtStart']:.2f} at the start" if "loadAtStart" in result else "") + ".",
             "", "```sh", *result["commands"], "```", ""]
    if "relay" in result:
        lines += [f"### Relay hop: S2h's load ({' '.join(S2H)}), {a.runs} run(s) of {fmt(a.duration)} s each", ""]
        lines += relay_markdown(result["relay"]["summary"]) + [""]
    if "failover" in result:
        lines += ["### Failover", ""] + failover_markdown(result["failover"]) + [""]
    return "\n".join(lines).rstrip()


if __name__ == "__main__":
    sys.exit(main())
