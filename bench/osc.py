"""`make bench-osc`: how long a WebSocket commit takes to reach an OSC receiver.

Per run: a fresh release `tandem` pinned to core 0 with `--osc-send
udp://127.0.0.1:PORT`, PORT being a UDP socket of this script; a probe (a
WebSocket member of the demo room, in this script) sends a `set` of the
gauge `bpm` at `--hz` (20), one distinct value each, and the socket receives
the `/demo/bpm` datagram each commit sends. Per set:

    OSC latency = the datagram's arrival (the kernel's receive time stamp,
                  SO_TIMESTAMPNS) - the time just before the set's send()
    ack latency = when this script read the set's ack - the same send time

A set is matched to its datagram by value. `bpm` is a gauge: tandem-bench's
draggers drag sliders and colour channels only (MoveTrack.tracks: in the
demo room the three colour channels and `gain`), so nothing else writes it.

Four configurations, interleaved run after run:
  storage  `memory` (`--data :memory:`) or `sqlite` (the default SQLite file,
           in a temporary folder: a commit goes out after it is written);
  load     `idle` (the probe alone) or `S2h` (tandem-bench pinned to core 1
           with S2h's load: 504 clients of which 4 drag at 60 Hz, against the
           demo room; the probe runs during its measured window).

The probe and this script run on core 1, beside the generator. The datagram's
time stamp is the kernel's, so a late wake-up of this script does not count
in the OSC latency; the ack's time is when the script read it, so under load
it includes the script's own wait for the core.

Per run p50/p99/max, counts; per configuration the median of the runs. Runs last 20 s
(make bench's are 10 s): some 380 sets per loaded run, so that a run's p99 is not
simply its second-largest sample.
Results in --out (default bench/results/osc/): osc.json, osc.md, each
generator report and output, each server log. See docs/benchmarks.md
("`make bench-osc`" and "OSC bridge").

    python3 bench/osc.py                  # 3 runs of each configuration, 20 s each
    python3 bench/osc.py --quick          # 1 run of 3 s
    python3 bench/osc.py --storage memory --load S2h --runs 5
"""
from __future__ import annotations

import argparse
import base64
import datetime
import json
import os
import resource
import select
import shlex
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import fmt, free_port, machine, median, percentile, pinned, proc_cpu_seconds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BENCH = ROOT / ".build" / "release" / "tandem-bench"
DEFAULT_TANDEM = ROOT / ".build" / "release" / "tandem"
DEFAULT_OUT = ROOT / "bench" / "results" / "osc"
ROOM = "demo"
CONTROL = "bpm"          # a gauge: no tandem-bench dragger touches it
SERVER_CORE = "0"
GENERATOR_CORE = "1"     # tandem-bench, and this script (the probe and the receiver)
S2H = ("--clients", "504", "--draggers", "4", "--hz", "60")
STORAGES = ("memory", "sqlite")
LOADS = ("idle", "S2h")
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; Python names it only on some builds


# --------------------------------------------------------------------------
# Pure parts: OSC decoding, the probe's values, statistics, the markdown


def osc_string(data: bytes, at: int) -> tuple[str, int]:
    """An OSC string at `at` (NUL-terminated, padded to 4) and the offset after it."""
    end = data.index(b"\0", at)
    return data[at:end].decode("utf-8", "replace"), (end + 4) & ~3


def osc_messages(data: bytes) -> list[tuple[str, list[Any]]]:
    """The (address, arguments) of one datagram: a message, or a bundle's messages (time tags ignored).

    Tandem sends one message per datagram; bundles are read anyway so a change of that
    is seen rather than miscounted. Raises ValueError on anything that is not OSC."""
    try:
        if data.startswith(b"#bundle\0"):
            out, at = [], 16
            while at < len(data):
                (size,) = struct.unpack_from(">i", data, at)
                out += osc_messages(data[at + 4:at + 4 + size])
                at += 4 + size
            return out
        address, at = osc_string(data, 0)
        tags, at = osc_string(data, at) if at < len(data) else (",", at)
        args: list[Any] = []
        for tag in tags[1:]:
            if tag in "if":
                args.append(struct.unpack_from(">" + tag, data, at)[0])
                at += 4
            elif tag in "dh":
                args.append(struct.unpack_from(">d" if tag == "d" else ">q", data, at)[0])
                at += 8
            elif tag in "sS":
                s, at = osc_string(data, at)
                args.append(s)
            elif tag in "TF":
                args.append(tag == "T")
            elif tag in "NI":
                continue
            else:
                raise ValueError(f"type tag {tag!r}")
        return [(address, args)]
    except (struct.error, IndexError) as e:
        raise ValueError(str(e)) from e


