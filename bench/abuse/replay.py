#!/usr/bin/env python3
"""Replays the resource abuses of the attacker's list (docs/security.md) at
full size against a real `tandem` and prints what /healthz, the server's CPU,
memory and log did meanwhile.

    python3 bench/abuse/replay.py burst   # 20,000 connects at once
    python3 bench/abuse/replay.py fdlimit # server under `ulimit -n 1024`, 3,000 sockets
    python3 bench/abuse/replay.py slow    # 1,100 slow, never-finished handshakes
    python3 bench/abuse/replay.py rooms   # 100,000 room creations

Numbers, not pass/fail: the tests that assert the answers are in
pytests/integration/test_abuse_replay.py. See bench/abuse/README.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TICKS = os.sysconf("SC_CLK_TCK")


class Server:
    """`tandem --port 0 --data :memory:` (optionally under `ulimit -n N`), stderr lines timestamped."""

    def __init__(self, binary: str, flags: list[str], nofile: int | None = None):
        command = [binary, "--port", "0", "--data", ":memory:", *flags]
        if nofile:
            command = ["sh", "-c", f"ulimit -n {nofile}; exec \"$@\"", "sh", *command]
        self.proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, errors="replace", bufsize=1)
        self.lines: list[tuple[float, str]] = []
        self.port = None
        started = threading.Event()

        def read():
            for line in self.proc.stderr:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                match = re.search(r"listening on http://\S+?:(\d+) ", line)
                if match:
                    self.port = int(match.group(1))
                    started.set()
        threading.Thread(target=read, daemon=True).start()
        if not started.wait(10):
            sys.exit("no start line")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def metrics(self) -> dict[str, float]:
        text = ""
        for _ in range(5):  # a fresh connection may wait behind a flood in the kernel's accept queue
            status, text = http(self.port, "GET", "/metrics")
            if status == 200:
                break
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                out[name] = float(value)
        return out

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def listen_overflows() -> int:
    """The kernel's count of connections dropped because a listen queue was full (TcpExt ListenOverflows)."""
    lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines() if line.startswith("TcpExt:")]
    return int(dict(zip(lines[0], lines[1]))["ListenOverflows"])


def http(port: int, method: str, path: str, body: bytes = b"", timeout: float = 3.0) -> tuple[int | None, str]:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
            if body:
                head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            sock.sendall(head.encode() + b"\r\n" + body)
            data = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        status = int(data.split(b" ", 2)[1])
        return status, data.partition(b"\r\n\r\n")[2].decode(errors="replace")
    except (OSError, ValueError, IndexError):
        return None, ""


class Prober:
    """GET /healthz on a fresh connection every `every` s; records (time, status, seconds)."""

    def __init__(self, port: int, every: float = 0.25):
        self.port, self.every, self.results, self.running = port, every, [], True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            started = time.monotonic()
            status, _ = http(self.port, "GET", "/healthz", timeout=3.0)
            self.results.append((started, status, time.monotonic() - started))
            time.sleep(max(0.0, self.every - (time.monotonic() - started)))

    def stop(self):
        self.running = False
        self.thread.join(5)

    def summary(self, since: float = 0.0, until: float = float("inf")) -> str:
        window = [r for r in self.results if since <= r[0] < until]
        ok = [r for r in window if r[1] == 200]
        slowest = max((r[2] for r in ok), default=0.0)
        return f"{len(ok)}/{len(window)} probes 200, slowest {slowest * 1000:.0f} ms"


class KeptAliveProber(Prober):
    """GET /healthz every `every` s on one kept-alive connection opened before the abuse (a client already in)."""

    def run(self):
        import http.client as httpclient
        connection = httpclient.HTTPConnection("127.0.0.1", self.port, timeout=3)
        while self.running:
            started = time.monotonic()
            try:
                connection.request("GET", "/healthz", headers={"Host": f"127.0.0.1:{self.port}"})
                response = connection.getresponse()
                response.read()
                status = response.status
            except (OSError, httpclient.HTTPException):
                status = None
                connection.close()
                connection = httpclient.HTTPConnection("127.0.0.1", self.port, timeout=3)
            self.results.append((started, status, time.monotonic() - started))
            time.sleep(max(0.0, self.every - (time.monotonic() - started)))


