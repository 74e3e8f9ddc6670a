"""The delivery probe (Server+DeliveryProbe.swift): /healthz goes red when delivery
stops, not only when a connection drops. Every second a node publishes a probe on
`tandem:probe:NODE` through its commands connection and must hear it back on its
subscriber within 3 s.

- Delivery silently cut: an iptables rule drops what Redis sends to the node's
  subscriber (its socket stays open, nothing resets it): /healthz answers 503
  `redis delivery stalled: no probe back for N s`, the node warns and reconnects
  the subscriber (a new local port the rule does not match), and /healthz is 200
  again, with the stall counted in /metrics.
- Redis stopped (SIGSTOP), then continued: 503, then 200.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import threading

import pytest

from cluster import RedisServer
from conftest import stop_running
from helpers import WAIT, TandemServer, healthz, wait_until


@pytest.fixture
def redis(tmp_path):
    server = RedisServer(tmp_path)
    yield server
    if server.proc and server.proc.poll() is None:
        server.proc.send_signal(signal.SIGCONT)
    server.stop()


@pytest.fixture
def node(tandem_binary, redis):
    started = TandemServer(tandem_binary, ["--redis", redis.url, "--node-id", "p1"])
    yield started
    stop_running([started])


def subscriber_port(redis: RedisServer) -> int:
    """The node's subscriber: the one pub/sub client (on tandem:lifecycle and tandem:probe:p1)."""
    clients = [line for line in str(redis.command("CLIENT", "LIST", "TYPE", "pubsub")).splitlines() if line]
    assert len(clients) == 1, clients
    return int(re.search(r"\baddr=127\.0\.0\.1:(\d+)", clients[0]).group(1))


def health_text(node: TandemServer) -> str:
    return node.get("/healthz").text


def probe_heard(node: TandemServer) -> bool:
    return node.metrics().get("tandem_cluster_delivery_probe_seconds", 0) > 0


class HealthWatcher:
    """Asks /healthz every 20 ms on a thread of its own and keeps every distinct answer in order
    (a red spell may be shorter than a test's own polling would see)."""

    def __init__(self, node: TandemServer):
        self.node = node
        self.answers: list[tuple[int, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                response = self.node.get("/healthz")
                answer = (response.status, response.text)
            except OSError:
                answer = (0, "")
            if not self.answers or self.answers[-1] != answer:
                self.answers.append(answer)
            self._stop.wait(0.02)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(WAIT)


def test_a_silently_cut_subscriber_turns_healthz_red_and_is_reconnected(node, redis):
    if shutil.which("iptables") is None:
        pytest.skip("iptables is not installed")
    wait_until(lambda: healthz(node.port) == 200, what="/healthz 200")
    wait_until(lambda: probe_heard(node), what="a probe heard back")
    assert node.metrics()["tandem_cluster_delivery_stalled"] == 0
    port = subscriber_port(redis)
    rule = ["INPUT", "-p", "tcp", "-s", "127.0.0.1", "--sport", str(redis.port), "--dport", str(port), "-j", "DROP"]
    mark = len(node.stderr_lines)
    watcher = HealthWatcher(node)
    subprocess.run(["iptables", "-I", *rule], check=True)
    try:
        line = node.wait_for_log("redis delivery stalled: no probe back for", start=mark)
        assert "reconnecting the subscriber" in line
        # Reconnected from another port, which the rule does not match: delivery is back.
        node.wait_for_log("redis: delivery back", start=mark)
        wait_until(lambda: watcher.answers[-1][0] == 200, what="/healthz 200 after the subscriber reconnected")
    finally:
        subprocess.run(["iptables", "-D", *rule], check=False)
        watcher.stop()
    stalled = [text for status, text in watcher.answers if status == 503 and text.startswith("redis delivery stalled")]
    assert stalled, watcher.answers
    assert re.fullmatch(r"redis delivery stalled: no probe back for \d+ s\n", stalled[0]), stalled
    assert watcher.answers[0][0] == 200 and watcher.answers[-1][0] == 200, watcher.answers
    assert subscriber_port(redis) != port
    metrics = node.metrics()
    assert metrics["tandem_cluster_delivery_stalls_total"] >= 1
    assert metrics["tandem_cluster_delivery_stalled"] == 0


def test_a_stopped_redis_turns_healthz_red_until_it_continues(node, redis):
    wait_until(lambda: healthz(node.port) == 200, what="/healthz 200")
    wait_until(lambda: probe_heard(node), what="a probe heard back")
    redis.proc.send_signal(signal.SIGSTOP)
    try:
        wait_until(lambda: healthz(node.port) == 503, what="/healthz 503 with Redis stopped")
        assert health_text(node).startswith("redis")
    finally:
        redis.proc.send_signal(signal.SIGCONT)
    wait_until(lambda: healthz(node.port) == 200, what="/healthz 200 with Redis going again")
    wait_until(lambda: node.metrics()["tandem_cluster_delivery_stalled"] == 0, what="no stall once Redis goes again")