def probe_value(i: int) -> float:
    """The i-th value the probe sets: 100.00, 100.01, … 169.99, then again (7,000 distinct).
    Two decimals survive the float32 of the OSC message, so a datagram's value names its set."""
    return round(100 + (i % 7000) / 100, 2)


def value_key(x: float) -> float:
    return round(float(x), 2)


def spread_ms(ns: list[int]) -> dict[str, float | None]:
    ms = [x / 1e6 for x in ns]
    return {"count": len(ms), "p50": percentile(ms, 50), "p99": percentile(ms, 99),
            "max": max(ms) if ms else None}


def summarize(runs: list[dict]) -> dict:
    """Medians over the runs of one configuration; counts summed."""
    out: dict[str, Any] = {"runs": len(runs)}
    for kind in ("osc", "ack", "oscAfterAck"):
        out[kind] = {k: median((r[kind] or {}).get(k) for r in runs) for k in ("p50", "p99", "max")}
    for k in ("sent", "acked", "rejected", "matched", "missing", "unmatchedDatagrams", "datagrams", "malformed"):
        out[k] = sum(r.get(k) or 0 for r in runs)
    gen = [r["generator"] for r in runs if r.get("generator")]
    if gen:
        out["generator"] = {k: median(g.get(k) for g in gen) for k in
                            ("deliveredPct", "p50Ms", "p99Ms", "serverPct", "generatorPct")}
        out["generator"]["passed"] = sum(1 for g in gen if g.get("passed"))
        out["generator"]["valid"] = sum(1 for g in gen if g.get("valid"))
    out["datagramsPerSecond"] = median(r.get("datagramsPerSecond") for r in runs)
    others = [r["otherCPU"] for r in runs if r.get("otherCPU") is not None]
    out["otherCPUMax"] = max(others) if others else None
    return out


def f(x: float | None, digits: int = 2, unit: str = "") -> str:
    return "–" if x is None else f"{x:.{digits}f}{unit}"


