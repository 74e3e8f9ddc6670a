"""The pure parts of bench/run.py (`make bench`): medians, statuses, tables
with FAIL/INVALID marks, targets, ratio text, the floor (bench/send_floor.c)'s
arguments, output and ratio lines, and the docs block. No server is started
and send_floor is neither compiled nor run: the reports are built here in the
shape of tandem-bench's JSON."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    name = "tandem_bench_run"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


run = _load()
CASES = {c.id: c for c in run.CASES}


def report(*, clients=1004, draggers=4, seconds=10.0, delivered=2_400_000, share=0.996, per_frame=2.5,
           p50=5.0, p99=15.0, p999=20.0, mx=30.0, ns_per_update=1200.0, server_share=0.9,
           generator_share=0.45, passed=True, valid=None, slow=None, idle=None, rooms=1, frames=1, nbytes=1):
    """A tandem-bench JSON report; latencies in ms, turned into ns."""
    def lat(p50, p99, p999, mx):
        return {"count": 1000, "min": 1e5, "mean": p50 * 1e6, "p50": p50 * 1e6, "p90": p50 * 2e6,
                "p99": p99 * 1e6, "p99.9": p999 * 1e6, "max": mx * 1e6, "clamped": 0}
    r = {
        "scenario": f"{clients}x{draggers}@60Hz", "url": "ws://127.0.0.1:1/rooms/demo", "clients": clients,
        "draggers": draggers, "rooms": rooms, "slowPercent": 0, "hz": 60, "seconds": seconds, "passed": passed,
        "valid": generator_share <= 0.8 if valid is None else valid,
        "updates": {"offered": delivered / share if share else 2_000_000, "delivered": delivered, "deliveredShare": share,
                    "perFrame": per_frame},
        "frames": {"count": frames, "perSecond": frames / seconds},
        "bytes": {"count": nbytes, "perSecond": nbytes / seconds},
        "latencyNs": lat(p50, p99, p999, mx),
        "fastLatencyNs": None, "slowLatencyNs": None,
        "connectErrors": 0, "rejects": 0, "violations": [],
        "serverCPU": {"seconds": server_share * seconds, "coreShare": server_share,
                      "nsPerDeliveredUpdate": ns_per_update},
        "generatorCPU": {"seconds": generator_share * seconds, "coreShare": generator_share},
        "idle": None, "timeline": [],
    }
    if slow is not None:
        r["slowPercent"] = 20
        r["fastLatencyNs"] = lat(p50, slow[0], slow[0], slow[0])
        r["slowLatencyNs"] = lat(p50, slow[1], slow[1], slow[1])
    if idle is not None:
        r["idle"] = {"connections": clients, "rssBeforeBytes": 10 << 20,
                     "rssAfterBytes": (10 << 20) + clients * idle, "bytesPerConnection": idle}
        r["serverCPU"]["nsPerDeliveredUpdate"] = None
        r["updates"] = {"offered": 0, "delivered": 0, "deliveredShare": 0, "perFrame": 0}
    return r


def rec(case, server, n, rep, exit_code=0, status=None):
    return run.RunRecord(case, server, n, status or run.classify(exit_code, rep), exit_code, rep)


# -- medians and statuses


def test_median_of_runs_ignores_missing_values():
    assert run.median([3.0, 1.0, 2.0]) == 2.0
    assert run.median([4.0, None, 1.0, 2.0, 3.0]) == 2.5
    assert run.median([None, None]) is None
    assert run.median([]) is None


@pytest.mark.parametrize("exit_code, rep, timed_out, status", [
    (0, report(), False, "PASS"),
    (1, report(passed=False), False, "FAIL"),
    (1, report(generator_share=0.93), False, "INVALID"),
    (1, None, False, "FAIL"),
    (0, None, False, "NO REPORT"),
    (2, None, False, "USAGE"),
    (None, None, True, "TIMEOUT"),
    (0, report(delivered=0, share=0.0), False, "FAIL"),  # offered moves, measured nothing
])
def test_classify(exit_code, rep, timed_out, status):
    assert run.classify(exit_code, rep, timed_out) == status


def test_validity_falls_back_to_generator_share_without_the_valid_key():
    r = report(generator_share=0.85)
    del r["valid"]  # the first generator's JSON has no "valid"
    assert not run.report_valid(r)
    r["generatorCPU"]["coreShare"] = 0.5
    assert run.report_valid(r)


def test_metrics_units_and_thumb_rate():
    m = run.metrics(report(clients=10000, draggers=4, seconds=10, delivered=10000 * 4 * 10 * 25, ns_per_update=1250))
    assert m["thumb_hz"] == pytest.approx(25.0)
    assert m["us_per_update"] == pytest.approx(1.25)
    assert m["p99_ms"] == pytest.approx(15.0)
    assert m["delivered_pct"] == pytest.approx(99.6)
    assert m["server_cpu_pct"] == pytest.approx(90.0)
    idle = run.metrics(report(clients=5000, idle=3072))
    assert idle["idle_kib"] == pytest.approx(3.0)
    assert idle["us_per_update"] is None and idle["thumb_hz"] is None
    assert run.classify(0, report(clients=5000, idle=3072)) == "PASS"  # no moves in memory mode
    empty = report(delivered=0, share=0.0)
    empty["latencyNs"]["count"] = 0
    assert run.metrics(empty)["p99_ms"] is None  # shown as –, not 0 ms


def test_aggregate_takes_medians_of_passing_runs_only():
    runs = [rec("S2", "tandem", 1, report(p99=10)), rec("S2", "tandem", 2, report(p99=30)),
            rec("S2", "tandem", 3, report(p99=12)),
            rec("S2", "tandem", 4, report(p99=500, passed=False), exit_code=1)]
    row = run.aggregate("S2", "tandem", runs)
    assert row.judged
    assert row.medians["p99_ms"] == pytest.approx(12.0)
    assert row.status_text == "3 PASS, 1 FAIL"


def test_aggregate_without_a_passing_run_uses_all_reports_and_is_not_judged():
    runs = [rec("S2", "node_ws", 1, report(p99=40, generator_share=0.9), exit_code=1),
            rec("S2", "node_ws", 2, report(p99=60, passed=False), exit_code=1),
            run.RunRecord("S2", "node_ws", 3, "TIMEOUT", None, None)]
    row = run.aggregate("S2", "node_ws", runs)
    assert row.basis == "all" and not row.judged
    assert row.medians["p99_ms"] == pytest.approx(50.0)
    assert row.status_text == "1 FAIL, 1 INVALID, 1 TIMEOUT"
    assert run.target_cell("S2", row).startswith("not judged")


# -- targets


def test_targets():
    ok = run.metrics(report(share=0.995, p99=18, ns_per_update=1400))
    assert run.target_s2(ok) == (True, [])
    met, misses = run.target_s2(run.metrics(report(share=0.98, p99=25, ns_per_update=1400)))
    assert not met and len(misses) == 2 and "98.0 %" in misses[0] and "25.0 ms" in misses[1]
    assert run.target_s3(run.metrics(report(clients=5000, idle=4096)))[0]
    assert not run.target_s3(run.metrics(report(clients=5000, idle=5000)))[0]
    s4 = dict(clients=10000, draggers=4, seconds=10, p99=40)
    assert run.target_s4(run.metrics(report(delivered=10000 * 4 * 10 * 21, **s4)))[0]
    met, misses = run.target_s4(run.metrics(report(delivered=10000 * 4 * 10 * 12, **s4)))
    assert not met and "12.0 Hz" in misses[0]


# -- tables and ratios


def rows_for(case_id, per_server):
    return {(case_id, s): run.aggregate(case_id, s, runs, na) for s, (runs, na) in per_server.items()}


def test_ratio_text():
    assert run.ratio_text("CPU per update", "node_ws", 1.0, 2.9) == "CPU per update: node_ws / tandem = 2.9×"
    assert run.ratio_text("p99 latency", "py_websockets", 2.0, 50.0) == "p99 latency: py_websockets / tandem = 25×"
    assert run.ratio_text("server CPU", "node_ws", 40.0, 18.0) == "server CPU: node_ws / tandem = 0.45×"
    assert run.ratio_text("x", "node_ws", None, 1.0) is None
    assert run.ratio_text("x", "node_ws", 0.0, 1.0) is None


def test_s2_table_marks_fail_invalid_targets_and_ratios():
    rows = rows_for("S2", {
        "tandem": ([rec("S2", "tandem", i, report(ns_per_update=1000 + i, p99=10)) for i in (1, 2, 3)], ""),
        "node_ws": ([rec("S2", "node_ws", 1, report(ns_per_update=2900, p99=30)),
                     rec("S2", "node_ws", 2, report(passed=False), exit_code=1),
                     rec("S2", "node_ws", 3, report(generator_share=0.95), exit_code=1)], ""),
        "py_websockets": ([rec("S2", "py_websockets", 1, report(generator_share=0.95), exit_code=1)], ""),
    })
    lines = run.case_table(CASES["S2"], [rows[("S2", s)] for s in run.SERVERS])
    assert lines[0].startswith("| server | runs | delivered |") and lines[0].endswith("| generator CPU | target |")
    tandem, node, py = lines[2], lines[3], lines[4]
    assert "| 3 PASS |" in tandem and "| 1.00 |" in tandem and tandem.endswith("| met |")
    assert "1 PASS, 1 FAIL, 1 INVALID" in node and "not met: p99 30.0 ms > 20 ms; 2.90 µs > 1.5 µs per update" in node
    assert "1 INVALID (medians of failed runs)" in py and "95 % (INVALID)" in py and "not judged" in py
    ratios = run.case_ratios(CASES["S2"], [rows[("S2", s)] for s in run.SERVERS])
    assert "CPU per update: node_ws / tandem = 2.9×" in ratios
    assert "p99 latency: node_ws / tandem = 3.0×" in ratios
    assert any(t.startswith("CPU per update: py_websockets / tandem") and "failed runs of py_websockets" in t
               for t in ratios)


def test_s6_peers_are_not_applicable_and_s3_shows_kib():
    rows = rows_for("S6", {"tandem": ([rec("S6", "tandem", 1, report(clients=1000, draggers=2, rooms=50))], ""),
                           "node_ws": ([], CASES["S6"].na_peer)})
    lines = run.case_table(CASES["S6"], [rows[("S6", "tandem")], rows[("S6", "node_ws")]])
    assert "| node_ws | n/a: one room, no admin API |" in lines[3]
    rows3 = rows_for("S3-5000", {"tandem": ([rec("S3-5000", "tandem", 1, report(clients=5000, idle=2560))], ""),
                                 "node_ws": ([rec("S3-5000", "node_ws", 1, report(clients=5000, idle=10240))], "")})
    case = CASES["S3-5000"]
    lines = run.case_table(case, [rows3[("S3-5000", "tandem")], rows3[("S3-5000", "node_ws")]])
    assert "KiB per idle connection" in lines[0]
    assert "| 2.50 |" in lines[2] and lines[2].endswith("| met |")
    assert lines[3].endswith("| not met: 10.00 KiB > 4 KiB per connection |")
    assert run.case_ratios(case, list(rows3.values())) == ["bytes per idle connection: node_ws / tandem = 4.0×"]


def test_s4_and_s5_extra_columns():
    s4 = rows_for("S4", {"tandem": ([rec("S4", "tandem", 1, report(clients=10000, seconds=10,
                                                                    delivered=10000 * 4 * 10 * 30, p99=45))], "")})
    lines = run.case_table(CASES["S4"], list(s4.values()))
    assert "Hz per thumb per client" in lines[0] and "| 30.0 Hz |" in lines[2] and lines[2].endswith("| met |")
    s2 = rows_for("S2", {"tandem": ([rec("S2", "tandem", 1, report(p99=10))], "")})
    s5 = rows_for("S5", {"tandem": ([rec("S5", "tandem", 1, report(p99=80, slow=(12, 300)))], "")})
    lines = run.case_table(CASES["S5"], list(s5.values()), {"tandem": s2[("S2", "tandem")]})
    assert "| fast p99 | slow p99 | fast p99 / S2 p99 |" in lines[0]
    assert "| 12.0 ms | 300 ms | 1.2× |" in lines[2]


def test_build_markdown_has_meta_commands_and_sections():
    rows = rows_for("S1", {"tandem": ([rec("S1", "tandem", 1, report(clients=204))], "")})
    rows.update(rows_for("S2", {"tandem": ([rec("S2", "tandem", 1, report(passed=False), exit_code=1)], "")}))
    meta = {"date": "2025-01-01 00:00 UTC", "machine": "nproc 2, AMD EPYC", "runs": 3, "duration": "10",
            "warmup": "3", "servers": ["tandem"], "notes": ["Peers not found at ../shared/bench/peers: tandem only."],
            "commands": ["taskset -c 0 .build/release/tandem --port PORT --data :memory: --log-level warn"]}
    text = run.build_markdown(rows, meta, [CASES["S1"], CASES["S2"]])
    assert "2025-01-01 00:00 UTC" in text and "nproc 2, AMD EPYC" in text and "3 run(s)" in text
    assert "- Peers not found at ../shared/bench/peers: tandem only." in text
    assert "```sh\ntaskset -c 0 .build/release/tandem --port PORT" in text
    assert "### S1: 200 receivers" in text and "### S2: 1,000 receivers" in text
    assert "| S2-tandem-1 | FAIL | 1 |" in text
    assert run.BEGIN not in text and run.END not in text


# -- the docs block


def test_replace_block_between_existing_markers_keeps_the_rest():
    before = f"# Benchmarks\n\nintro\n\n{run.HEADING}\n\n{run.BEGIN}\nold\ntable\n{run.END}\n\n## Other\n\ntext\n"
    after = run.replace_block(before, "new block\n")
    assert after == f"# Benchmarks\n\nintro\n\n{run.HEADING}\n\n{run.BEGIN}\nnew block\n{run.END}\n\n## Other\n\ntext\n"
    assert run.replace_block(after, "new block\n") == after  # idempotent


def test_replace_block_adds_heading_and_markers_before_the_first_section():
    before = "# Benchmarks\n\nEvery number here comes with its command.\n\n## The event loop\n\nbody\n"
    after = run.replace_block(before, "tables")
    assert after == ("# Benchmarks\n\nEvery number here comes with its command.\n\n"
                     f"{run.HEADING}\n\n{run.BEGIN}\ntables\n{run.END}\n\n## The event loop\n\nbody\n")
    assert run.replace_block("# Only a title\n", "t") == f"# Only a title\n\n{run.HEADING}\n\n{run.BEGIN}\nt\n{run.END}\n"


def test_replace_block_on_the_real_docs_changes_nothing_outside_the_block():
    docs = (ROOT / "docs" / "benchmarks.md").read_text()
    after = run.replace_block(docs, "BLOCK")
    b, e = after.index(run.BEGIN), after.index(run.END)
    assert after[b + len(run.BEGIN):e] == "\nBLOCK\n"
    outside = after[:b] + after[e + len(run.END):]
    for line in docs.splitlines():
        if line.startswith("## ") and line != run.HEADING:
            assert line in outside
    assert after.count(run.HEADING) == 1


def test_quick_and_options_parse():
    a = run.parse_args(["--quick", "--only", "s1,S3", "--servers", "tandem"])
    assert (a.runs, a.duration, a.warmup) == (1, 3, 1)
    assert a.scenarios == ["S1", "S3"] and a.server_list == ["tandem"]
    a = run.parse_args([])
    assert (a.runs, a.duration, a.warmup) == (3, 10, 3) and a.scenarios == list(run.SCENARIOS)
    with pytest.raises(SystemExit):
        run.parse_args(["--only", "S9"])


def test_generator_commands():
    cmd = run.generator_command("tb", CASES["S5"], "ws://127.0.0.1:9", "demo", 10, 3, 42, "a.json", "a.svg")
    assert cmd == ["tb", "--url", "ws://127.0.0.1:9/rooms/demo", "--clients", "1004", "--draggers", "4", "--hz",
                   "60", "--slow", "20", "--duration", "10", "--warmup", "3", "--pid", "42", "--json", "a.json",
                   "--svg", "a.svg"]
    idle = run.generator_command("tb", CASES["S3-10000"], "ws://h:1", "demo", 10, 3, 42, "j", "s")
    assert "--duration" not in idle and idle[3:6] == ["--idle", "--clients", "10000"]


# -- the floor (bench/send_floor.c)


FLOOR_JSON = '{"size":480,"connections":504,"roundMs":12,"rounds":400,"lateRounds":0,"usPerSend":6.100}'
FLOOR_HUMAN = "480-byte sends over 504 connections in rounds 12 ms apart: 6.10 us of sender CPU per send"


def test_parse_floor_output_prefers_the_last_json_line():
    d = run.parse_floor_output(FLOOR_HUMAN + "\n" + FLOOR_JSON + "\n")
    assert d["usPerSend"] == pytest.approx(6.1) and d["size"] == 480 and d["connections"] == 504
    assert d["roundMs"] == 12 and d["lateRounds"] == 0
    older = FLOOR_JSON.replace("6.100", "9.000")
    assert run.parse_floor_output(older + "\nnoise\n" + FLOOR_JSON + "\n\n")["usPerSend"] == pytest.approx(6.1)


def test_parse_floor_output_falls_back_to_the_human_line():
    assert run.parse_floor_output("warning: x\n" + FLOOR_HUMAN + "\n") == {
        "size": 480, "connections": 504, "roundMs": 12.0, "usPerSend": 6.1}
    broken = FLOOR_HUMAN + '\n{"size":480,"usPerSend":null}\n{"size":480,"usPerSend'
    assert run.parse_floor_output(broken)["usPerSend"] == pytest.approx(6.1)
    assert run.parse_floor_output('{"usPerSend": true}') is None


@pytest.mark.parametrize("text", [
    "",
    "send_floor: socket (raise ulimit -n?): Too many open files\n",
    "370-byte sends over 1000 connections: 1.23 us of sender CPU per send\n",  # the back-to-back mode
    "[1, 2]\n{not json}\n",
])
def test_parse_floor_output_without_a_result(text):
    assert run.parse_floor_output(text) is None


def test_floor_args_from_reports():
    # 504 clients × 10 s ÷ 420,000 frames: a round every 12 ms; ÷ 630,000: every 8 ms
    reps = [report(clients=504, frames=420_000, nbytes=201_768_000), report(clients=504, frames=630_000, nbytes=296_100_000),
            report(clients=504, frames=504_000, nbytes=252_000_000)]
    assert run.floor_args(reps) == (480, 504, 10)  # median of 480.4, 470, 500 B per frame; of 12, 8, 10 ms
    assert run.floor_args([report(clients=204, frames=3, nbytes=1000)]) == (333, 204, 680_000)
    assert run.floor_args([report(clients=204, seconds=10, frames=194_033, nbytes=1000)])[2] == 10.5
    assert run.floor_args([report(clients=204, frames=0, nbytes=0)]) is None
    assert run.floor_args([]) is None
    no_frames = report(clients=204)
    del no_frames["frames"]  # an older generator
    assert run.floor_args([no_frames]) is None
    no_seconds = report(clients=204, frames=3, nbytes=1000)
    del no_seconds["seconds"]  # no interval to follow: the fan-out period
    assert run.floor_args([no_seconds]) == (333, 204, run.FLOOR_ROUND_MS)


def test_row_reports_are_those_the_medians_came_from():
    ok = report(clients=504, frames=10, nbytes=5000)
    failed = report(clients=504, frames=10, nbytes=9000, passed=False)
    row = run.aggregate("S2h", "tandem", [rec("S2h", "tandem", 1, ok), rec("S2h", "tandem", 2, failed, exit_code=1)])
    assert run.row_reports(row) == [ok]
    row = run.aggregate("S2h", "tandem", [rec("S2h", "tandem", 1, failed, exit_code=1)])
    assert run.row_reports(row) == [failed] and not row.judged
    assert run.row_reports(run.aggregate("S2h", "tandem", [])) == []


def test_floor_commands():
    assert run.floor_command("bench/results/send_floor", 480, 504) == ["bench/results/send_floor", "480", "504", "12"]
    assert run.floor_command("f", 480, 504, 12.5)[-1] == "12.5"
    assert run.floor_compile_command("bench/send_floor.c", "bench/results/send_floor") == [
        "gcc", "-O2", "-o", "bench/results/send_floor", "bench/send_floor.c"]


def s2h_row(ns_per_update=1480.0, per_frame=5.0, passed=True):
    r = report(clients=504, ns_per_update=ns_per_update, per_frame=per_frame, passed=passed, frames=420_000,
               nbytes=201_600_000)  # 480 B per frame, a round every 12 ms
    return run.aggregate("S2h", "tandem", [rec("S2h", "tandem", 1, r, exit_code=0 if passed else 1)])


def test_frame_cost_and_ratio_line():
    row = s2h_row()
    assert run.frame_cost_us(row.medians) == pytest.approx(7.4)
    assert run.frame_cost_us({"us_per_update": None, "per_frame": 5.0}) is None
    fr = run.FloorRun("S2h", 480, 504, us_per_send=[6.05, 6.1, 6.2])
    assert fr.median_us == pytest.approx(6.1)
    assert run.floor_ratio_line(fr, row) == (
        "tandem S2h: 7.4 µs of server CPU per frame = 1.21× the floor (6.1 µs per send of 480 B over "
        "504 connections, rounds 12 ms apart); goal ≤ 1.3×")
    assert run.floor_ratio_line(fr, s2h_row(passed=False)).endswith("goal ≤ 1.3× (from failed runs of tandem)")
    small = run.FloorRun("S1", 300, 204, us_per_send=[0.8])
    assert "= 1.50× the floor (0.80 µs per send of 300 B over 204 connections" in run.floor_ratio_line(
        small, s2h_row(ns_per_update=400, per_frame=3))


def test_ratio_line_without_a_number():
    fr = run.FloorRun("S2h", 480, 504, failures=["run 1: exit 1: send_floor: connect: refused"])
    line = run.floor_ratio_line(fr, s2h_row())
    assert line.startswith("tandem S2h: 7.4 µs of server CPU per frame; the floor gave no number") and "×" not in line[:60]
    assert run.floor_ratio_line(run.FloorRun("S2h", 480, 504, us_per_send=[6.1]), None).startswith(
        "tandem S2h: no server CPU per frame")
    assert run.floor_runs_line(fr) == ("floor S2h (480 B × 504 connections): no result "
                                       "(run 1: exit 1: send_floor: connect: refused)")


def test_floor_runs_line():
    fr = run.FloorRun("S2h", 480, 504, us_per_send=[6.2, 6.05, 6.1], late_rounds=[0, 2, 0],
                      failures=["run 4: killed after 120 s"])
    assert run.floor_runs_line(fr) == (
        "floor S2h (480 B × 504 connections): 6.20, 6.05, 6.10 µs per send; median 6.10 µs; "
        "2 late round(s): the sender fell behind its period; 1 failed run(s): run 4: killed after 120 s")


def floor_meta(floor):
    return {"date": "d", "machine": "m", "runs": 3, "duration": "10", "warmup": "3", "servers": ["tandem"],
            "commands": [], "floor": floor}


def test_build_markdown_has_the_floor_section():
    rows = {("S2h", "tandem"): s2h_row()}
    fr = run.FloorRun("S2h", 480, 504, us_per_send=[6.05, 6.1, 6.2],
                      command="taskset -c 0 bench/results/send_floor 480 504 12")
    floor = {"compile": "gcc -O2 -o bench/results/send_floor bench/send_floor.c", "runs": [fr], "error": ""}
    text = run.build_markdown(rows, floor_meta(floor), [CASES["S2h"]])
    assert "### The floor in this run" in text
    assert ("```sh\ngcc -O2 -o bench/results/send_floor bench/send_floor.c\n"
            "taskset -c 0 bench/results/send_floor 480 504 12\n```") in text
    assert "- floor S2h (480 B × 504 connections): 6.05, 6.10, 6.20 µs per send; median 6.10 µs" in text
    assert "- tandem S2h: 7.4 µs of server CPU per frame = 1.21× the floor" in text
    assert text.index("### S2h") < text.index("### The floor") < text.index("<details>")
    assert "### The floor" not in run.build_markdown(rows, floor_meta(None), [CASES["S2h"]])


def test_build_markdown_says_when_the_floor_was_not_measured():
    rows = {("S2h", "tandem"): s2h_row()}
    fr = run.FloorRun("S2h", 480, 504, command="taskset -c 0 bench/results/send_floor 480 504 12")
    floor = {"compile": "gcc -O2 -o bench/results/send_floor bench/send_floor.c", "runs": [fr],
             "error": "gcc not found."}
    text = run.build_markdown(rows, floor_meta(floor), [CASES["S2h"]])
    assert "- The floor was not measured: gcc not found." in text
    assert "the floor (" not in text  # no ratio line


def test_run_floor_plans_without_running_anything(tmp_path, monkeypatch):
    taskset = lambda core, cmd: ["taskset", "-c", core, *cmd]
    s2 = run.aggregate("S2", "tandem", [rec("S2", "tandem", 1, report())])
    assert run.run_floor({("S2", "tandem"): s2}, [CASES["S2"]], 3, tmp_path, taskset) is None  # no S2h/S1
    no_frames = report(clients=204, frames=0, nbytes=0)
    s1 = run.aggregate("S1", "tandem", [rec("S1", "tandem", 1, no_frames)])
    floor = run.run_floor({("S1", "tandem"): s1}, [CASES["S1"]], 3, tmp_path, taskset)
    assert floor["runs"][0].failures == ["no tandem report with frames and bytes"] and not floor["error"]
    monkeypatch.setattr(run.shutil, "which", lambda name: None)
    floor = run.run_floor({("S2h", "tandem"): s2h_row(), ("S1", "tandem"): s1}, [CASES["S1"], CASES["S2h"]], 3,
                          tmp_path, taskset)
    assert floor["error"] == "gcc not found."
    assert [fr.case for fr in floor["runs"]] == ["S2h", "S1"]
    s2h = floor["runs"][0]
    assert (s2h.size, s2h.conns, s2h.round_ms) == (480, 504, 12)
    assert s2h.command.startswith("taskset -c 0 ") and s2h.command.endswith("send_floor 480 504 12")
    assert floor["compile"].startswith("gcc -O2 -o ") and floor["compile"].endswith(" bench/send_floor.c")
    assert not any(tmp_path.iterdir())  # nothing compiled, nothing run


def test_no_floor_option():
    assert run.parse_args(["--no-floor"]).no_floor
    assert not run.parse_args([]).no_floor