class CPUSampler:
    """The server's CPU use (% of one core) every `every` s, as (time, percent)."""

    def __init__(self, server: Server, every: float = 0.5):
        self.server, self.every, self.samples, self.running = server, every, [], True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        last_t, last_cpu = time.monotonic(), self.server.cpu_seconds()
        while self.running:
            time.sleep(self.every)
            try:
                now_t, now_cpu = time.monotonic(), self.server.cpu_seconds()
            except OSError:
                return
            self.samples.append((now_t, 100 * (now_cpu - last_cpu) / (now_t - last_t)))
            last_t, last_cpu = now_t, now_cpu

    def stop(self):
        self.running = False
        self.thread.join(5)

    def summary(self, since: float = 0.0, until: float = float("inf")) -> str:
        window = [p for t, p in self.samples if since <= t < until]
        if not window:
            return "CPU n/a"
        return f"CPU mean {sum(window) / len(window):.0f} %, peak {max(window):.0f} %"


def failures(prober: Prober, t0: float) -> str:
    failed = [f"{r[0] - t0:+.1f}s" for r in prober.results if r[1] != 200]
    return f" (failed at {', '.join(failed)} from the start)" if failed else ""


def log_rate(server: Server, since: float, until: float) -> str:
    lines = [l for t, l in server.lines if since <= t < until]
    minutes = max(until - since, 1e-9) / 60
    return f"{len(lines)} log lines in {until - since:.1f} s ({len(lines) / minutes:.0f}/min)"


def cpu_over(server: Server, seconds: float) -> float:
    before, start = server.cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    return 100 * (server.cpu_seconds() - before) / (time.monotonic() - start)