def markdown_table(summary: dict[str, dict]) -> list[str]:
    lines = ["| storage | load | runs | sets sent (acked) | datagrams matched (missing) | OSC p50 | OSC p99 | OSC max | "
             "ack p50 | ack p99 | ack max | OSC − ack, p50 | generator: delivered, p99, valid runs | other CPU, worst run |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for storage in STORAGES:
        for load in LOADS:
            s = summary.get(f"{storage}/{load}")
            if not s:
                continue
            g = s.get("generator")
            gen = (f"{f(g['deliveredPct'], 1, ' %')}, {f(g['p99Ms'], 1, ' ms')}, {g['valid']}/{s['runs']}"
                   if g else "–")
            lines.append(
                f"| {storage} | {load} | {s['runs']} | {s['sent']} ({s['acked']}) | {s['matched']} ({s['missing']}) | "
                f"{f(s['osc']['p50'], 2, ' ms')} | {f(s['osc']['p99'], 2, ' ms')} | {f(s['osc']['max'], 2, ' ms')} | "
                f"{f(s['ack']['p50'], 2, ' ms')} | {f(s['ack']['p99'], 2, ' ms')} | {f(s['ack']['max'], 2, ' ms')} | "
                f"{f(s['oscAfterAck']['p50'], 2, ' ms')} | {gen} | "
                f"{f(s['otherCPUMax'] * 100 if s.get('otherCPUMax') is not None else None, 0, ' %')} |")
    return lines


# --------------------------------------------------------------------------
# The probe: a synchronous WebSocket client and a UDP receiver in one select loop
#
# Not asyncio (as bench/cluster.py is): the send time is taken right before the
# send() call itself, and nothing else is scheduled between the two.


class ProbeSocket:
    """A minimal WebSocket client (text frames, pings answered) on a blocking socket."""

    def __init__(self, port: int, path: str, timeout: float = 5.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                           f"Sec-WebSocket-Protocol: tandem.v1\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the server closed the connection during the handshake")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(f"handshake refused: {head[:200]!r}")
        self.sock.settimeout(None)
        self.message = b""

    def fileno(self) -> int:
        return self.sock.fileno()

    def send_text(self, text: str) -> int:
        """Sends one masked text frame; returns time.time_ns() taken just before the send."""
        payload = text.encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n))
        frame = head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        t = time.time_ns()
        self.sock.sendall(frame)
        return t

    def read(self) -> list[str] | None:
        """The whole text messages that one recv() completes; None when the connection ended."""
        chunk = self.sock.recv(65536)
        if not chunk:
            return None
        self.buffer += chunk
        out = []
        while len(self.buffer) >= 2:
            b0, b1 = self.buffer[0], self.buffer[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                if len(self.buffer) < 4:
                    break
                n, at = struct.unpack_from("!H", self.buffer, 2)[0], 4
            elif n == 127:
                if len(self.buffer) < 10:
                    break
                n, at = struct.unpack_from("!Q", self.buffer, 2)[0], 10
            if len(self.buffer) < at + n:
                break
            payload, self.buffer = self.buffer[at:at + n], self.buffer[at + n:]
            opcode = b0 & 0x0F
            if opcode == 8:
                return None
            if opcode == 9:
                mask = os.urandom(4)
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + mask
                                  + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
            elif opcode in (0, 1):
                self.message += payload
                if b0 & 0x80:
                    out.append(self.message.decode("utf-8", "replace"))
                    self.message = b""
        return out

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class Receiver:
    """The --osc-send target: a UDP socket on loopback whose datagrams carry the kernel's arrival time."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]

    def fileno(self) -> int:
        return self.sock.fileno()

    def read(self) -> list[tuple[bytes, int]]:
        """Every datagram waiting: (bytes, arrival in ns of CLOCK_REALTIME)."""
        out = []
        while True:
            try:
                data, anc, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(16))
            except BlockingIOError:
                return out
            t = None
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
                    sec, nsec = struct.unpack("=qq", payload[:16])
                    t = sec * 1_000_000_000 + nsec
            out.append((data, t if t is not None else time.time_ns()))

    def close(self) -> None:
        self.sock.close()


@dataclass
class Probe:
    """One run's sets and what came back: per set value, its send time, ack time and datagram time."""
    sent: dict[float, int] = field(default_factory=dict)        # value -> send ns
    seq_value: dict[int, float] = field(default_factory=dict)   # seq -> value
    unacked: list[int] = field(default_factory=list)            # seqs sent, not yet acked, in order
    acked: dict[float, int] = field(default_factory=dict)       # value -> ack read ns
    rejected: int = 0
    datagram: dict[float, int] = field(default_factory=dict)    # value -> arrival ns
    datagrams: int = 0
    unmatched: int = 0
    malformed: int = 0
    addresses: dict[str, int] = field(default_factory=dict)

    def frame(self, text: str, t: int) -> None:
        try:
            msg = json.loads(text)
        except ValueError:
            return
        if msg.get("type") == "update" and isinstance(msg.get("ack"), int):
            # An ack covers every seq up to it: a frame carries only the newest.
            while self.unacked and self.unacked[0] <= msg["ack"]:
                self.acked.setdefault(self.seq_value[self.unacked.pop(0)], t)
        elif msg.get("type") == "reject" and msg.get("seq") in self.seq_value:
            self.rejected += 1
            if msg["seq"] in self.unacked:
                self.unacked.remove(msg["seq"])

    def packet(self, data: bytes, t: int) -> None:
        self.datagrams += 1
        try:
            messages = osc_messages(data)
        except ValueError:
            self.malformed += 1
            return
        for address, args in messages:
            self.addresses[address] = self.addresses.get(address, 0) + 1
            if address != f"/{ROOM}/{CONTROL}" or len(args) != 1 or not isinstance(args[0], (int, float)):
                continue
            key = value_key(args[0])
            if key in self.sent and key not in self.datagram:
                self.datagram[key] = t
            elif key not in self.sent:
                self.unmatched += 1  # the start's dump (67) or a value no set of this run made

    def result(self) -> dict:
        osc = [self.datagram[v] - t for v, t in self.sent.items() if v in self.datagram]
        ack = [self.acked[v] - t for v, t in self.sent.items() if v in self.acked]
        after = [self.datagram[v] - self.acked[v] for v in self.sent if v in self.datagram and v in self.acked]
        order = sorted(self.sent, key=self.sent.get)  # in send order
        return {"oscMsBySet": [round((self.datagram[v] - self.sent[v]) / 1e6, 3) if v in self.datagram else None
                               for v in order],
                "sent": len(self.sent), "acked": len(self.acked), "rejected": self.rejected,
                "matched": len(osc), "missing": sum(1 for v in self.acked if v not in self.datagram),
                "unmatchedDatagrams": self.unmatched, "datagrams": self.datagrams, "malformed": self.malformed,
                "addresses": dict(sorted(self.addresses.items())),
                "osc": spread_ms(osc), "ack": spread_ms(ack),
                "oscAfterAck": {"count": len(after), "p50": percentile([x / 1e6 for x in after], 50),
                                "p99": percentile([x / 1e6 for x in after], 99),
                                "max": max(after) / 1e6 if after else None}}


def probe(port: int, receiver: Receiver, seconds: float, hz: float, tail: float = 1.0) -> tuple[Probe, float]:
    """Sets `bpm` at `hz` for `seconds`, then listens `tail` more seconds for late answers."""
    p = Probe()
    ws = ProbeSocket(port, f"/rooms/{ROOM}?name=osc-probe")
    try:
        welcomed = False
        deadline = time.monotonic() + 10
        while not welcomed:
            if time.monotonic() > deadline:
                raise RuntimeError("no welcome within 10 s")
            for text in ws.read() or []:
                welcomed = welcomed or json.loads(text).get("type") == "welcome"
        for data, t in receiver.read():  # the start's dump, and anything before the probe
            p.packet(data, t)
        p.datagrams, p.unmatched, p.addresses = 0, 0, {}
        period = 1 / hz
        start = time.monotonic()
        stop_sending = start + seconds
        end = stop_sending + tail
        i, seq = 0, 0
        next_send = start
        while True:
            now = time.monotonic()
            if now >= end:
                break
            if now >= next_send and now < stop_sending:
                seq += 1
                value = probe_value(i)
                i += 1
                p.seq_value[seq] = value
                p.unacked.append(seq)
                p.sent[value] = ws.send_text(json.dumps({"type": "set", "seq": seq, "control": CONTROL, "value": value}))
                next_send += period
                if next_send < now:  # fell behind (the core was busy): no burst to catch up
                    next_send = now + period
                continue
            wait = (min(next_send, end) if now < stop_sending else end) - now
            ready, _, _ = select.select([ws, receiver], [], [], max(0.0, wait))
            for r in ready:
                if r is receiver:
                    for data, t in receiver.read():
                        p.packet(data, t)
                else:
                    texts = ws.read()
                    t = time.time_ns()
                    if texts is None:
                        raise RuntimeError("the server closed the probe's connection")
                    for text in texts:
                        p.frame(text, t)
        return p, time.monotonic() - start
    finally:
        ws.close()


# --------------------------------------------------------------------------
# Processes


def _preexec() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    os.setsid()


def http_get(port: int, path: str, timeout: float = 1.0) -> tuple[int, str] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except Exception:
        return None


def metric(port: int, name: str) -> float | None:
    got = http_get(port, "/metrics")
    if not got:
        return None
    for line in got[1].splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            try:
                return float(line.rsplit(" ", 1)[1])
            except ValueError:
                return None
    return None


def cpu_busy_seconds() -> float:
    """Every core's busy time so far (user, nice, system, irq, softirq, steal), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def ours_seconds(pids: list[int]) -> float:
    """The CPU of the bench's own processes: the server, the generator, this script."""
    t = os.times()
    return sum(proc_cpu_seconds(p) or 0.0 for p in pids) + t.user + t.system


def server_argv(binary: str, port: int, storage: str, folder: Path, osc_port: int, previews: bool = False) -> list[str]:
    data = ":memory:" if storage == "memory" else str(folder / "tandem.db")
    return [binary, "--host", "127.0.0.1", "--port", str(port), "--data", data, "--log-level", "warn",
            "--osc-send", f"udp://127.0.0.1:{osc_port}"] + (["--osc-previews"] if previews else [])


class Server:
    def __init__(self, argv: list[str], port: int, log: Path):
        self.port = port
        self.log = log
        self.handle = log.open("wb")
        self.proc = subprocess.Popen(pinned(SERVER_CORE, argv), stdin=subprocess.DEVNULL, stdout=self.handle,
                                     stderr=subprocess.STDOUT, preexec_fn=_preexec)
        deadline = time.monotonic() + 20
        while not (got := http_get(port, "/healthz", 0.5)) or got[0] != 200:
            if self.proc.poll() is not None:
                raise RuntimeError(f"tandem exited ({self.proc.returncode}): {self.tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"tandem: no /healthz within 20 s: {self.tail()}")
            time.sleep(0.05)

    @property
    def pid(self) -> int:
        return self.proc.pid  # taskset execs the server: same pid

    def tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-600:]
        except OSError:
            return ""

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.handle.close()
        return self.proc.returncode


def generator_summary(report: dict) -> dict:
    lat = report.get("latencyNs") or {}
    return {"passed": report.get("passed"), "valid": report.get("valid"),
            "deliveredPct": ((report.get("updates") or {}).get("deliveredShare") or 0) * 100,
            "p50Ms": lat["p50"] / 1e6 if lat.get("count") else None,
            "p99Ms": lat["p99"] / 1e6 if lat.get("count") else None,
            "serverPct": ((report.get("serverCPU") or {}).get("coreShare") or 0) * 100,
            "generatorPct": ((report.get("generatorCPU") or {}).get("coreShare") or 0) * 100}


def start_s2h(a: argparse.Namespace, port: int, server_pid: int, out: Path, name: str) -> tuple[subprocess.Popen, Any]:
    """tandem-bench with S2h's load against the demo room, pinned to the generator's core, its report
    in out/NAME.json and its output in out/NAME.txt; returns once its clients are all in (its measured
    window starts after the warm-up that follows). Also bench/series.py's."""
    cmd = [a.bench_binary, "--url", f"ws://127.0.0.1:{port}/rooms/{ROOM}", *S2H,
           "--duration", fmt(a.duration), "--warmup", fmt(a.warmup), "--pid", str(server_pid),
           "--json", str(out / f"{name}.json")]
    (out / f"{name}.json").unlink(missing_ok=True)
    gen_out = (out / f"{name}.txt").open("wb")
    gen = subprocess.Popen(pinned(GENERATOR_CORE, cmd), stdin=subprocess.DEVNULL, stdout=gen_out,
                           stderr=subprocess.STDOUT, preexec_fn=_preexec)
    deadline = time.monotonic() + 60
    while (metric(port, "tandem_connections") or 0) < int(S2H[1]):
        if gen.poll() is not None:
            gen_out.close()
            raise RuntimeError(f"tandem-bench exited ({gen.returncode}) before its clients were in")
        if time.monotonic() > deadline:
            os.killpg(gen.pid, signal.SIGKILL)
            gen_out.close()
            raise RuntimeError("tandem-bench's clients were not all in within 60 s")
        time.sleep(0.1)
    return gen, gen_out


def finish_s2h(gen: subprocess.Popen, a: argparse.Namespace, out: Path, name: str) -> dict | None:
    """Waits for `start_s2h`'s generator to end (killed if it overstays) and summarizes its report; None without one."""
    try:
        gen.wait(a.duration + a.warmup + 120)
    except subprocess.TimeoutExpired:
        os.killpg(gen.pid, signal.SIGKILL)
        gen.wait(5)
    try:
        return generator_summary(json.loads((out / f"{name}.json").read_text()))
    except (OSError, ValueError):
        return None


def one_run(storage: str, load: str, run: int, a: argparse.Namespace, out: Path, tmp: Path) -> dict:
    name = f"{storage}-{load}-{run}"
    folder = tmp / name
    folder.mkdir()
    receiver = Receiver()
    port = free_port()
    server = None
    gen = None
    gen_out = None
    try:
        server = Server(server_argv(a.tandem_binary, port, storage, folder, receiver.port, a.previews), port,
                        out / f"{name}.server.log")
        if load == "S2h":
            gen, gen_out = start_s2h(a, port, server.pid, out, name)
            time.sleep(a.warmup + 0.2)
            seconds = max(1.0, a.duration - 1.0)  # inside the generator's measured window
        else:
            seconds = a.duration
        for data, t in receiver.read():
            pass
        # Whatever else ran meanwhile (another build, another test) shows as CPU that is not ours.
        pids = [server.pid] + ([gen.pid] if gen else [])
        busy0, ours0 = cpu_busy_seconds(), ours_seconds(pids)
        p, elapsed = probe(port, receiver, seconds, a.hz)
        busy1, ours1 = cpu_busy_seconds(), ours_seconds(pids)
        result = p.result()
        result["otherCPU"] = max(0.0, (busy1 - busy0) - (ours1 - ours0)) / elapsed if elapsed else None
        result["datagramsPerSecond"] = p.datagrams / elapsed if elapsed else None
        if gen:
            result["generator"] = finish_s2h(gen, a, out, name)
            if result["generator"] is None:
                result["generatorError"] = f"no report (see {name}.txt)"
        result["osc_metrics"] = {k: metric(port, k) for k in ("tandem_osc_sent_total", "tandem_osc_send_errors_total")}
        result.update(storage=storage, load=load, run=run)
        return result
    finally:
        if gen and gen.poll() is None:
            os.killpg(gen.pid, signal.SIGKILL)
            gen.wait(5)
        if gen_out:
            gen_out.close()
        if server:
            server.stop()
        receiver.close()


# --------------------------------------------------------------------------
# Main


def choices(text: str, allowed: tuple[str, ...], flag: str) -> list[str]:
    picked = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in picked if x not in allowed]
    if bad or not picked:
        raise argparse.ArgumentTypeError(f"{flag}: one or more of {', '.join(allowed)}, not {text!r}")
    return picked


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="OSC bridge: WebSocket commit to OSC datagram, measured.")
    p.add_argument("--storage", default=",".join(STORAGES), type=lambda t: choices(t, STORAGES, "--storage"),
                   help="memory,sqlite (default both)")
    p.add_argument("--load", default=",".join(LOADS), type=lambda t: choices(t, LOADS, "--load"),
                   help="idle,S2h (default both)")
    p.add_argument("--runs", type=int, help="runs of each configuration (default 3; --quick 1)")
    p.add_argument("--duration", type=float, help="seconds of probing, and the generator's --duration (default 20; --quick 3)")
    p.add_argument("--warmup", type=float, help="the generator's --warmup (default 3; --quick 1)")
    p.add_argument("--hz", type=float, default=20.0, help="the probe's sets per second (default 20)")
    p.add_argument("--previews", action="store_true",
                   help="start the server with --osc-previews: the draggers' previews go out too (S2h: 4 thumbs at 60 Hz)")
    p.add_argument("--quick", action="store_true", help="a smoke: 1 run of 3 s")
    p.add_argument("--tandem-binary", default=str(DEFAULT_TANDEM))
    p.add_argument("--bench-binary", default=str(DEFAULT_BENCH))
    p.add_argument("--out", default=str(DEFAULT_OUT), help="results folder (default bench/results/osc)")
    a = p.parse_args(argv)
    a.runs = a.runs if a.runs is not None else (1 if a.quick else 3)
    a.duration = a.duration if a.duration is not None else (3 if a.quick else 20)
    a.warmup = a.warmup if a.warmup is not None else (1 if a.quick else 3)
    if a.runs < 1 or a.duration < 2 or not 0 < a.hz <= 200:
        p.error("--runs at least 1, --duration at least 2, --hz in (0, 200]")
    return a


