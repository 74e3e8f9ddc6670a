"""The load generator `tandem-bench` itself: its runs against the real server,
its JSON and SVG reports, its modes (`--slow`, `--idle`, `--rooms`), its usage
errors, and above all its correctness checks, which must catch a deliberately
wrong server. The wrong server is the real one behind a corrupting proxy
(corrupting_proxy.py) that changes what it says in one way per test.

The binary is `.build/debug/tandem-bench` (`swift build --product
tandem-bench`), copied aside once per session; `TANDEM_BENCH_BINARY`
overrides the path. Its command line and report are those of docs/bench.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from corrupting_proxy import CorruptingProxy
from helpers import ROOT, copy_binary
from test_auth import SECRET
from test_auth import token as mint

DEFAULT_BENCH = ROOT / ".build" / "debug" / "tandem-bench"

# Short runs: 6 connections, 2 draggers at 30 Hz, half a second of warm-up, 1.5 s measured.
CLIENTS = 6
SHORT = ["--clients", str(CLIENTS), "--draggers", "2", "--hz", "30", "--duration", "1.5", "--warmup", "0.5"]
# The proxy corrupts a value after this many update frames. tandem-bench checks
# every frame, warm-up included, and a short run relays some 700 of them on an
# idle machine but barely 300 on a loaded one (the server folds the draggers'
# moves into fewer frames): early in the run, so that the corruption always
# comes before the run's fixed end.
AFTER = 60
RUN_TIMEOUT = 120  # seconds: a short run takes about 4 s


@pytest.fixture(scope="session")
def bench_binary(tmp_path_factory) -> Path:
    """tandem-bench, copied aside so that a rebuild by someone else mid-run changes nothing."""
    source = Path(os.environ.get("TANDEM_BENCH_BINARY", DEFAULT_BENCH))
    if not (source.is_file() and os.access(source, os.X_OK)):
        pytest.fail(f"{source} is missing: build it with `swift build --product tandem-bench` "
                    "(or set TANDEM_BENCH_BINARY)")
    copy = copy_binary(source, tmp_path_factory.mktemp("bench-bin"), "tandem-bench")
    if copy is None:
        pytest.fail(f"cannot copy {source}")
    return copy


@dataclass
class BenchRun:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None

    def __str__(self) -> str:
        return (f"tandem-bench {' '.join(self.args)}\nexit {self.returncode}\n--- stdout\n{self.stdout}"
                f"--- stderr\n{self.stderr[-3000:]}")

    @property
    def verdict(self) -> str | None:
        """The summary's last word: PASS or FAIL."""
        found = re.findall(r"^\s*(PASS|FAIL)\s*$", self.stdout, re.MULTILINE)
        return found[-1] if found else None

    @property
    def violations(self) -> list[dict[str, Any]]:
        assert self.report is not None, f"no JSON report\n{self}"
        return self.report["violations"]

    def violation_text(self) -> str:
        """Every violation, from the JSON and from the summary, as one text to search."""
        lines = [f"{v.get('control')}: {v.get('reason')}" for v in self.violations]
        lines += [line for line in self.stdout.splitlines() if "violation" in line.lower()]
        return "\n".join(lines)


@pytest.fixture
def bench(bench_binary, tmp_path):
    """Factory: `bench(*args, json=True)` runs tandem-bench to its end; a `--json` report is read back."""
    counter = iter(range(1_000_000))

    def run(*args: str, json_report: bool = True, timeout: float = RUN_TIMEOUT,
            env: dict[str, str] | None = None) -> BenchRun:
        args = list(args)
        path = None
        if json_report and "--json" not in args:
            path = tmp_path / f"bench-{next(counter)}.json"
            args += ["--json", str(path)]
        elif "--json" in args:
            path = Path(args[args.index("--json") + 1])
        try:
            done = subprocess.run([str(bench_binary), *args], cwd=str(tmp_path), stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, encoding="utf-8", errors="replace",
                                  timeout=timeout, env={**os.environ, **env} if env else None)
        except subprocess.TimeoutExpired as expired:
            pytest.fail(f"tandem-bench {' '.join(args)} did not end within {timeout} s; stdout so far:\n"
                        f"{expired.stdout}")
        report = None
        if path is not None and path.is_file():
            report = json.loads(path.read_text())
        return BenchRun(args, done.returncode, done.stdout, done.stderr, report)

    return run


