"""`make bench`: the standard scenarios S1-S6, side by side, against `tandem`
and the peers in ../shared/bench/peers (when that folder exists).

Every (scenario, server, run) gets a fresh server process pinned to core 0
(`taskset -c 0`), waits for its /healthz, runs `tandem-bench` pinned to core 1
against it, then stops the server with SIGTERM. Each run's JSON report, SVG
and generator output are kept in bench/results/; the medians, targets and
ratios go to bench/results/summary.md and, between the markers
`<!-- bench:begin -->` and `<!-- bench:end -->`, to docs/benchmarks.md.

After the scenarios, when tandem ran S2h (and/or S1), bench/send_floor.c is
compiled into the results folder and run on the server's core with tandem's
median frame size and the scenario's client count, rounds 12 ms apart; the
docs block sets tandem's server CPU per frame against it (goal ≤ 1.3×).
`--no-floor` skips it.

    .venv/bin/python bench/run.py                     # everything, 3 runs each
    .venv/bin/python bench/run.py --quick --only S1   # a smoke: 1 run of 3 s

See bench/README.md. The pure parts (medians, tables, ratios, the docs block)
are tested by pytests/integration/test_bench_runner.py without any server.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PEERS = ROOT.parent / "shared" / "bench" / "peers"
DEFAULT_BENCH = ROOT / ".build" / "release" / "tandem-bench"
DEFAULT_TANDEM = ROOT / ".build" / "release" / "tandem"
DOCS = ROOT / "docs" / "benchmarks.md"

BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"
HEADING = "## Side by side: `make bench`"

SERVER_CORE = "0"
GENERATOR_CORE = "1"
GENERATOR_LIMIT = 0.80  # a run whose generator tops 80 % of its core is invalid


# --------------------------------------------------------------------------
# Scenarios and servers


@dataclass(frozen=True)
class Case:
    """One generator configuration. S3 has two (5,000 and 10,000 connections)."""
    id: str                      # file key: results/<id>-<server>-<run>.json
    scenario: str                # S1 ... S6 (what --only selects)
    title: str
    args: tuple[str, ...]
    room: str = "demo"
    needs: tuple[str, ...] = ()  # generator flags this case needs
    idle: bool = False           # memory mode: no --duration/--warmup
    api_only: bool = False       # needs the admin API (tandem only)
    na_peer: str = ""            # the table's text for peers when api_only


LOAD_S2 = ("--clients", "1004", "--draggers", "4", "--hz", "60")

CASES: tuple[Case, ...] = (
    Case("S1", "S1", "S1: 200 receivers × 4 draggers × 60 Hz",
         ("--clients", "204", "--draggers", "4", "--hz", "60")),
    Case("S2", "S2", "S2: 1,000 receivers × 4 draggers × 60 Hz", LOAD_S2),
    # A reference with no target: at 1,000 receivers the generator (one core,
    # lws' client) is at its ceiling here, so S2's runs tend to be invalid; half
    # the room is the largest S2-shaped load it measures validly, for a fair
    # comparison.
    Case("S2h", "S2h", "S2h (a reference, no target): S2 at half size, 500 receivers × 4 draggers × 60 Hz",
         ("--clients", "504", "--draggers", "4", "--hz", "60")),
    Case("S3-5000", "S3", "S3: idle memory, 5,000 connections",
         ("--idle", "--clients", "5000"), needs=("--idle",), idle=True),
    Case("S3-10000", "S3", "S3: idle memory, 10,000 connections",
         ("--idle", "--clients", "10000"), needs=("--idle",), idle=True),
    Case("S4", "S4", "S4: 10,000 clients in one room, 4 draggers × 60 Hz",
         ("--clients", "10000", "--draggers", "4", "--hz", "60", "--ramp", "2000")),
    Case("S5", "S5", "S5: S2 with 20 % slow readers", LOAD_S2 + ("--slow", "20"), needs=("--slow",)),
    Case("S6", "S6", "S6: 50 rooms × 20 clients × 2 draggers × 60 Hz",
         ("--rooms", "50", "--clients", "1000", "--draggers", "2", "--hz", "60"),
         room="s6", needs=("--rooms",), api_only=True, na_peer="n/a: one room, no admin API"),
)
SCENARIOS = tuple(dict.fromkeys(c.scenario for c in CASES))

SERVERS = ("tandem", "node_ws", "py_websockets")
PEERS = ("node_ws", "py_websockets")


def server_command(name: str, port: int | str, peers: Path, python: str, tandem: str) -> tuple[list[str], dict[str, str]]:
    """The server's command line (without taskset) and extra environment."""
    if name == "tandem":
        return [tandem, "--port", str(port), "--data", ":memory:", "--log-level", "warn"], {}
    if name == "node_ws":
        return ["node", str(peers / "node_ws" / "server.js"), "--port", str(port)], {"NODE_PATH": "/usr/share/nodejs"}
    if name == "py_websockets":
        return [python, str(peers / "py_websockets" / "server.py"), "--port", str(port)], {}
    raise ValueError(f"unknown server {name!r}")


def generator_command(bench: str, case: Case, url_base: str, room: str, duration: float, warmup: float,
                      pid: int | str, json_path: str, svg_path: str) -> list[str]:
    cmd = [bench, "--url", f"{url_base}/rooms/{room}", *case.args]
    if not case.idle:
        cmd += ["--duration", fmt_num(duration), "--warmup", fmt_num(warmup)]
    cmd += ["--pid", str(pid), "--json", json_path, "--svg", svg_path]
    return cmd


def fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


# --------------------------------------------------------------------------
# Pure parts: statuses, metrics, medians, tables, ratios, the docs block


def classify(exit_code: int | None, report: dict | None, timed_out: bool = False) -> str:
    """PASS, FAIL, INVALID (generator over 80 % of its core), TIMEOUT, USAGE or NO REPORT."""
    if timed_out:
        return "TIMEOUT"
    if exit_code == 2:
        return "USAGE"
    if report is None:
        return "NO REPORT" if exit_code == 0 else "FAIL"
    if not report_valid(report):
        return "INVALID"
    if exit_code == 0 and report.get("passed", True) and not no_delivery(report):
        return "PASS"
    return "FAIL"


