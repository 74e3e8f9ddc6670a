"""`make bench-series`: how many gauge publishes one node takes into its series
while S2h's fan-out runs, and what a series costs on disk per control per day.

Per run: a fresh release `tandem` pinned to core 0 with a SQLite file in a
temporary folder; tandem-bench pinned to core 1 with S2h's load (504 clients
of which 4 drag at 60 Hz) against the demo room; and, on core 0 beside the
server (`--publisher-core`), this script's publishers: `--gauges` WebSocket members of a room of that many
gauges (`series-bench`), each publishing its own gauge with `set` at
`rate / gauges` per second (a training loop's `publish`, without the Python
SDK's folding to 50/s: the point is what the server takes), one distinct
value each, for the generator's measured window. The publishers share the
server's core, so their CPU is taken from the server's (the numbers are
conservative); on the generator's core they starved the generator instead
(2026-12-04: S2h p99 40 ms and 92 % delivered at 1,000/s, against 20 ms and
99 % with them on core 0, and the same with `--data :memory:`). Per run:

    offered      publishes sent per second
    acked        publishes the server acknowledged per second (each one a commit,
                 written to the file and recorded into its gauge's series)
    refused      rejects (a connection's 300/s rate limit, if a publisher went over)
    ack p50/p99  send -> ack, read by this script (on the server's core)
    values       tandem_series_values_total over the window, per second
    S2h          the generator's p99, delivery and pass/fail, as `make bench` reports them
    server CPU   the server's share of its core over the window

After the last run: the series table of the file, measured with SQLite's
`dbstat` (its bytes, its rows, bytes per row), and what one control's
series comes to after a day of steady publishing (4,164 buckets: every tier
but the last full, 144 of the 10-minute tier) and at most ever (8,340
buckets: all five tiers full, 30 days and on), whatever the rate; and the
series endpoint asked for 200 points answers at most 200.

Results in --out (default bench/results/series/): series.json, series.md,
each generator report and output, each server log. See docs/benchmarks.md
("Series").

    python3 bench/series.py                      # rates 0 (S2h alone),1000,4000, 3 runs each, 10 s
    python3 bench/series.py --quick              # 1000 only, 1 run of 4 s
    python3 bench/series.py --rates 500,2000,6000 --runs 2
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import ROOT, fmt, free_port, machine, percentile  # noqa: E402
from osc import Server, finish_s2h, metric, start_s2h  # noqa: E402

DEFAULT_TANDEM = ROOT / ".build" / "release" / "tandem"
DEFAULT_BENCH = ROOT / ".build" / "release" / "tandem-bench"
ROOM = "series-bench"
SERVER_CORE = "0"
# Buckets one control's series holds (SeriesTier.standard): after a day, and at most.
DAY_BUCKETS = 600 + 900 + 1_080 + 1_440 + 144
MAX_BUCKETS = 600 + 900 + 1_080 + 1_440 + 4_320


def room_body(gauges: int) -> dict:
    return {"id": ROOM, "title": "Series bench", "controls": [
        {"id": f"g{i}", "type": "gauge", "label": f"Gauge {i}", "min": 0, "max": 1000} for i in range(gauges)]}


def http(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict | list | None]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None


class Publisher(threading.Thread):
    """One member of the series room publishing gauge `control` at `hz` for `seconds`."""

    def __init__(self, port: int, control: str, hz: float, seconds: float, offset: float):
        super().__init__(daemon=True)
        from websockets.sync.client import connect
        self.ws = connect(f"ws://127.0.0.1:{port}/rooms/{ROOM}?name=pub-{control}", subprotocols=["tandem.v1"],
                          open_timeout=10, max_size=None, legacy=True)
        json.loads(self.ws.recv(timeout=10))  # the welcome
        self.control, self.hz, self.seconds, self.offset = control, hz, seconds, offset
        self.sent: dict[int, int] = {}
        self.latencies: list[float] = []
        self.acked = 0
        self.refused = 0
        self.done = threading.Event()
        self.reader = threading.Thread(target=self.read, daemon=True)

    def read(self) -> None:
        highest = 0
        try:
            while True:
                frame = json.loads(self.ws.recv(timeout=5))
                now = time.perf_counter_ns()
                if frame.get("type") == "reject":
                    self.refused += 1
                ack = frame.get("ack") or 0
                if ack > highest:
                    for seq in range(highest + 1, ack + 1):
                        t = self.sent.pop(seq, None)
                        if t is not None:
                            self.acked += 1
                            self.latencies.append((now - t) / 1e6)
                    highest = ack
                if self.done.is_set() and not self.sent:
                    return
        except Exception:
            return

    def run(self) -> None:
        self.reader.start()
        period = 1.0 / self.hz
        start = time.perf_counter() + self.offset
        n = 0
        while True:
            due = start + n * period
            now = time.perf_counter()
            if due - start >= self.seconds:
                break
            if due > now:
                time.sleep(due - now)
            n += 1
            value = (n * 7.31) % 1000
            self.sent[n] = time.perf_counter_ns()
            self.ws.send(json.dumps({"type": "set", "seq": n, "control": self.control, "value": value}))
        self.count = n
        self.done.set()
        self.reader.join(10)
        self.ws.close()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(rate: float, run: int, a: argparse.Namespace, out: Path, tmp: Path) -> dict:
    name = f"r{fmt(rate)}-{run}"
    folder = tmp / name
    folder.mkdir()
    port = free_port()
    db = folder / "tandem.db"
    server = Server([a.tandem_binary, "--host", "127.0.0.1", "--port", str(port), "--data", str(db),
                     "--log-level", "warn"], port, out / f"{name}.server.log")
    gen = gen_out = None
    try:
        status, _ = http(port, "POST", "/api/rooms", room_body(a.gauges))
        assert status == 201, f"creating the series room: {status}"
        gen, gen_out = start_s2h(a, port, server.pid, out, name)  # osc.py's: S2h on core 1, once its clients are in
        seconds = max(1.0, a.duration - 1.0)  # inside the generator's measured window
        hz = rate / a.gauges
        # Rate 0: S2h alone, the baseline the others are read against.
        publishers = [Publisher(port, f"g{i}", hz, seconds, offset=i / rate) for i in range(a.gauges)] if rate > 0 else []
        time.sleep(a.warmup + 0.2)
        values0 = metric(port, "tandem_series_values_total") or 0
        cpu0, t0 = cpu_seconds(server.pid), time.perf_counter()
        for p in publishers:
            p.start()
        for p in publishers:
            p.join(seconds + 30)
        if not publishers:
            time.sleep(seconds)
        elapsed = time.perf_counter() - t0
        cpu1 = cpu_seconds(server.pid)
        values1 = metric(port, "tandem_series_values_total") or 0
        latencies = [x for p in publishers for x in p.latencies]
        sent = sum(getattr(p, "count", 0) for p in publishers)
        status, points = http(port, "GET", f"/api/rooms/{ROOM}/series/g0?points=200")
        result = {
            "rate": rate, "run": run, "seconds": elapsed,
            "offered": sent / elapsed, "acked": sum(p.acked for p in publishers) / elapsed,
            "refused": sum(p.refused for p in publishers), "unanswered": sum(len(p.sent) for p in publishers),
            "ackP50ms": percentile(latencies, 50), "ackP99ms": percentile(latencies, 99),
            "valuesPerSecond": (values1 - values0) / elapsed, "serverCPU": (cpu1 - cpu0) / elapsed,
            "seriesPoints": len(points.get("points", [])) if status == 200 and isinstance(points, dict) else None,
            "seriesStatus": status,
        }
        result["generator"] = finish_s2h(gen, a, out, name)
        server.stop()
        result["disk"] = series_disk(db, a.gauges)
        return result
    finally:
        if gen and gen.poll() is None:
            os.killpg(gen.pid, signal.SIGKILL)
            gen.wait(5)
        if gen_out:
            gen_out.close()
        server.stop()


def series_disk(db: Path, gauges: int) -> dict:
    """The series table's size in the file (dbstat: its pages, and its index's), rows, bytes per row."""
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT count(*) FROM series WHERE room = ?", (ROOM,)).fetchone()[0]
        total_rows = c.execute("SELECT count(*) FROM series").fetchone()[0]
        names = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'series'")]
        used = c.execute(f"SELECT sum(pgsize - unused) FROM dbstat WHERE name IN ({','.join('?' * len(names))})",
                         names).fetchone()[0] or 0
        pages = c.execute(f"SELECT sum(pgsize) FROM dbstat WHERE name IN ({','.join('?' * len(names))})",
                          names).fetchone()[0] or 0
    per_row = pages / total_rows if total_rows else None
    return {"rows": rows, "rowsPerControl": rows / gauges, "allRows": total_rows, "bytes": pages, "usedBytes": used,
            "bytesPerRow": per_row,
            "perControlDay": per_row * DAY_BUCKETS if per_row else None,
            "perControlMax": per_row * MAX_BUCKETS if per_row else None}


def markdown(result: dict) -> str:
    lines = [f"# Series: publishes into series with S2h running ({result['machine']})", "",
             "| offered /s | acked /s | refused | unanswered | ack p50 / p99 ms | values /s | server CPU | S2h p99 ms | S2h delivered | generator CPU (valid) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["runs"]:
        g = r.get("generator") or {}
        lat = g.get("p99Ms")
        lines.append(f"| {r['offered']:.0f} | {r['acked']:.0f} | {r['refused']} | {r['unanswered']} | "
                     f"{r['ackP50ms'] or 0:.2f} / {r['ackP99ms'] or 0:.2f} | {r['valuesPerSecond']:.0f} | {r['serverCPU'] * 100:.0f} % | "
                     f"{f'{lat:.1f}' if lat is not None else '?'} | {g.get('deliveredPct', 0):.1f} % | "
                     f"{g.get('generatorPct', 0):.0f} % ({'valid' if g.get('valid') else 'invalid'}) |")
    d = result["runs"][-1]["disk"]
    lines += ["", f"Series table after the last run: {d['allRows']} rows, {d['bytes']} bytes of pages "
              f"({d['usedBytes']} used): {d['bytesPerRow']:.1f} bytes per bucket row; "
              f"{d['rowsPerControl']:.0f} rows per control after {result['runs'][-1]['seconds']:.0f} s.",
              f"One control's series: {d['perControlDay'] / 1024:.0f} KiB after a day ({DAY_BUCKETS} buckets), "
              f"{d['perControlMax'] / 1024:.0f} KiB at most ({MAX_BUCKETS} buckets), at any publish rate.",
              f"The series endpoint asked for 200 points answered {result['runs'][-1]['seriesPoints']}.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rates", default="0,1000,4000",
                   help="total publishes per second to offer, comma-separated (0: S2h alone, the baseline)")
    p.add_argument("--gauges", type=int, default=20, help="gauges (one publisher each; each stays under 300/s)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--publisher-core", default=SERVER_CORE, help="the core of this script and its publishers (0, the server's)")
    p.add_argument("--tandem-binary", default=str(DEFAULT_TANDEM))
    p.add_argument("--bench-binary", default=str(DEFAULT_BENCH))
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "series"))
    a = p.parse_args(argv)
    rates = [float(x) for x in a.rates.split(",") if x.strip()]
    if a.quick:
        rates, a.runs, a.duration, a.warmup = [r for r in rates if r > 0][:1] or [1000.0], 1, 4.0, 1.0
    if max(rates) / a.gauges >= 290:
        p.error(f"{max(rates):.0f}/s over {a.gauges} gauges is {max(rates) / a.gauges:.0f}/s a connection: over the 300/s limit")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(0, {int(a.publisher_core)})  # threads started from here on inherit it
    runs = []
    with tempfile.TemporaryDirectory(prefix="tandem-series-") as tmp:
        for run in range(a.runs):
            for rate in rates:
                r = one_run(rate, run, a, out, Path(tmp))
                runs.append(r)
                print(f"rate {fmt(rate)} run {run}: acked {r['acked']:.0f}/s of {r['offered']:.0f}, "
                      f"p99 {r['ackP99ms'] or 0:.2f} ms, S2h {(r.get('generator') or {}).get('passed')}", flush=True)
    result = {"machine": machine(), "command": " ".join([sys.executable, *sys.argv]), "runs": runs}
    (out / "series.json").write_text(json.dumps(result, indent=2))
    (out / "series.md").write_text(markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