@pytest.fixture
def proxy_to(server):
    """Factory: `proxy_to(mutation, **options)` → a running CorruptingProxy in front of `server`."""
    proxies: list[CorruptingProxy] = []

    def start(mutation: str, **options: Any) -> CorruptingProxy:
        proxy = CorruptingProxy(server.port, mutation, **options).start()
        proxies.append(proxy)
        return proxy

    yield start
    for proxy in proxies:
        proxy.stop()
    for proxy in proxies:
        assert not proxy.errors, f"the proxy itself failed: {proxy.errors}"


def assert_passed(run: BenchRun) -> None:
    assert run.returncode == 0, f"expected a passing run\n{run}"
    assert run.verdict == "PASS", f"no PASS line\n{run}"
    assert run.report is not None, f"no JSON report\n{run}"
    assert run.report["passed"] is True, run
    assert run.violations == [], run
    assert run.report["connectErrors"] == 0, run


def assert_failed(run: BenchRun) -> None:
    assert run.returncode == 1, f"expected a failing run (exit 1)\n{run}"
    assert run.verdict == "FAIL", f"no FAIL line\n{run}"
    assert run.report is not None and run.report["passed"] is False, run


def assert_latency(summary: dict[str, Any] | None, what: str = "latencyNs") -> None:
    assert isinstance(summary, dict), f"{what} is {summary!r}"
    for key in ("count", "min", "mean", "p50", "p90", "p99", "p99.9", "max", "clamped"):
        assert key in summary, f"{what} lacks {key}: {summary}"
    assert summary["count"] > 0, f"{what}: no samples: {summary}"
    assert 0 < summary["min"] <= summary["p50"] <= summary["p90"] <= summary["p99"] <= summary["p99.9"] <= summary["max"], summary


# --------------------------------------------------------------------------
# Through the proxy: the honest relay passes, every corruption fails
# --------------------------------------------------------------------------


def test_an_honest_relay_passes(server, proxy_to, bench):
    proxy = proxy_to("none")
    run = bench("--url", proxy.ws_url("bench"), *SHORT)
    assert_passed(run)
    assert proxy.connections >= CLIENTS
    updates = run.report["updates"]
    assert updates["delivered"] > 0 and updates["offered"] >= updates["delivered"], updates
    assert_latency(run.report["latencyNs"])
    assert re.search(r"p99\s+[\d.]+\s*[mµun]?s", run.stdout), run


# mutation → words one of which the violation must contain (StateValidator's reasons).
CORRUPTIONS = {
    "unsnapped": r"off the step grid",
    "out-of-range": r"value outside \[0, 1000000\]",
    "stale-final": r"client has .*server has|client at revision \d+, server at \d+",
    "revision-back": r"revision went back from \d+ to \d+",
    "wrong-commit": r"client has .*server has|differ from the server",
}


@pytest.mark.parametrize("mutation", list(CORRUPTIONS))
def test_a_corrupting_server_fails_the_run_naming_the_fault(server, proxy_to, bench, mutation):
    proxy = proxy_to(mutation, after=AFTER, victim=CLIENTS)
    run = bench("--url", proxy.ws_url("bench"), *SHORT)
    assert proxy.applied > 0, f"the proxy never applied {mutation}: the test proves nothing\n{run}"
    assert_failed(run)
    text = run.violation_text()
    assert re.search(CORRUPTIONS[mutation], text), (
        f"{mutation}: the proxy did {proxy.mutated}; no violation matches /{CORRUPTIONS[mutation]}/:\n{text}\n\n{run}")
    # The right control is named (the bench room's sliders).
    assert any(str(v.get("control", "")).startswith("bench-") for v in run.violations), run.violations