def _open_sockets(port: int, n: int, payload: bytes, hold: float, queue) -> None:
    """A child process: `n` non-blocking connects at once (each sends `payload` once connected), held `hold` s."""
    socks = []
    for _ in range(n):
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.connect_ex(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        socks.append(sock)
    time.sleep(0.5)
    sent = 0
    if payload:
        for sock in socks:
            try:
                sock.send(payload)
                sent += 1
            except OSError:
                pass
    queue.put(len(socks))
    time.sleep(hold)
    for sock in socks:
        sock.close()


def open_in_processes(port: int, total: int, payload: bytes, hold: float, per_process: int = 9000):
    queue = multiprocessing.Queue()
    procs = []
    while total > 0:
        n = min(per_process, total)
        total -= n
        proc = multiprocessing.Process(target=_open_sockets, args=(port, n, payload, hold, queue))
        proc.start()
        procs.append(proc)
    opened = sum(queue.get(timeout=120) for _ in procs)
    return procs, opened


def burst(binary: str, args) -> None:
    server = Server(binary, args.flags)
    prober = Prober(server.port)
    kept = KeptAliveProber(server.port)
    cpu = CPUSampler(server)
    time.sleep(1)
    overflows = listen_overflows()
    t0 = time.monotonic()
    procs, opened = open_in_processes(server.port, args.n, b"", hold=10)
    t_open = time.monotonic()
    time.sleep(3)
    m = server.metrics()
    for proc in procs:
        proc.join()
    t_closed = time.monotonic()
    time.sleep(5)
    prober.stop()
    kept.stop()
    cpu.stop()
    print(f"burst: {opened} connects opened in {t_open - t0:.1f} s, held 10 s; flags {args.flags}")
    print(f"  while connecting: {prober.summary(t0, t_open)}; {cpu.summary(t0, t_open)}")
    print(f"  while held:       {prober.summary(t_open, t_closed)}; {cpu.summary(t_open, t_closed)}")
    print(f"  after:            {prober.summary(t_closed)}; {cpu.summary(t_closed + 1)}{failures(prober, t0)}")
    print(f"  on a connection opened before: {kept.summary(t0, t_closed)} during; {kept.summary(t_closed)} after")
    print(f"  metrics: sockets={m.get('tandem_sockets')} displaced={m.get('tandem_connections_displaced_total')} "
          f"refused={ {k: v for k, v in m.items() if k.startswith('tandem_connections_refused_total') and v} } "
          f"header_timeouts={m.get('tandem_header_timeouts_total')} accept_errors={m.get('tandem_accept_errors_total')}")
    print(f"  log: {log_rate(server, t0, time.monotonic())}; RSS {server.rss_mib():.0f} MiB; "
          f"kernel listen-queue overflows (whole machine): {listen_overflows() - overflows}")
    server.stop()


def fdlimit(binary: str, args) -> None:
    server = Server(binary, args.flags, nofile=1024)
    time.sleep(0.2)
    limits = [l for _, l in server.lines if "limits:" in l]
    print(limits[0] if limits else "(no limits line)")
    prober = Prober(server.port)
    cpu = CPUSampler(server)
    time.sleep(1)
    t0 = time.monotonic()
    procs, opened = open_in_processes(server.port, args.n, b"GET /rooms/demo HTTP/1.1\r\n", hold=12)
    t_open = time.monotonic()
    time.sleep(2)
    m = server.metrics()
    for proc in procs:
        proc.join()
    t_closed = time.monotonic()
    time.sleep(4)
    prober.stop()
    cpu.stop()
    accept_lines = sum(1 for t, l in server.lines if "accept" in l and t >= t0)
    print(f"fdlimit: ulimit -n 1024, {opened} sockets opened (half requests), held 12 s; flags {args.flags}")
    print(f"  while held: {prober.summary(t0, t_closed)}; {cpu.summary(t0, t_closed)}")
    print(f"  after:      {prober.summary(t_closed)}; {cpu.summary(t_closed + 1)}{failures(prober, t0)}")
    print(f"  metrics 2 s after opening: sockets={m.get('tandem_sockets')} accept_errors={m.get('tandem_accept_errors_total')} "
          f"displaced={m.get('tandem_connections_displaced_total')} header_timeouts={m.get('tandem_header_timeouts_total')}")
    print(f"  log: {log_rate(server, t0, time.monotonic())}, of which {accept_lines} mention accept")
    server.stop()


def slow(binary: str, args) -> None:
    server = Server(binary, args.flags)
    prober = Prober(server.port, every=0.5)
    time.sleep(1)
    t0 = time.monotonic()
    procs, opened = open_in_processes(server.port, args.n, b"GET /rooms/demo HTTP/1.1\r\nHost: 127.0.0.1\r\n", hold=8)
    cpu_during = cpu_over(server, 6)
    for proc in procs:
        proc.join()
    t_closed = time.monotonic()
    time.sleep(2)
    prober.stop()
    m = server.metrics()
    print(f"slow: {opened} slow handshakes (first line and Host, never finished), held 8 s (deadline 5 s)")
    print(f"  during: {prober.summary(t0, t_closed)}; server CPU {cpu_during:.0f} %")
    print(f"  after:  {prober.summary(t_closed)}; header_timeouts={m.get('tandem_header_timeouts_total')}")
    print(f"  log: {log_rate(server, t0, time.monotonic())}")
    server.stop()


def rooms(binary: str, args) -> None:
    server = Server(binary, args.flags)
    rss0 = server.rss_mib()
    prober = Prober(server.port, every=0.5)
    import http.client as httpclient
    connection = httpclient.HTTPConnection("127.0.0.1", server.port, timeout=10)
    counts: dict[int, int] = {}
    t0 = time.monotonic()
    t_full = None
    for i in range(args.n):
        body = json.dumps({"id": f"r{i}", "title": "x" * 100,
                           "controls": [{"id": "k", "type": "slider", "min": 0, "max": 10}]})
        try:
            connection.request("POST", "/api/rooms", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            status = response.status
        except (OSError, httpclient.HTTPException):
            connection.close()
            connection = httpclient.HTTPConnection("127.0.0.1", server.port, timeout=10)
            status = None
        counts[status] = counts.get(status, 0) + 1
        if status == 409 and t_full is None:
            t_full = time.monotonic()
    t_end = time.monotonic()
    cpu_idle = cpu_over(server, 5)
    prober.stop()
    m = server.metrics()
    refused = args.n - counts.get(201, 0)
    too_many = m.get('tandem_http_refused_total{reason="too_many_rooms"}')
    print(f"rooms: {args.n} POST /api/rooms (100-character titles) in {t_end - t0:.1f} s: {counts}")
    if t_full:
        print(f"  past --max-rooms: {refused} refused in {t_end - t_full:.1f} s ({refused / (t_end - t_full):.0f}/s)")
    print(f"  RSS {rss0:.0f} MiB before, {server.rss_mib():.0f} MiB after; idle CPU after {cpu_idle:.0f} %")
    print(f"  GET /api/rooms: {len(http(server.port, 'GET', '/api/rooms')[1])} bytes; rooms={m.get('tandem_rooms')} "
          f"too_many_rooms={too_many}")
    print(f"  healthz meanwhile: {prober.summary()}; log: {log_rate(server, t0, time.monotonic())}")
    server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("abuse", choices=["burst", "fdlimit", "slow", "rooms"])
    parser.add_argument("-n", type=int, help="size (defaults: 20000, 3000, 1100, 100000)")
    parser.add_argument("--binary", default=str(ROOT / ".build" / "debug" / "tandem"))
    args, extra = parser.parse_known_args()  # more server flags, after --
    args.flags = [flag for flag in extra if flag != "--"]
    args.n = args.n or {"burst": 20000, "fdlimit": 3000, "slow": 1100, "rooms": 100000}[args.abuse]
    {"burst": burst, "fdlimit": fdlimit, "slow": slow, "rooms": rooms}[args.abuse](args.binary, args)


if __name__ == "__main__":
    main()
