#!/usr/bin/env python3
"""How fast the timeline reads a past revision of a long session.

Fills the demo room of a fresh server with N commits (default 100,000)
through the HTTP API — PUTs of every demo control in turn, and a restore
(one revision of several rows) every 10,000 — so the file is exactly what a
server writes, snapshots included. Then times `GET /api/rooms/demo/timeline/{rev}`
at revisions just after, between and just before snapshots, near the start,
the middle and the end; then the same on a copy of the file whose snapshots
were deleted (a log from before snapshots existed: every read replays from
revision 0). Prints a Markdown table of client-side latency over one
keep-alive connection on loopback (median and p95 of --samples requests).

    swift build -c release --product tandem
    .venv/bin/python bench/timeline/timeline_bench.py                  # 100,000 commits
    .venv/bin/python bench/timeline/timeline_bench.py --commits 5000 --samples 5   # a smoke

See docs/timeline.md and the timeline section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_LINE = re.compile(r"listening on http://\S+?:(\d+) ")


class Server:
    def __init__(self, binary: Path, data: Path):
        self.proc = subprocess.Popen([str(binary), "--port", "0", "--data", str(data)], cwd=ROOT,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        deadline = time.monotonic() + 30
        self.port = None
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            match = START_LINE.search(line)
            if match:
                self.port = int(match.group(1))
                break
        if self.port is None:
            self.proc.kill()
            sys.exit("tandem did not start")
        # Keep reading its log so the pipe never fills.
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def request(self, method: str, path: str, body=None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data else {}
        self.conn.request(method, path, data, headers)
        response = self.conn.getresponse()
        raw = response.read()
        return response.status, (json.loads(raw) if raw else None)

    def stop(self) -> None:
        self.conn.close()
        self.proc.terminate()
        self.proc.wait(30)


def fill(server: Server, commits: int) -> float:
    """N revisions in the demo room; returns commits per second."""
    colours = ["#336699", "#FF8800", "#00AA55", "#AA00CC"]
    start = time.perf_counter()
    for rev in range(1, commits + 1):
        if rev % 10_000 == 0:
            status, body = server.request("POST", "/api/rooms/demo/restore", {"rev": rev - 5_000})
        else:
            match rev % 5:
                case 0: status, body = server.request("PUT", "/api/rooms/demo/controls/gain", {"value": (rev % 101) / 100})
                case 1: status, body = server.request("PUT", "/api/rooms/demo/controls/size", {"value": [20, 40, 60, 80, 100][(rev // 5) % 5]})
                case 2: status, body = server.request("PUT", "/api/rooms/demo/controls/color", {"value": colours[rev % 4]})
                case 3: status, body = server.request("PUT", "/api/rooms/demo/controls/bpm", {"value": rev % 171})
                case _: status, body = server.request("PUT", "/api/rooms/demo/controls/blanks", {"thumb": "upper", "value": 1 + rev % 3})
        if status != 200:
            sys.exit(f"commit {rev}: HTTP {status} {body}")
        if rev % 10_000 == 0:
            print(f"  {rev} commits, {rev / (time.perf_counter() - start):.0f}/s", file=sys.stderr)
    return commits / (time.perf_counter() - start)


def time_reads(server: Server, revisions: list[int], samples: int) -> dict[int, tuple[float, float, int]]:
    """rev -> (median ms, p95 ms, response bytes)."""
    out = {}
    for rev in revisions:
        status, body = server.request("GET", f"/api/rooms/demo/timeline/{rev}")  # warm the statement cache
        assert status == 200, (rev, status, body)
        times = []
        for _ in range(samples):
            t = time.perf_counter()
            status, body = server.request("GET", f"/api/rooms/demo/timeline/{rev}")
            times.append((time.perf_counter() - t) * 1000)
            assert status == 200
        times.sort()
        out[rev] = (statistics.median(times), times[min(len(times) - 1, int(0.95 * len(times)))], len(json.dumps(body)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", type=Path, default=ROOT / ".build" / "release" / "tandem")
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--data", type=Path, help="keep the filled file here (default: a temporary folder)")
    args = parser.parse_args()
    if not args.binary.is_file():
        sys.exit(f"no {args.binary}: swift build -c release --product tandem")

    folder = Path(tempfile.mkdtemp(prefix="tandem-timeline-bench-"))
    data = args.data or folder / "tandem.db"
    if data.exists():
        sys.exit(f"{data} exists: give a new path")
    n = args.commits
    try:
        server = Server(args.binary, data)
        print(f"filling the demo room with {n} commits …", file=sys.stderr)
        rate = fill(server, n)
        status, summary = server.request("GET", "/api/rooms/demo/timeline")
        t = time.perf_counter()
        for _ in range(args.samples):
            server.request("GET", "/api/rooms/demo/timeline")
        summary_ms = (time.perf_counter() - t) * 1000 / args.samples
        last = summary["last"]  # a restore of a moment equal to now makes no revision
        picks = sorted({r for r in (1, 250, 499, 500, 501, 999, last // 2, last // 2 + 250, last // 2 + 499, last - 1, last)
                        if 1 <= r <= last})
        with_snapshots = time_reads(server, picks, args.samples)
        server.stop()
        with sqlite3.connect(data) as db:
            snapshots = db.execute("SELECT count(*) FROM snapshots").fetchone()[0]
            rows = db.execute("SELECT count(*) FROM commits").fetchone()[0]
        bare = folder / "no-snapshots.db"
        shutil.copy(data, bare)
        with sqlite3.connect(bare) as db:
            db.execute("DELETE FROM snapshots")
        server = Server(args.binary, bare)
        without = time_reads(server, picks, max(3, args.samples // 6))
        server.stop()
    finally:
        if args.data is None:
            shutil.rmtree(folder, ignore_errors=True)

    print(f"{n} commits, {last} revisions ({rows} log rows, {snapshots} snapshots), filled at {rate:.0f} commits/s over HTTP; "
          f"GET /timeline (range + {len(summary['marks'])} marks): {summary_ms:.2f} ms\n")
    print("| revision | with snapshots: median | p95 | without snapshots: median | p95 |")
    print("|---|---|---|---|---|")
    for rev in picks:
        a, b = with_snapshots[rev], without[rev]
        print(f"| {rev:,} | {a[0]:.2f} ms | {a[1]:.2f} ms | {b[0]:.2f} ms | {b[1]:.2f} ms |")


if __name__ == "__main__":
    main()