def test_one_wrong_value_is_one_violation(server, proxy_to, bench):
    """A single corrupted preview is reported once, with the value that was sent, and nothing else."""
    proxy = proxy_to("unsnapped", after=AFTER)
    run = bench("--url", proxy.ws_url("bench"), *SHORT)
    assert proxy.applied == 1
    assert_failed(run)
    assert len(run.violations) == 1, run.violations
    wrong = re.search(r"value (\S+) -> (\S+)", proxy.mutated[0]).group(2)
    assert wrong in run.violations[0]["reason"], (proxy.mutated, run.violations)


def test_a_connection_that_never_gets_its_welcome_fails_the_run(server, proxy_to, bench):
    proxy = proxy_to("drop-welcome", victim=CLIENTS)
    run = bench("--url", proxy.ws_url("bench"), *SHORT)
    assert proxy.applied == 1
    assert_failed(run)
    assert "welcome" in run.violation_text(), run


def test_a_server_that_sends_no_previews_fails_the_run(server, proxy_to, bench):
    """Nothing illegal is ever said, but no one sees a drag move: a run that measured nothing does not pass."""
    proxy = proxy_to("no-previews")
    run = bench("--url", proxy.ws_url("bench"), *SHORT)
    assert proxy.applied > 0
    assert run.report["updates"]["delivered"] == 0, run.report["updates"]
    assert_failed(run)
    assert "delivered" in run.violation_text(), run


# A gap found while writing these tests: a corruption tandem-bench does not name.


def test_a_welcome_that_lies_about_the_bench_room_is_named(server, proxy_to, bench):
    proxy = proxy_to("lying-schema", after=AFTER)
    run = bench("--url", proxy.ws_url("bench"), *SHORT)
    assert any("value" in line for line in proxy.mutated), proxy.mutated
    assert_failed(run)
    assert re.search(r"grid|step", run.violation_text()), run


def test_without_a_json_api_the_final_state_is_compared_with_a_fresh_welcome(server, proxy_to, bench):
    """A peer without `GET /api/rooms/ID`: the honest run still passes (the final
    comparison falls back to a fresh connection's welcome) ..."""
    proxy = proxy_to("none", hide_snapshots=True)
    run = bench("--url", proxy.ws_url("bench"), *SHORT)
    assert_passed(run)
    assert any(path.startswith("/api/rooms/bench") and status == 404 for _, path, status in proxy.http_requests)


def test_without_a_json_api_a_stale_client_is_still_caught(server, proxy_to, bench):
    """... and a client whose commits were dropped still differs from that welcome."""
    proxy = proxy_to("stale-final", victim=CLIENTS, hide_snapshots=True)
    run = bench("--url", proxy.ws_url("bench"), *SHORT)
    assert proxy.applied > 0
    assert_failed(run)
    assert re.search(CORRUPTIONS["stale-final"], run.violation_text()), run


# --------------------------------------------------------------------------
# Straight against tandem
# --------------------------------------------------------------------------

SPEC_KEYS = {
    "scenario", "url", "clients", "draggers", "rooms", "slowPercent", "hz", "seconds", "passed", "valid",
    "updates", "frames", "bytes", "latencyNs", "fastLatencyNs", "slowLatencyNs", "connectErrors", "rejects",
    "violations", "serverCPU", "generatorCPU", "idle", "timeline",
}
NESTED_KEYS = {
    "updates": {"offered", "delivered", "deliveredShare", "perFrame"},
    "frames": {"count", "perSecond"},
    "bytes": {"count", "perSecond"},
    "serverCPU": {"seconds", "coreShare", "nsPerDeliveredUpdate"},
    "generatorCPU": {"seconds", "coreShare"},
}
TIMELINE_KEYS = {"t", "count", "p50", "p90", "p99", "p99.9", "max"}