def commands(a: argparse.Namespace, argv: list[str]) -> list[str]:
    rel = lambda p: os.path.relpath(p, ROOT) if os.path.isabs(p) and not os.path.relpath(p, ROOT).startswith("..") else p
    t, b = rel(a.tandem_binary), rel(a.bench_binary)
    return [
        "# the runner",
        " ".join(["python3", "bench/osc.py", *map(shlex.quote, argv)]),
        f"# core {SERVER_CORE}, fresh per run; P a free port, U this script's UDP port; sqlite: --data TMP/tandem.db",
        f"taskset -c {SERVER_CORE} {t} --host 127.0.0.1 --port P --data :memory: --log-level warn --osc-send udp://127.0.0.1:U"
        + (" --osc-previews" if a.previews else ""),
        f"# S2h runs, core {GENERATOR_CORE}; the probe (this script, core {GENERATOR_CORE}) sets {CONTROL} at "
        f"{fmt(a.hz)} Hz in the generator's measured window",
        f"taskset -c {GENERATOR_CORE} {b} --url ws://127.0.0.1:P/rooms/{ROOM} {' '.join(S2H)} "
        f"--duration {fmt(a.duration)} --warmup {fmt(a.warmup)} --pid SERVERPID --json …",
    ]


def markdown(result: dict) -> str:
    lines = [f"Run {result['date']} on {result['machine']}"
             + (f", load average {result['loadAtStart']:.2f} at the start" if "loadAtStart" in result else "") + ".",
             "", "```sh", *result["commands"], "```", "",
             f"{result['runsPerConfig']} run(s) per configuration, interleaved; medians of the runs' p50, p99 and max; "
             "counts summed over the runs. OSC: set sent → datagram in the receiver's socket (kernel time stamp); "
             "ack: set sent → its ack read by the probe. Other CPU: busy time of both cores (/proc/stat) "
             "that was not the server's, the generator's or this script's, as a share of one core, during the "
             "probing; more than a few % means something else ran and the run is suspect.", ""]
    lines += markdown_table(result["summary"])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    a = parse_args(argv)
    binaries = [a.tandem_binary] + ([a.bench_binary] if "S2h" in a.load else [])
    for binary in binaries:
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            print(f"bench-osc: {binary} is not an executable file (make bench-osc builds it)", file=sys.stderr)
            return 2
    usage = subprocess.run([a.tandem_binary, "--help"], capture_output=True, text=True).stdout
    if "--osc-send" not in usage:
        print(f"bench-osc: {a.tandem_binary} has no --osc-send (built before the OSC bridge?)", file=sys.stderr)
        return 2
    if (os.cpu_count() or 1) >= 2:
        try:
            os.sched_setaffinity(0, {int(GENERATOR_CORE)})
        except OSError:
            pass
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    result: dict[str, Any] = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "machine": machine(),
                              "commands": commands(a, argv), "runsPerConfig": a.runs, "hz": a.hz,
                              "duration": a.duration, "warmup": a.warmup, "control": CONTROL, "previews": a.previews}
    try:
        result["loadAtStart"] = float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-osc-") as tmpname:
        for run in range(1, a.runs + 1):
            for storage in a.storage:
                for load in a.load:
                    key = f"{storage}/{load}"
                    try:
                        r = one_run(storage, load, run, a, out, Path(tmpname))
                    except RuntimeError as e:
                        print(f"{key:<14} run {run}: FAILED: {e}", flush=True)
                        runs.setdefault(key, [])
                        continue
                    runs.setdefault(key, []).append(r)
                    g = r.get("generator")
                    print(f"{key:<14} run {run}: other CPU {f((r.get('otherCPU') or 0) * 100, 0)} %  "
                          f"sets {r['sent']} acked {r['acked']} matched {r['matched']} "
                          f"missing {r['missing']}  OSC p50 {f(r['osc']['p50'])} p99 {f(r['osc']['p99'])} "
                          f"max {f(r['osc']['max'])} ms  ack p50 {f(r['ack']['p50'])} p99 {f(r['ack']['p99'])} ms"
                          + (f"  [generator {'PASS' if g['passed'] else 'FAIL'}{'' if g['valid'] else ' INVALID'}, "
                             f"delivered {f(g['deliveredPct'], 1)} %, p99 {f(g['p99Ms'], 1)} ms, "
                             f"generator {f(g['generatorPct'], 0)} %]" if g else ""), flush=True)
    result["runs"] = runs
    result["summary"] = {k: summarize(v) for k, v in runs.items() if v}
    md = markdown(result)
    print()
    print(md)
    (out / "osc.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "osc.md").write_text(md + "\n")
    print(f"\nbench-osc: results in {out}/ (osc.json, osc.md)", flush=True)
    failed = [k for k, v in runs.items() if not v]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