def no_delivery(report: dict) -> bool:
    """A load run that offered moves but measured none delivered: nothing was measured,
    whatever the generator concluded."""
    if report.get("idle"):
        return False
    offered, delivered = _get(report, "updates", "offered"), _get(report, "updates", "delivered")
    return bool(offered) and not delivered


def report_valid(report: dict) -> bool:
    if "valid" in report and report["valid"] is not None:
        return bool(report["valid"])
    share = (report.get("generatorCPU") or {}).get("coreShare")
    return share is None or share <= GENERATOR_LIMIT


def _get(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def _scaled(x: Any, factor: float) -> float | None:
    return None if x is None else float(x) * factor


def metrics(report: dict) -> dict[str, float | None]:
    """The numbers the tables show, from one JSON report (docs/benchmarks.md, "Its report")."""
    ms = 1e-6
    m: dict[str, float | None] = {
        "delivered_pct": _scaled(_get(report, "updates", "deliveredShare"), 100),
        "per_frame": _scaled(_get(report, "updates", "perFrame"), 1),
        "p50_ms": _scaled(_get(report, "latencyNs", "p50"), ms),
        "p99_ms": _scaled(_get(report, "latencyNs", "p99"), ms),
        "p999_ms": _scaled(_get(report, "latencyNs", "p99.9"), ms),
        "max_ms": _scaled(_get(report, "latencyNs", "max"), ms),
        "us_per_update": _scaled(_get(report, "serverCPU", "nsPerDeliveredUpdate"), 1e-3),
        "server_cpu_pct": _scaled(_get(report, "serverCPU", "coreShare"), 100),
        "generator_cpu_pct": _scaled(_get(report, "generatorCPU", "coreShare"), 100),
        "fast_p99_ms": _scaled(_get(report, "fastLatencyNs", "p99"), ms),
        "slow_p99_ms": _scaled(_get(report, "slowLatencyNs", "p99"), ms),
        "idle_kib": _scaled(_get(report, "idle", "bytesPerConnection"), 1 / 1024),
        "rss_after_mib": _scaled(_get(report, "idle", "rssAfterBytes"), 1 / 1048576),
        "thumb_hz": None,
    }
    if not _get(report, "latencyNs", "count"):  # no samples: no latency, not 0 ms
        for k in ("p50_ms", "p99_ms", "p999_ms", "max_ms"):
            m[k] = None
    # The rate of distinct moves each client saw per thumb: every client is a
    # receiver and sits in one room with `draggers` thumbs moving.
    delivered = _get(report, "updates", "delivered")
    seconds, clients, draggers = report.get("seconds"), report.get("clients"), report.get("draggers")
    if delivered is not None and seconds and clients and draggers and not report.get("idle"):
        m["thumb_hz"] = float(delivered) / float(seconds) / float(clients) / float(draggers)
    return m


def median(values: Iterable[float | None]) -> float | None:
    """The median of the values that are not None; None when there are none."""
    vals = [float(v) for v in values if v is not None]
    return statistics.median(vals) if vals else None


@dataclass
class RunRecord:
    case: str
    server: str
    run: int
    status: str
    exit: int | None = None
    report: dict | None = None
    note: str = ""
    files: str = ""  # the stem: results/<case>-<server>-<run>


@dataclass
class Row:
    """The medians of one (case, server)."""
    case: str
    server: str
    runs: list[RunRecord] = field(default_factory=list)
    na: str = ""                       # why this pair was not run
    medians: dict[str, float | None] = field(default_factory=dict)
    basis: str = ""                    # "PASS" (medians of passing runs), "all" or ""

    @property
    def status_text(self) -> str:
        if self.na:
            return self.na
        if not self.runs:
            return "not run"
        counts: dict[str, int] = {}
        for r in self.runs:
            counts[r.status] = counts.get(r.status, 0) + 1
        order = ["PASS", "FAIL", "INVALID", "TIMEOUT", "NO REPORT", "USAGE", "SERVER FAIL"]
        parts = [f"{counts[s]} {s}" for s in sorted(counts, key=lambda s: order.index(s) if s in order else 99)]
        return ", ".join(parts)

    @property
    def judged(self) -> bool:
        """Medians come from passing, valid runs (targets can be judged)."""
        return self.basis == "PASS"


def aggregate(case: str, server: str, runs: list[RunRecord], na: str = "") -> Row:
    """Medians over the passing runs; when none passed, over every run that left a report
    (marked, and never judged against a target)."""
    row = Row(case, server, list(runs), na)
    if na:
        return row
    passing = [r for r in runs if r.status == "PASS" and r.report is not None]
    chosen, row.basis = (passing, "PASS") if passing else ([r for r in runs if r.report is not None], "all")
    if not chosen:
        row.basis = ""
        return row
    per_run = [metrics(r.report) for r in chosen]
    row.medians = {k: median(m[k] for m in per_run) for k in per_run[0]}
    return row


# -- formatting


def f_ms(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.0f} ms" if x >= 100 else f"{x:.1f} ms" if x >= 1 else f"{x:.2f} ms"


def f_pct(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{x:.{digits}f} %"


def f_num(x: float | None, digits: int = 2, unit: str = "") -> str:
    return "–" if x is None else f"{x:.{digits}f}{unit}"


def f_ratio(r: float) -> str:
    return f"{r:.0f}×" if r >= 10 else f"{r:.1f}×" if r >= 1 else f"{r:.2f}×"


def ratio_text(label: str, peer: str, tandem_value: float | None, peer_value: float | None) -> str | None:
    """'CPU per update: node_ws / tandem = 2.9×', or None when a side is missing."""
    if tandem_value is None or peer_value is None or tandem_value <= 0:
        return None
    return f"{label}: {peer} / tandem = {f_ratio(peer_value / tandem_value)}"


# -- targets (S2, S3, S4): judged on the medians of passing runs


def target_s2(m: dict) -> tuple[bool, list[str]]:
    misses = []
    if m.get("delivered_pct") is None or m["delivered_pct"] < 99:
        misses.append(f"delivered {f_pct(m.get('delivered_pct'))} < 99 %")
    if m.get("p99_ms") is None or m["p99_ms"] > 20:
        misses.append(f"p99 {f_ms(m.get('p99_ms'))} > 20 ms")
    if m.get("us_per_update") is None or m["us_per_update"] > 1.5:
        misses.append(f"{f_num(m.get('us_per_update'), 2, ' µs')} > 1.5 µs per update")
    return not misses, misses


def target_s3(m: dict) -> tuple[bool, list[str]]:
    kib = m.get("idle_kib")
    if kib is None or kib > 4:
        return False, [f"{f_num(kib, 2, ' KiB')} > 4 KiB per connection"]
    return True, []


def target_s4(m: dict) -> tuple[bool, list[str]]:
    misses = []
    if m.get("thumb_hz") is None or m["thumb_hz"] < 20:
        misses.append(f"{f_num(m.get('thumb_hz'), 1, ' Hz')} < 20 Hz per thumb")
    if m.get("p99_ms") is None or m["p99_ms"] > 50:
        misses.append(f"p99 {f_ms(m.get('p99_ms'))} > 50 ms")
    return not misses, misses


TARGETS = {"S2": target_s2, "S3": target_s3, "S4": target_s4}
TARGET_TEXT = {
    "S2": "≥ 99 % delivered, p99 ≤ 20 ms, ≤ 1.5 µs server CPU per delivered update",
    "S3": "≤ 4 KiB RSS per idle connection",
    "S4": "every client sees each dragged thumb at ≥ 20 Hz, p99 ≤ 50 ms",
}


def target_cell(scenario: str, row: Row) -> str:
    check = TARGETS.get(scenario)
    if check is None or row.na or not row.medians:
        return "–"
    if not row.judged:
        return "not judged (no passing run)"
    ok, misses = check(row.medians)
    return "met" if ok else "not met: " + "; ".join(misses)


# -- tables

LOAD_COLUMNS = [
    ("delivered", "delivered_pct", lambda x: f_pct(x)),
    ("upd/frame", "per_frame", lambda x: f_num(x, 2)),
    ("p50", "p50_ms", f_ms),
    ("p99", "p99_ms", f_ms),
    ("p99.9", "p999_ms", f_ms),
    ("max", "max_ms", f_ms),
    ("µs CPU / update", "us_per_update", lambda x: f_num(x, 2)),
    ("server CPU", "server_cpu_pct", lambda x: f_pct(x, 0)),
]


def _gen_cell(row: Row) -> str:
    g = row.medians.get("generator_cpu_pct")
    if g is None:
        return "–"
    valid = all(report_valid(r.report) for r in row.runs if r.report is not None)
    return f_pct(g, 0) + ("" if valid else " (INVALID)")


def _status_cell(row: Row) -> str:
    text = row.status_text
    if row.basis == "all":
        text += " (medians of failed runs)"
    return text


def case_table(case: Case, rows: list[Row], s2_rows: dict[str, Row] | None = None) -> list[str]:
    """The markdown table of one case, a row per server."""
    head = ["server", "runs"]
    if case.idle:
        head += ["KiB per idle connection", "RSS after", "server CPU"]
    else:
        head += [c[0] for c in LOAD_COLUMNS]
        if case.scenario == "S4":
            head.append("Hz per thumb per client")
        if case.scenario == "S5":
            head += ["fast p99", "slow p99", "fast p99 / S2 p99"]
    head.append("generator CPU")
    if case.scenario in TARGETS:
        head.append("target")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row.server, _status_cell(row)]
        if row.na:
            cells += ["–"] * (len(head) - 2)
            lines.append("| " + " | ".join(cells) + " |")
            continue
        m = row.medians
        if case.idle:
            cells += [f_num(m.get("idle_kib"), 2), f_num(m.get("rss_after_mib"), 1, " MiB"), f_pct(m.get("server_cpu_pct"), 0)]
        else:
            cells += [fmt(m.get(key)) for _, key, fmt in LOAD_COLUMNS]
            if case.scenario == "S4":
                cells.append(f_num(m.get("thumb_hz"), 1, " Hz"))
            if case.scenario == "S5":
                cells += [f_ms(m.get("fast_p99_ms")), f_ms(m.get("slow_p99_ms"))]
                base = (s2_rows or {}).get(row.server)
                bp = base.medians.get("p99_ms") if base and base.medians else None
                fp = m.get("fast_p99_ms")
                cells.append(f_ratio(fp / bp) if fp is not None and bp else "–")
        cells.append(_gen_cell(row))
        if case.scenario in TARGETS:
            cells.append(target_cell(case.scenario, row))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


RATIO_METRICS = [
    ("CPU per update", "us_per_update"),
    ("server CPU", "server_cpu_pct"),
    ("p99 latency", "p99_ms"),
]
IDLE_RATIO_METRICS = [("bytes per idle connection", "idle_kib")]


def case_ratios(case: Case, rows: list[Row]) -> list[str]:
    by = {r.server: r for r in rows}
    tandem = by.get("tandem")
    if tandem is None or not tandem.medians:
        return []
    out = []
    for peer in PEERS:
        p = by.get(peer)
        if p is None or not p.medians:
            continue
        for label, key in (IDLE_RATIO_METRICS if case.idle else RATIO_METRICS):
            t = ratio_text(label, peer, tandem.medians.get(key), p.medians.get(key))
            if t:
                marks = [s for s, rr in (("tandem", tandem), (peer, p)) if not rr.judged]
                out.append(t + (f" (from failed runs of {', '.join(marks)})" if marks else ""))
    return out


def runs_table(rows: list[Row]) -> list[str]:
    lines = ["| run | status | exit | delivered | p99 | µs CPU / update | KiB / idle conn | generator CPU | note |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for r in row.runs:
            m = metrics(r.report) if r.report else {}
            lines.append("| " + " | ".join([
                f"{r.case}-{r.server}-{r.run}", r.status, "–" if r.exit is None else str(r.exit),
                f_pct(m.get("delivered_pct")), f_ms(m.get("p99_ms")), f_num(m.get("us_per_update"), 2),
                f_num(m.get("idle_kib"), 2), f_pct(m.get("generator_cpu_pct"), 0), r.note.replace("|", "/") or "",
            ]) + " |")
    return lines


# -- the floor: bench/send_floor.c, run in the same `make bench` run

FLOOR_SOURCE = ROOT / "bench" / "send_floor.c"
FLOOR_CASES = ("S2h", "S1")  # fan-out loads whose per-frame cost is set against the floor (S2h: the goal)
FLOOR_ROUND_MS = 12          # without a round interval from the reports: the server's fan-out period
FLOOR_GOAL = 1.3             # the fan-out goal: per-frame cost ≤ 1.3× the floor


@dataclass
class FloorRun:
    """`send_floor SIZE CONNS ROUND_MS` for one case: its runs' µs of sender CPU per send."""
    case: str
    size: int
    conns: int
    round_ms: float = FLOOR_ROUND_MS
    us_per_send: list[float] = field(default_factory=list)  # one per run that printed a result
    late_rounds: list[int] = field(default_factory=list)    # per such run: rounds the sender started late
    failures: list[str] = field(default_factory=list)       # why a run (or the whole case) gave no number
    command: str = ""                                       # the command as the docs show it

    @property
    def median_us(self) -> float | None:
        return median(self.us_per_send)


def row_reports(row: Row) -> list[dict]:
    """The reports a row's medians came from: its passing runs, or every report when none passed."""
    if row.basis == "PASS":
        return [r.report for r in row.runs if r.status == "PASS" and r.report is not None]
    if row.basis == "all":
        return [r.report for r in row.runs if r.report is not None]
    return []


def floor_args(reports: Iterable[dict]) -> tuple[int, int, float] | None:
    """(SIZE, CONNS, ROUND_MS) for send_floor: the median bytes per frame the receivers read
    (bytes.count / frames.count), the median client count of the reports, and the median interval
    between the server's rounds as its clients saw it (clients × seconds ÷ frames, to 0.1 ms:
    rounds closer together keep the caches warmer and cost less per send, so the floor is sent in
    the same rhythm as the server was); None without frames."""
    sizes, conns, intervals = [], [], []
    for r in reports:
        frames, nbytes = _get(r, "frames", "count"), _get(r, "bytes", "count")
        if frames and nbytes:
            sizes.append(float(nbytes) / float(frames))
            if r.get("clients"):
                conns.append(float(r["clients"]))
                if r.get("seconds"):
                    intervals.append(float(r["clients"]) * float(r["seconds"]) * 1000 / float(frames))
    size, n, interval = median(sizes), median(conns), median(intervals)
    if size is None or n is None:
        return None
    round_ms = FLOOR_ROUND_MS if interval is None else max(0.1, round(interval, 1))
    return max(1, int(round(size))), int(round(n)), round_ms


def floor_compile_command(source: str, binary: str) -> list[str]:
    return ["gcc", "-O2", "-o", binary, source]


def floor_command(binary: str, size: int, conns: int, round_ms: float = FLOOR_ROUND_MS) -> list[str]:
    """send_floor's round mode (without taskset)."""
    return [binary, str(size), str(conns), fmt_num(round_ms)]


_FLOOR_LINE = re.compile(r"(\d+)-byte sends over (\d+) connections in rounds ([\d.]+) ms apart: "
                         r"([\d.]+) us of sender CPU per send")


def parse_floor_output(text: str) -> dict | None:
    """send_floor's result: its last JSON line with a numeric usPerSend, else its human line.
    {"size", "connections", "roundMs", "usPerSend"} (and "rounds", "lateRounds" when printed); None
    when neither is there."""
    lines = text.splitlines()
    for line in reversed(lines):
        t = line.strip()
        if not t.startswith("{"):
            continue
        try:
            d = json.loads(t)
        except ValueError:
            continue
        us = d.get("usPerSend") if isinstance(d, dict) else None
        if isinstance(us, (int, float)) and not isinstance(us, bool) and us >= 0:
            return d
    for line in reversed(lines):
        m = _FLOOR_LINE.search(line)
        if m:
            return {"size": int(m[1]), "connections": int(m[2]), "roundMs": float(m[3]), "usPerSend": float(m[4])}
    return None


def frame_cost_us(m: dict) -> float | None:
    """Server CPU per frame in µs: the medians of CPU per delivered update × updates per frame."""
    us, per_frame = m.get("us_per_update"), m.get("per_frame")
    if us is None or per_frame is None:
        return None
    return us * per_frame


def f_us(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f} µs" if x >= 1 else f"{x:.2f} µs"


def floor_ratio_line(fr: FloorRun, row: Row | None) -> str:
    """'tandem S2h: 7.4 µs of server CPU per frame = 1.21× the floor (6.1 µs per send of 480 B over
    504 connections, rounds 12 ms apart); goal ≤ 1.3×', or why there is no ratio."""
    shape = f"{fr.size} B over {fr.conns} connections, rounds {fmt_num(fr.round_ms)} ms apart"
    floor = fr.median_us
    cost = frame_cost_us(row.medians) if row is not None and row.medians else None
    goal = f"goal ≤ {FLOOR_GOAL:g}×"
    if cost is None:
        return f"tandem {fr.case}: no server CPU per frame to compare with the floor ({f_us(floor)} per send of {shape})"
    if floor is None or floor <= 0:
        return f"tandem {fr.case}: {f_us(cost)} of server CPU per frame; the floor gave no number ({shape}); {goal}"
    text = (f"tandem {fr.case}: {f_us(cost)} of server CPU per frame = {cost / floor:.2f}× the floor "
            f"({f_us(floor)} per send of {shape}); {goal}")
    if row is not None and not row.judged:
        text += " (from failed runs of tandem)"
    return text


def floor_runs_line(fr: FloorRun) -> str:
    """'floor S2h (480 B × 504 connections): 6.05, 6.10, 6.20 µs per send; median 6.10 µs'."""
    head = f"floor {fr.case} ({fr.size} B × {fr.conns} connections)"
    if not fr.us_per_send:
        return f"{head}: no result" + (f" ({'; '.join(fr.failures)})" if fr.failures else "")
    text = f"{head}: {', '.join(f'{x:.2f}' for x in fr.us_per_send)} µs per send; median {fr.median_us:.2f} µs"
    late = sum(fr.late_rounds)
    if late:
        text += f"; {late} late round(s): the sender fell behind its period"
    if fr.failures:
        text += f"; {len(fr.failures)} failed run(s): {'; '.join(fr.failures)}"
    return text


def floor_section(floor: dict, rows: dict[tuple[str, str], Row]) -> list[str]:
    """The docs' '### The floor in this run': what was run, each run, and the ratio lines.
    `floor`: {"compile": shown gcc line, "runs": [FloorRun], "error": why nothing was measured}."""
    out = ["### The floor in this run", ""]
    out.append(f"Tandem's server CPU per frame (the medians of µs CPU per delivered update × updates per frame) "
               f"against `bench/send_floor.c`, run after the scenarios in the same run: one message of tandem's "
               f"median frame size (bytes ÷ frames the receivers read) to each of the scenario's connections per "
               f"round, rounds as far apart as the server's were in that scenario (its clients × seconds ÷ frames), over loopback "
               f"TCP from core {SERVER_CORE} to a reader process on core {GENERATOR_CORE} sleeping in "
               f"`epoll_wait`; the floor is the sender's CPU (user + sys) per send(), median of its runs. "
               f"Goal: ≤ {FLOOR_GOAL:g}× the floor.")
    out.append("")
    runs = floor.get("runs") or []
    shown = [floor.get("compile")] if floor.get("compile") else []
    shown += [fr.command for fr in runs if fr.command]
    if shown:
        out.append("```sh")
        out.extend(shown)
        out.append("```")
        out.append("")
    if floor.get("error"):
        out.append(f"- The floor was not measured: {floor['error']}")
    for fr in runs:
        out.append(f"- {floor_runs_line(fr)}")
    if not floor.get("error"):
        for fr in runs:
            out.append(f"- {floor_ratio_line(fr, rows.get((fr.case, 'tandem')))}")
    out.append("")
    return out


def build_markdown(rows: dict[tuple[str, str], Row], meta: dict[str, Any], cases: Iterable[Case] = CASES) -> str:
    """The block between the docs markers (and summary.md)."""
    out: list[str] = []
    out.append(f"Generated by `bench/run.py` on {meta.get('date', '?')}. Machine: {meta.get('machine', '?')}. "
               f"{meta.get('runs', '?')} run(s) per scenario and server, "
               f"`--duration {meta.get('duration', '?')} --warmup {meta.get('warmup', '?')}` "
               f"(idle runs: all connections open, then 3 s). Server on core {SERVER_CORE}, generator on core "
               f"{GENERATOR_CORE}, a fresh server process per run. Tables show medians of the passing runs; a row "
               f"with no passing run shows its failed runs' medians, marked, and is not judged against a target. "
               f"A run whose generator tops {GENERATOR_LIMIT * 100:.0f} % of its core is INVALID.")
    out.append("")
    for note in meta.get("notes", []):
        out.append(f"- {note}")
    if meta.get("notes"):
        out.append("")
    out.append("```sh")
    out.extend(meta.get("commands", []))
    out.append("```")
    out.append("")
    cases = list(cases)
    s2_rows = {srv: r for (cid, srv), r in rows.items() if cid == "S2"}
    for case in cases:
        case_rows = [rows[(case.id, s)] for s in meta.get("servers", SERVERS) if (case.id, s) in rows]
        if not case_rows:
            continue
        out.append(f"### {case.title}")
        out.append("")
        if case.scenario in TARGET_TEXT:
            out.append(f"Target: {TARGET_TEXT[case.scenario]}.")
            out.append("")
        if case.scenario == "S4":
            out.append("Hz per thumb per client = delivered / (seconds × clients × draggers): the distinct moves "
                       "of each dragged thumb a client saw per second (the draggers send 60).")
            out.append("")
        if case.scenario == "S5":
            out.append("Fast readers' p99 must not suffer: compare it with the same server's S2 p99.")
            out.append("")
        out.extend(case_table(case, case_rows, s2_rows))
        ratios = case_ratios(case, case_rows)
        if ratios:
            out.append("")
            out.extend(f"- {t}" for t in ratios)
        out.append("")
    if meta.get("floor"):
        out.extend(floor_section(meta["floor"], rows))
    all_rows = [r for r in rows.values() if r.runs]
    if all_rows:
        out.append("<details><summary>Every run</summary>")
        out.append("")
        out.extend(runs_table(all_rows))
        out.append("")
        out.append("</details>")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def replace_block(text: str, block: str) -> str:
    """Put `block` between the markers; add the heading and markers before the
    first `## ` section (or at the end) when the markers are missing. Nothing
    outside the markers changes."""
    block = block.strip("\n")
    b, e = text.find(BEGIN), text.find(END)
    if b != -1 and e != -1 and b < e:
        return text[:b + len(BEGIN)] + "\n" + block + "\n" + text[e:]
    section = f"{HEADING}\n\n{BEGIN}\n{block}\n{END}\n"
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("## "):
            return "".join(lines[:i]) + section + "\n" + "".join(lines[i:])
    sep = "" if text.endswith("\n\n") or not text else ("\n" if text.endswith("\n") else "\n\n")
    return text + sep + section


# --------------------------------------------------------------------------
# Processes


def _raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _preexec() -> None:
    _raise_nofile()
    os.setsid()


def healthz(port: int, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as r:
            return r.status == 200
    except Exception:
        return False


class ServerProcess:
    """A server started under taskset, stopped with SIGTERM (SIGKILL after 10 s)."""

    def __init__(self, cmd: list[str], env: dict[str, str], port: int, log: Path):
        self.port = port
        self.log = log
        self.logf = open(log, "wb")
        full_env = dict(os.environ, **env)
        self.proc = subprocess.Popen(cmd, stdout=self.logf, stderr=subprocess.STDOUT, env=full_env,
                                     cwd=ROOT, preexec_fn=_preexec)

    @property
    def pid(self) -> int:
        return self.proc.pid  # taskset execs the server: same pid

    def wait_healthy(self, timeout: float = 20) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            if healthz(self.port, 0.5):
                return True
            time.sleep(0.1)
        return False

    def stop(self, timeout: float = 10) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.logf.close()
        return self.proc.returncode

    def log_tail(self, n: int = 3) -> str:
        try:
            lines = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " / ".join(lines[-n:])


def run_generator(cmd: list[str], out: Path, timeout: float) -> tuple[int | None, bool]:
    """Runs the generator with stdout and stderr into `out`; kills its process group on timeout."""
    with open(out, "wb") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, preexec_fn=_preexec)
        try:
            return p.wait(timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(5)
            return p.returncode, True
        except BaseException:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(5)
            raise


def run_floor(rows: dict[tuple[str, str], Row], cases: list[Case], runs: int, out_dir: Path, taskset,
              timeout: float = 120) -> dict | None:
    """Compiles bench/send_floor.c into the results folder and runs it `runs` times per FLOOR_CASES case
    whose tandem row has reports, on the server's core; None when no such case ran. Never raises for
    a missing gcc or a failed floor: the returned dict says what happened (see floor_section)."""
    ran = {c.id for c in cases}
    plan: list[FloorRun] = []
    for cid in FLOOR_CASES:
        row = rows.get((cid, "tandem"))
        if cid not in ran or row is None or not row.runs:
            continue
        args = floor_args(row_reports(row))
        if args is None:
            plan.append(FloorRun(cid, 0, 0, failures=["no tandem report with frames and bytes"]))
            continue
        plan.append(FloorRun(cid, *args))
    if not plan:
        return None
    binary = out_dir / "send_floor"
    floor: dict[str, Any] = {"compile": " ".join(floor_compile_command(rel(FLOOR_SOURCE), rel(binary))),
                             "runs": plan, "error": ""}
    todo = [fr for fr in plan if fr.size > 0]
    for fr in todo:
        fr.command = " ".join(taskset(SERVER_CORE, floor_command(rel(binary), fr.size, fr.conns, fr.round_ms)))
    if not todo:
        return floor
    if shutil.which("gcc") is None:
        floor["error"] = "gcc not found."
        print("bench: floor: gcc not found; not measured", flush=True)
        return floor
    try:
        binary.unlink(missing_ok=True)
        r = subprocess.run(floor_compile_command(str(FLOOR_SOURCE), str(binary)), cwd=ROOT, timeout=120,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        floor["error"] = f"gcc failed: {e}"
        return floor
    if r.returncode != 0 or not binary.exists():
        last = (r.stdout.strip().splitlines() or [f"exit {r.returncode}"])[-1]
        floor["error"] = f"gcc failed: {last[:160]}"
        print(f"bench: floor: {floor['error']}", flush=True)
        return floor
    try:
        for n in range(1, runs + 1):
            for fr in todo:
                out = out_dir / f"floor-{fr.case}-{n}.txt"
                code, timed_out = run_generator(taskset(SERVER_CORE, floor_command(str(binary), fr.size, fr.conns,
                                                                                   fr.round_ms)), out, timeout)
                try:
                    text = out.read_text(errors="replace")
                except OSError:
                    text = ""
                res = parse_floor_output(text) if code == 0 and not timed_out else None
                if res is None:
                    why = (f"killed after {timeout:.0f} s" if timed_out else
                           f"exit {code}: " + (text.strip().splitlines() or ["no output"])[-1][:120])
                    fr.failures.append(f"run {n}: {why}")
                    print(f"floor     {fr.case:<9} run {n}: FAIL ({why})", flush=True)
                    continue
                fr.us_per_send.append(float(res["usPerSend"]))
                fr.late_rounds.append(int(res.get("lateRounds") or 0))
                print(f"floor     {fr.case:<9} run {n}: {float(res['usPerSend']):.2f} µs per send "
                      f"({fr.size} B × {fr.conns} connections, rounds {fmt_num(fr.round_ms)} ms apart)", flush=True)
    except KeyboardInterrupt:
        print("bench: floor interrupted", flush=True)
        for fr in todo:
            fr.failures.append("interrupted")
    return floor


def generator_flags(bench: str) -> set[str]:
    try:
        r = subprocess.run([bench, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10, text=True)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {f for f in ("--slow", "--idle", "--rooms") if f in r.stdout}


def machine() -> str:
    model = "?"
    mem = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f", {int(line.split()[1]) / 1048576:.0f} GiB"
    except OSError:
        pass
    return f"nproc {os.cpu_count()}, {model}{mem}, Linux {platform.release()}"


def versions(servers: list[str], python: str) -> list[str]:
    out = []

    def cmd(args: list[str]) -> str:
        try:
            return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""
    if "node_ws" in servers:
        node = cmd(["node", "--version"]) or "?"
        ws = cmd(["dpkg-query", "-W", "-f=${Version}", "node-ws"]) or "not installed"
        out.append(f"node_ws: Node {node}, ws {ws} (Debian node-ws)")
    if "py_websockets" in servers:
        v = cmd([python, "-c", "import sys, websockets; print(sys.version.split()[0], websockets.__version__)"]).split()
        if len(v) == 2:
            out.append(f"py_websockets: Python {v[0]}, websockets {v[1]}")
    return out


# --------------------------------------------------------------------------
# Main


def rel(p: Path | str) -> str:
    """A path as the docs show it: relative to the repository when possible."""
    p = Path(p)
    if not p.is_absolute():
        return str(p)
    r = os.path.relpath(os.path.abspath(p), ROOT)
    return str(p) if r.startswith(os.path.join("..", "..")) else r


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="The standard scenarios side by side (make bench).")
    p.add_argument("--runs", type=int, help="runs per (scenario, server) (default 3)")
    p.add_argument("--only", help="scenarios, e.g. S1,S2 (default all: " + ",".join(SCENARIOS) + ")")
    p.add_argument("--servers", help="tandem,node_ws,py_websockets (default tandem and the peers when found)")
    p.add_argument("--duration", type=float, help="measured seconds (default 10)")
    p.add_argument("--warmup", type=float, help="warm-up seconds (default 3)")
    p.add_argument("--quick", action="store_true", help="a smoke: 1 run of 3 s (1 s warm-up)")
    p.add_argument("--bench-binary", default=str(DEFAULT_BENCH), help="the generator (default .build/release/tandem-bench)")
    p.add_argument("--tandem-binary", default=str(DEFAULT_TANDEM), help="the server (default .build/release/tandem)")
    p.add_argument("--peers", default=str(DEFAULT_PEERS), help="the peers' folder (default ../shared/bench/peers)")
    p.add_argument("--room", help="room id of the single-room scenarios instead of demo (e.g. bench for an old generator)")
    p.add_argument("--out", default=str(ROOT / "bench" / "results"), help="results folder (default bench/results/)")
    p.add_argument("--no-docs", action="store_true", help="do not write docs/benchmarks.md")
    p.add_argument("--timeout", type=float, default=180, help="seconds before a stuck generator is killed (default 180)")
    p.add_argument("--no-floor", action="store_true",
                   help="do not run bench/send_floor.c after S2h/S1 (the per-frame cost's ratio to the floor)")
    a = p.parse_args(argv)
    a.runs = a.runs if a.runs is not None else (1 if a.quick else 3)
    a.duration = a.duration if a.duration is not None else (3 if a.quick else 10)
    a.warmup = a.warmup if a.warmup is not None else (1 if a.quick else 3)
    if a.runs < 1:
        p.error("--runs must be at least 1")
    if a.only:
        by_name = {name.upper(): name for name in SCENARIOS}  # S2h as s2h, S2H or S2h
        given = [s.strip() for s in a.only.split(",") if s.strip()]
        wanted = [by_name.get(s.upper(), s) for s in given]
        bad = [s for s in wanted if s not in SCENARIOS]
        if bad:
            p.error(f"unknown scenario(s) {','.join(bad)}; known: {','.join(SCENARIOS)}")
        a.scenarios = wanted
    else:
        a.scenarios = list(SCENARIOS)
    if a.servers:
        a.server_list = [s.strip() for s in a.servers.split(",") if s.strip()]
        bad = [s for s in a.server_list if s not in SERVERS]
        if bad:
            p.error(f"unknown server(s) {','.join(bad)}; known: {','.join(SERVERS)}")
    else:
        a.server_list = None
    return a


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    peers = Path(a.peers)
    notes: list[str] = []
    python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable

    peers_found = peers.is_dir()
    if a.server_list is None:
        servers = ["tandem"] + (list(PEERS) if peers_found else [])
    else:
        servers = a.server_list
    if not peers_found:
        msg = f"peers not found at {rel(peers)}: tandem only"
        notes.append(msg[0].upper() + msg[1:] + ".")
        print(f"bench: {msg}", flush=True)
        servers = [s for s in servers if s not in PEERS]
    if not servers:
        print("bench: no server to run", file=sys.stderr)
        return 2
    if "node_ws" in servers and not Path("/usr/share/nodejs/ws").exists():
        print("bench: node-ws is not installed (apt-get install node-ws; `make bench` does it): node_ws will fail", flush=True)

    for binary in (a.bench_binary,) + ((a.tandem_binary,) if "tandem" in servers else ()):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            print(f"bench: {binary} is not an executable file", file=sys.stderr)
            return 2
    flags = generator_flags(a.bench_binary)
    missing_flags = [f for f in ("--slow", "--idle", "--rooms") if f not in flags]
    if missing_flags:
        notes.append(f"This generator has no {', '.join(f'`{f}`' for f in missing_flags)}: the scenarios that need it are skipped.")

    pin = (os.cpu_count() or 1) >= 2
    if not pin:
        notes.append("One CPU only: nothing pinned (taskset shown for the record).")
    try:  # the runner itself sleeps on core 1, away from the server
        if pin:
            os.sched_setaffinity(0, {int(GENERATOR_CORE)})
    except OSError:
        pass
    _raise_nofile()

    def taskset(core: str, cmd: list[str]) -> list[str]:
        return ["taskset", "-c", core, *cmd] if pin else cmd

    cases = [c for c in CASES if c.scenario in a.scenarios]
    bench_shown = rel(a.bench_binary)
    tandem_shown = rel(a.tandem_binary)
    commands = ["# the runner (make bench passes its ARGS)",
                " ".join([rel(python), "bench/run.py", *(shlex.quote(x) for x in (argv if argv is not None else sys.argv[1:]))]),
                f"# servers, on core {SERVER_CORE}, each started fresh per run; PORT is a free port"]
    for s in servers:
        cmd, env = server_command(s, "PORT", Path(rel(peers)), rel(python), tandem_shown)
        commands.append(" ".join([*(f"{k}={v}" for k, v in env.items()), *taskset(SERVER_CORE, cmd)]))
    commands.append(f"# the generator, on core {GENERATOR_CORE}; SERVERPID is the server's pid, SERVER its name, N the run")
    for c in cases:
        if any(f not in flags for f in c.needs):
            continue  # skipped everywhere: no command to show
        room = c.room if (c.room != "demo" or not a.room) else a.room
        gen = generator_command(bench_shown, c, "ws://127.0.0.1:PORT", room, a.duration, a.warmup, "SERVERPID",
                                f"{rel(out_dir)}/{c.id}-SERVER-N.json", f"{rel(out_dir)}/{c.id}-SERVER-N.svg")
        commands.append(" ".join(taskset(GENERATOR_CORE, gen)))

    rows_runs: dict[tuple[str, str], list[RunRecord]] = {}
    na: dict[tuple[str, str], str] = {}
    for c in cases:
        for s in servers:
            key = (c.id, s)
            rows_runs[key] = []
            if c.api_only and s != "tandem":
                na[key] = c.na_peer
            elif any(f not in flags for f in c.needs):
                na[key] = "skipped: generator has no " + ", ".join(f for f in c.needs if f not in flags)

    try:  # other load on the machine skews every number: say so
        load1 = float(Path("/proc/loadavg").read_text().split()[0])
        if load1 > 0.5:
            notes.append(f"Load average {load1:.2f} at the start: something else was running; numbers may be skewed.")
            print(f"bench: load average {load1:.2f}: something else is running", flush=True)
    except (OSError, ValueError, IndexError):
        pass
    started = datetime.datetime.now().astimezone()
    interrupted = False
    try:
        for c in cases:
            for run in range(1, a.runs + 1):
                for s in servers:
                    key = (c.id, s)
                    if key in na:
                        continue
                    rec = one_run(c, s, run, a, out_dir, peers, python, taskset)
                    rows_runs[key].append(rec)
                    print(progress_line(rec), flush=True)
    except KeyboardInterrupt:
        print("bench: interrupted; writing what ran", flush=True)
        notes.append("Interrupted: incomplete.")
        interrupted = True

    rows = {key: aggregate(key[0], key[1], runs, na.get(key, "")) for key, runs in rows_runs.items()}
    floor = None
    if not a.no_floor and "tandem" in servers and not interrupted:
        floor = run_floor(rows, cases, a.runs, out_dir, taskset)
    meta = {
        "date": started.strftime("%Y-%m-%d %H:%M %Z"),
        "machine": machine(),
        "runs": a.runs,
        "duration": fmt_num(a.duration),
        "warmup": fmt_num(a.warmup),
        "servers": servers,
        "notes": notes + versions(servers, python),
        "commands": commands,
        "floor": floor,
    }
    block = build_markdown(rows, meta, cases)
    summary = out_dir / "summary.md"
    summary.write_text(f"{HEADING}\n\n{block}")
    print()
    print(block)
    print(f"bench: results in {rel(out_dir)}/ (summary.md)", flush=True)
    if not a.no_docs:
        DOCS.write_text(replace_block(DOCS.read_text(), block))
        print(f"bench: wrote {rel(DOCS)}", flush=True)
    return 0


def one_run(c: Case, s: str, run: int, a: argparse.Namespace, out_dir: Path, peers: Path, python: str, taskset) -> RunRecord:
    stem = out_dir / f"{c.id}-{s}-{run}"
    rec = RunRecord(c.id, s, run, "SERVER FAIL", files=str(stem))
    json_path = Path(f"{stem}.json")
    for suffix in (".json", ".svg", ".txt", ".server.log"):
        Path(f"{stem}{suffix}").unlink(missing_ok=True)
    port = free_port()
    cmd, env = server_command(s, port, peers, python, a.tandem_binary)
    server = ServerProcess(taskset(SERVER_CORE, cmd), env, port, Path(f"{stem}.server.log"))
    try:
        if not server.wait_healthy():
            rec.note = "server did not answer /healthz: " + server.log_tail()
            return rec
        room = c.room if (c.room != "demo" or not a.room) else a.room
        gen = generator_command(a.bench_binary, c, f"ws://127.0.0.1:{port}", room, a.duration, a.warmup,
                                server.pid, str(json_path), f"{stem}.svg")
        limit = max(a.timeout, a.duration + a.warmup + 60)
        code, timed_out = run_generator(taskset(GENERATOR_CORE, gen), Path(f"{stem}.txt"), limit)
        rec.exit = code
        if json_path.exists():
            try:
                rec.report = json.loads(json_path.read_text())
            except (OSError, ValueError) as e:
                rec.note = f"unreadable report: {e}"
        rec.status = classify(code, rec.report, timed_out)
        if timed_out:
            rec.note = f"generator killed after {limit:.0f} s"
        if server.proc.poll() is not None:
            rec.note = (rec.note + "; " if rec.note else "") + f"server exited during the run ({server.proc.returncode})"
            if rec.status == "PASS":
                rec.status = "FAIL"
        elif rec.status != "PASS" and not rec.note:
            rec.note = ("no update delivered in the measured window" if rec.report and no_delivery(rec.report)
                        else last_verdict(Path(f"{stem}.txt")))
        ambiguous = ((rec.report or {}).get("updates") or {}).get("ambiguous") or 0
        if ambiguous:
            rec.note = (rec.note + "; " if rec.note else "") + f"{int(ambiguous)} ambiguous moves (receivers lagged a whole code period)"
    finally:
        code = server.stop()
        if code not in (0, None, -signal.SIGTERM) and rec.status != "SERVER FAIL" and "server exited" not in rec.note:
            rec.note = (rec.note + "; " if rec.note else "") + f"server exit {code} on SIGTERM"
    return rec


def last_verdict(out: Path) -> str:
    """A short reason from the generator's output: its first violation or error line."""
    try:
        lines = out.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    for line in lines:
        t = line.strip()
        if t.lower().startswith(("violation", "error", "tandem-bench:")) or "INVALID" in t:
            return t[:160]
    for line in lines:
        if line.startswith("errors"):
            return line.strip()[:160]
    return lines[-1].strip()[:160] if lines else ""


def progress_line(r: RunRecord) -> str:
    m = metrics(r.report) if r.report else {}
    parts = [f"{r.case:<9} {r.server:<14} run {r.run}: {r.status:<8}"]
    if m.get("idle_kib") is not None:
        parts.append(f"{m['idle_kib']:.2f} KiB/conn")
    elif m:
        parts.append(f"delivered {f_pct(m.get('delivered_pct'))}  p99 {f_ms(m.get('p99_ms'))}  "
                     f"{f_num(m.get('us_per_update'), 2, ' µs')}/update  server {f_pct(m.get('server_cpu_pct'), 0)}  "
                     f"generator {f_pct(m.get('generator_cpu_pct'), 0)}")
    if r.note:
        parts.append(f"({r.note})")
    return "  ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