def test_the_demo_room_with_four_draggers_passes(server, bench):
    """gain, color.red, color.green, color.blue are dragged where they are; the demo room is not replaced."""
    before = server.get("/api/rooms/demo").json()
    run = bench("--url", server.ws_url("demo"), "--clients", "8", "--draggers", "4", "--hz", "30",
                "--duration", "1.5", "--warmup", "0.5")
    assert_passed(run)
    assert run.report["updates"]["delivered"] > 0, run.report["updates"]
    after = server.get("/api/rooms/demo").json()
    assert after["title"] == before["title"] == "Demo", after
    assert [c["id"] for c in after["controls"]] == [c["id"] for c in before["controls"]]
    states = {c["id"]: c["state"] for c in after["controls"]}
    old = {c["id"]: c["state"] for c in before["controls"]}
    assert states["size"] == old["size"] and states["blanks"] == old["blanks"], "a snap or range was dragged"
    assert run.report["rejects"] == 0, run


def test_the_json_report_has_every_key(server, bench):
    run = bench("--url", server.ws_url("bench"), *SHORT, "--pid", str(server.pid))
    assert_passed(run)
    report = run.report
    missing = SPEC_KEYS - report.keys()
    assert not missing, f"JSON lacks {sorted(missing)}: {sorted(report)}"
    for key, keys in NESTED_KEYS.items():
        assert isinstance(report[key], dict) and keys <= report[key].keys(), f"{key}: {report[key]}"
    assert_latency(report["latencyNs"])
    assert report["fastLatencyNs"] is None and report["slowLatencyNs"] is None, "no --slow: both are null"
    assert report["idle"] is None
    assert (report["clients"], report["draggers"], report["rooms"], report["slowPercent"]) == (CLIENTS, 2, 1, 0)
    assert report["hz"] == 30 and report["seconds"] == pytest.approx(1.5, abs=0.05)
    assert report["url"] == server.ws_url("bench") and report["valid"] is True
    assert report["serverCPU"]["seconds"] >= 0 and report["generatorCPU"]["coreShare"] <= 0.8
    assert report["timeline"], "an empty timeline"
    for point in report["timeline"]:
        assert TIMELINE_KEYS <= point.keys(), point


def test_svg_is_written(server, bench, tmp_path):
    path = tmp_path / "latency.svg"
    run = bench("--url", server.ws_url("bench"), *SHORT, "--svg", str(path))
    assert_passed(run)
    assert path.is_file(), run
    text = path.read_text()
    assert text.lstrip().startswith(("<svg", "<?xml")), text[:200]
    assert text.rstrip().endswith("</svg>"), text[-200:]


def test_slow_receivers_are_reported_apart(server, bench):
    run = bench("--url", server.ws_url("bench"), "--clients", "8", "--draggers", "2", "--hz", "30",
                "--duration", "2", "--warmup", "0.5", "--slow", "50")
    assert_passed(run)
    report = run.report
    assert report["slowPercent"] == 50
    assert_latency(report["fastLatencyNs"], "fastLatencyNs")
    assert_latency(report["slowLatencyNs"], "slowLatencyNs")
    # A slow receiver reads 10 ms in every 250 ms: it waits about 120 ms on average.
    assert report["slowLatencyNs"]["p50"] > report["fastLatencyNs"]["p50"], (report["fastLatencyNs"], report["slowLatencyNs"])


def test_idle_mode_reports_memory_per_connection(server, bench):
    run = bench("--url", server.ws_url("demo"), "--idle", "--pid", str(server.pid), "--clients", "200",
                "--ramp", "1000")
    assert run.returncode == 0, run
    idle = run.report["idle"]
    assert isinstance(idle, dict), run.report
    assert idle["connections"] == 200, idle
    assert idle["rssAfterBytes"] > idle["rssBeforeBytes"] > 0, idle
    assert idle["bytesPerConnection"] > 0, idle


def test_several_rooms(server, bench):
    run = bench("--url", server.ws_url("bench"), "--rooms", "3", "--clients", "12", "--draggers", "2", "--hz", "30",
                "--duration", "1.5", "--warmup", "0.5")
    assert_passed(run)
    assert run.report["rooms"] == 3
    rooms = {room["id"] for room in server.get("/api/rooms").json()["rooms"]}
    assert {"bench-1", "bench-2", "bench-3"} <= rooms, rooms
    for k in (1, 2, 3):
        snapshot = server.get(f"/api/rooms/bench-{k}").json()
        assert snapshot["title"] == "tandem-bench"
        assert len(snapshot["controls"]) == 2 and all(c["rev"] > 0 for c in snapshot["controls"]), snapshot


def test_a_room_that_is_not_a_bench_room_is_never_replaced(server, bench):
    """Four draggers fit the demo room; six do not, and the demo room must not be replaced by a bench room."""
    run = bench("--url", server.ws_url("demo"), "--clients", "8", "--draggers", "6", "--hz", "30",
                "--duration", "1", "--warmup", "0.2")
    assert run.returncode == 1, run
    assert "tandem-bench" in run.stderr + run.stdout, run
    assert server.get("/api/rooms/demo").json()["title"] == "Demo"


# --------------------------------------------------------------------------
# Usage errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize("args, flag", [
    (["--url", "ws://127.0.0.1:9/rooms/x", "--clients", "0"], "--clients"),
    (["--clients", "4"], "--url"),
    (["--url", "ws://127.0.0.1:9/rooms/x", "--idle"], "--pid"),
    (["--url", "ws://127.0.0.1:9/rooms/x", "--rooms", "0"], "--rooms"),
    (["--url", "ws://127.0.0.1:9/rooms/x", "--slow", "101"], "--slow"),
    (["--url", "ws://127.0.0.1:9/rooms/x", "--hz", "0"], "--hz"),
    (["--url", "http://127.0.0.1:9/rooms/x"], "--url"),
    (["--url", "ws://127.0.0.1:9/rooms/x", "--frobnicate"], "--frobnicate"),
], ids=["clients-0", "no-url", "idle-without-pid", "rooms-0", "slow-over-100", "hz-0", "url-not-ws", "unknown-flag"])
def test_usage_errors_exit_2_naming_the_flag(bench, args, flag):
    run = bench(*args, json_report=False, timeout=30)
    assert run.returncode == 2, run
    assert flag in run.stderr, run


# --------------------------------------------------------------------------
# A server with auth on: the token on every WebSocket and API call
# --------------------------------------------------------------------------


@pytest.fixture
def auth_server(start_server, tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET + b"\n")
    return start_server("--auth-secret-file", str(secret))


def test_with_an_editor_token_from_a_file_the_demo_room_passes(auth_server, bench, tmp_path):
    path = tmp_path / "token"
    path.write_text(mint(role="editor", room="demo") + "\n")
    run = bench("--url", auth_server.ws_url("demo"), *SHORT, "--token-file", str(path))
    assert_passed(run)
    assert run.report["updates"]["delivered"] > 0, run.report["updates"]
    assert run.report["rejects"] == 0, run


def test_with_an_admin_token_from_the_environment_the_bench_creates_its_rooms(auth_server, bench):
    admin = mint(role="admin", room=["bench-1", "bench-2", "bench-3"])
    run = bench("--url", auth_server.ws_url("bench"), "--rooms", "3", "--clients", "9", "--draggers", "2",
                "--hz", "30", "--duration", "1.5", "--warmup", "0.5", env={"TANDEM_TOKEN": admin})
    assert_passed(run)
    assert run.report["updates"]["delivered"] > 0, run.report["updates"]
    headers = {"Authorization": f"Bearer {admin}"}
    for k in (1, 2, 3):
        snapshot = auth_server.request("GET", f"/api/rooms/bench-{k}", headers=headers).json()
        assert snapshot["title"] == "tandem-bench", snapshot


def test_the_flag_wins_over_the_environment_and_follows_a_query_in_the_url(auth_server, bench):
    run = bench("--url", auth_server.ws_url("demo", name="bench"), *SHORT, "--token", mint(role="editor"),
                env={"TANDEM_TOKEN": mint(role="editor", ttl=-3600)})
    assert_passed(run)


def assert_refused(run: BenchRun, message: str) -> None:
    assert run.returncode == 1, f"expected exit 1\n{run}"
    assert f"tandem-bench: the server refused the token: {message}" in run.stderr, run
    assert "failed:" not in run.stderr and "closed by the server" not in run.stderr, f"a pile of connect errors\n{run}"


@pytest.mark.parametrize("draggers", ["2", "0"], ids=["api-first", "websocket-only"])
def test_without_a_token_the_bench_stops_naming_the_refusal(auth_server, bench, draggers):
    run = bench("--url", auth_server.ws_url("demo"), *SHORT[:2], "--draggers", draggers, *SHORT[4:])
    # With draggers, the room check over the API is refused first; without, the WebSocket is.
    assert_refused(run, "HTTP 401 missing token" if draggers == "2" else "4401 missing token")


def test_an_expired_token_stops_the_bench(auth_server, bench):
    run = bench("--url", auth_server.ws_url("demo"), *SHORT, "--token", mint(role="editor", ttl=-3600))
    assert_refused(run, "HTTP 401 token expired")


def test_an_expired_token_on_the_websocket_is_named_with_its_close_code(auth_server, bench):
    run = bench("--url", auth_server.ws_url("demo"), *SHORT[:2], "--draggers", "0", *SHORT[4:],
                "--token", mint(role="editor", ttl=-3600))
    assert_refused(run, "4401 token expired")


def test_a_token_for_another_room_stops_the_bench(auth_server, bench):
    run = bench("--url", auth_server.ws_url("demo"), *SHORT, "--token", mint(role="editor", room="studio"))
    assert_refused(run, "HTTP 403 token does not cover room 'demo'")
    run = bench("--url", auth_server.ws_url("demo"), *SHORT[:2], "--draggers", "0", *SHORT[4:],
                "--token", mint(role="editor", room="studio"))
    assert_refused(run, "4403 token does not cover room 'demo'")


def test_an_editor_token_cannot_create_the_bench_rooms(auth_server, bench):
    run = bench("--url", auth_server.ws_url("bench"), *SHORT, "--token", mint(role="editor", room="bench"))
    assert_refused(run, "HTTP 403 creating, replacing and deleting rooms needs the admin role (POST /api/rooms)")


def test_a_viewer_token_stops_the_bench_naming_the_role(auth_server, bench):
    run = bench("--url", auth_server.ws_url("demo"), *SHORT, "--token", mint(role="viewer"))
    assert run.returncode == 1, run
    assert "as a viewer" in run.stderr and "role editor" in run.stderr, run
    assert "reject:" not in run.stderr and "closed by the server" not in run.stderr, run


@pytest.mark.parametrize("args, message", [
    (["--token", "a.b.c", "--token-file", "t"], "--token and --token-file"),
    (["--token-file", "missing-token"], "--token-file missing-token"),
    (["--token", "a b"], "--token"),
    (["--url", "ws://127.0.0.1:1/rooms/demo?token=a.b.c"], "not in the URL"),
])
def test_token_usage_errors_exit_2(bench, args, message):
    run = bench("--url", "ws://127.0.0.1:1/rooms/demo", *args, json_report=False, timeout=30)
    assert run.returncode == 2, run
    assert message in run.stderr, run
